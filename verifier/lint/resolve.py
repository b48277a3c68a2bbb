"""Resolve an API reference (`verifier.lint.shapes.ApiRef`) in the symbol
indexes of a lesson's upstreams.

Order: lesson-local names (bound in the lesson's own Python blocks); Python
module paths (`newton.intersect_ray`, `mujoco.mjtObj.mjOBJ_SENSOR`: each step a
submodule or a name the module binds; a module that star-imports a compiled
extension of a C library exposes that library's C API, as MuJoCo's bindings
do); `Container.member` (struct/class/enum and a member of it); a single name
anywhere; `receiver.….name` with an untyped receiver (`data.qpos`,
`plant.get_x()`): the last meaningful name as a member anywhere, or MuJoCo-
style named access (`data.sensor(name).data` -> field `sensordata`).

Unresolved is conclusive ("not found") when every index involved is complete,
when a Python module path left the indexed module surface, or when a
near-identical name exists (a likely rename or typo); otherwise it is
inconclusive (the sources that might define it are unavailable).
"""

from __future__ import annotations

import difflib
import fnmatch
from dataclasses import dataclass

from verifier.facts.symbols import Symbol, SymbolIndex
from verifier.lint.shapes import ApiRef

CONTAINERS = {"struct", "class", "enum", "typedef", "pybind_class"}
# what `receiver.name` can be: a member, not a parameter or an import binding
MEMBER_KINDS = {"field", "attribute", "method", "pybind_def", "enum_constant", "function",
                "class", "pybind_class", "variable", "macro", "module"}
# prefer definitions over re-export bindings over parameter names
_RANK = {"import": 1, "parameter": 2}


@dataclass(frozen=True)
class Resolution:
    status: str                 # resolved | unresolved | inconclusive
    how: str
    upstream: str | None = None
    symbol: Symbol | None = None
    suggestion: str | None = None


