"""`verifier coverage`: which checkable sentences of a lesson no reviewed claim covers.

The unit is a sentence of the lesson model (`verifier/lessons/model.py`), or a
whole table row. A unit is a *candidate* (a checkable sentence) when it carries

  code       a code span that is code (not a formula such as `vᵀJᵀf=(Jv)ᵀf`, not a SHA),
  number     a number in the prose (outside code spans, `$...$` maths, link targets and
             bounds of conditions such as `vn>0`),
  permalink  a link to a file of a pinned upstream (`github.com/<owner>/<repo>/blob/...`);

and it is none of these:

  - a heading, a fenced code block, a `$$` maths block, a table header row;
  - a question (ends in `?`/`？`: exercises ask, they do not assert);
  - a pure citation (only links and glue words like "见"/"and"): it belongs to the
    sentence before it (after a table: to every row of the table);
  - numbers that are exercise or section numbering (`练习 1`, `Exercise 2`, `§3`,
    `4.2 节`, an item number such as `**1.**` opening a unit) and version or commit mentions (`MuJoCo 3.15.0`, a pinned SHA) do not
    count: lint (VL105 version) checks those.

A candidate is *covered* when a reviewed claim's fragment is located inside it;
drafts (`review = "draft"`) are counted apart (`drafted`) and never cover.

Pages that are not lessons are left out by rule (`coverage.toml` next to
pins.toml, optional; defaults in `DEFAULT_EXCLUDE`): glob patterns matched
against the page's path inside its course's docs directory (`*` also matches
`/`), in named groups (`index`, `validation`); a course may replace a group.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field

from verifier.basemodel import Model, Record
from verifier.claims.loader import LoadedClaim, load_claims
from verifier.lessons.model import parse_lesson
from verifier.permalinks import parse_github_url
from verifier.tomlerrors import read_toml, validate

if TYPE_CHECKING:
    from verifier.pins import Pins
    from verifier.project import LessonDoc, Project

CONFIG_FILE = "coverage.toml"

# Index and validation pages of a course: patterns, not today's file list.
DEFAULT_EXCLUDE: dict[str, list[str]] = {
    "index": ["index.md", "README.md", "readme.md", "curriculum.md", "guide.md",
              "installation.md", "install.md", "roadmap.md", "source-map.md", "versions.md",
              "*/index.md", "*/README.md"],
    "validation": ["validation/*", "evidence/*", "*validation.md", "*-validation-*.md"],
}

_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?")
_HEX = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])")
# exercise / section numbering: not facts
_NUMBERING = re.compile(
    r"(?:练习|习题|问题|思考题|例题|示例|步骤|题|Exercise|Question|Problem|Step|Task|Q)\s*\d+"
    r"(?:\.\d+)*\s*[：:.、)）]?|§\s*\d+(?:\.\d+)*|第\s*\d+\s*[节章步题课]|\d+(?:\.\d+)*\s*节",
    re.I)
# an item number heading a unit ("**1.** ..." splits off as the sentence "1."): numbering
_ITEM_MARK = re.compile(r"^\s*[(（]?\d{1,3}[.)）、](?!\d)")
# a bound in a condition (`vn>0`, `nv >= 60`): maths, not a stated value
_INEQUALITY = re.compile(r"[<>≤≥≠]=?\s*[-+−]?\d[\d.]*|[-+−]?\d[\d.]*\s*[<>≤≥≠]")
_LINK_MD = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\([^)]*\)")
_CITE_GLUE = re.compile(r"(?:see|also|and|the|cf\.?|源码|实现|定义|说明|参见|参看|详见|见于|对应|"
                        r"见|和|与|及|或|另|请)|[\s、，,。.;；:：()（）\[\]*_&]+", re.I)


class Candidate(Model):
    line: int
    end_line: int
    text: str                    # the sentence, whitespace-collapsed, cut to 160 chars
    reasons: list[str]           # code | number | permalink
    covered_by: list[str] = []   # claim ids


class LessonCoverage(Model):
    course: str
    lesson: str
    candidates: int
    covered: int
    percent: float
    claims: int                  # reviewed claims bound to the lesson
    drafts: int = 0              # draft claims bound to the lesson
    drafted: int = 0             # uncovered candidates a draft proposes something for
    uncovered: list[Candidate]


# --------------------------------------------------------------------------- page rule



class CourseCoverage(Record):
    exclude: dict[str, list[str]] = Field(default_factory=dict,
                                          description="groups replacing the global ones")


class CoverageConfig(Record):
    schema_: int = Field(default=1, alias="schema")
    exclude: dict[str, list[str]] = Field(default_factory=dict,
                                          description="groups replacing DEFAULT_EXCLUDE's")
    course: dict[str, CourseCoverage] = Field(default_factory=dict)

    def groups(self, course: str) -> dict[str, list[str]]:
        out = {**DEFAULT_EXCLUDE, **self.exclude}
        c = self.course.get(course)
        if c is not None:
            out.update(c.exclude)
        return out

    def excluded(self, course: str, docs_path: str) -> str | None:
        """The group that leaves this page out (path inside the docs directory), or None."""
        for name, pats in sorted(self.groups(course).items()):
            if any(fnmatch.fnmatchcase(docs_path, p) for p in pats):
                return f"{name} page ({next(p for p in pats if fnmatch.fnmatchcase(docs_path, p))})"
        return None


def load_config(root: Path) -> CoverageConfig:
    path = root / CONFIG_FILE
    if not path.is_file():
        return CoverageConfig()
    data, text = read_toml(path)
    return validate(CoverageConfig, data, path, text)


def docs_path(project: "Project", lesson: "LessonDoc") -> str:
    course = project.pins.course.get(lesson.course)
    docs = (course.docs if course is not None else "docs").strip("/")
    return lesson.path[len(docs) + 1:] if docs and lesson.path.startswith(docs + "/") \
        else lesson.path


def split_lessons(project: "Project", lessons: "list[LessonDoc]"
                  ) -> tuple["list[LessonDoc]", list[tuple["LessonDoc", str]]]:
    """(lessons, [(page, why excluded)]) by the page rule."""
    cfg = load_config(project.root)
    keep, out = [], []
    for ld in lessons:
        why = cfg.excluded(ld.course, docs_path(project, ld))
        (out.append((ld, why)) if why else keep.append(ld))
    return keep, out


# --------------------------------------------------------------------------- units


@dataclass
class Unit:
    """A checkable sentence (or table row) of a lesson."""

    start: int                   # raw char span in the lesson text
    end: int
    line: int
    end_line: int
    text: str                    # plain text (markup dropped, code spans verbatim)
    code: tuple[str, ...]
    links: tuple[str, ...]       # hrefs (own links, then citations attached to it)
    reasons: list[str] = field(default_factory=list)
    row: bool = False
    cells: tuple[tuple[str, tuple[str, ...]], ...] = ()   # rows: (cell text, code spans)
    header: tuple[str, ...] = ()                          # rows: the table's header cells
    context: tuple[str, ...] = ()   # rows: code spans of the sentence introducing the table
    block: int = 0


@lru_cache(maxsize=8)
def parsed(text: str):
    """The lesson model of a text (parsed once per text)."""
    return parse_lesson(text)


def _is_permalink(href: str, pins: "Pins | None") -> bool:
    gl = parse_github_url(href)
    if gl is None or gl.kind not in ("blob", "raw") or not gl.path:
        return False
    if pins is None:
        return gl.is_sha
    return pins.by_slug(gl.slug) is not None


@lru_cache(maxsize=16)
def _version_patterns(versions: tuple[tuple[str, str], ...]) -> tuple[re.Pattern, ...]:
    """Version mentions lint checks: `<upstream> <version>`, and a pinned version on
    its own ("3.15 还初始化 ...", "1.57.0 的 ...")."""
    alt = "|".join(map(re.escape, sorted([n for n, _ in versions] + ["python", "cuda", "py"],
                                         key=len, reverse=True)))
    out = [re.compile(rf"(?i)(?<![A-Za-z0-9-])({alt})(?![A-Za-z0-9-])[\s*_`:/（(]{{0,6}}"
                      r"v?\d+(?:\.\d+)+")]
    words = set()
    for _, v in versions:
        v = v.lstrip("v")
        words |= {v, ".".join(v.split(".")[:2])} - {""}
    if words:
        out.append(re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, sorted(words)))
                              + r")(?![\w]|\.\d)"))
    return tuple(out)


def _version_free(s: str, pins: "Pins | None") -> str:
    s = _HEX.sub(" ", s)
    if pins is not None:
        key = tuple(sorted((u.name, u.version) for u in pins.upstream.values()))
        for pat in _version_patterns(key):
            s = pat.sub(" ", s)
    return s


def is_maths(code: str) -> bool:
    """A code span that is a formula (`vᵀJᵀf=(Jv)ᵀf`, `q∈R^nq`, `−D v`), not code."""
    return "^" in code or any(not c.isascii() and not _is_cjk(c) for c in code)


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return 0x3000 <= o <= 0x9FFF or 0xFF00 <= o <= 0xFFEF


def reasons(text: str, code: tuple[str, ...], links: tuple[str, ...],
            pins: "Pins | None" = None) -> list[str]:
    r = []
    if any(c.strip() and not _HEX.fullmatch(c.strip()) and not is_maths(c) for c in code):
        r.append("code")
    plain = text
    for c in sorted(set(code), key=len, reverse=True):
        plain = plain.replace(c, " ")
    plain = re.sub(r"\$[^$]*\$", " ", plain)
    plain = _ITEM_MARK.sub(" ", plain)
    plain = _NUMBERING.sub(" ", _version_free(plain, pins))
    plain = _INEQUALITY.sub(" ", plain)
    if _NUMBER.search(plain):
        r.append("number")
    if any(_is_permalink(h, pins) for h in links):
        r.append("permalink")
    return r


def _citation_only(raw: str) -> bool:
    if "](" not in raw:
        return False
    residue = _LINK_MD.sub(" ", raw)
    if "`" in residue:
        return False
    residue = _CITE_GLUE.sub("", residue)
    return len(residue) <= 8


def units(text: str, pins: "Pins | None" = None) -> list[Unit]:
    """Every candidate unit of a lesson, in order."""
    lesson = parsed(text)
    kinds = lesson.block_kinds
    line_at = _line_index(text)
    by_block: dict[int, list] = {}
    for s in lesson.sentences:
        by_block.setdefault(s.block, []).append(s)
    out: list[Unit] = []
    row_units: list[Unit] = []       # rows of the table being read
    header: tuple[str, ...] = ()
    intro: tuple[str, ...] = ()
    last_para: Unit | None = None    # last unit of the previous prose block
    rows: dict[int, list[int]] = {}  # first line -> blocks of a table row
    for b, kind in enumerate(kinds):
        if kind in ("cell", "head"):
            rows.setdefault(lesson.block_lines[b][0], []).append(b)
    done_rows: set[int] = set()

    def block_span(b: int) -> tuple[int, int]:
        first, last = lesson.block_lines[b]
        a = line_at[first - 1]
        z = line_at[last] - 1 if last < len(line_at) else len(text)
        return a, max(a, z)

    for b, kind in enumerate(kinds):
        if kind in ("fence", "heading"):
            if kind == "heading":
                row_units, header, last_para = [], (), None
            continue
        if kind in ("cell", "head"):
            first = lesson.block_lines[b][0]
            if first in done_rows:
                continue
            done_rows.add(first)
            cells = rows[first]
            sents = [s for c in cells for s in by_block.get(c, [])]
            cell_info = tuple((" ".join(s.text for s in by_block.get(c, [])),
                               tuple(x for s in by_block.get(c, []) for x in s.code))
                              for c in cells)
            if kinds[cells[0]] == "head":
                header = tuple(t for t, _ in cell_info)
                intro = last_para.code if last_para is not None else ()
                row_units = []
                continue
            a, z = block_span(cells[0])
            u = Unit(start=a, end=z, line=first, end_line=lesson.block_lines[cells[0]][1],
                     text=" | ".join(t for t, _ in cell_info),
                     code=tuple(x for s in sents for x in s.code),
                     links=tuple(dict.fromkeys(h for s in sents for h in s.links)),
                     row=True, cells=cell_info, header=header, context=intro, block=cells[0])
            out.append(u)
            row_units.append(u)
            continue
        # prose block: its sentences tile the block's raw span
        sents = by_block.get(b, [])
        a0, z0 = block_span(b)
        # sentence i spans from its first character (with the markup right before it,
        # e.g. a backtick) to the next sentence's: the spans tile the block
        starts = [a0] + [_markup_start(text, s.start, a0) for s in sents[1:]] + [z0]
        prose: list[Unit] = []
        for i, s in enumerate(sents):
            a, z = starts[i], starts[i + 1]
            raw = text[a:z]
            if _citation_only(raw):
                if prose:
                    prose[-1].links += s.links
                    prose[-1].end = z
                elif row_units and i == 0:
                    for r in row_units:
                        r.links += s.links
                elif last_para is not None and i == 0:
                    last_para.links += s.links
                continue
            prose.append(Unit(start=a, end=z, line=s.line, end_line=_line_of(line_at, z - 1),
                              text=s.text, code=s.code, links=s.links, block=b))
        out.extend(prose)
        if prose:
            last_para = prose[-1]
        row_units = []
    keep = []
    for u in out:
        u.links = tuple(dict.fromkeys(u.links))
        if u.text.rstrip(" *_").endswith(("?", "？")):
            continue
        u.reasons = reasons(u.text, u.code, u.links, pins)
        if u.reasons:
            keep.append(u)
    return keep


def _markup_start(text: str, start: int, floor: int) -> int:
    while start > floor and text[start - 1] in "`*_[~":
        start -= 1
    return start


def _line_index(text: str) -> list[int]:
    """Offset of the start of every line, plus len(text)+1 at the end."""
    out = [0]
    for line in text.split("\n"):
        out.append(out[-1] + len(line) + 1)
    return out


def _line_of(line_at: list[int], off: int) -> int:
    import bisect

    return max(1, bisect.bisect_right(line_at, max(0, off)))


def fragment_offset(fragment: str, text: str) -> int | None:
    i = text.find(fragment)
    if i >= 0:
        return i
    words = fragment.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return m.start() if m else None


def unit_of(units_: list[Unit], offset: int) -> Unit | None:
    for u in units_:
        if u.start <= offset < u.end:
            return u
    return None


def is_draft(lc: LoadedClaim) -> bool:
    return getattr(lc.claim, "review", None) == "draft"


def lesson_coverage(lesson: "LessonDoc", claims: list[LoadedClaim],
                    pins: "Pins | None" = None) -> LessonCoverage:
    text = lesson.text
    us = units(text, pins)
    covered: dict[int, list[str]] = {}
    drafted: set[int] = set()
    reviewed = [lc for lc in claims if not is_draft(lc)]
    for lc in claims:
        off = fragment_offset(lc.claim.fragment, text) if lc.claim.fragment else None
        u = unit_of(us, off) if off is not None else None
        if u is None:
            continue
        if is_draft(lc):
            drafted.add(id(u))
        else:
            covered.setdefault(id(u), []).append(lc.claim.id)
    uncovered = []
    for u in us:
        if id(u) in covered:
            continue
        s = " ".join(u.text.split())
        uncovered.append(Candidate(line=u.line, end_line=u.end_line,
                                   text=s if len(s) <= 160 else s[:157] + "...",
                                   reasons=u.reasons))
    n_cov = sum(1 for u in us if id(u) in covered)
    pct = round(100.0 * n_cov / len(us), 1) if us else 100.0
    return LessonCoverage(course=lesson.course, lesson=lesson.path, candidates=len(us),
                          covered=n_cov, percent=pct, claims=len(reviewed),
                          drafts=len(claims) - len(reviewed),
                          drafted=sum(1 for u in us if id(u) in drafted and id(u) not in covered),
                          uncovered=uncovered)


def says_share(claims: list[LoadedClaim]) -> dict[str, dict[str, int]]:
    """Per kind of the reviewed claims: how many read their assertion from the sentence's
    words (`says`) and how many say why they cannot (`paraphrase`, no `says`); `total`
    sums the kinds."""
    out: dict[str, dict[str, int]] = {}
    for lc in claims:
        if is_draft(lc):
            continue
        row = out.setdefault(lc.claim.kind, {"claims": 0, "says": 0, "paraphrase": 0})
        row["claims"] += 1
        if lc.claim.says:
            row["says"] += 1
        elif lc.claim.paraphrase:
            row["paraphrase"] += 1
    total = {k: sum(r[k] for r in out.values()) for k in ("claims", "says", "paraphrase")}
    return {**dict(sorted(out.items())), "total": total}


def run_coverage(project: "Project", lessons: "list[LessonDoc] | None" = None
                 ) -> list[LessonCoverage]:
    return coverage_report(project, lessons)[0]


def coverage_report(project: "Project", lessons: "list[LessonDoc] | None" = None
                    ) -> tuple[list[LessonCoverage], list[tuple[str, str]]]:
    """(coverage per lesson, [(excluded page, why)]). Pages the rule leaves out are
    never candidates, even when named explicitly."""
    pool = lessons if lessons is not None else project.lessons()
    keep, excluded = split_lessons(project, pool)
    claims = load_claims(project, keep)
    by_lesson: dict[tuple[str, str], list[LoadedClaim]] = {}
    for lc in claims:
        by_lesson.setdefault((lc.course, lc.lesson), []).append(lc)
    report = [lesson_coverage(ld, by_lesson.get((ld.course, ld.path), []), project.pins)
              for ld in sorted(keep, key=lambda d: (d.course, d.path))]
    return report, sorted((ld.name, why) for ld, why in excluded)
