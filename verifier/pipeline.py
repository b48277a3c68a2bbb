"""The verification pipeline as a library: sources -> lint -> check -> runtime -> record
(a run that confirms at runtime builds the pinned environments before lint).

    from verifier.pipeline import RunOptions, run
    result = run(project, RunOptions(runtime="sample"))
    result.report          # the verification record (verifier.report.RunReport)
    result.details         # timings, snippet output, provider messages (run.json)
    result.exit_code       # the one exit-code policy (verifier.report.exit_status)

Every command is a thin adapter: parse its options into `RunOptions` (validated
before any work starts: `options(...)`), call `run`, render. `progress` receives
what the stages are doing (the CLI shows it on stderr; the default shows nothing).
A lint rule or claim kind that raises is contained: its lesson gets a finding or
an `error` verdict, the run goes on, and `result.crashes` carries the tracebacks.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from verifier import gcpause
from verifier.errors import UsageError
from verifier.exitcodes import ExitCode
from verifier.registry import choice_message, suggest
from verifier.report import NotRun
from verifier.results import ClaimResult, Crash, Finding

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project
    from verifier.report import RunDetails, RunReport
    from verifier.sources.models import SourceFile

RUNTIME_MODES = ("none", "sample", "all")


class Progress:
    """What the pipeline tells about its progress. This one ignores it."""

    def begin(self, what: str, total: int | None = None) -> None:
        """A step starts (`total` units of work, or unknown)."""

    def advance(self, n: int = 1) -> None:
        """`n` units of the current step are done."""

    def end(self) -> None:
        """The current step is over."""


@dataclass(frozen=True)
class RunOptions:
    """What to run. Build it with `options(...)`, which validates every value."""

    lessons: tuple[str, ...] = ()     # lesson files, or <course>/<path>; () = all
    course: str | None = None         # only lessons of this course
    upstream: str | None = None       # only claims about this upstream
    kinds: tuple[str, ...] = ()       # only claims of these kinds; () = all
    lint: bool = True
    check: bool = True
    acquire: bool = False             # first resolve every needed file (verify)
    runtime: str = "none"             # none | sample | all
    sample: int | float | None = None
    seed: int = 0
    timestamp: str | None = None
    excerpts: bool = True             # lesson sentences + source lines for the HTML report
    suspects: bool = True             # with the check: suspects in statements no claim checks


@dataclass
class Run:
    """What `run` returns."""

    report: "RunReport"
    details: "RunDetails"
    lessons: "list[LessonDoc]"
    files: "list[SourceFile]" = field(default_factory=list)   # when acquired
    crashes: list[Crash] = field(default_factory=list)

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode(self.report.summary.exit_code)


# --------------------------------------------------------------------------- options

def parse_runtime(mode: str, sample: str | int | float | None) -> tuple[str, int | float | None]:
    """The one parser of `--runtime` and `--sample`."""
    if mode not in RUNTIME_MODES:
        raise UsageError("--runtime: " + choice_message("runtime mode", mode, RUNTIME_MODES))
    if sample is None:    # the common case: no need to import the runtime package
        return mode, None
    from verifier.runtime.sampling import parse_sample

    value = parse_sample(sample)
    if value is not None and mode != "sample":
        raise UsageError("--sample needs --runtime sample")
    return mode, value


def parse_timestamp(value: str | None) -> str | None:
    """None (no timestamp: reproducible records), 'now', or an ISO 8601 date-time."""
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


def check_kinds(kinds: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Every name must be a registered claim kind (a typo is a usage error, not 0 claims)."""
    if not kinds:
        return ()
    from verifier.claims.kinds import REGISTRY

    for k in kinds:
        if k not in REGISTRY:
            raise UsageError("--kind: " + choice_message("kind", k, REGISTRY))
    return tuple(dict.fromkeys(kinds))


def options(*, lessons=(), course=None, upstream=None, kinds=(), lint=True, check=True,
            acquire=False, runtime="none", sample=None, seed=0, timestamp=None,
            excerpts=True, suspects=True) -> RunOptions:
    """RunOptions with every value that needs no project checked (before any work)."""
    mode, value = parse_runtime(runtime, sample)
    if mode != "none" and not check:
        raise UsageError("--runtime needs the claim check")
    return RunOptions(lessons=tuple(lessons or ()), course=course, upstream=upstream,
                      kinds=check_kinds(kinds or ()), lint=lint, check=check, acquire=acquire,
                      runtime=mode, sample=value, seed=seed,
                      timestamp=parse_timestamp(timestamp), excerpts=excerpts,
                      suspects=suspects)


def check_course(project: "Project", course: str | None) -> None:
    if course is not None and course not in project.pins.course:
        raise UsageError("--course: " + choice_message("course", course, project.pins.course))


def check_upstream(project: "Project", upstream: str | None) -> None:
    if upstream is not None and upstream not in project.pins.upstream:
        raise UsageError("--upstream: " + choice_message("upstream", upstream,
                                                         project.pins.upstream))


