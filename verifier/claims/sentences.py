"""The lesson sentence of a claim: located by its verbatim `fragment`, and hashed.

A claim locates its sentence by a short verbatim `fragment`. `verifier claims
rebind` records, per claim, the hash of the whole sentence it was reviewed against
(and its spans: `claims/lock.py`); `verifier check` compares, and follows an edited
sentence (`claims/binding.py`).

The sentence is the lesson model's (`verifier/lessons/model.py`), up to its
full stop (clauses ending in `;`/`；` are joined to what follows): Markdown markup
dropped, code spans kept verbatim, link targets dropped (so moving a permalink
to a new pin does not unbind anything), whitespace collapsed. A fragment that
spans several sentences binds all of them; one outside any sentence (a heading,
a code block) binds its source line(s).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.cache import Store

_HASH_LEN = 16
_INLINE = re.compile(r"\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)|`+|\*\*")


def _squash(s: str) -> str:
    return " ".join(s.split())


def _plain_fragment(fragment: str) -> str:
    """The fragment as the lesson model's plain text has it (markup dropped)."""
    return _squash(_INLINE.sub(lambda m: m.group(1) if m.group(1) is not None else "", fragment))


JOINED = "sentence-index"      # the fact cache's section for `_joined`


def _blocks(text: str, store: "Store | None" = None) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Per block: its sentences (plain text, line), in order. With a `store`, the lesson
    model comes from its cache (markdown-it once per lesson text, `lessons/cache.py`)."""
    from verifier.lessons.cache import load_sentences

    out: dict[int, list[tuple[str, int]]] = {}
    glue: set[int] = set()
    for s in load_sentences(text, store):
        t = _squash(s.text)
        row = out.setdefault(s.block, [])
        if s.block in glue and row:       # a clause after `;` belongs to the same sentence
            row[-1] = (row[-1][0] + " " + t, row[-1][1])
        else:
            row.append((t, s.line))
        (glue.add if t.endswith((";", "；")) else glue.discard)(s.block)
    return tuple(tuple(v) for _, v in sorted(out.items()))


_BLOCK_SEP = "\x00"     # between blocks in `_joined`: never in a fragment's plain text

Joined = tuple[str, tuple[tuple[int, int, int], ...], tuple[int, ...]]


def _join(blocks: tuple[tuple[tuple[str, int], ...], ...]) -> Joined:
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    pos = 0
    for sentences in blocks:
        if parts:
            parts.append(_BLOCK_SEP)
            pos += 1
        for i, (sent, ln) in enumerate(sentences):
            if i:
                parts.append(" ")
                pos += 1
            spans.append((pos, pos + len(sent), ln))
            parts.append(sent)
            pos += len(sent)
    return "".join(parts), tuple(spans), tuple(sp[0] for sp in spans)


@lru_cache(maxsize=128)
def _joined(text: str, store: "Store | None" = None) -> Joined:
    """Every block's sentences joined by spaces, the blocks joined by `_BLOCK_SEP`, each
    sentence's (start, end, line) in that string (its text is the slice), and the starts
    alone (for `bisect`): one search per claim.

    With a `store`, kept in its fact cache by the blob of the lesson's text and this
    module's code version (its closure holds the lesson model): building the sentence
    models of every lesson from the lesson cache cost 0.17 s of a warm `check` of the
    shared course here."""
    if store is None:
        return _join(_blocks(text, None))
    from verifier.codeversion import code_version
    from verifier.facts.cache import fact_cache
    from verifier.gitblob import blob_sha

    return fact_cache(store).get_or_build(
        JOINED, code_version(__name__), blob_sha(text.encode("utf-8")),
        lambda: _join(_blocks(text, store)), load=_joined_of,
        dump=lambda got: [got[0], [list(r) for r in got[1]]])


def _joined_of(plain: list) -> Joined:
    """`_joined`'s value from its stored form (ValueError for another shape)."""
    joined, rows = plain
    spans = tuple(map(tuple, rows))
    if not isinstance(joined, str) or not all(len(r) == 3 for r in spans):
        raise ValueError("not a sentence index")
    return joined, spans, tuple(r[0] for r in spans)


@lru_cache(maxsize=64)
def _squashed(text: str) -> str:
    return " ".join(text.split())


def occurrences(fragment: str, text: str) -> int:
    """How often the fragment's words occur in `text` with any whitespace between them
    (non-overlapping): counted in the text with its whitespace runs squashed, which
    is the same count as matching `w1\\s+w2...` (both split on Unicode whitespace)."""
    words = fragment.split()
    if not words:
        return 0
    return _squashed(text).count(" ".join(words))


def _find(fragment: str, text: str) -> tuple[int, int] | None:
    """Offsets of the first verbatim occurrence of `fragment` (whitespace runs may
    differ, so a fragment may span a wrapped line), or None."""
    i = text.find(fragment)
    if i >= 0:
        return i, i + len(fragment)
    words = fragment.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return (m.start(), m.end()) if m else None


def locate(fragment: str, text: str) -> int | None:
    """1-based line where `fragment` occurs verbatim; None when it is gone."""
    at = _find(fragment, text)
    return text.count("\n", 0, at[0]) + 1 if at else None


def sentence_of(text: str, fragment: str, line: int | None = None, *,
                store: "Store | None" = None) -> str | None:
    """The whole sentence(s) of `text` (a lesson) that hold `fragment`, or None when
    the fragment is not in the lesson. Prefers the occurrence on `line`."""
    want = _plain_fragment(fragment)
    if not want:
        return None
    hits: list[tuple[int, str]] = []
    if _BLOCK_SEP not in want:
        joined, spans, starts = _joined(text, store)
        start = joined.find(want)
        while start >= 0:       # the sentences the occurrence overlaps (never two blocks)
            end = start + len(want)
            i = max(bisect.bisect_right(starts, start) - 1, 0)
            covered = []
            while i < len(spans) and spans[i][0] < end:
                if spans[i][1] > start:
                    covered.append(spans[i])
                i += 1
            if covered:
                hits.append((covered[0][2], " ".join(joined[sp[0]:sp[1]] for sp in covered)))
            start = joined.find(want, start + 1)
    if hits:
        if line is not None:
            hits.sort(key=lambda h: abs(h[0] - line))
        return hits[0][1]
    # not inside a sentence (heading, table syntax, code block): the source line(s)
    at = _find(fragment, text)
    if at is None:
        return None
    raw_start, raw_end = at
    a = text.rfind("\n", 0, raw_start) + 1
    b = text.find("\n", raw_end)
    return _squash(_INLINE.sub(lambda m: m.group(1) if m.group(1) is not None else "",
                               text[a: b if b >= 0 else len(text)]))


def sentence_hash(sentence: str) -> str:
    return hashlib.sha256(_squash(sentence).encode("utf-8")).hexdigest()[:_HASH_LEN]


def lesson_sentences(text: str, store: "Store | None" = None) -> list[tuple[str, int, bool]]:
    """Every sentence of a lesson (as `sentence_of` gives them) with its line, and every
    line in the plain form `sentence_of` gives a fragment outside one sentence (a table
    row whose fragment spans cells): (text, line, is a whole line)."""
    joined, spans, _ = _joined(text, store)
    out = [(joined[a:b], line, False) for a, b, line in spans]
    for i, raw in enumerate(text.split("\n"), 1):
        plain = _squash(_INLINE.sub(lambda m: m.group(1) if m.group(1) is not None else "", raw))
        if plain and "|" in plain:
            out.append((plain, i, True))
    return out
