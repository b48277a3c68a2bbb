"""Every error a user can cause. The CLI maps them to one clear line and an exit code.

Library code raises these; it never prints or exits.
"""

from __future__ import annotations


class VerifierError(Exception):
    """Root of all expected errors (never shown with a traceback)."""

    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 key: str | None = None, hint: str | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.key = key
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.file:
            where = str(self.file)
            if self.line:
                where += f":{self.line}"
            where += ": "
        key = f"{self.key}: " if self.key else ""
        text = f"{where}{key}{self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


class ConfigError(VerifierError):
    """pins.toml, pins.lock, user config or a claim file is malformed."""


class UsageError(VerifierError):
    """Bad command-line usage (unknown upstream, bad option value)."""


class AcquisitionError(VerifierError):
    """A provider could not fetch what was asked (network, missing commit, bad archive)."""

    exit_code = 1


class CacheError(VerifierError):
    """The cache directory is unusable."""
