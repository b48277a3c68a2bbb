"""Evaluate C integer constant expressions found by tree-sitter (enumerator and
macro values): integers (dec/hex/octal/binary, u/l suffixes), char literals,
`| & ^ << >> + - * / % ~`, parentheses, and names of other enumerators/macros of
the same file. Enumerators without a value are the previous one plus one (0
first). Anything else (casts, sizeof, calls) is "cannot evaluate" (None) - never
a guess."""

from __future__ import annotations

import ast
import re

from verifier.facts.model import FileFacts, Sym

_INT = re.compile(r"\b(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)([uUlL]*)\b")
_OPS = {ast.BitOr: lambda a, b: a | b, ast.BitAnd: lambda a, b: a & b,
        ast.BitXor: lambda a, b: a ^ b, ast.LShift: lambda a, b: a << b,
        ast.RShift: lambda a, b: a >> b, ast.Add: lambda a, b: a + b,
        ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.FloorDiv: lambda a, b: int(a / b) if b else None,
        ast.Mod: lambda a, b: a - b * int(a / b) if b else None}


def _to_python(expr: str) -> str | None:
    e = re.sub(r"//.*", "", expr)
    e = re.sub(r"/\*.*?\*/", "", e, flags=re.S).strip()
    if not e:
        return None
    if re.search(r"sizeof|\?|[\"{}]|&&|\|\||==|!=|<=|>=|(?<![<>])[<>](?![<>])", e):
        return None
    e = re.sub(r"'(\\?.)'", lambda m: str(ord(m.group(1)[-1])), e)

    def num(m: re.Match) -> str:
        t = m.group(1)
        if len(t) > 1 and t[0] == "0" and t[1] not in "xXbB":
            return str(int(t, 8))
        return str(int(t, 0))

    e = _INT.sub(num, e)
    return e.replace("/", "//")


def evaluate(expr: str, lookup) -> int | None:
    py = _to_python(expr)
    if py is None:
        return None
    try:
        tree = ast.parse(py, mode="eval")
    except SyntaxError:
        return None

    def ev(n: ast.AST) -> int | None:
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            return lookup(n.id)
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            if v is None:
                return None
            if isinstance(n.op, ast.Invert):
                return ~v
            if isinstance(n.op, ast.USub):
                return -v
            if isinstance(n.op, ast.UAdd):
                return v
            return None
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            a, b = ev(n.left), ev(n.right)
            if a is None or b is None:
                return None
            return _OPS[type(n.op)](a, b)
        return None

    return ev(tree)


class Evaluator:
    """Values of every enumerator and object-like macro of one file.

    A name used inside a value resolves to a constant of the same enum first (C++
    `enum class` members may repeat across enums), then to any constant of the file."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.by_name: dict[str, list[Sym]] = {}
        self.prev: dict[tuple[str, ...], Sym | None] = {}   # implicit enumerator -> previous
        for s in facts.syms:
            if s.kind == "enumerator" or (s.kind == "macro" and s.params is None):
                self.by_name.setdefault(s.name, []).append(s)
        for e in (s for s in facts.syms if s.kind == "enum"):
            prev: Sym | None = None
            for m in facts.children(e):
                if m.kind != "enumerator":
                    continue
                if m.value is None:
                    self.prev[m.qual] = prev
                prev = m
        self._memo: dict[tuple[str, ...], int | None] = {}
        self._busy: set[tuple[str, ...]] = set()

    def resolve(self, name: str, scope: tuple[str, ...] = ()) -> int | None:
        cands = self.by_name.get(name, [])
        if not cands:
            return None
        local = [c for c in cands if c.qual[:-1] == scope]
        return self.value_of((local or cands)[0])

    def value(self, name: str) -> int | None:
        """Value of the first constant called `name`."""
        return self.resolve(name)

    def value_of(self, s: Sym) -> int | None:
        if s.qual in self._memo:
            return self._memo[s.qual]
        if s.qual in self._busy:
            return None
        self._busy.add(s.qual)
        scope = s.qual[:-1]
        if s.kind == "enumerator" and s.value is None:
            prev = self.prev.get(s.qual)
            pv = self.value_of(prev) if prev is not None else -1
            v = None if pv is None else pv + 1
        else:
            v = evaluate(s.value or "", lambda n: self.resolve(n, scope))
        self._busy.discard(s.qual)
        self._memo[s.qual] = v
        return v

    @staticmethod
    def names_in(s: Sym) -> list[str]:
        """The names combined in `s`'s written value, in order."""
        if not s.value:
            return []
        return re.findall(r"\b[A-Za-z_]\w*\b", re.sub(r"//.*|/\*.*?\*/", "", s.value))
