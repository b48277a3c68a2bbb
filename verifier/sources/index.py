"""The package index, read through its simple API (PEP 691 JSON, else PEP 503 HTML).

Only distribution files are fetched: nothing is installed or built, so an
sdist's build backend never runs (`pip download` of an sdist prepares its
metadata, which runs the backend). Every download streams to a staging file
under a size cap and a wall-clock deadline, and is checked against the sha256
the index publishes for it.

Index URL: the user configuration's `index_url` (or `$VERIFIER_INDEX_URL`),
else `$PIP_INDEX_URL`, else `index-url` in pip's configuration files, else
PyPI. A `file://` index may be a PEP 503 tree (`<name>/index.html`) or plain
directories of files (then no hash is published; the hash taken at download
is what later runs check against)."""

from __future__ import annotations

import configparser
import hashlib
import json
import os
import time
import urllib.error
import urllib.parse
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from packaging.tags import Tag, sys_tags
from packaging.utils import (InvalidSdistFilename, InvalidWheelFilename, canonicalize_name,
                             parse_sdist_filename, parse_wheel_filename)
from packaging.version import InvalidVersion, Version

from verifier.errors import AcquisitionError

PYPI = "https://pypi.org/simple"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
MAX_PAGE_BYTES = 64 << 20


@dataclass(frozen=True)
class DistFile:
    filename: str
    url: str
    sha256: str | None          # as published by the index (None: the index publishes none)
    kind: str                   # 'wheel' | 'sdist'
    tags: frozenset[Tag] = frozenset()
    yanked: bool = False
    size: int | None = None


def _pip_config_index() -> str | None:
    files = []
    if os.environ.get("PIP_CONFIG_FILE"):
        files.append(Path(os.environ["PIP_CONFIG_FILE"]))
    xdg = [Path(p) / "pip" / "pip.conf"
           for p in os.environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(":") if p]
    home = Path.home()
    files += [Path("/etc/pip.conf"), *xdg, home / ".pip" / "pip.conf",
              Path(os.environ.get("XDG_CONFIG_HOME", home / ".config")) / "pip" / "pip.conf"]
    found = None
    for f in files:   # later files override earlier ones, as in pip
        cp = configparser.ConfigParser(interpolation=None)
        try:
            cp.read(f, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        for section in ("global", "download"):
            if cp.has_option(section, "index-url"):
                found = cp.get(section, "index-url").split()[0]
    return found


def default_index_url(configured: str | None = None) -> str:
    return (configured or os.environ.get("PIP_INDEX_URL") or _pip_config_index() or PYPI
            ).rstrip("/")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, bool]] = []   # (href, text, yanked)
        self._cur: tuple[str, bool] | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            a = dict(attrs)
            if a.get("href"):
                self._cur = (a["href"], "data-yanked" in a)
                self._text = ""

    def handle_data(self, data):
        if self._cur is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "a" and self._cur is not None:
            self.links.append((self._cur[0], self._text.strip(), self._cur[1]))
            self._cur = None


def _dist(filename: str, url: str, sha256: str | None, yanked: bool,
          size: int | None = None) -> tuple[str, Version, DistFile] | None:
    try:
        if filename.endswith(".whl"):
            name, version, _build, tags = parse_wheel_filename(filename)
            return name, version, DistFile(filename, url, sha256, "wheel", tags, yanked, size)
        if filename.endswith((".tar.gz", ".zip", ".tgz")):
            name, version = parse_sdist_filename(filename)
            return name, version, DistFile(filename, url, sha256, "sdist", frozenset(), yanked,
                                           size)
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None
    return None


def _hash_of(url: str) -> tuple[str, str | None]:
    base, _, frag = url.partition("#")
    sha = None
    for part in frag.split("&"):
        k, _, v = part.partition("=")
        if k == "sha256" and v:
            sha = v.lower()
    return base, sha