class Resolver:
    def __init__(self, indexes: list[SymbolIndex], local_names: set[str] | frozenset = frozenset()):
        self.indexes = indexes
        self.local = set(local_names)

    @property
    def complete(self) -> bool:
        return bool(self.indexes) and all(i.complete for i in self.indexes)

    def _any(self, name: str, kinds: set[str] | None = None) -> tuple[SymbolIndex, Symbol] | None:
        best = None
        for idx in self.indexes:
            for s in idx.lookup(name):
                if kinds is None or s.kind in kinds:
                    key = (_RANK.get(s.kind, 0), s.path, s.line)
                    if best is None or key < best[0]:
                        best = (key, idx, s)
        return (best[1], best[2]) if best else None

    def _where(self, s: Symbol) -> str:
        return f"{s.kind} in {s.path}:{s.line}" + (f" (of {s.parent})" if s.parent and
                                                    s.parent != s.module else "")

    def resolve(self, ref: ApiRef) -> Resolution:
        segs = list(ref.segments)
        if segs and segs[-1] == "*":
            segs.pop()
        if not segs:
            return Resolution("resolved", "empty")
        if any("*" in s for s in segs):
            return self._glob(segs[-1])
        if segs[0] in self.local and (len(segs) == 1 or ref.leading_dot):
            return Resolution("resolved", "defined in the lesson's own code")
        for idx in self.indexes:
            if segs[0] in idx.modules and not ref.leading_dot:
                return self._module(idx, segs)
        hit = self._any(segs[0], CONTAINERS)
        if hit and len(segs) >= 2 and not ref.leading_dot:
            idx, sym = hit
            for i in self.indexes:
                m = i.member(segs[0], segs[1])
                if m:
                    return Resolution("resolved", f"`{segs[1]}` is a member of `{segs[0]}` "
                                      f"({self._where(m[0])})", i.upstream, m[0])
            loose = self._any(segs[-1], MEMBER_KINDS)
            if loose:
                return Resolution("resolved", f"`{segs[-1]}` found as {self._where(loose[1])}; "
                                  f"not as a direct member of `{segs[0]}` (bases not followed)",
                                  loose[0].upstream, loose[1])
            return self._missing(segs[-1], f"`{segs[0]}` has no member `{segs[1]}`")
        if len(segs) == 1 and not ref.leading_dot:
            hit = self._any(segs[0])
            if hit:
                return Resolution("resolved", self._where(hit[1]), hit[0].upstream, hit[1])
            return self._missing(segs[0], f"no symbol `{segs[0]}`")
        # untyped receiver: the last meaningful name as a member anywhere
        last = segs[-1]
        if len(segs) >= 3 and ref.calls[-2]:
            # MuJoCo-style named access: data.sensor(name).data -> field sensordata
            for cand in (segs[-2] + last, f"{segs[-2]}_{last}"):
                hit = self._any(cand, MEMBER_KINDS)
                if hit:
                    return Resolution("resolved", f"named access `{segs[-2]}(…).{last}` -> "
                                      f"`{cand}`: {self._where(hit[1])}", hit[0].upstream, hit[1])
        hit = self._any(last, MEMBER_KINDS)
        if hit:
            return Resolution("resolved", f"`{last}` resolved as a member anywhere in the index "
                              f"(receiver untyped): {self._where(hit[1])}", hit[0].upstream, hit[1])
        return self._missing(last, f"no member `{last}` anywhere")

    # ------------------------------------------------------------------ helpers
    def _glob(self, pattern: str) -> Resolution:
        for idx in self.indexes:
            for name in idx.by_name:
                if fnmatch.fnmatchcase(name, pattern):
                    s = idx.by_name[name][0]
                    return Resolution("resolved", f"`{pattern}` matches `{name}` "
                                      f"({self._where(s)})", idx.upstream, s)
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
                    return Resolution("resolved", f"module `{mod}` binds `{name}` "
                                      f"({self._where(bound[0])})", idx.upstream, bound[0])
                return self._members_after(idx, f"{mod}.{name}", name, rest)
            # a star import from a compiled extension: the C API it binds
            stars = idx.star_imports.get(mod, [])
            if any(s not in idx.modules for s in stars):
                hit = self._any(name)
                if hit:
                    rest = segs[i + 1:]
                    if not rest:
                        return Resolution("resolved", f"`{mod}.{name}`: compiled binding of "
                                          f"{self._where(hit[1])}", hit[0].upstream, hit[1])
                    return self._members_after(idx, f"{mod}.{name}", name, rest)
            return self._missing(name, f"module `{mod}` has no `{name}`",
                                 conclusive=idx.complete or idx.module_from_source(mod))
        return Resolution("resolved", f"module `{mod}`", idx.upstream)

    def _members_after(self, idx: SymbolIndex, qual: str, owner: str,
                       rest: list[str]) -> Resolution:
        for i in self.indexes:
            m = i.member(owner, rest[0])
            if m:
                return Resolution("resolved", f"`{qual}.{rest[0]}`: {self._where(m[0])}",
                                  i.upstream, m[0])
        hit = self._any(rest[-1], MEMBER_KINDS)
        if hit:
            return Resolution("resolved", f"`{rest[-1]}` found as {self._where(hit[1])}; "
                              f"not as a direct member of `{qual}`", hit[0].upstream, hit[1])
        return self._missing(rest[-1], f"`{qual}` has no member `{rest[0]}`")

    def _missing(self, name: str, why: str, *, conclusive: bool = False,
                 glob: bool = False) -> Resolution:
        suggestion = None if glob else self.near(name)
        if suggestion:
            return Resolution("unresolved", f"{why}; did you mean `{suggestion}`?",
                              suggestion=suggestion)
        if conclusive or self.complete:
            return Resolution("unresolved", why + " at the pin")
        return Resolution("inconclusive", why + " in the available sources")

    def near(self, name: str) -> str | None:
        if len(name) < 5:
            return None
        cands = set()
        for idx in self.indexes:
            cands.update(n for n in idx.by_name if n[:2] == name[:2] and n != name
                         and abs(len(n) - len(name)) <= 2)
        best = difflib.get_close_matches(name, sorted(cands), n=1, cutoff=0.85)
        return best[0] if best else None
