"""The one safe writer: every file `verifier` writes goes through an `Area`.

An `Area` is a directory a command may write into and why (`--out DIR`, the cache,
claims/, pins.toml's directory, a course's lessons for `upgrade --write`). Writing
`dest` in an area:

- `dest` must lie below the area's root, and no directory between the root and `dest`
  may be a symbolic link (each is opened with O_NOFOLLOW, one below the other): a
  planted `out/<course>` link cannot carry records out of `--out`. In a `repair` area
  (the cache, which never makes links itself) such a link or a file in the way of a
  directory is removed instead, and a directory where a file goes is removed too;
  elsewhere each is a refusal naming it;
- the file is written atomically (a temporary file in the same directory, flushed,
  given the mode the file had or the umask's, renamed over `dest`; never a half file);
- a failure the machine causes (read-only, full, quota, permission, a directory where
  the file goes) is a `WriteError` (exit 2) naming the path, never a traceback.

An area is refused when it could overwrite what the command is not meant to edit
(`guard`): `--out` inside or around a course's lessons (records written over lessons,
or linted as lessons on the next run), the claim files, pins.toml or the verifier's own
sources. Commands whose purpose is to edit those (`upgrade --write`, `draft --write`,
`lock`, `claims rebind`) open an area on them by name (`Area.edit`).

`preflight` checks an area before the work starts (it exists or can be made, takes a
probe write, and the names about to be written are not directories), so a read-only or
full `--out` fails in the first second, not after the run.

`Transaction` writes several files all-or-nothing (`upgrade --write`: lessons, pins.lock
and pins.toml): every file is staged first (a full disk or a read-only directory then
changes nothing), then a journal is written and the renames run with SIGINT/SIGTERM
held; a rename that fails rolls back the ones before it. Only a SIGKILL or power loss
inside the renames (microseconds) can interrupt them, and the next `recover` of that
journal directory (every project load) rolls those files back.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import shutil
import signal
import stat
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from verifier.errors import VerifierError
from verifier.fileio import new_file_mode

JOURNAL = ".verifier-transaction.json"
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_REASONS = {errno.EROFS: "read-only file system", errno.ENOSPC: "no space left on device",
            errno.EDQUOT: "disk quota exceeded", errno.EACCES: "permission denied",
            errno.EPERM: "permission denied", errno.EISDIR: "a directory is in the way",
            errno.ENOTDIR: "a file is in the way of a directory",
            errno.ENAMETOOLONG: "file name too long", errno.EEXIST: "a file is in the way",
            errno.ELOOP: "a symbolic link is in the way", errno.EXDEV: "crosses file systems",
            errno.EMLINK: "too many links", errno.ENOENT: "a directory vanished"}
# errno values that say "this place cannot take the write" (the machine, not a bug)
ENVIRONMENT = frozenset(_REASONS) | {errno.EIO, errno.EFBIG, errno.ETXTBSY}


class WriteError(VerifierError):
    """A file could not be written (exit 2): the path and the reason."""


def machine_failure(exc: BaseException) -> bool:
    """Whether `exc` is the machine refusing a write (a full, read-only or unusable cache
    or output): it ends the run as exit 2 naming the file, even from inside a claim kind
    or a lint rule, whose other exceptions are contained as bugs."""
    from verifier.errors import CacheError

    if isinstance(exc, (WriteError, CacheError)):
        return True
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS)


def reason(exc: OSError) -> str:
    return _REASONS.get(exc.errno or 0, exc.strerror or str(exc))


@dataclass(frozen=True)
class Protected:
    """A place a command must not write into unless editing it is its purpose."""

    path: Path          # resolved
    what: str           # "the lessons of course mujoco-atlas"


def _real(path: Path) -> Path:
    return Path(os.path.realpath(os.path.abspath(os.fspath(path))))


def _within(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def guard(root: Path, protected: Iterable[Protected], purpose: str, *,
          around: bool = True) -> None:
    """WriteError when writing into `root` could overwrite, or feed back into the next
    run, something in `protected`: `root` lies inside one, or (`around`: a directory
    whose relative paths are written) holds one."""
    real = _real(root)
    for p in protected:
        if _within(real, p.path):
            raise WriteError(f"{purpose} {root} is inside {p.what} ({p.path}): what is written "
                             "there would overwrite it or be read back as input on the next run",
                             hint=f"choose a directory outside it, e.g. {p.path.parent / 'out'}"
                             if p.path.parent != p.path else None)
        if around and _within(p.path, real):
            raise WriteError(f"{purpose} {root} holds {p.what} ({p.path}): records written "
                             "below it could land on those files",
                             hint="choose a directory of its own, e.g. ./out")


@dataclass
class Area:
    """A directory a command writes into (see the module docstring)."""

    root: Path
    purpose: str
    repair: bool = False
    _real_root: Path | None = field(default=None, repr=False)   # given: root's real place

    @classmethod
    def out(cls, root: Path, protected: Iterable[Protected] = (), purpose: str = "--out"
            ) -> "Area":
        """An area for records and other outputs a user named (refused when it is or
        surrounds a protected place)."""
        guard(root, protected, purpose)
        return cls(Path(root), purpose)

    @classmethod
    def edit(cls, root: Path, purpose: str) -> "Area":
        """An area whose files the command is meant to edit (lessons on `upgrade --write`,
        claim files, pins.lock)."""
        return cls(Path(root), purpose)

    @property
    def real_root(self) -> Path:
        if self._real_root is None:
            self._real_root = _real(self.root)
        return self._real_root

    # ------------------------------------------------------------------ paths
    def parts(self, dest: Path) -> tuple[list[str], str]:
        """(directories below the root, file name) of `dest`; WriteError outside."""
        absolute = Path(os.path.abspath(os.fspath(dest)))
        for base in (Path(os.path.abspath(os.fspath(self.root))), self.real_root):
            try:
                rel = absolute.relative_to(base)
                break
            except ValueError:
                continue
        else:
            parent = _real(absolute.parent)
            try:
                rel = (parent / absolute.name).relative_to(self.real_root)
            except ValueError:
                raise WriteError(f"refusing to write {dest}: it is outside {self.purpose} "
                                 f"({self.root})") from None
        names = [p for p in rel.parts if p not in ("", ".")]
        if not names or ".." in names:
            raise WriteError(f"refusing to write {dest}: not a file below {self.purpose} "
                             f"({self.root})")
        return names[:-1], names[-1]

    def _fail(self, dest: Path | str, exc: OSError) -> WriteError:
        return WriteError(f"cannot write {dest} ({self.purpose}): {reason(exc)}",
                          hint=None if exc.errno not in (errno.ENOSPC, errno.EDQUOT) else
                          "free some space or choose another directory")

    def open_dir(self, dirs: list[str], *, create: bool = True) -> int:
        """A descriptor of root/dirs, opened one level at a time without following a
        symbolic link (a repair area removes what is in the way)."""
        try:
            if create:
                os.makedirs(self.real_root, exist_ok=True)
            fd = os.open(self.real_root, _DIR)
        except OSError as exc:
            raise self._fail(self.root, exc) from None
        for i, name in enumerate(dirs):
            for attempt in range(3):
                try:
                    nfd = os.open(name, _DIR, dir_fd=fd)
                    break
                except FileNotFoundError:
                    if not create:
                        os.close(fd)
                        raise
                    try:
                        os.mkdir(name, 0o777, dir_fd=fd)
                    except FileExistsError:
                        pass            # a concurrent run made it first: open it next
                    except OSError as exc:
                        os.close(fd)
                        raise self._fail(self.root.joinpath(*dirs[:i + 1]), exc) from None
                except OSError as exc:
                    shown = self.root.joinpath(*dirs[:i + 1])
                    if exc.errno not in (errno.ELOOP, errno.ENOTDIR) or attempt == 2:
                        os.close(fd)
                        raise self._fail(shown, exc) from None
                    if not self.repair:
                        try:
                            link = stat.S_ISLNK(os.stat(name, dir_fd=fd,
                                                        follow_symlinks=False).st_mode)
                        except OSError:
                            link = exc.errno == errno.ELOOP
                        os.close(fd)
                        kind = "a symbolic link" if link else "not a directory"
                        raise WriteError(f"refusing to write through {shown}: it is {kind} "
                                         f"(below {self.purpose} {self.root}, every folder must "
                                         "be a real directory, so nothing is written elsewhere)"
                                         ) from None
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=fd)      # a planted link or a stray file
            os.close(fd)
            fd = nfd
        return fd

    # ------------------------------------------------------------------ writing
    def write(self, dest: Path, data: bytes | str, *, durable: bool = True,
              mode: int | None = None, stage: "Area | None" = None) -> Path:
        """Write `dest` atomically (see the module docstring). `stage`: an area whose root
        to stage in (the cache's tmp/); `durable=False` skips the fsync."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        dirs, name = self.parts(dest)
        fd = self.open_dir(dirs)
        sfd = None
        try:
            if stage is not None:
                sfd = stage.open_dir([])
            try:
                self._replace(fd, sfd, name, data, durable, mode)
            except OSError as exc:
                if exc.errno == errno.EXDEV and sfd is not None:
                    self._replace(fd, None, name, data, durable, mode)
                else:
                    raise
        except OSError as exc:
            raise self._fail(dest, exc) from None
        finally:
            os.close(fd)
            if sfd is not None:
                os.close(sfd)
        return Path(dest)

    def _replace(self, fd: int, sfd: int | None, name: str, data: bytes, durable: bool,
                 mode: int | None) -> None:
        where = fd if sfd is None else sfd
        tmp = stage_file(where, name, data, durable, _mode(fd, name, mode))
        try:
            try:
                os.replace(tmp, name, src_dir_fd=where, dst_dir_fd=fd)
            except IsADirectoryError:
                if not self.repair:
                    raise
                _remove_dir(fd, name)
                os.replace(tmp, name, src_dir_fd=where, dst_dir_fd=fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=where)
            raise

    def place(self, src: Path, src_area: "Area", dest: Path) -> None:
        """Move the finished file `src` (of `src_area`, e.g. the cache's tmp/) to `dest`
        in this area, through the same checks as `write`."""
        sdirs, sname = src_area.parts(src)
        dirs, name = self.parts(dest)
        sfd = src_area.open_dir(sdirs, create=False)
        try:
            fd = self.open_dir(dirs)
        except BaseException:
            os.close(sfd)
            raise
        try:
            try:
                os.replace(sname, name, src_dir_fd=sfd, dst_dir_fd=fd)
            except IsADirectoryError:
                if not self.repair:
                    raise
                _remove_dir(fd, name)
                os.replace(sname, name, src_dir_fd=sfd, dst_dir_fd=fd)
        except OSError as exc:
            raise self._fail(dest, exc) from None
        finally:
            os.close(fd)
            os.close(sfd)

    def append(self, dest: Path, data: bytes | str) -> Path:
        """Append to `dest` (a job summary file the CI runner hands over), opened without
        following a link in its folders; a missing file is created."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        dirs, name = self.parts(dest)
        fd = self.open_dir(dirs)
        try:
            out = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC,
                          new_file_mode(), dir_fd=fd)
            with os.fdopen(out, "ab") as fh:
                fh.write(data)
        except OSError as exc:
            raise self._fail(dest, exc) from None
        finally:
            os.close(fd)
        return Path(dest)

    def preflight(self, files: Iterable[str] = (), dirs: Iterable[str] = ()) -> None:
        """Before the work: the root exists (or is made) and takes a probe write of a few
        KiB, none of `files` (relative paths about to be written) is a directory, and none
        of `dirs` (folders about to be written into) is a symbolic link."""
        base = self.real_root        # probed where it is, or in what would hold it (no
        while not base.exists():     # directory is made before the work needs one)
            if base.is_symlink() or base == base.parent:
                break
            base = base.parent
        if not base.is_dir():
            raise self._fail(self.root, OSError(errno.ENOTDIR, "not a directory", str(base)))
        try:
            fd = os.open(base, _DIR)
        except OSError as exc:
            raise self._fail(self.root, exc) from None
        try:
            tmp = stage_file(fd, "probe", b"\0" * 4096, True, 0o600)
            os.unlink(tmp, dir_fd=fd)
        except OSError as exc:
            raise self._fail(self.root, exc) from None
        finally:
            os.close(fd)
        for rel in dirs:
            p = self.root / rel
            if p.is_symlink() and not self.repair:
                raise WriteError(f"refusing to write through {p}: it is a symbolic link "
                                 f"(below {self.purpose} {self.root}, every folder must be a "
                                 "real directory, so nothing is written elsewhere)",
                                 hint="remove the link")
        for rel in files:
            p = self.root / rel
            if p.is_dir() and not p.is_symlink():
                raise WriteError(f"cannot write {p} ({self.purpose}): a directory is in the way",
                                 hint="remove it or choose another directory")


def _mode(fd: int, name: str, mode: int | None) -> int:
    if mode is not None:
        return mode
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    return new_file_mode()


def _remove_dir(fd: int, name: str) -> None:
    """Remove a directory that sits where a cache entry goes (repair areas only)."""
    try:
        os.rmdir(name, dir_fd=fd)
    except OSError:
        path = f"/proc/self/fd/{fd}/{name}"
        shutil.rmtree(path if os.path.isdir(f"/proc/self/fd/{fd}") else name,
                      ignore_errors=True)


def stage_file(dir_fd: int, name: str, data: bytes, durable: bool, mode: int) -> str:
    """A new temporary file `.<name>.<random>.tmp` in `dir_fd` holding `data`; its name."""
    for _ in range(100):
        tmp = f".{name[:40]}.{secrets.token_hex(4)}.tmp"
        try:
            out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                          | getattr(os, "O_CLOEXEC", 0), 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary name", name)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(out, view):]
        if durable:
            os.fsync(out)
        os.fchmod(out, mode)
    except BaseException:
        os.close(out)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.close(out)
    return tmp


# --------------------------------------------------------------------------- transactions
@dataclass
class _Item:
    area: Area
    dest: Path
    data: bytes
    dirs: list[str] = field(default_factory=list)
    name: str = ""
    fd: int = -1
    tmp: str | None = None
    backup: str | None = None
    existed: bool = False
    done: bool = False


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP wait until the block ends (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class Transaction:
    """Several files written together or not at all (see the module docstring)."""

    def __init__(self, journal_dir: Path, what: str) -> None:
        self.journal = Path(journal_dir) / JOURNAL
        self.what = what
        self.items: list[_Item] = []

    def write(self, area: Area, dest: Path, data: bytes | str) -> None:
        self.items.append(_Item(area, Path(dest), data.encode("utf-8") if isinstance(data, str)
                                else data))

    def commit(self) -> list[Path]:
        """Write every queued file, in order; WriteError (nothing changed) otherwise."""
        recover(self.journal.parent)
        try:
            for it in self.items:                       # 1. stage: nothing is changed yet
                it.dirs, it.name = it.area.parts(it.dest)
                it.fd = it.area.open_dir(it.dirs)
                try:
                    st = os.stat(it.name, dir_fd=it.fd, follow_symlinks=False)
                    if stat.S_ISDIR(st.st_mode):
                        raise IsADirectoryError(errno.EISDIR, "is a directory", str(it.dest))
                    it.existed = True
                except FileNotFoundError:
                    it.existed = False
                except OSError as exc:
                    raise it.area._fail(it.dest, exc) from None
                try:
                    it.tmp = stage_file(it.fd, it.name, it.data, True, _mode(it.fd, it.name, None))
                    if it.existed:
                        it.backup = _backup(it.fd, it.name)
                except OSError as exc:
                    raise it.area._fail(it.dest, exc) from None
            with _signals_held():
                self._journal()                         # 2. what a SIGKILL would leave
                for it in self.items:                   # 3. the renames, rolled back on failure
                    try:
                        os.replace(it.tmp, it.name, src_dir_fd=it.fd, dst_dir_fd=it.fd)
                    except OSError as exc:
                        self._rollback()
                        raise WriteError(f"cannot write {it.dest} ({it.area.purpose}): "
                                         f"{reason(exc)}; nothing of {self.what} was written "
                                         "(the files written before it were restored)") from None
                    except BaseException:
                        self._rollback()
                        raise
                    it.done, it.tmp = True, None
                self._finish()
        except WriteError as exc:
            self._discard()
            if "nothing of" in exc.message:
                raise
            raise WriteError(f"{exc.message}; nothing of {self.what} was written",
                             hint=exc.hint) from None
        except BaseException:
            self._discard()
            raise
        finally:
            for it in self.items:
                if it.fd >= 0:
                    os.close(it.fd)
                    it.fd = -1
        return [it.dest for it in self.items]

    def _journal(self) -> None:
        body = {"what": self.what, "files": [
            {"dir": str(_real(it.area.root).joinpath(*it.dirs)), "name": it.name,
             "tmp": it.tmp, "backup": it.backup, "existed": it.existed} for it in self.items]}
        area = Area.edit(self.journal.parent, "the transaction journal")
        area.write(self.journal, json.dumps(body, indent=1) + "\n")

    def _rollback(self) -> None:
        for it in reversed(self.items):
            if not it.done:
                continue
            with contextlib.suppress(OSError):
                if it.backup:
                    os.replace(it.backup, it.name, src_dir_fd=it.fd, dst_dir_fd=it.fd)
                    it.backup = None
                elif not it.existed:
                    os.unlink(it.name, dir_fd=it.fd)
            it.done = False
        with contextlib.suppress(OSError):
            self.journal.unlink()

    def _discard(self) -> None:
        for it in self.items:
            if it.fd < 0:
                continue
            for tmp in (it.tmp, it.backup):
                if tmp:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp, dir_fd=it.fd)
            it.tmp = it.backup = None

    def _finish(self) -> None:
        with contextlib.suppress(OSError):
            self.journal.unlink()
        self._discard()


def _backup(fd: int, name: str) -> str:
    """A hard link to the current file (a copy where links are not supported), kept until
    the transaction is over."""
    for _ in range(100):
        tmp = f".{name[:40]}.{secrets.token_hex(4)}.bak"
        try:
            os.link(name, tmp, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
            return tmp
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV):
                raise
            src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
            with os.fdopen(src, "rb") as fh:
                data = fh.read()
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            return stage_file(fd, name + ".bak", data, True, stat.S_IMODE(st.st_mode))
    raise FileExistsError(errno.EEXIST, "no free backup name", name)


def recover(journal_dir: Path) -> str | None:
    """Roll back the files of a transaction whose renames were cut short (a SIGKILL or
    power loss between them): each file gets its old bytes back (a new one is removed).
    Returns a note saying what was rolled back, or None when there was nothing to do."""
    path = Path(journal_dir) / JOURNAL
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        files = body["files"]
        what = str(body.get("what", "a multi-file write"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return f"{path}: an unreadable transaction journal was left; check the files it names"
    restored = []
    for f in files if isinstance(files, list) else []:
        try:
            d = Path(f["dir"])
            target = d / f["name"]
            if f.get("backup") and (d / f["backup"]).exists():
                os.replace(d / f["backup"], target)
                restored.append(str(target))
            elif not f.get("existed") and f.get("tmp") and not (d / f["tmp"]).exists():
                with contextlib.suppress(FileNotFoundError):
                    target.unlink()           # it was created by the cut-short transaction
                    restored.append(str(target))
            if f.get("tmp"):
                with contextlib.suppress(FileNotFoundError):
                    (d / f["tmp"]).unlink()
        except (OSError, KeyError, TypeError):
            continue
    with contextlib.suppress(OSError):
        path.unlink()
    return (f"{what} was interrupted during its final renames; rolled back "
            f"{len(restored)} file(s) to their state before it" if restored else None)
