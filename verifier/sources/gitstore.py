"""Git access: local repositories (mirrors, object stores) and blobless partial
clones of remote upstreams kept in the cache.

Nothing here writes a work tree: trees come from `ls-tree`, bytes from the
object database (`cat-file --batch-command`).

Two rules keep every git call bounded and free of surprise network traffic:

- every git subprocess runs in its own process group under a deadline
  (`git_timeout`); on expiry the whole group (git, git-remote-http, ...) is
  killed, so a silent or trickling remote cannot hold a run;
- reads never fetch lazily. A partial clone whose promisor remote is the
  upstream would fetch a missing object on `cat-file` (git 2.39 has no
  `--no-lazy-fetch`), so reads run against a neutral, config-less GIT_DIR with
  the repository's object directory as GIT_OBJECT_DIRECTORY: git sees the
  objects but no promisor remote, and a missing object is simply missing.
  Blobs a partial clone lacks are fetched explicitly (`PartialClone.prefetch`),
  under the same deadline.

gitpython is used to find a repository's git and object directories (bare or
not, with or without a config file)."""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import AcquisitionError

if TYPE_CHECKING:
    import git

_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "SSH_ASKPASS": "true",
        "GCM_INTERACTIVE": "never", "GIT_HTTP_LOW_SPEED_LIMIT": "1000",
        "GIT_HTTP_LOW_SPEED_TIME": "20", "LC_ALL": "C"}
LOCAL_UPLOAD_PACK = ("git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true "
                     "upload-pack")
READ_TIMEOUT = 120.0   # local reads: generous, only a guard against a wedged process
_SHA = re.compile(r"^[0-9a-f]{40}$")


class GitTimeout(AcquisitionError):
    """A git subprocess exceeded its deadline (its process group was killed)."""


class CommitUnknown(AcquisitionError):
    """The remote answered and does not have the commit."""


def is_local(url: str) -> bool:
    return url.startswith("file://") or not re.match(r"^[a-z][a-z0-9+.-]*://|^[^/]+@[^/]+:", url)


def local_path(url: str) -> Path:
    return Path(url[len("file://"):] if url.startswith("file://") else url).expanduser()


def first_line(exc: Exception) -> str:
    """The telling line of an exception's text (git's `fatal:`/`error:` line, else the last)."""
    text = getattr(exc, "stderr", None) or str(exc)
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith(("fatal:", "error:")) or "stderr:" in ln:
            return ln.replace("stderr:", "").strip().strip("'")
    return lines[-1] if lines else type(exc).__name__


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        proc.kill()


def run_git(args: list[str], *, timeout: float, env: dict[str, str] | None = None,
            input: bytes | None = None, what: str = "git") -> subprocess.CompletedProcess:
    """Run `git args` in its own process group; kill the group at the deadline."""
    full_env = {**os.environ, **_ENV, **(env or {})}
    try:
        proc = subprocess.Popen(["git", *args], stdin=subprocess.PIPE if input is not None
                                else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=full_env, start_new_session=True)
    except OSError as exc:
        raise AcquisitionError(f"cannot run git: {exc}") from None
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        with contextlib.suppress(Exception):
            proc.communicate(timeout=5)
        raise GitTimeout(f"{what} timed out after {timeout:g}s") from None
    except BaseException:
        _kill_group(proc)
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _stderr_line(err: bytes) -> str:
    text = err.decode("utf-8", "replace")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith(("fatal:", "error:")):
            return ln
    return lines[-1][-200:] if lines else "no error output"


_neutral_dir: Path | None = None


