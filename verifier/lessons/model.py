"""The lesson model: a Markdown lesson parsed with markdown-it-py (CommonMark +
tables + `$...$`/`$$...$$` math), keeping exact 1-based line numbers.

Parts: headings, sentences (split on 。！？； and . ! ? ; followed by space or
end), inline code spans, links (with their label, the code spans inside it
and the code span right before it), fenced code blocks, math spans, and
inline suppressions `<!-- verifier: ignore NAME [NAME...] -->`.

Line numbers of inline parts are found by locating each part in the raw
source of its block (code spans may wrap lines; CommonMark turns the line
break into a space), so a part on the third line of a paragraph reports that
line, not the paragraph's first.

Content nested deeper than markdown-it's nesting limit (`NESTING`: block
quotes and lists 20 levels deep, link labels 20 brackets deep) is not parsed by
markdown-it, so nothing in it can be checked; `Lesson.too_deep` lists its line
ranges so that lint reports them instead of passing them silently.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from pydantic import BaseModel, ConfigDict, Field


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True)


class Heading(_Part):
    level: int
    text: str
    line: int


class CodeSpan(_Part):
    text: str
    line: int
    block: int          # index of the enclosing block (paragraph, table cell row, heading)
    in_link: bool = False


class Link(_Part):
    href: str
    text: str           # plain label text
    line: int
    block: int
    label_code: tuple[str, ...] = ()     # code spans inside the label
    code_before: str | None = None       # a code span right before the link (only blanks between)


class CodeBlock(_Part):
    lang: str
    text: str
    line: int           # line of the opening fence
    first_line: int     # line of the first content line
    block: int


class MathSpan(_Part):
    text: str
    line: int
    display: bool


class Sentence(_Part):
    text: str           # plain text: markup dropped, code spans kept verbatim
    line: int
    block: int


class Suppression(_Part):
    names: tuple[str, ...]
    line: int
    block: int          # the block it applies to (its own, or the next for a standalone comment)


class Lesson(BaseModel):
    model_config = ConfigDict(frozen=True)

    too_deep: list[tuple[int, int]] = Field(default_factory=list)  # (first, last) not parsed

    headings: list[Heading] = Field(default_factory=list)
    sentences: list[Sentence] = Field(default_factory=list)
    code_spans: list[CodeSpan] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    code_blocks: list[CodeBlock] = Field(default_factory=list)
    math: list[MathSpan] = Field(default_factory=list)
    suppressions: list[Suppression] = Field(default_factory=list)
    block_lines: list[tuple[int, int]] = Field(default_factory=list)  # block -> (first, last)


# --------------------------------------------------------------------------- math


def _math_inline(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "$":
        return False
    display = src.startswith("$$", pos)
    delim = "$$" if display else "$"
    start = pos + len(delim)
    if start >= state.posMax or (not display and src[start] in " \t\n"):
        return False
    end = start
    while True:
        end = src.find(delim, end)
        if end < 0 or end > state.posMax:
            return False
        if src[end - 1] != "\\" and (display or src[end - 1] not in " \t\n"):
            break
        end += 1
    if not silent:
        tok = state.push("math_inline", "math", 0)
        tok.content = src[start:end]
        tok.markup = delim
    state.pos = end + len(delim)
    return True


NESTING = 20                 # markdown-it's maxNesting (its commonmark preset)
_DEEP, _DEEP_INLINE = "verifier_too_deep", "verifier_too_deep_inline"


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": NESTING}).enable("table")
    md.inline.ruler.before("escape", "math_inline", _math_inline)
    block_tokenize, skip_token = md.block.tokenize, md.inline.skipToken

    def tokenize(state, start_line: int, end_line: int) -> None:
        # markdown-it skips, without a trace, every line it reaches past the limit
        if state.level >= state.md.options["maxNesting"]:
            line = state.skipEmptyLines(start_line)
            if line < end_line and state.sCount[line] >= state.blkIndent:
                state.env.setdefault(_DEEP, []).append((line + 1, end_line))
        block_tokenize(state, start_line, end_line)

    def skip(state) -> None:
        # past the limit, the rest of the paragraph is skipped as plain text
        if state.level >= state.md.options["maxNesting"]:
            state.env.setdefault(_DEEP_INLINE, set()).add(state.src)
        skip_token(state)

    md.block.tokenize = tokenize         # type: ignore[method-assign]
    md.inline.skipToken = skip           # type: ignore[method-assign]
    return md


# --------------------------------------------------------------------------- parse

_IGNORE = re.compile(r"<!--\s*verifier:\s*ignore\s+(.*?)\s*-->", re.S)
_SENT_END = re.compile(r"[。！？；]|[.!?;](?=\s|$)")


def _locator(raw: str, base_line: int):
    """Find successive pieces in a block's raw source; return their lines."""
    cursor = 0

    def find(piece: str) -> int:
        nonlocal cursor
        if not piece.strip():
            return base_line + raw.count("\n", 0, cursor)
        pat = r"\s+".join(re.escape(w) for w in piece.split())
        m = re.compile(pat).search(raw, cursor)
        if m is None:
            return base_line + raw.count("\n", 0, cursor)
        cursor = m.end()
        return base_line + raw.count("\n", 0, m.start())

    return find


