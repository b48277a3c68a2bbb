"""`verifier coverage`: checkable lesson sentences no reviewed claim covers, per lesson."""

from __future__ import annotations

import argparse
import json

from verifier.cli.check_cmd import add_selection
from verifier.cli.common import TEXT, add_format

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
    add_selection(p)
    add_format(p, [TEXT, "json"])
    p.add_argument("--min", type=float, default=None, metavar="PERCENT",
                   help="exit 1 when a lesson's coverage is below PERCENT")
    p.add_argument("--all", action="store_true", help="text format: list every uncovered "
                   "sentence (default: the first 10 per lesson)")


def run(args: argparse.Namespace) -> int:
    from verifier.claims.coverage import coverage_report, says_share
    from verifier.claims.loader import load_claims
    from verifier.cli import output as o
    from verifier.cli.common import print_source_notices, project_from, quiet
    from verifier.errors import UsageError
    from verifier.exitcodes import ExitCode
    from verifier.pipeline import select_lessons

    if args.min is not None and not 0 <= args.min <= 100:
        raise UsageError(f"--min must be a percentage (0-100), got {args.min}")
    project = project_from(args)
    lessons = select_lessons(project, args.lesson, args.course)
    report, excluded = coverage_report(project, lessons)
    total = sum(r.candidates for r in report)
    covered = sum(r.covered for r in report)
    summary = {"lessons": len(report), "candidates": total, "covered": covered,
               "percent": round(100.0 * covered / total, 1) if total else 100.0,
               "drafted": sum(r.drafted for r in report), "excluded": len(excluded),
               "says": says_share(load_claims(project, lessons))}
    low = [r for r in report if args.min is not None and r.percent < args.min]
    code = ExitCode.FINDINGS if low else ExitCode.OK
    if args.format == "json":
        print(json.dumps({"lessons": [r.model_dump(mode="json") for r in report],
                          "excluded": [{"lesson": n, "why": w} for n, w in excluded],
                          "summary": summary}, indent=2, ensure_ascii=False))
        return code
    o.show(o.table(f"claim coverage (reviewed claims): {covered:,}/{total:,} checkable sentences "
                   f"({summary['percent']}%)",
                   ["lesson", "claims", "candidates", "covered", "%", "drafted"],
                   [[f"{r.course}/{r.lesson}", f"{r.claims:,}", f"{r.candidates:,}",
                     f"{r.covered:,}", f"{r.percent}", f"{r.drafted:,}" if r.drafts else "-"]
                    for r in report],
                   right=["claims", "candidates", "covered", "%", "drafted"]))
    share = summary["says"]
    o.show(o.table("what the reviewed claims read from their sentences (`says`) or say they "
                   "cannot (`paraphrase`)", ["kind", "claims", "says", "paraphrase", "% paraphrase"],
                   [[k, f"{v['claims']:,}", f"{v['says']:,}", f"{v['paraphrase']:,}",
                     f"{100.0 * v['paraphrase'] / v['claims']:.1f}" if v["claims"] else "-"]
                    for k, v in share.items()],
                   right=["claims", "says", "paraphrase", "% paraphrase"]))
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
    if excluded and not quiet(args):   # one line, not one per page (--format json lists them)
        from collections import Counter

        by = Counter(why.split(" (", 1)[0] for _, why in excluded)     # by rule group
        o.note(f"{o.plural(len(excluded), 'page')} excluded as not lessons ("
               + ", ".join(f"{n:,} {why}" for why, n in sorted(by.items()))
               + "; coverage.toml changes the rule, --format json lists them)")
    if total > covered:
        o.say("next: `verifier draft LESSON` proposes claims for a lesson's uncovered "
              "sentences (docs/draft.md); some are advice or status, not claims about source: "
              "leave those uncovered")
    print_source_notices(args)        # before the last line
    o.say(f"total: {covered:,} of {total:,} checkable sentences covered by reviewed claims "
          f"({summary['percent']}%) in {o.plural(len(report), 'lesson')}; "
          f"{summary['drafted']:,} more drafted; {o.plural(len(excluded), 'page')} excluded"
          + (f"; exit 1 ({o.plural(len(low), 'lesson')} below {args.min}%: "
             + ", ".join(f"{r.course}/{r.lesson} {r.percent}%" for r in low) + ")"
             if low else "; exit 0"))
    return code
