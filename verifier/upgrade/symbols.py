"""Definitions in a file with their line spans (tree-sitter), for the symbol
fallback: when cited lines cannot be aligned, the symbol that holds them is
found again in the new version and the range is suggested relative to it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from verifier.facts import treesitter as ts

_PY = {"function_definition", "class_definition"}
_C = {"function_definition", "struct_specifier", "class_specifier", "enum_specifier",
      "union_specifier", "type_definition", "declaration", "field_declaration"}
_NAME_TYPES = {"identifier", "field_identifier", "type_identifier", "qualified_identifier",
               "destructor_name", "operator_name", "template_function"}


@dataclass(frozen=True)
class Symbol:
    name: str          # qualified: Class.method (Python), Outer::Inner / function (C, C++)
    start: int         # 1-based, inclusive (decorators included)
    end: int


def _c_name(node) -> str | None:
    """Name of a C/C++ definition node (function, struct, typedef, prototype)."""
    if node.type in ("struct_specifier", "class_specifier", "enum_specifier", "union_specifier"):
        n = node.child_by_field_name("name")
        return ts.text(n) if n is not None and node.child_by_field_name("body") is not None else None
    decl = node.child_by_field_name("declarator")
    if node.type in ("declaration", "field_declaration"):
        # only function prototypes count; variables are too fine-grained
        probe = decl
        while probe is not None and probe.type not in ("function_declarator",):
            probe = probe.child_by_field_name("declarator")
        if probe is None:
            return None
        decl = probe
    while decl is not None and decl.type not in _NAME_TYPES:
        nxt = decl.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in decl.named_children if c.type in _NAME_TYPES), None)
        decl = nxt
    return ts.text(decl) if decl is not None else None


_CACHE: dict[tuple[str, str], list[Symbol]] = {}


def symbols(path: str, data: bytes) -> list[Symbol]:
    """Definitions of a file (memoised per path and content)."""
    key = (path, hashlib.sha1(data).hexdigest())
    if key not in _CACHE:
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = _symbols(path, data)
    return _CACHE[key]


def _symbols(path: str, data: bytes) -> list[Symbol]:
    lang = ts.language_for(path, data)
    if lang is None:
        return []
    try:
        tree = ts.parse(lang, data)
    except Exception:  # noqa: BLE001 - an unparsable file simply has no symbols
        return []
    out: list[Symbol] = []
    sep = "." if lang == "python" else "::"

    def walk(node, scope: tuple[str, ...]) -> None:
        for child in node.children:
            name = None
            span_node = child
            if lang == "python" and child.type in _PY:
                n = child.child_by_field_name("name")
                name = ts.text(n) if n is not None else None
                if child.parent is not None and child.parent.type == "decorated_definition":
                    span_node = child.parent
            elif lang != "python" and child.type in _C:
                name = _c_name(child)
            if name:
                q = sep.join((*scope, name))
                out.append(Symbol(q, span_node.start_point[0] + 1, span_node.end_point[0] + 1))
                walk(child, (*scope, name))
            else:
                walk(child, scope)

    walk(tree.root_node, ())
    return out


def anchor(syms: list[Symbol], start: int, end: int) -> Symbol | None:
    """The symbol the cited range starts on: one that begins within its first lines
    (a comment or decorator may come first), else the innermost one holding its first
    line, else the first one beginning inside it."""
    head = [s for s in syms if start <= s.start <= min(end, start + 3)]
    if head:
        return min(head, key=lambda s: (s.start, -(s.end - s.start)))
    holding = [s for s in syms if s.start <= start <= s.end]
    if holding:
        return min(holding, key=lambda s: (s.end - s.start, s.start))
    inside = [s for s in syms if start <= s.start <= end]
    if inside:
        return min(inside, key=lambda s: (s.start, -(s.end - s.start)))
    return None


def find(syms: list[Symbol], name: str, ordinal: int = 0) -> Symbol | None:
    same = [s for s in syms if s.name == name]
    if not same:
        return None
    return same[min(ordinal, len(same) - 1)]


def ordinal_of(syms: list[Symbol], sym: Symbol) -> int:
    return [s for s in syms if s.name == sym.name].index(sym)


def suggest(old: Symbol, new: Symbol, start: int, end: int) -> tuple[int, int]:
    """The cited range placed relative to the symbol in the new version."""
    if start <= old.start and end >= old.end:          # the range covers the whole symbol
        return max(1, new.start - (old.start - start)), new.end + (end - old.end)
    s = new.start + (start - old.start)
    e = min(s + (end - start), new.end if end <= old.end else s + (end - start))
    return max(1, s), max(s, e)
