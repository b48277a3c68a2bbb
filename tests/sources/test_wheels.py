"""Wheels and sdists from a local PEP 503 index: hash-checked, never built, bounded
(reliability trials 4.11, 4.12, 4.13, 5.1, 7.5, 7.9)."""

from __future__ import annotations

import io
import json
import tarfile
import tracemalloc
import zipfile

import pytest

from tests.helpers_upstream import UpstreamSpec, make_index, make_wheel, write_pins
from verifier.gitblob import blob_sha
from verifier.project import load_project
from verifier.sources import wheel as wheel_mod
from verifier.sources.models import Status

API = "def clear(depth: float = 0.0):\n    return depth\n"
SHA = "a" * 40


def _project(tmp_path, monkeypatch, index_url, requirement="demo==1.0.0", sdist=False,
             maps=(("demo/", "demo/"),), **env):
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    monkeypatch.setenv("VERIFIER_INDEX_URL", index_url)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    pins = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", SHA,
                                                      wheel=requirement, wheel_map=list(maps))})
    if sdist:
        text = pins.read_text().replace(f'requirement = "{requirement}"',
                                        f'requirement = "{requirement}"\nsdist = true')
        pins.write_text(text)
    return load_project(pins)


@pytest.fixture
def indexed(tmp_path):
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {"demo/api.py": API,
                                                          "demo/extra.py": "X = 1\n"})
    return whl, make_index(tmp_path / "index", [whl])


def test_download_through_the_index_is_hash_checked(tmp_path, monkeypatch, indexed):
    whl, url = indexed
    project = _project(tmp_path, monkeypatch, url)
    sf = project.sources.resolve("demo", "demo/api.py")
    assert (sf.status, sf.provider) == (Status.RELEASE, "wheel:demo==1.0.0")
    assert project.sources.read(sf) == API.encode()
    rec = json.loads((project.store.root / "wheels" / "demo-1.0.0" / "download.json").read_text())
    assert rec["file"] == whl.name and rec["sha256_from"] == "index"


def test_index_publishing_another_hash_is_refused(tmp_path, monkeypatch, indexed):
    whl, url = indexed
    page = tmp_path / "index" / "demo" / "index.html"
    page.write_text(page.read_text().replace("#sha256=", "#sha256=0"))  # wrong, and too long
    project = _project(tmp_path, monkeypatch, url)
    sf = project.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.UNAVAILABLE and sf.blob is None
    assert "sha256" in sf.detail and "refusing it" in sf.detail


def test_tampered_cached_wheel_is_refetched_never_served(tmp_path, monkeypatch, indexed):
    """Trial 4.13: a valid zip with edited members replaces the cached wheel and the
    manifest is removed; its files must not be served as `release`."""
    whl, url = indexed
    project = _project(tmp_path, monkeypatch, url)
    assert project.sources.resolve("demo", "demo/api.py").status is Status.RELEASE
    wdir = project.store.root / "wheels" / "demo-1.0.0"
    cached = wdir / whl.name
    make_wheel(tmp_path / "evil", "demo", "1.0.0", {"demo/api.py": "TAMPERED = 1\n"})
    cached.write_bytes((tmp_path / "evil" / whl.name).read_bytes())
    (wdir / "manifest.json").unlink()

    again = load_project(tmp_path / "pins.toml")
    sf = again.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.RELEASE
    assert again.sources.read(sf) == API.encode()          # the index's bytes, downloaded again
    assert cached.read_bytes() == whl.read_bytes()
    codes = [n.code for n in again.sources.notices()]
    assert "wheel-repaired" in codes

    # offline, the tampered archive cannot be replaced: unavailable, never `release`
    cached.write_bytes((tmp_path / "evil" / whl.name).read_bytes())
    (wdir / "manifest.json").unlink()
    offline = load_project(tmp_path / "pins.toml", offline=True)
    sf = offline.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.UNAVAILABLE and offline.sources.read(sf) is None
    assert "failed its sha256 check" in sf.detail


def test_truncated_cached_wheel_is_downloaded_again(tmp_path, monkeypatch, indexed):
    """Trial 4.12: a truncated archive is re-downloaded, not kept forever."""
    whl, url = indexed
    project = _project(tmp_path, monkeypatch, url)
    assert project.sources.resolve("demo", "demo/api.py").status is Status.RELEASE
    wdir = project.store.root / "wheels" / "demo-1.0.0"
    (wdir / whl.name).write_bytes(whl.read_bytes()[:100])
    (wdir / "manifest.json").unlink()
    again = load_project(tmp_path / "pins.toml")
    sf = again.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.RELEASE and again.sources.read(sf) == API.encode()


