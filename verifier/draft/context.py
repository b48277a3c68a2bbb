"""One checkable sentence as the proposers see it: its code spans resolved to
definitions at the pin, its permalinks with the definition enclosing each cited
range, and what the wording asserts (a default, an order, an absence, ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verifier.draft.grounding import (TYPES, Hit, Resolver, Scope, distinctive,  # noqa: F401
                                      norm)
from verifier.draft.index import CONTAINERS, Def, UpstreamIndex
from verifier.draft.spans import Ref
from verifier.permalinks import parse_github_url

if TYPE_CHECKING:
    from verifier.claims.coverage import Unit
    from verifier.project import LessonDoc, Project

# what the wording asserts (Chinese and English)
DEFAULT_WORDS = re.compile(r"默认|缺省|default", re.I)
ORDER_WORDS = re.compile(r"→|->|然后|之后|随后|再调用|依次|按顺序|顺序|先.{0,40}再|\bthen\b|"
                         r"\bfollowed by\b|\bin order\b|\bbefore\b|\bafter\b", re.I)
CALL_WORDS = re.compile(r"调用|calls?\b|invokes?", re.I)
EXACT_WORDS = re.compile(r"只有|仅有|仅|只|恰好|正好|一共|共有|\bexactly\b|\bonly\b", re.I)
# a name the sentence says is absent: directly before or after the code span
ABSENT_BEFORE = re.compile(r"(?:没有|并无|已无|不再有|不存在|未提供|不提供|未绑定|没有绑定|不绑定|"
                           r"has no|have no|no longer has|does not (?:have|bind|provide|expose)|"
                           r"doesn't (?:have|bind|provide)|lacks)\s*[`*]*$", re.I)
ABSENT_AFTER = re.compile(r"^[`*]*\s*(?:不存在|已不存在|已被?移除|已被?删除|已无|并不存在|"
                          r"does not exist|doesn't exist|no longer exists|is not bound|is gone|"
                          r"was removed)", re.I)


@dataclass(frozen=True)
class Cited:
    """A permalink of the sentence to a pinned upstream file."""

    href: str
    upstream: str
    path: str
    start: int | None
    end: int | None
    available: bool
    enclosing: Def | None      # the innermost definition containing the cited lines


@dataclass
class Sentence:
    """A checkable sentence with everything the proposers need."""

    unit: "Unit"
    lesson: "LessonDoc"
    raw: str                                   # the unit's raw text
    hits: list[Hit] = field(default_factory=list)
    unresolved: list[Ref] = field(default_factory=list)
    cited: list[Cited] = field(default_factory=list)
    # what the other sentences of its paragraph (list item, table row) cite
    nearby: list[Cited] = field(default_factory=list)
    before: tuple[str, ...] = ()     # code spans of its paragraph's earlier sentences
    used: set[str] = field(default_factory=set)  # span names already claimed by a proposal
    claimed: set[tuple[str, str | None]] = field(default_factory=set)  # (upstream, path) proposed
    scope: Scope = field(default_factory=Scope)  # containers its context names (grounding.py)

    @property
    def ambiguous(self) -> list[str]:
        """Bindings its context left ambiguous (reported, never guessed)."""
        return self.scope.ambiguous

    @property
    def text(self) -> str:
        return self.unit.text

    def absent(self, span: str) -> bool:
        """The sentence says the span's name does not exist."""
        for m in re.finditer(re.escape("`" + span + "`"), self.raw):
            if ABSENT_BEFORE.search(self.raw[max(0, m.start() - 24):m.start()]) or \
                    ABSENT_AFTER.search(self.raw[m.end():m.end() + 24]):
                return True
        return False

    @property
    def says_default(self) -> bool:
        return bool(DEFAULT_WORDS.search(self.text)) or any(
            DEFAULT_WORDS.search(h) for h in self.unit.header)

    @property
    def says_order(self) -> bool:
        return bool(ORDER_WORDS.search(self.text))

    @property
    def says_calls(self) -> bool:
        return bool(CALL_WORDS.search(self.text))

    @property
    def says_exactly(self) -> bool:
        return bool(EXACT_WORDS.search(self.text))


def cited(project: "Project", indexes: dict[str, UpstreamIndex], hrefs: tuple[str, ...]
          ) -> list[Cited]:
    out = []
    for href in hrefs:
        gl = parse_github_url(href)
        if gl is None or gl.kind not in ("blob", "raw") or not gl.path or gl.hostile_path:
            continue
        up = project.pins.by_slug(gl.slug)
        if up is None or (gl.ref != up.commit and gl.ref not in up.also):
            continue
        idx = indexes.get(up.name)
        available = False
        enclosing = None
        if idx is not None:
            in_file = idx.by_path.get(gl.path, [])
            available = bool(in_file)
            if gl.start is not None and in_file:
                lo, hi = gl.start, gl.end or gl.start
                inside = [d for d in in_file if d.start <= lo and d.end >= hi
                          and d.kind not in ("namespace", "module", "import")]
                starts = [d for d in in_file if lo <= d.start <= hi
                          and d.kind not in ("namespace", "module", "import")]
                if inside:
                    enclosing = min(inside, key=lambda d: (d.end - d.start, -d.start))
                elif starts:
                    enclosing = min(starts, key=lambda d: (len(d.qual), d.start))
        out.append(Cited(href, up.name, gl.path, gl.start, gl.end, available, enclosing))
    return out


def container_of(d: Def) -> bool:
    return d.kind in CONTAINERS | {"typedef"}
