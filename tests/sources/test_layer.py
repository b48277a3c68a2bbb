"""Source layer on fixture upstreams: git (file:// remote), mirror, wheel, object store."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.helpers_upstream import (UpstreamSpec, make_git_repo, make_wheel, place_wheel_in_cache,
                                    write_pins)
from verifier.cache import Store
from verifier.gitblob import blob_sha
from verifier.pins import import_manifest, load_lock
from verifier.project import load_project
from verifier.sources.models import Status

C_FILE = "int mj_thing(int x) { return x + 1; }\n"
PY_FILE = "def clear(depth: float = 0.0):\n    return depth\n"


@pytest.fixture
def upstream(tmp_path):
    return make_git_repo(tmp_path / "demo", {"src/thing.c": C_FILE, "demo/api.py": PY_FILE,
                                             "docs/readme.txt": "hello\n"})


def _project(tmp_path, monkeypatch, spec, providers="git,mirror,wheel,objects", **env):
    cache = tmp_path / "cache"
    monkeypatch.setenv("VERIFIER_CACHE", str(cache))
    monkeypatch.setenv("VERIFIER_PROVIDERS", providers)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    pins = write_pins(tmp_path, {"demo": spec})
    return load_project(pins)


def test_blob_sha_matches_git(tmp_path, upstream):
    data = (upstream.path / "src/thing.c").read_bytes()
    assert blob_sha(data) == upstream.blob("src/thing.c")


def test_git_partial_clone_serves_pinned(tmp_path, monkeypatch, upstream):
    project = _project(tmp_path, monkeypatch, UpstreamSpec(upstream.url, upstream.head),
                       providers="git")
    sf = project.sources.resolve("demo", "src/thing.c")
    assert sf.status is Status.PINNED
    assert sf.blob == upstream.blob("src/thing.c")
    assert sf.identity == "git-tree"
    assert sf.provider == f"git:{upstream.url}"
    assert project.sources.read(sf) == C_FILE.encode()
    # a blobless clone: only the commit's trees plus the blobs we asked for
    clone = next((tmp_path / "cache" / "git").glob("*.git"))
    assert (clone / "objects").exists()
    missing = project.sources.resolve("demo", "src/nope.c")
    assert missing.status is Status.UNAVAILABLE and "no such path" in missing.detail


def test_pins_an_older_commit_not_head(tmp_path, monkeypatch, upstream):
    old = upstream.head
    upstream.commit({"src/thing.c": "int mj_thing(int x) { return x + 2; }\n"}, "edit")
    project = _project(tmp_path, monkeypatch, UpstreamSpec(upstream.url, old), providers="git")
    sf = project.sources.resolve("demo", "src/thing.c")
    assert sf.status is Status.PINNED
    assert project.sources.read(sf) == C_FILE.encode()


def test_second_run_served_from_cache_without_network(tmp_path, monkeypatch, upstream):
    spec = UpstreamSpec(upstream.url, upstream.head)
    project = _project(tmp_path, monkeypatch, spec, providers="git")
    first = project.sources.resolve_many([("demo", "src/thing.c"), ("demo", "demo/api.py")])
    assert all(f.status is Status.PINNED for f in first)
    # the "remote" disappears: the next run must not need it
    subprocess.run(["rm", "-rf", str(upstream.path)], check=True)
    again = load_project(tmp_path / "pins.toml", offline=True)
    second = again.sources.resolve_many([("demo", "src/thing.c"), ("demo", "demo/api.py")])
    assert [f.status for f in second] == [Status.PINNED, Status.PINNED]
    assert all(f.cached for f in second)
    assert second[0].provider == f"git:{upstream.url}"


def test_unreachable_remote_falls_back_with_one_note(tmp_path, monkeypatch, upstream):
    notes = []
    spec = UpstreamSpec("file:///nonexistent/remote.git", upstream.head)
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={upstream.path}")
    pins = write_pins(tmp_path, {"demo": spec})
    project = load_project(pins, notify=notes.append)
    files = project.sources.resolve_many([("demo", "src/thing.c"), ("demo", "demo/api.py")])
    assert all(f.status is Status.PINNED for f in files)
    assert all(f.provider == f"mirror:{upstream.path}" for f in files)
    git_notes = [n for n in notes if "git fetch" in n]
    assert len(git_notes) == 1 and "falling back" in git_notes[0]


def test_mirror_lacking_commit_serves_only_identical_blobs(tmp_path, monkeypatch, upstream):
    """Like an older snapshot: no pinned commit, but some blobs unchanged."""
    snapshot = make_git_repo(tmp_path / "snapshot", {"src/thing.c": C_FILE,
                                                     "demo/api.py": "def clear(): pass\n"})
    pinned = upstream.head
    lock = tmp_path / "sources.json"
    lock.write_text(json.dumps({"upstream": "x/demo", "commit": pinned, "files": [
        {"path": "src/thing.c", "git_blob": upstream.blob("src/thing.c")},
        {"path": "demo/api.py", "git_blob": upstream.blob("demo/api.py")}]}))
    spec = UpstreamSpec("https://github.com/x/demo", pinned)
    project = _project(tmp_path, monkeypatch, spec, providers="mirror,objects",
                       VERIFIER_MIRRORS=f"demo={snapshot.path}")
    new_lock, _, added = import_manifest(project.lock, project.pins, lock)
    assert added == 2
    project.lock = new_lock
    project._layer = None
    same = project.sources.resolve("demo", "src/thing.c")
    changed = project.sources.resolve("demo", "demo/api.py")
    assert same.status is Status.PINNED and same.identity == "lock"
    assert same.provider == f"objects:{snapshot.path}"
    assert changed.status is Status.UNAVAILABLE
    assert project.sources.read(changed) is None
    assert "lacks commit" in changed.detail


def test_enumerating_known_paths_never_tries_the_network(tmp_path, monkeypatch, upstream):
    """A warm run whose needed files are cached: listing what exists (a symbol index over
    every known file) opens only local providers; a needed file that is missing is
    what may try the remote."""
    from verifier.sources.providers import Providers

    snapshot = make_git_repo(tmp_path / "snapshot", {"src/thing.c": C_FILE})
    lock = tmp_path / "sources.json"
    lock.write_text(json.dumps({"upstream": "x/demo", "commit": upstream.head, "files": [
        {"path": "src/thing.c", "git_blob": upstream.blob("src/thing.c")}]}))
    spec = UpstreamSpec("https://github.invalid/x/demo", upstream.head)
    project = _project(tmp_path, monkeypatch, spec, VERIFIER_MIRRORS=f"demo={snapshot.path}")
    project.lock = import_manifest(project.lock, project.pins, lock)[0]
    project._layer = None
    opened: list[str] = []
    monkeypatch.setattr(Providers, "_open_git", lambda self, st: opened.append(st.up.name))
    assert project.sources.resolve("demo", "src/thing.c").status is Status.PINNED
    opened.clear()
    project._layer = None                       # a second, warm run of the same project
    layer = project.sources
    paths = layer.known_paths("demo")
    files = layer.resolve_many([("demo", p) for p in paths + ["src/other.c"]], needed=False)
    assert "src/thing.c" in paths and files[0].status is Status.PINNED and opened == []
    assert layer.resolve("demo", "src/other.c").status is Status.UNAVAILABLE
    assert opened == ["demo"]                   # needed and missing: the remote is tried


def test_a_tree_no_provider_reached_is_not_sought_again_to_enumerate(tmp_path, monkeypatch,
                                                                     upstream):
    """The first run that lists an upstream's paths tries every provider for the pin's
    tree (a fresh machine online gets it); when none reaches it, later runs list what is
    known locally without trying the network again, until `--refresh` or the retry
    interval."""
    from verifier.sources.providers import Providers

    spec = UpstreamSpec("https://github.invalid/x/demo", upstream.head)
    project = _project(tmp_path, monkeypatch, spec)
    opened: list[str] = []
    monkeypatch.setattr(Providers, "_open_git", lambda self, st: opened.append(st.up.name))
    project.sources.known_paths("demo")
    assert opened == ["demo"]
    marker = project.store.path("trees", f"{upstream.head}.unreachable.json")
    assert marker.is_file()
    project._layer = None
    project.sources.known_paths("demo")
    assert opened == ["demo"]                   # sought lately: not again
    project._layer = None
    project.config.refresh = True
    project.sources.known_paths("demo")
    assert opened == ["demo", "demo"]


def test_wheel_release_pinned_and_mismatch(tmp_path, monkeypatch, upstream):
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {
        "demo/api.py": PY_FILE,                      # identical to the pin
        "demo/extra.py": "X = 1\n",                  # not in the lock -> release
        "demo/include/thing.c": "int changed;\n",    # differs from the pin -> mismatch
    })
    spec = UpstreamSpec("https://github.com/x/demo", upstream.head, wheel="demo==1.0.0",
                        wheel_map=[("demo/include/", "src/"), ("demo/", "demo/")])
    project = _project(tmp_path, monkeypatch, spec, providers="wheel")
    place_wheel_in_cache(project.store.root, "demo==1.0.0", whl)
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps({"upstream": "x/demo", "commit": upstream.head, "files": [
        {"path": "demo/api.py", "git_blob": upstream.blob("demo/api.py")},
        {"path": "src/thing.c", "git_blob": upstream.blob("src/thing.c")}]}))
    project.lock, _, _ = import_manifest(project.lock, project.pins, manifest)
    project._layer = None
    api = project.sources.resolve("demo", "demo/api.py")
    extra = project.sources.resolve("demo", "demo/extra.py")
    thing = project.sources.resolve("demo", "src/thing.c")
    assert (api.status, api.provider) == (Status.PINNED, "wheel:demo==1.0.0")
    assert extra.status is Status.RELEASE and project.sources.read(extra) == b"X = 1\n"
    assert thing.status is Status.MISMATCH
    assert thing.blob == blob_sha(b"int changed;\n") != thing.expected_blob
    assert project.sources.read(thing) is None  # never served from another version
    assert "src/thing.c" in project.sources.known_paths("demo")
    # its bytes leave the store (a `cache clean`): a new run serves the member by its
    # blob without reading it, and reading it extracts it from the wheel again
    project.store.blob_path(extra.blob).unlink()
    project._layer = None
    again = project.sources.resolve("demo", "demo/extra.py")
    assert again.status is Status.RELEASE and again.blob == extra.blob
    assert project.sources.read(again) == b"X = 1\n"


def test_hostile_wheel_is_refused(tmp_path, monkeypatch, upstream):
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {"demo/api.py": PY_FILE,
                                                          "../../etc/evil.py": "x"})
    spec = UpstreamSpec("https://github.com/x/demo", upstream.head, wheel="demo==1.0.0",
                        wheel_map=[("demo/", "demo/")])
    project = _project(tmp_path, monkeypatch, spec, providers="wheel")
    place_wheel_in_cache(project.store.root, "demo==1.0.0", whl)
    sf = project.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.UNAVAILABLE
    assert "unsafe member path '../../etc/evil.py'" in sf.detail
    assert not (tmp_path / "etc").exists()


def test_wheel_not_on_index(tmp_path, monkeypatch, upstream):
    index = tmp_path / "index"
    (index / "other").mkdir(parents=True)
    spec = UpstreamSpec("https://github.com/x/demo", upstream.head, wheel="demo==9.9.9",
                        wheel_map=[("demo/", "demo/")])
    project = _project(tmp_path, monkeypatch, spec, providers="wheel",
                       VERIFIER_INDEX_URL=f"file://{index}")
    sf = project.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.UNAVAILABLE
    assert "demo==9.9.9 is not on the package index" in sf.detail


def test_corrupt_cache_entry_is_detected_and_refetched(tmp_path, monkeypatch, upstream):
    spec = UpstreamSpec(upstream.url, upstream.head)
    project = _project(tmp_path, monkeypatch, spec, providers="git")
    sf = project.sources.resolve("demo", "src/thing.c")
    path = project.store.blob_path(sf.blob)
    path.write_bytes(b"garbage")
    again = load_project(tmp_path / "pins.toml")
    sf2 = again.sources.resolve("demo", "src/thing.c")
    assert sf2.status is Status.PINNED and not sf2.cached
    assert again.store.corrupt == [sf.blob]
    assert again.sources.read(sf2) == C_FILE.encode()


def test_store_atomic_and_clean(tmp_path):
    store = Store(tmp_path / "c")
    sha = store.put_blob(b"abc")
    assert store.get_blob(sha) == b"abc"
    assert not list((tmp_path / "c" / "tmp").iterdir())
    store.clean("blobs")
    assert store.get_blob(sha) is None


def test_lock_roundtrip_is_deterministic(tmp_path, monkeypatch, upstream):
    from verifier.pins import dump_lock

    spec = UpstreamSpec("https://github.com/x/demo", upstream.head)
    project = _project(tmp_path, monkeypatch, spec)
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps({"upstream": "x/demo", "commit": upstream.head, "files": [
        {"path": "b.c", "git_blob": "1" * 40}, {"path": "a.c", "git_blob": "2" * 40}]}))
    lock, name, added = import_manifest(project.lock, project.pins, manifest)
    text = dump_lock(lock)
    (tmp_path / "pins.lock").write_text(text)
    assert dump_lock(load_lock(tmp_path / "pins.lock")) == text
    assert text.index('"a.c"') < text.index('"b.c"')
