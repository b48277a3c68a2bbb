"""The pinned wheel (or sdist) of an upstream: downloaded as a file from the
package index into the cache (never built, never installed), checked against the
index's sha256, and mapped to repository paths.

Cache layout, under `wheels/<name>-<version>/`:

    <archive>          the distribution file exactly as the index serves it
    download.json      which file, from where, and its sha256 (the index's, when published)
    manifest.json      repo path -> blob of every mapped member, derived from that archive
    metadata.json      the archive's Requires-Dist (read when an upgrade follows it)

An archive is read only after its sha256 matches `download.json`; a mismatch
(tampered, truncated) deletes it and downloads it again, once per run. The
manifest is trusted only when it was derived from an archive with that sha256;
a member whose cached blob is missing or corrupt is re-extracted from the
(re-verified) archive in the same run.

Archives with absolute, `..` or drive-letter members are refused whole.
Members are streamed (hash and copy, never read whole into memory), each at most
`MAX_MEMBER_BYTES`; a larger one is skipped (its path is reported as such), and
an archive with more than `MAX_MEMBERS` members or more than `MAX_MAPPED_BYTES`
of mapped content is refused."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from verifier.cache import Store
from verifier.errors import AcquisitionError
from verifier.pins import Wheel

MANIFEST_VERSION = 2
DOWNLOAD_RECORD = "download.json"
METADATA_RECORD = "metadata.json"   # Requires-Dist of the archive, by its sha256
MAX_ARCHIVE_BYTES = 2 << 30
MAX_MEMBER_BYTES = 64 << 20
MAX_MEMBERS = 100_000
MAX_MAPPED_BYTES = 1 << 30


def _read_errors() -> tuple[type[BaseException], ...]:
    """What reading a damaged archive raises (tarfile and zipfile are imported only when an
    archive is read: ~4 ms of every command's start-up otherwise)."""
    import tarfile
    import zipfile

    return (zipfile.BadZipFile, zipfile.LargeZipFile, tarfile.TarError, EOFError,
            zlib.error, ValueError, OSError, NotImplementedError)


def safe_member(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or "\\" in name:
        return False
    p = PurePosixPath(name)
    return not p.is_absolute() and ".." not in p.parts and not (p.parts and ":" in p.parts[0])


def _size(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.1f} MiB"


def _chunks(fh, size: int = 1 << 20) -> Iterator[bytes]:
    while chunk := fh.read(size):
        yield chunk


class WheelSource:
    """repo path -> blob for one pinned wheel or sdist."""

    def __init__(self, store: Store, wheel: Wheel, *, offline: bool = False,
                 timeout: float = 600, index_url: str | None = None,
                 notify: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.wheel = wheel
        self.offline = offline
        self.index_url = index_url
        self.timeout = timeout
        self.notify = notify or (lambda msg: None)
        self.dir = store.path("wheels", wheel.requirement.replace("==", "-"))
        self._files: dict[str, str] | None = None
        self._members: dict[str, str] = {}
        self._skipped: dict[str, str] = {}
        self._listing: dict[str, int] | None = None
        self._verified: Path | None = None     # archive whose sha256 was checked in this run
        self._redownloaded = False
        self.archive_name: str | None = None
        self.archive_sha256: str | None = None     # of the archive the manifest indexes
        self.error: str | None = None
        self.events: list[str] = []            # what was repaired in this run (for notices)

    @property
    def label(self) -> str:
        return f"{'sdist' if self.wheel.sdist else 'wheel'}:{self.wheel.requirement}"

    # ------------------------------------------------------------------ public
    def files(self) -> dict[str, str]:
        """Mapped repo paths -> blob SHA. Downloads on first use; {} with self.error on failure."""
        if self._files is not None:
            return self._files
        self._files = {}
        if self._load_manifest():
            return self._files
        try:
            with self.store.lock("wheel-" + self.dir.name):
                if self._load_manifest():     # another process indexed it meanwhile
                    return self._files
                self._index(self._archive())
        except AcquisitionError as exc:
            self.error = exc.message
            self._files = {}
        return self._files

    def skipped(self) -> dict[str, str]:
        """Mapped repo paths whose member was not stored, with the reason."""
        self.files()
        return dict(self._skipped)

    def covers(self, path: str) -> bool:
        """Would the release ship `path` if it existed: some `map` rule stands for it, and
        the member it names would map back to it (the first matching rule wins)."""
        for rule in self.wheel.map:
            member = rule.to_wheel(path)
            if member is not None and self.wheel.to_repo(member) == path:
                return True
        return False

    def members(self) -> dict[str, str]:
        """Mapped repo paths -> the archive member each one comes from."""
        self.files()
        return dict(self._members)

    def listing(self) -> dict[str, int]:
        """Every regular member of the archive (name -> size), whatever the `map`; {} when
        the archive is unavailable (`self.error` says why). Reads the archive (after its
        sha256 check), never the manifest, so it works for any map."""
        if self._listing is None:
            self._listing = {}
            try:
                with self.store.lock("wheel-" + self.dir.name):
                    archive = self._archive()
                    self._listing = {name: size for name, size, _ in self._members_of(archive)}
            except AcquisitionError as exc:
                self.error = exc.message
            except _read_errors() as exc:
                self.error = f"{self.dir.name}: cannot list its members: {exc}"
        return dict(self._listing)

    def member_blobs(self, wanted: set[str]) -> dict[str, str]:
        """Git blob SHA of each wanted archive member (one pass; members over the member
        limit and absent ones are left out)."""
        import hashlib

        out: dict[str, str] = {}
        if not wanted:
            return out
        try:
            with self.store.lock("wheel-" + self.dir.name):
                for name, size, opener in self._members_of(self._archive()):
                    if name not in wanted or size > MAX_MEMBER_BYTES:
                        continue
                    fh = opener()
                    if fh is None:
                        continue
                    h = hashlib.sha1(b"blob %d\0" % size)
                    with fh:  # type: ignore[attr-defined]
                        for chunk in _chunks(fh):
                            h.update(chunk)
                    out[name] = h.hexdigest()
        except AcquisitionError as exc:
            self.error = exc.message
        except _read_errors() as exc:
            self.error = f"{self.dir.name}: cannot read its members: {exc}"
        return out

    def requires_dist(self) -> list[str]:
        """The archive's `Requires-Dist` entries, as written in its core metadata
        (`*.dist-info/METADATA` of a wheel, `PKG-INFO` of an sdist); [] when the
        archive is unavailable (`self.error` says why). Kept next to the manifest
        (`metadata.json`), by the archive's sha256."""
        rec = self._record()
        cached = self.store.read_json(self.dir / METADATA_RECORD)
        if rec and isinstance(cached, dict) and cached.get("sha256") == rec["sha256"] \
                and (self.dir / rec["file"]).is_file():
            self.archive_sha256 = self.archive_sha256 or rec["sha256"]
        if (isinstance(cached, dict) and cached.get("sha256") == self.archive_sha256
                and isinstance(cached.get("requires_dist"), list)
                and all(isinstance(x, str) for x in cached["requires_dist"])):
            return list(cached["requires_dist"])
        try:
            with self.store.lock("wheel-" + self.dir.name):
                archive = self._archive()
                text = self._metadata_text(archive)
                self.archive_sha256 = (self._record() or {}).get("sha256")
        except AcquisitionError as exc:
            self.error = exc.message
            return []
        except _read_errors() as exc:
            self.error = f"{self.dir.name}: cannot read its metadata: {exc}"
            return []
        from email.parser import HeaderParser

        reqs = [str(v).strip() for v in
                HeaderParser().parsestr(text).get_all("Requires-Dist") or []]
        self.store.write_json(self.dir / METADATA_RECORD,
                              {"sha256": self.archive_sha256, "requires_dist": reqs})
        return reqs

    def _metadata_text(self, archive: Path) -> str:
        """The core metadata of the archive (bounded: 4 MiB)."""
        limit = 4 << 20
        if archive.name.endswith((".whl", ".zip")):
            import zipfile

            with zipfile.ZipFile(archive) as zf:
                names = [n for n in zf.namelist()
                         if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
                if not names:
                    names = [n for n in zf.namelist() if n.count("/") == 1
                             and n.endswith("/PKG-INFO")]
                if not names:
                    return ""
                with zf.open(sorted(names)[0]) as fh:
                    return fh.read(limit).decode("utf-8", "replace")
        import tarfile

        with tarfile.open(archive, "r:*") as tf:
            for m in tf:
                if m.isfile() and m.name.count("/") == 1 and m.name.endswith("/PKG-INFO"):
                    fh = tf.extractfile(m)
                    return "" if fh is None else fh.read(limit).decode("utf-8", "replace")
        return ""

    def read(self, path: str) -> bytes | None:
        """Bytes of a mapped member; a missing or corrupt cached blob is re-extracted."""
        blob = self.files().get(path)
        if not blob:
            return None
        data = self.store.get_blob(blob)
        if data is None:
            data = self._reextract(path, blob)
        return data

    # ------------------------------------------------------------------ manifest
    def _record(self) -> dict | None:
        rec = self.store.read_json(self.dir / DOWNLOAD_RECORD)
        ok = (isinstance(rec, dict) and rec.get("requirement") == self.wheel.requirement
              and isinstance(rec.get("file"), str) and isinstance(rec.get("sha256"), str)
              and safe_member(rec["file"]) and "/" not in rec["file"])
        return rec if ok else None

    def _limits(self) -> dict:
        return {"member": MAX_MEMBER_BYTES, "members": MAX_MEMBERS, "mapped": MAX_MAPPED_BYTES}

    def _load_manifest(self) -> bool:
        rec = self._record()
        m = self.store.read_json(self.dir / "manifest.json")
        if not (rec and isinstance(m, dict) and m.get("version") == MANIFEST_VERSION
                and m.get("requirement") == self.wheel.requirement
                and m.get("archive") == rec["file"] and m.get("sha256") == rec["sha256"]
                and m.get("map") == [r.model_dump() for r in self.wheel.map]
                and m.get("limits") == self._limits()
                and isinstance(m.get("files"), dict)):
            return False
        self._files = dict(m["files"])
        self._members = dict(m.get("members") or {})
        self._skipped = dict(m.get("skipped") or {})
        self.archive_name, self.archive_sha256 = rec["file"], rec["sha256"]
        return True

    # ------------------------------------------------------------------ archive
    def _archive(self) -> Path:
        """The cached archive after its sha256 check; downloaded (again) when needed.
        Call with the wheel lock held."""
        if self._verified is not None and self._verified.is_file():
            return self._verified
        rec = self._record()
        if rec:
            path = self.dir / rec["file"]
            if path.is_file():
                from verifier.sources.index import sha256_file   # the index client loads
                # `packaging`: imported only when an archive is checked or downloaded

                got = sha256_file(path)
                if got == rec["sha256"]:
                    self._verified = path
                    return path
                msg = (f"{self.wheel.requirement}: cached {rec['file']} failed its sha256 check "
                       f"(expected {rec['sha256'][:12]}…, found {got[:12]}…)")
                self._discard()
                if self._redownloaded or self.offline:
                    raise AcquisitionError(msg + ("; --offline forbids downloading it again"
                                                  if self.offline else ""))
                self.events.append(msg + "; downloaded again")
                self.notify(msg + "; downloading it again")
        if self.offline:
            raise AcquisitionError(f"{self.wheel.requirement} is not in the cache and "
                                   "--offline forbids downloading it")
        if self._redownloaded:
            raise AcquisitionError(f"{self.wheel.requirement}: the download of this run "
                                   "vanished from the cache")
        self._redownloaded = True
        return self._download()

    def _discard(self) -> None:
        with contextlib.suppress(OSError):
            (self.dir / "manifest.json").unlink()
        rec = self._record()
        if rec:
            with contextlib.suppress(OSError):
                (self.dir / rec["file"]).unlink()
        with contextlib.suppress(OSError):
            (self.dir / DOWNLOAD_RECORD).unlink()
        self._verified = None

    def _download(self) -> Path:
        tmp_root = self.store.path("tmp")
        tmp_root.mkdir(parents=True, exist_ok=True)
        # We hold the wheel lock: any staging directory of this wheel is an interrupted run's.
        for stale in tmp_root.glob(f"dl-{self.dir.name}-*"):
            shutil.rmtree(stale, ignore_errors=True)
        from verifier.sources.index import PackageIndex, default_index_url

        index = PackageIndex(default_index_url(self.index_url), deadline=self.timeout)
        dist = index.find(self.wheel.name, self.wheel.version, sdist=self.wheel.sdist)
        if not safe_member(dist.filename) or "/" in dist.filename:
            raise AcquisitionError(f"the index names an unsafe file {dist.filename!r}")
        staging = Path(tempfile.mkdtemp(prefix=f"dl-{self.dir.name}-", dir=tmp_root))
        try:
            part = staging / dist.filename
            sha = index.download(dist, part, max_bytes=MAX_ARCHIVE_BYTES)
            self.dir.mkdir(parents=True, exist_ok=True)
            for old in self.dir.iterdir():
                if old.is_file() and old.name != DOWNLOAD_RECORD:
                    old.unlink()
            dest = self.dir / dist.filename
            part.replace(dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        self.store.write_json(self.dir / DOWNLOAD_RECORD, {
            "requirement": self.wheel.requirement, "file": dist.filename, "url": dist.url,
            "index": index.url, "sha256": sha,
            "sha256_from": "index" if dist.sha256 else "download"})
        self._verified = dest
        return dest

    def _members_of(self, archive: Path) -> Iterator[tuple[str, int, Callable[[], object]]]:
        """(member name, size, opener) of every regular file, after the safety checks."""
        import tarfile
        import zipfile

        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as zf:
                infos = [i for i in zf.infolist() if not i.is_dir()]
                self._check_names([i.filename for i in infos], archive)
                for info in infos:
                    yield info.filename, info.file_size, (lambda i=info: zf.open(i))
            return
        names: list[str] = []
        with tarfile.open(archive, "r:*") as tf:   # pass 1: names only
            for m in tf:
                if m.isfile():
                    names.append(m.name)
                    if len(names) > MAX_MEMBERS:
                        break
        self._check_names(names, archive)
        with tarfile.open(archive, "r:*") as tf:   # pass 2: stream in order
            for m in tf:
                if m.isfile():
                    # sdists wrap everything in '<name>-<version>/'
                    inner = m.name.split("/", 1)[1] if "/" in m.name else m.name
                    yield inner, m.size, (lambda m=m: tf.extractfile(m))

    def _index(self, archive: Path) -> None:
        files: dict[str, str] = {}
        members: dict[str, str] = {}
        skipped: dict[str, str] = {}
        mapped = 0
        try:
            for name, size, opener in self._members_of(archive):
                repo_path = self.wheel.to_repo(name)
                if repo_path is None:
                    continue
                if size > MAX_MEMBER_BYTES:
                    skipped[repo_path] = (f"member {name} of {archive.name} is {_size(size)}, "
                                          f"over the {_size(MAX_MEMBER_BYTES)} limit; not served")
                    continue
                mapped += size
                if mapped > MAX_MAPPED_BYTES:
                    raise AcquisitionError(f"{archive.name} maps more than "
                                           f"{_size(MAX_MAPPED_BYTES)} of files; refusing it")
                fh = opener()
                if fh is None:
                    continue
                with fh:  # type: ignore[attr-defined]
                    files[repo_path] = self.store.put_blob_stream(_chunks(fh), size)
                members[repo_path] = name
        except AcquisitionError:
            raise
        except _read_errors() as exc:
            raise AcquisitionError(f"{archive.name} is not a readable archive: {exc}") from None
        self._files, self._members, self._skipped = files, members, skipped
        self.archive_name = archive.name
        self.archive_sha256 = (self._record() or {}).get("sha256")
        self.store.write_json(self.dir / "manifest.json", {
            "version": MANIFEST_VERSION, "requirement": self.wheel.requirement,
            "archive": archive.name, "sha256": self.archive_sha256,
            "map": [m.model_dump() for m in self.wheel.map], "limits": self._limits(),
            "files": files, "members": members, "skipped": skipped})

    @staticmethod
    def _check_names(names: list[str], archive: Path) -> None:
        if len(names) > MAX_MEMBERS:
            raise AcquisitionError(f"{archive.name} has more than {MAX_MEMBERS} members; "
                                   "refusing the archive")
        bad = [n for n in names if not safe_member(n)]
        if bad:
            raise AcquisitionError(f"{archive.name} has unsafe member path {bad[0]!r} "
                                   f"({len(bad)} in all); refusing the archive")

    def _reextract(self, path: str, blob: str) -> bytes | None:
        """The blob of `path` again, from the verified archive (same run)."""
        member = self._members.get(path)
        if member is None:
            return None
        try:
            with self.store.lock("wheel-" + self.dir.name):
                archive = self._archive()
                for name, size, opener in self._members_of(archive):
                    if name != member:
                        continue
                    fh = opener()
                    if fh is None:
                        return None
                    with fh:  # type: ignore[attr-defined]
                        got = self.store.put_blob_stream(_chunks(fh), size)
                    if got != blob:   # a different archive than the manifest's: re-index
                        self._index(archive)
                        return None
                    self.events.append(f"{self.wheel.requirement}: re-extracted {path}")
                    return self.store.get_blob(blob)
        except AcquisitionError as exc:
            self.error = exc.message
        except _read_errors() as exc:
            self.error = f"{self.dir.name}: cannot re-extract {path}: {exc}"
        return None
