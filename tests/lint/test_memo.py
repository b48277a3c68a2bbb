"""The lint memo (verifier/lint/memo.py): a lesson whose inputs did not change is
served from the memo; any input that changes (a source file's availability, the
course directory under a relative link, lint.toml, the rules' code) lints it again;
a memoised result that a fresh lint contradicts is dropped by the audit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import verifier.lint as lint_mod
import verifier.lint.memo as memo_mod
from tests.lint.conftest import lint

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

RULES_DIR = Path(lint_mod.__file__).parent / "rules"


@pytest.fixture
def counted(monkeypatch):
    """How many lessons were really linted (not served from the memo)."""
    seen: list[str] = []
    real = lint_mod._lint_lesson

    def lint_lesson(ctx, doc, lesson, crashes):
        seen.append(doc.path)
        return real(ctx, doc, lesson, crashes)

    monkeypatch.setattr(lint_mod, "_lint_lesson", lint_lesson)
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    return seen


def _plain(findings):
    return [f.model_dump(mode="json") for f in findings]


def test_an_unchanged_lesson_is_served_from_the_memo(demo, counted):
    first = lint(demo.project())
    assert sorted(counted) == ["docs/basics.md", "docs/other.md"]
    counted.clear()
    second = lint(demo.project())
    assert counted == []
    assert _plain(second) == _plain(first)


def test_an_edited_lesson_is_linted_again(demo, counted):
    lint(demo.project())
    counted.clear()
    p = demo.lesson("other.md")
    p.write_text(p.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    lint(demo.project())
    assert counted == ["docs/other.md"]


def test_a_source_that_became_unavailable_is_not_served_stale(demo, counted, monkeypatch):
    """The same lesson, the mirror gone: its cited files' identity changed, so the
    findings are the unavailable ones, not the memoised clean result."""
    clean = lint(demo.project())
    assert not [f for f in clean if f.severity != "info"]
    store = demo.project().store
    for blob in store.root.joinpath("blobs").rglob("*"):
        if blob.is_file():
            blob.unlink()
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={demo.root / 'no-such-mirror'}")
    counted.clear()
    now = lint(demo.project())
    assert "docs/basics.md" in counted
    assert any(f.rule == "source-unavailable" for f in now)


def test_a_relative_link_target_that_appears_is_seen(demo, counted):
    demo.write("other.md", "# Other\n\nSee [the plan](plan.md).\n")
    before = lint(demo.project())
    assert any(f.rule == "relative-link" and f.severity == "error" for f in before)
    (demo.course / "docs" / "plan.md").write_text("# Plan\n", encoding="utf-8")
    counted.clear()
    after = lint(demo.project())
    assert "docs/other.md" in counted
    assert not any(f.rule == "relative-link" and f.path == "docs/other.md" for f in after)


def test_a_linked_example_file_that_changes_is_seen(demo, counted):
    ex = demo.course / "examples" / "run.py"
    ex.parent.mkdir(exist_ok=True)
    ex.write_text("def helper():\n    pass\n", encoding="utf-8")
    demo.write("other.md", "# Other\n\nThe [example](../examples/run.py) defines helpers.\n")
    lint(demo.project())
    counted.clear()
    ex.write_text("def helper_two():\n    pass\n", encoding="utf-8")
    lint(demo.project())
    assert counted == ["docs/other.md"]


def test_lint_toml_is_part_of_the_key(demo, counted):
    lint(demo.project())
    counted.clear()
    (demo.root / "lint.toml").write_text("# no suppressions yet\n", encoding="utf-8")
    lint(demo.project())
    assert sorted(counted) == ["docs/basics.md", "docs/other.md"]


def test_the_memo_is_off_with_the_fact_cache(demo, counted, monkeypatch):
    lint(demo.project())
    counted.clear()
    monkeypatch.setenv("VERIFIER_FACT_CACHE", "0")
    lint(demo.project())
    assert sorted(counted) == ["docs/basics.md", "docs/other.md"]


def test_the_audit_drops_a_memo_that_a_fresh_lint_contradicts(demo, monkeypatch):
    """A memo that reads back other findings than a fresh lint gives (as if rewritten
    by someone holding the signing key) is caught when the audit re-derives a hit: the
    run keeps the fresh findings, drops the lint section and says so."""
    from verifier.facts.cache import FactCache, fact_cache

    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    demo.write("other.md", "# Other\n\nSee [the plan](plan.md).\n")
    honest = lint(demo.project())
    assert any(f.rule == "relative-link" for f in honest)
    real_get = FactCache.get

    def tampered(self, extractor, version, blob, query=None, **kw):
        got = real_get(self, extractor, version, blob, query, **kw)
        if extractor == memo_mod.EXTRACTOR and isinstance(got, dict):
            got["value"]["findings"] = [f for f in got["value"]["findings"]
                                        if f["rule"] != "relative-link"]
        return got

    monkeypatch.setattr(FactCache, "get", tampered)
    served = lint(demo.project())                       # no audit: the memo is believed
    assert not any(f.rule == "relative-link" for f in served)
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    project = demo.project()
    again = lint(project)
    assert any(f.rule == "relative-link" for f in again)
    assert any("did not match a fresh lint" in n for n in fact_cache(project.store).notes)
    assert not list((project.store.root / "facts" / memo_mod.EXTRACTOR).rglob("*.bin"))


def test_only_the_listed_rule_modules_read_the_course_directory():
    """The memo's course view covers what a lesson's relative links point at; a rule
    that reads other files must be recorded by the memo (lint/memo.py) first."""
    fs_access = re.compile(r"\.(exists|is_file|is_dir|read_text|read_bytes|iterdir|glob|rglob|"
                           r"stat|lstat|open)\(|\bopen\(|os\.(path|listdir|walk|scandir|stat)")
    readers = sorted(p.name for p in RULES_DIR.glob("*.py") if fs_access.search(p.read_text()))
    assert readers == sorted(memo_mod.COURSE_READERS)


def test_the_lint_audit_does_not_force_the_first_hit(monkeypatch):
    """The claim memo always audits a run's first hit; the lint memo samples only, or
    a one-lesson lint (the editor's case) would re-lint its only lesson every time."""
    from verifier.facts.audit import AuditState

    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0.000001")
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT_SEED", "1")
    assert AuditState().sampled("entry-a") is True
    assert AuditState(first=False).sampled("entry-a") is False


def test_a_hit_reads_nothing_of_the_lesson_but_its_text(demo, counted, monkeypatch):
    """A warm lint builds no lesson model: the memo holds the findings and the files
    the lesson cites (which the record lists), so neither the parsed lesson nor its
    links are loaded."""
    from verifier import pipeline

    cold = pipeline.run(demo.project(), pipeline.options(check=False, excerpts=False))
    import verifier.lessons.cache as lessons_cache

    def boom(*a, **k):
        raise AssertionError("a memo hit loaded the lesson model")

    monkeypatch.setattr(lessons_cache, "load_lesson", boom)
    monkeypatch.setattr(lessons_cache, "load_links", boom)
    warm = pipeline.run(demo.project(), pipeline.options(check=False, excerpts=False))
    assert counted == ["docs/basics.md", "docs/other.md"]     # the cold run only
    assert warm.report.model_dump(mode="json") == cold.report.model_dump(mode="json")
