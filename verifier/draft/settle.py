"""A proposal's `says` made what `check` accepts: every span reads and carries a value
the claim holds (or the claim says why not, `paraphrase`).

Proposers write the words they read the assertion from. Those words are not always a
claim's spans as `check` binds them (verifier/claims/binding.py `span_problems`): a list
of port words (`body poses、spatial velocities`) read by no name reader, a keyword
written in the sentence as `x=True` while the claim holds `x`. Such a span is dropped
(or read by the inferred reader when its asked reader does not read it); when no span
is left, the claim's spans are found the way `verifier claims says` finds them for any
claim (verifier/claims/saysdraft.py), and a claim none of whose words the claim holds
gets that module's `paraphrase` for its kind. A draft therefore never fails to load
and never errors in `check` for its spans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from verifier.claims.binding import span_problems
from verifier.claims.model import Claim
from verifier.claims.says import Span, plain, read_as
from verifier.claims.saysdraft import propose, reason
from verifier.claims.sentences import _plain_fragment, sentence_of
from verifier.draft.model import Proposal

if TYPE_CHECKING:
    from verifier.cache import Store


def settle(p: Proposal, lesson_text: str, code: set[str], store: "Store | None" = None) -> None:
    """Make `p.says` (and `p.paraphrase`) valid for the sentence `check` will find
    (`store`: the sentence index of the lesson from its fact cache, built once)."""
    sentence = sentence_of(lesson_text, p.fragment, p.line or None, store=store)
    if sentence is None:
        p.says = []
        return
    readable: list = []
    for e in p.says:
        if isinstance(e, dict) and read_as(e.get("read"), plain(e["text"])) is None:
            e = e["text"]
        readable.append(e)
    table = {**p.table(None), "id": p.id or "draft", "says": None, "paraphrase": p.paraphrase or None}
    try:
        claim = Claim.model_validate(table)
    except ValidationError:      # the claim itself does not load: draft/write.py says why
        p.says = readable
        return
    kept = [e for e in readable
            if span_problems(claim, [_span(e)], sentence) is None]
    if kept or p.paraphrase:
        p.says = kept
        return
    found = propose(claim, sentence, _plain_fragment(p.fragment), code)
    if found:
        p.says = found
    else:
        p.says = []
        p.paraphrase = reason(claim)


def _span(e: str | dict) -> Span:
    """A `says` entry as proposals write it (a string, or a table with text and read)."""
    return Span(plain(e)) if isinstance(e, str) else Span(plain(e["text"]), e.get("read"))
