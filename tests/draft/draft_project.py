"""A fixture project for draft tests: the hand-written `simx` upstream of the claim
tests (tests/fixtures/claims/upstream), pinned under a GitHub-shaped URL and served
from its local repository as a mirror (so the lesson's permalinks resolve), and the
draft lesson tests/fixtures/draft/lesson.md (mixed Chinese/English, shaped like the
course's lessons) in course `demo-atlas`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.claims.simx_project import upstream_files
from tests.helpers_upstream import FixtureRepo, UpstreamSpec, make_git_repo, write_pins
from verifier.project import Project, load_project

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "draft"
URL = "https://github.com/simx-org/simx"


@dataclass
class DraftProject:
    root: Path
    repo: FixtureRepo
    lesson: Path

    def project(self) -> Project:
        return load_project(self.root / "pins.toml", notify=lambda m: None)

    @property
    def pins(self) -> str:
        return str(self.root / "pins.toml")

    @property
    def claim_file(self) -> Path:
        return self.root / "claims" / "demo-atlas" / "lesson.toml"


def make_project(tmp: Path, monkeypatch, lesson_text: str | None = None) -> DraftProject:
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp / "cache"))
    repo = make_git_repo(tmp / "simx-up", upstream_files())
    monkeypatch.setenv("VERIFIER_MIRRORS", f"simx={repo.path}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")
    docs = tmp / "course" / "demo-atlas" / "docs"
    docs.mkdir(parents=True)
    text = lesson_text if lesson_text is not None else (FIX / "lesson.md").read_text()
    lesson = docs / "lesson.md"
    lesson.write_text(text.replace("PINSHA", repo.head), encoding="utf-8")
    root = tmp / "proj"
    root.mkdir()
    write_pins(root, {"simx": UpstreamSpec(URL, repo.head)},
               {"demo-atlas": (str(tmp / "course" / "demo-atlas"), ["simx"])})
    return DraftProject(root, repo, lesson)


@pytest.fixture
def dp(tmp_path, monkeypatch) -> DraftProject:
    return make_project(tmp_path, monkeypatch)
