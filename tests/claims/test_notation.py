"""Notation tables (verifier/claims/notation.py): used, unused, conflicting, and never
hiding a real error. Fixture: the simx upstream and demo-atlas lesson."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import HEADER, claim, simx  # noqa: F401 (fixture)
from verifier.claims.check import check_claims
from verifier.errors import ConfigError

H = "systems/sensors/gyro_probe.h"
ADD = claim("add", "signature", H, "GyroProbe::AddToDiagram", ["body", "X_BP", "b"],
            "`AddToDiagram(body, X_BP, b)`")


def _with(notation: str) -> str:
    return HEADER + "[notation]\n" + notation + "\n"


@pytest.fixture(autouse=True)
def _no_course_table(simx):
    (simx.root / "claims" / "demo-atlas" / "notation.toml").unlink(missing_ok=True)


def test_a_used_mapping_verifies_and_shows_both_spellings(simx):
    assert simx.check(ADD)["add"].verdict.value == "diverged"       # literal: b != builder
    r = simx.check(ADD, header=_with('b = "builder"'))["add"]
    assert r.verdict.value == "verified", r.message
    assert r.expected == ["body", "X_BP", "b"] and r.actual == ["body", "X_BP", "builder"]
    assert ("through notation: `b` (lesson) = `builder` (source) "
            "(claims/demo-atlas/lesson.toml:5)") in r.message


def test_the_memo_keeps_what_notation_was_used(simx):
    simx.write(ADD, header=_with('b = "builder"'))
    for _ in range(2):                  # the second run is served from the claim memo
        found: list = []
        (_, r), = check_claims(simx.project, findings=found)
        assert r.verdict.value == "verified" and "through notation" in r.message
        assert found == []


def test_a_memo_hit_names_the_claims_own_notation_file(simx):
    """Claim files with the same notation share memo entries: each claim's message still
    names the declaration in its own file, and the audit finds nothing to distrust
    (found by `verifier bench --scale 10`, whose lesson copies share everything)."""
    import shutil

    from verifier.claims.memo import distrusted

    docs = simx.root.parent / "course" / "demo-atlas" / "docs"
    shutil.copy(docs / "lesson.md", docs / "copy.md")
    simx.write(ADD, header=_with('b = "builder"'))
    other = simx.claim_file.with_name("copy.toml")
    other.write_text(simx.claim_file.read_text().replace("docs/lesson.md", "docs/copy.md"))
    try:
        for _ in range(2):                      # cold, then from the memo
            got = {r.lesson: r for _, r in check_claims(simx.project)}
            for lesson, name in (("docs/lesson.md", "lesson"), ("docs/copy.md", "copy")):
                r = got[lesson]
                assert r.verdict.value == "verified"
                assert f"(claims/demo-atlas/{name}.toml:5)" in r.message, r.message
            assert not distrusted(simx.project)
    finally:
        other.unlink()
        (docs / "copy.md").unlink()


def test_an_unused_mapping_is_reported_with_its_line(simx):
    simx.write(ADD, header=_with('b = "builder"\nq_W = "gravity"'))
    found: list = []
    (_, r), = check_claims(simx.project, findings=found)
    assert r.verdict.value == "verified"
    assert [(f.rule, f.code, f.severity.value, f.path, f.line) for f in found] == [
        ("notation-unused", "VC150", "warning", "claims/demo-atlas/lesson.toml", 6)]
    assert "`q_W` = `gravity`" in found[0].message


def test_unused_is_inconclusive_when_its_claim_could_not_be_checked(simx):
    body = claim("add", "signature", "systems/sensors/no_such.h", "GyroProbe::AddToDiagram",
                 ["body", "X_BP", "b"], "`AddToDiagram(body, X_BP, b)`")
    simx.write(body, header=_with('b = "builder"'))
    found: list = []
    (_, r), = check_claims(simx.project, findings=found)
    assert r.verdict.value in ("unavailable", "error")
    assert found == []


def test_course_table_applies_to_every_claim_file(simx):
    (simx.root / "claims" / "demo-atlas" / "notation.toml").write_text(
        '# course notation\n[notation]\nb = "builder"\nreceivers = ["self."]\n')
    found: list = []
    simx.write(ADD)
    (_, r), = check_claims(simx.project, findings=found)
    assert r.verdict.value == "verified"
    assert "(claims/demo-atlas/notation.toml:3)" in r.message
    # the receiver applies to nothing here: reported, at its own line
    assert [(f.path, f.line) for f in found] == [("claims/demo-atlas/notation.toml", 4)]


def test_conflicting_mappings_are_an_error_naming_both_places(simx):
    (simx.root / "claims" / "demo-atlas" / "notation.toml").write_text(
        '[notation]\nb = "builder"\n')
    simx.write(ADD, header=_with('b = "bias"'))
    with pytest.raises(ConfigError) as exc:
        check_claims(simx.project)
    text = exc.value.render()
    assert "lesson.toml:5" in text and "notation.toml:2" in text and "conflict" in text


@pytest.mark.parametrize("table,needle", [
    ('g = "9.81"', "never rewrites values"),
    ('g = "a + b"', "never rewrites values"),
    ('"a*b" = "c"', "is not a name"),
    ('b = "b"', "maps to itself"),
    ('b = 3', "must map to a source name"),
    ('receivers = ["self"]', "not a receiver"),
])
def test_malformed_tables_are_errors_with_a_line(simx, table, needle):
    simx.write(ADD, header=_with(table))
    with pytest.raises(ConfigError) as exc:
        check_claims(simx.project)
    assert needle in exc.value.render() and exc.value.line == 5


def test_notation_never_applies_to_locators(simx):
    body = claim("s", "symbol", H, "GyroProbe::b", True, "`AddToDiagram(body, X_BP, b)`")
    r = simx.check(body, header=_with('b = "builder"'))["s"]
    assert r.verdict.value == "error" and "no symbol `GyroProbe::b`" in r.message


def test_a_mapping_cannot_make_a_wrong_order_right(simx):
    body = claim("add", "signature", H, "GyroProbe::AddToDiagram", ["body", "b", "X_BP"],
                 "`AddToDiagram(body, X_BP, b)`")
    assert simx.check(body, header=_with('b = "builder"'))["add"].verdict.value == "diverged"


def test_keyword_parameters_are_api_not_notation(simx):
    body = claim("imu", "signature", "pysimx/_src/sensors/probe_imu.py", "ProbeIMU",
                 ["w", "sites"], "`ProbeIMU(w, sites)`", match="prefix")
    r = simx.check(body, header=_with('w = "world"'))["imu"]
    assert r.verdict.value == "diverged"
    assert "notation not applied to `w` for `world`" in r.message


def test_cli_reports_unused_notation_as_a_warning(simx, capsys):
    import json

    from verifier.cli.main import main

    simx.write(ADD, header=_with('b = "builder"\nq_W = "gravity"'))
    pins = str(simx.root / "pins.toml")
    assert main(["check", "--pins", pins, "--format", "json", "-q"]) == 0   # a warning only
    doc = json.loads(capsys.readouterr().out)
    assert [(f["rule"], f["severity"], f["line"]) for f in doc["findings"]] == [
        ("notation-unused", "warning", 6)]
    assert main(["check", "--pins", pins, "-q"]) == 0
    out = capsys.readouterr().out
    assert "warning VC150 notation-unused" in out and "lesson.toml:6" in out


def test_the_record_carries_notation_warnings(simx):
    from verifier import pipeline

    simx.write(ADD, header=_with('q_W = "gravity"'))
    result = pipeline.run(simx.project, pipeline.options(runtime="none"))
    assert [f.rule for f in result.report.findings if f.rule == "notation-unused"] == \
        ["notation-unused"]
