"""A claim follows its sentence: what the edited sentence says where the claim's spans were.

At review (`verifier claims rebind`) each claim's entry in `claims/claims.lock` keeps,
besides the hash of its sentence, every span of `says` with a few characters of the
sentence on each side (`Reviewed.spans`: short verbatim contexts, like a fragment; the
lock never holds whole lesson sentences) and how often the claim's clause held each
polarity word (`Reviewed.words`).

When the sentence no longer hashes the same, `follow` finds each span again between
its contexts in the sentence as it reads now (difflib's alignment of the reviewed
window with the current sentence), reads what stands there with the span's reader,
and compares the clause's polarity words:

  unchanged   the span reads the same (the edit is elsewhere in the sentence)
  changed     it reads something else (0.002 -> 0.005, `a, b, c` -> `a, c, b`)
  gone        nothing stands there any more, or it no longer parses as its reader
  flips       negation words gained or lost and pair words swapped in the clause
              (隐式 -> 显式, "returns a copy" -> "returns a reference")

`relocate` finds the sentence of a claim whose fragment left the lesson (an edit
inside the fragment): the lesson sentence that best matches the fragment and the
spans' contexts, near the reviewed line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from difflib import SequenceMatcher
from fractions import Fraction

from verifier.claims.says import (Number, Polarity, Reading, Span, flips, lexicon, opposites,
                                  polarity_counts, polarity_words, read_as, read_polarity,
                                  reader_of)

CONTEXT = 16          # characters of the sentence kept on each side of a span
_CLAUSE = re.compile(r"[，；：。！？|]|[,;:](?=\s)|(?<=[^\d])\.(?=\s|$)")
_WORD = re.compile(r"[A-Za-z0-9_]")


@dataclass(frozen=True)
class Reviewed:
    """One claim's entry in claims.lock."""

    sentence: str                                   # hash of the reviewed sentence
    spans: tuple[tuple[str, str, str], ...] = ()    # (left, span, right) per `says` entry
    words: tuple[tuple[str, int], ...] = ()         # polarity words of the claim's clause
    line: int | None = None                         # lesson line at review
    lesson: str | None = None                       # git blob of the lesson text at review
    note: str | None = None                         # the reviewer's note (`rebind --force`)
    swords: tuple[tuple[str, int], ...] | None = None   # ... of the whole sentence (None: = words)
    # the sentence's words that are the claim's own (its spans' and expected's names and
    # numbers), in sentence order (None: not recorded); see `marks_of`
    marks: tuple[str, ...] | None = None

    @property
    def sentence_words(self) -> tuple[tuple[str, int], ...]:
        return self.words if self.swords is None else self.swords

    @property
    def has_spans(self) -> bool:
        return bool(self.spans)


@dataclass(frozen=True)
class SpanEdit:
    index: int                  # in `says`
    old: str                    # the span's text at review
    new: str | None             # what stands there now (None: gone)
    old_reading: Reading | None
    new_reading: Reading | None
    why: str | None = None      # why it is gone


@dataclass
class Followed:
    edits: list[SpanEdit] = field(default_factory=list)     # changed or gone spans
    flips: int = 0
    flip_words: list[str] = field(default_factory=list)
    swapped: list[tuple[int, str]] = field(default_factory=list)   # polarity spans: (index, now)
    dropped: list[int] = field(default_factory=list)   # negation spans no longer there

    @property
    def changed(self) -> list[SpanEdit]:
        return [e for e in self.edits if e.new_reading is not None]

    @property
    def gone(self) -> list[SpanEdit]:
        return [e for e in self.edits if e.new_reading is None]

    @property
    def negated(self) -> bool:
        return self.flips % 2 == 1


# ------------------------------------------------------------------ at review

def span_offset(sentence: str, text: str, near: int) -> int:
    """Offset of the occurrence of `text` in `sentence` nearest to `near` (-1: none)."""
    best, at = -1, sentence.find(text)
    while at >= 0:
        if best < 0 or abs(at - near) < abs(best - near):
            best = at
        at = sentence.find(text, at + 1)
    return best


