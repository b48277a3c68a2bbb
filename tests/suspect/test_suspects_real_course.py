"""The suspect stage on the shared course (read at run time from ../shared; skipped
with the reason when the course or the upstream snapshots are absent):

- with the project's claims, every suspect must be a known real lesson error
  (`REAL_SUSPECTS`: none today);
- planted errors generated at test time from the reviewed claims (a default or a
  constant stated in a table row, its value changed in a copy of the lesson; nothing of
  the lessons is stored here) come out as suspects on their lines, and nothing new is
  flagged on the other lines."""

from __future__ import annotations

import re
import shutil
import tomllib

import pytest

from tests.conftest import COURSE, PINS, mirror_paths

# suspects on the unedited course that are real lesson errors: id -> evidence
REAL_SUSPECTS: dict[str, str] = {}


@pytest.fixture
def real_env(monkeypatch):
    if not COURSE.is_dir():
        pytest.skip(f"course input not found at {COURSE}")
    found = mirror_paths()
    if not found:
        pytest.skip("no local upstream snapshot configured (set VERIFIER_TEST_MIRRORS or "
                    "VERIFIER_TEST_MIRROR_ROOT)")
    monkeypatch.setenv("VERIFIER_MIRRORS", ";".join(f"{k}={v}" for k, v in found.items()))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")


def test_no_suspect_on_the_course_but_known_errors(real_env):
    from verifier import pipeline
    from verifier.project import load_project

    run = pipeline.run(load_project(PINS, notify=lambda m: None),
                       pipeline.options(lint=False))
    got = {f"{f.course}/{f.path}:{f.line}": f.message for f in run.report.findings
           if f.rule == "suspect"}
    assert set(got) <= set(REAL_SUSPECTS), got


_ROW = re.compile(r"^\|\s*`([A-Za-z_]\w*)`\s*\|\s*([0-9][0-9.]*(?:e[−-]?[0-9]+)?)(?=[\s|])")


def _planted(lesson_stems: tuple[str, ...]) -> list[tuple[str, str, int, str, str]]:
    """(course, lesson, line, old, new): a reviewed `default` claim whose sentence is a
    table row `| `name` | V |`, V bumped by one in its last digit."""
    out = []
    root = PINS.parent / "claims"
    for f in sorted(root.glob("*/*.toml")):
        if f.stem not in lesson_stems:
            continue
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        course, lesson = f.parent.name, data["lesson"]
        lines = (COURSE / course / lesson).read_text(encoding="utf-8").splitlines()
        for c in data.get("claim", []):
            if c["kind"] != "default" or not isinstance(c.get("expected"), (int, float)):
                continue
            for i, ln in enumerate(lines, 1):
                m = _ROW.match(ln)
                if m and m.group(1) == (c.get("symbol") or "").split(".")[-1] \
                        and c["fragment"] in ln:
                    old = m.group(2)
                    new = old[:-1] + str((int(old[-1]) + 1) % 10)
                    out.append((course, lesson, i, old, new))
    return out


def test_planted_values_become_suspects_and_nothing_else_does(real_env, tmp_path):
    from verifier.bench.planted import flags, scratch_project

    edits = _planted(("contact-solvers",))
    if len(edits) < 3:
        pytest.skip("fewer than 3 table-row defaults in the reviewed claims to plant into")
    spins = scratch_project(PINS, tmp_path / "scratch")
    course, lesson = edits[0][0], edits[0][1]
    f = tmp_path / "scratch" / "course" / course / lesson
    base = flags(spins, course, lesson)
    lines = f.read_text(encoding="utf-8").split("\n")
    for _, _, ln, old, new in edits:
        assert old in lines[ln - 1]
        lines[ln - 1] = lines[ln - 1].replace(old, new, 1)
    f.write_text("\n".join(lines), encoding="utf-8")
    got = flags(spins, course, lesson)
    missed = [(ln, old, new) for _, _, ln, old, new in edits
              if not [x for x in got.get(ln, []) if x not in base.get(ln, []) and "VS101" in x]]
    assert not missed, missed
    edited = {ln for _, _, ln, _, _ in edits}
    new_elsewhere = {ln: [x for x in v if x not in base.get(ln, [])] for ln, v in got.items()
                     if ln not in edited}
    assert not {k: v for k, v in new_elsewhere.items() if v}
    shutil.rmtree(tmp_path / "scratch", ignore_errors=True)


def test_a_page_the_coverage_rules_exclude_is_judged_by_lint_alone(real_env, tmp_path):
    """An index or validation page has no drafts: `flags` reports what lint and the
    suspect stage find on it (an edit there is judged, not a crash)."""
    from verifier.bench.planted import flags, scratch_project
    from verifier.claims.coverage import split_lessons
    from verifier.project import load_project

    spins = scratch_project(PINS, tmp_path / "scratch")
    project = load_project(spins, notify=lambda m: None)
    _, excluded = split_lessons(project, list(project.lessons()))
    if not excluded:
        pytest.skip("no page of the shared course is excluded by the coverage rules")
    ld = excluded[0][0]
    got = flags(spins, ld.course, ld.path)
    assert all(isinstance(k, int) and v for k, v in got.items())
    assert not any(x.startswith("draft ") for v in got.values() for x in v)
    shutil.rmtree(tmp_path / "scratch", ignore_errors=True)
