"""The fresh-machine path: a clean clone of this repository, a fresh HOME (no cache, no
config, no pip cache), and the README's two commands. The network is stood in for by local
git repositories served over file:// (the course repository and its upstream); PyPI is
used as on any machine. The course is acquired at its pinned commit with no extra step.

Slow (it creates a virtual environment and installs the project from PyPI), so it is marked
`fresh`: CI runs it once as part of the suite (the inner `scripts/test` runs a tiny
selection that does not include this module); deselect it locally with `-m "not fresh"`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers_upstream import git, make_git_repo

pytestmark = pytest.mark.fresh

UPSTREAM = {"src/demo.c": "/* demo engine */\nint demo_step(int n) {\n  return n + 1;\n}\n",
            "README.md": "demo upstream\n"}


def intro(sha: str) -> str:
    return ("# 第一课：计数\n\n"
            "计数由 `demo_step` 完成，每调用一次加一，见 "
            f"[demo_step](https://github.com/example/demo/blob/{sha}/src/demo.c#L2-L4)。\n\n"
            "| 函数 | 作用 |\n|---|---|\n| `demo_step` | 计数加一 |\n\n"
            "下一课见 [第二课](next.md)，示例在 [run.py](../examples/run.py)。\n")


CLAIMS = """lesson = "docs/intro.md"
upstream = "demo"

[[claim]]
id = "step-exists"
fragment = "计数由 `demo_step` 完成"
kind = "symbol"
path = "src/demo.c"
symbol = "demo_step"
expected = true
"""


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The machine's environment without anything of this run or user: no VERIFIER_*,
    no XDG dirs, no virtualenv, HOME fresh."""
    drop = ("VERIFIER_", "XDG_", "PYTEST", "GITHUB_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME",
            "PIP_CACHE_DIR", "COV_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(HOME=str(home), **extra)
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 1200):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def world(tmp_path):
    """The stand-in network: an upstream and a course repository, each a local git repo
    whose URL ends in owner/name like a GitHub one; a pins file naming them."""
    up = make_git_repo(tmp_path / "net" / "example" / "demo", UPSTREAM)
    course = make_git_repo(tmp_path / "net" / "example" / "demo-atlas", {
        "README.md": "demo course\n", "docs/intro.md": intro(up.head),
        "docs/next.md": "# 第二课\n\n回到 [第一课](intro.md)。\n",
        "examples/run.py": "print('demo')\n"})
    course.commit({"docs/intro.md": "# 课程重写中\n"}, "after the pin")  # the pin is older
    proj = tmp_path / "proj"
    (proj / "claims" / "demo-atlas").mkdir(parents=True)
    (proj / "claims" / "demo-atlas" / "intro.toml").write_text(CLAIMS, encoding="utf-8")
    (proj / "pins.toml").write_text(
        f'schema = 1\n\n[upstream.demo]\nrepo = "{up.url}"\ncommit = "{up.head}"\n'
        'version = "1.0.0"\nlanguages = ["c"]\n\n'
        f'[course.demo-atlas]\nrepo = "{course.url}"\ncommit = "{course.commits[0]}"\n'
        'path = "../shared/course/demo-atlas"   # absent on a fresh machine\n'
        'partial = true\nupstreams = ["demo"]\n', encoding="utf-8")
    return proj / "pins.toml", course


def test_readme_commands_on_a_clean_clone(tmp_path, world):
    if not (REPO / ".git").exists():
        pytest.skip(f"{REPO} is not a git checkout (nothing to clone)")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pins, course = world
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-hardlinks", str(REPO), str(clone))
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home, VERIFIER_PINS=str(pins))

    # 1. the main job: sets itself up, acquires the course at its pin, writes the records
    main = run(["bash", "scripts/verify-course"], clone, env)
    assert main.returncode == 0, (main.stdout[-3000:], main.stderr[-3000:])
    assert (f"course demo-atlas: {course.url} at {course.commits[0][:7]} (full tree, fetched)"
            in main.stderr)
    last = main.stdout.strip().splitlines()[-1]
    assert last.startswith("judged 2 lessons: 1 claim (1 verified)")
    assert last.endswith("exit 0 (clean)")
    out = clone / "out"
    assert {p.name for p in out.iterdir()} >= {"verification.json", "verification.html",
                                               "verification.sarif", "verification.xml"}
    record = json.loads((out / "verification.json").read_text(encoding="utf-8"))
    assert record["summary"]["verdicts"]["verified"] == 1
    assert [(les["course"], les["path"]) for les in record["lessons"]] == [
        ("demo-atlas", "docs/intro.md"), ("demo-atlas", "docs/next.md")]
    # what it kept is in the fresh HOME's cache; the clone gains only .venv, out and the
    # editable install's metadata
    assert (home / ".cache" / "verifier" / "courses").is_dir()
    status = git(clone, "status", "--porcelain", "--ignored")
    # (bytecode caches too when the machine does not set PYTHONDONTWRITEBYTECODE)
    gained = {line.split()[-1].rstrip("/") for line in status.splitlines()}
    assert {g for g in gained if not g.endswith("__pycache__")} <= {".venv", "out",
                                                                    "verifier.egg-info"}

    # 2. the test suite (a tiny selection; the whole suite is what CI runs around this test)
    tests = run(["bash", "scripts/test", "-q", "-p", "no:cacheprovider",
                 "tests/test_textlines.py"], clone, clean_env(home))
    assert tests.returncode == 0, (tests.stdout[-3000:], tests.stderr[-3000:])
    assert " passed" in tests.stdout and "failed" not in tests.stdout


def test_without_network_or_checkout_one_error_names_every_course(tmp_path):
    """The repository's own pins.toml on a machine without the course copies and without
    network (offline): one error, every course, both ways to provide them. Run through the
    CLI of this checkout (the command that matters is the same on a clean clone)."""
    from tests.conftest import PINS

    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(PINS, proj / "pins.toml")
    shutil.copy(PINS.parent / "pins.lock", proj / "pins.lock")
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home)
    proc = run([sys.executable, "-m", "verifier", "--pins", str(proj / "pins.toml"),
                "--offline", "verify", "--out", str(tmp_path / "out")], tmp_path, env,
               timeout=300)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    err = proc.stderr
    assert "Traceback" not in err
    import tomllib

    courses = tomllib.loads(PINS.read_text(encoding="utf-8"))["course"]
    assert f"{len(courses)} course(s) not available" in err
    for name, c in courses.items():
        assert f"- {name}: {c['repo']} at {c['commit'][:7]}" in err
    assert "network access to its `repo`" in err and "VERIFIER_COURSES=" in err
    assert str(home / ".config" / "verifier" / "config.toml") in err
    assert not (tmp_path / "out").exists()
