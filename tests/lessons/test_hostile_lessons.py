"""Hostile lessons (trials 3.8, 3.17, 3.18 of the reliability trial): lesson files and
links that lead out of the course through symlinks are refused or reported, never
read; content nested past the parser's limit is reported, never silently skipped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verifier.errors import ConfigError
from verifier.lessons import parse_lesson

SHA = "0" * 40


@pytest.fixture
def proj(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    course = root / "course" / "demo-course"
    (course / "docs").mkdir(parents=True)
    (course / "docs" / "intro.md").write_text("# Intro\n\nPlain text.\n", encoding="utf-8")
    (root / "pins.toml").write_text(f"""schema = 1
[upstream.demo]
repo = "https://github.com/example/demo"
commit = "{SHA}"
version = "1.0"
languages = ["python"]

[course.demo-course]
path = "course/demo-course"
upstreams = ["demo"]
""", encoding="utf-8")
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("GITHUB_TOKEN=ghp_FAKE_SECRET_abcdefabcdefabcdef\n")
    from verifier.project import load_project

    return load_project(root / "pins.toml"), course, outside


def test_symlinked_lesson_leading_out_is_refused_3_18(proj):
    project, course, outside = proj
    (course / "docs" / "zz-leak.md").symlink_to(outside / "secret.md")
    with pytest.raises(ConfigError) as ei:
        project.lessons()
    msg = ei.value.render()
    assert "zz-leak.md" in msg and "outside the course checkout" in msg
    assert "ghp_FAKE" not in msg


def test_symlink_to_proc_environ_is_refused(proj, monkeypatch):
    project, course, _ = proj
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_FAKE_ENV_TOKEN_abcdef")
    (course / "docs" / "zz-env.md").symlink_to("/proc/self/environ")
    with pytest.raises(ConfigError, match="outside the course checkout"):
        project.lessons()


def test_symlinked_folder_leading_out_is_refused(proj):
    project, course, outside = proj
    (course / "docs" / "more").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ConfigError, match="outside the course checkout"):
        project.lessons()


def test_lesson_folder_outside_the_course_is_refused(proj, tmp_path):
    project, course, outside = proj
    from verifier.lessons import lesson_files

    with pytest.raises(ConfigError, match="lesson folder resolves outside"):
        lesson_files(course, "../../../outside")


def test_explicit_symlinked_lesson_is_refused_even_with_course(proj):
    project, course, outside = proj
    link = course / "docs" / "zz-leak.md"
    link.symlink_to(outside / "secret.md")
    for kw in ({}, {"course": "demo-course"}):
        with pytest.raises(ConfigError, match="outside the course checkout"):
            project.lessons([str(link)], **kw)


def test_symlinks_inside_the_course_are_fine(proj):
    project, course, _ = proj
    (course / "docs" / "alias.md").symlink_to(course / "docs" / "intro.md")
    names = sorted(d.path for d in project.lessons())
    assert names == ["docs/alias.md", "docs/intro.md"]
    (doc,) = project.lessons([str(course / "docs" / "alias.md")])
    assert doc.course == "demo-course"


def test_relative_links_through_symlinks_are_reported_not_probed_3_17(proj):
    project, course, outside = proj
    (course / "docs" / "etcdir").symlink_to(outside, target_is_directory=True)
    (course / "docs" / "outside-link").symlink_to(outside / "secret.md")
    (course / "docs" / "links.md").write_text(
        "# L\n\nSee [a](outside-link), [b](etcdir/secret.md), [c](etcdir/nonexistent-file) "
        "and [d](intro.md).\n", encoding="utf-8")
    from verifier.lint import run_lint

    docs = project.lessons([str(course / "docs" / "links.md")])
    found = [f for f in run_lint(project, docs) if f.rule == "relative-link"]
    by_target = {f.target: f.message for f in found}
    assert set(by_target) == {"outside-link", "etcdir/secret.md", "etcdir/nonexistent-file"}
    for msg in by_target.values():          # the same answer whether or not the target exists
        assert "resolves outside the course repository" in msg
        assert "does not exist" not in msg


def test_nested_too_deep_is_reported_3_8():
    for d, deep in ((5, False), (19, False), (20, True), (60, True)):
        text = ("# T\n\n" + "> " * d + f"[x](https://github.com/o/r/blob/{SHA}/a.h#L1) "
                "and `mj_stepp`\n\nafter\n")
        lesson = parse_lesson(text)
        assert bool(lesson.too_deep) == deep, d
        if deep:
            assert lesson.too_deep == [(3, 3)]
        else:
            assert [c.text for c in lesson.code_spans] == ["mj_stepp"]
    nested_lists = "- a\n" + "".join("  " * i + "- b\n" for i in range(1, 15)) + "\nlost\n"
    first, last = parse_lesson(nested_lists).too_deep[0]
    assert first <= 11 and last == nested_lists.count("\n")
    brackets = "para " + "[" * 25 + "x `c`" + "](u)" * 25 + "\n"
    assert parse_lesson(brackets).too_deep == [(1, 1)]


def test_nested_too_deep_is_a_lint_finding(proj):
    project, course, _ = proj
    (course / "docs" / "deep.md").write_text("# D\n\n" + "> " * 25 + "deep text\n",
                                             encoding="utf-8")
    from verifier.lint import run_lint

    docs = project.lessons([str(course / "docs" / "deep.md")])
    found = [f for f in run_lint(project, docs) if f.rule == "nested-too-deep"]
    assert len(found) == 1 and found[0].line == 3 and found[0].code == "VL110"
    assert "nested too deeply to check" in found[0].message


def test_coverage_never_prints_what_a_symlinked_lesson_points_at_3_18(proj, capsys, monkeypatch):
    project, course, outside = proj
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_FAKE_ENV_TOKEN_abcdef")
    (course / "docs" / "zz-env.md").symlink_to("/proc/self/environ")
    (course / "docs" / "zz-leak.md").symlink_to(outside / "secret.md")
    from verifier.cli.main import main

    for cmd in (["coverage", "--all"], ["lint"]):
        code = main([*cmd, "--pins", str(project.pins.path)])
        out = capsys.readouterr()
        assert code == 2, (cmd, out.err)
        assert "outside the course checkout" in out.err
        assert "ghp_FAKE" not in out.out + out.err


def test_a_line_of_many_code_spans_is_located_span_by_span():
    """Pieces are located in order with their lines counted on from the last one: many
    code spans on one line (a pathological line of 200 KB took 13 s when every piece
    counted lines from the block's start) and spans on later lines keep exact lines
    and offsets."""
    text = "# t\n\n" + "`a` " * 3000 + "\n`b` 与\n`c`\n\n段落 `d`\n"
    lesson = parse_lesson(text)
    spans = lesson.code_spans
    assert [s.text for s in spans[-3:]] == ["b", "c", "d"]
    assert {s.line for s in spans[:3000]} == {3}
    assert [s.line for s in spans[-3:]] == [4, 5, 7]
    for s in spans[-3:]:
        assert text.count("\n", 0, text.index(f"`{s.text}`")) + 1 == s.line


def test_span_contexts_are_bounded_and_exact_for_real_clauses():
    """A span's clause context is its clause (cut at the nearest clause marks), and it
    reads at most `CONTEXT_CHARS` on either side however long the sentence: a line of
    tens of thousands of spans cost time and memory quadratic in its length."""
    from verifier.lint.rules._names import CONTEXT_CHARS, _span_contexts

    text = "# t\n\n前文，没有 `mj_foo` 这个函数；后文。\n\n" + "x " * 3000 + "`far` y\n"
    lesson = parse_lesson(text)
    ctx = _span_contexts(text, lesson)
    assert (ctx[0].before, ctx[0].after) == ("没有 ", " 这个函数")
    assert ctx[1].before.endswith("x ") and len(ctx[1].before) == CONTEXT_CHARS
    assert ctx[1].after == " y"
    many = "# t\n\n" + "`a` " * 20000 + "\n"
    got = _span_contexts(many, parse_lesson(many))
    assert len(got) == 20000 and max(len(c.before) + len(c.after) for c in got) <= \
        2 * CONTEXT_CHARS