def clause_bounds(sentence: str, start: int, end: int) -> tuple[int, int]:
    """The clause(s) of `sentence` that [start, end) overlaps: from the clause mark
    before `start` to the one at or after `end`."""
    a, b = 0, len(sentence)
    for m in _CLAUSE.finditer(sentence):
        if m.end() <= start:
            a = m.end()
        elif m.start() >= end:
            b = m.start()
            break
    return a, b


# a name (also after a `.`: `d.qpos`), or a number not part of a dotted version (`3.15.0`)
_MARK = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*"
                   r"|(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?(?![A-Za-z0-9_])")
MAX_MARKS = 48


def _mark(token: str) -> str | None:
    """A token as a mark: a name as written, a number as its exact value (`1.220`,
    `1.22` and `122e-2` are one mark)."""
    if token[0].isdigit():
        try:
            return _num(Fraction(token.replace("−", "-")))
        except (ValueError, ZeroDivisionError):
            return None
    return token


def _num(f: Fraction) -> str:
    d = f.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return str(f)
    text = format(Decimal(f.numerator) / Decimal(f.denominator), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def claim_atoms(data: dict, spans: list[Span]) -> frozenset[str]:
    """The names and numbers a claim holds (expected, symbol, options) or reads from its
    sentence (its spans' words), as marks."""
    out: set[str] = set()

    def walk(v) -> None:
        if v is None or isinstance(v, bool):
            return
        if isinstance(v, (int, float)):
            try:
                out.add(_num(abs(Fraction(str(v)))))
            except (ValueError, ZeroDivisionError):
                pass
        elif isinstance(v, str):
            for m in _MARK.finditer(v):
                if (k := _mark(m.group())) is not None:
                    out.add(k)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(data.get("expected"))
    walk(data.get("symbol"))
    walk(data.get("options"))
    for sp in spans:
        if not isinstance(sp.reading(), Polarity):
            walk(sp.text)
    return frozenset(out)


def marks_of(sentence: str, atoms: frozenset[str]) -> tuple[str, ...] | None:
    """The sentence's words that are among `atoms`, in order: an edit that swaps two of
    them or changes one repetition of a checked value changes this sequence even when
    every span still reads the same (None: too many to keep)."""
    got = tuple(k for m in _MARK.finditer(sentence) if (k := _mark(m.group())) in atoms)
    if len(got) > MAX_MARKS or any(len(k) > 64 for k in got):
        return None
    return got


def lost_marks(reviewed: Reviewed, sentence: str, atoms: frozenset[str]
               ) -> tuple[str, ...] | None:
    """What became of the reviewed marks that were removed, replaced or moved in
    `sentence` (`2 -> 3`, `scale no longer there`), or None: none was (a mention added
    beside the reviewed ones is no edit of them), or no marks were recorded."""
    if reviewed.marks is None:
        return None
    was, now = reviewed.marks, marks_of(sentence, atoms)
    if now is None:
        return None
    out = []
    for op, a0, a1, b0, b1 in SequenceMatcher(a=was, b=now, autojunk=False).get_opcodes():
        if op == "replace":
            out.append(f"{' '.join(was[a0:a1])} -> {' '.join(now[b0:b1])}")
        elif op == "delete":
            out.append(f"{' '.join(was[a0:a1])} no longer there")
    return tuple(out) or None


def review(sentence: str, fragment: str, spans: list[Span], sentence_hash: str,
           line: int | None, lesson_blob: str | None,
           atoms: frozenset[str] | None = None) -> tuple[Reviewed, list[str]]:
    """The lock entry of a claim reviewed against `sentence`, and the problems of its
    spans (a span not in the sentence); `atoms` (`claim_atoms`): record the sentence's
    marks too."""
    frag_at = sentence.find(fragment)
    near = max(frag_at, 0)
    rows, problems = [], []
    lo, hi = (frag_at, frag_at + len(fragment)) if frag_at >= 0 else (len(sentence), 0)
    for sp in spans:
        at = span_offset(sentence, sp.text, near)
        if at < 0:
            problems.append(f"`says` span {sp.text!r} is not in the sentence")
            rows.append(("", sp.text, ""))
            continue
        end = at + len(sp.text)
        rows.append((sentence[max(0, at - CONTEXT):at], sp.text, sentence[end:end + CONTEXT]))
        lo, hi = min(lo, at), max(hi, end)
    if lo > hi:
        lo, hi = 0, len(sentence)
    a, b = clause_bounds(sentence, lo, hi)
    words = tuple(sorted(polarity_counts(sentence[a:b]).items()))
    swords = tuple(sorted(polarity_counts(sentence).items()))
    marks = marks_of(sentence, atoms) if atoms else None
    return Reviewed(sentence_hash, tuple(rows), words, line, lesson_blob, None,
                    None if swords == words else swords, marks or None), problems


def sentence_flips(reviewed: Reviewed, sentence: str) -> tuple[int, list[str]]:
    """Polarity flips of the whole sentence since review (for an edit outside the claim's
    clause: another statement of its sentence turned around)."""
    return flips(dict(reviewed.sentence_words), polarity_counts(sentence))


# ------------------------------------------------------------------ at check

def _glued(text: str, i: int, dots: bool) -> bool:
    """Whether text[i-1] and text[i] belong to one word (a `.` only between word
    characters, and only for a span that has one or is a number: `0.002`, `data.qpos`,
    not a full stop, and not the qualifier of a span that named only `body_index`)."""
    x, y = text[i - 1], text[i]
    if not dots and "." in (x, y):
        return False
    if x == "." and i >= 2:
        return bool(_WORD.match(text[i - 2])) and bool(_WORD.match(y))
    if y == "." and i + 1 < len(text):
        return bool(_WORD.match(x)) and bool(_WORD.match(text[i + 1]))
    return bool(_WORD.match(x)) and bool(_WORD.match(y))


def _extend(text: str, a: int, b: int, dots: bool) -> tuple[int, int]:
    """[a, b) widened to whole words: an edit next to a span belongs to it."""
    while 0 < a < len(text) and _glued(text, a, dots):
        a -= 1
    while 0 < b < len(text) and _glued(text, b, dots):
        b += 1
    return a, b


def _mapped(blocks, i: int) -> int | None:
    """Index `i` of the window, where the sentence has it (None: not matched)."""
    for blk in blocks:
        if blk.a <= i < blk.a + blk.size:
            return blk.b + (i - blk.a)
    return None


_SLACK = 8        # edited context characters next to a span that may join it


_ANCHOR = 4       # context characters that must stand unchanged next to a span


def _anchored(left: str, span: str, right: str, sentence: str, near: int
              ) -> tuple[int, int] | None:
    """The span's place between the longest unchanged tail of its left context and the
    longest unchanged head of its right context (the span's own text is not matched:
    `a and b` -> `b and a` puts `b` where `a` was)."""
    def occ(needle: str) -> list[int]:
        out, i = [], sentence.find(needle)
        while i >= 0:
            out.append(i)
            i = sentence.find(needle, i + 1)
        return out

    starts: list[int] = [0] if not left else []
    if left:
        for k in range(len(left), min(len(left), _ANCHOR) - 1, -1):
            hits = occ(left[-k:])
            if hits:
                starts = sorted((h + k for h in hits), key=lambda e: abs(e - near))
                break
    for start in starts[:3]:
        if not right:
            return start, len(sentence)
        for k in range(len(right), min(len(right), _ANCHOR) - 1, -1):
            i = sentence.find(right[:k], start)
            if i >= 0:
                if i - start <= 4 * len(span) + 24:
                    return start, i
                break
    # one side edited too (a neighbouring span changed): the other side alone, the span
    # taken at its length there (then widened to whole words by the caller)
    if starts and right:
        return starts[0], min(starts[0] + len(span), len(sentence))
    if right and left:
        for k in range(len(right), min(len(right), _ANCHOR) - 1, -1):
            hits = occ(right[:k])
            if hits:
                end = min(hits, key=lambda e: abs(e - len(span) - near))
                return max(end - len(span), 0), end
    return None


def align(left: str, span: str, right: str, sentence: str, near: int = 0
          ) -> tuple[int, int] | None:
    """Where [left|span|right] of the reviewed sentence stands in `sentence`: the
    offsets of what now takes the span's place, or None when the contexts are not
    found (a rewrite, not an edit). Context characters next to the span that were
    edited too join the span's new text (`0.002 s` -> `5 ms`)."""
    window = left + span + right
    at = sentence.find(window)
    if at >= 0:
        return at + len(left), at + len(left) + len(span)
    got = _anchored(left, span, right, sentence, near)
    if got is not None:
        return got
    blocks = [b for b in SequenceMatcher(None, window, sentence, autojunk=False)
              .get_matching_blocks() if b.size]
    a0, a1 = len(left), len(left) + len(span)
    start = 0 if not left else None
    for i in range(a0 - 1, max(a0 - 1 - _SLACK, -1), -1):
        j = _mapped(blocks, i)
        if j is not None:
            start = j + 1
            break
    end = len(sentence) if not right else None
    for i in range(a1, min(a1 + _SLACK, len(window))):
        j = _mapped(blocks, i)
        if j is not None:
            end = j
            break
    if start is None or end is None or end < start:
        return None
    matched_left = sum(1 for i in range(max(0, a0 - _SLACK), a0) if _mapped(blocks, i) is not None)
    matched_right = sum(1 for i in range(a1, min(len(window), a1 + _SLACK))
                        if _mapped(blocks, i) is not None)
    if (left and matched_left < min(len(left), 3)) or (right and matched_right < min(len(right), 3)):
        return None
    if end - start > 4 * len(span) + 24:
        return None
    return start, end


def fragment_region(fragment: str, sentence: str) -> tuple[int, int]:
    """Where the fragment stands in the sentence, or where most of it does when it was
    edited (the matched characters' extent), else (-1, -1)."""
    at = sentence.find(fragment)
    if at >= 0:
        return at, at + len(fragment)
    blocks = [b for b in SequenceMatcher(None, fragment, sentence, autojunk=False)
              .get_matching_blocks() if b.size >= 2]
    if not blocks:
        return -1, -1
    # the run of blocks around the longest one whose gaps in the sentence are no wider
    # than in the fragment (plus an edit's worth): a later match elsewhere is not it
    k = max(range(len(blocks)), key=lambda i: blocks[i].size)
    lo = hi = k
    while lo > 0 and (blocks[lo].b - blocks[lo - 1].b - blocks[lo - 1].size) <= \
            (blocks[lo].a - blocks[lo - 1].a - blocks[lo - 1].size) + 12:
        lo -= 1
    while hi + 1 < len(blocks) and (blocks[hi + 1].b - blocks[hi].b - blocks[hi].size) <= \
            (blocks[hi + 1].a - blocks[hi].a - blocks[hi].size) + 12:
        hi += 1
    if sum(b.size for b in blocks[lo:hi + 1]) < 0.6 * len(fragment):
        return -1, -1
    return blocks[lo].b, blocks[hi].b + blocks[hi].size


def follow(reviewed: Reviewed, spans: list[Span], sentence: str, fragment: str) -> Followed:
    """What the sentence says now where the reviewed claim's spans were."""
    out = Followed()
    lo, hi = len(sentence), 0
    frag_at, frag_end = fragment_region(fragment, sentence)
    if frag_at >= 0:
        lo, hi = frag_at, frag_end
    rows = reviewed.spans if len(reviewed.spans) == len(spans) else \
        tuple(("", sp.text, "") for sp in spans)
    for i, (sp, (left, text, right)) in enumerate(zip(spans, rows, strict=True)):
        old = sp.reading()
        if text != sp.text:       # the claim file's span was edited since review
            left, right = "", ""
        if left or right:
            at = align(left, sp.text, right, sentence, max(frag_at, 0))
        elif text == sp.text and reviewed.spans:
            at = (0, len(sentence))       # the span was its whole sentence (a table cell)
        else:
            i0 = sentence.find(sp.text)
            at = (i0, i0 + len(sp.text)) if i0 >= 0 else None
        negator = isinstance(old, Polarity) and old.negation
        if at is None or (negator and not sentence[at[0]:at[1]].strip()):
            if negator:       # a negation word removed: the clause's count has the flip
                out.dropped.append(i)
                continue
            out.edits.append(SpanEdit(i, sp.text, None, old, None,
                                      "not found in the sentence as it reads now"))
            continue
        a, b = at
        if sentence[a:b] != sp.text and old is not None and not isinstance(old, Polarity):
            a, b = _extend(sentence, a, b, dots="." in sp.text or isinstance(old, Number))
        lo, hi = min(lo, a), max(hi, b)
        now = sentence[a:b].strip()
        if now == sp.text:
            continue
        if not now:
            out.edits.append(SpanEdit(i, sp.text, "", old, None, "deleted"))
            continue
        if negator and not any(w in lexicon().negators for _, w in polarity_words(now)):
            out.dropped.append(i)      # "不是" -> "是": the negation removed, counted below
            continue
        if isinstance(old, Polarity):
            got = read_polarity(now)
            if got is None or (got.word != old.word and not (
                    got.pair is not None and opposites(old.word, got.word))):
                out.edits.append(SpanEdit(i, sp.text, now, old, None,
                                          f"“{now}” is not a polarity word of the same pair"))
            else:                     # a swap within its pair is counted with the clause
                out.swapped.append((i, now))
            continue
        new = read_as(reader_of(old), now) if old is not None else None
        if new is None:
            how = reader_of(old) if old is not None else "its reader"
            out.edits.append(SpanEdit(i, sp.text, now, old, None,
                                      f"“{now}” does not read as a {how}"))
            continue
        if new != old:
            out.edits.append(SpanEdit(i, sp.text, now, old, new))
    if reviewed.words is not None:
        if lo > hi:
            lo, hi = 0, len(sentence)
        a, b = clause_bounds(sentence, lo, hi)
        n, why = flips(dict(reviewed.words), polarity_counts(sentence[a:b]))
        out.flips, out.flip_words = n, why
    return out


def relocate(fragment: str, reviewed: Reviewed | None, sentences: list[tuple[str, int, bool]]
             ) -> tuple[str, int] | None:
    """The (sentence, line) that a claim whose fragment left the lesson now binds to:
    the best match of the fragment and its spans' contexts, if it is clearly the best
    (a rewrite that leaves nothing recognisable is no match)."""
    probe = fragment
    if reviewed is not None:
        probe += "".join(l + t + r for l, t, r in reviewed.spans)
    best: list[tuple[float, int, str, int]] = []
    want = len(fragment)
    # a claim reviewed in a whole table row (its contexts cross cells) follows a row;
    # one reviewed in a sentence or a cell, a sentence
    rows = "|" in fragment or reviewed is not None and any(
        "|" in left + right for left, _, right in reviewed.spans)
    for sent, line, whole_line in sentences:
        if not sent or whole_line != rows:
            continue
        sm = SequenceMatcher(None, fragment, sent, autojunk=False)
        got = sum(b.size for b in sm.get_matching_blocks() if b.size >= 2) / max(want, 1)
        if got < 0.6:
            continue
        extra = 0.0
        if reviewed is not None and reviewed.spans:
            sm2 = SequenceMatcher(None, probe, sent, autojunk=False)
            extra = sum(b.size for b in sm2.get_matching_blocks() if b.size >= 2) / len(probe)
        dist = abs(line - reviewed.line) if reviewed is not None and reviewed.line else 0
        near = 0.15 if dist <= 2 else 0.0     # a one-line edit leaves the sentence in place
        best.append((got + extra + near, -dist, sent, line))
    if not best:
        return None
    best.sort(reverse=True)
    if len(best) > 1 and best[0][0] - best[1][0] < 0.1 and best[0][1] == best[1][1]:
        return None
    return best[0][2], best[0][3]


def reviewed_view(reviewed: Reviewed) -> str:
    """The reviewed sentence as the lock keeps it: each span in its contexts."""
    parts = []
    for left, text, right in reviewed.spans:
        parts.append(f"…{left}[{text}]{right}…")
    return " ".join(parts)


__all__ = ["CONTEXT", "Followed", "Reviewed", "SpanEdit", "align", "clause_bounds", "follow",
           "relocate", "review", "reviewed_view", "span_offset"]
