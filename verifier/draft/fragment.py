"""Fragments: a short verbatim piece of the sentence, unique in the lesson.

The claim loader locates a fragment by exact text, then with whitespace runs
flexible, and uses the first occurrence (`verifier/claims/check.py`); a drafted
fragment therefore occurs exactly once in the lesson and lies inside its own
sentence, so coverage and check bind it to that sentence.
"""

from __future__ import annotations

import re

from verifier.claims.sentences import occurrences

MIN_LEN = 3
MAX_LEN = 60


def _clean(s: str) -> str:
    return " ".join(s.split())


def _unique(frag: str, text: str) -> bool:
    return len(frag) >= MIN_LEN and "\n\n" not in frag and occurrences(frag, text) == 1


def _grow(text: str, a: int, b: int, lo: int, hi: int) -> str | None:
    """The shortest unique piece of text[lo:hi] starting at `a` (at least [a, b) when
    that fits in `MAX_LEN`), grown right; else the window of at most `MAX_LEN`
    characters ending at the right end slid left. None when no such piece is unique."""
    b = min(max(b, a + MIN_LEN), hi, a + MAX_LEN)
    while True:
        frag = text[a:b].strip()
        if _unique(frag, text):
            return _clean(frag)
        if b - a >= MAX_LEN or b >= hi:
            break
        b += 1
    while a > lo:               # right side exhausted: slide the window left
        a -= 1
        b = min(b, a + MAX_LEN)
        frag = text[a:b].strip()
        if _unique(frag, text):
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
