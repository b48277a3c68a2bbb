"""Regular expressions written by users (claim options), all under one time budget.

A claim file comes from a pull request: any pattern in it may backtrack catastrophically
(`(\\w+\\s?)+\\(\\)QQQ`, `(a|a)*b`). Every such pattern - `text`'s `options.pattern`,
`call_order`'s `options.callee`, `expression`'s `options.call`, and any option a kind adds
later - is compiled here and matched only through `UserRegex`, with the `regex` package's
`timeout`: all matching done for one claim shares `TIME_LIMIT` seconds (`Budget`), past
which the claim is an `error` naming the option, the pattern and the limit, and the run
goes on. A pattern longer than `MAX_PATTERN` characters is refused before compiling.
"""

from __future__ import annotations

import time
from typing import Any

from verifier.claims.kinds.base import ClaimError

TIME_LIMIT = 5.0        # seconds of regex matching per claim (all its patterns together)
MAX_PATTERN = 2000      # characters of one pattern
FLAGS = {"i": "IGNORECASE", "m": "MULTILINE", "s": "DOTALL", "x": "VERBOSE"}


class Budget:
    """The matching time one claim may spend (shared by its patterns)."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = TIME_LIMIT if seconds is None else seconds
        self.deadline = time.monotonic() + self.seconds

    def left(self) -> float:
        return max(0.001, self.deadline - time.monotonic())


class UserRegex:
    """A compiled user pattern; `search` / `fullmatch` / `match` raise ClaimError when the
    claim's budget runs out."""

    def __init__(self, pattern: Any, option: str, *, flags: str = "",
                 budget: Budget | None = None) -> None:
        if not isinstance(pattern, str) or not pattern:
            raise ClaimError(f"options.{option} must be a non-empty regular expression string, "
                             f"got {pattern!r}")
        if len(pattern) > MAX_PATTERN:
            raise ClaimError(f"options.{option} is {len(pattern)} characters long; patterns "
                             f"longer than {MAX_PATTERN} are refused")
        import regex        # here, not at import: 7 ms of every command's start-up

        fl = regex.VERSION0
        for f in flags:
            fl |= getattr(regex, FLAGS[f])
        try:
            self.rx = regex.compile(pattern, fl)
        except (regex.error, RecursionError, OverflowError, ValueError) as exc:
            raise ClaimError(f"options.{option} is not a valid regular expression: {exc}"
                             ) from None
        self.pattern, self.option = pattern, option
        self.budget = budget or Budget()

    def _run(self, how: str, text: str) -> Any:
        try:
            return getattr(self.rx, how)(text, timeout=self.budget.left())
        except TimeoutError:
            raise ClaimError(f"options.{self.option} {self.pattern[:200]!r} took longer than "
                             f"{self.budget.seconds:g}s to match (catastrophic backtracking?): "
                             "simplify it") from None
        except (RecursionError, MemoryError):
            raise ClaimError(f"options.{self.option} {self.pattern[:200]!r} could not be "
                             "matched (it needs too much memory or recursion): simplify it"
                             ) from None

    def search(self, text: str) -> Any:
        return self._run("search", text)

    def match(self, text: str) -> Any:
        return self._run("match", text)

    def fullmatch(self, text: str) -> Any:
        return self._run("fullmatch", text)
