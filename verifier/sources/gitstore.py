"""Git access through gitpython: local repositories (mirrors, object stores) and
blobless partial clones of remote upstreams kept in the cache.

Nothing here writes a work tree: trees come from `ls-tree`, bytes from the
object database (`cat-file --batch` behind gitpython's odb)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from pathlib import Path

import git
from git.exc import GitCommandError, InvalidGitRepositoryError, NoSuchPathError

from verifier.errors import AcquisitionError

_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "GCM_INTERACTIVE": "never",
        "GIT_HTTP_LOW_SPEED_LIMIT": "1000", "GIT_HTTP_LOW_SPEED_TIME": "20"}
LOCAL_UPLOAD_PACK = ("git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true "
                      "upload-pack")


def is_local(url: str) -> bool:
    return url.startswith("file://") or not re.match(r"^[a-z][a-z0-9+.-]*://|^[^/]+@[^/]+:", url)


def local_path(url: str) -> Path:
    return Path(url[len("file://"):] if url.startswith("file://") else url).expanduser()


def first_line(exc: Exception) -> str:
    text = getattr(exc, "stderr", None) or str(exc)
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith(("fatal:", "error:")) or "stderr:" in ln:
            return ln.replace("stderr:", "").strip().strip("'")
    return lines[-1] if lines else type(exc).__name__


class GitRepo:
    """A local git repository read through gitpython (bare or not, config or not)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.repo = git.Repo(str(path), search_parent_directories=False)
        except (InvalidGitRepositoryError, NoSuchPathError) as exc:
            raise AcquisitionError(f"{path} is not a git repository ({type(exc).__name__})") from None
        # Mirrors may lack a config file (gitpython then guesses a work tree) or belong to
        # another user; we only read objects, so name the git dir and trust it for reading.
        git_dir = Path(self.repo.git_dir)
        self.repo.git.update_environment(**_ENV, GIT_DIR=str(git_dir), GIT_CONFIG_COUNT="1",
                                         GIT_CONFIG_KEY_0="safe.directory",
                                         GIT_CONFIG_VALUE_0=str(git_dir))

    def head(self) -> str | None:
        """The commit HEAD names, or None (no HEAD, or an unborn branch)."""
        try:
            return self.repo.git.rev_parse("--verify", "-q", "HEAD^{commit}").strip() or None
        except GitCommandError:
            return None

    def has_commit(self, sha: str) -> bool:
        try:
            return self.repo.git.cat_file("-t", sha) == "commit"
        except GitCommandError:
            return False

    def tree(self, sha: str) -> dict[str, str]:
        """path -> blob SHA of every file at commit `sha` (submodules and links excluded)."""
        out = self.repo.git.ls_tree("-r", "-z", "--full-tree", sha)
        files: dict[str, str] = {}
        for entry in out.split("\0"):
            if not entry:
                continue
            meta, _, path = entry.partition("\t")
            mode, kind, oid = meta.split()
            if kind == "blob" and mode != "120000":
                files[path] = oid
        return files

    def read_blob(self, sha: str) -> bytes | None:
        """Blob bytes from this object store, or None when it does not hold the blob."""
        try:
            stream = self.repo.odb.stream(bytes.fromhex(sha))
        except (ValueError, OSError, GitCommandError, KeyError, Exception):  # gitdb raises BadObject
            return None
        if stream.type != b"blob" and stream.type != "blob":
            return None
        return stream.read()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.repo.close()


class PartialClone(GitRepo):
    """A bare, blobless partial clone in the cache, fetching one commit at a time."""

    def __init__(self, path: Path, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        if not (path / "HEAD").exists():
            path.mkdir(parents=True, exist_ok=True)
            repo = git.Repo.init(str(path), bare=True)
            with repo.config_writer() as cw:
                cw.set_value("core", "repositoryformatversion", "1")
                cw.set_value("extensions", "partialClone", "origin")
                cw.set_value('remote "origin"', "url", url)
                cw.set_value('remote "origin"', "promisor", "true")
                cw.set_value('remote "origin"', "partialclonefilter", "blob:none")
                if is_local(url):
                    cw.set_value('remote "origin"', "uploadpack", LOCAL_UPLOAD_PACK)
            repo.close()
        super().__init__(path)
        with self.repo.config_reader() as cr:
            current = cr.get_value('remote "origin"', "url", default="")
        if current != url:
            with self.repo.config_writer() as cw:
                cw.set_value('remote "origin"', "url", url)
                if is_local(url):
                    cw.set_value('remote "origin"', "uploadpack", LOCAL_UPLOAD_PACK)

    def _fetch(self, *args: str, stdin: str | None = None) -> None:
        cmd = ["git", "-C", str(self.path), "-c", "fetch.negotiationAlgorithm=noop", "fetch",
               "--no-tags", "--no-write-fetch-head", "--filter=blob:none", *args]
        env = {**os.environ, **_ENV}
        try:
            proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                                  timeout=self.timeout, env=env)
        except subprocess.TimeoutExpired:
            raise AcquisitionError(f"git fetch from {self.url} timed out after "
                                   f"{self.timeout:g}s") from None
        if proc.returncode != 0:
            err = next((ln for ln in proc.stderr.splitlines()
                        if ln.startswith(("fatal:", "error:"))), proc.stderr.strip()[-200:])
            raise AcquisitionError(f"git fetch from {self.url} failed: {err}")

    def ensure_commit(self, sha: str) -> None:
        if self.has_commit(sha):
            return
        self._fetch("--depth=1", "origin", sha)
        if not self.has_commit(sha):
            raise AcquisitionError(f"{self.url} did not provide commit {sha}")

    def prefetch(self, blobs: list[str]) -> None:
        """Fetch these blobs in one round trip (the lazy fetch would go one by one)."""
        if blobs:
            self._fetch("origin", "--stdin", stdin="\n".join(blobs) + "\n")
