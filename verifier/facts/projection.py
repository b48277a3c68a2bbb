"""The symbol index's rows and their projection from the fact records.

`project_file(facts, module)` turns one `FileFacts` record into index rows
(`Symbol`), `SymbolIndex` holds an upstream's rows and answers lint's questions
(by name, module surface, members, aliases). Building an index from the source
layer is `facts/symbols.build_index`; the release surface's index is built by
`facts/release.py` from the same projection.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ConfigDict, Field, PrivateAttr

from verifier.basemodel import Model
from verifier.facts.model import FileFacts
from verifier.facts.names import module_name as path_module, resolve_relative

if TYPE_CHECKING:
    from verifier.project import Project

INDEX_VERSION = 6   # 6: cached as an SQLite database, queried by name (facts/indexdb.py)
SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cxx", ".py", ".pyi")
_CALLABLES = {"function", "method", "constructor", "macro"}
CONTAINER_KINDS = frozenset({"struct", "union", "enum", "class"})


class Symbol(NamedTuple):
    """One row of the index: a projection of one `Sym` (or of one of its parameters).

    A named tuple, not a model: an index holds 10^5 rows, and a stored index builds
    the rows a question needs from its database (`facts/indexdb.py`), about a
    microsecond each (a pydantic model: ~4 us)."""

    name: str
    kind: str
    path: str
    line: int          # 1-based (0: from introspection, no line)
    parent: str | None = None   # enclosing scope's name, or the python module
    module: str | None = None   # python module the name is bound in
    target: str | None = None   # imports: the module (and name) it comes from; typedefs: the
    #                             tag; classes: their bases as written
    lang: str | None = None     # containers (struct/union/enum/class): the file's language
    qual: tuple[str, ...] = ()  # the record's qualified name
    end: int | None = None
    evidence: str = "pinned"    # pinned | release (served from the pinned release)
    producer: str = "source"    # source | stub | introspection


class SymbolIndex(Model):
    upstream: str
    commit: str
    version: int = INDEX_VERSION
    files: dict[str, str] = Field(default_factory=dict)        # indexed path -> blob
    unavailable: list[str] = Field(default_factory=list)       # known source paths not served
    symbols: list[Symbol] = Field(default_factory=list)
    star_imports: dict[str, list[str]] = Field(default_factory=dict)  # module -> modules
    evidence: str = "pinned"                                   # pinned | release
    producers: dict[str, str] = Field(default_factory=dict)    # release: producer -> what
    notes: list[str] = Field(default_factory=list)

    _best: dict = PrivateAttr(default_factory=dict)
    _rows: Any = PrivateAttr(default=None)       # a stored index's queries (facts/indexdb.py)
    _release: Callable[[], "SymbolIndex | None"] | None = PrivateAttr(default=None)
    _release_value: "SymbolIndex | None" = PrivateAttr(default=None)
    _release_done: bool = PrivateAttr(default=False)
    _identity: str | None = PrivateAttr(default=None)

    @property
    def identity(self) -> str | None:
        """What the index was built from (its cache key: code, served paths and blobs),
        when `build_index` assembled it; None for an index built otherwise."""
        return self._identity

    def set_identity(self, identity: str) -> None:
        self._identity = identity

    @property
    def complete(self) -> bool:
        """Every source file known for the upstream was indexed (and there was one)."""
        return bool(self.files) and not self.unavailable

    def release_surface(self) -> "SymbolIndex | None":
        """The pinned release's public surface (built on first use), or None."""
        if not self._release_done:
            self._release_done = True
            self._release_value = self._release() if self._release is not None else None
        return self._release_value

    def set_release(self, loader: Callable[[], "SymbolIndex | None"] | None) -> None:
        self._release, self._release_done, self._release_value = loader, False, None

    def attach_rows(self, rows: Any) -> None:
        """Answer from a stored index's queries (`facts/indexdb.open_index`) instead of an
        in-memory row list: `symbols` is then read (all rows) only when asked for."""
        self._rows = rows
        self.__dict__.pop("symbols", None)

    def __getattr__(self, item: str) -> Any:
        if item == "symbols":
            rows = (self.__pydantic_private__ or {}).get("_rows")
            if rows is not None:
                self.__dict__["symbols"] = rows.all()
                return self.__dict__["symbols"]
        return super().__getattr__(item)

    @cached_property
    def by_name(self) -> dict[str, list[Symbol]]:
        if self._rows is not None:
            return self._rows.by_name()
        out: dict[str, list[Symbol]] = defaultdict(list)
        for s in self.symbols:
            out[s.name].append(s)
        return dict(out)

    @cached_property
    def modules(self) -> dict[str, dict[str, list[Symbol]]]:
        """python module -> name -> symbols bound at its top level."""
        if self._rows is not None:
            return self._rows.modules()
        out: dict[str, dict[str, list[Symbol]]] = defaultdict(lambda: defaultdict(list))
        for s in self.symbols:
            if s.module and (s.parent == s.module or s.kind == "module"):
                out[s.module][s.name].append(s)
        for m in list(out):  # packages a pybind module lives in (`pydrake.systems`)
            parts = m.split(".")
            for i in range(1, len(parts)):
                out[".".join(parts[:i])]
        return {m: dict(v) for m, v in out.items()}

    def module_from_source(self, module: str) -> bool:
        """The module is a Python file of the index (its bindings are all known)."""
        return any(s.path.endswith((".py", ".pyi")) for syms in
                   (self.modules.get(module) or {}).values() for s in syms)

    @cached_property
    def members(self) -> dict[str, dict[str, list[Symbol]]]:
        """container (struct/class/enum/namespace name) -> member name -> symbols."""
        if self._rows is not None:
            return self._rows.members()
        out: dict[str, dict[str, list[Symbol]]] = defaultdict(lambda: defaultdict(list))
        for s in self.symbols:
            if s.parent and s.parent != s.module and s.kind not in ("parameter", "keyword"):
                out[s.parent][s.name].append(s)
        return {m: dict(v) for m, v in out.items()}

    @cached_property
    def aliases(self) -> dict[str, str]:
        """typedef name -> struct/enum tag it names (`mjModel` -> `mjModel_`)."""
        if self._rows is not None:
            return self._rows.aliases()
        out = {}
        for s in self.symbols:
            if s.kind == "typedef" and s.target:
                out[s.name] = s.target
        return out

    def names_with_prefix(self, prefix: str) -> list[str]:
        """Names starting with `prefix`, in `by_name` order (a stored index asks its
        name index for the range instead of reading every name)."""
        if self._rows is not None:
            return self._rows.names_with_prefix(prefix)
        return [n for n in self.by_name if n.startswith(prefix)]

    def lookup(self, name: str) -> list[Symbol]:
        return self.by_name.get(name, [])

    def best(self, name: str, kinds: frozenset[str] | None = None,
             rank: dict[str, int] | None = None) -> Symbol | None:
        """The preferred row named `name` (of `kinds`): lowest `rank` of its kind
        (default 0), then path and line. Memoised per (name, kinds)."""
        key = (name, kinds)
        if key not in self._best:
            rank = rank or {}
            cands = [s for s in self.by_name.get(name, ()) if kinds is None or s.kind in kinds]
            self._best[key] = min(cands, key=lambda s: (rank.get(s.kind, 0), s.path, s.line),
                                  default=None)
        return self._best[key]

    def member(self, container: str, name: str) -> list[Symbol]:
        hits = list(self.members.get(container, {}).get(name, []))
        tag = self.aliases.get(container)
        if tag:
            hits += self.members.get(tag, {}).get(name, [])
        return hits

    def module_names(self, module: str) -> dict[str, list[Symbol]] | None:
        return self.modules.get(module)

    def definitions_in(self, path: str, start: int, end: int) -> list[Symbol]:
        if self._rows is not None:
            return self._rows.definitions_in(path, start, end)
        return [s for s in self.symbols if s.path == path and start <= s.line <= end
                and s.kind != "import"]


