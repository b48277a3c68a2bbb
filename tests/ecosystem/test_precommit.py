"""The pre-commit hook (.pre-commit-hooks.yaml) as a course repository uses it:
`pre-commit try-repo` on this repository (its working tree) from a fixture course
repository made here, lessons changed and not. pre-commit installs the hook's package
from PyPI into an environment of its own, so this is slow: marker `fresh`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers_upstream import git, make_git_repo

pytestmark = pytest.mark.fresh

HEADER = "#pragma once\nint demo_step(int m, int d);\n"


def _lesson(commit: str) -> str:
    return ("# Stepping\n\nCall `demo_step` to advance one step, see [the header]"
            f"(https://github.com/o/demo/blob/{commit}/include/demo.h#L2).\n")


@pytest.fixture
def course(tmp_path):
    up = make_git_repo(tmp_path / "demo-up", {"include/demo.h": HEADER})
    root = tmp_path / "course"
    (root / "docs").mkdir(parents=True)
    (root / "pins.toml").write_text(
        f'schema = 1\n\n[upstream.demo]\nrepo = "https://github.com/o/demo"\n'
        f'commit = "{up.head}"\nversion = "1.0.0"\n\n'
        '[course.demo-atlas]\npath = "."\nupstreams = ["demo"]\n', encoding="utf-8")
    (root / "docs" / "intro.md").write_text(_lesson(up.head), encoding="utf-8")
    (root / "README.md").write_text("# A course\n\nNot a lesson.\n", encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "course")
    return root, up


def _try_repo(root: Path, up, tmp_path: Path, *files: str):
    exe = shutil.which("pre-commit") or str(Path(sys.executable).parent / "pre-commit")
    if not Path(exe).exists():
        pytest.skip("pre-commit is not installed (a test extra: pip install pre-commit)")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "VERIFIER_MIRRORS": f"demo={up.path}", "VERIFIER_PROVIDERS": "mirror",
           "VERIFIER_CACHE": str(tmp_path / "cache")}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([exe, "try-repo", str(REPO), "verifier-lint", "--files", *files],
                          cwd=root, env=env, capture_output=True, text=True, timeout=1500)


def test_precommit_lints_the_changed_lessons(course, tmp_path):
    root, up = course
    ok = _try_repo(root, up, tmp_path, "docs/intro.md", "README.md")
    if ok.returncode != 0 and "Could not find a version" in ok.stdout + ok.stderr:
        pytest.skip("pre-commit could not install the hook's dependencies from the package "
                    "index: " + (ok.stdout + ok.stderr)[-300:])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "verifier lint (changed lessons)" in ok.stdout and "Passed" in ok.stdout
    # a permalink at a commit that is not the pin: the hook fails and names the line
    (root / "docs" / "intro.md").write_text(_lesson("f" * 40), encoding="utf-8")
    bad = _try_repo(root, up, tmp_path, "docs/intro.md", "README.md")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "docs/intro.md:3: error VL101" in bad.stdout
    # only files that are no lesson: nothing to lint, the hook passes
    none = _try_repo(root, up, tmp_path, "README.md")
    assert none.returncode == 0, none.stdout + none.stderr
