"""Three-valued constants: binding values, named constants, and their comparison."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from verifier.facts.names import split_symbol

CONST_NAME = re.compile(r"^(?:[A-Z][A-Z0-9_]*|k[A-Z0-9]\w*|[a-z]{1,6}[A-Z][A-Z0-9]*_[A-Za-z0-9_]+)$")
NULLS = frozenset({"None", "NULL", "nullptr"})
_INT = re.compile(r"^[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*$")


@dataclass(frozen=True)
class Name:
    """An enum constant / named constant, compared by its last component."""
    full: str

    @property
    def last(self) -> str:
        return split_symbol(self.full)[-1] if split_symbol(self.full) else self.full


Value = bool | int | Name | None


def parse_int(s: str) -> int | None:
    s = s.strip().replace("'", "")
    if not _INT.match(s):
        return None
    s = s.rstrip("uUlL")
    sign = -1 if s.startswith("-") else 1
    s = s.lstrip("+-")
    try:
        return sign * int(s, 0) if not re.match(r"^0\d", s) else sign * int(s, 8)
    except ValueError:
        return None


def binding_value(v: Any) -> Value:
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, str):
        s = v.strip()
        if s in ("true", "True"):
            return True
        if s in ("false", "False"):
            return False
        i = parse_int(s)
        if i is not None:
            return i
        return Name("".join(s.split()))
    return None


def values_equal(a: Value, b: Value) -> bool | None:
    if a is None or b is None:
        return None
    if isinstance(a, Name) and isinstance(b, Name):
        if a.full == b.full or a.last == b.last:
            return True
        if (a.last in NULLS) != (b.last in NULLS):
            return None  # a null pointer vs an enum-like name: unknown
        return False  # distinct enum constants are assumed distinct
    if isinstance(a, Name) or isinstance(b, Name):
        return None
    return int(a) == int(b)


def truthy(v: Value) -> bool | None:
    if isinstance(v, Name) and v.last in NULLS:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v != 0
    return None


ORDER_OPS = ("<", "<=", ">", ">=")


def compare_order(op: str, a: Value, b: Value) -> bool | None:
    """`a < b` etc. when both sides are known integers (booleans excluded), else unknown."""
    if not (isinstance(a, int) and isinstance(b, int)) or isinstance(a, bool) \
            or isinstance(b, bool):
        return None
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
