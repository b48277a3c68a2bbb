"""Numeric literals of C, C++ and Python as exact values, and constant arithmetic
(the lesson's side as mathematics, the source's with its language's rules)."""

from __future__ import annotations

import re
from fractions import Fraction

_NUM_TEXT = re.compile(
    r"^[+-]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|"
    r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)$")


def number_value(text: str) -> tuple[Fraction, bool] | None:
    """(exact value, is an integer literal) of one numeric literal in C, C++ or
    Python spelling, or None."""
    s = "".join(str(text).split()).replace("'", "").replace("_", "")
    if s.lower().startswith(("0x", "+0x", "-0x")):
        s = re.sub(r"[uUlL]+$", "", s)
    else:
        s = re.sub(r"(?<=[\d.])[fFlLuU]+$", "", s)
    if not _NUM_TEXT.match(s):
        return None
    sign = -1 if s.startswith("-") else 1
    body = s.lstrip("+-")
    low = body.lower()
    try:
        if low.startswith(("0x", "0b", "0o")):
            return Fraction(sign * int(body, 0)), True
        if re.fullmatch(r"0\d+", body):          # C octal
            return Fraction(sign * int(body, 8)), True
        if re.fullmatch(r"\d+", body):
            return Fraction(sign * int(body)), True
        return sign * Fraction(body), False
    except (ValueError, ZeroDivisionError):
        return None


def _arith(op: str, a: tuple[Fraction, bool], b: tuple[Fraction, bool], c_rules: bool
           ) -> tuple[Fraction, bool] | None:
    (x, xi), (y, yi) = a, b
    both = xi and yi
    try:
        if op == "+":
            return x + y, both
        if op == "-":
            return x - y, both
        if op == "*":
            return x * y, both
        if op == "/":
            if y == 0:
                return None
            if c_rules and both:              # C/C++ integer division truncates
                q = abs(x.numerator) // abs(y.numerator)
                return Fraction(q if (x >= 0) == (y >= 0) else -q), True
            return x / y, False
        if op == "//" and y != 0:
            return Fraction(x // y), both
        if op == "%" and y != 0 and both:
            if c_rules:
                r = abs(int(x)) % abs(int(y))
                return Fraction(r if x >= 0 else -r), True
            return Fraction(int(x) % int(y)), True
        if op == "**" and y.denominator == 1 and abs(y) <= 64:
            return x ** int(y), both and y >= 0
        if op in ("<<", ">>", "|", "&", "^") and both:
            i, j = int(x), int(y)
            if op in ("<<", ">>") and not 0 <= j <= 64:
                return None
            v = {"<<": i << j if op == "<<" else 0, ">>": i >> j if op == ">>" else 0,
                 "|": i | j, "&": i & j, "^": i ^ j}[op]
            return Fraction(v), True
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    return None
