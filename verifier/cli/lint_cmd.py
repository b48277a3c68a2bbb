"""`verifier lint [PATH...]`: check lessons against the pinned sources (rules VL1xx)."""

from __future__ import annotations

import argparse

from verifier import gcpause
from verifier.cli.common import TEXT, add_format, text_path_arg

HELP = "lint lessons: permalinks, identifiers, versions, code blocks, relative links"
PUBLIC = ("rule", "severity", "path", "line", "message", "upstream", "target")


def formats() -> list[str]:
    from verifier.reporters import FORMATS

    return [TEXT, "json", *(f for f in FORMATS if f != "json")]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", type=text_path_arg,
                   help="lesson files, or <course>/<path> (default: every lesson of the "
                        "courses in pins.toml)")
    p.add_argument("--course", help="course the given paths belong to (default: from their "
                   "folder, <course-repo>/docs/<lesson>.md); alone: only its lessons")
    add_format(p, formats(), aliases={"rich": TEXT},
               help_extra="; json is the findings interface, the others are record formats")
    p.add_argument("--changed", action="store_true",
                   help="PATHs are the files a commit changed (a pre-commit hook): lint the "
                        "lessons among them, ignore the other files; none: exit 0")
    p.add_argument("--info", action="store_true", help="also show info findings (fingerprints, "
                   "and every unchecked item on its line)")
    p.add_argument("--strict-unchecked", action="store_true",
                   help="exit 1 when anything went unchecked for want of sources (a CI that "
                        "wants every name and link decided)")
    p.add_argument("--self-test", action="store_true",
                   help="mutate every lesson with single faults and report catch rates per "
                        "fault type (verifier/lint/selftest.py); exit 1 below 95 %%")
    p.add_argument("--sample", type=int, default=3,
                   help="--self-test: mutants per lesson and fault type (0 = all; default 3)")
    p.add_argument("--seed", type=int, default=0, help="--self-test: sampling seed")


def findings_json(result) -> dict:
    """`verifier lint --format json` (a stable interface)."""
    from collections import Counter

    from verifier.cli.summaries import unchecked

    findings = result.report.findings
    out = []
    for f in findings:
        d = f.model_dump(mode="json")
        row = {k: d[k] for k in PUBLIC}
        row.update({k: v for k, v in d.items() if k not in PUBLIC and v not in (None, {})})
        out.append(row)
    sev = Counter(f.severity.value for f in findings)
    return {"findings": out, "summary": {
        "errors": sev.get("error", 0), "warnings": sev.get("warning", 0),
        "info": sev.get("info", 0), "unchecked": unchecked(result.report),
        "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
        "lessons": len(result.lessons)}}


def changed_lessons(project, paths: list[str], course: str | None) -> list[str]:
    """The lessons among the files a commit changed (other files: a claim file, README,
    a page outside every course, are not lessons: left out without a word)."""
    from pathlib import Path

    known = {d.file.resolve() for d in project.lessons(course=course)}
    return [p for p in paths if Path(p).resolve() in known]


def self_test(args: argparse.Namespace) -> int:
    from verifier.cli.common import project_from
    from verifier.cli.render import print_json
    from verifier.exitcodes import ExitCode
    from verifier.lint.selftest import meets_target, render, run_self_test

    project = project_from(args)
    lessons = project.lessons(args.paths, args.course) if args.paths or args.course else None
    report = run_self_test(project, sample=args.sample, seed=args.seed, lessons=lessons)
    if args.format == "json":
        print_json(report)
    else:
        print(render(report))
    return ExitCode.OK if meets_target(report) else ExitCode.FINDINGS


def run(args: argparse.Namespace) -> int:
    if args.self_test:
        return self_test(args)
    from verifier import pipeline

    project = None
    if args.changed:
        from verifier.cli.common import project_from

        project = project_from(args)
        args.paths = changed_lessons(project, args.paths, args.course)
        if not args.paths:
            return 0
    opts = pipeline.options(lessons=args.paths, course=args.course, check=False,
                            excerpts=False)
    from verifier.cli import render
    from verifier.cli.runs import execute
    from verifier.cli.summaries import lint_line
    from verifier.rendermemo import Renders

    project, result = execute(args, opts, project=project)
    with gcpause.paused():      # plain data of every finding, written and dropped
        if args.format == "json":
            render.print_json(findings_json(result))
        elif args.format != TEXT:
            render.print_record(result.report, args.format,
                                Renders(result.report, project.store))
        else:
            render.findings_list(result, project.root, info=args.info)
    line, code = lint_line(result.report, info_hidden=args.format == TEXT and not args.info), \
        result.exit_code
    if args.strict_unchecked:
        from verifier.cli.summaries import unchecked

        n = unchecked(result.report)
        if n and code == 0:
            code = 1
            line = line.rsplit("; exit", 1)[0] + f"; exit 1 (--strict-unchecked: {n:,} items " \
                "unchecked)"
    render.final(line, machine=args.format != TEXT, args=args)
    return code
