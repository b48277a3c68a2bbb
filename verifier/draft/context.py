"""One checkable sentence as the proposers see it: its code spans resolved to
definitions at the pin, its permalinks with the definition enclosing each cited
range, and what the wording asserts (a default, an order, an absence, ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from verifier.draft.index import CALLABLES, CONTAINERS, Def, UpstreamIndex
from verifier.draft.spans import Ref, refs
from verifier.permalinks import parse_github_url

if TYPE_CHECKING:
    from verifier.claims.coverage import Unit
    from verifier.project import LessonDoc, Project

TYPES = {"struct", "union", "class", "enum", "typedef"}

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


def norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def distinctive(name: str) -> bool:
    """A name unlikely to be an English/Chinese word: `mj_step`, `kSap`, `nhat_BA_W`."""
    return ("_" in name.strip("_") or any(c.isdigit() for c in name)
            or any(c.isupper() for c in name[1:]))


@dataclass(frozen=True)
class Hit:
    """A reference resolved to definitions, best first."""

    ref: Ref
    upstream: str
    defs: tuple[Def, ...]
    how: str          # qualified | module | receiver | context | top | member

    @property
    def best(self) -> Def:
        return self.defs[0]


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


class Resolver:
    """Resolves references for one lesson (its upstreams' indexes, its context)."""

    def __init__(self, indexes: dict[str, UpstreamIndex], lesson_text: str,
                 lesson_spans: list[str]):
        self.indexes = indexes
        self.lesson_text = lesson_text
        self.lesson_spans = lesson_spans
        self.labels: dict[str, list[str]] = {}     # link target -> plain labels

    @cached_property
    def context_containers(self) -> set[str]:
        """Containers the lesson names as types (`mjData`, `MultibodyPlant`)."""
        out: set[str] = set()
        for span in self.lesson_spans:
            for r in refs(span):
                if len(r.parts) == 1:
                    for idx in self.indexes.values():
                        if any(d.kind in TYPES for d in idx.lookup(r.parts[0])):
                            out.add(r.parts[0])
                            alias = idx.aliases.get(r.parts[0])
                            if alias:
                                out.add(alias)
                elif len(r.parts) >= 2:
                    hit = self._qualified(r.parts) or self._receiver(r.parts)
                    if hit is not None and hit[1] and hit[1][0].container:
                        out.add(hit[1][0].container)
        return out

    def _receiver(self, parts: tuple[str, ...]) -> tuple[str, tuple[Def, ...]] | None:
        """`data.qpos`, `plant.GetPositions`: members of a container the receiver
        variable is named after (`data` ~ `mjData_`, `plant` ~ `MultibodyPlant`)."""
        recv = norm(parts[-2])
        if len(recv) < 3 or parts[-2][:1].isupper():
            return None
        for up, idx in self.indexes.items():
            defs = tuple(d for d in idx.lookup(parts[-1]) if d.container
                         and (recv in norm(d.container) or norm(d.container) in recv)
                         and len(norm(d.container)) >= 3)
            if defs:
                return up, defs
        return None

    def _qualified(self, parts: tuple[str, ...]) -> tuple[str, tuple[Def, ...]] | None:
        """Definitions whose qualified name ends with `parts` (C typedef names followed)."""
        name = parts[-1]
        for up, idx in self.indexes.items():
            owners = set(parts[:-1])
            if not owners:
                continue
            want = parts[:-1]
            out = []
            for d in idx.lookup(name):
                q = d.qual[:-1]
                if len(q) < len(want):
                    continue
                tail = list(q[len(q) - len(want):])
                ok = tail == list(want)
                if not ok and tail:
                    # `mjData.qpos` names the struct `mjData_` through its typedef
                    tail[-1] = next((a for a, t in idx.aliases.items() if t == tail[-1]),
                                    tail[-1])
                    ok = tail == list(want)
                if ok:
                    out.append(d)
            if out:
                return up, tuple(out)
        return None

    def _module(self, parts: tuple[str, ...]) -> Hit | None:
        for up, idx in self.indexes.items():
            for cut in range(len(parts), 0, -1):
                mod = ".".join(parts[:cut])
                path = idx.modules.get(mod)
                if path is None:
                    continue
                rest = parts[cut:]
                if not rest:
                    return None   # the module itself: no Def (see `module_path`)
                defs = tuple(d for d in idx.lookup(rest[-1])
                             if d.path == path and d.qual == rest)
                if defs:
                    return Hit(Ref("", parts), up, defs, "module")
        return None

    def module_path(self, parts: tuple[str, ...]) -> tuple[str, str] | None:
        for up, idx in self.indexes.items():
            path = idx.modules.get(".".join(parts))
            if path is not None:
                return up, path
        return None

    def resolve(self, ref: Ref) -> Hit | None:
        parts = ref.parts
        name = parts[-1]
        if len(parts) > 1:
            hit = self._module(parts)
            if hit is not None:
                return Hit(ref, hit.upstream, hit.defs, "module")
            q = self._qualified(parts)
            if q is not None:
                return Hit(ref, q[0], q[1], "qualified")
            # a qualifier that names a type the pin does not define here: no guessing
            # from the bare name (`DiscreteContactApproximation.kSap` is not another
            # enum's `kSap`)
            if parts[-2][:1].isupper() or "::" in ref.span:
                return None
            # `data.qpos`, `plant.GetPositions(context)`: a receiver variable
            hit = self._receiver(parts)
            if hit is not None:
                return Hit(ref, hit[0], hit[1], "receiver")
        # a bare name (or an unresolved receiver): top-level definitions, else members
        # of a container the lesson names
        ctx = self.context_containers
        for up, idx in self.indexes.items():
            defs = idx.lookup(name)
            if not defs:
                continue
            top = tuple(d for d in defs if d.owner_kind in (None, "namespace", "module")
                        and d.kind != "import")
            if top and (distinctive(name)
                        or ref.call and any(d.kind in CALLABLES | {"class"} for d in top)
                        or any(d.kind in TYPES | CALLABLES for d in top) and name[:1].isupper()):
                return Hit(ref, up, top, "top")
            enums = tuple(d for d in defs if d.kind == "enumerator")
            if enums and distinctive(name):
                return Hit(ref, up, enums, "top")
            in_ctx = tuple(d for d in defs if d.container in ctx)
            if in_ctx:
                return Hit(ref, up, in_ctx, "context")
            # a member of a class the lesson does not name: only where every declaration
            # file (header, Python) of the upstream is served (else the class meant may be
            # the one whose file is missing: `SetVelocities` is not `SapModel.SetVelocities`)
            # (C struct fields excepted: a C header declares a struct's every field)
            members = tuple(d for d in defs if d.container
                            and (not idx.unavailable or d.lang == "c"))
            owners = {d.container for d in members}
            if members and (distinctive(name) and len(owners) <= 2
                            or len(owners) == 1 and len(name) >= 2):
                return Hit(ref, up, members, "member")
            imports = tuple(d for d in defs if d.kind == "import")
            if imports and distinctive(name) and not top:
                return Hit(ref, up, imports, "top")
        return None


@dataclass
class Sentence:
    """A checkable sentence with everything the proposers need."""

    unit: "Unit"
    lesson: "LessonDoc"
    raw: str                                   # the unit's raw text
    hits: list[Hit] = field(default_factory=list)
    unresolved: list[Ref] = field(default_factory=list)
    cited: list[Cited] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # span names already claimed by a proposal
    claimed: set[tuple[str, str | None]] = field(default_factory=set)  # (upstream, path) proposed

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
