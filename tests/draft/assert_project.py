"""A fixture project for the assertion proposers and the suspect stage: the
hand-written `asim` upstream (tests/fixtures/assert/upstream: C headers and sources, a
Python package with Warp-shaped annotations, a C++ system and its pybind11-shaped
binding), pinned under a GitHub-shaped URL and served from its local repository as a
mirror, and one lesson (written by the test) in course `demo-atlas`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.helpers_upstream import FixtureRepo, UpstreamSpec, make_git_repo, write_pins
from verifier.project import Project, load_project

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "assert" / "upstream"
URL = "https://github.com/asim-org/asim"


def upstream_files() -> dict[str, str]:
    return {p.relative_to(FIX).as_posix(): p.read_text() for p in sorted(FIX.rglob("*"))
            if p.is_file()}


@dataclass
class AssertProject:
    root: Path
    repo: FixtureRepo
    lesson: Path
    env: dict[str, str]

    def enter(self, monkeypatch) -> "AssertProject":
        """Set this project's environment for the current test (the suite's autouse
        fixture resets it per test)."""
        for k, v in self.env.items():
            monkeypatch.setenv(k, v)
        return self

    def project(self) -> Project:
        return load_project(self.root / "pins.toml", notify=lambda m: None)

    @property
    def pins(self) -> str:
        return str(self.root / "pins.toml")

    def draft(self):
        from verifier.draft import draft_lessons

        p = self.project()
        (d,), _ = draft_lessons(p, p.lessons())
        return d

    def rewrite(self, text: str) -> None:
        self.lesson.write_text(text.replace("PINSHA", self.repo.head), encoding="utf-8")


def make_project(tmp: Path, env, lesson_text: str, extra: dict[str, str] | None = None
                 ) -> AssertProject:
    """`env`: something with `setenv` (pytest's monkeypatch); `extra`: more upstream
    files (path -> text) for one test."""
    repo = make_git_repo(tmp / "asim-up", {**upstream_files(), **(extra or {})})
    variables = {"VERIFIER_CACHE": str(tmp / "cache"), "VERIFIER_MIRRORS": f"asim={repo.path}",
                 "VERIFIER_PROVIDERS": "mirror", "VERIFIER_OFFLINE": "1"}
    for k, v in variables.items():
        env.setenv(k, v)
    docs = tmp / "course" / "demo-atlas" / "docs"
    docs.mkdir(parents=True)
    lesson = docs / "lesson.md"
    lesson.write_text(lesson_text.replace("PINSHA", repo.head), encoding="utf-8")
    root = tmp / "proj"
    root.mkdir()
    write_pins(root, {"asim": UpstreamSpec(URL, repo.head)},
               {"demo-atlas": (str(tmp / "course" / "demo-atlas"), ["asim"])})
    return AssertProject(root, repo, lesson, variables)