# --------------------------------------------------------------------------- projection


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (any(p in ("tests", "test", "testing") for p in parts[:-1])
            or name.startswith("test_") or re.search(r"_test\.(py|cc|h)$", name) is not None)


def python_module(project: "Project", upstream: str, path: str) -> str | None:
    up = project.pins.get(upstream)
    member = None
    for w in up.wheel:
        for rule in w.map:
            member = rule.to_wheel(path)
            if member:
                break
        if member:
            break
    rel = member or path
    if rel.startswith("bindings/"):
        rel = rel[len("bindings/"):]
    if not rel.endswith((".py", ".pyi")):
        return None
    return path_module(rel)


def pybind_module(path: str) -> str | None:
    """`bindings/pydrake/systems/sensors_py_accelerometer.cc` -> `pydrake.systems.sensors`."""
    m = re.match(r"^(?:bindings/)?(.+/)?([A-Za-z0-9]+(?:_[a-z0-9]+)*?)_py(?:_\w+)?\.cc$", path)
    if not m or "pydrake" not in path and "pybind" not in path:
        return None
    d = (m.group(1) or "").strip("/").replace("/", ".")
    return f"{d}.{m.group(2)}" if d else m.group(2)


def module_of(facts: FileFacts, project: "Project | None", upstream: str) -> str | None:
    """The module a file's names are bound in: Python by the wheel map, pybind11
    bindings by their file name; None for C/C++ sources."""
    if facts.lang == "python":
        mod = python_module(project, upstream, facts.path) if project is not None else None
        return mod or facts.module or path_module(facts.path)
    return pybind_module(facts.path)


