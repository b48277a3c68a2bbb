"""SARIF 2.1.0 for GitHub code scanning.

Location: the lesson file and line, relative to its course repository's root; each
course has its own `uriBaseId` (`COURSE_<name>`, described in `originalUriBaseIds`),
so `docs/intro.md` of two courses are two artifacts. Findings on files of the
project itself (lint.toml) use `PROJECTROOT`. URIs are percent-encoded. The upstream
permalink is a related location. `ruleId`
is the claim kind's code (VC1xx) or the lint rule's code; `partialFingerprints`
hash claim id + rule (lint: lesson + rule + target), never line numbers, so
alerts survive lesson edits. Verified claims produce no result; unavailable
claims are notes (they were not checked)."""

from __future__ import annotations

from urllib.parse import quote

from verifier import jsontext
from verifier.report import RunReport, claim_gid, claim_sort_key, finding_sort_key
from verifier.reporters.rules import (claim_fingerprint, claim_message, claim_rule,
                                      finding_fingerprint, finding_rule, rules_used)
from verifier.results import Severity, Verdict

NAME = "sarif"
SUFFIX = ".sarif"
IN_VERIFY = True

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
PROJECT_BASE = "PROJECTROOT"
LEVEL = {Verdict.DIVERGED: "error", Verdict.STALE: "error", Verdict.ERROR: "error",
         Verdict.UNAVAILABLE: "note"}
SEV = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _region(start: int | None, end: int | None = None) -> dict:
    start = max(1, start or 1)
    return {"startLine": start, "endLine": max(start, end or start)}


def base_id(course: str | None) -> str:
    return f"COURSE_{course}" if course else PROJECT_BASE


def uri(path: str) -> str:
    """A relative URI reference for a path (percent-encoded; `/` kept)."""
    return quote(path, safe="/")


def _loc(course: str | None, path: str, start: int | None, end: int | None = None) -> dict:
    return {"physicalLocation": {"artifactLocation": {"uri": uri(path),
                                                      "uriBaseId": base_id(course)},
                                 "region": _region(start, end)}}


def _bases(report: RunReport, results: list[dict]) -> dict:
    """One base per course of the run (and the project directory when used)."""
    out = {}
    for c in report.pins.courses:
        where = f"git {c.git} at {c.commit}" if c.git else f"path {c.path}"
        out[base_id(c.name)] = {"description": {"text": f"The root of course repository "
                                                f"{c.name} (pins.toml: {where})."}}
    for r in results:
        b = r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"]
        out.setdefault(b, {"description": {"text": "The directory of pins.toml." if
                                           b == PROJECT_BASE else "A course repository root."}})
    return dict(sorted(out.items()))


def _props(**kw) -> dict:
    return {k: v for k, v in kw.items() if v is not None}


def render_data(report: RunReport) -> dict:
    rules = rules_used(report)
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for c in sorted(report.claims, key=claim_sort_key):
        if c.verdict is Verdict.VERIFIED:
            continue
        rid = claim_rule(c)
        res = {
            "ruleId": rid, "ruleIndex": index[rid], "level": LEVEL[c.verdict],
            "message": {"text": claim_message(c, with_link=True)},
            "locations": [_loc(c.course, c.lesson, c.line)],
            "partialFingerprints": {"verifierClaim/v1": claim_fingerprint(c)},
            "properties": _props(claim=claim_gid(c), verdict=c.verdict.value, kind=c.kind,
                                 upstream=c.upstream, course=c.course),
        }
        ev = c.evidence
        if ev is not None and ev.permalink:
            uri = ev.permalink.split("#", 1)[0]
            rel = {"id": 1, "physicalLocation": {"artifactLocation": {"uri": uri}},
                   "message": {"text": f"{c.upstream} {ev.path} at the pinned commit"
                               + (f" (blob {ev.blob}, {ev.status})" if ev.blob else "")}}
            if ev.lines:
                rel["physicalLocation"]["region"] = _region(*ev.lines)
            res["relatedLocations"] = [rel]
            res["properties"]["permalink"] = ev.permalink
        if c.verdict.value in ("diverged", "stale"):
            res["properties"]["expected"] = c.expected
            res["properties"]["actual"] = c.actual
        results.append(res)
    for f in sorted(report.findings, key=finding_sort_key):
        rid = finding_rule(f)
        res = {"ruleId": rid, "ruleIndex": index[rid], "level": SEV[f.severity],
               "message": {"text": f.message},
               "locations": [_loc(f.course, f.path, f.line, f.end_line)],
               "partialFingerprints": {"verifierFinding/v1": finding_fingerprint(f)},
               "properties": _props(rule=f.rule, course=f.course, upstream=f.upstream,
                                    target=f.target)}
        results.append(res)
    driver = {
        "name": "verifier", "version": report.tool.version, "semanticVersion":
        report.tool.version,
        "rules": [{"id": r["id"], "name": r["name"],
                   "shortDescription": {"text": f"{r['kind']} {r['name']}"},
                   "fullDescription": {"text": r["description"]},
                   "properties": {"kind": r["kind"]}} for r in rules],
    }
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": _bases(report, results),
        "results": results,
        "columnKind": "unicodeCodePoints",
        "properties": {"pins": {u.name: u.commit for u in report.pins.upstreams},
                       "recordSchemaVersion": report.schema_version},
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: RunReport) -> str:
    return jsontext.dumps(render_data(report), sort_keys=True) + "\n"   # = json.dumps(indent=2)
