"""The lesson model: a Markdown lesson parsed with markdown-it-py (CommonMark +
tables + `$...$`/`$$...$$` math), keeping exact 1-based line numbers.

Parts: headings, sentences (split on 。！？； and . ! ? ; followed by space or
end, never inside a code span or `$...$`; with their char offsets, code spans and
link targets), inline code spans, links (with their label, the code spans inside
it and the code span right before it), fenced code blocks, math spans, and
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
from typing import TYPE_CHECKING, NamedTuple

from pydantic import ConfigDict, Field

from verifier.basemodel import Model

if TYPE_CHECKING:   # markdown-it is imported where a lesson is parsed (a cache miss)
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline


class _Part(Model):
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
    start: int = 0      # char offsets into the lesson text of its first and past its last
    end: int = 0        # character (markup around them, e.g. backticks, not included)
    code: tuple[str, ...] = ()     # the code spans in it, in order
    links: tuple[str, ...] = ()    # hrefs of the links whose label is in it, in order


class Suppression(_Part):
    names: tuple[str, ...]
    line: int
    block: int          # the block it applies to (its own, or the next for a standalone comment)


class Lesson(Model):
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
    # block -> heading | paragraph | item (paragraph in a list item) | quote | fence |
    #          head (table header cell) | cell (table body cell) | html (a raw HTML block
    #          with links)
    block_kinds: list[str] = Field(default_factory=list)


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
def markdown() -> "MarkdownIt":
    from markdown_it import MarkdownIt

    # GitHub links bare URLs (GFM autolinks): linkify, as GitHub renders them
    md = MarkdownIt("commonmark", {"maxNesting": NESTING, "linkify": True}).enable(
        ["table", "linkify"])
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


def _locator(raw: str, base_line: int, base_offset: int = 0):
    """Find successive pieces in a block's raw source; return their lines and
    char offsets into the lesson text. Lines are counted on from the last piece (the
    pieces come in order): counting from the block's start for every piece made a
    block of many pieces quadratic (a 200 KB line of code spans: 13 s)."""
    cursor = 0
    counted = [0, 0]                 # offset counted up to, newlines before it

    def line_at(offset: int) -> int:
        at, n = counted
        if offset < at:              # not expected (pieces are in order): count afresh
            at, n = 0, 0
        n += raw.count("\n", at, offset)
        counted[:] = [offset, n]
        return base_line + n

    def find(piece: str) -> tuple[int, int]:
        nonlocal cursor
        if not piece.strip():
            return line_at(cursor), base_offset + cursor
        words = piece.split()
        core = piece.strip()
        at = raw.find(core, cursor)     # most pieces are verbatim: no regex to compile
        if at >= 0 or len(words) == 1:
            span = (at, at + len(core)) if at >= 0 else None
        else:
            m = re.compile(r"\s+".join(re.escape(w) for w in words)).search(raw, cursor)
            span = m.span() if m else None
        if span is None:
            return line_at(cursor), base_offset + cursor
        begin = max(span[0] - (len(piece) - len(piece.lstrip())), cursor)
        cursor = span[1]
        return line_at(span[0]), base_offset + begin

    return find


def parse_lesson(text: str) -> Lesson:
    md = markdown()
    env: dict = {}
    tokens = md.parse(text, env)
    deep_inline = env.get(_DEEP_INLINE, set())
    too_deep = list(env.get(_DEEP, []))
    lines = text.split("\n")
    line_offsets = [0]
    for ln in lines:
        line_offsets.append(line_offsets[-1] + len(ln) + 1)
    headings, sentences, spans, links, blocks, maths, supps = [], [], [], [], [], [], []
    block_lines: list[tuple[int, int]] = []
    block_kinds: list[str] = []
    pending_supp: list[tuple[tuple[str, ...], int]] = []
    heading_level = None
    containers: list[str] = []      # open list items / blockquotes / table cells

    def new_block(m, kind: str) -> int:
        block_lines.append((m[0] + 1, max(m[0] + 1, m[1])))
        block_kinds.append(kind)
        idx = len(block_lines) - 1
        for names, line in pending_supp:
            supps.append(Suppression(names=names, line=line, block=idx))
        pending_supp.clear()
        return idx

    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            heading_level = int(tok.tag[1:])
        if tok.type in ("list_item_open", "blockquote_open", "th_open", "td_open"):
            containers.append(tok.type)
        elif tok.type in ("list_item_close", "blockquote_close", "th_close", "td_close"):
            if containers:
                containers.pop()
        if tok.type == "fence" and tok.map:
            b = new_block(tok.map, "fence")
            lang = (tok.info or "").strip().split()[0].lower() if tok.info.strip() else ""
            blocks.append(CodeBlock(lang=lang, text=tok.content, line=tok.map[0] + 1,
                                    first_line=tok.map[0] + 2, block=b))
            continue
        if tok.type == "html_block" and tok.map:
            for m in _IGNORE.finditer(tok.content):
                pending_supp.append((tuple(m.group(1).split()), tok.map[0] + 1
                                     + tok.content.count("\n", 0, m.start())))
            hb = None
            for href, at in html_hrefs(tok.content, offsets=True):
                if hb is None:   # its own block; suppressions waiting for the next stay so
                    block_lines.append((tok.map[0] + 1, max(tok.map[0] + 1, tok.map[1])))
                    block_kinds.append("html")
                    hb = len(block_lines) - 1
                links.append(Link(href=href, text="", block=hb,
                                  line=tok.map[0] + 1 + tok.content.count("\n", 0, at)))
            continue
        if tok.type != "inline" or not tok.map:
            continue
        if heading_level is not None:
            kind = "heading"
        elif containers and containers[-1] in ("th_open", "td_open"):
            kind = "head" if containers[-1] == "th_open" else "cell"
        elif "list_item_open" in containers:
            kind = "item"
        elif "blockquote_open" in containers:
            kind = "quote"
        else:
            kind = "paragraph"
        b = new_block(tok.map, kind)
        if tok.content in deep_inline or any(c.level >= NESTING for c in tok.children or ()):
            too_deep.append((tok.map[0] + 1, max(tok.map[0] + 1, tok.map[1])))
        raw = "\n".join(lines[tok.map[0]:tok.map[1]])
        find = _locator(raw, tok.map[0] + 1, line_offsets[tok.map[0]])
        if heading_level is not None:
            headings.append(Heading(level=heading_level, text=tok.content.strip(),
                                    line=tok.map[0] + 1))
            heading_level = None
        # plain text with per-character lines and offsets, for sentences
        plain: list[_Piece] = []
        link: dict | None = None
        last_code: tuple[str, int] | None = None   # code span + index of the child after it
        children = tok.children or []
        for j, ch in enumerate(children):
            href = link["href"] if link is not None else None
            if ch.type == "text":
                line, off = find(ch.content)
                plain.append(_Piece(ch.content, line, off, None, href))
                if link is not None:
                    link["text"].append(ch.content)
            elif ch.type == "code_inline":
                line, off = find(ch.content)
                spans.append(CodeSpan(text=ch.content, line=line, block=b,
                                      in_link=link is not None))
                plain.append(_Piece(ch.content, line, off, ch.content, href))
                if link is not None:
                    link["text"].append(ch.content)
                    link["code"].append(ch.content)
                last_code = (ch.content, j)
            elif ch.type == "math_inline":
                line, off = find(ch.content)
                maths.append(MathSpan(text=ch.content, line=line, display=ch.markup == "$$"))
                plain.append(_Piece(f"${ch.content}$", line, max(0, off - 1), None, href))
            elif ch.type in ("softbreak", "hardbreak"):
                prev = plain[-1] if plain else None
                plain.append(_Piece(" ", prev.line if prev else tok.map[0] + 1,
                                    prev.off + len(prev.text) if prev else
                                    line_offsets[tok.map[0]], None, href))
            elif ch.type == "html_inline":
                for m in _IGNORE.finditer(ch.content):
                    supps.append(Suppression(names=tuple(m.group(1).split()),
                                             line=find(ch.content)[0], block=b))
                for href in html_hrefs(ch.content):      # a raw `<a href>`, `<img src>`
                    line, _ = find(ch.content)
                    links.append(Link(href=href, text="", line=line, block=b))
            elif ch.type == "image":                     # `![alt](src)`: GitHub links it too
                src = str(ch.attrs.get("src", ""))
                line, _ = find(src)
                links.append(Link(href=src, text=ch.content, line=line, block=b))
            elif ch.type == "link_open":
                before = None
                if last_code is not None:
                    between = "".join(c.content for c in children[last_code[1] + 1:j]
                                      if c.type == "text")
                    if not between.strip() and all(c.type == "text" for c in
                                                   children[last_code[1] + 1:j]):
                        before = last_code[0]
                href = str(ch.attrs.get("href", ""))
                if ch.markup == "linkify":
                    href = _autolink_end(href)
                link = {"href": href, "text": [], "code": [],
                        "before": before, "line": None, "j": j}
            elif ch.type == "link_close" and link is not None:
                label = "".join(link["text"])
                line = find(label)[0] if not link["text"] else None
                find(link["href"])      # step over the target: later text is after it
                first = next((p.line for p in plain[::-1] if p.text), None)
                links.append(Link(href=link["href"], text=label,
                                  line=link["line"] or line or first or tok.map[0] + 1,
                                  block=b, label_code=tuple(link["code"]),
                                  code_before=link["before"]))
                if not link["text"]:   # an empty label: the link still belongs to the sentence
                    prev = plain[-1] if plain else None
                    plain.append(_Piece("", prev.line if prev else tok.map[0] + 1,
                                        prev.off + len(prev.text) if prev else
                                        line_offsets[tok.map[0]], None, link["href"]))
                link = None
            if link is not None and link["line"] is None and ch.type in ("text", "code_inline"):
                link["line"] = plain[-1].line if plain else None
        sentences.extend(_sentences(plain, b))
    return Lesson(headings=headings, sentences=sentences, code_spans=spans, links=links,
                  code_blocks=blocks, math=maths, suppressions=supps, block_lines=block_lines,
                  block_kinds=block_kinds, too_deep=_merge_ranges(too_deep))


def _autolink_end(href: str) -> str:
    """A bare URL ends where the text turns non-ASCII (`…#L12。` in CJK prose): the
    linkifier would take the full stop, percent-encoded, into the fragment."""
    from urllib.parse import unquote

    text = unquote(href)
    for i, c in enumerate(text):
        if ord(c) > 126:
            return text[:i].rstrip(".,;:!?)*_~")
    return href


def html_hrefs(html: str, offsets: bool = False) -> list:
    """The `href` of every `<a>` and the `src` of every `<img>` in raw HTML (the
    standard library's HTML parser), with the offset of its tag when asked."""
    from html.parser import HTMLParser

    found: list[tuple[str, int]] = []
    starts = [0]
    for ln in html.split("\n"):
        starts.append(starts[-1] + len(ln) + 1)

    class _Hrefs(HTMLParser):
        def handle_starttag(self, tag, attrs):
            key = {"a": "href", "img": "src"}.get(tag)
            for k, v in attrs:
                if k == key and v:
                    line, col = self.getpos()
                    found.append((v.strip(), starts[line - 1] + col))

    parser = _Hrefs(convert_charrefs=True)
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # noqa: BLE001 - malformed HTML in a lesson: what was found stands
        pass
    return found if offsets else [h for h, _ in found]


def _merge_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if out and first <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], last))
        else:
            out.append((first, last))
    return out


