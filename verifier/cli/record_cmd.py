"""`verifier record`: run lint + check over the lessons and write a verification record.

Formats come from the reporter registry (`verifier.reporters`): json (the record;
default), markdown (one record per lesson), html, sarif, junit, github
(workflow-command annotations; also appends the job summary to $GITHUB_STEP_SUMMARY
when set). `--out` names a file, or a directory (existing, or ending in '/'): each
format is then written as `verification<suffix>` (markdown: `<course>/<lesson path>`),
plus `run.json` (timings, snippet output, provider messages). Without --out the
output goes to stdout.
"""

from __future__ import annotations

import argparse

from verifier.cli.check_cmd import add_runtime, add_selection
from verifier.cli.common import text_path_arg

HELP = "run lint and the claim check, and write a verification record (json, markdown, " \
       "html, sarif, junit, github)"
DESCRIPTION = (HELP + ". `verify` is the main job (it also acquires every needed source "
               "first, confirms claims at runtime by default and writes every format into "
               "--out); `record` writes the formats you name, for the lessons you select, "
               "with --runtime none unless asked: a record of part of a course, or one "
               "format on stdout.")


def _formats(value: str) -> list[str]:
    import argparse as _a

    from verifier.registry import choice_message
    from verifier.reporters import FORMATS

    fmts = list(dict.fromkeys(f.strip() for f in value.split(",") if f.strip()))
    if not fmts:
        raise _a.ArgumentTypeError("no format given")
    for f in fmts:
        if f not in FORMATS:
            raise _a.ArgumentTypeError(choice_message("format", f, FORMATS))
    return fmts


def add_arguments(p: argparse.ArgumentParser) -> None:
    from verifier.reporters import FORMATS

    p.add_argument("--format", default=["json"], type=_formats, metavar="FMT[,FMT...]",
                   help=f"output format(s): {', '.join(FORMATS)} (default json). Several, "
                        "comma-separated, need --out DIR; github annotations always go to stdout")
    p.add_argument("--out", metavar="PATH|DIR", type=text_path_arg,
                   help="write to this file, or into this directory (default: stdout)")
    add_selection(p)
    p.add_argument("--upstream", help="only claims about this upstream")
    p.add_argument("--timestamp", nargs="?", const="now", metavar="ISO8601",
                   help="record a timestamp (this time, or the one given); by default none, so "
                        "the same inputs give a byte-identical record")
    add_runtime(p)


def run(args: argparse.Namespace) -> int:
    from verifier import pipeline
    from verifier.errors import UsageError
    from verifier.outputs import is_directory

    fmts = args.format
    to_dir = bool(args.out) and is_directory(args.out)
    if len([f for f in fmts if f != "github"]) > 1 and not to_dir:
        raise UsageError(f"--format {','.join(fmts)}: several formats need --out DIR "
                         "(an existing directory, or a path ending in '/')")
    opts = pipeline.options(lessons=args.lesson, course=args.course, upstream=args.upstream,
                            runtime=args.runtime, sample=args.sample, seed=args.seed,
                            timestamp=args.timestamp, excerpts="html" in fmts)
    from pathlib import Path

    from verifier.cli import output as o
    from verifier.cli import render
    from verifier.cli.common import quiet
    from verifier.cli.runs import execute
    from verifier.cli.summaries import verify_line
    from verifier.outputs import (out_area, record_names, write_details, write_file,
                                  write_into)
    from verifier.rendermemo import Renders
    from verifier.reporters import reporter

    areas = []

    def check_out(project) -> None:       # refused or unwritable: exit 2 before the work
        if args.out:
            areas.append(out_area(args.out, project.protected(), directory=to_dir,
                                  files=record_names(fmts), dirs=tuple(sorted(project.pins.course))))

    project, result = execute(args, opts, stages=True, before=check_out)
    report = result.report
    renders = Renders(report, project.store)
    written: list[Path] = []
    for fmt in fmts:
        if fmt == "github" and (len(fmts) > 1 or not args.out):
            render.print_record(report, fmt, renders)  # annotations must reach the log
        elif not args.out:
            render.print_record(report, fmt, renders)
        elif to_dir:
            written += write_into(areas[0], report, fmt, renders)
        else:
            written.append(write_file(Path(args.out), report, fmt, renders, area=areas[0]))
        publish = getattr(reporter(fmt), "publish", None)
        if publish is not None:
            written += publish(report)
    if to_dir:
        written.append(write_details(areas[0], result.details))
    if not quiet(args):
        for path in written:
            o.info(f"wrote {o.rel(path)}")
    # the last line goes to stderr when stdout carries a format (a record, annotations)
    html = next((p for p in written if p.suffix == ".html"), None)
    render.final(verify_line(report, o.rel(args.out) + "/" if to_dir else None,
                             html=o.rel(html) if html else None),
                 machine=not args.out or "github" in fmts, quiet=quiet(args), args=args)
    return result.exit_code
