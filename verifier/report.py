"""The verification record: one run's results as a versioned, deterministic model.

`RunReport` is what `verification.json` holds and what every reporter renders:
tool version, pins and lock, the identity of every upstream file used (and which
provider served it), the sha256 of each lesson, every claim's verdict with
evidence, runtime results, lint findings, notes about the run in stable wording,
what was not run and why, the lesson sentences and source excerpts the HTML
report shows, and the summary with the exit code. A saved record can be loaded
(`RunReport.model_validate_json`) and rendered again in any format.

`RunDetails` (`run.json`) holds what differs between two runs of the same inputs
and is therefore kept out of the record: runtime durations and import times,
snippet output, and the provider messages of this run.

This module is the model and the policies on it (keys, sort orders, the exit
code); `verifier.report_builder` builds a record from a run. `verifier schema`
prints `RunReport`'s JSON Schema.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Literal

from pydantic import ConfigDict, Field, PrivateAttr

from verifier import __version__
from verifier.basemodel import Record
from verifier.exitcodes import ExitCode
from verifier.results import ClaimResult, Finding, Severity, Verdict

SCHEMA_VERSION = 2
DETAILS_VERSION = 1



class ToolInfo(Record):
    name: Literal["verifier"] = "verifier"
    version: str


class PinnedUpstream(Record):
    name: str
    repo: str
    commit: str
    version: str
    tag: str | None = None
    also: list[str] = Field(default_factory=list)
    wheels: list[str] = Field(default_factory=list, description="pinned wheel requirements")
    runtime: list[str] = Field(default_factory=list)


class PinnedCourse(Record):
    name: str
    path: str | None = None
    git: str | None = Field(default=None, description="the course repository (pins.toml `repo`)")
    commit: str | None = None
    docs: str
    upstreams: list[str]
    read_from: Literal["commit", "local"] | None = Field(
        default=None, description="how this run read the lessons: the repository at `commit` "
        "(full tree known) or a local checkout / copy; none when no lesson was read")
    partial: bool = Field(default=False, description="the local copy holds only some of the "
                          "repository's files")


class PinsInfo(Record):
    file: str = Field(description="pins file name, relative to its directory")
    sha256: str | None
    upstreams: list[PinnedUpstream]
    courses: list[PinnedCourse]


class LockedInfo(Record):
    name: str
    commit: str
    matches_pin: bool = Field(description="the lock is for the commit pins.toml pins")
    files: int
    source: list[str] = Field(default_factory=list)


class LockInfo(Record):
    file: str
    present: bool
    sha256: str | None
    upstreams: list[LockedInfo]


class SourceIdentity(Record):
    """Identity of one upstream file the run used (cited by a lesson or read by a claim)."""

    upstream: str
    path: str
    status: str = Field(description="pinned | release | mismatch | unavailable")
    blob: str | None = Field(default=None, description="git blob SHA of what was served")
    expected_blob: str | None = Field(default=None, description="the pin's blob, when known")
    identity: str | None = Field(default=None, description="where expected_blob came from")
    provider: str | None = Field(default=None, description="which provider served the file "
                                 "(or had the mismatching blob)")
    detail: str = Field(default="", description="why it is mismatch/unavailable (stable "
                        "wording; this run's provider messages are in run.json)")


class LessonRecord(Record):
    course: str
    path: str = Field(description="path inside the course repository")
    sha256: str
    upstreams: list[str]
    cited: list[str] = Field(default_factory=list, description="'upstream:path' it links")
    verdicts: dict[str, int] = Field(default_factory=dict)
    findings: dict[str, int] = Field(default_factory=dict)


class NotRun(Record):
    stage: str = Field(description="lint | check | runtime | ...")
    what: str
    why: str


class Note(Record):
    """Something about the whole run, said once (not repeated in every claim): what was
    not at pinned identity per upstream, and the source layer's identity warnings (a
    lock for another commit or truncated, needed files without a pin blob, a commit the
    upstream lacks, cache entries lost during the run; `--strict` fails on these)."""

    topic: str = Field(description="sources | identity | runtime | ...")
    severity: Literal["warning", "info"] = "info"
    code: str | None = Field(default=None, description="stable identifier of an identity "
                             "warning, e.g. lock-other-commit, lock-gap")
    upstream: str | None = None
    text: str = Field(description="stable wording: the same inputs give the same note")
    paths: list[str] = Field(default_factory=list, description="affected paths")


class InternalError(Record):
    """A lint rule or claim kind that raised (a bug in verifier; the command exits 3)."""

    stage: str = Field(description="lint | check")
    what: str = Field(description="the rule or kind, e.g. 'lint rule identifier (VL104)'")
    course: str | None = None
    lesson: str | None = None
    error: str = Field(description="exception type and message; the traceback is in the "
                       "crash log")


class RuntimeInfo(Record):
    ran: int = Field(description="claims with a runtime result")
    statuses: dict[str, int] = Field(default_factory=dict)
    sampling: dict[str, Any] | None = Field(default=None, description="what was sampled and "
                                            "why; durations are in run.json")


class Excerpt(Record):
    """What the HTML report shows beside a claim: the lesson line holding it and the
    pinned source at its evidence lines (only at pinned or release identity)."""

    sentence: str | None = None          # the lesson line(s) holding the claim
    sentence_line: int | None = None
    snippet: str | None = None           # the source at the evidence lines, pinned/release only
    snippet_start: int | None = None
    snippet_status: str | None = None
    snippet_note: str | None = None      # why there is no snippet


class Summary(Record):
    lessons: int
    claims: int
    verdicts: dict[str, int] = Field(description="reviewed claims by verdict (drafts apart)")
    drafts: dict[str, int] = Field(default_factory=dict,
                                   description="draft claims (review = \"draft\") by verdict; "
                                               "a verified draft is unreviewed, not verified")
    findings: dict[str, int]
    sources: dict[str, int]
    exit_code: int
    reasons: list[str] = Field(default_factory=list, description="why exit_code is not 0")


class RunReport(Record):
    """One verification run (the JSON verification record)."""

    model_config = ConfigDict(json_schema_extra={"title": "verifier verification record"})

    schema_version: Literal[2] = SCHEMA_VERSION
    tool: ToolInfo
    timestamp: str | None = Field(default=None, description="only when asked for (--timestamp)")
    pins: PinsInfo
    lock: LockInfo
    lessons: list[LessonRecord]
    sources: list[SourceIdentity]
    claims: list[ClaimResult] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    runtime: RuntimeInfo
    notes: list[Note] = Field(default_factory=list)
    internal_errors: list[InternalError] = Field(default_factory=list)
    not_run: list[NotRun] = Field(default_factory=list)
    excerpts: dict[str, Excerpt] = Field(
        default_factory=dict, description="per claim (global id): the lesson sentence and the "
        "pinned source lines beside it, so the HTML report can be rendered from this record")
    summary: Summary

    _by_lesson: dict | None = PrivateAttr(default=None)

    def _grouped(self) -> dict:
        """(course, path) -> (claims, findings), in record order (built once: the
        reporters ask per lesson, and a scan per lesson is quadratic at course scale)."""
        if self._by_lesson is None:
            groups: dict[tuple[str, str], tuple[list, list]] = {}
            for c in self.claims:
                groups.setdefault(claim_lesson_key(c), ([], []))[0].append(c)
            for f in self.findings:
                groups.setdefault(finding_lesson_key(f), ([], []))[1].append(f)
            self._by_lesson = groups
        return self._by_lesson

    def lesson_claims(self, lesson: LessonRecord) -> list[ClaimResult]:
        return list(self._grouped().get((lesson.course, lesson.path), ([], []))[0])

    def lesson_findings(self, lesson: LessonRecord) -> list[Finding]:
        return list(self._grouped().get((lesson.course, lesson.path), ([], []))[1])

    def orphan_claims(self) -> list[ClaimResult]:
        """Claims about a lesson that is not part of this run's lessons."""
        keys = {(les.course, les.path) for les in self.lessons}
        return [c for c in self.claims if claim_lesson_key(c) not in keys]

    def orphan_findings(self) -> list[Finding]:
        keys = {(les.course, les.path) for les in self.lessons}
        return [f for f in self.findings if finding_lesson_key(f) not in keys]


