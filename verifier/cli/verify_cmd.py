"""`verifier verify`: the main job over the whole course (what a course's CI runs).

Stages, in order, in one process: acquire every needed upstream file at pinned
identity; lint the lessons; check every claim statically; confirm a sample of
claims at runtime in the pinned environments; write the verification record in
every format the reporters mark for verify into --out (plus run.json); print a
summary. With GITHUB_ACTIONS=true it also prints workflow annotations and writes
$GITHUB_STEP_SUMMARY.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from verifier.cli.check_cmd import add_runtime
from verifier.cli.common import path_arg

HELP = ("the main job: acquire sources, lint lessons, check claims, confirm them at runtime "
        "(all checks by default; a claim whose runtime check does not run stays unavailable), "
        "write records (json, markdown, html, sarif, junit) into --out")


# options of other commands that people try here
NOT_AN_OPTION = {"--format": "verify writes every record format into --out; `verifier check "
                 "--format FMT` or `verifier record --format FMT` writes one"}


DESCRIPTION = (HELP + ". An author's day-to-day is lighter: after editing a lesson, "
               "`verifier lint LESSON` and `verifier check --lesson LESSON` (each well under "
               "a second warm); `verify` is what CI runs on a pull request.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=path_arg, default=Path("out"),
                   help="directory for the records (default: ./out)")
    p.add_argument("--course", help="only this course of pins.toml")
    add_runtime(p, default="all")


def run(args: argparse.Namespace) -> int:
    from verifier import pipeline
    from verifier.errors import UsageError

    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out}: exists and is not a directory")
    opts = pipeline.options(course=args.course, acquire=True, runtime=args.runtime,
                            sample=args.sample, seed=args.seed)
    from verifier.cli import output as o
    from verifier.cli import render
    from verifier.cli.common import quiet
    from verifier.cli.runs import execute
    from verifier.cli.summaries import verify_line
    from verifier.outputs import out_area, record_names, write_details, write_into
    from verifier.rendermemo import Renders
    from verifier.reporters import VERIFY_FORMATS, reporter

    areas = []

    def check_out(project) -> None:       # refused or unwritable: exit 2 before the work
        areas.append(out_area(args.out, project.protected(), files=record_names(VERIFY_FORMATS),
                              dirs=tuple(sorted(project.pins.course))))

    project, result = execute(args, opts, stages=True, before=check_out)
    report = result.report
    render.sources_table(result.files)
    renders = Renders(report, project.store)
    written = []
    for fmt in VERIFY_FORMATS:
        written += write_into(areas[0], report, fmt, renders)
    written.append(write_details(areas[0], result.details))
    if os.environ.get("GITHUB_ACTIONS") == "true":
        render.print_record(report, "github", renders)
        reporter("github").publish(report)
    render.verdict_table(report)
    render.to_fix(result, project.root)
    for nr in report.not_run:
        o.say(("not run:", "yellow"), f" {nr.stage}: {nr.what} — {nr.why}")
    if not quiet(args):
        # the record's notes, on stderr; an identity warning is printed once, by the
        # source layer's `sources warning:` line just before the last line
        for n in report.notes:
            if n.code is None:
                o.note(f"{n.upstream + ': ' if n.upstream else ''}{n.text}")
        o.info(f"wrote {o.plural(len(written), 'file')} into {o.rel(args.out)}/")
    html = next((p for p in written if p.suffix == ".html"), None)
    render.final(verify_line(report, o.rel(args.out) + "/", html=o.rel(html) if html else None),
                 args=args)
    return result.exit_code
