"""`verifier record`: run lint + check over the lessons and write a verification record.

Formats: json (the record; default), markdown (one record per lesson), html (one
self-contained page), sarif, junit, github (workflow-command annotations; also
appends the full list to $GITHUB_STEP_SUMMARY when set). `--out` names a file,
or a directory (existing, or ending in '/'): markdown then writes one file per
lesson, other formats `verification.<ext>`. Without --out the output goes to stdout.

Exit codes: 0 clean; 1 divergence, stale claim, claim error, lint error or source
mismatch; 2 usage/config error; 3 internal error.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from verifier.cli.common import err_console, project_from
from verifier.errors import UsageError
from verifier.fileio import atomic_write
from verifier.report import RunReport, build_report, exit_code_for, safe_name
from verifier.reporters import FORMATS, SUFFIX, render

HELP = "run lint and the claim check, and write a verification record (json, markdown, " \
       "html, sarif, junit, github)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", default="json", metavar="FMT[,FMT...]",
                   help=f"output format(s): {', '.join(FORMATS)} (default json). Several, "
                        "comma-separated, need --out DIR; github annotations always go to stdout")
    p.add_argument("--out", metavar="PATH|DIR",
                   help="write to this file, or into this directory (default: stdout)")
    p.add_argument("--lesson", action="append", metavar="L", default=[],
                   help="only this lesson file (repeatable; default: every lesson in pins.toml)")
    p.add_argument("--course", help="only this course of pins.toml")
    p.add_argument("--upstream", help="only claims about this upstream")
    p.add_argument("--timestamp", nargs="?", const="now", metavar="ISO8601",
                   help="record a timestamp (this time, or the one given); by default none, so "
                        "the same inputs give a byte-identical record")
    p.add_argument("--runtime", choices=("none", "sample", "all"), default="none",
                   help="confirm claims at runtime in the pinned environments (default none)")
    p.add_argument("--sample", metavar="N|FRACTION",
                   help="with --runtime sample: how many claims (int) or which fraction")
    p.add_argument("--seed", type=int, default=0, help="seed of the runtime sample (default 0)")


def formats(value: str) -> list[str]:
    fmts = list(dict.fromkeys(f.strip() for f in value.split(",") if f.strip()))
    bad = [f for f in fmts if f not in FORMATS]
    if bad or not fmts:
        raise UsageError(f"--format {value!r}: unknown format {', '.join(bad) or '(none)'} "
                         f"(expected one or more of: {', '.join(FORMATS)})")
    return fmts


def _timestamp(value: str | None) -> str | None:
    if value is None:
        return None
    if value == "now":
        return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    try:
        _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--timestamp {value!r} is not an ISO 8601 date-time "
                         "(e.g. 2026-11-30T15:00:00Z)") from None
    return value


def _sample(value: str | None) -> float | int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        pass
    try:
        f = float(value)
    except ValueError:
        raise UsageError(f"--sample {value!r}: expected a count (e.g. 5) or a fraction "
                         "(e.g. 0.2)") from None
    if not 0 < f <= 1:
        raise UsageError(f"--sample {value!r}: a fraction must be in (0, 1]")
    return f


def stage(module: str, func: str):
    """The contract function if its module exists, else None (the stage is not built yet)."""
    if importlib.util.find_spec(module) is None:
        return None
    return getattr(importlib.import_module(module), func, None)


def collect(project, lessons, *, upstream: str | None = None, runtime: str = "none",
            sample=None, seed: int = 0) -> dict:
    """Run lint, check and (optionally) runtime through the contract functions.

    Returns build_report's keyword arguments: findings, claims, sampling, not_run."""
    not_run: list[dict] = []
    findings = claims = sampling = None
    run_lint = stage("verifier.lint", "run_lint")
    if run_lint is None:
        not_run.append({"stage": "lint", "what": "lesson lint",
                        "why": "the lint stage (verifier.lint.run_lint) is not in this build"})
    else:
        findings = list(run_lint(project, lessons))
    run_check = stage("verifier.claims.check", "run_check")
    if run_check is None:
        not_run.append({"stage": "check", "what": "static claim check",
                        "why": "the claim check (verifier.claims.check.run_check) is not in "
                               "this build"})
    else:
        claims = list(run_check(project, lessons=lessons, upstream=upstream))
    if runtime == "none":
        not_run.append({"stage": "runtime", "what": "runtime confirmation",
                        "why": "not requested (--runtime none)"})
    elif claims is None:
        not_run.append({"stage": "runtime", "what": "runtime confirmation",
                        "why": "needs the claim check, which did not run"})
    else:
        confirm = stage("verifier.runtime", "confirm")
        load_claims = stage("verifier.claims.loader", "load_claims")
        if confirm is None or load_claims is None:
            not_run.append({"stage": "runtime", "what": "runtime confirmation",
                            "why": "the runtime stage (verifier.runtime.confirm) is not in "
                                   "this build"})
        else:
            loaded = list(load_claims(project, lessons))
            pairs, unmatched = pair_claims(loaded, claims)
            confirmed, sampling = confirm(project, pairs, mode=runtime, sample=sample, seed=seed)
            claims = list(confirmed) + unmatched
    return {"findings": findings, "claims": claims, "sampling": sampling, "not_run": not_run}


