"""tree-sitter plumbing shared by every extractor: languages, parsers, queries
(kept in `queries/*.scm`), and the MuJoCo `MJAPI` pitfall.

Measured pitfalls (shared/notes/perf-anchors.md): tree-sitter-c chokes on
`MJAPI`-prefixed declarations (blank the macro to the same length so byte
offsets stay put); C++ headers must not be parsed as C."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

import tree_sitter
import tree_sitter_c
import tree_sitter_cpp
import tree_sitter_python

_LANGS = {"c": tree_sitter_c.language, "cpp": tree_sitter_cpp.language,
          "python": tree_sitter_python.language}

# Export/attribute macros that precede declarations and confuse the grammars.
_BLANK = re.compile(rb"\b(MJAPI|MJLOCAL|MJRAPI|MJUIAPI|DRAKE_DEPRECATED_ATTR|mjPRINTFLIKE\([^)]*\))")


@cache
def language(name: str) -> tree_sitter.Language:
    return tree_sitter.Language(_LANGS[name]())


@cache
def parser(name: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(language(name))


@cache
def query(lang: str, name: str) -> tree_sitter.Query:
    """Load `queries/<name>.scm` for `lang`."""
    text = resources.files("verifier.facts").joinpath("queries", f"{name}.scm").read_text()
    return tree_sitter.Query(language(lang), text)


def _pos(n: tree_sitter.Node) -> tuple[int, int]:
    return n.start_byte, n.end_byte


def captures(lang: str, name: str, node: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """Captures by name, each list in document order. (py-tree-sitter returns the
    same set in an order that varies from one process to the next: measured on a
    Drake bindings file, three runs gave three orders.)"""
    caps = tree_sitter.QueryCursor(query(lang, name)).captures(node)
    return {k: sorted(v, key=_pos) for k, v in sorted(caps.items())}


def matches(lang: str, name: str, node: tree_sitter.Node):
    """Matches in document order of their first captured node (see `captures`)."""
    got = tree_sitter.QueryCursor(query(lang, name)).matches(node)

    def key(m):
        pos = sorted(_pos(n) for ns in m[1].values() for n in ns)
        return (pos[0] if pos else (0, 0), m[0], pos)

    return sorted(got, key=key)


def blank_macros(data: bytes) -> bytes:
    """Replace export macros with spaces of the same length (offsets unchanged)."""
    return _BLANK.sub(lambda m: b" " * len(m.group(0)), data)


def language_for(path: str, data: bytes | None = None) -> str | None:
    """Grammar for a repo path. `.h` is C unless it looks like C++."""
    p = path.lower()
    if p.endswith((".py", ".pyi")):
        return "python"
    if p.endswith((".cc", ".cpp", ".cxx", ".hpp", ".hh", ".inc")):
        return "cpp"
    if p.endswith(".c"):
        return "c"
    if p.endswith(".h"):
        if data is not None and re.search(rb"^\s*(namespace|template\s*<|class\s+\w+\s*[:{]|"
                                          rb"#include\s*<(string|vector|memory|Eigen)[>/])", data[:200_000], re.M):
            return "cpp"
        # `#include <array>` (an extension-less standard header) in a header that is not
        # a C header guarded for C++ (`__cplusplus`): C++. Parsing such files with the C
        # grammar took seconds each (Drake's generated docstring headers: 9 s vs 6 ms).
        if data is not None and b"__cplusplus" not in data and re.search(
                rb"^\s*#\s*include\s*<[A-Za-z_]+>", data[:200_000], re.M):
            return "cpp"
        return "c"
    return None


def parse(lang: str, data: bytes) -> tree_sitter.Tree:
    if lang in ("c", "cpp"):
        data = blank_macros(data)
    return parser(lang).parse(data)


def text(node: tree_sitter.Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""
