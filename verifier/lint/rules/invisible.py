from __future__ import annotations

import unicodedata
from urllib.parse import unquote

from verifier.lint.base import Rule
from verifier.results import Severity


def invisible(text: str) -> list[str]:
    """The invisible format characters in `text` (Unicode category Cf: zero-width
    space/joiners, soft hyphen, word joiner, byte-order mark, bidirectional marks,
    embeddings, overrides and isolates), in order."""
    return [c for c in text if unicodedata.category(c) == "Cf"]


def shown(text: str) -> str:
    """`text` with every invisible character written as its escape (`\\u200b`)."""
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cf" else c for c in text)


class Invisible(Rule):
    """Zero-width, soft-hyphen, byte-order-mark and bidirectional-control characters
    (Unicode category Cf) inside an inline code span (an identifier: `mj_re\\u200bsetData`
    is not `mj_resetData`, and no index can hold it) or a link target (a file name or
    fragment, percent-encoded or not): an error on its line, the text shown with each
    such character escaped, so nothing is skipped silently because it looks right."""

    name = "invisible-character"
    code = "VL112"

    def check(self, ctx, doc, lesson):
        out = []
        for span in lesson.code_spans:
            if invisible(span.text):
                out.append(self._finding(doc, span.line, "code span", span.text))
        for link in lesson.links:
            target = unquote(link.href)
            if invisible(target):
                out.append(self._finding(doc, link.line, "link target", target))
        return out

    def _finding(self, doc, line: int, what: str, text: str):
        names = ", ".join(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, 'FORMAT')}"
                                        for c in invisible(text)))
        return self.finding(doc, line, f"{what} `{shown(text)}` contains invisible "
                            f"character(s) {names}: it is not the name it looks like",
                            severity=Severity.ERROR, target=shown(text))
