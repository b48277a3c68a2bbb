"""Shared fixtures. No test touches the user's cache or config; nothing needs GitHub.

- every test runs with VERIFIER_CACHE pointing at one session cache (wheels are
  downloaded from PyPI once per session) and VERIFIER_CONFIG at a missing file;
- `mirrors` gives local upstream git snapshots, or skips: set
  VERIFIER_TEST_MIRRORS ('mujoco=/path;drake=/path;newton=/path'), or keep
  snapshots under VERIFIER_TEST_MIRROR_ROOT (default /work/.mirror) as
  <owner>+<name>/repo.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PINS = REPO / "pins.toml"
COURSE = (REPO / ".." / "shared" / "course").resolve()
SLUGS = {"mujoco": "google-deepmind+mujoco", "drake": "RobotLocomotion+drake",
         "newton": "newton-physics+newton"}


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("verifier-cache")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, session_cache, tmp_path_factory):
    monkeypatch.setenv("VERIFIER_CACHE", str(session_cache))
    monkeypatch.setenv("VERIFIER_CONFIG", str(tmp_path_factory.getbasetemp() / "no-config.toml"))
    monkeypatch.setenv("VERIFIER_STATE_DIR", str(tmp_path_factory.getbasetemp() / "state"))
    for var in ("VERIFIER_MIRRORS", "VERIFIER_OBJECTS", "VERIFIER_PROVIDERS", "VERIFIER_OFFLINE",
                "VERIFIER_CACHE_KEY", "VERIFIER_MEMO_AUDIT",
                "VERIFIER_PINS"):
        monkeypatch.delenv(var, raising=False)


def mirror_paths() -> dict[str, str]:
    env = os.environ.get("VERIFIER_TEST_MIRRORS")
    if env:
        return dict(item.split("=", 1) for item in env.split(";") if "=" in item)
    root = Path(os.environ.get("VERIFIER_TEST_MIRROR_ROOT", "/work/.mirror"))
    found = {}
    for name, slug in SLUGS.items():
        p = root / slug / "repo"
        if (p / "objects").is_dir():
            found[name] = str(p)
    return found


@pytest.fixture
def mirrors(monkeypatch) -> dict[str, str]:
    """Local upstream snapshots configured as mirrors, or skip with the reason."""
    found = mirror_paths()
    if not found:
        pytest.skip("no local upstream snapshot configured (set VERIFIER_TEST_MIRRORS or "
                    "VERIFIER_TEST_MIRROR_ROOT)")
    monkeypatch.setenv("VERIFIER_MIRRORS", ";".join(f"{k}={v}" for k, v in found.items()))
    return found


@pytest.fixture
def course_dir() -> Path:
    if not COURSE.is_dir():
        pytest.skip(f"course input not found at {COURSE}")
    return COURSE


@pytest.fixture
def real_project(course_dir):
    """The repository's own pins.toml + pins.lock, served from wheels (git is unreachable)."""
    from verifier.project import load_project

    os.environ["VERIFIER_PROVIDERS"] = "mirror,wheel,objects"
    try:
        project = load_project(PINS)
    finally:
        del os.environ["VERIFIER_PROVIDERS"]
    return project
