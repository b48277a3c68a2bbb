from __future__ import annotations

import re

from verifier.lint.base import Rule
from verifier.results import Severity

# "X，不是 X", "是 X 而不是 X", "X, not X", "X rather than X": the same term asserted and
# denied side by side
_DENY = re.compile(r"\s*(?:[，,]\s*)?(?:而|但)?(?:不是|并非|而非|非|not|rather than|instead of)\s*",
                   re.I)
_TERM = r"[^\s，,。；;：:（()）、]{2,60}"
_NAMED = re.compile(r"[A-Za-z→]")
_BEFORE = re.compile(r"(?:^|[\s，,：:（(；;])(?:是|为|is|are)?\s*(" + _TERM + r")\s*$")
_AFTER = re.compile(r"(" + _TERM + r")(?=$|[\s，,。；;：:（()）、])")


def _norm(t: str) -> str:
    return t.strip("`*\"'“”‘’").rstrip(".").replace("->", "→").lower()


def denials(text: str) -> list[str]:
    """Terms the sentence both asserts and, right after, denies."""
    out = []
    for m in _DENY.finditer(text):
        before = _BEFORE.search(text, max(0, m.start() - 80), m.start())
        after = _AFTER.match(text, m.end())
        if before is None or after is None:
            continue
        a, b = _norm(before.group(1)), _norm(after.group(1))
        if a == b and _NAMED.search(a):
            out.append(before.group(1).strip("`*"))
    return out


class SelfDenial(Rule):
    """A sentence that asserts a term and denies the very same term right after it:
    "Camera transform 是 world→camera，不是 world→camera", "X, not X". One of the two
    was meant to be something else (an order turned around, a name replaced): a warning
    on its line. Only a term with Latin letters or an arrow is judged, compared without
    its code or emphasis markup."""

    name = "self-denial"
    code = "VL114"
    severity = "warning"

    def check(self, ctx, doc, lesson):
        out = []
        for s in lesson.sentences:
            for term in denials(s.text):
                out.append(self.finding(
                    doc, s.line, f"the sentence asserts `{term}` and denies `{term}` right "
                    "after it: one of the two is not what was meant",
                    severity=Severity.WARNING, target=term))
        return out
