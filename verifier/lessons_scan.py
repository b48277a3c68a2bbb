"""Lesson discovery and a link scan (markdown-it-py), enough for the source layer
to know which upstream files the course cites."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

from verifier.permalinks import GitHubLink, parse_github_url

_MD = MarkdownIt("commonmark")


@dataclass(frozen=True)
class LinkRef:
    href: str
    text: str
    line: int  # 1-based line of the lesson where the link's paragraph/cell starts + offset


def iter_links(text: str) -> list[LinkRef]:
    """Every link target in a Markdown document, with its line number."""
    out: list[LinkRef] = []
    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(text)
    for tok in tokens:
        if tok.type != "inline" or not tok.children:
            continue
        line = (tok.map[0] + 1) if tok.map else 1
        href, label = None, []
        for child in tok.children:
            if child.type in ("softbreak", "hardbreak"):
                line += 1
            elif child.type == "link_open":
                href, label = str(child.attrs.get("href", "")), []
            elif child.type == "link_close" and href is not None:
                out.append(LinkRef(href=href, text="".join(label), line=line))
                href = None
            elif href is not None and child.type in ("text", "code_inline"):
                label.append(child.content)
    return out


def github_links(text: str) -> list[tuple[LinkRef, GitHubLink]]:
    out = []
    for ref in iter_links(text):
        gl = parse_github_url(ref.href)
        if gl is not None:
            out.append((ref, gl))
    return out


def lesson_files(root: Path, docs: str = "docs") -> list[Path]:
    base = root / docs
    if not base.is_dir():
        return []
    return sorted(p for p in base.rglob("*.md") if p.is_file())
