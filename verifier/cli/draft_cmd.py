"""`verifier draft LESSON...`: propose claims for checkable sentences no claim covers."""

from __future__ import annotations

import argparse
import json

from verifier.cli.common import TEXT, add_format, text_path_arg

HELP = ("propose claims (drafts) for the checkable sentences of lessons that no claim covers, "
        "grounded in the pinned source; --write appends them to the claim files")

EPILOG = """\
Each draft is marked review = "draft": `verifier check` reports it apart ("draft,
unreviewed") and coverage does not count it; accept one by deleting the marker or
with `verifier claims accept ID`. Expected values are read from the sentence, never
from the source, so a draft whose sentence is wrong at the pin checks `diverged`.
Runtime drafts are skeletons a person must complete (needs_person in JSON)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("lesson", nargs="+", metavar="LESSON", type=text_path_arg,
                   help="a lesson file, or <course>/<path> (e.g. mujoco-atlas/docs/state-and-time.md)")
    p.add_argument("--course", help="the course of lesson files outside <course>/docs/")
    add_format(p, [TEXT, "json"], help_extra="; json prints the drafts (never writes)")
    p.add_argument("--write", action="store_true",
                   help="append the drafts to claims/<course>/<lesson-stem>.toml")


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import print_source_notices, project_from
    from verifier.draft import draft_lessons, write
    from verifier.errors import UsageError
    from verifier.exitcodes import ExitCode
    from verifier.pipeline import select_lessons

    if args.write and args.format == "json":
        raise UsageError("--format json prints drafts without writing; drop one of --write/--format json")
    project = project_from(args)
    if args.write:          # the claim files this writes: writable, checked before drafting
        from verifier.claims.loader import claims_root
        from verifier.safewrite import Area

        Area.edit(claims_root(project), "the claim files").preflight()
    lessons = select_lessons(project, args.lesson, args.course) or []
    drafts, excluded = draft_lessons(project, lessons)
    totals = {"lessons": len(drafts), "candidates": sum(d.candidates for d in drafts),
              "uncovered": sum(d.uncovered for d in drafts),
              "drafted": sum(d.drafted for d in drafts),
              "drafted_static": sum(d.drafted_static for d in drafts),
              "drafted_beyond": sum(d.drafted_beyond for d in drafts),
              "ambiguous": sum(len(d.ambiguous) for d in drafts),
              "proposals": sum(len(d.proposals) for d in drafts),
              "runtime_skeletons": sum(1 for d in drafts for p in d.proposals if p.person)}
    if args.format == "json":
        doc = {"lessons": [{"course": d.course, "lesson": d.lesson, "upstream": d.upstream,
                            "candidates": d.candidates, "uncovered": d.uncovered,
                            "drafted": d.drafted, "drafted_static": d.drafted_static,
                            "drafted_beyond": d.drafted_beyond,
                            "proposals": [p.public(d.upstream) for p in d.proposals],
                            "skipped": [{"line": ln, "why": why} for ln, why in d.skipped],
                            "ambiguous": [{"line": ln, "why": why} for ln, why in d.ambiguous]}
                           for d in drafts],
               "excluded": [{"lesson": n, "why": why} for n, why in excluded],
               "summary": totals}
        from verifier.visible import escape

        print(escape(json.dumps(doc, indent=2, ensure_ascii=False)))
        return ExitCode.OK
    for name, why in excluded:
        o.note(f"{name}: not drafted ({why})")
    for d in drafts:
        rows = []
        for p in d.proposals:
            loc = f"{p.upstream}:{p.path or '-'}" + (f" {p.symbol}" if p.symbol else "")
            exp = json.dumps(p.expected, ensure_ascii=False)
            if p.person:
                exp += " (skeleton: needs a person)"
            rows.append([str(p.line), p.id, p.kind, loc, exp, p.sentence or p.fragment])
        o.show(o.table(f"{d.course}/{d.lesson}: {d.uncovered:,} of {d.candidates:,} checkable "
                       f"sentences uncovered, drafts for {d.drafted:,} ({d.drafted_static:,} "
                       "checkable statically)",
                       ["line", "id", "kind", "locator", "expected", "sentence"], rows))
        if d.skipped:
            o.say(f"{o.plural(len(d.skipped), 'uncovered sentence')} of {d.course}/{d.lesson} "
                  "got no draft:")
            for ln, why in d.skipped:
                o.say(f"  {ln}: {why}")
        for ln, why in d.ambiguous:
            o.note(f"{d.course}/{d.lesson}:{ln}: ambiguous binding, nothing drafted: {why}")
        if args.write:
            path, n = write.append(project, d)
            if n:
                o.note(f"wrote {o.plural(n, 'draft')} to {o.rel(path)}")
    if totals["proposals"]:
        o.say("next: " + ("review each draft in its claim file (complete the runtime "
                          "skeletons: their code and expected value need a person), "
                          if args.write else "`--write` appends these drafts to the claim "
                          "files; there, review each one (complete the runtime skeletons), ")
              + "then `verifier check --lesson LESSON` and `verifier claims accept ID`")
    print_source_notices(args)        # before the last line
    o.say(f"drafts: {totals['proposals']:,} for {totals['drafted']:,} of {totals['uncovered']:,} "
          f"uncovered sentences ({totals['drafted_static']:,} statically checkable, "
          f"{totals['drafted_beyond']:,} beyond existence, "
          f"{totals['runtime_skeletons']:,} runtime skeletons) in "
          f"{o.plural(totals['lessons'], 'lesson')}")
    return ExitCode.OK
