"""Atomic file writes: the one way `verifier` replaces a file.

`atomic_write(dest, data)` writes a temporary file in `dest`'s own directory (so the
final `os.replace` never crosses a filesystem), flushes it to disk unless told not
to, gives it the mode `dest` already has (or, for a new file, the mode `open()` would
give under the current umask: `mkstemp` alone would leave 0600) and renames it over
`dest`. A reader sees the old bytes or the new ones, never a mix; an interrupted
write leaves at most a `.<name>.*.tmp` file next to `dest`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import tempfile
from pathlib import Path

# errors that say "this directory cannot take the write" (not a bug in verifier)
UNWRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT,
                        errno.ENOTDIR, errno.EEXIST, errno.EISDIR, errno.ENAMETOOLONG})


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


def atomic_write(dest: Path, data: bytes | str, *, durable: bool = True,
                 stage_dir: Path | None = None, mode: int | None = None) -> None:
    """Replace `dest` with `data` atomically (see the module docstring).

    `stage_dir`: stage there instead of next to `dest` (the cache's own `tmp/`, on the
    same filesystem); when the rename crosses a filesystem after all, the write is
    staged again next to `dest`. `mode`: the file's mode (default: `dest`'s current
    mode, else what the umask gives). `durable=False` skips the fsync (for entries
    that verify themselves on read). OSError propagates, nothing half-written stays."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    dest.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(dest.stat().st_mode)
        except OSError:
            mode = new_file_mode()
    try:
        _write_via(stage_dir or dest.parent, dest, data, durable, mode)
    except OSError as exc:
        if stage_dir is None or exc.errno != errno.EXDEV:
            raise
        _write_via(dest.parent, dest, data, durable, mode)


def _write_via(where: Path, dest: Path, data: bytes, durable: bool, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(dir=where, prefix=f".{dest.name[:40]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), mode)
        os.replace(tmp, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def file_sha256(path: Path | None) -> str | None:
    """The SHA-256 of a file's bytes, or None (no path, or a file that cannot be read):
    what cache keys and records name a configuration file by."""
    if path is None:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None
