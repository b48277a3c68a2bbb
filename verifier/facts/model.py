"""Static facts of one upstream file: a flat, ordered list of symbols.

Extractors (`facts/c.py`, `facts/cpp.py`, `facts/python.py`) turn a file's
bytes into `FileFacts`; the result depends only on the bytes, so it is cached
by blob SHA (`cached_facts`) and a persistent cache can key on the blob too.
Line numbers are 1-based and inclusive.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class Param:
    name: str
    default: str | None = None      # source text of the default, when any
    type: str | None = None


@dataclass(frozen=True)
class Sym:
    """A named thing in a file. `qual` is its scope path plus its own name.

    kinds: function, method, constructor, class, struct, union, enum, enumerator,
    field, variable, attribute, import, macro, typedef, namespace, module"""

    name: str
    kind: str
    qual: tuple[str, ...]
    start: int
    end: int
    params: tuple[Param, ...] | None = None
    value: str | None = None         # enumerator/macro value, field/variable default, alias target
    decorators: tuple[str, ...] = ()
    origin: str | None = None        # e.g. 'pybind11' for names exported by bindings
    sig_end: int | None = None       # last line of a callable's parameter list

    @property
    def head(self) -> tuple[int, int]:
        """Lines of the declaration head (a callable's signature), else the whole symbol."""
        return self.start, self.sig_end or self.end


@dataclass
class FileFacts:
    path: str
    blob: str | None
    lang: str
    syms: list[Sym] = field(default_factory=list)
    exports: list[str] | None = None         # Python `__all__`, in order
    exports_lines: tuple[int, int] | None = None
    parse_errors: int = 0

    # plain data for the fact cache (verifier/facts/cache.py): positional rows in field order
    def to_plain(self) -> dict:
        return {"path": self.path, "blob": self.blob, "lang": self.lang,
                "syms": [_sym_row(s) for s in self.syms], "exports": self.exports,
                "exports_lines": self.exports_lines, "parse_errors": self.parse_errors}

    @classmethod
    def from_plain(cls, d: dict) -> "FileFacts":
        lines = d["exports_lines"]
        return cls(path=d["path"], blob=d["blob"], lang=d["lang"],
                   syms=[_sym_of(r) for r in d["syms"]], exports=d["exports"],
                   exports_lines=tuple(lines) if lines is not None else None,
                   parse_errors=d["parse_errors"])

    def children(self, owner: Sym | tuple[str, ...]) -> list[Sym]:
        q = owner.qual if isinstance(owner, Sym) else owner
        return [s for s in self.syms if len(s.qual) == len(q) + 1 and s.qual[:len(q)] == q]

    def find(self, parts: list[str] | tuple[str, ...], *, kinds: set[str] | None = None,
             transparent: set[str] | None = None) -> list[Sym]:
        """Symbols whose qualified name ends with `parts`; the scopes left over
        in front must all be `transparent` kinds (C++ namespaces, Python module)."""
        parts = tuple(parts)
        scope_kind = {s.qual: s.kind for s in self.syms}
        out = []
        for s in self.syms:
            if kinds and s.kind not in kinds:
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


_SYM_FIELDS = tuple(f.name for f in fields(Sym))


def _sym_row(s: Sym) -> list:
    row = [getattr(s, f) for f in _SYM_FIELDS]
    if s.params is not None:
        row[_SYM_FIELDS.index("params")] = [[p.name, p.default, p.type] for p in s.params]
    return row


def _sym_of(row: list) -> Sym:
    d = dict(zip(_SYM_FIELDS, row, strict=True))
    d["qual"] = tuple(d["qual"])
    d["decorators"] = tuple(d["decorators"])
    if d["params"] is not None:
        d["params"] = tuple(Param(*p) for p in d["params"])
    return Sym(**d)


def split_symbol(symbol: str) -> list[str]:
    """`a.b.c`, `A::B`, `Accelerometer<T>::Accelerometer` -> parts without template args."""
    s = re.sub(r"<[^<>]*>", "", symbol.strip())
    s = re.sub(r"<[^<>]*>", "", s)
    s = s.replace("::", ".")
    s = re.sub(r"\(.*\)$", "", s)     # `mj_step()` -> mj_step
    return [p for p in s.split(".") if p]


_CACHE: dict[tuple[str, str, str], FileFacts] = {}


def cached_facts(extractor: str, path: str, blob: str | None, data: bytes,
                 build: Callable[[], FileFacts]) -> FileFacts:
    """Facts of a blob, built once per process (keyed by extractor, blob and path)."""
    if not blob:
        return build()
    key = (extractor, blob, path)
    if key not in _CACHE:
        _CACHE[key] = build()
    return _CACHE[key]
