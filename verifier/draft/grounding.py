"""Grounding: which pinned definition a name of the sentence means.

A name is looked up in the index of every upstream the lesson declares (`index.py`),
through the lesson's own context, nearest first:

1. qualified names (`SensorIMU.accelerometer`, `mjData.qpos`, `pkg.module.Name`), with
   the import aliases the lesson's code blocks define (`import warp as wp` makes
   `wp.vec3` mean `warp.vec3`; `from newton import sensors as ns`);
2. a receiver variable named after a container (`data.qpos`, `plant.GetPositions`);
3. a bare member name (`accelerometer`, `step`) bound through the *scope* of its sentence,
   level by level: the containers the sentence itself names, then its table (the header
   row and the sentence introducing the table), then its section heading, then the whole
   lesson. At the first level where a named container has the member, exactly one such
   container binds it; two are an *ambiguous binding*: nothing is guessed and the
   sentence reports it (`Sentence.ambiguous`);
4. top-level definitions (functions, classes, constants, enumerators) by name;
5. a member of a class the lesson never names, only while every declaration file of the
   upstream is served and the name has one owner.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property

from verifier.draft.index import CALLABLES, Def, UpstreamIndex
from verifier.draft.spans import Ref, refs

TYPES = {"struct", "union", "class", "enum", "typedef"}


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
    how: str          # qualified | module | receiver | scope:<level> | top | member

    @property
    def best(self) -> Def:
        return self.defs[0]


@dataclass
class Scope:
    """Container names the sentence's context names, nearest level first."""

    levels: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # (level, names)
    ambiguous: list[str] = field(default_factory=list)   # what could not be bound, and why


