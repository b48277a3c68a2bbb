"""JUnit XML, read back with junitparser."""

from __future__ import annotations

from collections import Counter

import pytest
from junitparser import Failure, JUnitXml, Skipped

from tests.reporters.report_fixtures import made_claims, made_findings
from verifier.report import build_report
from verifier.reporters import render
from verifier.results import Severity, Verdict

pytestmark = pytest.mark.wheels


def _parse(tmp_path, text):
    p = tmp_path / "junit.xml"
    p.write_text(text, encoding="utf-8")
    return JUnitXml.fromfile(str(p))


def test_junit_one_case_per_claim(real_project, tmp_path):
    lessons = real_project.lessons()
    claims, findings = made_claims(real_project, lessons), made_findings(lessons)
    report = build_report(real_project, lessons=lessons, claims=claims, findings=findings,
                          excerpts=False)
    xml = _parse(tmp_path, render(report, "junit"))
    suites = list(xml)
    assert len(suites) == 5
    cases = [(s.name, c) for s in suites for c in s]
    lint_cases = [c for _, c in cases if c.name.startswith("lint ")]
    claim_cases = [c for _, c in cases if c.name.startswith("claim ")]
    assert len(claim_cases) == len(claims)
    assert len(lint_cases) == sum(1 for f in findings if f.severity is not Severity.INFO)
    by_id = {c.name.split()[1]: c for c in claim_cases}
    for cl in claims:
        case = by_id[cl.id]
        assert case._elem.get("file") == cl.lesson
        assert case._elem.get("line") == str(cl.line)
        kinds = [type(r) for r in case.result]
        if cl.verdict in (Verdict.DIVERGED, Verdict.STALE, Verdict.ERROR):
            assert kinds == [Failure] and case.result[0].type == cl.verdict.value
        elif cl.verdict is Verdict.UNAVAILABLE:
            assert kinds == [Skipped] and case.result[0].message
        else:
            assert kinds == [] and case.is_passed
    counts = Counter(cl.verdict for cl in claims)
    failing = counts[Verdict.DIVERGED] + counts[Verdict.STALE] + counts[Verdict.ERROR] + 1
    xml.update_statistics()
    assert xml.tests == len(claims) + len(lint_cases)
    assert xml.failures == failing          # + the one lint error
    assert xml.skipped == counts[Verdict.UNAVAILABLE]
    # the counts written by the reporter are the ones a parser computes
    raw = _parse(tmp_path, render(report, "junit"))
    assert (raw.tests, raw.failures, raw.skipped) == (xml.tests, xml.failures, xml.skipped)


def test_junit_empty_run(real_project, tmp_path):
    report = build_report(real_project, lessons=[], claims=[], findings=[], excerpts=False)
    text = render(report, "junit")
    assert '<testsuites name="verifier" tests="0"' in text
    xml = _parse(tmp_path, text)
    assert xml.tests == 0 and list(xml) == []
