"""A fixture project for claim-kind tests: the hand-written `simx` upstream
(tests/fixtures/claims/upstream) committed to a throwaway git repo and pinned,
plus the `demo-atlas` course (tests/fixtures/claims/course)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers_upstream import FixtureRepo, UpstreamSpec, make_git_repo, write_pins
from verifier.project import Project, load_project
from verifier.results import ClaimResult

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "claims"
HEADER = 'lesson = "docs/lesson.md"\nupstream = "simx"\n\n'


def upstream_files() -> dict[str, str]:
    root = FIX / "upstream"
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file()}


@dataclass
class Simx:
    root: Path
    repo: FixtureRepo
    project: Project

    @property
    def claim_file(self) -> Path:
        return self.root / "claims" / "demo-atlas" / "lesson.toml"

    @property
    def claim_where(self) -> str:
        """The claim file as messages name it (relative to the project root)."""
        return "claims/demo-atlas/lesson.toml"

    def write(self, body: str, header: str = HEADER) -> Path:
        self.claim_file.parent.mkdir(parents=True, exist_ok=True)
        self.claim_file.write_text(header + body)
        return self.claim_file

    def check(self, body: str, header: str = HEADER) -> dict[str, ClaimResult]:
        from verifier.claims.check import run_check

        self.write(body, header)
        return {r.id.rsplit("/", 1)[-1]: r for r in run_check(self.project)}

    def one(self, body: str) -> ClaimResult:
        res = self.check(body)
        assert len(res) == 1, res
        return next(iter(res.values()))


def make_simx(tmp_path: Path, monkeypatch, providers: str = "git") -> Simx:
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", providers)
    repo = make_git_repo(tmp_path / "simx-up", upstream_files())
    shutil.copytree(FIX / "course", tmp_path / "course")
    root = tmp_path / "proj"
    root.mkdir()
    pins = write_pins(root, {"simx": UpstreamSpec(repo.url, repo.head)},
                      {"demo-atlas": (str(tmp_path / "course" / "demo-atlas"), ["simx"])})
    return Simx(root, repo, load_project(pins))


@pytest.fixture(scope="module")
def simx(tmp_path_factory) -> Simx:
    """One fixture project per test module (claim files are rewritten per test)."""
    with pytest.MonkeyPatch.context() as mp:
        yield make_simx(tmp_path_factory.mktemp("simx"), mp)


def claim(id: str, kind: str, path: str, symbol: str | None, expected, fragment: str,
          **options) -> str:
    """One [[claim]] table as TOML text."""
    import json

    lines = ["[[claim]]", f'id = "{id}"', f"fragment = {json.dumps(fragment, ensure_ascii=False)}",
             f'kind = "{kind}"', f'path = "{path}"']
    if symbol is not None:
        lines.append(f'symbol = "{symbol}"')
    if expected is not None:
        lines.append(f"expected = {_toml(expected)}")
    if options:
        lines.append("[claim.options]")
        lines += [f"{k} = {_toml(v)}" for k, v in options.items()]
    return "\n".join(lines) + "\n\n"


def _toml(v) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return json.dumps(v)


@pytest.fixture
def no_memo(simx, monkeypatch):  # noqa: F811
    """Run kinds for real (no memoised outcome), for tests that patch a kind's internals."""
    from verifier.facts.cache import fact_cache

    monkeypatch.setattr(fact_cache(simx.project.store), "enabled", False)
