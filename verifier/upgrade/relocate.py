"""Relocate one cited line range from the old version of a file to the new one.

Order: (1) the line map (git diff hunks or difflib alignment) carries every
cited line to a contiguous new range -> `unchanged` / `moved`; (2) the exact
(whitespace-normalised) block occurs elsewhere -> `moved` when it occurs once,
`ambiguous` when several times; (3) otherwise `changed`: the range is
suggested from the line map, or from the enclosing symbol (symbol fallback)
when the map puts it outside that symbol. A `changed` range is never a
relocation: it is a suggestion for the author."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from verifier.facts.extract import UnsupportedLanguage, extract_bytes
from verifier.facts.model import Sym
from verifier.upgrade.fingerprint import fingerprint_lines, normalise_line, split_lines
from verifier.upgrade.linemap import LineMap, from_alignment
from verifier.upgrade.model import LinkStatus

# A block this small is not relocated by searching the whole file (a lone `}`
# or `return x;` found elsewhere is not the cited code); the line map may still
# carry it.
MIN_SEARCH_LINES = 3
MIN_SEARCH_CHARS = 40
MAX_DIFF_LINES = 40
# what a cited range can be placed relative to: definitions with a body or a
# declaration of their own (not fields, variables, enumerators, imports)
ANCHOR_KINDS = frozenset({"function", "method", "constructor", "destructor", "class", "struct",
                          "union", "enum", "typedef"})


@dataclass
class Relocation:
    status: LinkStatus
    start: int | None = None
    end: int | None = None
    suggested: tuple[int, int] | None = None
    method: str | None = None
    symbol: str | None = None
    old_fingerprint: str | None = None
    new_fingerprint: str | None = None
    detail: str = ""
    diff: list[str] | None = None


def _find_block(new_norm: list[str], block: list[str]) -> list[int]:
    k = len(block)
    if k == 0:
        return []
    first = block[0]
    return [i + 1 for i in range(len(new_norm) - k + 1)
            if new_norm[i] == first and new_norm[i:i + k] == block]


def _diff(old: list[str], new: list[str]) -> list[str]:
    out = list(difflib.unified_diff(old, new, "old", "new", n=1, lineterm=""))[2:]
    if len(out) > MAX_DIFF_LINES:
        out = out[:MAX_DIFF_LINES] + [f"... ({len(out) - MAX_DIFF_LINES} more diff lines)"]
    return out


def relocate(old_text: str, new_text: str, start: int, end: int | None, *,
             old_path: str = "", new_path: str = "", linemap: LineMap | None = None,
             old_data: bytes | None = None, new_data: bytes | None = None) -> Relocation:
    end = start if end is None else end
    old_lines = split_lines(old_text)
    new_lines = split_lines(new_text)
    if start < 1 or end < start or end > len(old_lines):
        return Relocation(LinkStatus.SKIPPED, detail=f"range L{start}-L{end} is outside the "
                          f"cited file at the old pin ({len(old_lines)} lines); lint reports it")
    block = old_lines[start - 1:end]
    fp_old = fingerprint_lines(block)
    lm = linemap or from_alignment(old_lines, new_lines)

    def at(s: int, e: int) -> str | None:
        return fingerprint_lines(new_lines[s - 1:e]) if 1 <= s <= e <= len(new_lines) else None

    blank = "the cited lines are blank; check the link's range. " if not any(
        x.strip() for x in block) else ""
    mapped = [lm.get(x) for x in range(start, end + 1)]
    if all(m is not None for m in mapped) and all(
            b == a + 1 for a, b in zip(mapped, mapped[1:])):  # type: ignore[operator]
        s, e = mapped[0], mapped[-1]
        fp_new = at(s, e)  # type: ignore[arg-type]
        if fp_new == fp_old:
            same = (s, e) == (start, end) and old_path == new_path
            return Relocation(LinkStatus.UNCHANGED if same else LinkStatus.MOVED, s, e,
                              method=lm.method, old_fingerprint=fp_old, new_fingerprint=fp_new,
                              detail=blank.strip())

    norm_block = [normalise_line(x) for x in block]
    new_norm = [normalise_line(x) for x in new_lines]
    searchable = (len(block) >= MIN_SEARCH_LINES
                  or sum(len(x.replace(" ", "")) for x in norm_block) >= MIN_SEARCH_CHARS)
    hits = _find_block(new_norm, norm_block) if searchable else []
    if len(hits) == 1:
        s = hits[0]
        e = s + len(block) - 1
        same = (s, e) == (start, end) and old_path == new_path
        return Relocation(LinkStatus.UNCHANGED if same else LinkStatus.MOVED, s, e,
                          method="search", old_fingerprint=fp_old, new_fingerprint=at(s, e),
                          detail="the cited lines occur once in the new version")
    guess = (lm.estimate(start), max(lm.estimate(start), lm.estimate(end)))
    if len(hits) > 1:
        near = sorted(hits, key=lambda h: (abs(h - guess[0]), h))
        return Relocation(LinkStatus.AMBIGUOUS, suggested=(near[0], near[0] + len(block) - 1),
                          method="search", old_fingerprint=fp_old,
                          detail=f"the cited lines occur {len(hits)} times in the new version "
                                 f"(at lines {', '.join(map(str, hits[:8]))}); the one nearest "
                                 "the aligned position is suggested")

    # changed: suggest a range (line map, or the symbol fallback)
    method, symbol, suggested, gone = lm.method, None, guess, False
    if old_data is None:
        old_data = old_text.encode()
    if new_data is None:
        new_data = new_text.encode()
    old_syms = definitions(old_path or new_path, old_data)
    anchor = anchor_of(old_syms, start, end)
    if anchor is not None:
        new_syms = definitions(new_path or old_path, new_data)
        twin = find(new_syms, anchor.qual, ordinal_of(old_syms, anchor))
        if twin is not None:
            symbol = qualified(anchor, old_path or new_path)
            if not (twin.start <= guess[0] <= twin.end):
                suggested = suggest(anchor, twin, start, end)
                method = "symbol"
        else:
            symbol, gone = qualified(anchor, old_path or new_path), True
    suggested = (max(1, min(suggested[0], len(new_lines) or 1)),
                 max(1, min(suggested[1], len(new_lines) or 1)))
    new_block = new_lines[suggested[0] - 1:suggested[1]]
    detail = blank + "the cited lines changed at the new version; review the suggested range"
    if symbol and method == "symbol":
        detail += f" (placed relative to `{symbol}`)"
    elif gone:
        detail += f"; `{symbol}` no longer exists in this file"
    return Relocation(LinkStatus.CHANGED, suggested=suggested, method=method, symbol=symbol,
                      old_fingerprint=fp_old, new_fingerprint=fingerprint_lines(new_block),
                      detail=detail, diff=_diff(block, new_block))


# --------------------------------------------------------------------------- symbol fallback
# The definitions come from the one fact model (`facts/extract.py`): the same
# records the claim kinds and lint read, so C++ scopes and pybind11 names count.

_DEFS: dict[tuple[str, str], list[Sym]] = {}


def definitions(path: str, data: bytes) -> list[Sym]:
    """Definitions of a file a range can be anchored on (memoised per path and content)."""
    import hashlib

    key = (path, hashlib.sha1(data).hexdigest())
    if key not in _DEFS:
        if len(_DEFS) > 256:
            _DEFS.clear()
        try:
            facts = extract_bytes(path, data, None)
            _DEFS[key] = [s for s in facts.syms if s.kind in ANCHOR_KINDS and s.start > 0]
        except (UnsupportedLanguage, ValueError, RecursionError):
            _DEFS[key] = []   # an unreadable file simply has no symbols
    return _DEFS[key]


def qualified(s: Sym, path: str) -> str:
    """`Solver.validate` (Python, pybind11 names), `ns::Outer::Inner` (C, C++)."""
    py = path.endswith((".py", ".pyi")) or s.origin == "pybind11"
    return ("." if py else "::").join(s.qual)


def anchor_of(syms: list[Sym], start: int, end: int) -> Sym | None:
    """The symbol the cited range starts on: one that begins within its first lines
    (a comment or decorator may come first), else the innermost one holding its first
    line, else the first one beginning inside it."""
    head = [s for s in syms if start <= s.start <= min(end, start + 3)]
    if head:
        return min(head, key=lambda s: (s.start, -(s.end - s.start)))
    holding = [s for s in syms if s.start <= start <= s.end]
    if holding:
        return min(holding, key=lambda s: (s.end - s.start, s.start))
    inside = [s for s in syms if start <= s.start <= end]
    if inside:
        return min(inside, key=lambda s: (s.start, -(s.end - s.start)))
    return None


def find(syms: list[Sym], qual: tuple[str, ...], ordinal: int = 0) -> Sym | None:
    same = [s for s in syms if s.qual == qual]
    if not same:
        return None
    return same[min(ordinal, len(same) - 1)]


def ordinal_of(syms: list[Sym], sym: Sym) -> int:
    return [s for s in syms if s.qual == sym.qual].index(sym)


def suggest(old: Sym, new: Sym, start: int, end: int) -> tuple[int, int]:
    """The cited range placed relative to the symbol in the new version."""
    if start <= old.start and end >= old.end:          # the range covers the whole symbol
        return max(1, new.start - (old.start - start)), new.end + (end - old.end)
    s = new.start + (start - old.start)
    e = min(s + (end - start), new.end if end <= old.end else s + (end - start))
    return max(1, s), max(s, e)
