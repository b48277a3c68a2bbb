"""Results every stage hands to the reporters: lint findings and claim verdicts.

Their JSON shapes are stable interfaces (`verifier lint --format json`,
`verifier check --format json`); extend them, never rename fields."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Finding(BaseModel):
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


class Evidence(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str
    lines: tuple[int, int] | None = None
    blob: str | None = None
    permalink: str | None = None
    status: str | None = None       # source status: pinned | release | ...
    provider: str | None = None


class RuntimeResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    status: str                    # confirmed | refuted | error | skipped | env-mismatch
    value: Any = None
    expected: Any = None
    duration_s: float | None = None
    message: str | None = None
    stdout: str | None = None
    stderr: str | None = None


class ClaimResult(BaseModel):
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

    @property
    def draft(self) -> bool:
        return self.review == "draft"
