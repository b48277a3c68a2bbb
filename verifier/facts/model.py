"""The fact model: one typed, frozen record per upstream file (`FileFacts`).

Producers (all give the same record type, held to the same tests):
- static extraction from source: `facts/python.py` (ast), `facts/c.py` and
  `facts/cpp.py` (tree-sitter, `facts/cfamily.py`), pybind11 exports in `cpp.py`;
- the pinned release's public surface where the source is unavailable:
  `facts/release.py` (the wheel's `.pyi` stubs through the Python extractor, and
  introspection of the modules in the upstream's pinned runtime environment).

A record depends only on the bytes it was built from (and the path), so it is
cached by blob SHA (`facts/extract.py`, through `facts/cache.py`) in its plain
form (`to_plain` / `from_plain`: JSON-like data only). Line numbers are 1-based
and inclusive; a record from introspection has no lines (0).

Consumers: the claim kinds (`claims/kinds/_lookup.py`: `find`, `children`),
lint's symbol index (`facts/symbols.py`, a projection of these records) and
resolver, upgrade's relocation (`Sym.start/end`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from verifier.facts import names

# Param.kind: how an argument binds (Python's inspect.Parameter kinds; C/C++ and
# pybind parameters are positional_or_keyword, a C `...` is var_positional).
POSITIONAL_ONLY = "positional_only"
POSITIONAL_OR_KEYWORD = "positional_or_keyword"
VAR_POSITIONAL = "var_positional"
KEYWORD_ONLY = "keyword_only"
VAR_KEYWORD = "var_keyword"

# Names an upstream declares as string literals (a Drake system's port names,
# `DeclareVectorInputPort("u", ...)`; attribute names registered by string,
# `CustomAttribute(name="x")`): API names, but not definitions. `children`
# and `find` leave them out unless asked for by kind, so a struct's or class's
# member list is what it was.
LITERAL_KINDS = frozenset({"port", "registered"})


@dataclass(frozen=True)
class Param:
    name: str                       # `*args` / `**kwargs` keep their stars
    default: str | None = None      # source text of the default, when any
    type: str | None = None         # annotation / declared type text
    kind: str | None = None         # POSITIONAL_ONLY ... VAR_KEYWORD (None: not known)
    line: int | None = None         # the parameter's own line, when known


@dataclass(frozen=True)
class Sym:
    """A named thing in a file. `qual` is its scope path plus its own name.

    kinds: function, method, constructor, destructor, class, struct, union, enum,
    enumerator, field, variable, attribute, import, macro, typedef, namespace,
    module, port / registered (names declared by a string literal)

    `traits` (Python; both producers, `facts/python.py` and `facts/introspect.py`, use
    the same words, `TRAITS`): a class's flavour (`dataclass`, `pydantic`, `attrs`,
    `namedtuple`, `typeddict`, `enum`, `flag`) and options (`kw_only`, `frozen`,
    `slots`, `no_init`); a field's `kw_only`, `initvar`, `no_init`, `factory`,
    `not_required`; an attribute's `classvar`, `slot`, `property`, `cached_property`,
    `settable`; a method's `overload`, `staticmethod`, `classmethod`, `validator`; an
    enumerator's `auto`; a module-level name's `lazy` (served by `__getattr__`);
    `generated` on a constructor no source line defines (its parameters come from
    the fields; `open_bases` when a base class is not known from the file),
    `inherited` on a runtime member its class does not define itself."""


    name: str
    kind: str
    qual: tuple[str, ...]
    start: int
    end: int
    params: tuple[Param, ...] | None = None
    value: str | None = None         # enumerator/macro value, field/variable default, alias target
    decorators: tuple[str, ...] = ()
    origin: str | None = None        # 'pybind11' (bindings), '__init__'/'self' (self.x), 'literal'
    sig_end: int | None = None       # last line of a callable's parameter list
    doc: str | None = None           # docstring / doc comment attached to the declaration
    line: int | None = None          # the line of the name itself, when not `start`
    #                                  (a decorated definition, a multi-line declaration)
    traits: tuple[str, ...] = ()     # Python constructs (TRAITS): how the name was declared

    @property
    def name_line(self) -> int:
        return self.line or self.start

    @property
    def head(self) -> tuple[int, int]:
        """Lines of the declaration head (a callable's signature), else the whole symbol."""
        return self.start, self.sig_end or self.end

    @property
    def flavour(self) -> str | None:
        """A Python class's flavour (`dataclass`, `pydantic`, `attrs`, `namedtuple`,
        `typeddict`, `enum`), None for a plain class and every other symbol."""
        return next((t for t in self.traits if t in FLAVOURS), None)

    @property
    def parent(self) -> tuple[str, ...]:
        """Qualified name of the enclosing scope (() at top level)."""
        return self.qual[:-1]


TRAITS = frozenset({
    # class flavours: a generated constructor (`GENERATED_INIT`), fields, members
    "dataclass", "pydantic", "attrs", "namedtuple", "typeddict", "enum", "flag",
    # class and field options
    "kw_only", "frozen", "slots", "no_init", "initvar", "factory", "not_required",
    # attributes
    "classvar", "slot", "property", "cached_property", "settable",
    # callables
    "overload", "staticmethod", "classmethod", "validator", "generated", "open_bases",
    # enumerators, module names, runtime-only
    "auto", "lazy", "inherited"})
# flavours whose constructor is generated from the fields
GENERATED_INIT = frozenset({"dataclass", "pydantic", "attrs", "namedtuple"})
FLAVOURS = frozenset({"dataclass", "pydantic", "attrs", "namedtuple", "typeddict", "enum"})


@dataclass(frozen=True)
class Import:
    """A module-level import: `bound` is the name it binds in the module (None for
    a star import); `module` as written, relative dots removed into `level`;
    `name` the imported attribute (`from m import name`), None for `import m`."""

    bound: str | None
    module: str
    name: str | None
    level: int
    line: int


@dataclass(frozen=True)
class FileFacts:
    path: str
    blob: str | None
    lang: str
    syms: tuple[Sym, ...] = ()
    exports: tuple[str, ...] | None = None   # Python `__all__`, in order
    exports_lines: tuple[int, int] | None = None
    parse_errors: int = 0
    module: str | None = None                # Python: module name by path (names.module_name)
    imports: tuple[Import, ...] = ()         # Python: module-level imports, star imports too
    producer: str = "source"                 # source | stub | introspection
    doc: str | None = None                   # Python: the module docstring

    def __post_init__(self) -> None:
        # accept lists from older callers; the record itself is immutable
        for name in ("syms", "exports", "imports"):
            v = getattr(self, name)
            if isinstance(v, list):
                object.__setattr__(self, name, tuple(v))

    @property
    def star_imports(self) -> tuple[Import, ...]:
        return tuple(i for i in self.imports if i.bound is None)

    @cached_property
    def _scope_kind(self) -> dict[tuple[str, ...], str]:
        out: dict[tuple[str, ...], str] = {}
        for s in self.syms:
            out.setdefault(s.qual, s.kind)
        return out

    @cached_property
    def _by_name(self) -> dict[str, list[Sym]]:
        out: dict[str, list[Sym]] = {}
        for s in self.syms:
            out.setdefault(s.name, []).append(s)
        return out

    def children(self, owner: Sym | tuple[str, ...], *,
                 kinds: Iterable[str] | None = None) -> list[Sym]:
        """Direct members of `owner` in source order; literal-declared names
        (`LITERAL_KINDS`) only when `kinds` asks for them."""
        q = owner.qual if isinstance(owner, Sym) else tuple(owner)
        want = set(kinds) if kinds is not None else None
        return [s for s in self.syms if len(s.qual) == len(q) + 1 and s.qual[:len(q)] == q
                and (s.kind in want if want is not None else s.kind not in LITERAL_KINDS)]

    def find(self, parts: list[str] | tuple[str, ...], *, kinds: set[str] | None = None,
             transparent: set[str] | None = None) -> list[Sym]:
        """Symbols whose qualified name ends with `parts`; the scopes left over
        in front must all be `transparent` kinds (C++ namespaces, Python module).
        Literal-declared names (`LITERAL_KINDS`) only when `kinds` names them."""
        parts = tuple(parts)
        if not parts:
            return []
        scope_kind = self._scope_kind
        out = []
        for s in self._by_name.get(parts[-1], ()):
            if kinds is not None and kinds and s.kind not in kinds:
                continue
            if not kinds and s.kind in LITERAL_KINDS:
                continue
            if len(s.qual) < len(parts) or s.qual[len(s.qual) - len(parts):] != parts:
                continue
            lead = s.qual[:len(s.qual) - len(parts)]
            if lead and transparent is not None:
                if not all(scope_kind.get(lead[:i + 1], "namespace") in transparent
                           for i in range(len(lead))):
                    continue
            out.append(s)
        # the shortest qualification first, then source order
        return sorted(out, key=lambda s: (len(s.qual), s.start))

    # ------------------------------------------------------------------ plain form
    def to_plain(self) -> dict[str, Any]:
        """JSON-like data only (str/int/None/lists/dicts); `from_plain` inverts it."""
        return {
            "v": PLAIN_VERSION, "path": self.path, "blob": self.blob, "lang": self.lang,
            "syms": [_sym_plain(s) for s in self.syms],
            "exports": list(self.exports) if self.exports is not None else None,
            "exports_lines": list(self.exports_lines) if self.exports_lines else None,
            "parse_errors": self.parse_errors, "module": self.module,
            "imports": [[i.bound, i.module, i.name, i.level, i.line] for i in self.imports],
            "producer": self.producer, "doc": self.doc,
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> "FileFacts":
        if not isinstance(data, dict) or data.get("v") != PLAIN_VERSION:
            raise ValueError("not a FileFacts plain record of this version")
        el = data.get("exports_lines")
        return cls(path=data["path"], blob=data["blob"], lang=data["lang"],
                   syms=tuple(_sym_from(x) for x in data["syms"]),
                   exports=tuple(data["exports"]) if data.get("exports") is not None else None,
                   exports_lines=(el[0], el[1]) if el else None,
                   parse_errors=data.get("parse_errors", 0), module=data.get("module"),
                   imports=tuple(Import(*x) for x in data.get("imports", ())),
                   producer=data.get("producer", "source"), doc=data.get("doc"))


PLAIN_VERSION = 3


def _sym_plain(s: Sym) -> list:
    params = None if s.params is None else [[p.name, p.default, p.type, p.kind, p.line]
                                            for p in s.params]
    return [s.name, s.kind, list(s.qual), s.start, s.end, params, s.value, list(s.decorators),
            s.origin, s.sig_end, s.doc, s.line, list(s.traits)]


def _sym_from(x: list) -> Sym:
    name, kind, qual, start, end, params, value, decos, origin, sig_end, doc, line, traits = x
    return Sym(name, kind, tuple(qual), start, end,
               None if params is None else tuple(Param(*p) for p in params),
               value, tuple(decos), origin, sig_end, doc, line, tuple(traits))


def split_symbol(symbol: str) -> list[str]:
    """`a.b.c`, `A::B`, `Accelerometer<T>::Accelerometer` -> parts without template
    args (`names.split_symbol`, as a list for the claim kinds)."""
    return list(names.split_symbol(symbol))