def parse_lesson(text: str) -> Lesson:
    md = markdown()
    env: dict = {}
    tokens = md.parse(text, env)
    deep_inline = env.get(_DEEP_INLINE, set())
    too_deep = list(env.get(_DEEP, []))
    lines = text.split("\n")
    headings, sentences, spans, links, blocks, maths, supps = [], [], [], [], [], [], []
    block_lines: list[tuple[int, int]] = []
    pending_supp: list[tuple[tuple[str, ...], int]] = []
    heading_level = None

    def new_block(m) -> int:
        block_lines.append((m[0] + 1, max(m[0] + 1, m[1])))
        idx = len(block_lines) - 1
        for names, line in pending_supp:
            supps.append(Suppression(names=names, line=line, block=idx))
        pending_supp.clear()
        return idx

    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            heading_level = int(tok.tag[1:])
        if tok.type == "fence" and tok.map:
            b = new_block(tok.map)
            lang = (tok.info or "").strip().split()[0].lower() if tok.info.strip() else ""
            blocks.append(CodeBlock(lang=lang, text=tok.content, line=tok.map[0] + 1,
                                    first_line=tok.map[0] + 2, block=b))
            continue
        if tok.type == "html_block" and tok.map:
            for m in _IGNORE.finditer(tok.content):
                pending_supp.append((tuple(m.group(1).split()), tok.map[0] + 1
                                     + tok.content.count("\n", 0, m.start())))
            continue
        if tok.type != "inline" or not tok.map:
            continue
        b = new_block(tok.map)
        if tok.content in deep_inline or any(c.level >= NESTING for c in tok.children or ()):
            too_deep.append((tok.map[0] + 1, max(tok.map[0] + 1, tok.map[1])))
        raw = "\n".join(lines[tok.map[0]:tok.map[1]])
        find = _locator(raw, tok.map[0] + 1)
        if heading_level is not None:
            headings.append(Heading(level=heading_level, text=tok.content.strip(),
                                    line=tok.map[0] + 1))
            heading_level = None
        # plain text with per-character lines, for sentences
        plain: list[tuple[str, int]] = []
        link: dict | None = None
        last_code: tuple[str, int] | None = None   # code span + index of the child after it
        children = tok.children or []
        for j, ch in enumerate(children):
            if ch.type == "text":
                line = find(ch.content)
                plain.append((ch.content, line))
                if link is not None:
                    link["text"].append(ch.content)
            elif ch.type == "code_inline":
                line = find(ch.content)
                spans.append(CodeSpan(text=ch.content, line=line, block=b,
                                      in_link=link is not None))
                plain.append((ch.content, line))
                if link is not None:
                    link["text"].append(ch.content)
                    link["code"].append(ch.content)
                last_code = (ch.content, j)
            elif ch.type == "math_inline":
                line = find(ch.content)
                maths.append(MathSpan(text=ch.content, line=line, display=ch.markup == "$$"))
                plain.append((f"${ch.content}$", line))
            elif ch.type in ("softbreak", "hardbreak"):
                plain.append((" ", plain[-1][1] if plain else tok.map[0] + 1))
            elif ch.type == "html_inline":
                for m in _IGNORE.finditer(ch.content):
                    supps.append(Suppression(names=tuple(m.group(1).split()),
                                             line=find(ch.content), block=b))
            elif ch.type == "link_open":
                before = None
                if last_code is not None:
                    between = "".join(c.content for c in children[last_code[1] + 1:j]
                                      if c.type == "text")
                    if not between.strip() and all(c.type == "text" for c in
                                                   children[last_code[1] + 1:j]):
                        before = last_code[0]
                link = {"href": str(ch.attrs.get("href", "")), "text": [], "code": [],
                        "before": before, "line": None, "j": j}
            elif ch.type == "link_close" and link is not None:
                label = "".join(link["text"])
                line = find(label) if not link["text"] else None
                first = next((ln for t, ln in plain[::-1] if t), None)
                links.append(Link(href=link["href"], text=label,
                                  line=link["line"] or line or first or tok.map[0] + 1,
                                  block=b, label_code=tuple(link["code"]),
                                  code_before=link["before"]))
                link = None
            if link is not None and link["line"] is None and ch.type in ("text", "code_inline"):
                link["line"] = plain[-1][1] if plain else None
        sentences.extend(_sentences(plain, b))
    return Lesson(headings=headings, sentences=sentences, code_spans=spans, links=links,
                  code_blocks=blocks, math=maths, suppressions=supps, block_lines=block_lines,
                  too_deep=_merge_ranges(too_deep))


def _merge_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


def _sentences(plain: list[tuple[str, int]], block: int) -> list[Sentence]:
    chars: list[str] = []
    where: list[int] = []
    for text, line in plain:
        chars.append(text)
        where.extend([line] * len(text))
    full = "".join(chars)
    out = []
    start = 0
    for m in _SENT_END.finditer(full):
        seg = full[start:m.end()]
        if seg.strip():
            lead = len(seg) - len(seg.lstrip())
            out.append(Sentence(text=seg.strip(), line=where[start + lead], block=block))
        start = m.end()
    seg = full[start:]
    if seg.strip():
        lead = len(seg) - len(seg.lstrip())
        out.append(Sentence(text=seg.strip(), line=where[start + lead], block=block))
    return out
