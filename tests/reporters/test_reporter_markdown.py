"""Markdown verification records (one per lesson), from the fixture record."""

from __future__ import annotations

from markdown_it import MarkdownIt

from tests.reporters.snapshots import assert_snapshot, golden
from verifier.reporters import render
from verifier.reporters.markdown import lesson_record
from verifier.results import Verdict

REQUIRED = ["Scope", "Identity", "Claims by verdict", "Divergences", "Lint findings",
            "Limitations and what was not run"]


def _sections(text: str) -> list[str]:
    return [line[3:] for line in text.splitlines() if line.startswith("## ")]


def test_golden(record):
    assert_snapshot(golden("record.md"), render(record, "markdown"))


def test_one_record_per_lesson(record):
    for les in record.lessons:
        text = lesson_record(record, les)
        assert text.startswith(f"# Verification record: {les.course}/{les.path}\n")
        assert [s for s in _sections(text) if s in REQUIRED] == REQUIRED
        assert les.sha256 in text
        # the identity table names every cited file with its status
        for key in les.cited:
            up, path = key.split(":", 1)
            src = next(s for s in record.sources if (s.upstream, s.path) == (up, path))
            assert f"| `{up}` | `{path}` | {src.status} |" in text
        tokens = MarkdownIt("commonmark").enable("table").parse(text)
        if les.cited:
            assert any(t.type == "table_open" for t in tokens)
    assert render(record, "markdown").count("# Verification record: ") == len(record.lessons)


def test_same_lesson_name_in_two_courses_stays_apart(record):
    shared = [les for les in record.lessons if les.path == "docs/contact-models.md"]
    assert len(shared) == 2
    a, b = (lesson_record(record, les) for les in shared)
    ids_a = {c.id for c in record.lesson_claims(shared[0])}
    ids_b = {c.id for c in record.lesson_claims(shared[1])}
    assert ids_a and ids_b and not ids_a & ids_b
    assert all(f"`{i}`" in a and f"`{i}`" not in b for i in ids_a)


def test_divergences_and_limitations(record):
    for les in record.lessons:
        text = lesson_record(record, les)
        div_part = text.split("## Divergences", 1)[1].split("\n## ", 1)[0]
        claims = record.lesson_claims(les)
        for c in claims:
            if c.verdict in (Verdict.DIVERGED, Verdict.STALE):
                head = div_part.index(f"`{c.id}`")
                block = div_part[head:head + 1200]
                assert "- expected: `" in block and "- actual: `" in block
                if c.evidence:
                    assert c.evidence.permalink in block
            else:
                assert f"`{c.id}`" not in div_part
        limits = text.split("## Limitations and what was not run", 1)[1]
        for c in claims:
            if c.verdict is Verdict.UNAVAILABLE:
                assert f"claim `{c.id}`" in limits and "not checked" in limits
        for n in record.not_run:
            assert n.why in limits


def test_stages_that_did_not_run(record):
    bare = record.model_copy(update={"claims": [], "findings": [], "not_run": [
        *record.not_run,
        record.not_run[0].model_copy(update={"stage": "lint", "what": "lesson lint",
                                             "why": "not run in this invocation"}),
        record.not_run[0].model_copy(update={"stage": "check", "what": "static claim check",
                                             "why": "not run in this invocation"})]})
    text = lesson_record(bare, bare.lessons[0])
    limits = text.split("## Limitations and what was not run", 1)[1]
    assert "- lint: lesson lint — not run in this invocation" in limits
    assert "- check: static claim check — not run in this invocation" in limits
    assert "no pinned environment for drake on this machine" in limits
    assert "The claim check did not run." in text and "Lint did not run." in text


def test_records_into_a_directory_one_file_per_lesson(record, tmp_path):
    from verifier.outputs import write_into

    out = tmp_path / "records"
    written = write_into(out, record, "markdown")
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert len(written) == len(record.lessons) == len(files)
    assert {"mujoco-atlas/docs/contact-models.md", "drake-atlas/docs/contact-models.md"} <= set(
        files)
    text = (out / "drake-atlas" / "docs" / "contact-models.md").read_text(encoding="utf-8")
    assert text.startswith("# Verification record: drake-atlas/docs/contact-models.md")
