"""A proposed claim (a draft) and the drafts of one lesson."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# written into every drafted claim; a person accepts it by removing the marker
# (or with `verifier claims accept ID...`)
DRAFT = "draft"


@dataclass
class Proposal:
    kind: str
    upstream: str
    expected: Any
    path: str | None = None
    symbol: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    runtime: dict[str, Any] | None = None
    note: str = ""
    anchor: str | None = None     # the code span the fragment should start at
    proposer: str = ""            # the proposal module that made it
    person: bool = False          # a skeleton a person must complete (runtime)
    # set by the engine
    id: str = ""
    fragment: str = ""
    line: int = 0
    sentence: str = ""
    unit: int = -1                # index of its sentence among the lesson's candidates

    def key(self) -> tuple:
        """Two proposals with the same key claim the same fact about the same sentence."""
        return (self.kind, self.upstream, self.path, self.symbol, repr(self.expected),
                repr(sorted(self.options.items())), self.unit)

    def table(self, default_upstream: str | None) -> dict[str, Any]:
        """The claim table as written to the claim file (order kept)."""
        t: dict[str, Any] = {"id": self.id, "fragment": self.fragment, "kind": self.kind}
        if self.upstream != default_upstream:
            t["upstream"] = self.upstream
        if self.path is not None:
            t["path"] = self.path
        if self.symbol is not None:
            t["symbol"] = self.symbol
        if self.expected is not None and self.kind != "runtime":
            t["expected"] = self.expected
        if self.options:
            t["options"] = dict(self.options)
        t["review"] = DRAFT
        if self.note:
            t["note"] = self.note
        if self.runtime is not None:
            t["runtime"] = dict(self.runtime)
        return t

    def public(self, default_upstream: str | None) -> dict[str, Any]:
        """JSON of `verifier draft --format json`: the claim table plus where it came from."""
        return {**self.table(default_upstream), "upstream": self.upstream, "line": self.line,
                "sentence": self.sentence, "proposer": self.proposer,
                "needs_person": self.person}


@dataclass
class LessonDraft:
    course: str
    lesson: str                   # course-relative path
    upstream: str | None          # default upstream of its claim file
    candidates: int               # checkable sentences
    uncovered: int                # ... that no claim covered before drafting
    proposals: list[Proposal]
    skipped: list[tuple[int, str]] = field(default_factory=list)   # (line, why) per sentence

    @property
    def drafted(self) -> int:
        """Uncovered sentences with at least one proposal."""
        return len({p.unit for p in self.proposals})

    @property
    def drafted_static(self) -> int:
        """... with at least one proposal a check can decide (not a runtime skeleton)."""
        return len({p.unit for p in self.proposals if not p.person})


_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text)
    s = _SLUG.sub("-", s.lower()).strip("-")
    return s[:40].strip("-") or "claim"
