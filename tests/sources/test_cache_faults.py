"""Cache faults are healed in the same run and reported truthfully
(reliability trials 4.1, 4.3, 4.11, 4.15, 4.17)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.helpers_upstream import (UpstreamSpec, make_git_repo, make_index, make_wheel,
                                    write_pins)
from verifier.cli.main import main
from verifier.pins import dump_lock, import_manifest, load_lock, load_pins
from verifier.project import load_project
from verifier.sources import layer as layer_mod
from verifier.sources.models import Status

API = "def clear(depth: float = 0.0):\n    return depth\n"
HDR = "struct mjModel_ { int nq; };\n"
SRC = "int mj_step(void) { return 0; }\n"
LESSON = ("# L\n\n[api](https://github.com/x/demo/blob/{sha}/demo/api.py#L1), "
          "[hdr](https://github.com/x/demo/blob/{sha}/include/mjmodel.h#L1), "
          "[src](https://github.com/x/demo/blob/{sha}/src/engine.c#L1).\n")
PATHS = ["demo/api.py", "include/mjmodel.h", "src/engine.c"]


@pytest.fixture
def filled(tmp_path, monkeypatch):
    """Like the real setup: identity from pins.lock, headers and Python from the wheel,
    the C source from an object store (a snapshot mirror lacking the pin)."""
    up = make_git_repo(tmp_path / "demo", {"demo/api.py": API, "include/mjmodel.h": HDR,
                                           "src/engine.c": SRC})
    snapshot = make_git_repo(tmp_path / "snap", {"src/engine.c": SRC, "other.txt": "x\n"})
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {"demo/api.py": API,
                                                          "demo/include/mjmodel.h": HDR})
    monkeypatch.setenv("VERIFIER_INDEX_URL", make_index(tmp_path / "index", [whl]))
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={snapshot.path}")
    course = tmp_path / "course"
    (course / "docs").mkdir(parents=True)
    (course / "docs" / "l.md").write_text(LESSON.format(sha=up.head))
    pins = write_pins(tmp_path, {"demo": UpstreamSpec(
        "https://github.com/x/demo", up.head, wheel="demo==1.0.0",
        wheel_map=[("demo/include/", "include/"), ("demo/", "demo/")])},
        {"course": (str(course), ["demo"])})
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps({"upstream": "x/demo", "commit": up.head, "files": [
        {"path": p, "git_blob": up.blob(p)} for p in PATHS]}))
    lock, _, _ = import_manifest(load_lock(tmp_path / "pins.lock"), load_pins(pins), manifest)
    (tmp_path / "pins.lock").write_text(dump_lock(lock))
    project = load_project(pins)
    first = project.sources.resolve_many([("demo", p) for p in PATHS])
    assert [f.status for f in first] == [Status.PINNED] * 3
    return pins, {f.path: f.blob for f in first}


def _fresh(pins, **kw):
    project = load_project(pins, **kw)
    return project, project.sources.resolve_many([("demo", p) for p in PATHS])


@pytest.mark.parametrize("damage", ["flip", "truncate", "directory"])
def test_corrupt_blob_is_acquired_again_in_the_same_run(filled, damage):
    """4.1 (a flipped byte), 4.3 (truncated to 100 bytes), 4.11 (a directory where the
    blob should be): wheel-served and object-store blobs alike are served again now."""
    pins, blobs = filled
    project = load_project(pins)
    for path in PATHS:
        p = project.store.blob_path(blobs[path])
        data = p.read_bytes()
        if damage == "flip":
            p.write_bytes(bytes([data[0] ^ 1]) + data[1:])
        elif damage == "truncate":
            p.write_bytes(data[:10])
        else:
            p.unlink()
            (p / "sub").mkdir(parents=True)
    project, files = _fresh(pins)
    assert [f.status for f in files] == [Status.PINNED] * 3
    assert [project.sources.read(f) for f in files] == [API.encode(), HDR.encode(),
                                                        SRC.encode()]
    notes = {n.code: n for n in project.sources.notices()}
    assert notes["cache-repaired"].paths == sorted(blobs.values())
    assert "cache-corrupt" not in notes
    assert all(project.store.blob_path(b).is_file() for b in blobs.values())
    # nothing about the wheel is reported unreadable
    assert not any("readable" in f.detail for f in files)


def test_sync_says_repaired_only_for_what_it_repaired(filled, monkeypatch, capsys):
    """4.17: one corrupt blob that can be acquired again, one that cannot (its only
    provider is gone): "repaired 1", and a warning for the other."""
    pins, blobs = filled
    project = load_project(pins)
    for path in ("demo/api.py", "src/engine.c"):
        p = project.store.blob_path(blobs[path])
        p.write_bytes(b"garbage")
    monkeypatch.setenv("VERIFIER_MIRRORS", "demo=/nonexistent/snapshot")
    capsys.readouterr()
    assert main(["sync", "--pins", str(pins)]) == 0
    err = capsys.readouterr().err
    assert "repaired 1 corrupt cache entry" in err
    assert "removed 1 corrupt cache entry that could not be acquired again" in err
    assert main(["sync", "--pins", str(pins), "-q", "--strict"]) == 1


def test_cache_clean_during_a_run_keeps_what_was_resolved(filled):
    """4.15: the running process still serves the bytes it verified."""
    pins, blobs = filled
    project, files = _fresh(pins)
    project.store.clean("all")
    texts = [project.sources.text("demo", p)[1] for p in PATHS]
    assert texts == [API, HDR, SRC]
    assert not [n for n in project.sources.notices() if n.severity == "warning"]


def test_cache_clean_beyond_what_is_held_is_acquired_again_or_reported(filled, monkeypatch):
    pins, blobs = filled
    monkeypatch.setattr(layer_mod, "HOLD_BYTES", 0)
    project, files = _fresh(pins)
    project.store.clean("blobs")
    shutil.rmtree(project.store.root / "wheels")
    # the object store (outside the cache) serves engine.c again; the wheel is downloaded
    # again from the index
    sf, text = project.sources.text("demo", "src/engine.c")
    assert (sf.status, text) == (Status.PINNED, SRC)
    # offline, the wheel cannot come back: the file is reported unavailable, never
    # `pinned` without bytes, and the run says what vanished
    project, files = _fresh(pins, offline=True)
    project.store.clean("all")
    sf, text = project.sources.text("demo", "demo/api.py")
    assert text is None and sf.status is Status.UNAVAILABLE and "vanished" in sf.detail
    notes = {n.code: n for n in project.sources.notices()}
    assert notes["cache-vanished"].paths == ["demo:demo/api.py"]