class EnvironmentTiming(Record):
    upstream: str
    import_s: float | None = None
    wall_s: float | None = None
    isolation: dict[str, Any] | None = Field(default=None, description="what the runtime "
                                             "sandbox achieved on this machine: have, missing")


class CheckTiming(Record):
    duration_s: float | None = None
    stdout: str | None = None
    stderr: str | None = None


class RunDetails(Record):
    """What differs between two runs of the same inputs (`run.json`, next to the record)."""

    model_config = ConfigDict(json_schema_extra={"title": "verifier run details"})

    details_version: Literal[1] = DETAILS_VERSION
    provider_messages: dict[str, list[str]] = Field(
        default_factory=dict, description="upstream -> this run's provider failures "
        "(unreachable remotes, failed downloads), deduplicated")
    environments: list[EnvironmentTiming] = Field(default_factory=list)
    checks: dict[str, CheckTiming] = Field(default_factory=dict,
                                           description="claim id -> runtime duration and output")


# --------------------------------------------------------------------------- keys and policy

VERDICT_ORDER = {Verdict.DIVERGED: 0, Verdict.STALE: 1, Verdict.ERROR: 2,
                 Verdict.UNAVAILABLE: 3, Verdict.VERIFIED: 4}
SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def claim_gid(c: ClaimResult) -> str:
    """A run-unique id: the claim id as given, qualified by course and lesson if bare."""
    if "/" in c.id:
        return c.id
    stem = c.lesson.rsplit("/", 1)[-1].removesuffix(".md")
    return f"{c.course or '-'}/{stem}/{c.id}"


