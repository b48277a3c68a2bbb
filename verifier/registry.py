"""One registry idiom for claim kinds, lint rules and output formats.

A `Registry` maps a unique name to an entry and (optionally) a unique code to the
same entry. Registering a second entry under a name or a code already taken is
refused (`RegistryError`), so two kinds cannot share `VC101` and two reporters
cannot both be `json`. `unknown(value)` builds the usage error a CLI shows for a
misspelt choice, with a "did you mean" suggestion.

Kept free of heavy imports: the CLI consults registries while parsing options.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

T = TypeVar("T")


class RegistryError(RuntimeError):
    """A registration that would make the registry ambiguous (a bug in verifier)."""


def suggest(value: str, choices: Iterable[str]) -> str | None:
    """The closest choice to a misspelt `value`, or None."""
    import difflib

    hits = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.6)
    return hits[0] if hits else None


def choice_message(what: str, value: str, choices: Iterable[str]) -> str:
    """`unknown kind 'symbl' (did you mean 'symbol'?; known: a, b, c)`."""
    names = sorted(dict.fromkeys(choices))
    hint = suggest(value, names)
    did = f"did you mean {hint!r}? " if hint else ""
    known = ", ".join(names) if names else "none"
    return f"unknown {what} {value!r} ({did}known: {known})"


class Registry(Mapping[str, T], Generic[T]):
    """name -> entry, with unique names and unique codes."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, T] = {}
        self._codes: dict[str, str] = {}      # code -> name
        self._code_of: dict[str, str] = {}    # name -> code

    # ------------------------------------------------------------ registration
    def register(self, name: str, entry: T, code: str | None = None) -> T:
        if not name:
            raise RegistryError(f"a {self.what} needs a name")
        if name in self._entries:
            raise RegistryError(f"{self.what} {name!r} registered twice")
        if code:
            if code in self._codes:
                raise RegistryError(f"{self.what} {name!r}: code {code} is already taken by "
                                    f"{self._codes[code]!r}")
            self._codes[code] = name
            self._code_of[name] = code
        self._entries[name] = entry
        return entry

    def pop(self, name: str, default: T | None = None) -> T | None:
        """Remove an entry (tests register throw-away kinds)."""
        code = self._code_of.pop(name, None)
        if code is not None:
            self._codes.pop(code, None)
        return self._entries.pop(name, default)

    # ------------------------------------------------------------ mapping
    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    # ------------------------------------------------------------ queries
    def code(self, name: str) -> str | None:
        return self._code_of.get(name)

    def by_code(self, code: str) -> T | None:
        name = self._codes.get(code)
        return None if name is None else self._entries[name]

    def names(self) -> list[str]:
        """Names in code order (then name order for entries without a code)."""
        return sorted(self._entries, key=lambda n: (self._code_of.get(n) or "~", n))

    def unknown(self, value: str) -> str:
        """The message for a value that names no entry."""
        return choice_message(self.what, value, self._entries)


__all__ = ["Registry", "RegistryError", "choice_message", "suggest"]
