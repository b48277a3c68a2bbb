"""A self-contained demo upstream (a local git repo holding the pinned commit,
served as a mirror) and a demo course, built from tests/fixtures/lint at test time."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "lint"


@dataclass
class Demo:
    root: Path          # where pins.toml lives
    sha: str
    course: Path        # the course directory (…/demo-course)

    def project(self):
        from verifier.project import load_project

        return load_project(self.root / "pins.toml")

    def lesson(self, name: str) -> Path:
        return self.course / "docs" / name

    def write(self, name: str, text: str) -> Path:
        p = self.lesson(name)
        p.write_text(text.replace("PINNED_SHA", self.sha), encoding="utf-8")
        return p


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture
def demo(tmp_path, monkeypatch) -> Demo:
    repo = tmp_path / "upstream"
    shutil.copytree(FIX / "demo-upstream", repo)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "pin")
    sha = _git(repo, "rev-parse", "HEAD")
    root = tmp_path / "proj"
    course = root / "course" / "demo-course"
    shutil.copytree(FIX / "demo-course", course)
    for f in (course / "docs").glob("*.md"):
        f.write_text(f.read_text(encoding="utf-8").replace("PINNED_SHA", sha), encoding="utf-8")
    (root / "pins.toml").write_text(f"""schema = 1
[upstream.demo]
repo = "https://github.com/example/demo"
commit = "{sha}"
version = "2.3.1"
languages = ["c", "python"]

[course.demo-course]
path = "course/demo-course"
upstreams = ["demo"]
""", encoding="utf-8")
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={repo}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")
    return Demo(root=root, sha=sha, course=course)


def lint(project, paths=None):
    from verifier.lint import run_lint

    return run_lint(project, project.lessons([str(p) for p in paths] if paths else None))


def errors(findings, rule=None):
    return [f for f in findings if f.severity == "error" and (rule is None or f.rule == rule)]
