"""JUnit XML: one <testsuite> per lesson, one <testcase> per claim and per lint
error or warning, each with `file` and `line`.

diverged / stale / error claims and lint errors are <failure>s; unavailable
claims are <skipped> with the reason; lint warnings pass with <system-out>
(JUnit has no warning state). An empty run writes <testsuites tests="0" ...>.
No timings are written, so the file is deterministic."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from verifier.report import RunReport, claim_sort_key, finding_sort_key
from verifier.reporters.rules import claim_message, claim_rule, finding_rule
from verifier.results import Severity, Verdict

NAME = "junit"
SUFFIX = ".xml"
IN_VERIFY = True


def _suite_counts(el: ET.Element) -> tuple[int, int, int]:
    cases = el.findall("testcase")
    fail = sum(1 for c in cases if c.find("failure") is not None)
    skip = sum(1 for c in cases if c.find("skipped") is not None)
    return len(cases), fail, skip


def render_tree(report: RunReport) -> ET.Element:
    root = ET.Element("testsuites", name="verifier")
    totals = [0, 0, 0]
    groups = [(f"{les.course}/{les.path}", f"{les.course}.{les.path}",
               report.lesson_claims(les), report.lesson_findings(les))
              for les in report.lessons]
    if report.orphan_claims() or report.orphan_findings():
        groups.append(("(lessons outside this run)", "other", report.orphan_claims(),
                       report.orphan_findings()))
    for name, classname, claims, findings in groups:
        suite = ET.SubElement(root, "testsuite", name=name)
        for c in sorted(claims, key=claim_sort_key):
            case = ET.SubElement(suite, "testcase", classname=classname,
                                 name=f"claim {c.id} ({claim_rule(c)} {c.kind})",
                                 file=c.lesson, line=str(c.line or 1))
            msg = claim_message(c)
            if c.verdict.failing:
                el = ET.SubElement(case, "failure", message=msg, type=c.verdict.value)
                el.text = msg
            elif c.verdict is Verdict.UNAVAILABLE:
                ET.SubElement(case, "skipped", message=c.message or
                              "source unavailable at pinned identity")
        for f in sorted(findings, key=finding_sort_key):
            if f.severity is Severity.INFO:
                continue
            case = ET.SubElement(suite, "testcase", classname=classname,
                                 name=f"lint {finding_rule(f)} {f.rule} line {f.line}",
                                 file=f.path, line=str(f.line or 1))
            if f.severity is Severity.ERROR:
                el = ET.SubElement(case, "failure", message=f.message, type="lint-error")
                el.text = f.message
            else:
                out = ET.SubElement(case, "system-out")
                out.text = f"warning: {f.message}"
        n, fail, skip = _suite_counts(suite)
        suite.set("tests", str(n))
        suite.set("failures", str(fail))
        suite.set("errors", "0")
        suite.set("skipped", str(skip))
        totals = [totals[0] + n, totals[1] + fail, totals[2] + skip]
    root.set("tests", str(totals[0]))
    root.set("failures", str(totals[1]))
    root.set("errors", "0")
    root.set("skipped", str(totals[2]))
    return root


def render(report: RunReport) -> str:
    root = render_tree(report)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
