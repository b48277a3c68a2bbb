"""`verifier lint [PATH...]`: check lessons against the pinned sources (rules VL1xx)."""

from __future__ import annotations

import argparse

from verifier.cli.common import TEXT, add_format

HELP = "lint lessons: permalinks, identifiers, versions, code blocks, relative links"
PUBLIC = ("rule", "severity", "path", "line", "message", "upstream", "target")


def formats() -> list[str]:
    from verifier.reporters import FORMATS

    return [TEXT, "json", *(f for f in FORMATS if f != "json")]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="lesson files, or <course>/<path> (default: every lesson of the "
                        "courses in pins.toml)")
    p.add_argument("--course", help="course the given paths belong to (default: from their "
                   "folder, <course-repo>/docs/<lesson>.md); alone: only its lessons")
    add_format(p, formats(), aliases={"rich": TEXT},
               help_extra="; json is the findings interface, the others are record formats")
    p.add_argument("--info", action="store_true", help="also show info findings (fingerprints)")


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


def run(args: argparse.Namespace) -> int:
    from verifier import pipeline

    opts = pipeline.options(lessons=args.paths, course=args.course, check=False,
                            excerpts=False)
    from verifier.cli import render
    from verifier.cli.runs import execute
    from verifier.cli.summaries import lint_line

    project, result = execute(args, opts)
    if args.format == "json":
        render.print_json(findings_json(result))
    elif args.format != TEXT:
        render.print_record(result.report, args.format)
    else:
        render.findings_list(result, project.root, info=args.info)
    render.final(lint_line(result.report, info_hidden=args.format == TEXT and not args.info),
                 machine=args.format != TEXT)
    return result.exit_code
