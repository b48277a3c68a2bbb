"""`verifier coverage`: candidate lesson sentences no claim covers, per lesson."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from verifier.cli.check_cmd import select_lessons
from verifier.cli.common import project_from, stdout_console
from verifier.errors import UsageError
from verifier.exitcodes import ExitCode

HELP = ("list sentences with code spans, numbers or permalinks that no claim covers, "
        "per lesson, with a coverage percentage")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lesson", action="append", metavar="L",
                   help="only this lesson: a file path or <course>/<path>; repeatable")
    p.add_argument("--course", help="only lessons of this course")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--min", type=float, default=None, metavar="PERCENT",
                   help="exit 1 when a lesson's coverage is below PERCENT")
    p.add_argument("--all", action="store_true", help="text format: list every uncovered "
                   "sentence (default: the first 10 per lesson)")


def run(args: argparse.Namespace) -> int:
    from verifier.claims.coverage import run_coverage

    if args.min is not None and not 0 <= args.min <= 100:
        raise UsageError(f"--min must be a percentage (0-100), got {args.min}")
    project = project_from(args)
    lessons = select_lessons(project, args)
    report = run_coverage(project, lessons)
    total = sum(r.candidates for r in report)
    covered = sum(r.covered for r in report)
    summary = {"lessons": len(report), "candidates": total, "covered": covered,
               "percent": round(100.0 * covered / total, 1) if total else 100.0}
    low = [r for r in report if args.min is not None and r.percent < args.min]
    code = ExitCode.FINDINGS if low else ExitCode.OK
    if args.format == "json":
        print(json.dumps({"lessons": [r.model_dump(mode="json") for r in report],
                          "summary": summary}, indent=2, ensure_ascii=False))
        return code
    con = stdout_console()
    t = Table(title=f"claim coverage: {covered}/{total} candidate sentences "
                    f"({summary['percent']}%)")
    for col in ("lesson", "claims", "candidates", "covered", "%"):
        t.add_column(col, overflow="fold")
    for r in report:
        t.add_row(f"{r.course}/{r.lesson}", str(r.claims), str(r.candidates), str(r.covered),
                  f"{r.percent}")
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
    return code
