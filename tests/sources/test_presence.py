"""Known absent vs unknown (issues 16 and 17): the source layer says whether a path is at
the pin, known absent (git tree, complete lock), not in the pinned release although a
wheel map covers it, or unknown — with suggestions from the known paths."""

from __future__ import annotations

import json

import pytest

from tests.helpers_upstream import (UpstreamSpec, make_git_repo, make_index, make_wheel,
                                    write_pins)
from verifier.cli.main import main
from verifier.pins import dump_lock, import_manifest, load_lock, load_pins
from verifier.project import load_project
from verifier.sources.models import Presence, Status

FILES = {"include/mujoco/mjmodel.h": "struct mjModel_ { int nq; };\n",
         "python/mujoco/rollout.py": "def rollout(): pass\n",
         "python/mujoco/rollout.cc": "// pybind\n",
         "src/engine/engine_forward.c": "void mj_forward(void) {}\n"}
MAP = [("mujoco/include/mujoco/", "include/mujoco/"), ("mujoco/", "python/mujoco/")]


@pytest.fixture
def up(tmp_path):
    return make_git_repo(tmp_path / "x" / "demo", FILES)


def _lock(tmp_path, pins, up, paths, complete=False):
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps({"upstream": "x/demo", "commit": up.head,
                                    "complete": complete, "files": [
                                        {"path": p, "git_blob": up.blob(p)} for p in paths]}))
    lock, _, _ = import_manifest(load_lock(tmp_path / "pins.lock"), load_pins(pins), manifest)
    (tmp_path / "pins.lock").write_text(dump_lock(lock))


def _wheel_project(tmp_path, monkeypatch, up, glob=True):
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {
        "mujoco/include/mujoco/mjmodel.h": FILES["include/mujoco/mjmodel.h"],
        "mujoco/rollout.py": FILES["python/mujoco/rollout.py"]})
    monkeypatch.setenv("VERIFIER_INDEX_URL", make_index(tmp_path / "index", [whl]))
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    pins = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", up.head,
                                                      wheel="demo==1.0.0", wheel_map=MAP)})
    if glob:   # like pins.toml's mujoco: only *.py under python/mujoco/ comes from the wheel
        pins.write_text(pins.read_text().replace('repo = "python/mujoco/" }',
                                                 'repo = "python/mujoco/", glob = "*.py" }'))
    return pins


def test_git_tree_knows_absent_paths_and_suggests(tmp_path, monkeypatch, up):
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    project = load_project(write_pins(tmp_path, {"demo": UpstreamSpec(up.url, up.head)}))
    layer = project.sources
    assert layer.presence("demo", "src/engine/engine_forward.c").state is Presence.PRESENT
    typo = layer.presence("demo", "src/engine/engine_foward.c")
    assert typo.state is Presence.ABSENT and typo.state.known_absent
    assert typo.suggestions == ["src/engine/engine_forward.c"]
    assert "did you mean src/engine/engine_forward.c?" in typo.message()
    sf = layer.resolve("demo", "src/engine/engine_foward.c")
    assert sf.status is Status.UNAVAILABLE and sf.presence is Presence.ABSENT
    assert sf.detail.startswith("no such path") and "engine_forward.c" in sf.detail


def test_wheel_covered_path_missing_from_the_release(tmp_path, monkeypatch, up):
    """Issue 16: a mistyped path under a wheel-served prefix is known absent from the
    release (the claim side makes it `error`); a path the map does not cover (rollout.cc
    under python/mujoco/ with glob *.py) stays unknown."""
    pins = _wheel_project(tmp_path, monkeypatch, up)
    _lock(tmp_path, pins, up, ["include/mujoco/mjmodel.h"])
    layer = load_project(pins).sources
    assert layer.presence("demo", "include/mujoco/mjmodel.h").state is Presence.PRESENT
    assert layer.presence("demo", "python/mujoco/rollout.py").state is Presence.RELEASE
    typo = layer.presence("demo", "include/mujoco/mjmodle.h")
    assert typo.state is Presence.NOT_IN_RELEASE
    assert typo.suggestions == ["include/mujoco/mjmodel.h"]
    assert "probably absent at the pin" in typo.message()
    cc = layer.presence("demo", "python/mujoco/rollout.cc")
    assert cc.state is Presence.UNKNOWN and not cc.state.known_absent
    sf = layer.resolve("demo", "include/mujoco/mjmodle.h")
    assert (sf.status, sf.presence) == (Status.UNAVAILABLE, Presence.NOT_IN_RELEASE)
    assert layer.resolve("demo", "python/mujoco/rollout.cc").presence is None


def test_complete_lock_knows_absent_paths(tmp_path, monkeypatch, up):
    pins = _wheel_project(tmp_path, monkeypatch, up)
    _lock(tmp_path, pins, up, sorted(FILES), complete=True)
    layer = load_project(pins).sources
    assert layer.presence("demo", "src/engine/engine_forward.c").state is Presence.PRESENT
    gone = layer.presence("demo", "src/engine/engine_sensor.c")
    assert gone.state is Presence.ABSENT and "whole tree" in gone.basis
    # the same lock without "complete": unknown (a manifest lists what the course cites)
    _lock(tmp_path, pins, up, sorted(FILES))
    (tmp_path / "pins.lock").write_text((tmp_path / "pins.lock").read_text()
                                        .replace("complete = true\n", ""))
    layer = load_project(pins).sources
    assert layer.presence("demo", "src/engine/engine_sensor.c").state is Presence.UNKNOWN


def test_lock_full_marks_the_lock_complete(tmp_path, monkeypatch, up):
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={up.path}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    pins = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", up.head)})
    assert main(["lock", "--pins", str(pins), "--full", "-q"]) == 0
    lock = load_lock(tmp_path / "pins.lock")
    assert lock.upstream["demo"].complete and len(lock.upstream["demo"].files) == len(FILES)
    monkeypatch.setenv("VERIFIER_PROVIDERS", "objects")   # no git tree: the lock decides
    monkeypatch.delenv("VERIFIER_MIRRORS")
    layer = load_project(pins).sources
    assert layer.presence("demo", "src/nope.c").state is Presence.ABSENT


def test_sources_json_keeps_its_keys_and_adds_presence(tmp_path, monkeypatch, up, capsys):
    pins = _wheel_project(tmp_path, monkeypatch, up)
    course = tmp_path / "course"
    (course / "docs").mkdir(parents=True)
    (course / "docs" / "l.md").write_text(
        f"# L\n\n[x](https://github.com/x/demo/blob/{up.head}/include/mujoco/mjmodle.h#L1)\n")
    pins.write_text(pins.read_text() + f'\n[course.c]\npath = "{course}"\nupstreams = ["demo"]\n')
    assert main(["sources", "--pins", str(pins), "--format", "json", "-q"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert {"upstream", "path", "blob", "provider", "status"} <= set(row)
    assert row["presence"] == "not-in-release"
    assert row["suggestions"] == ["include/mujoco/mjmodel.h"]
