"""JUnit XML, read back with junitparser."""

from __future__ import annotations

from collections import Counter

from junitparser import Failure, JUnitXml, Skipped

from tests.reporters.snapshots import assert_snapshot, golden
from verifier.reporters import render
from verifier.results import Severity, Verdict


def _parse(tmp_path, text):
    p = tmp_path / "junit.xml"
    p.write_text(text, encoding="utf-8")
    return JUnitXml.fromfile(str(p))


def test_golden(record):
    assert_snapshot(golden("record.xml"), render(record, "junit"))


def test_junit_one_case_per_claim(record, tmp_path):
    report, claims, findings = record, record.claims, record.findings
    xml = _parse(tmp_path, render(report, "junit"))
    suites = list(xml)
    assert len(suites) == len(report.lessons) + bool(report.orphan_findings())
    # a lesson path two courses share gives two suites
    assert len({s.name for s in suites}) == len(suites)
    cases = [(s.name, c) for s in suites for c in s]
    lint_cases = [c for _, c in cases if c.name.startswith("lint ")]
    claim_cases = [c for _, c in cases if c.name.startswith("claim ")]
    assert len(claim_cases) == len(claims)
    assert len(lint_cases) == sum(1 for f in findings if f.severity is not Severity.INFO)
    by_id = {c.name.split()[1]: c for c in claim_cases}
    for cl in claims:
        case = by_id[cl.id]
        assert case._elem.get("file") == cl.lesson
        assert case._elem.get("line") == str(cl.line or 1)
        kinds = [type(r) for r in case.result]
        if cl.verdict in (Verdict.DIVERGED, Verdict.STALE, Verdict.ERROR):
            assert kinds == [Failure] and case.result[0].type == cl.verdict.value
        elif cl.verdict is Verdict.UNAVAILABLE:
            assert kinds == [Skipped] and case.result[0].message
        else:
            assert kinds == [] and case.is_passed
    counts = Counter(cl.verdict for cl in claims)
    lint_errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    failing = counts[Verdict.DIVERGED] + counts[Verdict.STALE] + counts[Verdict.ERROR]
    xml.update_statistics()
    assert xml.tests == len(claims) + len(lint_cases)
    assert xml.failures == failing + lint_errors
    assert xml.skipped == counts[Verdict.UNAVAILABLE]
    # the counts written by the reporter are the ones a parser computes
    raw = _parse(tmp_path, render(report, "junit"))
    assert (raw.tests, raw.failures, raw.skipped) == (xml.tests, xml.failures, xml.skipped)


def test_junit_empty_run(record, tmp_path):
    report = record.model_copy(update={"lessons": [], "claims": [], "findings": []})
    text = render(report, "junit")
    assert '<testsuites name="verifier" tests="0"' in text
    xml = _parse(tmp_path, text)
    assert xml.tests == 0 and list(xml) == []
