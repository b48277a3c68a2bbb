"""Claim inputs stay inside the claims directory (a symbolic link leading out is refused)."""

from __future__ import annotations

from pathlib import Path

from verifier.errors import ConfigError


def confined(root: Path, path: Path, what: str = "claim file") -> None:
    """ConfigError unless `path` (a claim file, claim folder, notation.toml or
    claims.lock) resolves inside the claims directory `root`: like a lesson, a claim file
    that is a symbolic link to /proc/self/environ or to a secret outside the project is
    refused, never read (its key names would reach the error messages and records)."""
    try:
        real = path.resolve()
        real.relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        try:
            target = str(path.resolve())
        except (OSError, RuntimeError):
            target = "an unresolvable path"
        raise ConfigError(f"{what} resolves outside the claims directory {root} (to {target}); "
                          "refusing to read it", file=str(path),
                          hint="claim files and their folders must be files of the project, not "
                               "symbolic links leading out of it") from None
