"""One content-addressed store outside the repository, and the owner of its layout.

The root is $VERIFIER_CACHE, else $XDG_CACHE_HOME/verifier, else ~/.cache/verifier.
Every section is declared once, in `SECTIONS` (name, subdirectory, whether `cache
clean` removes it, what it holds); `Store.path(section, ...)` is the only way code
names a place in the cache, and `cache info`, `cache clean` and `cache gc` are
generated from the table.

Every write goes through the safe writer (`verifier.safewrite`: one repair area per
section, staged in tmp/, moved into place with os.replace, no symbolic link below a
section followed - a link, a file or a directory in the way of an entry is removed),
so an interrupted or concurrent run never leaves a half-written entry visible and a
planted link never carries a write out of the cache. A cache that cannot be written
(read-only, full, not a directory), also when it fills up mid-run, is a `CacheError`
(exit 2) naming the directory and the file, never a traceback.

The root must be a cache: an empty or new directory, or one holding this README. Any
other directory (`--cache ''` is the current directory) is refused before anything is
written or cleaned in it. Locks (`Store.lock`) wait at most `lock_timeout()` seconds,
say after a few seconds who holds them (pid, command, since when) and then give up
with that in the error; `shared=True` locks are held by runs, exclusive ones by what
removes (`env clean`), so neither corrupts the other.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.errors import CacheError
from verifier.gitblob import blob_sha
from verifier.safewrite import Area, WriteError


@dataclass(frozen=True)
class Section:
    name: str
    subdir: str
    cleanable: bool          # `cache clean` removes it (locks: a running process may hold one)
    description: str
    also: tuple[str, ...] = ()   # cleaned with it (built from it)


SECTIONS: tuple[Section, ...] = (
    Section("blobs", "blobs", True, "file bytes by git blob SHA (verified on every read)"),
    Section("wheels", "wheels", True, "pinned wheels and sdists, with manifests (sha256)"),
    Section("git", "git", True, "blobless partial clones: upstreams, URL mirrors, courses"),
    Section("trees", "trees", True, "git tree listings (path -> blob) per pinned commit"),
    Section("index", "index", True, "source indexes per upstream and pin (what serves each path)"),
    Section("symbols", "symbols", True, "assembled symbol indexes per upstream and pin"),
    Section("facts", "facts", True, "per-blob fact entries and memoised claim outcomes (signed)",
            also=("symbols",)),
    Section("envs", "envs", True, "runtime environments per upstream requirement set"),
    Section("courses", "courses", True, "course checkouts at pinned commits"),
    Section("tmp", "tmp", True, "staging for atomic writes, downloads and benchmarks"),
    Section("locks", "locks", False, "advisory file locks (kept: a running process may hold one)"),
)
BY_NAME = {s.name: s for s in SECTIONS}
# sections a scratch cache can share with the real one (read-mostly source data)
SOURCE_SECTIONS = ("blobs", "wheels", "git", "index", "trees", "envs", "locks")
STALE_TMP_S = 6 * 3600       # `cache gc`: staging older than this belongs to no running process
LOCK_TIMEOUT_S = 600.0       # the longest wait for a cache lock ($VERIFIER_LOCK_TIMEOUT)
LOCK_NOTE_S = 5.0            # after this long, say who holds the lock

MARKER_LINE = "This directory is the cache of `verifier`"
README = MARKER_LINE + """ (content-addressed; safe to delete).
`verifier cache info` shows its sections and sizes; `verifier cache clean` empties it,
`verifier cache gc` removes what no current pin or environment needs.

