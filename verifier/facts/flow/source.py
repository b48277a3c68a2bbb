"""Parsing for flow facts: one tree-sitter parse per file, memoised by blob."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import tree_sitter

from verifier.facts import treesitter as ts

Node = tree_sitter.Node


@dataclass(eq=False)
class Source:
    path: str
    lang: str             # c | cpp | python
    data: bytes
    tree: tree_sitter.Tree
    blob: str | None = None
    functions_memo: list | None = field(default=None, repr=False)

    @property
    def root(self) -> Node:
        return self.tree.root_node


_PARSED: OrderedDict[tuple[str, str, str], Source] = OrderedDict()
_PARSED_MAX = 64


def parse_source(path: str, data: bytes | str, blob: str | None = None,
                 lang: str | None = None) -> Source:
    """Parse a file; memoised by (path's grammar, blob) when the blob is given."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    lang = lang or ts.language_for(path, data)
    if lang is None:
        raise ValueError(f"no grammar for {path} (expected .c/.h/.cc/.cpp/.hpp/.py)")
    key = (lang, blob or "", path if blob is None else "")
    if blob is not None and key in _PARSED:
        _PARSED.move_to_end(key)
        return _PARSED[key]
    src = Source(path=path, lang=lang, data=data, tree=ts.parse(lang, data), blob=blob)
    if blob is not None:
        _PARSED[key] = src
        while len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return src


def text(node: Node | None) -> str:
    return ts.text(node) if node is not None else ""


def squash(s: str) -> str:
    """Whitespace collapsed to single spaces."""
    return " ".join(s.split())


def lines_of(node: Node) -> tuple[int, int]:
    return node.start_point[0] + 1, node.end_point[0] + 1
