"""Fragments: a short verbatim piece of the sentence, unique in the lesson.

The claim loader locates a fragment by exact text, then with whitespace runs
flexible, and uses the first occurrence (`verifier/claims/check.py`); a drafted
fragment therefore occurs exactly once in the lesson and lies inside its own
sentence, so coverage and check bind it to that sentence.
"""

from __future__ import annotations

import re

MIN_LEN = 3
MAX_LEN = 60


def occurrences(fragment: str, text: str) -> int:
    words = fragment.split()
    if not words:
        return 0
    return len(re.findall(r"\s+".join(re.escape(w) for w in words), text))


def _clean(s: str) -> str:
    return " ".join(s.split())


def _grow(text: str, a: int, b: int, lo: int, hi: int) -> str | None:
    """Extend [a, b) inside [lo, hi) until it is unique in `text` (right first)."""
    b = min(max(b, a + MIN_LEN), hi)
    for _ in range(2 * MAX_LEN):
        frag = text[a:b].strip()
        if len(frag) >= MIN_LEN and occurrences(frag, text) == 1 and "\n\n" not in frag:
            return _clean(frag)
        if b - a >= MAX_LEN:
            break
        if b < hi:
            b += 1
        elif a > lo:
            a -= 1
        else:
            break
    # right side exhausted: move the start left
    while a > lo and b - a < MAX_LEN + 20:
        a -= 1
        frag = text[a:b].strip()
        if occurrences(frag, text) == 1:
            return _clean(frag)
    return None


def choose(text: str, lo: int, hi: int, anchor: str | None = None) -> str | None:
    """A fragment inside text[lo:hi] (a sentence's raw span), starting at the code
    span `anchor` when it is there, else at the sentence's first word."""
    starts: list[tuple[int, int]] = []
    if anchor:
        for m in re.finditer(re.escape("`" + anchor + "`"), text[lo:hi]):
            starts.append((lo + m.start(), lo + m.end()))
        if not starts:
            i = text.find(anchor, lo, hi)
            if i >= 0:
                starts.append((i, i + len(anchor)))
    first = lo
    while first < hi and (text[first].isspace() or text[first] in "|*_>-#+"):
        first += 1
    starts.append((first, first + 12))
    for a, b in starts:
        frag = _grow(text, a, b, lo, hi)
        if frag:
            return frag
    return None
