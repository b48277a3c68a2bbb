"""Shared fixtures, and the test run's isolation.

Isolation by construction: `pytest_configure` (before any test is collected and any
fixture of any scope is set up) points the whole run at one session directory:
HOME, the XDG cache/config/state/data dirs, VERIFIER_CACHE (one session cache: wheels
are downloaded from PyPI once per session), VERIFIER_CONFIG (a missing file) and
VERIFIER_STATE_DIR; the user's mirrors, providers and pins variables are removed. So no
fixture, whatever its scope, can reach the user's cache or config
(`tests/test_isolation.py` checks it, and runs a selection with a fresh HOME that must
stay empty). What the machine's tools need from the real HOME is handed over read-only:
pyenv's root (PYENV_ROOT) and the user's pip configuration (PIP_CONFIG_FILE).

- `mirrors` gives local upstream git snapshots, or skips: set
  VERIFIER_TEST_MIRRORS ('mujoco=/path;drake=/path;newton=/path'), or keep
  snapshots under VERIFIER_TEST_MIRROR_ROOT (default /work/.mirror) as
  <owner>+<name>/repo.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PINS = REPO / "pins.toml"
COURSE = (REPO / ".." / "shared" / "course").resolve()
SLUGS = {"mujoco": "google-deepmind+mujoco", "drake": "RobotLocomotion+drake",
         "newton": "newton-physics+newton"}

# the user's variables that would point a test at their sources, cache or settings
REMOVED = ("VERIFIER_MIRRORS", "VERIFIER_OBJECTS", "VERIFIER_PROVIDERS", "VERIFIER_OFFLINE",
           "VERIFIER_CACHE_KEY", "VERIFIER_MEMO_AUDIT", "VERIFIER_PINS", "VERIFIER_COURSES",
           "VERIFIER_INDEX_URL", "VERIFIER_STRICT", "XDG_RUNTIME_DIR", "PIP_CACHE_DIR",
           "UV_CACHE_DIR")
ISOLATION: dict[str, str] = {}      # variable -> value, for the whole run
ROOT: list[Path] = []               # the session directory


def _handed_over(env: dict[str, str]) -> dict[str, str]:
    """Read-only settings of the real HOME the machine's tools need."""
    home = Path(os.path.expanduser("~"))
    out = {}
    if "PYENV_ROOT" not in env and (home / ".pyenv").is_dir():
        out["PYENV_ROOT"] = str(home / ".pyenv")
    if "PIP_CONFIG_FILE" not in env:
        xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        for cand in (xdg / "pip" / "pip.conf", home / ".pip" / "pip.conf"):
            if cand.is_file():
                out["PIP_CONFIG_FILE"] = str(cand)
                break
    return out


def _session_env(root: Path) -> dict[str, str]:
    return {"HOME": str(root / "home"),
            "XDG_CACHE_HOME": str(root / "home" / ".cache"),
            "XDG_CONFIG_HOME": str(root / "home" / ".config"),
            "XDG_STATE_HOME": str(root / "home" / ".local" / "state"),
            "XDG_DATA_HOME": str(root / "home" / ".local" / "share"),
            "VERIFIER_CACHE": str(root / "verifier-cache"),
            "VERIFIER_CONFIG": str(root / "no-config.toml"),
            "VERIFIER_STATE_DIR": str(root / "state"),
            "VERIFIER_TEST_SESSION": str(root)}


def isolate() -> dict[str, str]:
    """Point this process (and every process it starts) at a fresh session directory."""
    root = Path(tempfile.mkdtemp(prefix="verifier-tests-")).resolve()
    ROOT.append(root)
    env = {**_handed_over(dict(os.environ)), **_session_env(root)}
    (root / "home").mkdir()
    for var in REMOVED:
        os.environ.pop(var, None)
    os.environ.update(env)
    ISOLATION.clear()
    ISOLATION.update(env)
    return ISOLATION


if os.environ.get("VERIFIER_TEST_SESSION"):
    # this file imported again as `tests.conftest` (pytest loaded it as `conftest`)
    # after pytest_configure isolated the run: the same isolation
    ISOLATION.update({k: os.environ[k] for k in ("PYENV_ROOT", "PIP_CONFIG_FILE")
                      if k in os.environ},
                     **_session_env(Path(os.environ["VERIFIER_TEST_SESSION"])))


USER_DIRS: dict[str, bool] = {}     # the user's verifier dirs -> existed when the run began


def _user_dirs() -> list[Path]:
    """The cache, config and state directories the verifier would use for this user
    (computed from the environment the run was started with)."""
    from verifier.cache import default_cache_dir, state_dir
    from verifier.config import config_path

    return [default_cache_dir(), config_path().parent, state_dir()]


def pytest_configure(config) -> None:
    for d in _user_dirs():
        USER_DIRS[str(d)] = d.exists()
    isolate()


def pytest_sessionfinish(session, exitstatus) -> None:
    """A run started with a HOME that has no verifier cache, config or state (a fresh
    machine, CI) must end without them: a test that wrote there fails the run. (Where
    they exist already, other processes of the user may write them meanwhile.)"""
    made = [d for d, existed in USER_DIRS.items() if not existed and Path(d).exists()]
    if made:
        session.config.pluginmanager.get_plugin("terminalreporter").write_line(
            f"ISOLATION BROKEN: the test run created {', '.join(made)} outside its "
            "session directory", red=True)
        session.exitstatus = 1


def pytest_unconfigure(config) -> None:
    for root in ROOT:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def session_cache() -> Path:
    return Path(ISOLATION["VERIFIER_CACHE"])


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch):
    """Each test starts from the run's isolation, whatever the test before it changed
    in os.environ outside monkeypatch."""
    for var, value in ISOLATION.items():
        monkeypatch.setenv(var, value)
    for var in REMOVED:
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
