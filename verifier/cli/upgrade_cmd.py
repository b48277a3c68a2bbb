"""`verifier upgrade UPSTREAM --to REF`: report what breaks when a pin moves;
`--write` does the mechanical part (pins, lock, moved permalinks)."""

from __future__ import annotations

import argparse
import json

from verifier.cli.common import TEXT, add_format, choice

HELP = ("compare lessons against a new version of one upstream (commit, tag or version): "
        "claims whose verdict changes (runtime included), permalinks that moved, cited lines "
        "that changed, files renamed or deleted, the release surface of the names the lessons "
        "use, the new wheel map; --write bumps the pin and rewrites moved permalinks")

FORMATS = [TEXT, "json", "markdown", "html"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("upstream", help="upstream name in pins.toml, e.g. newton")
    p.add_argument("--to", dest="ref", required=True, metavar="REF",
                   help="new commit SHA, tag or version (for wheel-served files a wheel "
                        "version such as 1.7.0 works)")
    p.add_argument("--commit", metavar="SHA",
                   help="the new version's commit, when REF is a version no git provider "
                        "resolves (needed by --write)")
    p.add_argument("--version", dest="new_version", metavar="V",
                   help="the new version's version string, when REF is a commit SHA")
    p.add_argument("--via", type=choice("via", ["auto", "git", "wheel"]), default="auto",
                   help="how to acquire the new version (default: git when a provider holds "
                        "it, else the release from the package index)")
    p.add_argument("--course", help="only lessons of this course")
    p.add_argument("--lesson", action="append", metavar="PATH",
                   help="only this lesson file (repeatable)")
    p.add_argument("--no-claims", action="store_true", help="do not re-run the claims")
    p.add_argument("--runtime", type=choice("runtime mode", ["all", "sample", "none"]),
                   default="all",
                   help="runtime checks on both sides, the new one in an environment of the "
                        "new version built in the cache (default all; sample: a deterministic "
                        "sample, the same on both sides; none: static only)")
    p.add_argument("--sample", metavar="N", help="with --runtime sample: a fraction or a count")
    p.add_argument("--seed", type=int, default=0, help="seed of the runtime sample")
    p.add_argument("--no-surface", action="store_true",
                   help="do not compare the release surface of the names the lessons use")
    p.add_argument("--write", action="store_true",
                   help="update pins.toml (the new wheel map included) and pins.lock and "
                        "rewrite moved permalinks whose cited content is unchanged")
    add_format(p, FORMATS)
    p.add_argument("--out", metavar="FILE",
                   help="write the report (in --format) to FILE instead of stdout")
    p.add_argument("--diffs", action="store_true",
                   help="text: show the old -> new diff of changed cited lines")


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import project_from, quiet
    from verifier.exitcodes import ExitCode
    from verifier.pipeline import check_course, check_upstream, parse_runtime
    from verifier.upgrade import run_upgrade  # heavy: imported only for this command

    runtime, sample = parse_runtime(args.runtime, args.sample)
    project = project_from(args)
    check_upstream(project, args.upstream)
    check_course(project, args.course)
    progress = o.RichProgress(quiet(args) or args.format != TEXT or bool(args.out))
    progress.begin(f"upgrade {args.upstream} to {args.ref}: acquiring, comparing, re-checking")
    try:
        report = run_upgrade(project, args.upstream, args.ref, commit=args.commit,
                             version=args.new_version, via=args.via, course=args.course,
                             lesson_paths=args.lesson, write=args.write,
                             claims=not args.no_claims, runtime=runtime, sample=sample,
                             seed=args.seed, surface=not args.no_surface)
    finally:
        progress.end()
    if args.format == TEXT and not args.out:
        from verifier.cli.upgrade_render import render

        render(report, show_diffs=args.diffs)
    else:
        text = _text(report, args.format)
        if args.out:
            from verifier.outputs import out_area

            # never over the project's lessons, claims or pins (the safe writer's guard)
            out_area(args.out, project.protected(), directory=False).write(args.out, text)
            o.note(f"upgrade report ({args.format}) written to {o.rel(args.out)}")
        else:
            from verifier.visible import escape

            print(escape(text) if args.format == "json" else text, end="")
    return ExitCode.FINDINGS if report.needs_review else ExitCode.OK


def _text(report, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report.to_json(), indent=2, ensure_ascii=False, default=str) + "\n"
    if fmt == "markdown":
        from verifier.upgrade.report_md import render as md

        return md(report)
    if fmt == "html":
        from verifier.upgrade.report_html import render as html

        return html(report)
    from verifier.cli.upgrade_render import plain

    return plain(report)
