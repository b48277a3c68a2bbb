"""The refined coverage notion: checkable sentences come from the lesson model, with
headings, questions, maths, numbering, citations and version lines left out, and
non-lesson pages excluded by a configurable rule."""

from __future__ import annotations

import pytest

from tests.draft.draft_project import dp  # noqa: F401  (fixture)
from verifier.claims.coverage import CoverageConfig, load_config, units
from verifier.errors import ConfigError
from verifier.lessons.model import parse_lesson

SHA = "0123456789abcdef0123456789abcdef01234567"
TEXT = f"""# 1. 标题里的 `code` 与 3 不算

本篇基于 **simx 1.0.0**，固定提交 `{SHA}`。1.0 版本号也不算。

**练习 1：** `sx_advance` 会清零 `nprobe` 吗？

答案：默认值是 5，见下。

**2.** 步长减半时误差如何变化？

**3.** 调用 `sx_advance` 两次。

令 $x=3$，`vᵀJᵀf=(Jv)ᵀf` 只是公式。`sx_step` 是 API。

当 vn>0 时分离。这句有 `code` 和数字 9.81。[实现](https://github.com/simx-org/simx/blob/{SHA}/a.h#L1-L2)、[文档](https://github.com/simx-org/simx/blob/{SHA}/b.md)。

| 字段 | 默认值 |
|---|---|
| `a_b` | 0 |
| 纯文字 | 行 |

[表的出处](https://github.com/simx-org/simx/blob/{SHA}/c.h#L3)

- 列表项里的 `item_x`
  跨两行。
"""


def test_model_sentences_carry_offsets_code_links_and_block_kinds():
    lesson = parse_lesson(TEXT)
    s = next(x for x in lesson.sentences if "9.81" in x.text)
    assert TEXT[s.start:s.end].startswith("这句有 `code` 和数字 9.81")
    assert s.code == ("code",)
    cite = next(x for x in lesson.sentences if x.text.startswith("实现"))
    assert len(cite.links) == 2 and cite.links[0].endswith("a.h#L1-L2")
    assert {"heading", "paragraph", "head", "cell", "item"} <= set(lesson.block_kinds)
    # a code span never ends a sentence
    one = parse_lesson("调用 `f(a. b)` 之后。下一句。").sentences
    assert [x.text for x in one] == ["调用 f(a. b) 之后。", "下一句。"]


def test_what_is_and_is_not_a_candidate(dp):  # noqa: F811
    pins = dp.project().pins                       # upstream simx, version 1.0.0
    got = [(u.line, u.text, u.reasons) for u in units(TEXT, pins)]
    texts = [t for _, t, _ in got]
    assert not any("标题" in t for t in texts)                 # heading
    assert not any("固定提交" in t or "版本号" in t for t in texts)   # versions, SHAs
    assert not any("练习" in t for t in texts)                 # question
    assert not any("只是公式" in t for t in texts)              # formula span + $...$
    assert not any(t.startswith("当 vn>0") for t in texts)     # a bound in a condition
    assert ("答案：默认值是 5，见下。", ["number"]) in [(t, r) for _, t, r in got]
    assert any(t == "sx_step 是 API。" for t in texts)
    # the trailing citation belongs to the sentence before it
    (s,) = [x for x in got if "9.81" in x[1]]
    assert s[2] == ["code", "number", "permalink"]
    assert not any(t.startswith("实现") for t in texts)
    # table: header row is no candidate; a body row is one unit with the table's citation
    (row,) = [u for u in units(TEXT, pins) if u.row and "a_b" in u.text]
    assert row.header == ("字段", "默认值") and row.reasons == ["code", "number", "permalink"]
    (plain,) = [u for u in units(TEXT, pins) if u.row and "纯文字" in u.text]
    assert plain.reasons == ["permalink"]           # only through the table's citation
    assert not any(t.startswith("表的出处") for t in texts)
    (item,) = [u for u in units(TEXT, pins) if "item_x" in u.text]
    assert item.line == 24 and item.end_line == 25
    # a bold item number ("**2.**") split off as a sentence of its own is numbering
    assert not any(t.strip() in ("2.", "3.") for t in texts)
    assert ("调用 sx_advance 两次。", ["code"]) in [(t.strip(), r) for _, t, r in got]


def test_fragments_with_markup_cover_their_sentence():
    from verifier.claims.coverage import fragment_offset, unit_of

    us = units(TEXT)
    for frag, want in [("`sx_step` 是", "sx_step"), ("| `a_b` | 0 |", "a_b"),
                       ("跨两行", "item_x")]:
        u = unit_of(us, fragment_offset(frag, TEXT))
        assert u is not None and want in u.text, frag


def test_page_rule_defaults_and_configuration(tmp_path):
    cfg = CoverageConfig()
    assert cfg.excluded("c", "curriculum.md").startswith("index")
    assert cfg.excluded("c", "validation/e1.md").startswith("validation")
    assert cfg.excluded("c", "evidence/e3-validation.md").startswith("validation")
    assert cfg.excluded("c", "e4-validation.md").startswith("validation")
    assert cfg.excluded("c", "state-and-time.md") is None
    (tmp_path / "coverage.toml").write_text(
        'schema = 1\n[exclude]\nindex = ["toc.md"]\n[course.x.exclude]\nvalidation = []\n')
    cfg = load_config(tmp_path)
    assert cfg.excluded("c", "curriculum.md") is None and cfg.excluded("c", "toc.md")
    assert cfg.excluded("x", "validation/e1.md") is None
    assert cfg.excluded("c", "validation/e1.md")
    (tmp_path / "coverage.toml").write_text('schema = 1\n[exclude]\nindex = "toc.md"\n')
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    assert "coverage.toml" in str(e.value.render()) and "3" in str(e.value.render())


def test_excluded_pages_are_never_drafted_or_counted(dp, capsys):  # noqa: F811
    import json

    from verifier.cli.main import main

    guide = dp.lesson.parent / "guide.md"
    guide.write_text("# 指南\n\n调用 `sx_advance` 推进 1 步。\n")
    assert main(["coverage", "--pins", dp.pins, "-q", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [x["lesson"] for x in doc["lessons"]] == ["docs/lesson.md"]
    assert doc["excluded"] == [{"lesson": "demo-atlas/docs/guide.md",
                                "why": "index page (guide.md)"}]
    assert main(["draft", "--pins", dp.pins, "-q", "--format", "json", str(guide)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["lessons"] == [] and d["excluded"][0]["lesson"] == "demo-atlas/docs/guide.md"
    assert main(["coverage", "--pins", dp.pins, "-q"]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith("total: 0 of ")
