"""The HTML report's text pieces: escaping, a lesson sentence's inline Markdown with the
claim's fragment marked, the language of a text, and the shared causes of what could
not be checked (verifier/reporters/html.py assembles the page)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache
from html import escape

from markdown_it import MarkdownIt


def e(v: object) -> str:
    return escape("" if v is None else str(v), quote=True)


# --------------------------------------------------------------------------- lesson Markdown

_MD = MarkdownIt("commonmark", {"html": False})
_LINE_PREFIX = re.compile(r"^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)+")


@lru_cache(maxsize=4096)
def _leaves(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Inline Markdown as (plain text, wrapping tags) pieces; links keep only their text
    (memoised: claims share sentences and fragments)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    stack: list[str] = []
    tags = {"strong_open": "strong", "em_open": "em", "s_open": "s"}
    for tok in (_MD.parseInline(text)[0].children or []) if text else []:
        if tok.type in tags:
            stack.append(tags[tok.type])
        elif tok.type.endswith("_close") and tok.type != "link_close":
            if stack:
                stack.pop()
        elif tok.type == "code_inline":
            out.append((tok.content, (*stack, "code")))
        elif tok.type in ("softbreak", "hardbreak"):
            out.append((" ", tuple(stack)))
        elif tok.type == "image":
            out.append((tok.content or "", tuple(stack)))
        elif tok.type in ("text", "html_inline"):
            out.append((tok.content, tuple(stack)))
    return tuple(out)


def _plain(text: str) -> str:
    return "".join(t for t, _ in _leaves(text))


def sentence_html(sentence: str, fragment: str | None) -> str:
    """The lesson line with its inline Markdown rendered (code, emphasis; links as their
    text; block markers and table pipes dropped) and the claim's fragment marked."""
    line = _LINE_PREFIX.sub("", sentence.strip())
    if line.startswith("|"):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        line = " · ".join(c for c in cells if c)
    leaves = _leaves(line)
    plain = "".join(t for t, _ in leaves)
    lo = hi = -1
    if fragment:
        for cand in (_plain(fragment), fragment, fragment.replace("`", "")):
            cand = cand.strip()
            if cand and cand in plain:
                lo = plain.index(cand)
                hi = lo + len(cand)
                break
    out, pos = [], 0
    for text, wrap in leaves:
        a, b = pos, pos + len(text)
        pos = b
        if lo < b and hi > a and lo >= 0:
            s, t = max(lo, a) - a, min(hi, b) - a
            inner = e(text[:s]) + "<mark>" + e(text[s:t]) + "</mark>" + e(text[t:])
        else:
            inner = e(text)
        for tag in reversed(wrap):
            inner = f"<{tag}>{inner}</{tag}>"
        out.append(inner)
    return "".join(out)


# --------------------------------------------------------------------------- causes


class Causes:
    """Why things could not be checked, each distinct reason once.

    A reason ("a; b; c") is split at "; ". A part that occurs in two or more distinct
    reasons (e.g. the same provider failure for many files) belongs to a shared cause: the
    shared parts of a reason, together, are listed once in the report and referenced from
    each card. The rest of a reason (e.g. which blob was missing) stays on its card."""

    def __init__(self, reasons: list[str]) -> None:
        in_reasons: dict[str, set[str]] = defaultdict(set)
        for r in reasons:
            for part in self.parts(r):
                in_reasons[part].add(r)
        self.shared = {p for p, rs in in_reasons.items() if len(rs) >= 2}
        counts: Counter[str] = Counter()
        for r in reasons:
            key = self.key(r)
            if key:
                counts[key] += 1
        ordered = sorted(counts, key=lambda k: (-counts[k], k))
        self.ids = {k: i + 1 for i, k in enumerate(ordered)}
        self.counts = counts
        self.users: dict[str, list[tuple[str, str]]] = defaultdict(list)

    @staticmethod
    def parts(reason: str) -> list[str]:
        return [p.strip() for p in (reason or "").split("; ") if p.strip()]

    def key(self, reason: str) -> str:
        return "; ".join(p for p in self.parts(reason) if p in self.shared)

    def html(self, reason: str | None, anchor: str | None = None, label: str = "") -> str:
        """The card's own part of `reason`, plus a link to its shared cause."""
        if not reason:
            return ""
        own = "; ".join(p for p in self.parts(reason) if p not in self.shared)
        key = self.key(reason)
        out = e(own)
        if key:
            n = self.ids[key]
            if anchor:
                self.users[key].append((anchor, label))
            short = key if len(key) <= 60 else key[:59] + "…"
            out += (("; " if own else "") + f'<a class="cause-ref" href="#cause-{n}">'
                    f"cause {n}</a> <span class=\"muted\">({e(short)})</span>")
        return out


_SCRIPTS = (("ja", re.compile(r"[\u3040-\u30ff]")), ("ko", re.compile(r"[\uac00-\ud7af]")),
            ("zh", re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")))


def lang_of(text: str | None) -> str | None:
    """The language tag of lesson text written in a CJK script (kana: ja, hangul: ko, Han
    alone: zh), None for anything else: the page's own text is English (`lang="en"`), a
    lesson sentence in Chinese gets `lang="zh"` so browsers pick a CJK font for it."""
    for tag, pat in _SCRIPTS:
        if text and pat.search(text):
            return tag
    return None


def lang_attr(text: str | None) -> str:
    tag = lang_of(text)
    return f' lang="{tag}"' if tag else ""