def test_stale_download_staging_is_cleaned(tmp_path, monkeypatch, indexed):
    """Trials 5.1/5.2: an interrupted download's staging directory does not stay forever."""
    _, url = indexed
    project = _project(tmp_path, monkeypatch, url)
    stale = project.store.root / "tmp" / "dl-demo-1.0.0-interrupted"
    stale.mkdir(parents=True)
    (stale / "demo-1.0.0-py3-none-any.whl").write_bytes(b"partial")
    assert project.sources.resolve("demo", "demo/api.py").status is Status.RELEASE
    assert not stale.exists()
    assert not list((project.store.root / "tmp").glob("dl-*"))


def _sdist(tmp_path, marker):
    """An sdist whose in-tree build backend writes `marker` when imported."""
    backend = f"open({str(marker)!r}, 'w').write('ran')\n"
    files = {
        "demo-1.0.0/pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "evil"\n'
                                     'backend-path = ["."]\n',
        "demo-1.0.0/evil.py": backend,
        "demo-1.0.0/setup.py": backend,
        "demo-1.0.0/PKG-INFO": "Metadata-Version: 2.1\nName: demo\nVersion: 1.0.0\n",
        "demo-1.0.0/demo/api.py": API,
    }
    path = tmp_path / "dist" / "demo-1.0.0.tar.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def test_sdist_is_unpacked_never_built(tmp_path, monkeypatch):
    """Trial 7.9: acquiring sources never runs code from the sdist."""
    marker = tmp_path / "backend-ran.txt"
    sdist = _sdist(tmp_path, marker)
    url = make_index(tmp_path / "index", [sdist])
    project = _project(tmp_path, monkeypatch, url, sdist=True)
    sf = project.sources.resolve("demo", "demo/api.py")
    assert not marker.exists(), "the sdist's build backend ran during acquisition"
    assert (sf.status, sf.provider) == (Status.RELEASE, "sdist:demo==1.0.0")
    assert project.sources.read(sf) == API.encode()


def test_large_member_is_streamed_not_read_whole(tmp_path, monkeypatch):
    """Trial 7.5: mapped members are hashed and copied in chunks."""
    big = b"\0" * (48 << 20)
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {"demo/big.py": big})
    url = make_index(tmp_path / "index", [whl])
    project = _project(tmp_path, monkeypatch, url)
    tracemalloc.start()
    try:
        files = project.sources.wheel_paths("demo")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "demo/big.py" in files
    assert peak < 16 << 20, f"indexing held {peak >> 20} MiB"
    blob = project.sources._st("demo").wheels[0].files()["demo/big.py"]
    assert blob == blob_sha(big)


def test_member_over_the_size_limit_is_skipped(tmp_path, monkeypatch):
    """Trial 7.5: a member larger than the limit is never stored, and says so."""
    monkeypatch.setattr(wheel_mod, "MAX_MEMBER_BYTES", 1 << 20)
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {"demo/big.py": b"\0" * (3 << 20),
                                                          "demo/api.py": API})
    url = make_index(tmp_path / "index", [whl])
    project = _project(tmp_path, monkeypatch, url)
    big = project.sources.resolve("demo", "demo/big.py")
    assert big.status is Status.UNAVAILABLE and "over the 1.0 MiB limit" in big.detail
    assert project.sources.resolve("demo", "demo/api.py").status is Status.RELEASE
    assert not project.store.has_blob(blob_sha(b"\0" * (3 << 20)))


def test_too_many_members_refuses_the_archive(tmp_path, monkeypatch):
    monkeypatch.setattr(wheel_mod, "MAX_MEMBERS", 10)
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0",
                     {f"demo/m{i}.py": f"X = {i}\n" for i in range(20)})
    url = make_index(tmp_path / "index", [whl])
    project = _project(tmp_path, monkeypatch, url)
    sf = project.sources.resolve("demo", "demo/m1.py")
    assert sf.status is Status.UNAVAILABLE and "more than 10 members" in sf.detail


def test_zip_member_shorter_than_declared_is_unreadable(tmp_path, monkeypatch):
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {"demo/api.py": API})
    data = bytearray(whl.read_bytes())
    with zipfile.ZipFile(whl) as zf:
        info = zf.getinfo("demo/api.py")
    # corrupt the stored bytes of the member (CRC then fails)
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start] ^= 0xFF
    whl.write_bytes(bytes(data))
    url = make_index(tmp_path / "index", [whl])
    project = _project(tmp_path, monkeypatch, url)
    sf = project.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.UNAVAILABLE and "not a readable archive" in sf.detail
