"""The pinned wheel (or sdist) of an upstream, downloaded from the package index
into the cache with pip, and mapped to repository paths.

A wheel is read without extracting it: members are mapped through pins.toml's
`map` rules and stored in the blob cache. Archive members with absolute or
`..` paths make the whole archive refused."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from verifier.cache import Store
from verifier.errors import AcquisitionError
from verifier.pins import Wheel

MANIFEST_VERSION = 1


def safe_member(name: str) -> bool:
    if not name or name.startswith(("/", "\\")) or "\\" in name:
        return False
    p = PurePosixPath(name)
    return not p.is_absolute() and ".." not in p.parts and not (p.parts and ":" in p.parts[0])


class WheelSource:
    """repo path -> blob for one pinned wheel, cached as a manifest next to the archive."""

    def __init__(self, store: Store, wheel: Wheel, *, offline: bool = False,
                 timeout: float = 600, index_url: str | None = None) -> None:
        self.store = store
        self.wheel = wheel
        self.offline = offline
        self.index_url = index_url
        self.timeout = timeout
        self.dir = store.path("wheels", wheel.requirement.replace("==", "-"))
        self._files: dict[str, str] | None = None
        self.archive_name: str | None = None
        self.error: str | None = None

    @property
    def label(self) -> str:
        return f"{'sdist' if self.wheel.sdist else 'wheel'}:{self.wheel.requirement}"

    def files(self) -> dict[str, str]:
        """Mapped repo paths -> blob SHA. Downloads on first use; {} with self.error on failure."""
        if self._files is not None:
            return self._files
        manifest = self.store.read_json(self.dir / "manifest.json")
        if (isinstance(manifest, dict) and manifest.get("version") == MANIFEST_VERSION
                and manifest.get("map") == [m.model_dump() for m in self.wheel.map]
                and all(self.store.has_blob(b) for b in manifest.get("files", {}).values())):
            self._files = dict(manifest["files"])
            self.archive_name = manifest.get("archive")
            return self._files
        self._files = {}
        try:
            with self.store.lock("wheel-" + self.dir.name):
                archive = self._download()
            self._files = self._index(archive)
        except AcquisitionError as exc:
            self.error = exc.message
            return self._files
        self.store.write_json(self.dir / "manifest.json", {
            "version": MANIFEST_VERSION, "requirement": self.wheel.requirement,
            "archive": archive.name, "sha256": _sha256(archive),
            "map": [m.model_dump() for m in self.wheel.map], "files": self._files})
        self.archive_name = archive.name
        return self._files

    def _existing(self) -> Path | None:
        if not self.dir.exists():
            return None
        name = self.wheel.name.replace("-", "_").lower()
        for p in sorted(self.dir.iterdir()):
            stem = p.name.lower().replace("-", "_")
            if stem.startswith(f"{name}_{self.wheel.version}") and p.suffix in (".whl", ".gz", ".zip"):
                return p
        return None

    def _download(self) -> Path:
        found = self._existing()
        if found:
            return found
        if self.offline:
            raise AcquisitionError(f"{self.wheel.requirement} is not in the cache and "
                                   "--offline forbids downloading it")
        self.dir.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"dl-{self.dir.name}-", dir=self.store.path("tmp")))
        kind = ["--no-binary=:all:"] if self.wheel.sdist else ["--only-binary=:all:"]
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--no-input", "-q", *kind, "-d", str(staging), self.wheel.requirement]
        if self.index_url:
            cmd[4:4] = ["--index-url", self.index_url]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise AcquisitionError(f"downloading {self.wheel.requirement} timed out") from None
        if proc.returncode != 0:
            text = proc.stderr + proc.stdout
            if "No matching distribution" in text or "Could not find a version" in text:
                msg = f"{self.wheel.requirement} is not on the package index"
            else:
                tail = [ln for ln in text.splitlines() if ln.strip()][-1:] or ["pip failed"]
                msg = f"downloading {self.wheel.requirement} failed: {tail[0].strip()}"
            raise AcquisitionError(msg)
        got = sorted(staging.iterdir())
        if not got:
            raise AcquisitionError(f"pip downloaded nothing for {self.wheel.requirement}")
        dest = self.dir / got[0].name
        got[0].replace(dest)
        shutil.rmtree(staging, ignore_errors=True)
        return dest

    def _index(self, archive: Path) -> dict[str, str]:
        out: dict[str, str] = {}
        try:
            if archive.suffix in (".whl", ".zip"):
                with zipfile.ZipFile(archive) as zf:
                    infos = [i for i in zf.infolist() if not i.is_dir()]
                    self._check_names([i.filename for i in infos], archive)
                    for info in infos:
                        repo_path = self.wheel.to_repo(info.filename)
                        if repo_path is not None:
                            out[repo_path] = self.store.put_blob(zf.read(info))
            else:
                with tarfile.open(archive) as tf:
                    members = [m for m in tf.getmembers() if m.isfile()]
                    self._check_names([m.name for m in members], archive)
                    for m in members:
                        # sdists wrap everything in '<name>-<version>/'
                        inner = m.name.split("/", 1)[1] if "/" in m.name else m.name
                        repo_path = self.wheel.to_repo(inner)
                        if repo_path is not None:
                            fh = tf.extractfile(m)
                            if fh is not None:
                                out[repo_path] = self.store.put_blob(fh.read())
        except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as exc:
            raise AcquisitionError(f"{archive.name} is not a readable archive: {exc}") from None
        return out

    @staticmethod
    def _check_names(names: list[str], archive: Path) -> None:
        bad = [n for n in names if not safe_member(n)]
        if bad:
            raise AcquisitionError(f"{archive.name} has unsafe member path {bad[0]!r} "
                                   f"({len(bad)} in all); refusing the archive")

    def read(self, path: str) -> bytes | None:
        blob = self.files().get(path)
        return self.store.get_blob(blob) if blob else None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
