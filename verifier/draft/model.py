"""A proposed claim (a draft) and the drafts of one lesson."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# bindings where the sentence (or its table) itself names the container of a member
SENTENCE_GROUNDING = frozenset({"qualified", "receiver", "module", "scope:sentence",
                                "scope:table"})

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
    # the verbatim spans of the sentence its `expected` / `symbol` / options were read
    # from (strings; a table `{text, read}` where the reading is not obvious)
    says: list = field(default_factory=list)
    reading: str = ""             # what the sentence asserts, in words (suspect messages)
    # why `expected` is not the spans' text itself (issue 26): the sentence's words are
    # mapped to the source's spelling (`dist` -> `mjRAYDATA_DIST`, `nq` -> `(nq x`)
    paraphrase: str = ""
    decisive: bool = True         # the reading is certain enough to report a contradiction
    grounding: str = ""           # how its name was bound (grounding.py `Hit.how`)
    # set by the engine
    id: str = ""
    fragment: str = ""
    line: int = 0
    sentence: str = ""
    unit: int = -1                # index of its sentence among the lesson's candidates

    @property
    def beyond_existence(self) -> bool:
        """A static claim that checks more than that a name exists: a value, an order, a
        keyword, a type, an absence, a call, a count, or a membership the sentence itself
        states (it names the container: `C.m`, `c.m`, "`C` 的 `m`", its table's class) —
        not one the drafter inferred from the source."""
        if self.person or self.kind == "symbol" and self.expected is True:
            return False
        if self.kind == "members" and self.options.get("match") != "count" \
                and self.proposer == "members":
            return self.grounding in SENTENCE_GROUNDING
        return True

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
        if self.says:
            t["says"] = list(self.says)
        if self.paraphrase:
            t["paraphrase"] = self.paraphrase
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
                "grounding": self.grounding, "needs_person": self.person}


@dataclass
class LessonDraft:
    course: str
    lesson: str                   # course-relative path
    upstream: str | None          # default upstream of its claim file
    candidates: int               # checkable sentences
    uncovered: int                # ... that no claim covered before drafting
    proposals: list[Proposal]
    skipped: list[tuple[int, str]] = field(default_factory=list)   # (line, why) per sentence
    ambiguous: list[tuple[int, str]] = field(default_factory=list)  # (line, what) not guessed

    @property
    def drafted(self) -> int:
        """Uncovered sentences with at least one proposal."""
        return len({p.unit for p in self.proposals})

    @property
    def drafted_static(self) -> int:
        """... with at least one proposal a check can decide (not a runtime skeleton)."""
        return len({p.unit for p in self.proposals if not p.person})

    @property
    def drafted_beyond(self) -> int:
        """... with a static proposal that checks more than "the name exists" (a value, an
        order, a keyword, a membership, an absence, a type, a call)."""
        return len({p.unit for p in self.proposals if p.beyond_existence})


_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", text)
    s = _SLUG.sub("-", s.lower()).strip("-")
    return s[:40].strip("-") or "claim"