def neutral_git_dir() -> Path:
    """An empty, config-less bare repository (one per process): GIT_DIR for reads,
    so that no repository config (promisor remote, hooks, fsmonitor) applies."""
    global _neutral_dir
    if _neutral_dir is None or not (_neutral_dir / "HEAD").exists():
        d = Path(tempfile.mkdtemp(prefix="verifier-git-"))
        (d / "objects").mkdir()
        (d / "refs").mkdir()
        (d / "HEAD").write_text("ref: refs/heads/main\n")
        (d / "config").write_text("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
        _neutral_dir = d
        atexit.register(shutil.rmtree, d, True)
    return _neutral_dir


class _Reader:
    """One `git cat-file --batch-command` process over an object directory, read
    with a deadline per request (select on the raw pipe)."""

    def __init__(self, objects_dir: Path, timeout: float) -> None:
        self.objects_dir = objects_dir
        self.timeout = timeout
        self.proc: subprocess.Popen | None = None
        self.buf = bytearray()

    def _env(self) -> dict[str, str]:
        return {**os.environ, **_ENV, "GIT_DIR": str(neutral_git_dir()),
                "GIT_OBJECT_DIRECTORY": str(self.objects_dir), "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull, "GIT_NO_REPLACE_OBJECTS": "1"}

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            try:
                self.proc = subprocess.Popen(["git", "cat-file", "--batch-command"],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, env=self._env(),
                                             start_new_session=True)
            except OSError as exc:
                raise AcquisitionError(f"cannot run git: {exc}") from None
            self.buf = bytearray()
        return self.proc

    def close(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(Exception):
                self.proc.stdin.close()  # type: ignore[union-attr]
            with contextlib.suppress(Exception):
                self.proc.wait(timeout=2)
            if self.proc.poll() is None:
                _kill_group(self.proc)
            self.proc = None

    def _fill(self, deadline: float) -> None:
        proc = self.proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        left = deadline - time.monotonic()
        if left <= 0:
            raise GitTimeout("git cat-file timed out")
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            raise GitTimeout(f"git cat-file timed out after {self.timeout:g}s")
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            raise AcquisitionError("git cat-file exited unexpectedly")
        self.buf += chunk

    def _request(self, line: str, want_body: bool) -> tuple[str, bytes | None] | None:
        proc = self._start()
        deadline = time.monotonic() + self.timeout
        try:
            assert proc.stdin is not None
            proc.stdin.write(line.encode() + b"\n")
            proc.stdin.flush()
            while b"\n" not in self.buf:
                self._fill(deadline)
            nl = self.buf.index(b"\n")
            header = bytes(self.buf[:nl]).decode("ascii", "replace")
            del self.buf[:nl + 1]
            parts = header.split()
            if len(parts) != 3:      # '<oid> missing' / 'ambiguous'
                return None
            kind, size = parts[1], int(parts[2])
            if not want_body:
                return kind, None
            while len(self.buf) < size + 1:
                self._fill(deadline)
            body = bytes(self.buf[:size])
            del self.buf[:size + 1]
            return kind, body
        except (GitTimeout, AcquisitionError, OSError, ValueError):
            self.close()
            raise

    def info(self, sha: str) -> str | None:
        got = self._request(f"info {sha}", False)
        return got[0] if got else None

    def contents(self, sha: str) -> tuple[str, bytes] | None:
        got = self._request(f"contents {sha}", True)
        return (got[0], got[1] or b"") if got else None


def _is_git_dir(d: Path) -> bool:
    """The layout git itself accepts: HEAD, and objects + refs (or a `commondir` naming them)."""
    return (d / "HEAD").is_file() and ((d / "commondir").is_file()
                                       or (d / "objects").is_dir() and (d / "refs").is_dir())


def git_dirs(path: Path) -> tuple[Path, Path]:
    """(git dir, common dir) of a repository at `path`: bare, a work tree with `.git`, or
    a linked work tree (`.git` file naming its git dir). Read from the layout, without
    starting git or importing gitpython (~40 ms on a warm run that only reads blobs)."""
    try:
        if not path.exists():
            raise AcquisitionError(f"{path} is not a git repository (no such path)")
        dot = path / ".git"
        if _is_git_dir(path):
            git_dir = path
        elif dot.is_dir() and _is_git_dir(dot):
            git_dir = dot
        elif dot.is_file():
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir:"):
                raise AcquisitionError(f"{path} is not a git repository (.git file without "
                                       "a gitdir line)")
            git_dir = (path / text[len("gitdir:"):].strip()).resolve()
            if not _is_git_dir(git_dir):
                raise AcquisitionError(f"{path} is not a git repository ({git_dir} is no "
                                       "git directory)")
        else:
            raise AcquisitionError(f"{path} is not a git repository (no HEAD, objects and "
                                   "refs, and no .git)")
        common = git_dir
        if (git_dir / "commondir").is_file():
            rel = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
            common = (git_dir / rel).resolve()
    except OSError as exc:
        raise AcquisitionError(f"{path} cannot be opened as a git repository: {exc}") from None
    return git_dir.absolute(), common.absolute()


class GitRepo:
    """A local git repository (bare or not, config or not), read without lazy fetch."""

    def __init__(self, path: Path, timeout: float = READ_TIMEOUT) -> None:
        self.path = path
        self.timeout = timeout
        self.git_dir, common = git_dirs(path)
        self.objects_dir = common / "objects"
        if not self.objects_dir.is_dir():
            raise AcquisitionError(f"{path} has no object directory")
        self._reader = _Reader(self.objects_dir, min(timeout, READ_TIMEOUT))
        self._gitpython: "git.Repo | None" = None

    @property
    def repo(self) -> "git.Repo":
        """The gitpython handle (refs, tags), trusted for reading."""
        if self._gitpython is None:
            import git

            self._gitpython = git.Repo(str(self.path), search_parent_directories=False)
            self._gitpython.git.update_environment(
                **_ENV, GIT_DIR=str(self.git_dir), GIT_CONFIG_COUNT="1",
                GIT_CONFIG_KEY_0="safe.directory", GIT_CONFIG_VALUE_0=str(self.git_dir))
        return self._gitpython

    def _read_env(self) -> dict[str, str]:
        return self._reader._env()

    def head(self) -> str | None:
        """The commit HEAD names, or None (no HEAD, an unborn branch, or not a commit here)."""
        proc = run_git(["--git-dir", str(self.git_dir), "-c", f"safe.directory={self.git_dir}",
                        "rev-parse", "--verify", "-q", "HEAD"], timeout=self.timeout,
                       what=f"git rev-parse in {self.path}")
        sha = proc.stdout.decode("ascii", "replace").strip()
        return sha if proc.returncode == 0 and self.has_commit(sha) else None

    def has_commit(self, sha: str) -> bool:
        if not _SHA.match(sha):
            return False
        try:
            return self._reader.info(sha) == "commit"
        except AcquisitionError:
            return False

    def has_object(self, sha: str) -> bool:
        try:
            return self._reader.info(sha) is not None
        except AcquisitionError:
            return False

    def tree(self, sha: str) -> dict[str, str]:
        """path -> blob SHA of every file at commit `sha` (submodules and links excluded)."""
        proc = run_git(["ls-tree", "-r", "-z", "--full-tree", sha], timeout=self.timeout,
                       env=self._read_env(), what=f"git ls-tree in {self.path}")
        if proc.returncode != 0:
            raise AcquisitionError(f"cannot list the tree of {sha[:7]} in {self.path}: "
                                   f"{_stderr_line(proc.stderr)}")
        files: dict[str, str] = {}
        for entry in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if not entry:
                continue
            meta, _, path = entry.partition("\t")
            mode, kind, oid = meta.split()
            if kind == "blob" and mode != "120000":
                files[path] = oid
        return files

    def read_blob(self, sha: str) -> bytes | None:
        """Blob bytes from this object store, or None when it does not hold the blob."""
        if not _SHA.match(sha):
            return None
        try:
            got = self._reader.contents(sha)
        except AcquisitionError:
            return None
        if got is None or got[0] != "blob":
            return None
        return got[1]

    def close(self) -> None:
        self._reader.close()
        if self._gitpython is not None:
            with contextlib.suppress(Exception):
                self._gitpython.close()
            self._gitpython = None


class PartialClone(GitRepo):
    """A bare, blobless partial clone in the cache, fetching one commit at a time.

    Construct it under the cache lock for its directory (creation and the config
    writes are not safe against a concurrent writer otherwise)."""

    def __init__(self, path: Path, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        try:
            if not (path / "HEAD").exists():
                self._create(path, url, timeout)
            elif self._config(path, ["--get", "remote.origin.url"], timeout).strip() != url:
                self._set_url(path, url, timeout)
        except OSError as exc:
            raise AcquisitionError(f"cannot prepare the clone of {url} in {path}: {exc}") from None
        super().__init__(path, timeout)

    @staticmethod
    def _config(path: Path, args: list[str], timeout: float) -> str:
        proc = run_git(["--git-dir", str(path), "config", *args], timeout=timeout,
                       what=f"git config in {path}")
        # 1: key not set (--get); 5: nothing to unset (--unset-all)
        if proc.returncode not in (0, 1, 5):
            raise AcquisitionError(f"git config in {path} failed: {_stderr_line(proc.stderr)}")
        return proc.stdout.decode("utf-8", "replace")

    @classmethod
    def _set_url(cls, path: Path, url: str, timeout: float) -> None:
        cls._config(path, ["remote.origin.url", url], timeout)
        if is_local(url):
            cls._config(path, ["remote.origin.uploadpack", LOCAL_UPLOAD_PACK], timeout)
        else:
            cls._config(path, ["--unset-all", "remote.origin.uploadpack"], timeout)

    @classmethod
    def _create(cls, path: Path, url: str, timeout: float) -> None:
        staging = path.with_name(path.name + f".new-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        proc = run_git(["init", "-q", "--bare", str(staging)], timeout=timeout, what="git init")
        if proc.returncode != 0:
            raise AcquisitionError(f"git init {staging} failed: {_stderr_line(proc.stderr)}")
        for key, value in (("core.repositoryformatversion", "1"),
                           ("extensions.partialClone", "origin"),
                           ("remote.origin.promisor", "true"),
                           ("remote.origin.partialclonefilter", "blob:none")):
            cls._config(staging, [key, value], timeout)
        cls._set_url(staging, url, timeout)
        shutil.rmtree(path, ignore_errors=True)   # a half-made clone of an interrupted run
        os.replace(staging, path)

    def _fetch(self, *args: str, stdin: str | None = None) -> None:
        cmd = ["--git-dir", str(self.path), "-c", "fetch.negotiationAlgorithm=noop", "fetch",
               "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
               "--filter=blob:none", *args]
        proc = run_git(cmd, timeout=self.timeout, input=stdin.encode() if stdin else None,
                       what=f"git fetch from {self.url}")
        if proc.returncode != 0:
            err = _stderr_line(proc.stderr)
            low = err.lower()
            if "not our ref" in low or "couldn't find remote ref" in low:
                raise CommitUnknown(f"{self.url} does not have {args[-1] if args else 'it'}"
                                    f" ({err})")
            raise AcquisitionError(f"git fetch from {self.url} failed: {err}")
        self._reader.close()   # new packs: the next read starts afresh

    def ensure_commit(self, sha: str, *, refresh: bool = False) -> None:
        """Fetch the commit (trees, no blobs) unless it is here; `refresh` asks the
        remote even then (it must still have it)."""
        if self.has_commit(sha) and not refresh:
            return
        self._fetch("--depth=1", "origin", sha)
        if not self.has_commit(sha):
            raise CommitUnknown(f"{self.url} did not provide commit {sha}")

    def prefetch(self, blobs: list[str]) -> None:
        """Fetch these blobs in one round trip (reads never fetch lazily)."""
        wanted = [b for b in blobs if not self.has_object(b)]
        if wanted:
            self._fetch("origin", "--stdin", stdin="\n".join(wanted) + "\n")
