"""GitHub: annotations (escaping, order, cap + overflow notice) and the step summary that
doubles as a pull-request comment (one compact section per lesson, failures first)."""

from __future__ import annotations

import re

from tests.reporters.snapshots import assert_snapshot, golden
from verifier.reporters import render
from verifier.reporters.github import (CAP, MARKER, MAX_CHARS, ROWS_PER_LESSON, command,
                                       escape_data, escape_property, step_summary)
from verifier.results import ClaimResult, Finding, Severity, Verdict

LINE = re.compile(r"^::(error|warning|notice)(?: ([^:]*))?::(.*)$")


def unescape(s: str) -> str:
    return (s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":")
            .replace("%2C", ",").replace("%25", "%"))


def parse(text: str) -> list[tuple[str, dict, str]]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        assert m, f"not a workflow command: {line!r}"
        props = dict(p.split("=", 1) for p in m.group(2).split(",")) if m.group(2) else {}
        out.append((m.group(1), {k: unescape(v) for k, v in props.items()}, unescape(m.group(3))))
    return out


def test_escaping():
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = command("error", "x: 5%, y\nz", file="docs/a,b.md", line=3, title="VC104 t: id")
    assert line == "::error file=docs/a%2Cb.md,line=3,title=VC104 t%3A id::x: 5%25, y%0Az"
    assert parse(line) == [("error", {"file": "docs/a,b.md", "line": "3",
                                      "title": "VC104 t: id"}, "x: 5%, y\nz")]


def _many(record, n_div: int, n_warn: int):
    """The fixture's state-and-time lesson, with many diverged claims and warnings."""
    lesson = "docs/state-and-time.md"
    claims = [ClaimResult(id=f"mujoco-atlas/state-and-time/c{i:02d}", lesson=lesson,
                          line=100 + i, upstream="mujoco", kind="enum", verdict=Verdict.DIVERGED,
                          expected=1, actual=2, message="differs\nsecond line",
                          course="mujoco-atlas") for i in range(n_div)]
    claims.append(ClaimResult(id="mujoco-atlas/state-and-time/late", lesson=lesson, line=1,
                              upstream="mujoco", kind="text", verdict=Verdict.STALE,
                              course="mujoco-atlas"))
    claims.append(ClaimResult(id="mujoco-atlas/state-and-time/ok", lesson=lesson, line=2,
                              upstream="mujoco", kind="text", verdict=Verdict.VERIFIED,
                              course="mujoco-atlas"))
    findings = [Finding(rule="identifier", code="VL104", severity=Severity.WARNING, path=lesson,
                        line=i + 1, message=f"w{i}", course="mujoco-atlas")
                for i in range(n_warn)]
    les = [x for x in record.lessons if (x.course, x.path) == ("mujoco-atlas", lesson)]
    return record.model_copy(update={"lessons": les, "claims": claims, "findings": findings})