class PackageIndex:
    def __init__(self, url: str, *, timeout: float = 60.0, deadline: float = 600.0) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout      # per socket operation
        self.deadline = deadline    # whole request, so a trickling server cannot hold a run

    # ------------------------------------------------------------------ listing
    def _open(self, url: str, accept: str | None = None):
        import urllib.request

        req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)  # noqa: S310 - index URL
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise AcquisitionError(f"package index {self.url} answered {exc.code} for {url}"
                                   ) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise AcquisitionError(f"package index {self.url} is unreachable: {reason}") from None

    def _read_all(self, resp, what: str, limit: int = MAX_PAGE_BYTES) -> bytes:
        start = time.monotonic()
        chunks, total = [], 0
        try:
            while True:
                if time.monotonic() - start > self.deadline:
                    raise AcquisitionError(f"{what} took longer than {self.deadline:g}s")
                chunk = resp.read(1 << 16)
                if not chunk:
                    break
                total += len(chunk)
                if total > limit:
                    raise AcquisitionError(f"{what} is larger than {limit >> 20} MiB")
                chunks.append(chunk)
        except (OSError, urllib.error.URLError) as exc:
            raise AcquisitionError(f"{what}: {exc}") from None
        finally:
            resp.close()
        return b"".join(chunks)

    def _local_files(self, name: str) -> list[tuple[str, str, str | None, bool]] | None:
        root = Path(urllib.parse.unquote(urllib.parse.urlparse(self.url).path))
        d = root / name
        if not d.is_dir():
            return None
        page = d / "index.html"
        if page.is_file():
            return self._parse_html(page.read_text("utf-8", "replace"), d.as_uri() + "/")
        return [(p.name, p.as_uri(), None, False) for p in sorted(d.iterdir()) if p.is_file()]

    @staticmethod
    def _parse_html(text: str, base: str) -> list[tuple[str, str, str | None, bool]]:
        parser = _Links()
        parser.feed(text)
        out = []
        for href, label, yanked in parser.links:
            full, sha = _hash_of(urllib.parse.urljoin(base, href))
            filename = urllib.parse.unquote(full.rsplit("/", 1)[-1]) or label
            out.append((filename, full, sha, yanked))
        return out

    def files(self, project: str) -> list[tuple[str, str, str | None, bool]] | None:
        """(filename, url, sha256, yanked) of every file of `project`; None if unknown."""
        name = canonicalize_name(project)
        if self.url.startswith("file://"):
            return self._local_files(name)
        page_url = f"{self.url}/{name}/"
        resp = self._open(page_url, f"{JSON_TYPE}, text/html;q=0.1")
        if resp is None:
            return None
        ctype = resp.headers.get("Content-Type", "")
        base = resp.geturl()
        body = self._read_all(resp, f"index page {page_url}")
        if JSON_TYPE in ctype or ctype.startswith("application/json"):
            try:
                data = json.loads(body)
                out = []
                for f in data.get("files", []):
                    full, frag_sha = _hash_of(urllib.parse.urljoin(base, f["url"]))
                    sha = (f.get("hashes") or {}).get("sha256") or frag_sha
                    out.append((f["filename"], full, sha.lower() if sha else None,
                                bool(f.get("yanked"))))
                return out
            except (ValueError, KeyError, TypeError, AttributeError):
                raise AcquisitionError(f"index page {page_url} is not valid PEP 691 JSON") from None
        return self._parse_html(body.decode("utf-8", "replace"), base)

    def find(self, project: str, version: str, *, sdist: bool) -> DistFile:
        """The pinned file: an sdist, or the wheel best matching this interpreter."""
        listed = self.files(project)
        req = f"{project}=={version}"
        if listed is None:
            raise AcquisitionError(f"{req} is not on the package index ({project} is unknown "
                                   f"to {self.url})")
        want_name, want_version = canonicalize_name(project), Version(version)
        cands = []
        for filename, url, sha, yanked in listed:
            got = _dist(filename, url, sha, yanked)
            if got and got[0] == want_name and got[1] == want_version:
                cands.append(got[2])
        kind = "sdist" if sdist else "wheel"
        cands = [c for c in cands if c.kind == kind]
        if not cands:
            raise AcquisitionError(f"{req} is not on the package index ({self.url} lists no "
                                   f"{kind} of that version)")
        if kind == "wheel":
            order = {t: i for i, t in enumerate(sys_tags())}
            far = len(order) + 1

            def rank(c: DistFile) -> tuple:
                best = min((order.get(t, far) for t in c.tags), default=far)
                pure = any(t.abi == "none" and t.platform == "any" for t in c.tags)
                return (c.yanked, best, not pure, c.filename)
            return min(cands, key=rank)
        return min(cands, key=lambda c: (c.yanked, not c.filename.endswith(".tar.gz"),
                                         c.filename))

    # ------------------------------------------------------------------ download
    def download(self, dist: DistFile, dest: Path, *, max_bytes: int) -> str:
        """Stream `dist` into `dest`; return its sha256 (checked against the index's)."""
        start = time.monotonic()
        h = hashlib.sha256()
        total = 0
        if dist.url.startswith("file://"):
            src = Path(urllib.parse.unquote(urllib.parse.urlparse(dist.url).path))
            try:
                resp = open(src, "rb")
            except OSError as exc:
                raise AcquisitionError(f"cannot read {dist.url}: {exc}") from None
        else:
            resp = self._open(dist.url)
            if resp is None:
                raise AcquisitionError(f"{dist.url} is not on the index (404)")
            length = resp.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > max_bytes:
                resp.close()
                raise AcquisitionError(f"{dist.filename} is {int(length) >> 20} MiB, over the "
                                       f"{max_bytes >> 20} MiB limit for archives")
        try:
            with resp, open(dest, "wb") as out:
                while True:
                    if time.monotonic() - start > self.deadline:
                        raise AcquisitionError(f"downloading {dist.filename} took longer than "
                                               f"{self.deadline:g}s; gave up")
                    chunk = resp.read(1 << 20)
                    if not chunk:
                        break
                    total += len(chunk)
                    if total > max_bytes:
                        raise AcquisitionError(f"{dist.filename} is over the "
                                               f"{max_bytes >> 20} MiB limit for archives")
                    h.update(chunk)
                    out.write(chunk)
        except (OSError, urllib.error.URLError) as exc:
            raise AcquisitionError(f"downloading {dist.filename} failed: {exc}") from None
        got = h.hexdigest()
        if dist.sha256 and got != dist.sha256:
            raise AcquisitionError(f"downloaded {dist.filename} has sha256 {got}, but the index "
                                   f"publishes {dist.sha256}; refusing it")
        return got


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
