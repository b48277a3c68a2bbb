"""Repository paths from claim files, pins and manifests: one canonical spelling each.

A path names a file of a repository (`include/mujoco/mjdata.h`): relative, '/' between
segments, no empty, '.' or '..' segment, no percent-encoding, no backslash or look-alike
slash (full-width '／', '∕', '⁄', ...), no control, NUL, zero-width, bidi or soft-hyphen
character, Unicode NFC, no space at either end. Anything else could name the same file
two ways (`include//mujoco/./mjdata.h`, `include%2Fmujoco%2Fmjdata.h`) or a file that
only looks like it (`include／mujoco`), so it is refused with the canonical form to write
instead, never silently normalised: a claim, a lock entry and a manifest line then agree
byte for byte on what they name.

`canonical(path)` returns the path when it is canonical and raises `NotCanonical`
(a ValueError whose message gives the canonical form, when there is one) otherwise.
"""

from __future__ import annotations

import re
import unicodedata

from verifier.visible import INVISIBLE

# characters that read as a slash without being one
SLASH_LOOKALIKES = "\\\uff0f\u2215\u2044\u29f8\u2571\u29f5\u3033\u2f03"
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class NotCanonical(ValueError):
    """A path that is not in its canonical form; `canonical` is that form (or None when
    the path cannot name a file of the repository at all)."""

    def __init__(self, path: str, problems: list[str], canonical: str | None) -> None:
        self.path, self.problems, self.canonical = path, problems, canonical
        fix = f": write {canonical!r}" if canonical else ""
        super().__init__(f"path {ascii_repr(path)} is not a canonical repository path "
                         f"({'; '.join(problems)}){fix}")


def ascii_repr(text: str) -> str:
    """`text` quoted with every non-printable or invisible character escaped."""
    out = []
    for ch in text:
        if ch in INVISIBLE or _CONTROL.match(ch) or ch in SLASH_LOOKALIKES[1:]:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) > 0xff else f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "'" + "".join(out).replace("'", "\\'") + "'"


def canonical(path: str, *, prefix: bool = False) -> str:
    """`path` if it is a canonical repository path (see the module docstring), else
    NotCanonical. `prefix`: a path prefix such as `mujoco/` (a trailing '/' allowed, the
    empty prefix too)."""
    if not isinstance(path, str):
        raise ValueError(f"expected a path string, got {type(path).__name__}")
    problems: list[str] = []
    fixed = path
    guessable = True
    if _CONTROL.search(fixed):
        problems.append("a control character (NUL, newline, ...)")
        fixed = _CONTROL.sub("", fixed)
        guessable = False
    if any(c in INVISIBLE for c in fixed):
        problems.append("an invisible, zero-width or direction-changing character")
        fixed = "".join(c for c in fixed if c not in INVISIBLE)
    if _PERCENT.search(fixed):
        problems.append("percent-encoding")
        for _ in range(3):                 # %252F -> %2F -> /
            fixed = _PERCENT.sub(lambda m: chr(int(m.group(0)[1:], 16)), fixed)
            if not _PERCENT.search(fixed):
                break
    if any(c in SLASH_LOOKALIKES for c in fixed):
        problems.append("a backslash or a character that looks like a slash")
        fixed = "".join("/" if c in SLASH_LOOKALIKES else c for c in fixed)
    nfc = unicodedata.normalize("NFC", fixed)
    if nfc != fixed:
        problems.append("not in Unicode NFC form")
        fixed = nfc
    if any(seg != seg.strip() for seg in fixed.split("/")):
        problems.append("space at either end of a segment")
        fixed = "/".join(seg.strip() for seg in fixed.split("/"))
    if fixed.startswith("/"):
        problems.append("absolute (a leading '/')")
    trailing = prefix and fixed.endswith("/")
    segs = fixed.split("/")
    if fixed.endswith("/"):
        segs = segs[:-1]
    if any(s == "" for s in segs) and fixed not in ("", "/") and not fixed.startswith("/"):
        problems.append("an empty segment ('//')")
    if any(s == "." for s in segs):
        problems.append("a '.' segment")
    if fixed.endswith("/") and not prefix:
        problems.append("a trailing '/'")
    parts: list[str] = []
    escapes = dotdot = False
    for s in segs:
        if s in ("", "."):
            continue
        if s == "..":
            if not dotdot:
                problems.append("a '..' segment")
                dotdot = True
            if parts:
                parts.pop()
            else:
                escapes = True
            continue
        parts.append(s)
    if not parts and not prefix:
        problems.append("empty")
    if not problems:
        return path
    canon = "/".join(parts) + ("/" if trailing and parts else "")
    if escapes or not guessable or not (parts or prefix) or canon == path:
        canon = None
    raise NotCanonical(path, problems, canon)


def is_canonical(path: str, *, prefix: bool = False) -> bool:
    try:
        canonical(path, prefix=prefix)
    except ValueError:
        return False
    return True
