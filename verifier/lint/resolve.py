"""Resolve an API reference (`verifier.lint.shapes.ApiRef`) in the symbol
indexes of a lesson's upstreams — projections of the one fact model
(`facts/model.FileFacts`, `facts/symbols.py`) — and, where the source gives no
answer, in the pinned release's public surface (`facts/release.py`).

Order: lesson-local names (bound in the lesson's own Python blocks); Python
module paths (`newton.intersect_ray`, `mujoco.mjtObj.mjOBJ_SENSOR`: each step a
submodule or a name the module binds; a module that star-imports a compiled
extension of a C library exposes that library's C API, as MuJoCo's bindings
do); `Container.member` (struct/class/enum/namespace and a member of it); a
single name anywhere; `receiver.….name` with an untyped receiver (`data.qpos`,
`plant.get_x()`): the last meaningful name as a member anywhere, or MuJoCo-
style named access (`data.sensor(name).data` -> field `sensordata`).

Then the release surface, when the source did not resolve the name: the same
strategies over the release index (`.pyi` stubs of the pinned wheel,
introspection of the pinned runtime environment). A name found there is
`resolved` with `evidence="release"` and `producer` saying which one answered;
a name absent there too, while the source is not available, stays
`inconclusive` with `release="absent"` ("not in the pinned release") — never
passed, never an error by itself.

Unresolved is conclusive ("not found") only when every index involved is
complete, or a Python module path left a module whose file is indexed. A
near-identical name (a likely rename or typo) is reported as `suggestion`; it
does not make an unverifiable name conclusive.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import fnmatch
import re
from dataclasses import dataclass, field, replace

from verifier.facts.symbols import Symbol, SymbolIndex
from verifier.lint.shapes import ApiRef

CONTAINERS = frozenset({"struct", "class", "enum", "typedef", "union", "namespace"})
# what `receiver.name` can be: a member, not a parameter or an import binding
MEMBER_KINDS = frozenset({"field", "attribute", "method", "constructor", "enumerator",
                          "function", "class", "struct", "union", "enum", "variable", "macro",
                          "module", "typedef", "registered"})
# prefer definitions over re-export bindings over parameter names
_RANK = {"import": 1, "parameter": 2, "keyword": 2, "port": 2, "registered": 2}


@dataclass(frozen=True)
class Resolution:
    status: str                 # resolved | unresolved | inconclusive
    how: str
    upstream: str | None = None
    symbol: Symbol | None = None
    suggestion: str | None = None
    evidence: str | None = None    # resolved: pinned | release (the row's evidence)
    producer: str | None = None    # resolved: source | stub | introspection
    release: str | None = None     # the release surface: "found" | "absent" | None (not asked)


_HEADERS = (".h", ".hh", ".hpp", ".hxx", ".inc", ".inl")


class Resolver:
    def __init__(self, indexes: list[SymbolIndex], local_names: set[str] | frozenset = frozenset(),
                 *, release: list[SymbolIndex] | None = None):
        self.indexes = indexes
        self.local = set(local_names)
        self._release = release

    @property
    def complete(self) -> bool:
        return bool(self.indexes) and all(i.complete for i in self.indexes)

    @property
    def release_indexes(self) -> list[SymbolIndex]:
        """The release surfaces of the indexes (built on first use)."""
        if self._release is None:
            self._release = [r for r in (i.release_surface() for i in self.indexes) if r]
        return self._release

    def resolve(self, ref: ApiRef) -> Resolution:
        res = self._resolve(ref)
        if res.status == "resolved" or res.how == "empty":
            return res
        rel = self.release_indexes
        if not rel:
            return res
        got = Resolver(rel, self.local, release=[])._resolve(ref)
        if got.status == "resolved":
            via = ", ".join(f"{k}: {v}" for r in rel for k, v in sorted(r.producers.items()))
            return replace(got, how=f"{got.how} — in the pinned release ({via}), not in the "
                                    f"available sources", release="found")
        return replace(res, how=f"{res.how}; not in the pinned release either", release="absent",
                       suggestion=res.suggestion or got.suggestion)

    def _any(self, name: str, kinds: frozenset[str] | None = None
             ) -> tuple[SymbolIndex, Symbol] | None:
        best = None
        for idx in self.indexes:
            s = idx.best(name, kinds, _RANK)
            if s is not None:
                key = (_RANK.get(s.kind, 0), s.path, s.line)
                if best is None or key < best[0]:
                    best = (key, idx, s)
        return (best[1], best[2]) if best else None

    def _where(self, s: Symbol) -> str:
        at = f"{s.path}:{s.line}" if s.line else f"{s.path} ({s.producer})"
        return f"{s.kind} in {at}" + (f" (of {s.parent})" if s.parent and
                                       s.parent != s.module else "")

    def _hit(self, how: str, idx: SymbolIndex, s: Symbol | None = None) -> Resolution:
        return Resolution("resolved", how, idx.upstream, s,
                          evidence=s.evidence if s is not None else idx.evidence,
                          producer=s.producer if s is not None else None)

    def _resolve(self, ref: ApiRef) -> Resolution:
        segs = list(ref.segments)
        if segs and segs[-1] == "*":
            segs.pop()
        if not segs:
            return Resolution("resolved", "empty")
        if any("*" in s for s in segs):
            return self._glob(segs[-1])
        if segs[0] in self.local and (len(segs) == 1 or ref.leading_dot):
            return Resolution("resolved", "defined in the lesson's own code")
        miss = None
        for idx in self.indexes:
            if segs[0] in idx.modules and not ref.leading_dot:
                got = self._module(idx, segs)
                if got.status == "resolved":
                    return got
                miss = miss or got
        hit = self._any(segs[0], CONTAINERS)
        if miss is not None:
            # `mujoco::usd::LayerSink`: a C++ namespace named like a Python package
            if hit and len(segs) >= 2:
                for i in self.indexes:
                    m = i.member(segs[0], segs[1])
                    if m:
                        return self._hit(f"`{segs[1]}` is a member of `{segs[0]}` "
                                         f"({self._where(m[0])})", i, m[0])
            return miss
        if hit and len(segs) >= 2 and not ref.leading_dot:
            for i in self.indexes:
                m = i.member(segs[0], segs[1])
                if m:
                    return self._hit(f"`{segs[1]}` is a member of `{segs[0]}` "
                                     f"({self._where(m[0])})", i, m[0])
            loose = self._any(segs[-1], MEMBER_KINDS)
            if loose:
                return self._hit(f"`{segs[-1]}` found as {self._where(loose[1])}; "
                                 f"not as a direct member of `{segs[0]}` (bases not followed)",
                                 loose[0], loose[1])
            return self._missing(segs[-1], f"`{segs[0]}` has no member `{segs[1]}`",
                                 conclusive=len(segs) == 2 and self.closed(segs[0]))
        if len(segs) == 1 and not ref.leading_dot:
            hit = self._any(segs[0])
            if hit:
                return self._hit(self._where(hit[1]), hit[0], hit[1])
            return self._missing(segs[0], f"no symbol `{segs[0]}`")
        # untyped receiver: the last meaningful name as a member anywhere
        last = segs[-1]
        if len(segs) >= 3 and ref.calls[-2]:
            # MuJoCo-style named access: data.sensor(name).data -> field sensordata
            for cand in (segs[-2] + last, f"{segs[-2]}_{last}"):
                hit = self._any(cand, MEMBER_KINDS)
                if hit:
                    return self._hit(f"named access `{segs[-2]}(…).{last}` -> "
                                     f"`{cand}`: {self._where(hit[1])}", hit[0], hit[1])
        hit = self._any(last, MEMBER_KINDS)
        if hit:
            return self._hit(f"`{last}` resolved as a member anywhere in the index "
                             f"(receiver untyped): {self._where(hit[1])}", hit[0], hit[1])
        return self._missing(last, f"no member `{last}` anywhere")

    # ------------------------------------------------------------------ helpers
    def _glob(self, pattern: str) -> Resolution:
        literal = re.match(r"[^*?\[]*", pattern).group()
        for idx in self.indexes:
            for name in idx.names_with_prefix(literal):
                if fnmatch.fnmatchcase(name, pattern):
                    s = idx.by_name[name][0]
                    return self._hit(f"`{pattern}` matches `{name}` ({self._where(s)})", idx, s)
        return self._missing(pattern.replace("*", ""), f"nothing matches `{pattern}`",
                             glob=True)

    def _module(self, idx: SymbolIndex, segs: list[str]) -> Resolution:
        mod = segs[0]
        for i in range(1, len(segs)):
            name = segs[i]
            if f"{mod}.{name}" in idx.modules:
                mod = f"{mod}.{name}"
                continue
            bound = (idx.module_names(mod) or {}).get(name)
            if bound:
                rest = segs[i + 1:]
                if not rest:
                    return self._hit(f"module `{mod}` binds `{name}` "
                                     f"({self._where(bound[0])})", idx, bound[0])
                return self._members_after(idx, f"{mod}.{name}", name, rest)
            # a star import: from a compiled extension (the C API it binds), or from
            # another module of the index (what that module binds)
            stars = idx.star_imports.get(mod, [])
            for star in stars:
                got = (idx.module_names(star) or {}).get(name)
                if got:
                    rest = segs[i + 1:]
                    if not rest:
                        return self._hit(f"`{mod}.{name}`: star-imported from `{star}` "
                                         f"({self._where(got[0])})", idx, got[0])
                    return self._members_after(idx, f"{mod}.{name}", name, rest)
            if any(s not in idx.modules for s in stars):
                hit = self._any(name)
                if hit:
                    rest = segs[i + 1:]
                    if not rest:
                        return self._hit(f"`{mod}.{name}`: compiled binding of "
                                         f"{self._where(hit[1])}", hit[0], hit[1])
                    return self._members_after(idx, f"{mod}.{name}", name, rest)
            return self._missing(name, f"module `{mod}` has no `{name}`",
                                 conclusive=idx.complete or idx.module_from_source(mod))
        return self._hit(f"module `{mod}`", idx)

    def _members_after(self, idx: SymbolIndex, qual: str, owner: str,
                       rest: list[str]) -> Resolution:
        for i in self.indexes:
            m = i.member(owner, rest[0])
            if m:
                return self._hit(f"`{qual}.{rest[0]}`: {self._where(m[0])}", i, m[0])
        hit = self._any(rest[-1], MEMBER_KINDS)
        if hit:
            return self._hit(f"`{rest[-1]}` found as {self._where(hit[1])}; "
                             f"not as a direct member of `{qual}`", hit[0], hit[1])
        return self._missing(rest[-1], f"`{qual}` has no member `{rest[0]}`",
                             conclusive=len(rest) == 1 and self.closed(owner))

    def closed(self, container: str) -> bool:
        """Every definition of `container` (through a typedef to its tag) lists all its
        members in one body: a C struct/union, a C or C++ enum, a C++ class without
        bases, from source at pinned identity (not Python: members are dynamic; not
        pybind11: the Python side may add names)."""
        names = {container}
        for idx in self.indexes:
            if container in idx.aliases:
                names.add(idx.aliases[container])
        defs = [s for idx in self.indexes for n in names for s in idx.lookup(n)
                if s.kind in ("struct", "union", "enum", "class")]
        # several definitions in implementation files (`struct Impl` local to two .cc
        # files): generic helper names, and the one meant may be in a file not served
        local = [s for s in defs if not s.path.endswith(_HEADERS)]
        if len(defs) > 1 and local:
            return False
        return bool(defs) and all(
            s.producer == "source" and s.evidence == "pinned" and s.module is None
            and not self._nested(s)
            and (s.kind == "enum" and s.lang in ("c", "cpp")
                 or s.kind in ("struct", "union") and s.lang == "c"
                 or s.kind in ("struct", "class") and s.lang == "cpp" and not s.target)
            for s in defs)

    def _nested(self, s: Symbol) -> bool:
        """A class nested in another (`Meshcat::Impl`): its bare name is not how the
        source names it, so another `Impl` the served sources lack may be the one meant."""
        return bool(s.parent) and any(p.kind in ("class", "struct", "union")
                                      for idx in self.indexes for p in idx.lookup(s.parent))

    def _missing(self, name: str, why: str, *, conclusive: bool = False,
                 glob: bool = False) -> Resolution:
        suggestion = None if glob else self.near(name)
        hint = f"; did you mean `{suggestion}`?" if suggestion else ""
        if conclusive or self.complete:
            return Resolution("unresolved", why + " at the pin" + hint, suggestion=suggestion)
        return Resolution("inconclusive", why + " in the available sources" + hint,
                          suggestion=suggestion)

    def near(self, name: str) -> str | None:
        if len(name) < 5 or not near_allowed(name):
            return None
        cands = set()
        for idx in self.indexes:
            cands.update(n for n in idx.names_with_prefix(name[:2]) if n != name
                         and abs(len(n) - len(name)) <= 2)
        best = difflib.get_close_matches(name, sorted(cands), n=1, cutoff=0.85)
        return best[0] if best else None


# ------------------------------------------------------------------ near-miss budget

NEAR_LIMIT = 200     # distinct names per lesson that get a "did you mean" search


@dataclass
class NearBudget:
    """Which names of one lesson get a near-miss search: the first `limit` distinct
    ones, in the order the rules ask (the same on every run of the same lesson).
    A search reads thousands of candidates (~5-10 ms); the real lessons ask for at
    most 15, while a lesson of 20,000 made-up names took 285 s before the limit.
    A name past the limit is judged the same, only without the hint."""

    limit: int = NEAR_LIMIT
    seen: dict[str, bool] = field(default_factory=dict)

    def allow(self, name: str) -> bool:
        if name not in self.seen:
            self.seen[name] = len(self.seen) < self.limit
        return self.seen[name]


_BUDGET: contextvars.ContextVar[NearBudget | None] = contextvars.ContextVar("near_budget",
                                                                          default=None)


@contextlib.contextmanager
def near_budget(limit: int | None = None):
    """A fresh near-miss budget for the block (one lesson's lint; `NEAR_LIMIT` names)."""
    token = _BUDGET.set(NearBudget(NEAR_LIMIT if limit is None else limit))
    try:
        yield _BUDGET.get()
    finally:
        _BUDGET.reset(token)


def near_allowed(name: str) -> bool:
    """Whether `name` may have a near-miss search now (always, outside a budget)."""
    budget = _BUDGET.get()
    return budget is None or budget.allow(name)
