"""One content-addressed store outside the repository.

Layout (under $VERIFIER_CACHE, else $XDG_CACHE_HOME/verifier, else ~/.cache/verifier):

    blobs/ab/cdef...      raw file bytes, named by their git blob SHA (verified on read)
    wheels/<file>.whl     downloaded wheels and sdists, with <file>.json manifests
    git/<owner>+<name>.git  blobless partial clones, one per upstream
    tmp/                  staging for atomic writes
    locks/                advisory file locks

Every write goes to tmp/ and is moved into place with os.replace, so an
interrupted or concurrent run never leaves a half-written entry visible.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from verifier.errors import CacheError
from verifier.gitblob import blob_sha

README = """This directory is the cache of `verifier` (content-addressed; safe to delete).
Remove it with `verifier cache clean`.
"""


def dir_size(path: Path) -> int:
    """Bytes of every file under `path` (links not followed; vanished files skipped)."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_size
    return total


def default_cache_dir() -> Path:
    env = os.environ.get("VERIFIER_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "verifier"


class Store:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or default_cache_dir()).resolve()
        self.corrupt: list[str] = []  # blob SHAs found corrupt (and removed) in this run
        try:
            for sub in ("blobs", "wheels", "git", "tmp", "locks"):
                (self.root / sub).mkdir(parents=True, exist_ok=True)
            readme = self.root / "README"
            if not readme.exists():
                self.write_bytes(readme, README.encode())
        except OSError as exc:
            raise CacheError(f"cache directory {self.root} is unusable: {exc}",
                             hint="set VERIFIER_CACHE to a writable directory") from None

    # ----------------------------------------------------------------- atomic IO
    def write_bytes(self, dest: Path, data: bytes, *, fsync: bool = True) -> None:
        """Atomic write (temp file + os.replace). `fsync=False` skips the flush to disk
        for entries that verify themselves on read (checksummed fact entries): still
        atomic for interrupted and concurrent runs, only not durable across power loss."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root / "tmp", prefix=dest.name[:40] + ".")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                if fsync:
                    fh.flush()
                    os.fsync(fh.fileno())
            os.replace(tmp, dest)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def write_json(self, dest: Path, obj: Any) -> None:
        self.write_bytes(dest, json.dumps(obj, sort_keys=True, indent=1).encode())

    def read_json(self, path: Path) -> Any | None:
        """JSON from the cache, or None when absent or corrupt (a corrupt entry is removed)."""
        try:
            return json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                path.unlink()
            return None

    @contextlib.contextmanager
    def lock(self, name: str) -> Iterator[None]:
        path = self.root / "locks" / (name.replace("/", "+") + ".lock")
        with open(path, "a+") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # --------------------------------------------------------------------- blobs
    def blob_path(self, sha: str) -> Path:
        return self.root / "blobs" / sha[:2] / sha[2:]

    def put_blob(self, data: bytes) -> str:
        sha = blob_sha(data)
        dest = self.blob_path(sha)
        if not dest.exists() or self.get_blob(sha) is None:  # absent, or corrupt (removed)
            self.write_bytes(dest, data)
        return sha

    def get_blob(self, sha: str) -> bytes | None:
        """Bytes whose blob SHA is `sha`, or None. A corrupt entry is removed and noted."""
        path = self.blob_path(sha)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError:
            return None
        if blob_sha(data) != sha:
            self.corrupt.append(sha)
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        return data

    def has_blob(self, sha: str) -> bool:
        return self.blob_path(sha).exists()

    # --------------------------------------------------------------------- admin
    def size(self) -> int:
        return dir_size(self.root)

    def clean(self, what: str = "all") -> list[Path]:
        targets = {
            "all": ["blobs", "wheels", "git", "tmp", "facts", "symbols", "envs"],
            "blobs": ["blobs"], "wheels": ["wheels"], "git": ["git"],
            # derived facts: per-blob fact entries and the assembled symbol indexes
            "facts": ["facts", "symbols"], "envs": ["envs"], "tmp": ["tmp"],
        }.get(what)
        if targets is None:
            raise CacheError(f"unknown cache section {what!r}")
        removed = []
        for t in targets:
            p = self.root / t
            if p.exists():
                shutil.rmtree(p, ignore_errors=True)
                removed.append(p)
            p.mkdir(parents=True, exist_ok=True)
        return removed
