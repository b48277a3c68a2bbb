"""Results every stage hands to the reporters: lint findings and claim verdicts.

Their JSON shapes are stable interfaces (`verifier lint --format json`,
`verifier check --format json`); extend them, never rename fields."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import ConfigDict, Field

from verifier.basemodel import Model


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Finding(Model):
    """One lint finding on a lesson."""

    model_config = ConfigDict(frozen=True)

    rule: str                      # stable rule name, e.g. 'permalink-pin'
    code: str = ""                 # stable code, e.g. 'VL101'
    severity: Severity
    path: str                      # lesson path as given / course-relative
    line: int
    message: str
    upstream: str | None = None
    target: str | None = None      # the link / identifier / version the finding is about
    end_line: int | None = None
    course: str | None = None
    fingerprint: str | None = None  # e.g. hash of cited lines (permalink-anchor)
    data: dict[str, Any] = Field(default_factory=dict)


class Verdict(StrEnum):
    VERIFIED = "verified"
    DIVERGED = "diverged"
    STALE = "stale"
    UNAVAILABLE = "unavailable"
    ERROR = "error"

    @property
    def failing(self) -> bool:
        """A verdict that makes a run exit 1 (the lesson or the claim needs a human)."""
        return self in (Verdict.DIVERGED, Verdict.STALE, Verdict.ERROR)


class Evidence(Model):
    model_config = ConfigDict(frozen=True)

    path: str
    lines: tuple[int, int] | None = None
    blob: str | None = None
    permalink: str | None = None
    status: str | None = None       # source status: pinned | release | ...
    provider: str | None = None


class RuntimeResult(Model):
    model_config = ConfigDict(frozen=True)

    status: str                    # confirmed | refuted | error | skipped | env-mismatch
    value: Any = None
    expected: Any = None
    duration_s: float | None = None
    message: str | None = None
    stdout: str | None = None
    stderr: str | None = None


class SpanChange(Model):
    """One `says` span of an edited sentence: what it said at review, what stands there
    now (None: gone), and why it can no longer be read."""

    was: str
    now: str | None = None
    why: str | None = None


class SentenceEdit(Model):
    """A claim's sentence edited since review (claims/binding.py): the reviewed spans in
    their contexts (claims.lock keeps no whole sentence), the sentence now, the spans
    that changed, and whether the clause's polarity flipped."""

    reviewed: str | None = None
    now: str
    spans: list[SpanChange] = Field(default_factory=list)
    negated: bool = False
    polarity: list[str] = Field(default_factory=list)
    reviewed_line: int | None = None


class ClaimResult(Model):
    """One claim's verdict (the shape of `verifier check --format json`)."""

    id: str
    lesson: str
    line: int | None
    upstream: str
    kind: str
    verdict: Verdict
    expected: Any = None
    actual: Any = None
    evidence: Evidence | None = None
    message: str | None = None
    course: str | None = None
    fragment: str | None = None
    runtime: RuntimeResult | None = None
    # what the claim asserted besides `expected` (shown on verified cards)
    symbol: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    review: str | None = None      # "draft": proposed by `verifier draft`, not reviewed yet
    edit: SentenceEdit | None = None   # the sentence was edited since review
    # the claim's own evidence, for a person reading the record: its `note` (why the
    # expectation holds, or what the pinned source or runtime shows) and the runtime
    # check's snippet
    note: str | None = None
    runtime_code: str | None = None

    @property
    def draft(self) -> bool:
        return self.review == "draft"


@dataclass(frozen=True)
class Crash:
    """A bug caught while a stage ran (a lint rule or claim kind raised).

    The stage reports it against its lesson (a finding or an `error` verdict) and
    goes on; the command exits 3 at the end and writes `traceback` to the crash log.
    The record keeps everything but the traceback (it names files of this machine)."""

    stage: str            # lint | check
    what: str             # e.g. "lint rule identifier (VL104)"
    course: str | None
    lesson: str | None
    error: str            # "KeyError: 'x'"
    traceback: str

    @classmethod
    def of(cls, exc: BaseException, *, stage: str, what: str, course: str | None,
           lesson: str | None) -> "Crash":
        import traceback as tb

        return cls(stage=stage, what=what, course=course, lesson=lesson,
                   error=f"{type(exc).__name__}: {exc}",
                   traceback="".join(tb.format_exception(exc)))


def draft_counts(results: list[ClaimResult]) -> dict[str, int]:
    """Drafts by verdict (`verified` here means "draft, unreviewed": it verifies, but
    no person has accepted it)."""
    drafts = [r for r in results if r.draft]
    out = {"total": len(drafts)}
    out.update({v.value: sum(1 for r in drafts if r.verdict is v) for v in Verdict})
    return out
