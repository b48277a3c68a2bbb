"""`verifier coverage`: candidate lesson sentences no claim covers, per lesson."""

from __future__ import annotations

import argparse
import json

from verifier.cli.check_cmd import add_selection
from verifier.cli.common import TEXT, add_format

HELP = ("list sentences with code spans, numbers or permalinks that no claim covers, "
        "per lesson, with a coverage percentage")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_selection(p)
    add_format(p, [TEXT, "json"])
    p.add_argument("--min", type=float, default=None, metavar="PERCENT",
                   help="exit 1 when a lesson's coverage is below PERCENT")
    p.add_argument("--all", action="store_true", help="text format: list every uncovered "
                   "sentence (default: the first 10 per lesson)")


def run(args: argparse.Namespace) -> int:
    from verifier.claims.coverage import run_coverage
    from verifier.cli import output as o
    from verifier.cli.common import project_from
    from verifier.errors import UsageError
    from verifier.exitcodes import ExitCode
    from verifier.pipeline import select_lessons

    if args.min is not None and not 0 <= args.min <= 100:
        raise UsageError(f"--min must be a percentage (0-100), got {args.min}")
    project = project_from(args)
    lessons = select_lessons(project, args.lesson, args.course)
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
    o.show(o.table(f"claim coverage: {covered:,}/{total:,} candidate sentences "
                   f"({summary['percent']}%)", ["lesson", "claims", "candidates", "covered", "%"],
                   [[f"{r.course}/{r.lesson}", f"{r.claims:,}", f"{r.candidates:,}",
                     f"{r.covered:,}", f"{r.percent}"] for r in report],
                   right=["claims", "candidates", "covered", "%"]))
    for r in report:
        if not r.uncovered:
            continue
        shown = r.uncovered if args.all else r.uncovered[:10]
        o.say("")
        o.say((f"{r.course}/{r.lesson}", "bold"), f": {len(r.uncovered):,} uncovered")
        for c in shown:
            o.say(f"  {c.line}: [{', '.join(c.reasons)}] {c.text}")
        if len(shown) < len(r.uncovered):
            o.say(f"  ... {len(r.uncovered) - len(shown):,} more (--all)")
    o.say(f"{o.plural(len(report), 'lesson')}: {covered:,} of {total:,} candidate sentences "
          f"covered ({summary['percent']}%)" + (f"; exit 1 ({o.plural(len(low), 'lesson')} "
                                                 f"below {args.min}%)" if low else "; exit 0"))
    return code
