"""Lesson model (see `model.py`): Markdown lessons parsed with exact line numbers."""

from pathlib import Path

from verifier.lessons.model import (CodeBlock, CodeSpan, Heading, Lesson, Link, MathSpan,
                                    Sentence, Suppression, parse_lesson)
from verifier.permalinks import GitHubLink, parse_github_url


def github_links(text: str) -> list[tuple[Link, GitHubLink]]:
    """Every GitHub link of a lesson, with the lesson's link (href, text, line)."""
    out = []
    for link in parse_lesson(text).links:
        gl = parse_github_url(link.href)
        if gl is not None:
            out.append((link, gl))
    return out


def lesson_files(root: Path, docs: str = "docs") -> list[Path]:
    """The Markdown lessons of a course repository checkout."""
    base = root / docs
    if not base.is_dir():
        return []
    return sorted(p for p in base.rglob("*.md") if p.is_file())


__all__ = ["CodeBlock", "CodeSpan", "Heading", "Lesson", "Link", "MathSpan", "Sentence",
           "Suppression", "github_links", "lesson_files", "parse_lesson"]
