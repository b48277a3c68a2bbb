"""Claim inputs stay inside the claims directory (a symbolic link leading out is refused)."""

from __future__ import annotations

from pathlib import Path

from verifier.lessons import refuse_outside


def confined(root: Path, path: Path, what: str = "claim file") -> None:
    """ConfigError unless `path` (a claim file, claim folder, notation.toml or
    claims.lock) resolves inside the claims directory `root`: like a lesson, a claim file
    that is a symbolic link to /proc/self/environ or to a secret outside the project is
    refused, never read (its key names would reach the error messages and records)."""
    refuse_outside(root, path, what, where="the claims directory",
                   hint="claim files and their folders must be files of the project, not "
                        "symbolic links leading out of it")
