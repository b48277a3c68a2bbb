"""How a lint rule decides about one API reference: resolve every reading of it in
the indexes of the upstreams it may belong to, and keep the verdict honest.

- `resolved`: found (in the lesson's upstreams, the upstream the sentence names, or
  any other pinned upstream: a MuJoCo `mj_step` in a Newton lesson);
- `unresolved`: conclusively absent (complete index, or a module whose surface is
  closed in the served sources) -> error;
- `inconclusive`: the sources that might define it are unavailable -> counted in
  source-unavailable, never passed. A near-miss "did you mean" never makes an
  unverifiable name conclusive, and a module that star-imports a compiled extension
  or has unserved submodule files is not closed;
- any other status the resolver reports (the pinned release's surface: "not in the
  pinned release") -> a warning on the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.claims.compare.base import close_names
from verifier.lint.resolve import Resolution, Resolver, near_allowed
from verifier.lint.shapes import ApiRef


class _NoNear(Resolver):
    """The same resolver without near-miss suggestions: what it says is what the
    sources say."""

    def near(self, name: str) -> str | None:  # noqa: ARG002
        return None


@dataclass(frozen=True)
class Judgement:
    status: str                  # resolved | unresolved | inconclusive | <resolver status>
    how: str
    upstream: str | None = None
    suggestion: str | None = None
    reading: ApiRef | None = None


def module_closed(idx, segs: tuple[str, ...]) -> bool:
    """A module path `a.b.name`: may the module lacking `name` still bind it through
    something the index cannot see (a star import from a compiled extension, a
    submodule file that is not served)?"""
    if not segs or segs[0] not in idx.modules:
        return True
    mod, i = segs[0], 1
    while i < len(segs) and f"{mod}.{segs[i]}" in idx.modules:
        mod, i = f"{mod}.{segs[i]}", i + 1
    if any(s not in idx.modules for s in idx.star_imports.get(mod, [])):
        return False
    if i < len(segs):
        sub = f"{mod.replace('.', '/')}/{segs[i]}"
        for p in idx.unavailable:
            q = "/" + p
            if f"/{sub}/" in q or q.endswith((f"/{sub}.py", f"/{sub}.pyi")) \
                    or f"/{sub}." in q and q.endswith((".so", ".pyd")):
                return False
    return True


C_CONTAINERS = {"struct", "enum", "typedef"}


def closed_container_miss(indexes: list, ref: ApiRef) -> str | None:
    """`Container.member` where the container is a C struct or enum defined in a
    served file: its members are all in that definition (no bases, nothing added
    elsewhere), so a member it lacks is absent at the pin."""
    if len(ref.segments) < 2:
        return None
    owner, name = ref.segments[-2], ref.segments[-1]
    for idx in indexes:
        names = {owner, idx.aliases.get(owner, owner)}
        conts = [s for n in sorted(names) for s in idx.lookup(n)
                 if s.kind in C_CONTAINERS and s.path.endswith((".h", ".c"))
                 and s.path in idx.files]
        if not conts:
            continue
        if idx.member(owner, name) or any(idx.member(n, name) for n in names):
            return None
        c = conts[0]
        return (f"C {c.kind} `{owner}` ({c.path}:{c.line}) has no member `{name}` at the pin")
    return None


_FAMILY = re.compile(r"([a-z][a-z0-9]*)_[a-z0-9_]*[a-z0-9]")
FAMILY_MIN = 4     # fields of one C struct sharing the prefix that make it a family


def closed_family_miss(indexes: list, ref: ApiRef) -> str | None:
    """A bare `jnt_qveladr`: a name shaped like the fields of a C struct defined in a
    served header whose fields share its prefix (`jnt_`: at least FAMILY_MIN of
    `mjModel`'s), found nowhere in the indexes. The struct's definition is all of its
    fields, so the name is no field of it. Asked only once nothing binds it; the caller
    also makes sure no served text writes the name (a comment that says it)."""
    if len(ref.segments) != 1:
        return None
    m = _FAMILY.fullmatch(ref.segments[0])
    if m is None:
        return None
    prefix = m.group(1) + "_"
    for idx in indexes:
        fams: dict[str, list[str]] = {}
        for n in idx.names_with_prefix(prefix):
            for s in idx.lookup(n):
                if s.kind == "field" and s.parent and s.path.endswith(".h") \
                        and s.path in idx.files:
                    fams.setdefault(s.parent, []).append(n)
        fams = {k: sorted(set(v)) for k, v in fams.items() if len(set(v)) >= FAMILY_MIN}
        if not fams:
            continue
        owner = min(fams, key=lambda k: (-len(fams[k]), k))
        cont = next((s for s in idx.lookup(owner) if s.kind in C_CONTAINERS), None)
        shown = {v: k for k, v in idx.aliases.items()}.get(owner, owner)
        at = f" ({cont.path}:{cont.line})" if cont else ""
        names = ", ".join(f"`{n}`" for n in fams[owner][:8])
        more = "…" if len(fams[owner]) > 8 else ""
        close = close_names(ref.segments[0], fams[owner], n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        return (f"no field `{ref.segments[0]}` in C struct `{shown}`{at}, whose "
                f"`{prefix}` fields are {names}{more}{hint}")
    return None


def _near(indexes: list, local, name: str, memo: dict | None) -> str | None:
    if not near_allowed(name):      # the lesson's budget, whether or not memoised
        return None
    if memo is None:
        return Resolver(indexes, local).near(name)
    key = ("near", tuple(i.upstream for i in indexes), name)
    if key not in memo:
        memo[key] = Resolver(indexes, local).near(name)
    return memo[key]


def judge(indexes: list, ref: ApiRef, local: set[str] | frozenset = frozenset(),
          fallback: list | None = None, memo: dict | None = None) -> Judgement:
    """Resolve every reading of `ref` in `indexes`; then in `fallback` (other pinned
    upstreams: found there is found, absent there says nothing)."""
    if not indexes:
        return Judgement("inconclusive", "no index")
    strict = _NoNear(indexes, local)
    first: Resolution | None = None
    for reading in ref.readings:
        res = strict.resolve(reading)
        if res.status == "resolved":
            return Judgement("resolved", res.how, res.upstream, reading=reading)
        first = first or res
    for reading in ref.readings:
        for idx in fallback or []:
            res = _NoNear([idx], local).resolve(reading)
            if res.status == "resolved":
                return Judgement("resolved", f"{res.how} ({idx.upstream})", res.upstream,
                                 reading=reading)
    assert first is not None
    suggestion = _near(indexes, local, ref.last, memo) if ref.last else None
    hint = f"; did you mean `{suggestion}`?" if suggestion else ""
    # a member a C struct/enum lacks is absent whatever the module around it binds
    # (`mujoco.mjtObj.X`: the binding mirrors the header's enum)
    closed = closed_container_miss(indexes, ref)
    if first.status == "unresolved":
        if all(module_closed(i, ref.segments) for i in indexes):
            return Judgement("unresolved", first.how + hint, first.upstream, suggestion, ref)
        if closed:
            return Judgement("unresolved", closed + hint, first.upstream, suggestion, ref)
        return Judgement("inconclusive", first.how.removesuffix(" at the pin")
                         + " in the served sources (the module may bind more: a compiled "
                         "extension or a submodule that is not served)" + hint,
                         first.upstream, suggestion, ref)
    if closed:
        return Judgement("unresolved", closed + hint, None, suggestion, ref)
    return Judgement(first.status, first.how + hint, first.upstream, suggestion, ref)
