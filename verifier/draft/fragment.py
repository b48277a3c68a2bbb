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


def _word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c in "_.")


def _cut_ok(text: str, i: int, lo: int, hi: int, strict: bool = True) -> bool:
    """Whether a fragment may start or end at offset `i`: never inside a word
    (`solver | war`, `调用者传入 Contac`) nor, when `strict`, inside a code span (a code
    span too long for a fragment is cut between its identifier parts instead)."""
    if i <= lo or i >= hi:
        return True
    if strict:
        if _word(text[i - 1]) and _word(text[i]):
            return False
        return text.count("`", lo, i) % 2 == 0
    return not (text[i - 1].isascii() and text[i - 1].isalnum()
                and text[i].isascii() and text[i].isalnum())


def _grow(text: str, a: int, b: int, lo: int, hi: int, strict: bool = True) -> str | None:
    """The shortest unique piece of text[lo:hi] starting at `a` (at least [a, b) when
    that fits in `MAX_LEN`), grown right; else the window of at most `MAX_LEN`
    characters ending at the right end slid left. None when no such piece is unique.
    Both ends lie between words, outside code spans."""
    b = min(max(b, a + MIN_LEN), hi, a + MAX_LEN)
    while True:
        frag = text[a:b].strip()
        if _cut_ok(text, b, lo, hi, strict) and _unique(frag, text):
            return _clean(frag)
        if b - a >= MAX_LEN or b >= hi:
            break
        b += 1
    while a > lo:               # right side exhausted: slide the window left
        a -= 1
        b = min(b, a + MAX_LEN)
        while b > a and not _cut_ok(text, b, lo, hi, strict):
            b -= 1
        if not _cut_ok(text, a, lo, hi, strict):
            continue
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
    for strict in (True, False):
        for a, b in starts:
            frag = _grow(text, a, b, lo, hi, strict)
            if frag:
                return frag
    return None
