"""Which of the angular and the linear part of a 6-vector comes first, as a doc
comment says it: "(rot:lin)", "force:torque", "an angular velocity ω ... on top of a
translational velocity v", "the torque comes first". Used by the `doc` kind
(`match = "order"`) and, to know a declaration's doc states such an order at all, by the
draft index."""

from __future__ import annotations

import re

ANGULAR, LINEAR = "angular", "linear"
PARTS = (ANGULAR, LINEAR)

_A = r"(?:rot|rotational|rotation|angular|torque|moment)"
_L = r"(?:lin|linear|translational|translation|force)"
_WORD = re.compile(rf"\b(?:{_A}|{_L})\b", re.I)
_COMPACT = re.compile(rf"\b({_A}|{_L})\s*:\s*({_A}|{_L})\b", re.I)
_ON_TOP = re.compile(r"\bon\s+top\s+of\b", re.I)
# "the torque comes first", "angular is first." (not "the force is first computed")
_FIRST = re.compile(rf"\b({_A}|{_L})\b[^.;]{{0,24}}?\b(?:comes?\s+first\b|(?:is|are)\s+first"
                    r"(?=\s*(?:[,.;:)]|$)))", re.I)


_A_WORD = re.compile(_A, re.I)


def part_of(word: str) -> str:
    return ANGULAR if _A_WORD.fullmatch(word) else LINEAR


def doc_order(text: str | None) -> tuple[str, str] | None:
    """(first, second) part as the doc orders them, or None when it states no order."""
    if not text:
        return None
    m = _COMPACT.search(text)
    if m and part_of(m.group(1)) != part_of(m.group(2)):
        return part_of(m.group(1)), part_of(m.group(2))
    m = _FIRST.search(text)
    if m:
        first = part_of(m.group(1))
        return first, (LINEAR if first == ANGULAR else ANGULAR)
    for top in _ON_TOP.finditer(text):
        before = [w for w in _WORD.finditer(text, max(0, top.start() - 80), top.start())]
        after = _WORD.search(text, top.end(), top.end() + 40)
        if before and after:
            a, b = part_of(before[-1].group(0)), part_of(after.group(0))
            if a != b:
                return a, b
    return None
