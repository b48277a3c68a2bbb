"""Each claim bound to its lesson sentence as it reads now: the claim `check` checks.

For a claim whose sentence is the one it was reviewed against (claims.lock), that
is the claim as written. For one whose sentence was edited since, its `says` spans
are followed into the new sentence (verifier/claims/follow.py):

  outside   the spans read the same and the clause's polarity is unchanged: the edit
            is elsewhere; the claim is checked as written (a note says so)
  derived   a span reads something else, or the clause's polarity flipped: the claim
            is re-derived from the sentence's words (verifier/claims/slots.py) and
            checked as the sentence now says it — negated when the polarity flipped
  stale     a span is gone or no longer parses, or the claim has no spans to follow, or
            the spans read the same but a reviewed word of the sentence that is one of
            the claim's own names and numbers (claims.lock `marks`) was removed,
            replaced or moved — a repetition of a checked value edited, two checked
            names swapped outside the spans (a new mention added is no such edit):
            a person must look; the result shows the reviewed spans in their contexts
            beside the current sentence, the line, and what the evidence still says

A claim whose fragment left the lesson (an edit inside it) is relocated to the
sentence that best matches its fragment and contexts before it is followed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError

from verifier.claims.follow import (Followed, claim_atoms, follow, lost_marks, relocate,
                                    reviewed_view, sentence_flips)
from verifier.claims.model import Claim
from verifier.claims.says import Polarity, Span, reader_of, show, spans_of
from verifier.claims.sentences import (_plain_fragment, lesson_sentences, locate,
                                       sentence_hash, sentence_of)
from verifier.claims.slots import bind, derive
from verifier.results import SentenceEdit, SpanChange

if TYPE_CHECKING:
    from verifier.cache import Store
    from verifier.claims.loader import LoadedClaim
    from verifier.claims.lock import Bindings
    from verifier.project import LessonDoc


@dataclass(frozen=True)
class Bound:
    lc: "LoadedClaim"               # the claim to check: derived when its spans were edited
    line: int | None
    sentence: str | None            # the sentence as it reads now
    state: str                      # same | unbound | outside | derived | stale | gone | none
    note: str | None = None         # what following the sentence found (for the message)
    edit: SentenceEdit | None = None
    problem: str | None = None      # the claim's `says` cannot be what its sentence says
    turned: list[str] | None = None  # the sentence's polarity flipped outside the claim's clause
    # the claim's own words removed, replaced or moved outside its spans (follow.lost_marks)
    marks: tuple[str, ...] | None = None


def span_problems(claim: Claim, spans: list[Span], sentence: str) -> str | None:
    """Why `says` cannot be this sentence's assertion: a span not in the sentence, or
    one that occurs nowhere in the claim (a number, name or list the claim does not
    hold), or None."""
    data = claim.model_dump()
    for sp in spans:
        if sp.text not in sentence:
            return f"`says` span {sp.text!r} is not in the sentence ({sentence[:120]!r})"
        r = sp.reading()
        if r is None:
            return f"`says` span {sp.text!r} does not read as a {sp.read}"
        if claim.paraphrase:
            continue          # the words are said otherwise in the claim: not bound
        if not isinstance(r, Polarity) and not bind(r, data):
            return (f"`says` span {sp.text!r} (read as a {reader_of(r)}, {show(r)}) occurs "
                    "nowhere in the claim (expected, symbol, options, runtime): it cannot carry "
                    "what the claim checks")
    return None


def _edit(reviewed, sentence: str, f: Followed | None, negated: bool = False) -> SentenceEdit:
    changes = []
    for e in (f.edits if f else []):
        changes.append(SpanChange(was=e.old, now=e.new, why=e.why))
    return SentenceEdit(reviewed=reviewed_view(reviewed) or None, now=sentence, spans=changes,
                        negated=negated, polarity=list(f.flip_words) if f else [],
                        reviewed_line=reviewed.line)


def _refragment(fragment: str, f: Followed, text: str) -> str:
    """The fragment with the edited spans' new words (when that is in the lesson, as a
    fragment must be), else as it was."""
    import re

    out = fragment
    for e in f.changed:
        out = re.sub(r"(?<![A-Za-z0-9_])" + re.escape(e.old) + r"(?![A-Za-z0-9_])",
                     lambda _m, new=e.new: new, out)
    return out if out != fragment and locate(out, text) is not None else fragment


def bind_claim(lc: "LoadedClaim", lesson: "LessonDoc", bindings: "Bindings | None",
               store: "Store | None" = None) -> Bound:
    c = lc.claim
    text = lesson.text
    entry = bindings.get(lc.gid) if bindings is not None and bindings.exists else None
    spans = spans_of(c.says)
    frag = _plain_fragment(c.fragment)
    line = locate(c.fragment, text) if c.fragment else None
    relocated = False
    if line is None:
        found = relocate(frag, entry, lesson_sentences(text, store)) if entry is not None else None
        if found is None:
            where = f" (reviewed at line {entry.line})" if entry is not None and entry.line else ""
            return Bound(lc, entry.line if entry is not None else None, None, "gone",
                         note=f"fragment {c.fragment!r} is no longer in {lc.course}/{lc.lesson}"
                              f"{where}; no sentence of the lesson is recognisably its sentence",
                         edit=_edit(entry, "", None) if entry is not None and entry.spans else None)
        sentence, line = found
        relocated = True
    else:
        sentence = sentence_of(text, c.fragment, line, store=store)
    if sentence is None:
        return Bound(lc, line, None, "none")
    if entry is None:
        return Bound(lc, line, sentence, "unbound", problem=span_problems(c, spans, sentence)
                     if spans else None)
    if not relocated and entry.sentence == sentence_hash(sentence):
        return Bound(lc, line, sentence, "same", problem=span_problems(c, spans, sentence)
                     if spans else None)
    moved = (f"its fragment {c.fragment!r} was edited; the claim follows the sentence at line "
             f"{line}; " if relocated else "")
    if not spans or not entry.spans or c.paraphrase:
        if (not spans or c.paraphrase) and entry.line is not None:
            # no words to follow, but the clause's polarity still is the claim's
            f = follow(entry, [], sentence, frag)
            if f.negated:
                return Bound(dataclasses.replace(lc, negated=True), line, sentence, "derived",
                             note=f"{moved}the sentence was edited since review "
                                  f"({'; '.join(f.flip_words)}): checked as it reads now (its "
                                  "assertion negated)", edit=_edit(entry, sentence, f, True))
        lost = lost_marks(entry, sentence, claim_atoms(c.model_dump(), spans))
        why = ("the claim names no `says` spans to follow" if not spans else
               "its `expected` is not its spans' words (`paraphrase`)" if c.paraphrase else
               "claims.lock keeps no spans for it (bound before `says`)")
        if lost is not None:
            why += (f", and the words of the sentence that are the claim's own names and "
                    f"numbers changed ({'; '.join(lost)})")
        return Bound(lc, line, sentence, "stale", edit=_edit(entry, sentence, None), marks=lost,
                     note=f"{moved}sentence changed since the claim was reviewed and {why}; "
                          f"re-check and re-bind with `verifier claims rebind {lc.gid}` (the "
                          f"sentence now reads: {sentence[:160]!r})")
    f = follow(entry, spans, sentence, frag)
    if f.gone:
        what = "; ".join(f"`{e.old}`: {e.why}" + (f" (now “{e.new}”)" if e.new else "")
                         for e in f.gone)
        return Bound(lc, line, sentence, "stale", edit=_edit(entry, sentence, f),
                     note=f"{moved}what the claim checks is no longer readable in its sentence "
                          f"({what}); reviewed: {reviewed_view(entry)}; now: {sentence[:200]!r}")
    if not f.changed and not f.negated:
        lost = lost_marks(entry, sentence, claim_atoms(c.model_dump(), spans))
        if lost is not None:
            return Bound(lc, line, sentence, "stale", edit=_edit(entry, sentence, f),
                         marks=lost,
                         note=f"{moved}its spans read the same, but the words of the sentence "
                              "that are the claim's own names and numbers changed outside them "
                              f"({'; '.join(lost)}; reviewed in order: {' '.join(entry.marks)}): "
                              "another occurrence or the order of what it checks was edited; "
                              "re-check and re-bind")
        note = (f"{moved}sentence edited since review outside what this claim checks (its spans "
                "read the same)" + (f"; polarity words changed but cancel out: "
                                    f"{', '.join(f.flip_words)}" if f.flip_words else ""))
        n, why = sentence_flips(entry, sentence)
        return Bound(lc, line, sentence, "outside", note=note, edit=_edit(entry, sentence, f),
                     turned=why if n % 2 else None)
    data = c.model_dump()
    changes = [(e.old_reading, e.new_reading, bind(e.old_reading, data)) for e in f.changed]
    new = derive(data, changes)
    if new is not None:        # the claim now says what its sentence says
        says = list(new["says"])
        for i, now in [(e.index, e.new) for e in f.changed] + f.swapped:
            says[i] = now if isinstance(says[i], str) else {**says[i], "text": now}
        new["says"] = [s for i, s in enumerate(says) if i not in f.dropped] or None
        new["fragment"] = _refragment(c.fragment, f, text)
    derived: Claim | None = None
    if new is not None:
        try:
            derived = Claim.model_validate(new)
        except ValidationError:
            derived = None
    if derived is None:
        return Bound(lc, line, sentence, "stale", edit=_edit(entry, sentence, f),
                     note=f"{moved}the sentence's spans changed ("
                          + "; ".join(f"`{e.old}` -> `{e.new}`" for e in f.changed)
                          + ") but the claim cannot be re-derived from them; re-check and re-bind")
    said = [f"`{e.old}` -> `{e.new}`" for e in f.changed] + list(f.flip_words)
    note = (f"{moved}the sentence was edited since review ({'; '.join(said)}): checked as it "
            "reads now" + (" (its assertion negated)" if f.negated else ""))
    return Bound(dataclasses.replace(lc, claim=derived, negated=f.negated), line, sentence,
                 "derived", note=note, edit=_edit(entry, sentence, f, f.negated))
