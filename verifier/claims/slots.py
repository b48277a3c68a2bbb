"""Where a claim's spans occur in the claim, and the claim a changed span gives.

Each span of `says` (verifier/claims/says.py) is bound to the places of the claim
that hold its value — its *slots*:

  expected, runtime.expected   a value equal to the span's reading (a number, also in
                               SI units when the span has one; a name; the elements
                               of a list for a list of names), or a token inside a
                               string (`R_SW` in "R_SW * (A - g)")
  symbol                       its last component (`mjModel.nq` for the span `nq`)
  options                      a value (`param = "gravity_vector"`, a binding's value)
  runtime.code, runtime.setup  a token of the snippet: a name wherever it occurs, a
                               number where it occurs once, or everywhere it is written
                               the same way when it is no common number (a `1` used as an
                               index elsewhere in the snippet is not the sentence's `1`;
                               `0.001` passed and divided by is one quantity)

`derive` writes a span's new reading into each of its slots and returns the new
claim: `expected` is derived from the sentence's words, so the claim checks what
the sentence says now. Binding is deterministic and pure: the same claim and spans
always give the same slots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifier.claims.says import (NUMBER_TOKEN, VECTOR_TOKEN, Literal, Name, Names, Number,
                                  Polarity, Reading, Vector, read_number, read_vector)

Path_ = tuple[Any, ...]

_FIELDS = (("expected",), ("symbol",), ("options",), ("runtime", "expected"),
           ("runtime", "code"), ("runtime", "setup"))
_CODE = {("runtime", "code"), ("runtime", "setup")}


@dataclass(frozen=True)
class Slot:
    path: Path_                 # into the claim's data (`("expected", 2)`)
    start: int | None = None    # a token inside a string value: its offsets
    end: int | None = None
    how: str = "value"          # value | si | token | part (the symbol's last part)


def _get(data: dict, path: Path_) -> Any:
    cur: Any = data
    for p in path:
        cur = cur[p]
    return cur


def _set(data: dict, path: Path_, value: Any) -> None:
    cur: Any = data
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value


def _leaves(value: Any, path: Path_):
    """(path, scalar) of every scalar under `value`; dict keys are not values."""
    if isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _leaves(value[k], path + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))
    elif value is not None:
        yield path, value


def _lists(value: Any, path: Path_):
    """(path, list) of every list under `value`."""
    if isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _lists(value[k], path + (k,))
    elif isinstance(value, list):
        yield path, value
        for i, v in enumerate(value):
            yield from _lists(v, path + (i,))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _fields(data: dict):
    for field in _FIELDS:
        try:
            value = _get(data, field)
        except (KeyError, TypeError):
            continue
        if value is not None:
            yield field, value


_COMMON = {Fraction(n) for n in (-1, 0, 1, 2, 3, 4, 5, 10, 100)} | {Fraction(1, 2)}


def _distinctive(r: Number) -> bool:
    """A number a snippet would not use for anything else: written the same way in
    several places of a snippet, it is the same quantity (`h = 0.001` passed and divided
    by); 0, 1, 2, 10, 0.5 and the like are not."""
    return r.value not in _COMMON


def _number_slots(r: Number, data: dict) -> list[Slot]:
    want = {r.value}
    if r.unit:
        want.add(r.si)
    out: list[Slot] = []
    for field, value in _fields(data):
        if field == ("symbol",):
            continue
        code = field in _CODE
        for path, v in _leaves(value, field):
            if _is_number(v) and not code:
                fv = Fraction(v) if isinstance(v, int) else Fraction(repr(v))
                if fv == r.value:
                    out.append(Slot(path))
                elif r.unit and fv == r.si:
                    out.append(Slot(path, how="si"))
            elif isinstance(v, str):
                hits = []
                for m in NUMBER_TOKEN.finditer(v):
                    got = read_number(m.group(0))
                    if got is None:
                        continue
                    if got.value == r.value or (r.unit and got.value == r.si):
                        hits.append(Slot(path, m.start(), m.end(),
                                         "token" if got.value == r.value else "si-token"))
                if code and len(hits) > 1 and not (_distinctive(r) and len(
                        {v[h.start:h.end] for h in hits}) == 1):
                    continue          # ambiguous in a snippet: not the sentence's number
                out.extend(hits)
    return out


def _vector_slots(r: Vector, data: dict) -> list[Slot]:
    """A list of the claim with these numbers in order (one slot per element), or a
    bracketed literal of a string with them (one token slot)."""
    out: list[Slot] = []
    n = len(r.values)
    for field, value in _fields(data):
        if field == ("symbol",):
            continue
        if field not in _CODE:
            for path, items in _lists(value, field):
                if len(items) == n and all(_is_number(x) for x in items) and all(
                        (Fraction(x) if isinstance(x, int) else Fraction(repr(x))) == v
                        for x, v in zip(items, r.values)):
                    out.extend(Slot(path + (i,)) for i in range(n))
        for path, v in _leaves(value, field):
            if isinstance(v, str):
                for m in VECTOR_TOKEN.finditer(v):
                    got = read_vector(m.group(0).replace("(", "(").strip())
                    if got is not None and got.values == r.values:
                        out.append(Slot(path, m.start(), m.end(), "vector"))
    return out


def _name_slots(name: str, data: dict) -> list[Slot]:
    out: list[Slot] = []
    for field, value in _fields(data):
        if field == ("symbol",):
            if isinstance(value, str):
                if value == name:
                    out.append(Slot(field))
                else:
                    m = re.search(r"(?:\.|::|->)(" + re.escape(name) + r")$", value)
                    if m:
                        out.append(Slot(field, m.start(1), m.end(1), "part"))
            continue
        for path, v in _leaves(value, field):
            if not isinstance(v, str):
                continue
            if v == name or v == name + "()":
                out.append(Slot(path, 0, len(name), "token"))
                continue
            # the name as a whole word, also as the tail of a longer qualified name
            # (`AdvanceTo` in `simulator.AdvanceTo(1.0)`), never inside a word
            for m in re.finditer(r"(?<![A-Za-z0-9_~])" + re.escape(name) + r"(?![A-Za-z0-9_])", v):
                out.append(Slot(path, m.start(), m.end(), "token"))
    return out


def _literal_slots(text: str, data: dict) -> list[Slot]:
    out = []
    pat = re.compile(r"(?<!\w)" + re.escape(text) + r"(?!\w)")
    for field, value in _fields(data):
        if field in _CODE or field == ("symbol",):
            continue
        for path, v in _leaves(value, field):
            if isinstance(v, str):
                out.extend(Slot(path, m.start(), m.end(), "token") for m in pat.finditer(v))
    return out


def bind(reading: Reading | None, data: dict) -> list[Slot]:
    """The slots of one span's reading in a claim's data (`Claim.model_dump()`)."""
    if reading is None or isinstance(reading, Polarity):
        return []
    if isinstance(reading, Number):
        return _number_slots(reading, data)
    if isinstance(reading, Vector):
        return _vector_slots(reading, data)
    if isinstance(reading, Name):
        return _name_slots(reading.name, data)
    if isinstance(reading, Names):
        # the elements of one list that holds every name, else each name on its own
        for field, value in _fields(data):
            for path, items in _lists(value, field):
                pos = {}
                for i, it in enumerate(items):
                    if isinstance(it, str) and it in reading.names and it not in pos:
                        pos[it] = i
                if len(pos) == len(set(reading.names)) == len(reading.names):
                    return [Slot(path + (pos[n],)) for n in reading.names]
        slots = [_name_slots(n, data) for n in reading.names]
        return [s for group in slots for s in group] if all(slots) else []
    if isinstance(reading, Literal):
        return _literal_slots(reading.text, data)
    return []


# ------------------------------------------------------------------ derivation

def _number_text(new: Fraction, old_text: str) -> str:
    if new.denominator == 1 and not re.search(r"[.eE]", old_text):
        return str(new.numerator)
    if new.denominator == 1 and "." in old_text and "e" not in old_text.lower():
        return f"{new.numerator}.0"
    return repr(float(new))


def _number_value(new: Fraction, old: Any) -> Any:
    if isinstance(old, int) and new.denominator == 1:
        return new.numerator
    return float(new)


def _new_value(slot: Slot, old: Reading, new: Reading, current: Any, index: int | None):
    """What `slot` holds once the span reads `new` instead of `old`."""
    if isinstance(new, Number):
        v = new.si if slot.how in ("si", "si-token") else new.value
        if slot.start is None:
            return _number_value(v, current)
        return _number_text(v, current[slot.start:slot.end])
    if isinstance(new, Name):
        return new.name
    if isinstance(new, Names):
        return new.names[index] if index is not None else None
    if isinstance(new, Literal):
        return new.text
    return None


def derive(data: dict, changes: list[tuple[Reading, Reading, list[Slot]]]) -> dict | None:
    """`data` (a claim's dump) with each changed span's slots rewritten to its new
    reading; None when a change cannot be written (a list of names whose length
    changed). The input is not modified."""
    import copy

    out = copy.deepcopy(data)
    edits: dict[Path_, list[tuple[int, int, str]]] = {}
    for old, new, slots in changes:
        if isinstance(new, Vector):
            if not isinstance(old, Vector) or len(new.values) != len(old.values):
                return None
            for s in slots:
                cur = _get(data, s.path)
                if s.start is None:       # one element of a list: its index is the last part
                    i = s.path[-1]
                    _set(out, s.path, _number_value(new.values[i], cur))
                else:
                    lit = cur[s.start:s.end]
                    texts = [_number_text(v, t.strip()) for v, t in
                             zip(new.values, lit[1:-1].split(","), strict=True)]
                    _write(out, edits, s, cur, lit[0] + ", ".join(texts) + lit[-1])
            continue
        if isinstance(new, Names):
            if not isinstance(old, Names) or len(new.names) != len(old.names):
                return None
            if len(slots) != len(old.names):
                # names bound one by one (several slots each): map old name -> new name
                rename = dict(zip(old.names, new.names, strict=True))
                for s in slots:
                    cur = _get(data, s.path)
                    name = cur[s.start:s.end] if s.start is not None else cur
                    if name in rename:
                        _write(out, edits, s, cur, rename[name])
                continue
            for i, s in enumerate(slots):
                _write(out, edits, s, _get(data, s.path), new.names[i])
            continue
        for s in slots:
            cur = _get(data, s.path)
            _write(out, edits, s, cur, _new_value(s, old, new, cur, None))
    for path, reps in edits.items():
        text = _get(data, path)
        for start, end, rep in sorted(reps, reverse=True):
            text = text[:start] + rep + text[end:]
        _set(out, path, text)
    return out


def _write(out: dict, edits: dict, s: Slot, cur: Any, value: Any) -> None:
    if s.start is None:
        _set(out, s.path, value)
    else:
        edits.setdefault(s.path, []).append((s.start, s.end, str(value)))

