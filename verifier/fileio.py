"""File helpers below the safe writer: real paths resolved a directory at a time, the
mode a new file gets under the umask (`mkstemp` alone would leave 0600), a file's
SHA-256. Files are written by `verifier/safewrite.py`, never here.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

def real_path(path: str, dirs: dict[str, str]) -> str:
    """`os.path.realpath(path)`, resolving each directory once: a name that is no
    symbolic link lies where its directory really is (`dirs`: directory -> real path,
    kept by the caller; resolving every lesson's full path cost 0.5 ms a lesson here)."""
    parent, name = os.path.split(path)
    if os.path.islink(path) or name in ("", ".", ".."):
        return os.path.realpath(path)
    if parent not in dirs:
        dirs[parent] = os.path.realpath(parent)
    return os.path.join(dirs[parent], name)


def current_umask() -> int:
    """The process umask, read without changing it where the kernel reports it."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    old = os.umask(0o022)
    os.umask(old)
    return old


def new_file_mode() -> int:
    return 0o666 & ~current_umask()


def file_sha256(path: Path | None) -> str | None:
    """The SHA-256 of a file's bytes, or None (no path, or a file that cannot be read):
    what cache keys and records name a configuration file by."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None
