"""`verifier coverage`: checkable lesson sentences no reviewed claim covers, per lesson."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from verifier.cli.check_cmd import select_lessons
from verifier.cli.common import err_console, project_from, stdout_console
from verifier.errors import UsageError
from verifier.exitcodes import ExitCode

HELP = ("list checkable sentences (code spans, numbers, permalinks) that no reviewed claim "
        "covers, per lesson, with a coverage percentage; the total is the last line")

EPILOG = """\
A checkable sentence is a sentence of the lesson model (or a table row) with a code
span that is code, a number in the prose, or a permalink to a pinned upstream. Not
candidates: headings, code blocks, $$ maths, table header rows, questions (ending
in ?/？), pure citation lines (they belong to the sentence before them), formula
code spans (`vᵀJᵀf=(Jv)ᵀf`), numbers inside $...$, exercise/section numbering
(练习 1, Exercise 2, §3) and version or commit mentions (lint's VL105 checks them).
Drafts (review = "draft") never cover; they are counted in the `drafted` column.
Pages that are not lessons are excluded by rule: glob patterns in groups `index`
(curriculum.md, guide.md, installation.md, roadmap.md, source-map.md, versions.md,
index.md, README.md) and `validation` (validation/*, evidence/*, *validation.md),
matched against the page's path in its docs directory; change them in
coverage.toml next to pins.toml ([exclude] or [course.<name>.exclude])."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("--lesson", action="append", metavar="L",
                   help="only this lesson: a file path or <course>/<path>; repeatable")
    p.add_argument("--course", help="only lessons of this course")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--min", type=float, default=None, metavar="PERCENT",
                   help="exit 1 when a lesson's coverage is below PERCENT")
    p.add_argument("--all", action="store_true", help="text format: list every uncovered "
                   "sentence (default: the first 10 per lesson)")


def run(args: argparse.Namespace) -> int:
    from verifier.claims.coverage import coverage_report

    if args.min is not None and not 0 <= args.min <= 100:
        raise UsageError(f"--min must be a percentage (0-100), got {args.min}")
    project = project_from(args)
    lessons = select_lessons(project, args)
    report, excluded = coverage_report(project, lessons)
    total = sum(r.candidates for r in report)
    covered = sum(r.covered for r in report)
    summary = {"lessons": len(report), "candidates": total, "covered": covered,
               "percent": round(100.0 * covered / total, 1) if total else 100.0,
               "drafted": sum(r.drafted for r in report), "excluded": len(excluded)}
    low = [r for r in report if args.min is not None and r.percent < args.min]
    code = ExitCode.FINDINGS if low else ExitCode.OK
    if args.format == "json":
        print(json.dumps({"lessons": [r.model_dump(mode="json") for r in report],
                          "excluded": [{"lesson": n, "why": w} for n, w in excluded],
                          "summary": summary}, indent=2, ensure_ascii=False))
        return code
    con = stdout_console()
    t = Table(title="claim coverage (reviewed claims)")
    for col in ("lesson", "claims", "candidates", "covered", "%", "drafted"):
        t.add_column(col, overflow="fold")
    for r in report:
        t.add_row(f"{r.course}/{r.lesson}", str(r.claims), str(r.candidates), str(r.covered),
                  f"{r.percent}", str(r.drafted) if r.drafts else "-")
    con.print(t)
    for r in report:
        if not r.uncovered:
            continue
        shown = r.uncovered if args.all else r.uncovered[:10]
        con.print(f"\n[bold]{r.course}/{r.lesson}[/]: {len(r.uncovered)} uncovered", markup=True)
        for c in shown:
            con.print(f"  {c.line}: [{', '.join(c.reasons)}] {c.text}", markup=False)
        if len(shown) < len(r.uncovered):
            con.print(f"  ... {len(r.uncovered) - len(shown)} more (--all)")
    for name, why in excluded:
        err_console.print(f"not a lesson: {name} ({why})", highlight=False)
    if low:
        err_console.print(f"{len(low)} lesson(s) below {args.min}%: "
                          + ", ".join(f"{r.course}/{r.lesson} {r.percent}%" for r in low),
                          highlight=False)
    con.print(f"total: {covered}/{total} checkable sentences covered by reviewed claims "
              f"({summary['percent']}%) in {len(report)} lesson(s); {summary['drafted']} more "
              f"drafted; {len(excluded)} page(s) excluded")
    return code
