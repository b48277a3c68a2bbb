"""The test run is isolated by construction (tests/conftest.py): every fixture, of any
scope, runs with HOME, the XDG dirs, the verifier's cache, config and state inside the
session directory; and a selection of the suite run with a fresh HOME leaves it empty
(newcomer-2 F6: a module-scoped fixture set up before a function-scoped isolation wrote
~280 MB into the user's ~/.cache/verifier and changed later verify results)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ISOLATION, REPO

SEEN: dict[str, dict[str, str | None]] = {}
VARS = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "VERIFIER_CACHE",
        "VERIFIER_CONFIG", "VERIFIER_STATE_DIR")


def _where() -> dict[str, str | None]:
    from verifier.cache import default_cache_dir, state_dir
    from verifier.config import config_path

    return {**{v: os.environ.get(v) for v in VARS},
            "cache": str(default_cache_dir()), "state": str(state_dir()),
            "config": str(config_path()), "home": str(Path.home())}


@pytest.fixture(scope="session")
def seen_by_session_fixture():
    SEEN["session"] = _where()


@pytest.fixture(scope="module")
def seen_by_module_fixture(seen_by_session_fixture):
    SEEN["module"] = _where()


def _inside(path: str | None, root: Path) -> bool:
    return path is not None and Path(path).resolve().is_relative_to(root)


def test_fixtures_of_every_scope_run_inside_the_isolation(seen_by_module_fixture):
    root = Path(ISOLATION["VERIFIER_TEST_SESSION"])
    SEEN["function"] = _where()
    for scope, where in SEEN.items():
        outside = {k: v for k, v in where.items() if not _inside(v, root)}
        assert not outside, f"a {scope}-scoped fixture sees {outside} outside {root}"


def _selection() -> list[str]:
    """Test modules with fixtures wider than a function (the way isolation was lost),
    found by reading the suite, plus the terminal tests (the CLI in subprocesses, with
    its default cache). The draft measurement over the real course is left out (a
    minute of drafting and the pinned wheels downloaded again): its module fixture is
    the case the test above checks, and a whole run with a fresh HOME is checked at the
    end of every session (tests/conftest.py, pytest_sessionfinish)."""
    mods = []
    for p in sorted((REPO / "tests").rglob("test_*.py")):
        text = p.read_text(encoding="utf-8")
        if p.name not in ("test_isolation.py", "test_real_lessons.py") and (
                'scope="module"' in text or 'scope="session"' in text):
            mods.append(str(p.relative_to(REPO)))
    return [*mods, "tests/claims/test_check.py",
            "tests/cli/test_terminal.py::test_main_job_stdout_to_a_file_stderr_on_the_terminal",
            "tests/cli/test_terminal.py::test_off_a_terminal_the_main_job_prints_one_line_per_stage"]


def test_a_fresh_home_is_left_empty(tmp_path):
    """Run the modules with module- or session-scoped fixtures (and what uses them) in a
    pytest of their own whose HOME is fresh and whose environment names no cache: that
    HOME must still be empty afterwards."""
    home = tmp_path / "home"
    home.mkdir()
    drop = ("VERIFIER_", "XDG_", "PYTEST_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["HOME"] = str(home)
    env["VERIFIER_TEST_MIRROR_ROOT"] = os.environ.get("VERIFIER_TEST_MIRROR_ROOT",
                                                      "/work/.mirror")
    sel = _selection()
    assert "tests/reporters/test_reporter_sarif.py" in sel
    got = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-x", *sel], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=1800)
    tail = "\n".join(got.stdout.splitlines()[-15:])
    assert got.returncode == 0, tail + got.stderr[-2000:]
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert left == [], f"tests wrote into HOME: {left[:20]}"
