"""What a claim's sentence says: the spans that carry its assertion, and how they read.

A claim names the literal span(s) of its sentence that state what it checks:

    says = ["0.002", "500", "100"]                    # readings inferred
    says = [{ text = "mjSTATE_QPOS, mjSTATE_QVEL", read = "names" }, "不"]

or says why its `expected` cannot be read from the sentence (`paraphrase = "..."`).

A span reads as one of
  number    a numeric literal, optionally signed, a fraction `1/30`, with an optional
            unit (`2 ms` is 0.002 in seconds, `1 kHz` is 1000): `Number`
  name      an identifier or qualified name (`mj_step`, `data.qpos`, `Foo::Bar`,
            a call `mj_step(m, d)` reads as its callee): `Name`
  vector    two or more numbers in brackets, `(0, 0, 2)` or `[1, 0]`, in order: `Vector`
  names     two or more names in order, separated by `,` `、` `/` `→` `->` `和` `与`
            `and`: `Names`
  polarity  a negation word (不, 没有, not, never, ...) or one word of an opposite
            pair (隐式/显式, copy/reference, ...; `polarity.toml`): `Polarity`
  literal   any other text, equal only to itself: `Literal`

Readers are pure functions of the text: the same span always reads the same, and an
edited span is read by the reader of its reviewed reading (`read_as`), so that
`0.002` -> `0.005` is a new number and `0.002` -> `fast` no longer parses.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from verifier.claims.compare.numbers import number_value
from verifier.claims.notation import is_name

READS = ("number", "vector", "name", "names", "polarity", "literal")

# unit -> factor to the SI base unit (the span's number times the factor)
_UNITS: dict[str, Fraction] = {
    "s": Fraction(1), "ms": Fraction(1, 1000), "us": Fraction(1, 10**6), "µs": Fraction(1, 10**6),
    "μs": Fraction(1, 10**6), "ns": Fraction(1, 10**9), "min": Fraction(60),
    "Hz": Fraction(1), "kHz": Fraction(1000), "MHz": Fraction(10**6),
    "m": Fraction(1), "mm": Fraction(1, 1000), "cm": Fraction(1, 100), "km": Fraction(1000),
    "kg": Fraction(1), "g": Fraction(1, 1000), "N": Fraction(1), "Nm": Fraction(1),
    "N·m": Fraction(1), "rad": Fraction(1), "%": Fraction(1, 100),
    "秒": Fraction(1), "毫秒": Fraction(1, 1000), "米": Fraction(1), "毫米": Fraction(1, 1000),
    "厘米": Fraction(1, 100), "千克": Fraction(1), "克": Fraction(1, 1000),
}
_NUM = r"[+\-\u2212]?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+)"
_NUMBER = re.compile(rf"^\s*({_NUM})(?:\s*/\s*({_NUM}))?\s*(" +
                     "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True)) +
                     r")?\s*$")
NUMBER_TOKEN = re.compile(rf"(?<![A-Za-z0-9_.]){_NUM}(?:\s*/\s*{_NUM})?(?![A-Za-z0-9_]|\.\d)")
_CALL = re.compile(r"^(.*?)\s*\((?:.|\n)*\)\s*$")
_SEPARATORS = re.compile(r"\s*(?:,|，|、|/|\+|\||→|->|=>|\band\b|\bthen\b|和|与|及|以及)\s*")


@dataclass(frozen=True)
class Number:
    value: Fraction
    unit: str | None = None

    @property
    def si(self) -> Fraction:
        return self.value * _UNITS.get(self.unit or "", Fraction(1))


@dataclass(frozen=True)
class Vector:
    values: tuple[Fraction, ...]


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Names:
    names: tuple[str, ...]


@dataclass(frozen=True)
class Polarity:
    word: str
    negation: bool                 # a negation word, else one side of a pair
    pair: int | None = None        # index of its pair in the lexicon
    side: int | None = None        # 0 or 1


@dataclass(frozen=True)
class Literal:
    text: str


Reading = Number | Vector | Name | Names | Polarity | Literal


@dataclass(frozen=True)
class Span:
    """One entry of `says`: its text as the sentence has it (backticks removed)."""

    text: str
    read: str | None = None        # the reader asked for, else inferred

    def reading(self) -> Reading | None:
        return read_as(self.read, self.text) if self.read else infer(self.text)


def plain(text: str) -> str:
    """A span as the sentence's plain text has it: code-span backticks and `**` dropped,
    whitespace runs collapsed (the sentence model's form, claims/sentences.py)."""
    return " ".join(text.replace("`", "").replace("**", "").split())


def spans_of(says: list | None) -> list[Span]:
    out = []
    for entry in says or ():
        if isinstance(entry, str):
            out.append(Span(plain(entry)))
        else:
            out.append(Span(plain(entry.text), entry.read))
    return out


# ------------------------------------------------------------------ readers

def read_number(text: str) -> Number | None:
    m = _NUMBER.match(text.replace("\u2212", "-"))
    if not m:
        return None
    a = number_value(m.group(1))
    if a is None:
        return None
    value = a[0]
    if m.group(2):
        b = number_value(m.group(2))
        if b is None or b[0] == 0:
            return None
        value = value / b[0]
    return Number(value, m.group(3))


VECTOR_TOKEN = re.compile(rf"[(\[]\s*{_NUM}(?:\s*,\s*{_NUM})+\s*[)\]]")


def read_vector(text: str) -> Vector | None:
    s = text.replace("\u2212", "-").strip()
    if not VECTOR_TOKEN.fullmatch(s) or s[0] + s[-1] not in ("()", "[]"):
        return None
    vals = []
    for part in s[1:-1].split(","):
        got = number_value(part.strip())
        if got is None:
            return None
        vals.append(got[0])
    return Vector(tuple(vals))


def read_name(text: str) -> Name | None:
    s = plain(text)
    call = _CALL.match(s)
    if call:
        s = call.group(1)
    s = re.sub(r"\s*(::|->|\.)\s*", r"\1", s)
    s = re.sub(r"<[^<>()]*>", "", s)           # template arguments: Foo<T>::Bar -> Foo::Bar
    return Name(s) if s and is_name(s) else None


def read_names(text: str, spaced: bool = True) -> Names | None:
    """Two or more names in the order written. A list inside one code span may be
    separated by spaces alone (`dist dir origin`); `spaced=False` (inferring a reader
    for a span that does not name one) takes only written separators."""
    parts = [p for p in _SEPARATORS.split(plain(text)) if p]
    if len(parts) == 1 and spaced:
        parts = parts[0].split()
    if len(parts) < 2:
        return None
    names = [read_name(p) for p in parts]
    if any(n is None for n in names):
        return None
    return Names(tuple(n.name for n in names))


def read_polarity(text: str) -> Polarity | None:
    lex = lexicon()
    word = plain(text)
    key = word.lower() if word.isascii() else word
    if key in lex.negators:
        return Polarity(word, True)
    side = lex.sides.get(key)
    if side is not None:
        return Polarity(word, False, side[0], side[1])
    return None


def opposites(a: str, b: str) -> bool:
    """Whether two polarity words are the two sides of one of the lexicon's pairs (a word
    may be a side of several: `引用` is the other side of `副本`, `拷贝` and `复制`)."""
    def key(w: str) -> str:
        w = plain(w)
        return w.lower() if w.isascii() else w

    x, y = key(a), key(b)
    return any({x, y} == {p, q} for p, q in lexicon().pairs)


def read_literal(text: str) -> Literal | None:
    s = plain(text)
    return Literal(s) if s else None


_READERS = {"number": read_number, "vector": read_vector, "name": read_name, "names": read_names,
            "polarity": read_polarity, "literal": read_literal}


def read_as(how: str | None, text: str) -> Reading | None:
    """`text` read by the reader `how` (None: inferred), or None when it does not parse."""
    if how is None:
        return infer(text)
    return _READERS[how](text)


def infer(text: str) -> Reading | None:
    for how in ("polarity", "number", "vector", "names", "name", "literal"):
        got = read_names(text, spaced=False) if how == "names" else _READERS[how](text)
        if got is not None:
            return got
    return None


def reader_of(reading: Reading) -> str:
    return {Number: "number", Vector: "vector", Name: "name", Names: "names",
            Polarity: "polarity", Literal: "literal"}[type(reading)]


def _num_text(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else format(float(v), "g")


def show(reading: Reading | None) -> str:
    if reading is None:
        return "nothing readable"
    if isinstance(reading, Number):
        v = reading.value
        text = str(v.numerator) if v.denominator == 1 else format(float(v), "g")
        return text + (f" {reading.unit}" if reading.unit else "")
    if isinstance(reading, Vector):
        return "(" + ", ".join(_num_text(v) for v in reading.values) + ")"
    if isinstance(reading, Name):
        return f"`{reading.name}`"
    if isinstance(reading, Names):
        return ", ".join(f"`{n}`" for n in reading.names)
    if isinstance(reading, Polarity):
        return f"“{reading.word}”"
    return f"“{reading.text}”"


# ------------------------------------------------------------------ polarity lexicon

@dataclass(frozen=True)
class Lexicon:
    negators: frozenset[str]
    compounds: frozenset[str]
    pairs: tuple[tuple[str, str], ...]
    sides: dict[str, tuple[int, int]]          # word -> (pair index, side); first pair wins
    words: tuple[str, ...]                     # every word, longest first (tokenizing)


LEXICON_FILE = Path(__file__).with_name("polarity.toml")


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    with LEXICON_FILE.open("rb") as fh:
        data = tomllib.load(fh)

    def norm(w: str) -> str:
        return w.lower() if w.isascii() else w

    negators = frozenset(norm(w) for w in data["negators"])
    compounds = frozenset(norm(w) for w in data["compounds"])
    pairs = tuple((norm(a), norm(b)) for a, b in data["pairs"])
    sides: dict[str, tuple[int, int]] = {}
    for i, pair in enumerate(pairs):
        for side, w in enumerate(pair):
            sides.setdefault(w, (i, side))
    words = tuple(sorted(negators | compounds | set(sides), key=len, reverse=True))
    return Lexicon(negators, compounds, pairs, sides, words)


@lru_cache(maxsize=1)
def _word_pattern() -> re.Pattern[str]:
    alts = []
    for w in lexicon().words:
        if w.isascii():
            alts.append(r"(?<![A-Za-z0-9_'-])" + re.escape(w) + r"(?![A-Za-z0-9_'-])")
        else:
            alts.append(re.escape(w))
    return re.compile("|".join(alts), re.IGNORECASE)


def polarity_words(text: str) -> list[tuple[int, str]]:
    """The lexicon's words in `text`, longest match first, as (offset, word) with Latin
    words lower-cased: compounds (`不同`, `无论`) are words of their own, so the `不`
    inside them is no negation, and `非线性` is not `线性`. Code spans never hold
    polarity words (a name such as `is_on` says nothing)."""
    out = []
    for m in _word_pattern().finditer(text):
        w = m.group(0)
        out.append((m.start(), w.lower() if w.isascii() else w))
    return out


def polarity_counts(text: str) -> dict[str, int]:
    """Per word of the lexicon (compounds left out, unless a pair holds them: `非线性`
    is the other side of `线性`), how often `text` holds it."""
    lex = lexicon()
    counts: dict[str, int] = {}
    for _, w in polarity_words(text):
        if w in lex.compounds and w not in lex.sides:
            continue
        counts[w] = counts.get(w, 0) + 1
    return counts


def flips(before: dict[str, int], after: dict[str, int]) -> tuple[int, list[str]]:
    """How many times the clause's polarity flipped between two word counts: each
    negation word gained or lost is one flip, and each word of a pair replaced by the
    other word of its pair is one. Also the words that explain it (for messages)."""
    lex = lexicon()
    n = 0
    why: list[str] = []
    neg_before = sum(c for w, c in before.items() if w in lex.negators)
    neg_after = sum(c for w, c in after.items() if w in lex.negators)
    if neg_before != neg_after:
        n += abs(neg_before - neg_after)
        gained = [w for w in after if w in lex.negators and after[w] > before.get(w, 0)]
        lost = [w for w in before if w in lex.negators and before[w] > after.get(w, 0)]
        why += [f"“{w}” added" for w in gained] + [f"“{w}” removed" for w in lost]
    for a, b in lex.pairs:
        da = after.get(a, 0) - before.get(a, 0)
        db = after.get(b, 0) - before.get(b, 0)
        if da and db and (da > 0) != (db > 0):
            k = min(abs(da), abs(db))
            n += k
            why.append(f"“{a if da < 0 else b}” -> “{b if da < 0 else a}”")
    return n, why


def value_of(reading: Reading) -> Any:
    """A plain form of a reading for records (JSON)."""
    if isinstance(reading, Number):
        v = reading.value
        num: Any = v.numerator if v.denominator == 1 else float(v)
        return {"number": num, "unit": reading.unit} if reading.unit else num
    if isinstance(reading, Vector):
        return [v.numerator if v.denominator == 1 else float(v) for v in reading.values]
    if isinstance(reading, Name):
        return reading.name
    if isinstance(reading, Names):
        return list(reading.names)
    if isinstance(reading, Polarity):
        return reading.word
    return reading.text
