"""Claims re-run against the new version; read-only (git-hosted) courses."""

from __future__ import annotations

import pytest

from tests.upgrade.fixture import build
from verifier.project import load_project
from verifier.results import ClaimResult, Verdict
from verifier.upgrade import run_upgrade
from verifier.upgrade.claims import diff_results

CLAIMS = '''lesson = "docs/lesson.md"
upstream = "demo"

[[claim]]
id = "legacy-exists"
fragment = "| legacy |"
kind = "symbol"
path = "pkg/gone.py"
symbol = "legacy_entry_point"
expected = true

[[claim]]
id = "step-exists"
fragment = "the C loop"
kind = "symbol"
path = "src/engine.c"
symbol = "demo_step"
expected = true

[[claim]]
id = "core-imports-nothing"
fragment = "Scaling happens in"
kind = "symbol"
path = "pkg/core.py"
symbol = "math"
expected = false
'''


@pytest.fixture
def fx(tmp_path, monkeypatch):
    f = build(tmp_path)
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={f.repo.path}")
    (f.root / "claims" / "course").mkdir(parents=True)
    (f.root / "claims" / "course" / "lesson.toml").write_text(CLAIMS)
    return f


def test_claim_verdict_change_is_reported_with_old_and_new_fact(fx):
    report = run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0")
    assert report.claims.ran and report.claims.old_total == 3 and report.claims.new_total == 3
    changes = {c.id: c for ls in report.lessons for c in ls.claims}
    assert sorted(changes) == ["course/lesson/core-imports-nothing", "course/lesson/legacy-exists"]
    imp = changes["course/lesson/core-imports-nothing"]  # v2 imports math: now diverged
    assert (imp.old_verdict, imp.new_verdict, imp.old_actual, imp.new_actual) == (
        "verified", "diverged", False, True)
    assert imp.decided and imp.code == "VU110"
    gone = changes["course/lesson/legacy-exists"]  # file deleted: cannot be re-checked
    # the new version's git tree proves the path absent: the claim names nothing there
    assert (gone.old_verdict, gone.new_verdict, gone.old_actual) == ("verified", "error", True)
    assert "pkg/gone.py" in gone.new_message and "no such path" in gone.new_message
    assert not gone.decided and gone.code == "VU111"
    assert (report.claims.changed, report.claims.unchecked) == (1, 1)
    assert report.claims.old_verdicts == {"verified": 3}
    assert report.claims.new_verdicts == {"diverged": 1, "error": 1, "verified": 1}
    assert report.summary["claim-changed"] == 1 and report.summary["claim-unchecked"] == 1
    assert any("core-imports-nothing verified -> diverged" in s for s in report.left_for_author)


def test_pins_toml_untouched_without_write(fx):
    before = fx.pins.read_bytes()
    run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0")
    assert fx.pins.read_bytes() == before
    assert not (fx.root / "pins.lock").exists()


def _r(cid: str, verdict: Verdict, actual=None) -> ClaimResult:
    return ClaimResult(id=cid, lesson="docs/l.md", line=1, upstream="u", kind="default",
                       verdict=verdict, expected="0.5", actual=actual, course="c")


def test_diff_results_only_changed_verdicts():
    old = [_r("a", Verdict.VERIFIED, "0.5"), _r("b", Verdict.VERIFIED, "1"),
           _r("c", Verdict.DIVERGED, "2")]
    new = [_r("a", Verdict.DIVERGED, "0.25"), _r("b", Verdict.VERIFIED, "1"),
           _r("c", Verdict.DIVERGED, "3"), _r("d", Verdict.VERIFIED)]
    out = diff_results(old, new)
    assert [(c.id, c.old_verdict, c.new_verdict) for c in out] == [
        ("a", "verified", "diverged"), ("d", "absent", "verified")]
    assert (out[0].old_actual, out[0].new_actual) == ("0.5", "0.25")
    assert out[0].decided and not out[1].decided


def test_git_hosted_course_is_read_only(fx, tmp_path):
    from tests.helpers_upstream import git, make_git_repo

    course_repo = make_git_repo(tmp_path / "course-repo",
                                {"docs/lesson.md": fx.lesson.read_text()})
    text = fx.pins.read_text().replace(
        '[course.course]\npath = "course"',
        f'[course.course]\ngit = "{course_repo.url}"\ncommit = "{course_repo.head}"')
    fx.pins.write_text(text)
    git(course_repo.path, "config", "uploadpack.allowFilter", "true")
    report = run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True,
                         claims=False)
    assert all(ls.read_only for ls in report.lessons)
    assert not any(lk.written for ls in report.lessons for lk in ls.links)
    assert any("read-only" in n for n in report.notes)
    assert any("read-only course" in s for s in report.left_for_author)
    assert course_repo.blob("docs/lesson.md")  # the course repository is not touched
    assert "blob/" + fx.v1 in (course_repo.path / "docs/lesson.md").read_text()


def test_release_stand_in_commit_is_never_shown():
    from verifier.upgrade.claims import _relabel

    stand_in = "ab" * 20
    r = _r("a", Verdict.UNAVAILABLE).model_copy(
        update={"message": f"pkg/x.py is unavailable at {stand_in[:7]}: no git tree at "
                           f"{stand_in[:7]}"})
    out = _relabel([r], stand_in, "2.0.0 (release, commit unknown)")
    assert stand_in[:7] not in out[0].message
    assert out[0].message.count("2.0.0 (release, commit unknown)") == 2
    assert _relabel([r], None, "x") == [r]
