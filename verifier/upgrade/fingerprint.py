"""Fingerprint of the lines a permalink cites: `sha256:` + sha256 of the cited
lines with whitespace collapsed (runs of blanks -> one space, ends stripped),
joined by "\\n".

The same definition as lint's permalink fingerprints, so a fingerprint lint
recorded at the old pin compares with one computed here at the new version.
Whitespace-only edits (re-indentation) keep the fingerprint; any token change
alters it."""

from __future__ import annotations

# one definition: lint's permalink-anchor fingerprint (VL103)
from verifier.lint.rules.permalink_anchor import fingerprint as _lint_fingerprint


def normalise_line(line: str) -> str:
    return " ".join(line.split())


def split_lines(text: str) -> list[str]:
    """Lines as GitHub (and git) number them: split at "\n" only (1-based `#Ln` is
    index n-1). `str.splitlines` would also split at form feeds, \x1c-\x1e, \x85 and
    U+2028, which shifts every later line number."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def cited(lines: list[str], start: int, end: int | None = None) -> list[str] | None:
    """Lines start..end (1-based, inclusive), or None when the range is outside the file."""
    end = start if end is None else end
    if start < 1 or end < start or end > len(lines):
        return None
    return lines[start - 1:end]


def fingerprint_lines(lines: list[str]) -> str:
    """`sha256:<hex>`, the value lint's permalink-anchor rule (VL103) records."""
    return _lint_fingerprint(lines)


def fingerprint(text: str, start: int, end: int | None = None) -> str | None:
    """Fingerprint of lines start..end of text, or None when the range is outside it."""
    got = cited(split_lines(text), start, end)
    return None if got is None else fingerprint_lines(got)
