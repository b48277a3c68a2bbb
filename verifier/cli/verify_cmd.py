"""`verifier verify`: the main job over the whole course (what a course's CI runs).

Stages, in order: acquire every needed upstream file at pinned identity; lint
the lessons; check every claim statically; confirm a sample of claims at
runtime in the pinned environments; write the verification record in every
format into --out; print a summary. With GITHUB_ACTIONS=true it also prints
workflow annotations and writes $GITHUB_STEP_SUMMARY.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

from rich.table import Table

from verifier.claims.loader import claimed_files
from verifier.cli.common import err_console, project_from, stdout_console
from verifier.cli.record_cmd import _sample, collect, emit
from verifier.cli.sync_cmd import resolve_with_progress, summary_table
from verifier.errors import UsageError
from verifier.report import build_report, exit_code_for
from verifier.sources.needs import needed_files

HELP = ("the main job: acquire sources, lint lessons, check claims, confirm a runtime sample, "
        "write records (json, markdown, html, sarif, junit) into --out")

FILE_FORMATS = ["json", "markdown", "html", "sarif", "junit"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", type=Path, default=Path("out"),
                   help="directory for the records (default: ./out)")
    p.add_argument("--course", help="only this course of pins.toml")
    p.add_argument("--runtime", choices=("none", "sample", "all"), default="sample",
                   help="runtime confirmation (default: a deterministic sample)")
    p.add_argument("--sample", metavar="N|FRACTION", default=None,
                   help="with --runtime sample: how many checks (int) or which fraction")
    p.add_argument("--seed", type=int, default=0, help="seed of the runtime sample (default 0)")


def _verdict_table(report) -> Table:
    t = Table(title="claims by lesson")
    verdicts = ["verified", "diverged", "stale", "unavailable", "error"]
    t.add_column("lesson")
    for v in verdicts:
        t.add_column(v, justify="right")
    t.add_column("runtime", justify="right")
    t.add_column("lint errors", justify="right")
    for les in report.lessons:
        mine = [c for c in report.claims if c.lesson == les.path and (c.course or les.course)
                == les.course]
        c = Counter(x.verdict.value for x in mine)
        weak = sum(1 for x in mine if x.verdict.value == "verified" and x.evidence is not None
                   and x.evidence.status == "release")
        rt = Counter(x.runtime.status for x in mine if x.runtime)
        errs = sum(1 for f in report.findings if f.path == les.path
                   and (f.course or les.course) == les.course and f.severity.value == "error")
        cells = [str(c.get(v, 0)) for v in verdicts]
        if weak:
            cells[0] += f" ({weak} release)"
        t.add_row(f"{les.course}/{les.path}", *cells,
                  " ".join(f"{k} {n}" for k, n in sorted(rt.items())) or "-", str(errs))
    return t


def run(args: argparse.Namespace) -> int:
    sample = _sample(args.sample)
    if sample is not None and args.runtime != "sample":
        raise UsageError("--sample needs --runtime sample")
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out}: exists and is not a directory")
    quiet = getattr(args, "quiet", False)
    project = project_from(args)
    lessons = project.lessons(course=args.course)
    con = stdout_console()

    needed = needed_files(project, lessons=lessons, claimed=claimed_files(project, lessons))
    files = resolve_with_progress(project, needed, quiet)
    con.print(summary_table(files))

    with err_console.status("lint, check, runtime ...", spinner="dots") if not quiet \
            else _null():
        kw = collect(project, lessons, runtime=args.runtime, sample=sample, seed=args.seed)
    report = build_report(project, lessons=lessons, excerpts=True, **kw)

    args.out.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in FILE_FORMATS:
        written += emit(report, fmt, str(args.out) + "/")
    if os.environ.get("GITHUB_ACTIONS") == "true":
        emit(report, "github", None)

    con.print(_verdict_table(report))
    for nr in report.not_run:
        con.print(f"[yellow]not run:[/] {nr.stage}: {nr.what} — {nr.why}")
    s = report.summary
    con.print(f"{s.lessons} lesson(s), {s.claims} claim(s), "
              f"{sum(s.findings.values())} lint finding(s); records in {args.out}/; "
              f"exit code {s.exit_code}" + (f" ({'; '.join(s.reasons)})" if s.reasons else ""))
    if not quiet:
        for path in written:
            err_console.print(f"wrote {path}", highlight=False, soft_wrap=True)
    return exit_code_for(report)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