def select_lessons(project: "Project", items: tuple[str, ...] | list[str],
                   course: str | None = None) -> "list[LessonDoc] | None":
    """Lessons named by files or `<course>/<path>`, or the lessons of `course`;
    None when nothing is selected (every lesson, and claims about any lesson)."""
    check_course(project, course)
    if not items:
        return project.lessons(course=course) if course else None
    out = []
    for item in items:
        f = Path(item)
        if f.is_file():
            out.extend(project.lessons(paths=[item], course=course))
            continue
        name, _, rel = item.partition("/")
        c = project.pins.course.get(name)
        if c is None or not rel:
            hint = suggest(name, project.pins.course)
            known = ", ".join(sorted(project.pins.course))
            raise UsageError(f"lesson {item!r} is neither a file nor <course>/<path> of a course "
                             "in pins.toml" + (f" (did you mean {hint}/{rel}?)" if hint and rel
                                               else f" (courses: {known})"))
        target = project.course_root(c) / rel
        if not target.is_file():
            near = suggest(rel, [d.path for d in project.lessons(course=name)])
            raise UsageError(f"lesson {item!r}: no lesson {rel!r} in course {name!r}"
                             + (f" (did you mean {name}/{near}?)" if near else ""))
        out.append(project.lesson_for(target, name))
    return out


# --------------------------------------------------------------------------- stages

def acquire(project: "Project", items: list[tuple[str, str]],
            progress: Progress | None = None, needed: bool = True) -> "list[SourceFile]":
    """Resolve every (upstream, path) at pinned identity (fetching what is missing).
    `needed=False` when `items` are not what lessons and claims need (`sources --all`):
    their missing pin blobs are then no identity warning."""
    progress = progress or Progress()
    layer = project.sources
    by_up: dict[str, list[str]] = {}
    for u, p in items:
        by_up.setdefault(u, []).append(p)
    out: list[SourceFile] = []
    for u, paths in by_up.items():
        progress.begin(f"sources {u}", len(paths))
        layer.prefetch(u, paths)
        for p in paths:
            out.append(layer.resolve(u, p, needed=needed))
            progress.advance()
        progress.end()
    layer.save_index()
    return out


def run(project: "Project", opts: RunOptions, progress: Progress | None = None) -> Run:
    """Run the stages `opts` asks for and build the record."""
    from verifier.report_builder import build_details, build_report

    progress = progress or Progress()
    check_upstream(project, opts.upstream)
    selected = select_lessons(project, opts.lessons, opts.course)
    lessons = selected if selected is not None else project.lessons()
    crashes: list[Crash] = []
    not_run: list[NotRun] = []

    files: list[SourceFile] = []
    if opts.acquire:
        from verifier.claims.loader import claimed_files
        from verifier.sources.needs import needed_files

        needed = needed_files(project, lessons=lessons,
                              claimed=claimed_files(project, lessons))
        files = acquire(project, needed, progress)

    if opts.lint and opts.check and opts.runtime != "none":
        # the runtime stage builds the environments anyway; lint's release surface
        # includes their introspection, so they are built first (same findings on the
        # first run of a fresh machine as on every later one)
        from verifier.runtime import prepare_environments

        progress.begin("runtime environments")
        prepare_environments(project)
        progress.end()

    findings: list[Finding] | None = None
    if opts.lint:
        from verifier.lint import run_lint

        progress.begin("lint", len(lessons))
        findings = run_lint(project, lessons, crashes=crashes, tick=progress.advance)
        progress.end()

    claims: list[ClaimResult] | None = None
    sampling = None
    if opts.check:
        from verifier.claims.check import check_claims

        progress.begin("check")
        claim_findings: list[Finding] = []     # the claim files' own (notation-unused)
        pairs = check_claims(project, selected, opts.upstream,
                             kinds=set(opts.kinds) if opts.kinds else None, crashes=crashes,
                             tick=progress.advance, findings=claim_findings,
                             listed=lessons if selected is None else None)
        progress.end()
        claims = [r for _, r in pairs]
        if opts.suspects:
            # sentences no claim covers, drafted in memory: the contradicted ones
            # (verifier/suspect; warnings, never verdicts)
            from verifier.suspect import find_suspects

            progress.begin("suspects", len(lessons))
            whole = opts.upstream is None and not opts.kinds
            claim_findings.extend(find_suspects(
                project, lessons, [lc for lc, _ in pairs] if whole else None,
                crashes=crashes, tick=progress.advance))
            progress.end()
        if claim_findings:
            if findings is None:
                not_run.append(NotRun(stage="lint", what="lesson lint",
                                      why="not run in this invocation"))
            findings = (findings or []) + claim_findings
        if opts.runtime != "none":
            from verifier.runtime import confirm

            n = sum(1 for lc, _ in pairs if lc.claim.runtime is not None)
            progress.begin(f"runtime ({n:,} claim{'s' if n != 1 else ''} with a runtime "
                           f"check, --runtime {opts.runtime})")
            claims, sampling = confirm(project, pairs, mode=opts.runtime, sample=opts.sample,
                                       seed=opts.seed)
            progress.end()
        else:
            not_run.append(NotRun(stage="runtime", what="runtime confirmation",
                                  why="not requested (--runtime none)"))

    with gcpause.paused():      # the record: models of every claim and finding, no cycles
        report = build_report(project, lessons=lessons, findings=findings, claims=claims,
                              sampling=sampling, not_run=not_run, crashes=crashes,
                              timestamp=opts.timestamp, excerpts=opts.excerpts)
        details = build_details(project, claims, sampling)
    return Run(report=report, details=details, lessons=lessons, files=files, crashes=crashes)


__all__ = ["Progress", "Run", "RunOptions", "RUNTIME_MODES", "acquire", "options",
           "parse_runtime", "parse_timestamp", "run", "select_lessons"]
