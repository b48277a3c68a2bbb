"""Parsed lessons, cached: a lesson is parsed by markdown-it once per text and code
version, ever (`load_lesson`); warm runs load the plain form from the fact cache.

The key is the git blob SHA of the lesson's UTF-8 bytes and the code version of
`lessons/model.py` (its import closure), so an edit to the lesson or to the parser
is a miss. The value is plain data (one tuple per part, the fields in declaration
order), checked when written: it must load back equal to the parsed lesson, so a
load needs no validation (`model_construct`). Parsing cost 0.41 s of CPU for the 60
lessons of the shared course here, a cached load 0.08 s; `lint` and `check` each
need every lesson twice (cited files, then the rules or the report).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_origin

from verifier.codeversion import code_version
from verifier.gitblob import blob_sha
from verifier.lessons.model import (CodeBlock, CodeSpan, Heading, Lesson, Link, MathSpan, Sentence,
                                    Suppression, parse_lesson)

if TYPE_CHECKING:
    from verifier.cache import Store

EXTRACTOR = "lesson"
_PARTS: dict[str, type] = {"headings": Heading, "sentences": Sentence, "code_spans": CodeSpan,
                           "links": Link, "code_blocks": CodeBlock, "math": MathSpan,
                           "suppressions": Suppression}
_PAIRS = ("too_deep", "block_lines")          # lists of (first, last)
_FIELDS = {c: tuple(c.model_fields) for c in _PARTS.values()}
_TUPLES = {c: tuple(i for i, f in enumerate(c.model_fields.values()) if get_origin(f.annotation)
                    is tuple) for c in _PARTS.values()}


def to_plain(lesson: Lesson) -> dict[str, Any]:
    out: dict[str, Any] = {f: [list(p) for p in getattr(lesson, f)] for f in _PAIRS}
    out["block_kinds"] = list(lesson.block_kinds)
    for f, cls in _PARTS.items():
        names = _FIELDS[cls]
        out[f] = [[getattr(p, n) for n in names] for p in getattr(lesson, f)]
    return out


def from_plain(data: dict[str, Any]) -> Lesson:
    """The lesson of `to_plain`'s output, built without validation (it was checked when
    written). KeyError/TypeError/ValueError on data of another shape."""
    kw: dict[str, Any] = {f: [(int(a), int(b)) for a, b in data[f]] for f in _PAIRS}
    kw["block_kinds"] = [str(k) for k in data["block_kinds"]]
    kw.update(_parts(data, _PARTS))
    return Lesson.model_construct(**kw)


def _parts(data: dict[str, Any], which: dict[str, type]) -> dict[str, list]:
    kw: dict[str, list] = {}
    for f, cls in which.items():
        names, tuples, make = _FIELDS[cls], _TUPLES[cls], _builder(cls)
        rows = []
        for row in data[f]:
            if len(row) != len(names):
                raise ValueError(f"{f}: {len(row)} values for {len(names)} fields")
            if tuples:
                row = list(row)
                for i in tuples:
                    row[i] = tuple(row[i])
            rows.append(make(dict(zip(names, row))))
        kw[f] = rows
    return kw


_new, _set = object.__new__, object.__setattr__


def _builder(cls: type) -> Any:
    """A constructor of `cls` from a complete field dict, without validation: what
    pydantic's `model_construct` does for a model without private attributes or
    extras, without its per-call default handling (3x faster here; every field is
    given). `load_lesson` checks when writing that the result equals the parsed lesson,
    and `tests/speed/test_lesson_cache.py` that it equals `model_construct`'s."""
    fields = frozenset(cls.model_fields)

    def make(values: dict) -> Any:
        obj = _new(cls)
        _set(obj, "__dict__", values)
        _set(obj, "__pydantic_fields_set__", set(fields))
        _set(obj, "__pydantic_extra__", None)
        _set(obj, "__pydantic_private__", None)
        return obj

    return make


def _one_part(text: str, store: "Store | None", part: str) -> list:
    """One part of the lesson model of `text`, building nothing else on a hit."""
    if store is not None:
        hit = _cached(text, store)
        if hit is not None:
            try:
                return _parts(hit[0], {part: _PARTS[part]})[part]
            except (KeyError, TypeError, ValueError, IndexError):
                pass                       # load_lesson counts and repairs it
    return getattr(load_lesson(text, store), part)


def load_links(text: str, store: "Store | None" = None) -> list[Link]:
    """The links of `text` (`load_lesson(...).links`, building nothing else on a hit)."""
    return _one_part(text, store, "links")


def load_sentences(text: str, store: "Store | None" = None) -> list[Sentence]:
    """The sentences of `text` (`load_lesson(...).sentences`, nothing else on a hit)."""
    return _one_part(text, store, "sentences")


def _cached(text: str, store: "Store") -> tuple[dict] | None:
    from verifier.facts.cache import fact_cache

    fc = fact_cache(store)
    if not fc.enabled:
        return None
    blob = blob_sha(text.encode("utf-8"))
    version = code_version("verifier.lessons.model")
    hit = fc.get(EXTRACTOR, version, blob)
    return (hit,) if hit is not None else None


def load_lesson(text: str, store: "Store | None" = None) -> Lesson:
    """The lesson model of `text`: from the fact cache of `store` when it holds it,
    else parsed (and stored). Without a store, or with the fact cache off, parsed."""
    if store is None:
        return parse_lesson(text)
    from verifier.facts.cache import fact_cache

    fc = fact_cache(store)
    hit = _cached(text, store)
    if hit is not None:
        try:
            return from_plain(hit[0])
        except (KeyError, TypeError, ValueError, IndexError):
            fc.stats.corrupt += 1          # signed but not a lesson: parse again
    lesson = parse_lesson(text)
    if fc.enabled:
        plain = to_plain(lesson)
        if from_plain(plain) == lesson:    # validated when written
            fc.put(EXTRACTOR, code_version("verifier.lessons.model"),
                   blob_sha(text.encode("utf-8")), plain)
    return lesson