def pair_claims(loaded, results):
    """(LoadedClaim, ClaimResult) pairs by global id; results without a loaded claim apart."""
    by_gid = {lc.gid: lc for lc in loaded}
    by_local = {(lc.course, lc.lesson, lc.claim.id): lc for lc in loaded}
    pairs, unmatched = [], []
    for r in results:
        lc = by_gid.get(r.id) or by_local.get((r.course, r.lesson, r.id))
        if lc is None:
            unmatched.append(r)
        else:
            pairs.append((lc, r))
    return pairs, unmatched




def emit(report: RunReport, fmt: str, out: str | Path | None) -> list[Path]:
    """Write `report` in `fmt` to stdout, a file, or a directory; return the files written.

    `out` is a directory when it exists as one or its text ends with '/'. The github
    format also appends the full list to $GITHUB_STEP_SUMMARY when it is set."""
    written: list[Path] = []
    raw = None if out is None else str(out)
    out = None if raw is None else Path(raw)
    is_dir = out is not None and (out.is_dir() or raw.endswith(("/", os.sep)))
    if is_dir and out.exists() and not out.is_dir():
        raise UsageError(f"--out {raw}: exists and is not a directory")
    if out is None:
        sys.stdout.write(render(report, fmt))
        sys.stdout.flush()
    elif is_dir and fmt == "markdown":
        from verifier.reporters.markdown import lesson_record

        for les in report.lessons:
            stem = Path(les.path).stem
            path = out / safe_name(les.course) / f"{safe_name(stem)}.md"
            atomic_write(path, lesson_record(report, les))
            written.append(path)
    else:
        path = out / f"verification{SUFFIX[fmt]}" if is_dir else out
        atomic_write(path, render(report, fmt))
        written.append(path)
    if fmt == "github":
        from verifier.reporters.github import write_step_summary

        write_step_summary(report)
    return written


def run(args: argparse.Namespace) -> int:
    fmts = formats(args.format)
    files = [f for f in fmts if f != "github"]
    if len(files) > 1 and not (args.out and (Path(args.out).is_dir() or args.out.endswith("/"))):
        raise UsageError(f"--format {args.format}: several formats need --out DIR "
                         "(an existing directory, or a path ending in '/')")
    timestamp = _timestamp(args.timestamp)
    sample = _sample(args.sample)
    if sample is not None and args.runtime != "sample":
        raise UsageError("--sample needs --runtime sample")
    project = project_from(args)
    lessons = project.lessons(args.lesson or None, course=args.course)
    if args.upstream:
        project.pins.get(args.upstream)
    kw = collect(project, lessons, upstream=args.upstream, runtime=args.runtime, sample=sample,
                 seed=args.seed)
    report = build_report(project, lessons=lessons, timestamp=timestamp,
                          excerpts="html" in fmts, **kw)
    written = []
    for fmt in fmts:
        # annotations must reach the log: stdout, unless github is the only format
        out = None if fmt == "github" and len(fmts) > 1 else args.out
        written += emit(report, fmt, out)
    if not getattr(args, "quiet", False):
        for path in written:
            err_console.print(f"wrote {path}", highlight=False, soft_wrap=True)
        s = report.summary
        err_console.print(f"{s.lessons} lesson(s), {s.claims} claim(s), "
                          f"{sum(s.findings.values())} lint finding(s); exit code {s.exit_code}"
                          + (f" ({'; '.join(s.reasons)})" if s.reasons else ""),
                          highlight=False, soft_wrap=True)
    return exit_code_for(report)
