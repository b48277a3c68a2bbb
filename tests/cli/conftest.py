"""A small hermetic project for CLI tests: one fixture upstream served by `git` from a
local repository, two courses (one with two lessons of the same file name in
different folders), and claims. Everything is this test suite's own writing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers_upstream import FixtureRepo, make_git_repo

HEADER = "#pragma once\nint demo_step(int m, int d);\n#define DEMO_MAX 3\n"
PYMOD = "def advance(x, dt=0.5):\n    return x + dt\n"


def lesson(commit: str, extra: str = "") -> str:
    return ("# Stepping\n\n"
            f"Call `demo_step` to advance one step, see [the header](https://github.com/o/demo/"
            f"blob/{commit}/include/demo.h#L2).\n\n"
            "The limit `DEMO_MAX` is three.\n" + extra)


CLAIMS = """lesson = "{lesson}"
upstream = "demo"

[[claim]]
id = "step-exists"
fragment = "Call `demo_step`"
kind = "symbol"
path = "include/demo.h"
symbol = "demo_step"
expected = true

[[claim]]
id = "max-value"
fragment = "The limit `DEMO_MAX`"
kind = "enum"
path = "include/demo.h"
symbol = "DEMO_MAX"
expected = {max}
"""


@dataclass
class Proj:
    root: Path
    repo: FixtureRepo
    cache: Path

    @property
    def pins(self) -> Path:
        return self.root / "pins.toml"

    def args(self, *extra: str) -> list[str]:
        return [*extra, "--pins", str(self.pins), "--cache", str(self.cache)]

    def lesson(self, course: str, rel: str, text: str | None = None) -> Path:
        folder = {"alpha": "course-a", "beta": "course-b"}[course]
        p = self.root / folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text if text is not None else lesson(self.repo.head), encoding="utf-8")
        return p

    def claims(self, course: str, stem: str, lesson_path: str, max_value: int = 3,
               body: str | None = None) -> Path:
        p = self.root / "claims" / course / f"{stem}.toml"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body if body is not None else CLAIMS.format(lesson=lesson_path,
                                                                   max=max_value),
                     encoding="utf-8")
        return p


@pytest.fixture
def proj(tmp_path, monkeypatch) -> Proj:
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    repo = make_git_repo(tmp_path / "demo-up", {"include/demo.h": HEADER,
                                               "demo/__init__.py": PYMOD})
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pins.toml").write_text(f"""schema = 1

[upstream.demo]
repo = "https://github.com/o/demo"
commit = "{repo.head}"
version = "1.0.0"

[course.alpha]
path = "course-a"
upstreams = ["demo"]

[course.beta]
path = "course-b"
upstreams = ["demo"]
""", encoding="utf-8")
    # the upstream's GitHub URL is served by the local fixture repository (a mirror)
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={repo.path}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    p = Proj(root=root, repo=repo, cache=tmp_path / "cache")
    p.lesson("alpha", "docs/intro.md")
    p.claims("alpha", "intro", "docs/intro.md")
    p.lesson("beta", "docs/intro.md")
    return p


@pytest.fixture
def cli(capsys):
    """Run `verifier ...` in-process: (exit code, stdout, stderr)."""
    from verifier.cli.main import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
