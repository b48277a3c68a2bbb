"""Comparison results and helpers shared by the comparison modules."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from verifier.claims.notation import Mapping, Notation, Tracker, name_tokens

SEPS = frozenset({".", "->", "::"})
MAX_CELLS = 250_000          # aligner table limit (tokens x tokens); beyond: literal only


@dataclass(frozen=True)
class Match:
    ok: bool
    used: tuple[Mapping, ...] = ()
    how: str = ""

    def __bool__(self) -> bool:
        return self.ok


NO = Match(False)
YES = Match(True)


def _done(m: Match, tracker: Tracker | None) -> Match:
    if m.ok and tracker is not None and m.used:
        tracker.record(m.used)
    return m


def _notation(tracker: Tracker | None) -> Notation:
    return tracker.notation if tracker is not None else Notation()


@lru_cache(maxsize=8192)
def name_toks(text: str) -> tuple[tuple[str, Any], ...]:
    """A name as expression tokens (`a.b` -> name, op, name); memoised (a `subset` of n
    names among m members compares n x m pairs, each tokenising both sides)."""
    return tuple(("op", t) if t in SEPS else ("name", t) for t in name_tokens(text))


def close_names(name: str, names, n: int = 3, cutoff: float = 0.75) -> list[str]:
    """Near-miss spellings of `name` among `names` (for "did you mean")."""
    import difflib

    pool = sorted({x for x in names if x and x != name})
    out = difflib.get_close_matches(name, pool, n=n, cutoff=cutoff)
    low = name.lower()
    out += [x for x in pool if x.lower() == low and x not in out]
    return out[:n]
