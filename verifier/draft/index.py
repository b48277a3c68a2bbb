"""Where the pinned source defines a name: an index over the fact model.

Built from `FileFacts` (`verifier/facts`: `facts_for`, `Sym`) of every source file
the source layer serves for an upstream at pinned identity (`pinned`) or from the
pinned release (`release`); files no provider serves are not read, so a name
defined only there is simply not found (a draft is never grounded in another
version). The index is cached in the fact cache (plain data), keyed by what decides
which files are served (the pin, the lock's blobs, the configured providers and
local stores, the pinned wheels) and by this module's code closure.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from verifier.claims.kinds._parts import doc_order
from verifier.codeversion import code_version
from verifier.facts.cache import fact_cache
from verifier.facts.extract import file_facts
from verifier.facts.extract import UnsupportedLanguage, facts_for

if TYPE_CHECKING:
    from verifier.project import Project

SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cxx", ".py", ".pyi")
INDEX_FORMAT = 8
CONTAINERS = {"struct", "union", "class", "enum", "namespace"}
CALLABLES = {"function", "method", "constructor"}
_SHAPE = re.compile(r"\(\s*[A-Za-z0-9_]+\s*[x×*]\s*[A-Za-z0-9_]+\s*\)")


class Def(NamedTuple):
    """One definition: a `Sym` of one served file, flattened for the index."""

    name: str
    qual: tuple[str, ...]
    kind: str
    path: str
    start: int
    end: int
    status: str                      # pinned | release
    lang: str
    params: tuple[str, ...] | None   # parameter names of a callable
    owner_kind: str | None           # kind of the enclosing scope (struct, class, enum, ...)
    origin: str | None               # 'pybind11' for names bound by bindings
    valued: bool = False             # a field/variable with an initializer at the pin
    defaulted: tuple[str, ...] = ()  # parameters that have a default at the pin
    value: str | None = None         # an enumerator's/macro's value, a class's bases (short)
    ftype: str | None = None         # the declared type of a field/variable
    ptypes: tuple[str | None, ...] = ()   # declared types of the parameters (None: none)
    pkinds: tuple[str | None, ...] = ()   # how each parameter binds (facts.model Param.kind)
    sized: bool = False              # its doc comment states an array shape, `(nq x 1)`
    # (parameter, name) for each default that is a constant's name (`kLagged`,
    # `mujoco.mjtState.mjSTATE_CTRL.value` -> `mjSTATE_CTRL`)
    named_defaults: tuple[tuple[str, str], ...] = ()
    parts_ordered: bool = False      # its doc says which part of a 6-vector comes first

    @property
    def container(self) -> str | None:
        return self.qual[-2] if len(self.qual) > 1 else None


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\s*(?:\.|::)\s*[A-Za-z_]\w*)*")


def _constant_named(default: str | None) -> str | None:
    """The constant a default names: its last component (a Python enum's `.value`
    dropped), when the default is a dotted name and that name is not a literal."""
    if not default or not _DOTTED.fullmatch(default.strip()):
        return None
    parts = re.split(r"\s*(?:\.|::)\s*", default.strip())
    if len(parts) > 1 and parts[-1] == "value":
        parts = parts[:-1]
    last = parts[-1]
    return None if last in ("None", "True", "False", "true", "false", "nullptr", "NULL") \
        else last


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (any(p in ("tests", "test", "testing", "examples", "benchmarks") for p in parts[:-1])
            or name.startswith("test_") or re.search(r"_test\.(py|cc|h)$", name) is not None)


def _rank(d: Def) -> tuple:
    """Which of several definitions a claim should name: pinned before release files,
    declarations (headers, stubs, Python) before C/C++ sources, then by path."""
    source = d.path.endswith((".c", ".cc", ".cpp", ".cxx"))
    return (d.status != "pinned", source, d.origin is not None, len(d.path), d.path, d.start)


@dataclass
class UpstreamIndex:
    upstream: str
    defs: list[Def]
    modules: dict[str, str]                        # python module -> path
    scopes: dict[tuple[str, tuple[str, ...]], str]  # (path, qual) -> kind
    unavailable: int                               # known declaration files not served
    #                                                (headers, Python; not C/C++ sources)
    exports: dict[str, tuple[str, ...]] = field(default_factory=dict)   # path -> __all__

    presorted: bool = False

    def __post_init__(self) -> None:
        # by name, best first (the order the fact cache stores them in)
        if not self.presorted:
            self.defs.sort(key=lambda d: (d.name, _rank(d)))

    # ------------------------------------------------------------ fact cache (plain data)
    def to_plain(self) -> dict:
        return {"upstream": self.upstream, "unavailable": self.unavailable,
                "defs": [[*d[:8], list(d.params) if d.params is not None else None, d.owner_kind,
                          d.origin, d.valued, list(d.defaulted), d.value, d.ftype,
                          list(d.ptypes), list(d.pkinds), d.sized,
                          [list(x) for x in d.named_defaults], d.parts_ordered]
                         for d in self.defs],
                "modules": self.modules,
                "namespaces": [[p, list(q)] for (p, q), k in self.scopes.items()
                               if k == "namespace"],
                "exports": {p: list(v) for p, v in self.exports.items()}}

    @classmethod
    def from_plain(cls, d: dict) -> "UpstreamIndex":
        defs = [Def(r[0], tuple(r[1]), r[2], r[3], r[4], r[5], r[6], r[7],
                    tuple(r[8]) if r[8] is not None else None, r[9], r[10], bool(r[11]),
                    tuple(r[12]), r[13], r[14], tuple(r[15]), tuple(r[16]), bool(r[17]),
                    tuple(tuple(x) for x in r[18]), bool(r[19]))
                for r in d["defs"]]
        return cls(str(d["upstream"]), defs, dict(d["modules"]),
                   {(p, tuple(q)): "namespace" for p, q in d["namespaces"]},
                   int(d["unavailable"]), {p: tuple(v) for p, v in d["exports"].items()},
                   presorted=True)

    @cached_property
    def by_name(self) -> dict[str, list[Def]]:
        out: dict[str, list[Def]] = defaultdict(list)
        for d in self.defs:          # sorted by (name, rank): each list is best first
            out[d.name].append(d)
        return dict(out)

    @cached_property
    def by_container(self) -> dict[str, list[Def]]:
        """container simple name (and typedef alias) -> its member definitions."""
        out: dict[str, list[Def]] = defaultdict(list)
        for d in self.defs:
            if d.container and d.owner_kind in CONTAINERS - {"namespace"}:
                out[d.container].append(d)
        return dict(out)

    @cached_property
    def aliases(self) -> dict[str, str]:
        """C typedef name -> the struct/enum it names (`mjData` -> `mjData_`)."""
        out = {}
        tags = {d.name for d in self.defs if d.kind in ("struct", "union", "enum", "class")}
        for d in self.defs:
            if d.kind == "typedef":
                for cand in (d.name + "_", "_" + d.name, d.name.removesuffix("_t")):
                    if cand in tags and cand != d.name:
                        out[d.name] = cand
        return out

    @cached_property
    def by_path(self) -> dict[str, list[Def]]:
        out: dict[str, list[Def]] = defaultdict(list)
        for d in self.defs:
            out[d.path].append(d)
        return dict(out)

    @cached_property
    def by_kind(self) -> dict[str, list[Def]]:
        out: dict[str, list[Def]] = defaultdict(list)
        for d in self.defs:
            out[d.kind].append(d)
        return dict(out)

    def lookup(self, name: str) -> list[Def]:
        return self.by_name.get(name, [])

    def lookup_kind(self, kind: str) -> list[Def]:
        """Every definition of one kind (`enumerator`, `port`), best first per name."""
        return self.by_kind.get(kind, [])

    def members(self, container: str) -> list[Def]:
        hits = list(self.by_container.get(container, []))
        tag = self.aliases.get(container)
        if tag:
            hits += self.by_container.get(tag, [])
        return hits

    @cached_property
    def module_of(self) -> dict[str, str]:
        """path -> the Python module it is (the inverse of `modules`: its full dotted
        name, not the shorter trailing aliases `mjx` for `mujoco.mjx`)."""
        out: dict[str, str] = {}
        for mod, path in sorted(self.modules.items(), key=lambda kv: (-len(kv[0]), kv[0])):
            out.setdefault(path, mod)
        return out

    def exported(self, name: str) -> Def | None:
        """The definition a Python package's public name stands for: `newton.State` is
        the class `from ._src.sim import State` in `newton/__init__.py` leads to (import
        chains followed through each module), when the shallowest package that imports
        the name leads to one definition."""
        inits = sorted({d.path for d in self.lookup(name) if d.kind == "import"
                        and len(d.qual) == 1 and d.path.endswith("__init__.py")},
                       key=lambda p: (p.count("/"), p))
        if not inits:
            return None
        return self._follow(inits[0], name, 0)

    def _follow(self, path: str, name: str, depth: int) -> Def | None:
        here = [d for d in self.by_path.get(path, []) if d.name == name and len(d.qual) == 1]
        own = [d for d in here if d.kind != "import"]
        if own:
            return own[0]
        imp = [d for d in here if d.kind == "import" and d.value]
        if not imp or depth > 6:
            return None
        mod, _, attr = imp[0].value.rpartition(".")
        here_mod = self.module_of.get(path)
        if here_mod is None:
            return None
        if mod.startswith("."):
            level = len(mod) - len(mod.lstrip("."))
            pkg = here_mod if path.endswith("__init__.py") else here_mod.rpartition(".")[0]
            for _ in range(level - 1):
                pkg = pkg.rpartition(".")[0]
            mod = f"{pkg}.{mod.lstrip('.')}" if mod.lstrip(".") else pkg
        target = self.modules.get(mod)
        if target is None:
            return None
        return self._follow(target, attr, depth + 1)

    def symbol(self, d: Def) -> str:
        q = list(d.qual)
        if d.lang != "python":
            while len(q) > 1 and self.scopes.get((d.path, tuple(d.qual[:len(d.qual) - len(q) + 1]))) \
                    == "namespace":
                q = q[1:]
        return ".".join(q)


def _module_of(project: "Project", upstream: str, path: str) -> str | None:
    if not path.endswith((".py", ".pyi")):
        return None
    rel = path
    for w in project.pins.get(upstream).wheel:
        for rule in w.map:
            member = rule.to_wheel(path)
            if member:
                rel = member
                break
        else:
            continue
        break
    mod = rel.rsplit(".", 1)[0].replace("/", ".")
    return mod.removesuffix(".__init__")


def _build(project: "Project", upstream: str, files: list) -> UpstreamIndex:
    defs: list[Def] = []
    modules: dict[str, str] = {}
    aliases: dict[str, list[str]] = {}
    exports: dict[str, tuple[str, ...]] = {}
    scopes: dict[tuple[str, tuple[str, ...]], str] = {}
    store = project.store
    layer = project.sources
    for sf in files:
        def build(sf=sf):
            data = layer.read(sf)
            if data is None:
                raise ValueError(f"{sf.path}: not served")
            return facts_for(sf.path, data.decode("utf-8", "replace"), sf.blob)
        try:
            facts = file_facts(store, sf.path, sf.blob, build)
        except (UnsupportedLanguage, UnicodeDecodeError, ValueError, RecursionError):
            continue
        mod = _module_of(project, upstream, sf.path)
        if mod and (mod not in modules or sf.path.endswith(".py")):
            modules[mod] = sf.path
        if mod:     # `mjx/mujoco/mjx/__init__.py` is imported as `mujoco.mjx` (or `mjx`)
            parts = mod.split(".")
            for i in range(1, len(parts)):
                aliases.setdefault(".".join(parts[i:]), []).append(sf.path)
        kinds = {s.qual: s.kind for s in facts.syms}
        if facts.exports is not None:
            exports[sf.path] = tuple(facts.exports)
        for s in facts.syms:
            scopes[(sf.path, s.qual)] = s.kind
        for s in facts.syms:
            if not s.name or s.name.startswith("__") and s.name != "__init__":
                continue
            owner = kinds.get(s.qual[:-1]) if len(s.qual) > 1 else None
            params = tuple(p.name for p in s.params) if s.params is not None else None
            # a stub's `= ...` is no default value to compare with
            defaulted = tuple(p.name for p in s.params or ()
                              if p.default is not None and p.default.strip() != "...")
            fields = s.kind in ("field", "variable", "attribute")
            ftype = s.params[0].type if fields and s.params else None
            value = s.value if s.kind in ("enumerator", "macro", "class", "struct",
                                          "import") else None
            defs.append(Def(s.name, tuple(s.qual), s.kind, sf.path, s.start, s.end,
                            sf.status.value, facts.lang, params, owner, s.origin,
                            s.value is not None, defaulted,
                            value[:160] if value else None, ftype[:160] if ftype else None,
                            tuple(p.type for p in s.params) if s.params and not fields else (),
                            tuple(p.kind for p in s.params) if s.params and not fields else (),
                            bool(fields and s.doc and _SHAPE.search(s.doc)),
                            () if fields else tuple(
                                (p.name, n) for p in s.params or ()
                                if (n := _constant_named(p.default)) is not None),
                            doc_order(s.doc) is not None))
    for alias, paths in aliases.items():
        if alias not in modules and len(set(paths)) == 1:
            modules[alias] = paths[0]
    return UpstreamIndex(upstream, defs, modules, scopes, 0, exports)


def _key(project: "Project", upstream: str) -> str:
    """What decides which files are served for an upstream: the pin, the lock's blobs,
    the providers and local stores configured, the wheels pinned. (Resolving every
    known file to key on served blobs re-hashes each blob: seconds per run.)"""
    up = project.pins.get(upstream)
    cfg = project.config
    h = hashlib.sha1()
    for part in (up.commit, *up.also, json.dumps([w.model_dump() for w in up.wheel],
                                                 sort_keys=True, default=str),
                 json.dumps(project.lock.upstream[upstream].model_dump(), sort_keys=True)
                 if upstream in project.lock.upstream else "-",
                 ",".join(cfg.providers), str(cfg.offline),
                 json.dumps(cfg.mirrors.get(upstream, []), sort_keys=True),
                 json.dumps(cfg.objects, sort_keys=True)):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def upstream_index(project: "Project", upstream: str) -> UpstreamIndex:
    version = code_version(__name__) + f"-{INDEX_FORMAT}"   # this module's import closure
    fc = fact_cache(project.store)

    def build() -> UpstreamIndex:
        layer = project.sources
        paths = [p for p in layer.known_paths(upstream)
                 if p.endswith(SOURCE_SUFFIXES) and not is_test_path(p)]
        files = [sf for sf in layer.resolve_many([(upstream, p) for p in paths])
                 if sf.status.usable and sf.blob]
        files.sort(key=lambda sf: sf.path)
        idx = _build(project, upstream, files)
        served = {sf.path for sf in files}
        idx.unavailable = sum(1 for p in paths if p not in served
                              and not p.endswith((".c", ".cc", ".cpp", ".cxx")))
        return idx

    key, query = _key(project, upstream), {"upstream": upstream}
    hit = fc.get("draftindex", version, key, query)
    if hit is not None:
        try:
            return UpstreamIndex.from_plain(hit)
        except (TypeError, ValueError, KeyError, IndexError):
            pass                    # signed but not an index: build it again
    idx = build()
    fc.put("draftindex", version, key, idx.to_plain(), query)
    return idx


_MEMO: dict[tuple[int, str], tuple["Project", UpstreamIndex]] = {}


def index_for(project: "Project", upstream: str) -> UpstreamIndex:
    """The index of an upstream, once per project object."""
    key = (id(project), upstream)
    hit = _MEMO.get(key)
    if hit is None or hit[0] is not project:
        hit = _MEMO[key] = (project, upstream_index(project, upstream))
    return hit[1]
