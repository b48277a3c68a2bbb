"""`verifier coverage`: which checkable-looking sentences of a lesson no claim covers.

A *candidate* is a sentence (or a table row) that carries a code span, a number
or a permalink to a pinned upstream: the kind of sentence that states a fact
about source. A candidate is *covered* when some claim's fragment is located
inside it. Headings, fenced code, `$$` math blocks and HTML comments are not
candidates. Sentences end at 。！？； and at . ! ? followed by a space or the
line end (so `9.81` and `a.b` do not split); code spans never split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel

from verifier.claims.loader import LoadedClaim, load_claims

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project

_CODE = re.compile(r"`[^`\n]+`")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LINK = re.compile(r"https?://github\.com/[^\s)]+/blob/[0-9a-f]{40}/")
_END = re.compile(r"[。！？；]|[.!?](?=\s|$)")


class Candidate(BaseModel):
    line: int
    end_line: int
    text: str                    # the sentence, whitespace-collapsed, cut to 160 chars
    reasons: list[str]           # code | number | permalink
    covered_by: list[str] = []   # claim ids


class LessonCoverage(BaseModel):
    course: str
    lesson: str
    candidates: int
    covered: int
    percent: float
    claims: int
    uncovered: list[Candidate]


@dataclass
class _Unit:
    start: int   # char offsets into the lesson text
    end: int
    covered_by: list[str] = field(default_factory=list)


def _blocks(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_table_row) of prose blocks: paragraphs/list items and table rows."""
    out: list[tuple[int, int, bool]] = []
    pos = 0
    fence: str | None = None
    in_math = False
    in_comment = False
    para: tuple[int, int] | None = None

    def flush():
        nonlocal para
        if para:
            out.append((para[0], para[1], False))
        para = None

    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line.rstrip("\r\n"))
        pos += len(line)
        s = line.strip()
        if fence is not None:
            if s.startswith(fence):
                fence = None
            continue
        m = re.match(r"(`{3,}|~{3,})", s)
        if m:
            flush()
            fence = m.group(1)
            continue
        if in_comment:
            if "-->" in s:
                in_comment = False
            continue
        if s.startswith("<!--"):
            flush()
            in_comment = "-->" not in s
            continue
        if s == "$$" or (s.startswith("$$") and not (s.endswith("$$") and len(s) > 2)):
            flush()
            in_math = not in_math
            continue
        if in_math:
            if s.endswith("$$"):
                in_math = False
            continue
        if not s or s.startswith("#") or re.fullmatch(r"[-*_]{3,}", s):
            flush()
            continue
        if s.startswith("|"):
            flush()
            if not re.fullmatch(r"\|[\s:|-]+\|?", s):
                out.append((start, end, True))
            continue
        if re.match(r"([-*+]|\d+[.)])\s", s) or s.startswith(">"):
            flush()     # a list item / quote starts a new block
        para = (para[0], end) if para else (start, end)
    flush()
    return out


def _sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    block = text[start:end]
    protected = [(m.start(), m.end()) for m in _CODE.finditer(block)]
    protected += [(m.start(), m.end()) for m in re.finditer(r"\$[^$\n]+\$|\[[^\]]*\]\([^)]*\)", block)]
    out, cur = [], 0
    for m in _END.finditer(block):
        if any(a <= m.start() < b for a, b in protected):
            continue
        out.append((start + cur, start + m.end()))
        cur = m.end()
    if block[cur:].strip():
        out.append((start + cur, end))
    out = [(a, b) for a, b in out if text[a:b].strip()]
    # a trailing citation list ("[impl](permalink)、[doc](permalink)。") belongs to the
    # sentence before it
    merged: list[tuple[int, int]] = []
    for a, b in out:
        if merged and _citation_only(text[a:b]):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


def _citation_only(s: str) -> bool:
    if "](" not in s or _CODE.search(s):
        return False
    residue = re.sub(r"\[[^\]]*\]\([^)]*\)", "", s)
    residue = re.sub(r"[\s、，,。.;；:：()（）和与及见]", "", residue)
    return len(residue) <= 12


def _reasons(s: str) -> list[str]:
    r = []
    if _CODE.search(s):
        r.append("code")
    plain = _LINK.sub(" ", re.sub(r"\]\([^)]*\)", "]", _CODE.sub(" ", s)))
    if _NUMBER.search(plain):
        r.append("number")
    if _LINK.search(s):
        r.append("permalink")
    return r


def _offset(fragment: str, text: str) -> int | None:
    i = text.find(fragment)
    if i >= 0:
        return i
    words = fragment.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return m.start() if m else None


def lesson_coverage(lesson: "LessonDoc", claims: list[LoadedClaim]) -> LessonCoverage:
    text = lesson.text
    units: list[_Unit] = []
    for a, b, is_row in _blocks(text):
        spans = [(a, b)] if is_row else _sentences(text, a, b)
        units.extend(_Unit(x, y) for x, y in spans if _reasons(text[x:y]))
    for lc in claims:
        off = _offset(lc.claim.fragment, text) if lc.claim.fragment else None
        if off is None:
            continue
        for u in units:
            if u.start <= off < u.end:
                u.covered_by.append(lc.claim.id)
                break
    uncovered = []
    for u in units:
        if u.covered_by:
            continue
        s = " ".join(text[u.start:u.end].split())
        uncovered.append(Candidate(line=text.count("\n", 0, u.start) + 1,
                                   end_line=text.count("\n", 0, u.end) + 1,
                                   text=s if len(s) <= 160 else s[:157] + "...",
                                   reasons=_reasons(text[u.start:u.end])))
    covered = sum(1 for u in units if u.covered_by)
    pct = round(100.0 * covered / len(units), 1) if units else 100.0
    return LessonCoverage(course=lesson.course, lesson=lesson.path, candidates=len(units),
                          covered=covered, percent=pct, claims=len(claims), uncovered=uncovered)


def run_coverage(project: "Project", lessons: "list[LessonDoc] | None" = None) -> list[LessonCoverage]:
    pool = lessons if lessons is not None else project.lessons()
    claims = load_claims(project, pool)
    by_lesson: dict[tuple[str, str], list[LoadedClaim]] = {}
    for lc in claims:
        by_lesson.setdefault((lc.course, lc.lesson), []).append(lc)
    return [lesson_coverage(ld, by_lesson.get((ld.course, ld.path), []))
            for ld in sorted(pool, key=lambda d: (d.course, d.path))]
