"""Markdown verification records (one per lesson) and the job summary."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from tests.reporters.report_fixtures import made_claims, made_findings
from verifier.report import build_report
from verifier.reporters import render
from verifier.reporters.markdown import lesson_record, step_summary
from verifier.results import Verdict

pytestmark = pytest.mark.wheels


@pytest.fixture
def report(real_project):
    lessons = real_project.lessons()
    return build_report(real_project, lessons=lessons, claims=made_claims(real_project, lessons),
                        findings=made_findings(lessons), excerpts=False)


def _sections(text: str) -> list[str]:
    return [line[3:] for line in text.splitlines() if line.startswith("## ")]


def test_one_record_per_lesson(report):
    for les in report.lessons:
        text = lesson_record(report, les)
        assert text.startswith(f"# Verification record: {les.course}/{les.path}\n")
        required = ["Scope", "Identity", "Claims by verdict", "Divergences", "Lint findings",
                    "Limitations and what was not run"]
        assert [s for s in _sections(text) if s in required] == required
        assert les.sha256 in text
        # the identity table names every cited file with its status
        for key in les.cited:
            up, path = key.split(":", 1)
            src = next(s for s in report.sources if (s.upstream, s.path) == (up, path))
            assert f"| `{up}` | `{path}` | {src.status} |" in text
        # it is valid Markdown with real tables
        tokens = MarkdownIt("commonmark").enable("table").parse(text)
        assert any(t.type == "table_open" for t in tokens)
    assert render(report, "markdown").count("# Verification record: ") == len(report.lessons)


def test_divergences_and_limitations(report):
    for les in report.lessons:
        text = lesson_record(report, les)
        div_part = text.split("## Divergences", 1)[1].split("\n## ", 1)[0]
        claims = report.lesson_claims(les)
        for c in claims:
            if c.verdict in (Verdict.DIVERGED, Verdict.STALE):
                head = div_part.index(f"`{c.id}`")
                block = div_part[head:head + 1200]
                assert "- expected: `" in block and "- actual: `" in block
                assert c.evidence.permalink in block
            else:
                assert f"`{c.id}`" not in div_part
        limits = text.split("## Limitations and what was not run", 1)[1]
        for c in claims:
            if c.verdict is Verdict.UNAVAILABLE:
                assert f"claim `{c.id}`" in limits and "not checked" in limits
        for n in report.not_run:
            assert n.why in limits


def test_not_run_stages_are_listed(real_project):
    lessons = real_project.lessons()
    report = build_report(real_project, lessons=lessons, claims=None, findings=None,
                          not_run=[{"stage": "runtime", "what": "runtime confirmation",
                                    "why": "no pinned environment for drake on this machine"}],
                          excerpts=False)
    text = lesson_record(report, report.lessons[0])
    limits = text.split("## Limitations and what was not run", 1)[1]
    assert "- lint: lesson lint — not run in this invocation" in limits
    assert "- check: static claim check — not run in this invocation" in limits
    assert "no pinned environment for drake on this machine" in limits
    assert "The claim check did not run." in text and "Lint did not run." in text


def test_step_summary_lists_everything(report):
    text = step_summary(report)
    failing = [c for c in report.claims if c.verdict in (Verdict.DIVERGED, Verdict.STALE,
                                                          Verdict.ERROR)]
    for c in failing:
        assert f"`{c.lesson}:{c.line}`" in text
    assert f"All {len(failing) + 2} problem(s)" in text  # + lint error and warning


def test_record_markdown_into_directory(tmp_path, monkeypatch):
    from tests.conftest import PINS
    from verifier.cli.main import main

    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    out = tmp_path / "records"
    out.mkdir()
    assert main(["--pins", str(PINS), "-q", "record", "--format", "markdown", "--out",
                 str(out)]) in (0, 1)
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert files == ["drake-atlas/inertial-force-sensing.md",
                     "mujoco-atlas/cameras-and-geometry-queries.md",
                     "mujoco-atlas/sensors-and-sampling.md", "mujoco-atlas/state-and-time.md",
                     "newton-atlas/sensors-rendering.md"]
    text = (out / "mujoco-atlas/state-and-time.md").read_text()
    assert text.startswith("# Verification record: mujoco-atlas/docs/state-and-time.md")
