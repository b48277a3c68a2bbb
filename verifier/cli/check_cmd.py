"""`verifier check`: give every claim a verdict against the pinned source."""

from __future__ import annotations

import argparse

from verifier import gcpause
from verifier.cli.common import TEXT, add_format, choice, text_path_arg

HELP = "check the claims bound to lesson sentences against the pinned upstream source"


def _kinds():
    from verifier.claims.kinds import REGISTRY

    return REGISTRY.names()


def formats() -> list[str]:
    """text, the stable claims JSON, and every record format except the record itself."""
    from verifier.reporters import FORMATS

    return [TEXT, "json", *(f for f in FORMATS if f != "json")]


def add_runtime(p: argparse.ArgumentParser, default: str = "none") -> None:
    from verifier.pipeline import RUNTIME_MODES

    p.add_argument("--runtime", default=default, type=choice("runtime mode", RUNTIME_MODES),
                   metavar="MODE", help=f"confirm claims at runtime in the pinned environments: "
                   f"{', '.join(RUNTIME_MODES)} (default {default})")
    p.add_argument("--sample", default=None, metavar="N|FRACTION",
                   help="with --runtime sample: how many checks (N) or what share (0.25, 25%%)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")


def add_selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lesson", action="append", metavar="L", default=[], type=text_path_arg,
                   help="only this lesson: a file path, or <course>/<path> "
                        "(e.g. mujoco-atlas/docs/state-and-time.md); repeatable")
    p.add_argument("--course", help="only lessons of this course")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_selection(p)
    p.add_argument("--upstream", metavar="U", help="only claims about this upstream")
    p.add_argument("--kind", action="append", default=[], type=choice("kind", _kinds),
                   help="only claims of this kind (repeatable)")
    add_format(p, formats(), help_extra="; json is the claims interface, the others are "
               "record formats")
    p.add_argument("--all", action="store_true", dest="every",
                   help="text: list every claim (default: those not verified, and drafts)")
    add_runtime(p)


def run(args: argparse.Namespace) -> int:
    from verifier import pipeline

    opts = pipeline.options(lessons=args.lesson, course=args.course, upstream=args.upstream,
                            kinds=args.kind, lint=False, runtime=args.runtime,
                            sample=args.sample, seed=args.seed, excerpts=args.format == "html")
    from verifier.cli import render
    from verifier.cli.runs import execute
    from verifier.cli.summaries import check_line
    from verifier.rendermemo import Renders

    project, result = execute(args, opts, stages=opts.runtime != "none")
    report = result.report
    with gcpause.paused():      # plain data of every claim, written and dropped
        if args.format == "json":
            render.print_claims_json(result, Renders(report, project.store))
        elif args.format != TEXT:
            render.print_record(report, args.format, Renders(report, project.store))
        else:
            render.claims_list(result, every=args.every)
            if report.findings:          # the claim files' own warnings (notation-unused)
                render.findings_list(result, project.root)
    render.final(check_line(report), machine=args.format != TEXT, args=args)
    return result.exit_code