def claim_lesson_key(c: ClaimResult) -> tuple[str, str]:
    return (c.course or "", c.lesson)


def finding_lesson_key(f: Finding) -> tuple[str, str]:
    return (f.course or "", f.path)


def claim_sort_key(c: ClaimResult) -> tuple:
    return (c.course or "", c.lesson, c.line if c.line is not None else 0, c.id, c.kind)


def finding_sort_key(f: Finding) -> tuple:
    return (f.course or "", f.path, f.line, f.code, f.rule, f.target or "", f.message)


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def exit_status(claims: list[ClaimResult], findings: list[Finding],
                sources: list[SourceIdentity], internal_errors: list[InternalError] = (),
                ) -> tuple[ExitCode, list[str]]:
    """The one exit-code policy of `check`, `lint`, `record` and `verify`.

    3 when a rule or kind crashed (its lesson was still reported); else 1 when a
    claim is diverged, stale or error, a lint finding is an error, or a file the
    run used mismatches its pin; else 0 (verified, or honestly unavailable)."""
    reasons = []
    if internal_errors:
        reasons.append(_plural(len(internal_errors), "internal error") + " (a bug in verifier)")
    vc = Counter(c.verdict for c in claims)
    for v in sorted(Verdict, key=lambda v: VERDICT_ORDER[v]):
        if v.failing and vc.get(v):
            reasons.append(f"{_plural(vc[v], 'claim')} {v.value}")
    lint_errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    if lint_errors:
        reasons.append(_plural(lint_errors, "lint error"))
    mism = sum(1 for s in sources if s.status == "mismatch")
    if mism:
        reasons.append(f"{_plural(mism, 'source file')} mismatch the pin")
    if internal_errors:
        return ExitCode.INTERNAL, reasons
    return (ExitCode.FINDINGS if reasons else ExitCode.OK), reasons


def exit_code(report: RunReport) -> ExitCode:
    return ExitCode(report.summary.exit_code)


def report_schema() -> dict:
    """JSON Schema (draft 2020-12) of the JSON verification record."""
    schema = RunReport.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$comment"] = (f"verifier {__version__}; record schema_version {SCHEMA_VERSION}. "
                          "Generated from verifier.report.RunReport (`verifier schema`).")
    return schema


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    return _SAFE.sub("-", text).strip("-") or "x"
