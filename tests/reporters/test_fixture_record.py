"""The reporters' fixture record is current, valid, and covers what it promises."""

from __future__ import annotations

import json
from collections import Counter

import jsonschema

from tests.reporters.fixture_record import FIXTURE, build
from tests.reporters.snapshots import assert_snapshot
from verifier.report import report_schema
from verifier.reporters import render
from verifier.results import Severity, Verdict


def test_fixture_is_what_its_builder_writes():
    """record.json is regenerated from fixture_record.build(): a record-model change shows
    up here first (VERIFIER_UPDATE_SNAPSHOTS=1 rewrites it)."""
    assert_snapshot(FIXTURE, render(build(), "json"))


def test_fixture_validates_and_round_trips(record):
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(report_schema()).validate(data)
    # a record read back renders to the same bytes (the HTML can be re-rendered from it)
    assert render(record, "json") == FIXTURE.read_text(encoding="utf-8")


def test_fixture_covers_the_shapes_of_a_real_run(record):
    assert {c.verdict for c in record.claims} == set(Verdict)
    assert {f.severity for f in record.findings} == set(Severity)
    assert {s.status for s in record.sources} == {"pinned", "release", "mismatch", "unavailable"}
    courses = {les.course for les in record.lessons}
    assert len(courses) >= 3
    by_path = Counter(les.path for les in record.lessons)
    assert any(n >= 2 for n in by_path.values())           # a lesson name two courses share
    assert any(les.path.count("/") >= 2 for les in record.lessons)  # a nested lesson
    assert any(not record.lesson_claims(les) and not record.lesson_findings(les)
               for les in record.lessons)                   # a lesson with nothing in it
    assert record.orphan_findings()                         # lint.toml
    assert {c.runtime.status for c in record.claims if c.runtime} >= {"confirmed", "refuted"}
    assert record.not_run and record.excerpts
    unav = [c.message for c in record.claims if c.verdict is Verdict.UNAVAILABLE]
    assert len(unav) > len(set(unav)) >= 2                  # several share one cause
