"""Which container a sentence attributes a member to, and whether the pin can decide it.

`owners(env, qualifier)`: the containers (struct, union, class, enum; typedef names
followed) a qualifier names: a type name (`mjData`, `SensorIMU`, `newton.State` with the
lesson's import aliases), or a receiver variable named after one (`data` ~ `mjData`,
`state` ~ `State`: a container spelled `mj<Name>` or `<Name>` that the lesson itself
names, or that a file it cites declares).

`direct(env, up, c, name)`: the members called `name` that the `members` kind lists for
container `c` (no literal-declared names, no `self.x` assigned outside `__init__`).

`complete(env, up, c)`: whether the fact model lists every member of `c`, so that a name
missing from it is missing at the pin: a C struct/union/enum, or a class whose base
classes are all known at the pin and none of which has the name (`decides`), with no
`__getattr__`. pybind11 classes are never complete (bound base classes are not
followed)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from verifier.draft.grounding import norm
from verifier.facts.model import LITERAL_KINDS

if TYPE_CHECKING:
    from verifier.draft.index import Def
    from verifier.draft.proposers.base import Env

CONTAINER_KINDS = {"struct", "union", "class", "enum"}
_TRIVIAL_BASES = {"object", "Enum", "IntEnum", "IntFlag", "Flag", "StrEnum", "NamedTuple",
                  "TypedDict", "Protocol", "ABC", "Generic", "Exception", "ValueError",
                  "RuntimeError", "TypeError", "KeyError"}


def _containers_named(env: "Env", name: str) -> list[tuple[str, "Def"]]:
    """Containers called `name`; of several Python classes of one name, the one the
    package exports under it (`newton.State`, not `DriveBase.State`)."""
    out = []
    for up, idx in env.indexes.items():
        tag = idx.aliases.get(name)
        for n in dict.fromkeys([name, tag] if tag else [name]):
            got = [d for d in idx.lookup(n) if d.kind in CONTAINER_KINDS]
            if len(got) > 1 and all(d.lang == "python" for d in got):
                pub = idx.exported(n)
                if pub is not None and pub in got:
                    got = [pub]
            out.extend((up, d) for d in got)
    return out


def owners(env: "Env", parts: tuple[str, ...], lesson_containers: tuple[str, ...]
           ) -> tuple[str, list[tuple[str, "Def"]]]:
    """(how, candidates) for the qualifier `parts[:-1]` of a dotted reference."""
    parts = env.resolver.unalias(parts)
    qual = parts[-2]
    mod = env.resolver.module_path(parts[:-1])
    if mod is not None and (len(parts) > 2 or env.indexes[mod[0]].module_of.get(mod[1]) == qual):
        return "module", []          # `mujoco.rollout.Rollout`: a module's name, not a member
    named_type = _containers_named(env, qual)
    if named_type and (qual[:1].isupper() or any(c.isupper() for c in qual[1:])):
        got = named_type
        if len(parts) > 2:      # `newton.State.body_f`: the module path must hold it
            mod = env.resolver.module_path(parts[:-2])
            if mod is not None:
                got = [(u, d) for u, d in got if u == mod[0]] or got
        return "qualified", got
    # a receiver variable: `data`, `state`, `control`, `model`, `contacts`
    recv = norm(qual)
    if len(recv) < 3:
        return "receiver", []
    # `root_context` ~ `Context`, `scene_graph` ~ `SceneGraph`
    words = [qual] + ([qual.rsplit("_", 1)[1]] if "_" in qual.strip("_") else [])
    got = []
    for w in words:
        r = norm(w)
        camel = "".join(x[:1].upper() + x[1:] for x in w.split("_"))
        for up, idx in env.indexes.items():
            for cand in dict.fromkeys([w[:1].upper() + w[1:], camel, "mj" + camel]):
                got.extend((u, d) for u, d in _containers_named(env, cand) if u == up
                           and norm(d.name) in (recv, r, "mj" + r))
    got = list(dict.fromkeys(got))
    # only a container the lesson itself names: `model` in a MuJoCo lesson that never
    # names `mjx.Model` is the binding's `MjModel`, which the fact model may not hold
    context = set(lesson_containers) | set(env.resolver.cited_types)
    named = [g for g in got if g[1].name in context or g[1].name.rstrip("_") in context]
    return "receiver", named


def direct(env: "Env", up: str, c: "Def", name: str) -> list["Def"]:
    idx = env.indexes[up]
    return [d for d in idx.by_path.get(c.path, []) if d.name == name and d.qual[:-1] == c.qual
            and d.kind not in LITERAL_KINDS and d.origin != "self"]


def has_methods(env: "Env", up: str, c: "Def") -> bool:
    """Whether the container declares callables (a plain struct does not: a call on it
    is an API of its language binding, e.g. MuJoCo's Python `MjData.joint(name)`)."""
    return any(d.qual[:-1] == c.qual and d.kind in ("method", "constructor", "function")
               for d in env.indexes[up].by_path.get(c.path, []))


def anywhere(env: "Env", up: str, c: "Def", name: str) -> list["Def"]:
    """`name` as a member of `c` in any form the fact model records (literal-declared,
    `self.x` in any method)."""
    idx = env.indexes[up]
    return [d for d in idx.by_path.get(c.path, []) if d.name == name and d.qual[:-1] == c.qual]


def _base_names(c: "Def") -> list[str]:
    if not c.value:
        return []
    out = []
    depth, cur = 0, ""
    for ch in c.value:
        if ch in "<[(":
            depth += 1
        elif ch in ">])":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        if depth == 0 and ch not in ">])":
            cur += ch
    out.append(cur)
    names = []
    for b in out:
        b = re.sub(r"\b(public|private|protected|virtual)\b", "", b).strip()
        last = re.split(r"\.|::", b)[-1].strip() if b else ""
        if last and "=" not in b:         # `metaclass=...` is no base
            names.append(last)
    return names


def decides(env: "Env", up: str, c: "Def", name: str, depth: int = 0) -> bool:
    """Whether the pin's facts decide that `name` is no member of `c`: every member of
    `c` is listed and no base class could bring `name` in."""
    if c.origin == "pybind11" or depth > 6:
        return False
    if c.lang == "c":
        return c.kind in ("struct", "union", "enum")
    idx = env.indexes[up]
    if anywhere(env, up, c, name) or anywhere(env, up, c, "__getattr__"):
        return False
    for b in _base_names(c):
        if b in _TRIVIAL_BASES:
            continue
        cands = [d for d in idx.lookup(b) if d.kind in CONTAINER_KINDS and d.origin != "pybind11"]
        if not cands:
            return False            # a base the pin's served files do not define
        if not all(decides(env, up, x, name, depth + 1) for x in cands):
            return False
    return True


def owners_of(env: "Env", name: str) -> list[str]:
    """Containers that do have a member `name` (for the message only)."""
    out = []
    for idx in env.indexes.values():
        out.extend(d.container for d in idx.lookup(name) if d.container and d.kind
                   not in LITERAL_KINDS and d.owner_kind in CONTAINER_KINDS)
    return sorted(dict.fromkeys(out))[:4]
