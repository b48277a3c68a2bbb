"""Links in every form GitHub renders are links to lint (reliability-2 F2-2), and
invisible characters inside names and file names are errors, shown escaped (F2-4)."""

from __future__ import annotations

from verifier.lessons import parse_lesson
from verifier.permalinks import parse_github_url

from .conftest import errors, lint

SHA = "0" * 39 + "1"


def test_the_lesson_model_sees_every_link_form():
    text = (f"见https://github.com/o/r/blob/{SHA}/a/b.h#L10。\n\n"
            f"<https://github.com/o/r/blame/{SHA}/a/c.h#l20>\n\n"
            f'正文 <a href="https://github.com/o/r/blob/{SHA}/a/d.h#L3">HTML</a> 链接\n\n'
            f"![图](https://raw.githubusercontent.com/o/r/{SHA}/a/e.png)\n\n"
            f'<p><a href="https://github.com/o/r/tree/{SHA}/a">块</a></p>\n')
    links = parse_lesson(text).links
    assert [(lk.href.rsplit("/", 1)[-1], lk.line) for lk in links] == [
        ("b.h#L10", 1), ("c.h#l20", 3), ("d.h#L3", 5), ("e.png", 7), ("a", 9)]


def test_urls_of_every_form_parse():
    blame = parse_github_url(f"https://github.com/o/r/blame/{SHA}/a/c.h#l20-l22")
    assert (blame.kind, blame.ref, blame.path, blame.start, blame.end) == (
        "blame", SHA, "a/c.h", 20, 22)
    raw = parse_github_url(f"https://raw.githubusercontent.com/o/r/{SHA}/a/e.h")
    assert (raw.kind, raw.slug, raw.ref, raw.path) == ("raw", "o/r", SHA, "a/e.h")


def test_wrong_commit_in_a_bare_url_is_an_error(demo):
    p = demo.write("forms.md", "# 形式\n\n裸链接 https://github.com/example/demo/blob/"
                   f"{'a1' * 20}/include/demo.h#L1 与 <a href=\"https://github.com/example/"
                   "demo/blob/PINNED_SHA/include/demo.h#l99999\">越界</a>。\n")
    es = errors(lint(demo.project(), [p]))
    assert sorted(f.rule for f in es) == ["permalink-pin", "permalink-target"]


def test_invisible_characters_are_errors_shown_escaped(demo):
    p = demo.write("zw.md", "# 零宽\n\n调用 `demo_re\u200bset`，软连字符 `demo_\u00adstep`，"
                   "双向 `demo_\u202estep`。\n")
    es = errors(lint(demo.project(), [p]), "invisible-character")
    assert len(es) == 3
    assert all("\u200b" not in f.message and "\u00ad" not in f.message for f in es)
    assert any("`demo_re\\u200bset`" in f.message and "ZERO WIDTH SPACE" in f.message
               for f in es)