def test_cap_order_and_overflow(record, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    text = render(_many(record, 14, 12), "github")
    assert "\x1b" not in text
    got = parse(text)
    errors = [g for g in got if g[0] == "error"]
    warnings = [g for g in got if g[0] == "warning"]
    notices = [g for g in got if g[0] == "notice"]
    assert len(errors) == CAP and len(warnings) == CAP and len(notices) == 1
    # most important first: diverged (in lesson order) before stale; stale was cut
    assert all("diverged" in e[1]["title"] for e in errors)
    assert [int(e[1]["line"]) for e in errors] == list(range(100, 110))
    assert errors[0][1]["file"] == "docs/state-and-time.md"
    assert errors[0][2].startswith("differs\nsecond line")
    assert "5 more error(s) and 2 more warning(s)" in notices[0][2]
    assert not any("ok" == e[1]["title"].rsplit("/", 1)[-1] for e in got)


def test_annotations_golden(record, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    text = render(record, "github")
    assert_snapshot(golden("annotations.txt"), text)
    got = parse(text)
    levels = [g[0] for g in got]
    assert levels == sorted(levels, key=["error", "warning"].index)
    failing = sum(1 for c in record.claims if c.verdict.value in ("diverged", "stale", "error"))
    errs = sum(1 for f in record.findings if f.severity is Severity.ERROR)
    warns = sum(1 for f in record.findings if f.severity is Severity.WARNING)
    assert levels.count("error") == failing + errs and levels.count("warning") == warns


# --------------------------------------------------------------------------- step summary


def test_step_summary_golden(record):
    assert_snapshot(golden("step-summary.md"), step_summary(record, env={}))


def _lesson_sections(text: str) -> dict[str, str]:
    parts = re.split(r"^### (?:❌|⚠️) `([^`]+)`$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_one_section_per_lesson_that_needs_attention_failures_first(record):
    text = step_summary(record, env={})
    assert text.startswith(MARKER + "\n## verifier: exit code 1 — ")
    sections = _lesson_sections(text)
    for les in record.lessons:
        name = f"{les.course}/{les.path}"
        claims, findings = record.lesson_claims(les), record.lesson_findings(les)
        failing = [c for c in claims if c.verdict.value in ("diverged", "stale", "error")]
        loud = [f for f in findings if f.severity is not Severity.INFO]
        if not failing and not loud:
            assert name not in sections and f"`{name}`" in text.split("<details>", 1)[1]
            continue
        body = sections[name]
        rows = [line for line in body.splitlines() if line.startswith("| ") and "---" not in line][1:]
        # every failure and lint error/warning, failures first, then lint by severity
        assert len(rows) == len(failing) + len(loud)
        kinds = [r.split(" | ")[0].strip("| *") for r in rows]
        order = {"diverged": 0, "stale": 1, "error": 2, "lint error": 3, "lint warning": 4}
        assert kinds == sorted(kinds, key=order.__getitem__)
        for c in failing:
            assert f"`{c.id.rsplit('/', 1)[-1]}`" in body
        # counts line, then links to the lesson line at the course commit
        assert body.strip().splitlines()[0].split(" · ")[0][0].isdigit()
        course = next(c for c in record.pins.courses if c.name == les.course)
        if course.git and course.commit:
            assert f"{course.git}/blob/{course.commit}/{les.path}#L" in body
    # lessons with failures come before lessons with only warnings
    names = list(sections)
    icons = re.findall(r"^### (❌|⚠️) ", text, flags=re.M)
    assert icons == sorted(icons, key=["❌", "⚠️"].index) and len(icons) == len(names)


def test_links_point_at_the_commit_under_test_in_the_course_repository(record):
    env = {"GITHUB_REPOSITORY": "huangkiki/mujoco-atlas", "GITHUB_SHA": "c" * 40,
           "GITHUB_SERVER_URL": "https://github.com"}
    text = step_summary(record, env=env)
    body = _lesson_sections(text)["mujoco-atlas/docs/contact-models.md"]
    assert f"https://github.com/huangkiki/mujoco-atlas/blob/{'c' * 40}/docs/contact-models.md#L18" \
        in body
    # other courses keep their pinned commit
    other = _lesson_sections(text)["drake-atlas/docs/contact-models.md"]
    assert "/huangkiki/drake-atlas/blob/f3e069a" in other


def test_long_lessons_and_long_runs_stay_comment_sized(record):
    many = _many(record, 40, 30)
    text = step_summary(many, env={})
    assert f"… and {40 + 1 + 30 - ROWS_PER_LESSON} more" in text
    # a run with many failing lessons: lessons beyond the size limit are named, not dropped
    lessons, claims = [], []
    base = record.lessons[0]
    for i in range(400):
        les = base.model_copy(update={"path": f"docs/lesson-{i:03d}.md"})
        lessons.append(les)
        claims += [ClaimResult(id=f"{les.course}/lesson-{i:03d}/c{j}", lesson=les.path,
                               line=j + 1, upstream="mujoco", kind="enum",
                               verdict=Verdict.DIVERGED, expected=1, actual=2,
                               message="x" * 250, course=les.course) for j in range(5)]
    big = record.model_copy(update={"lessons": lessons, "claims": claims, "findings": []})
    text = step_summary(big, env={})
    assert len(text) < MAX_CHARS < 65_536
    m = re.search(r"\*\*(\d+) more lesson\(s\) need attention\*\*", text)
    assert m and int(m.group(1)) + len(_lesson_sections(text)) == 400
    assert re.search(r"… and \d+ more$", text.split("need attention**", 1)[1].splitlines()[0])


def test_step_summary_is_appended(record, monkeypatch, tmp_path):
    from verifier.outputs import write_file
    from verifier.reporters.github import publish

    summary = tmp_path / "summary.md"
    summary.write_text("previous step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    out = tmp_path / "annotations.txt"
    many = _many(record, 14, 12)
    write_file(out, many, "github")
    assert publish(many) == [summary]
    text = summary.read_text()
    assert text.startswith("previous step\n" + MARKER + "\n## verifier")  # appended
    assert "see the job summary" in out.read_text()
