"""Lesson model (see `model.py`): Markdown lessons parsed with exact line numbers."""

import os
from pathlib import Path

from verifier.errors import ConfigError
from verifier.fileio import real_path
from verifier.lessons.model import (CodeBlock, CodeSpan, Heading, Lesson, Link, MathSpan,
                                    Sentence, Suppression, parse_lesson)
from verifier.permalinks import GitHubLink, parse_github_url


def github_links(lesson: "str | list[Link]") -> list[tuple[Link, GitHubLink]]:
    """Every GitHub link of a lesson (its text, or its links), with the lesson's link
    (href, text, line)."""
    out = []
    for link in parse_lesson(lesson).links if isinstance(lesson, str) else lesson:
        gl = parse_github_url(link.href)
        if gl is not None:
            out.append((link, gl))
    return out


def inside(root: Path, path: Path) -> bool:
    """True when `path`, with every symlink and `..` resolved, lies inside `root`."""
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def refuse_outside(root: Path, path: Path, what: str = "lesson file",
                   where: str = "the course checkout",
                   hint: str = "lessons and their folders must be files of the course "
                               "repository, not symbolic links leading out of it") -> None:
    """ConfigError unless `path` resolves inside `root` (the course checkout, or what
    `where` names).

    A pull request can add a symlink (to /proc/self/environ, to a file holding a
    secret): its content must never be read as a lesson and published in records."""
    if not inside(root, path):
        try:
            target = str(path.resolve())
        except (OSError, RuntimeError):
            target = "an unresolvable path"
        raise ConfigError(f"{what} resolves outside {where} {root} (to {target}); "
                          "refusing to read it", file=str(path), hint=hint)


def lesson_files(root: Path, docs: str = "docs") -> list[Path]:
    """The Markdown lessons of a course repository checkout (refusing any that resolves
    outside it)."""
    base = root / docs
    if not base.is_dir():
        return []
    refuse_outside(root, base, "lesson folder")
    real_root = os.path.realpath(root)
    dirs: dict[str, str] = {}

    def within(p: Path) -> bool:            # `inside(root, p)`, each directory resolved once
        real = real_path(os.fspath(p), dirs)
        return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)

    out = []
    for p in sorted(base.rglob("*")):   # symlinked folders are listed, not followed
        if p.suffix == ".md" or p.is_symlink():
            if (p.suffix == ".md" or p.is_dir()) and not within(p):
                refuse_outside(root, p)          # raises, naming where it leads
            if p.suffix == ".md" and p.is_file():
                out.append(p)
    return out


__all__ = ["CodeBlock", "CodeSpan", "Heading", "Lesson", "Link", "MathSpan", "Sentence",
           "Suppression", "github_links", "inside", "lesson_files", "parse_lesson",
           "refuse_outside"]