""" + "\n".join(f"{s.subdir + '/':<10} {s.description}" for s in SECTIONS) + "\n"


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


def state_dir() -> Path:
    """Where per-machine state outside the cache lives (the stores' signing keys):
    $VERIFIER_STATE_DIR, else $XDG_STATE_HOME/verifier, else ~/.local/state/verifier."""
    env = os.environ.get("VERIFIER_STATE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state") / "verifier"


def unusable(root: Path, exc: OSError) -> CacheError:
    """The one error for a cache directory that cannot be used."""
    why = {errno.EROFS: "read-only file system", errno.ENOSPC: "no space left on device",
           errno.EDQUOT: "disk quota exceeded", errno.EACCES: "permission denied",
           errno.EPERM: "permission denied", errno.ENOTDIR: "not a directory",
           errno.EEXIST: "a file is in the way"}.get(exc.errno or 0, exc.strerror or str(exc))
    where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
    return CacheError(f"cache directory {root} is unusable: {why}{where}",
                      hint="set VERIFIER_CACHE or --cache to a writable directory")


def read_entry(path: Path) -> bytes:
    """The bytes of a cache entry, read without following a link and without waiting on
    a FIFO or device: OSError (ENOENT when absent, EINVAL when it is no regular file - the
    caller removes such an entry, `Store._clear_non_file`)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def lock_timeout() -> float:
    raw = os.environ.get("VERIFIER_LOCK_TIMEOUT", "").strip()
    try:
        return max(0.0, float(raw)) if raw else LOCK_TIMEOUT_S
    except ValueError:
        raise CacheError(f"VERIFIER_LOCK_TIMEOUT={raw!r}: expected a number of seconds",
                         key="VERIFIER_LOCK_TIMEOUT") from None


def refuse_foreign(root: Path) -> None:
    """CacheError unless `root` is absent, empty, or already a verifier cache (its README
    says so): a cache is written into and `cache clean` empties its sections, so a
    directory holding anything else (the current directory after `--cache ''`, a home
    directory) is never used as one."""
    try:
        entries = sorted(os.listdir(root))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise CacheError(f"cache directory {root} is unusable: not a directory",
                         hint="set VERIFIER_CACHE or --cache to a writable directory") from None
    except OSError as exc:
        raise unusable(root, exc) from None
    if all(e.startswith(".README.") for e in entries):
        return           # empty, or another process is writing the README of a new cache
    try:
        with open(root / "README", encoding="utf-8", errors="replace") as fh:
            if fh.read(len(MARKER_LINE)) == MARKER_LINE:
                return
    except OSError:
        pass
    shown = ", ".join(entries[:4]) + (f", ... ({len(entries)} entries)" if len(entries) > 4 else "")
    raise CacheError(f"{root} is not a verifier cache (it holds {shown} and no cache README); "
                     "refusing to use it as the cache: its folders would be written into and "
                     "`cache clean` would delete them",
                     hint="pass --cache (or VERIFIER_CACHE) an empty or new directory")


class Store:
    def __init__(self, root: Path | None = None, *, key: bytes | None = None) -> None:
        """`key`: the signing key of a throw-away store (benchmarks), instead of one kept
        in a key file."""
        if root is not None and not str(root).strip():
            raise CacheError("the cache directory is an empty string",
                             hint="pass --cache (or VERIFIER_CACHE) a directory")
        self.root = (root or default_cache_dir()).resolve()
        self.corrupt: list[str] = []  # blob SHAs found corrupt (and removed) in this run
        self._key: bytes | None = key
        self.key_note: str | None = None
        self.notify: "Callable[[str], None] | None" = None   # lock waits are said here
        self._areas: dict[str, Area] = {}
        refuse_foreign(self.root)
        try:
            readme = self.root / "README"       # first: it is what says "a cache" to others
            if not readme.exists() or readme.read_text(errors="replace") != README:
                self.root.mkdir(parents=True, exist_ok=True)
                Area(self.root, "the cache", repair=True).write(readme, README)
            for s in SECTIONS:
                if s.name in ("blobs", "wheels", "git", "tmp", "locks"):
                    (self.root / s.subdir).mkdir(parents=True, exist_ok=True)
            # a probe of a few KiB: a read-only or full cache fails here, not mid-run
            self.area(self.root / "tmp" / "x").preflight()
        except WriteError as exc:
            raise CacheError(f"cache directory {self.root} is unusable: {exc.message}",
                             hint="set VERIFIER_CACHE or --cache to a writable directory "
                                  "with free space") from None
        except CacheError:
            raise
        except OSError as exc:
            raise unusable(self.root, exc) from None

    # ----------------------------------------------------------------- layout
    def path(self, section: str, *parts: str) -> Path:
        """The place of `parts` in a section: the only way to name a path in the cache."""
        s = BY_NAME.get(section)
        if s is None:
            raise ValueError(f"unknown cache section {section!r}")
        for part in parts:
            if not part or part in (".", "..") or "/" in part or "\0" in part:
                raise ValueError(f"bad cache path component {part!r}")
        return self.root.joinpath(s.subdir, *parts)

    def upstream_clone(self, slug: str) -> Path:
        """The partial clone of an upstream repository (`owner/name`)."""
        return self.path("git", slug.replace("/", "+") + ".git")

    # ----------------------------------------------------------------- signing
    def signing_key(self) -> bytes:
        """The secret that signs this store's verdict-bearing entries (fact cache).

        Kept outside the cache, so a cache that is copied, restored from a CI cache or
        written by something without the key cannot carry valid entries:
        $VERIFIER_CACHE_KEY (any string; e.g. a CI secret), else a random 32-byte key
        per store in `state_dir()/cache-keys/` (mode 0600, created on first use). When
        no key file can be written, a key for this process only (entries then last one
        run) and `key_note` says so."""
        if self._key is None:
            env = os.environ.get("VERIFIER_CACHE_KEY")
            if env:
                self._key = hashlib.sha256(b"verifier-cache-key\0" + env.encode()).digest()
            else:
                self._key = self._key_file()
        return self._key

    def _key_file(self) -> bytes:
        name = hashlib.sha256(str(self.root).encode()).hexdigest()[:24] + ".key"
        path = state_dir() / "cache-keys" / name
        for _ in range(3):
            with contextlib.suppress(FileNotFoundError):
                key = path.read_bytes()
                if len(key) == 32:
                    return key
            try:
                path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                time.sleep(0.01)       # another process is writing it: read it next round
                continue
            except OSError as exc:
                self.key_note = (f"no signing key could be kept in {path.parent} ({exc.strerror}); "
                                 "cached facts last this run only")
                return secrets.token_bytes(32)
            key = secrets.token_bytes(32)
            with os.fdopen(fd, "wb") as fh:
                fh.write(key)
                fh.flush()
                os.fsync(fh.fileno())
            return key
        self.key_note = f"signing key {path} is unreadable; cached facts last this run only"
        return secrets.token_bytes(32)

    # ----------------------------------------------------------------- atomic IO
    def area(self, dest: Path) -> Area:
        """The safe writer's area of the section `dest` lies in (the root itself for the
        README). A section that is itself a link when the store opens (a benchmark's
        scratch cache shares source sections that way) is written where it leads; below a
        section nothing is followed."""
        try:
            rel = Path(os.path.abspath(dest)).relative_to(self.root)
        except ValueError:
            raise CacheError(f"refusing to write {dest}: it is outside the cache {self.root}"
                             ) from None
        sub = rel.parts[0] if len(rel.parts) > 1 else ""
        area = self._areas.get(sub)
        if area is None:
            base = self.root / sub if sub else self.root
            area = self._areas[sub] = Area(base, "the cache", repair=True,
                                           _real_root=Path(os.path.realpath(base)))
        return area

    def write_bytes(self, dest: Path, data: bytes, *, fsync: bool = True) -> None:
        """Atomic write of a cache entry, staged in the cache's tmp/ (same filesystem).
        `fsync=False` skips the flush to disk for entries that verify themselves on read
        (signed fact entries): still atomic for interrupted and concurrent runs, only not
        durable across power loss. A cache that cannot take the write (read-only, full,
        also mid-run) is a CacheError naming the file."""
        try:
            self.area(dest).write(dest, data, durable=fsync,
                                  stage=self.area(self.root / "tmp" / "x"))
        except WriteError as exc:
            raise CacheError(f"cache directory {self.root} is unusable: {exc.message}",
                             hint="set VERIFIER_CACHE or --cache to a writable directory "
                                  "with free space") from None

    def write_json(self, dest: Path, obj: Any) -> None:
        self.write_bytes(dest, json.dumps(obj, sort_keys=True, indent=1).encode())

    def read_json(self, path: Path) -> Any | None:
        """JSON from the cache, or None when absent or corrupt (a corrupt entry is removed)."""
        try:
            return json.loads(read_entry(path))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, RecursionError):
            # corrupt, or a directory / link / fifo where the entry goes (F3-2): removed,
            # so the entry is built and written again (a repair, not "cache unusable")
            if not self._clear_non_file(path):
                with contextlib.suppress(OSError):
                    path.unlink()
            return None

    @contextlib.contextmanager
    def lock(self, name: str, *, shared: bool = False, timeout: float | None = None,
             ) -> Iterator[None]:
        """An advisory lock of the cache (exclusive, or `shared` with other shared holders).
        Waits at most `timeout` seconds (default `lock_timeout()`); after `LOCK_NOTE_S` it
        says, once, who holds it; past the timeout a CacheError names the holder."""
        base = name.replace("/", "+")
        path = self.path("locks", base + ".lock")
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            try:
                fd = os.open(path, flags, 0o666)
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                os.unlink(path)              # a link planted in place of a lock file
                fd = os.open(path, flags, 0o666)
        except OSError as exc:
            raise unusable(self.root, exc) from None
        op = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        limit = lock_timeout() if timeout is None else timeout
        start = time.monotonic()
        noted = False
        try:
            while True:
                try:
                    fcntl.flock(fd, op | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    pass
                waited = time.monotonic() - start
                if waited >= limit:
                    raise CacheError(f"cache lock {name} ({path}) is held by "
                                     f"{self.lock_holders(base) or 'another process'}; gave up "
                                     f"after {waited:.0f}s",
                                     hint="if that process is stuck, stop it; "
                                          "VERIFIER_LOCK_TIMEOUT sets the wait in seconds")
                if not noted and waited >= LOCK_NOTE_S and self.notify is not None:
                    noted = True
                    self.notify(f"waiting for the cache lock {name}, held by "
                                f"{self.lock_holders(base) or 'another process'} (giving up "
                                f"after {limit:.0f}s)")
                time.sleep(min(0.2, max(0.01, limit - waited)))
            holder = self.path("locks", f"{base}.{os.getpid()}.{threading.get_ident()}.holder")
            with contextlib.suppress(OSError, CacheError):
                self.write_bytes(holder, json.dumps(
                    {"pid": os.getpid(), "command": " ".join(sys.argv)[:300],
                     "since": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime()),
                     "mode": "shared" if shared else "exclusive"}).encode(), fsync=False)
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(holder)
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def lock_holders(self, base: str) -> str:
        """Who holds lock `base` (pid, command, since when), from the holder files of the
        processes still alive."""
        out = []
        for f in sorted(self.path("locks").glob(f"{base}.*.holder")):
            info = self.read_json(f)
            if not isinstance(info, dict) or not isinstance(info.get("pid"), int):
                continue
            try:
                os.kill(info["pid"], 0)
            except ProcessLookupError:
                with contextlib.suppress(OSError):
                    f.unlink()           # its process is gone (killed): not a holder
                continue
            except PermissionError:
                pass
            out.append(f"pid {info['pid']} ({str(info.get('command', '?'))[:120]}, since "
                       f"{info.get('since', '?')}, {info.get('mode', 'exclusive')})")
        return "; ".join(out)

    # --------------------------------------------------------------------- blobs
    def blob_path(self, sha: str) -> Path:
        return self.path("blobs", sha[:2], sha[2:])

    def put_blob(self, data: bytes) -> str:
        sha = blob_sha(data)
        dest = self.blob_path(sha)
        if not dest.exists() or self.get_blob(sha) is None:  # absent, or corrupt (removed)
            self.write_bytes(dest, data)
        return sha

    def put_blob_stream(self, chunks: Iterable[bytes], size: int) -> str:
        """Store `size` bytes arriving in chunks without holding them in memory; the
        blob SHA is computed while copying. Raises ValueError when the stream does
        not have exactly `size` bytes (nothing is stored then); errors of the
        stream itself propagate unchanged, errors writing the cache are CacheError."""
        h = hashlib.sha1(b"blob %d\0" % size)
        try:
            fd, tmp = tempfile.mkstemp(dir=os.path.realpath(self.path("tmp")), prefix="blob.")
        except OSError as exc:
            raise unusable(self.root, exc) from None
        try:
            got = 0
            with os.fdopen(fd, "wb") as fh:
                for chunk in chunks:
                    got += len(chunk)
                    if got > size:
                        break
                    h.update(chunk)
                    try:
                        fh.write(chunk)
                    except OSError as exc:
                        raise unusable(self.root, exc) from None
            if got != size:
                raise ValueError(f"member has {'more than' if got > size else got} bytes, "
                                 f"declared {size}")
            sha = h.hexdigest()
            dest = self.blob_path(sha)
            if dest.is_file() and not dest.is_symlink():
                os.unlink(tmp)
                return sha
            try:
                self._clear_non_file(dest)
                staged = self.path("tmp", os.path.basename(tmp))
                self.area(dest).place(staged, self.area(staged), dest)
            except WriteError as exc:
                raise CacheError(f"cache directory {self.root} is unusable: {exc.message}",
                                 hint="set VERIFIER_CACHE or --cache to a writable directory "
                                      "with free space") from None
            return sha
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _clear_non_file(self, path: Path) -> bool:
        """Remove whatever non-regular entry (directory, symlink, fifo) sits at a blob path."""
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return False
        if stat.S_ISREG(st.st_mode):
            return False
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return True

    def get_blob(self, sha: str) -> bytes | None:
        """Bytes whose blob SHA is `sha`, or None. A corrupt entry (wrong bytes, or a
        directory/symlink/other non-file where the blob should be) is removed and noted."""
        path = self.blob_path(sha)
        try:
            data = read_entry(path)
        except FileNotFoundError:
            return None
        except OSError:
            if self._clear_non_file(path):      # a link, directory or fifo where it goes
                self.corrupt.append(sha)
            return None
        if blob_sha(data) != sha:
            self.corrupt.append(sha)
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        return data

    def has_blob(self, sha: str) -> bool:
        path = self.blob_path(sha)
        return path.is_file() and not path.is_symlink()

    # --------------------------------------------------------------------- admin
    def size(self) -> int:
        return dir_size(self.root)

    def sizes(self) -> dict[str, int]:
        """Bytes per section, in table order."""
        return {s.name: dir_size(self.root / s.subdir) for s in SECTIONS}

    def clean(self, what: str = "all") -> list[Path]:
        """Empty one section, or every cleanable one ("all"); returns what was removed."""
        if what == "all":
            targets = [s for s in SECTIONS if s.cleanable]
        elif what in BY_NAME and BY_NAME[what].cleanable:
            targets = [BY_NAME[what], *(BY_NAME[a] for a in BY_NAME[what].also)]
        else:
            raise CacheError(f"unknown cache section {what!r}",
                             hint="one of: all, " + ", ".join(cleanable_sections()))
        removed = []
        try:
            for s in targets:
                p = self.root / s.subdir
                if s.name == "envs" and p.is_dir() and not p.is_symlink():
                    # each environment only once no batch runs in it (runtime/envs.py)
                    for env in sorted(p.iterdir()):
                        with self.lock(f"env-use-{env.name}"):
                            with contextlib.suppress(OSError):
                                (env / ".verifier-env.json").unlink()
                            shutil.rmtree(env, ignore_errors=True)
                if p.exists() or p.is_symlink():
                    if p.is_dir() and not p.is_symlink():
                        shutil.rmtree(p, ignore_errors=True)
                    else:
                        p.unlink()
                    removed.append(p)
                p.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise unusable(self.root, exc) from None
        return removed

    def gc(self, live: dict[str, set[str]], now: float | None = None) -> dict[str, list[Path]]:
        """Remove the entries no current pin or environment needs.

        `live` maps a section to the names of its top-level entries to keep (computed by
        the caller from pins, lock and environments; a section absent from `live` is not
        touched). `tmp/` is always collected: staging older than `STALE_TMP_S` (left by
        an interrupted download or write) goes. `blobs/` is collected by blob SHA."""
        now = time.time() if now is None else now
        removed: dict[str, list[Path]] = {}

        def drop(section: str, p: Path) -> None:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    p.unlink()
            removed.setdefault(section, []).append(p)

        for name, keep in sorted(live.items()):
            base = self.root / BY_NAME[name].subdir
            if not base.is_dir():
                continue
            if name == "blobs":
                for fan in sorted(base.iterdir()):
                    for f in sorted(fan.iterdir()) if fan.is_dir() else [fan]:
                        if fan.name + f.name not in keep:
                            drop(name, f)
                continue
            for entry in sorted(base.iterdir()):
                if entry.name not in keep:
                    drop(name, entry)
        tmp = self.root / "tmp"
        for entry in sorted(tmp.iterdir()) if tmp.is_dir() else []:
            with contextlib.suppress(OSError):
                if now - entry.lstat().st_mtime > STALE_TMP_S:
                    drop("tmp", entry)
        return removed


def cleanable_sections() -> list[str]:
    return [s.name for s in SECTIONS if s.cleanable]