def project_file(facts: FileFacts, module: str | None, *, evidence: str = "pinned"
                 ) -> tuple[list[Symbol], list[str]]:
    """The index rows of one record (and the modules its star imports name)."""
    rows: list[Symbol] = []
    prod = facts.producer

    def row(name, kind, line, parent, *, target=None, qual=(), end=None, mod=module):
        rows.append(Symbol(
            name=name, kind=kind, path=facts.path, line=line, parent=parent, module=mod,
            target=target, qual=tuple(qual), end=end, evidence=evidence, producer=prod,
            lang=facts.lang if kind in CONTAINER_KINDS else None))

    is_py = facts.lang == "python"
    stars: list[str] = []
    imports = {}
    if is_py and module:
        pkg = module.rsplit(".", 1)[0] if "." in module else None
        row(module.rsplit(".", 1)[-1], "module", 1 if prod != "introspection" else 0, pkg,
            mod=pkg or module)
        is_pkg = facts.path.endswith(("__init__.py", "__init__.pyi")) or prod == "introspection"
        for imp in facts.imports:
            src = resolve_relative(module, is_pkg, "." * imp.level + imp.module)
            if imp.bound is None:
                stars.append(src)
            else:
                imports[(imp.bound, imp.line)] = src if imp.name is None else f"{src}.{imp.name}"
    classlike = {s.name for s in facts.syms if s.kind in ("struct", "union", "enum", "class")}
    for s in facts.syms:
        top = len(s.qual) == 1
        parent = (module if (is_py or s.origin == "pybind11") and top else
                  s.qual[-2] if len(s.qual) > 1 else None)
        mod = module if (is_py or s.origin == "pybind11") else None
        target = None
        if s.kind == "import":
            target = imports.get((s.name, s.start), s.value) if top else s.value
        elif s.kind == "typedef" and s.value and (s.origin == "tag" or s.value in classlike):
            target = s.value
        elif s.kind in CONTAINER_KINDS:
            target = s.value
        row(s.name, s.kind, s.name_line, parent, target=target, qual=s.qual, end=s.end, mod=mod)
        if s.params and s.kind in _CALLABLES:
            pkind = "keyword" if s.origin == "pybind11" else "parameter"
            # a pybind keyword belongs to the class it is bound on (parent), a parameter
            # to its function
            pparent = (s.qual[-2] if len(s.qual) > 1 else module) if pkind == "keyword" else s.name
            for p in s.params:
                name = p.name.lstrip("*")
                if not name or name in ("self", "cls", "...") or not name.isidentifier():
                    continue
                row(name, pkind, p.line or s.name_line, pparent, qual=s.qual + (name,),
                    end=p.line or s.sig_end or s.end, mod=mod)
    return rows, stars