def code_aliases(blocks: list[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """`import x.y as z` / `from x import y as z` / `import x` in the lesson's Python
    code blocks: local name -> the dotted path it stands for. A name bound twice to
    different things is dropped (the lesson is ambiguous there)."""
    out: dict[str, tuple[str, ...]] = {}
    clash: set[str] = set()

    def bind(name: str, path: tuple[str, ...]) -> None:
        if name in out and out[name] != path:
            clash.add(name)
        out[name] = path

    for lang, text in blocks:
        if lang.lower() not in ("python", "py", "python3", "pycon"):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        bind(a.asname, tuple(a.name.split(".")))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        bind(a.asname or a.name, (*node.module.split("."), a.name))
    for name in clash:
        out.pop(name, None)
    return out


class Resolver:
    """Resolves references for one lesson (its upstreams' indexes, its context)."""

    def __init__(self, indexes: dict[str, UpstreamIndex], lesson_text: str,
                 lesson_spans: list[str], aliases: dict[str, tuple[str, ...]] | None = None):
        self.indexes = indexes
        self.lesson_text = lesson_text
        self.lesson_spans = lesson_spans
        self.aliases = aliases or {}
        self.labels: dict[str, list[str]] = {}     # link target -> plain labels
        self.cited_types: tuple[str, ...] = ()     # types declared in files the lesson cites
        self.cited_paths: tuple[str, ...] = ()     # repository paths the lesson's permalinks cite

    # ------------------------------------------------------------------ context
    def containers(self, spans) -> tuple[str, ...]:
        """The containers (struct, class, enum, typedef) that code spans name, in order."""
        out: list[str] = []
        for span in spans:
            for r in refs(span):
                parts = self.unalias(r.parts)
                for idx in self.indexes.values():
                    if any(d.kind in TYPES for d in idx.lookup(parts[-1])) and (
                            len(parts) == 1 or self._qualified(parts) is not None
                            or self._module(parts) is not None):
                        out.append(parts[-1])
                        alias = idx.aliases.get(parts[-1])
                        if alias:
                            out.append(alias)
                        break
                else:
                    if len(parts) >= 2:
                        hit = self._qualified(parts) or self._receiver(parts)
                        if hit is not None and hit[1] and hit[1][0].container:
                            out.append(hit[1][0].container)
        return tuple(dict.fromkeys(out))

    def words(self, text: str) -> tuple[str, ...]:
        """Distinctive identifiers of plain text (a heading, a header cell) that name
        containers: `SolverXPBD`, `mjModel`."""
        ids = [w for w in re.findall(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]{2,}(?![\w])", text)
               if distinctive(w)]
        return self.containers(ids)

    @cached_property
    def context_containers(self) -> tuple[str, ...]:
        """Containers the lesson names anywhere (`mjData`, `MultibodyPlant`)."""
        return self.containers(self.lesson_spans)

    def unalias(self, parts: tuple[str, ...]) -> tuple[str, ...]:
        """`wp.vec3` -> `warp.vec3` (`import warp as wp`); a bare name bound by
        `from m import Name` stays bare (the module path may be a binding the fact
        model does not hold as a module, `pydrake.systems.sensors`)."""
        if len(parts) >= 2 and parts[0] in self.aliases:
            return (*self.aliases[parts[0]], *parts[1:])
        return parts

    # ------------------------------------------------------------------ lookups
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
        want = parts[:-1]
        if not want:
            return None
        for up, idx in self.indexes.items():
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
        parts = self.unalias(parts)
        for up, idx in self.indexes.items():
            path = idx.modules.get(".".join(parts))
            if path is not None:
                return up, path
        return None

    def member_of(self, container: str, name: str) -> list[tuple[str, Def]]:
        """(upstream, definition) of `name` as a member of `container` (typedef names
        followed), in every upstream."""
        out = []
        for up, idx in self.indexes.items():
            owners = {container, idx.aliases.get(container, container)}
            out.extend((up, d) for d in idx.lookup(name) if d.container in owners)
        return out

    # ------------------------------------------------------------------ resolve
    def _scoped(self, ref: Ref, scope: Scope | None, levels: tuple[str, ...]) -> Hit | None | str:
        """The member `ref.name` of the one container a scope level names; "ambiguous"
        when two containers of the nearest level that has it both have it."""
        if scope is None:
            return None
        for level, names in scope.levels:
            if level not in levels:
                continue
            owners: dict[str, list[tuple[str, Def]]] = {}
            for c in names:
                if c == ref.name:
                    continue        # the class itself, not its constructor
                got = self.member_of(c, ref.name)
                if got:
                    owners.setdefault(got[0][1].container or c, []).extend(got)
            if len(owners) == 1:
                (items,) = owners.values()
                up = items[0][0]
                return Hit(ref, up, tuple(d for u, d in items if u == up), f"scope:{level}")
            if len(owners) > 1:
                scope.ambiguous.append(
                    f"`{ref.span}`: `{ref.name}` is a member of "
                    + " and ".join(f"`{o}`" for o in sorted(owners))
                    + f", which its {level} both name: not guessed")
                return "ambiguous"
        return None

    def _names_known_type(self, receiver: str) -> bool:
        """The receiver variable is named after a type the lesson names or cites
        (`data` ~ `mjData`, `state` ~ `State`)."""
        r = norm(receiver)
        words = {r} | ({norm(receiver.rsplit("_", 1)[1])} if "_" in receiver.strip("_") else set())
        return any(norm(c) in words or norm(c) in {"mj" + w for w in words}
                   for c in (*self.context_containers, *self.cited_types))

    @staticmethod
    def _out_of_line(idx: UpstreamIndex, d: Def) -> bool:
        return (d.lang == "cpp" and len(d.qual) >= 2 and d.kind in CALLABLES
                and any(x.kind in ("class", "struct") for x in idx.lookup(d.qual[-2])))

    def resolve(self, ref: Ref, scope: Scope | None = None) -> Hit | None:
        parts = self.unalias(ref.parts)
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
            if parts[-2][:1].isupper() or "::" in ref.span or parts[0] != ref.parts[0]:
                return None
            # `data.qpos`, `plant.GetPositions(context)`: a receiver variable
            hit = self._receiver(parts)
            if hit is not None:
                defs = hit[1]
                if scope is not None and len({d.container for d in defs}) > 1:
                    # `pipeline.collide(...)` in a sentence naming `CollisionPipeline`
                    named = {c for _, cs in scope.levels for c in cs}
                    defs = tuple(d for d in defs if d.container in named) or defs
                return Hit(ref, hit[0], defs, "receiver")
            if self._names_known_type(parts[-2]):
                # `data.qpos0` where the lesson's `data` is an `mjData`, which has no
                # `qpos0`: not another type's member (attribution judges it)
                return None
        near = ("sentence", "table")
        if not distinctive(name):
            got = self._scoped(ref, scope, near + ("section", "paragraphs"))
            if got == "ambiguous":
                return None
            if got is not None:
                return got
        # a bare name: top-level definitions, else members of a container its context
        # names, else of the one container that has it
        for up, idx in self.indexes.items():
            defs = idx.lookup(name)
            if not defs:
                continue
            # (an out-of-line C++ definition `void Simulator<T>::Initialize()` has no
            # enclosing class scope in its file, but is a member: not top-level)
            top = tuple(d for d in defs if d.owner_kind in (None, "namespace", "module")
                        and d.kind != "import" and not self._out_of_line(idx, d))
            if top and (distinctive(name)
                        or ref.call and any(d.kind in CALLABLES | {"class"} for d in top)
                        or any(d.kind in TYPES | CALLABLES for d in top) and name[:1].isupper()):
                return Hit(ref, up, top, "top")
            enums = tuple(d for d in defs if d.kind == "enumerator")
            if enums and distinctive(name):
                return Hit(ref, up, enums, "top")
        got = self._scoped(ref, scope, near + ("section", "paragraphs")) if distinctive(name) else None
        if got == "ambiguous":
            return None
        if got is not None:
            return got
        ctx = Scope([("lesson", self.context_containers)], scope.ambiguous if scope else [])
        got = self._scoped(ref, ctx, ("lesson",))
        if got == "ambiguous":
            return None
        if got is not None:
            return Hit(ref, got.upstream, got.defs, "context")
        for up, idx in self.indexes.items():
            defs = idx.lookup(name)
            if not defs:
                continue
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
            if imports and distinctive(name):
                return Hit(ref, up, imports, "top")
        return None
