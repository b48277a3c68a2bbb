"""text (VC110): a catastrophic user regex is a claim `error` naming the pattern, within
the time limit, never a hang (trial 2.20); the other claims of the file are still checked."""

from __future__ import annotations

import time

from tests.helpers_upstream import UpstreamSpec, make_git_repo, write_pins
from verifier.claims.check import run_check
from verifier.project import load_project

CLAIMS = '''lesson = "docs/lesson.md"
upstream = "up"

[[claim]]
id = "slow"
fragment = "runs of the letter"
kind = "text"
path = "src/runs.c"
expected = true
[claim.options]
pattern = '(a|aa)+$'

[[claim]]
id = "fine"
fragment = "runs of the letter"
kind = "text"
path = "src/runs.c"
expected = true
[claim.options]
pattern = 'int runs'
'''


def test_catastrophic_pattern_is_an_error_within_the_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    import verifier.claims.kinds.text as text_kind
    monkeypatch.setattr(text_kind, "TIME_LIMIT", 0.5)
    body = "int runs = 1;\n/* " + "a" * 5000 + "b */\n"
    repo = make_git_repo(tmp_path / "up", {"src/runs.c": body})
    course = tmp_path / "course" / "demo"
    (course / "docs").mkdir(parents=True)
    (course / "docs" / "lesson.md").write_text("# L\n\nAbout runs of the letter a.\n")
    root = tmp_path / "proj"
    root.mkdir()
    pins = write_pins(root, {"up": UpstreamSpec(repo.url, repo.head)},
                      {"demo": (str(course), ["up"])})
    (root / "claims" / "demo").mkdir(parents=True)
    (root / "claims" / "demo" / "lesson.toml").write_text(CLAIMS)
    t0 = time.perf_counter()
    res = {r.id.rsplit("/", 1)[-1]: r for r in run_check(load_project(pins))}
    assert time.perf_counter() - t0 < 30
    assert res["slow"].verdict.value == "error"
    assert "'(a|aa)+$'" in res["slow"].message and "took longer than 0.5s" in res["slow"].message
    assert res["fine"].verdict.value == "verified"
