"""Acceptance on the real course: pinned wheels (PyPI) and, when present, local snapshots."""

from __future__ import annotations

import json

import pytest

from tests.conftest import PINS
from verifier.cli.main import main


def _sources(capsys, *extra):
    assert main(["sources", "--pins", str(PINS), "--format", "json", "-q", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.wheels
def test_wheel_files_cited_by_the_course_are_pinned(course_dir, capsys, monkeypatch):
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")  # GitHub is unreachable
    rows = _sources(capsys)
    assert rows and all(
        {"upstream", "path", "blob", "provider", "status"} <= set(r) for r in rows)
    wheel_served = [r for r in rows if r["path"].startswith(("include/mujoco/", "python/mujoco/",
                                                            "newton/"))]
    assert len(wheel_served) >= 30
    # files the lessons cite are all in the lock: pinned. Files only claims locate may be
    # missing from the lock; then the pinned release serves them, marked `release`.
    from verifier.project import load_project

    cited = set(load_project(PINS).cited_files())
    bad = [(r["path"], r["status"]) for r in wheel_served if r["status"] != "pinned"
           and not (r["status"] == "release" and (r["upstream"], r["path"]) not in cited)]
    assert not bad
    # nothing is served from another version: unavailable rows carry no blob
    assert all(r["blob"] is None for r in rows if r["status"] == "unavailable")
    # second run: from the cache, offline
    again = _sources(capsys, "--offline")
    assert [(r["path"], r["status"]) for r in again] == [(r["path"], r["status"]) for r in rows]
    assert all(r["cached"] for r in again if r["status"] == "pinned")


@pytest.mark.mirror
def test_snapshots_serve_identical_blobs_only(course_dir, mirrors, capsys, monkeypatch):
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    rows = {(r["upstream"], r["path"]): r for r in _sources(capsys)}
    if "drake" in mirrors:
        sensors = [r for (u, p), r in rows.items() if u == "drake"
                   and p.startswith("systems/sensors/") and p.endswith((".h", ".cc"))]
        assert sensors and all(r["status"] == "pinned" for r in sensors)
    if "mujoco" in mirrors:
        assert rows[("mujoco", "src/engine/engine_sensor.c")]["status"] == "unavailable"