class _Piece(NamedTuple):
    text: str
    line: int
    off: int                 # char offset of its first character in the lesson text
    code: str | None         # the code span's text, when the piece is one
    href: str | None         # the enclosing link's target, when inside one


def _sentences(plain: list[_Piece], block: int) -> list[Sentence]:
    full = "".join(p.text for p in plain)
    where: list[int] = []
    offs: list[int] = []
    owner: list[int] = []       # piece index of every character
    for k, p in enumerate(plain):
        where.extend([p.line] * len(p.text))
        offs.extend(range(p.off, p.off + len(p.text)))
        owner.extend([k] * len(p.text))
    starts = [0]                # piece index -> first char index
    for p in plain:
        starts.append(starts[-1] + len(p.text))
    out = []
    # code spans and maths never split a sentence (`f(a. b)`, `$x. y$`)
    bounds = [m.end() for m in _SENT_END.finditer(full)
              if plain[owner[m.start()]].code is None
              and not plain[owner[m.start()]].text.startswith("$")]
    if not bounds or bounds[-1] < len(full):
        bounds.append(len(full))
    start = 0
    for stop in bounds:
        seg = full[start:stop]
        if seg.strip():
            lead = len(seg) - len(seg.lstrip())
            trail = len(seg) - len(seg.rstrip())
            a, z = start + lead, stop - trail
            # pieces in the sentence: code spans whose text starts in it; links by any char
            # (an empty-label link, `[](...)`, belongs to the sentence it ends)
            k0, k1 = owner[a], owner[z - 1]
            while k0 > 0 and not plain[k0 - 1].text and starts[k0 - 1] >= a:
                k0 -= 1
            while k1 + 1 < len(plain) and not plain[k1 + 1].text and starts[k1 + 1] <= z:
                k1 += 1
            ks = range(k0, k1 + 1)
            code = tuple(plain[k].code for k in ks if plain[k].code is not None
                         and a <= starts[k] < z)
            hrefs = tuple(dict.fromkeys(plain[k].href for k in ks if plain[k].href))
            out.append(Sentence(text=seg.strip(), line=where[a], block=block, start=offs[a],
                                end=offs[z - 1] + 1, code=code, links=hrefs))
        start = stop
    return out
