"""`verifier lint [PATH...]`: check lessons against the pinned sources (rules VL1xx)."""

from __future__ import annotations

import argparse
import json
from collections import Counter

from verifier.cli.common import project_from, stdout_console
from verifier.exitcodes import ExitCode
from verifier.lint import run_lint
from verifier.results import Severity

HELP = "lint lessons: permalinks, identifiers, versions, code blocks, relative links"
PUBLIC = ("rule", "severity", "path", "line", "message", "upstream", "target")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="lesson files (default: every lesson of the courses in pins.toml)")
    p.add_argument("--course", help="course the given paths belong to (default: from their "
                   "folder, <course-repo>/docs/<lesson>.md)")
    p.add_argument("--format", default="rich",
                   help="rich (default), json, or a reporter format (sarif, junit, github, "
                        "html, markdown) when available")
    p.add_argument("--info", action="store_true", help="also show info findings (fingerprints)")


def summary(findings) -> dict:
    sev = Counter(f.severity.value for f in findings)
    return {"errors": sev.get("error", 0), "warnings": sev.get("warning", 0),
            "info": sev.get("info", 0),
            "unchecked": sum(int(f.data.get("count", 0)) for f in findings
                             if f.rule == "source-unavailable"),
            "by_rule": dict(sorted(Counter(f.rule for f in findings).items()))}


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    lessons = project.lessons(args.paths or None, args.course)
    findings = run_lint(project, lessons)
    failed = any(f.severity is Severity.ERROR for f in findings)
    code = ExitCode.FINDINGS if failed else ExitCode.OK
    if args.format == "json":
        out = []
        for f in findings:
            d = f.model_dump(mode="json")
            row = {k: d[k] for k in PUBLIC}
            row.update({k: v for k, v in d.items() if k not in PUBLIC and v not in (None, {})})
            out.append(row)
        print(json.dumps({"findings": out, "summary": {**summary(findings),
                                                       "lessons": len(lessons)}},
                         indent=2, ensure_ascii=False))
        return code
    if args.format != "rich":
        try:
            from verifier.report import build_report
            from verifier.reporters import render
        except ImportError:
            from verifier.errors import UsageError

            raise UsageError(f"--format {args.format} is not available yet (json, rich)") from None
        report = build_report(project, lessons=lessons, findings=findings, claims=None)
        print(render(report, args.format))
        return code
    con = stdout_console()
    colours = {"error": "red", "warning": "yellow", "info": "dim"}
    for f in findings:
        if f.severity is Severity.INFO and not args.info:
            continue
        where = f"{f.course}/{f.path}:{f.line}" if f.course else f"{f.path}:{f.line}"
        c = colours[f.severity.value]
        con.print(f"{where}: [{c}]{f.severity.value}[/] {f.code} {f.rule}: {f.message}",
                  markup=True, highlight=False)
    s = summary(findings)
    con.print(f"{len(lessons)} lesson(s): {s['errors']} error(s), {s['warnings']} warning(s), "
              f"{s['info']} info (fingerprints; --info shows them); {s['unchecked']} item(s) "
              "unchecked for want of sources")
    return code
