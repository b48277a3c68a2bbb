"""The lesson model keeps exact line numbers for every part (own fixture text)."""

from __future__ import annotations

from verifier.lessons import parse_lesson

TEXT = """# 标题 One

第一句。第二句有 `alpha_beta` 和 [链接](other.md)！Third sentence. Fourth;
a code span that `wraps
across` lines, then `gamma_delta` on line four.

| col | `table_cell` |
|---|---|
| x | [ref](https://example.org/a) |

See `mj_thing` [here](https://example.org/b) and `far_span` then text [there](c.md).

```python
x = 1
```

$$a_b + c_d$$ and inline $x_i$ math.

<!-- verifier: ignore next_name -->

Para after the comment. <!-- verifier: ignore one two -->

## Sub
"""


def test_parts_and_lines():
    L = parse_lesson(TEXT)
    assert [(h.level, h.text, h.line) for h in L.headings] == [(1, "标题 One", 1), (2, "Sub", 23)]
    spans = {s.text: s.line for s in L.code_spans}
    assert spans["alpha_beta"] == 3
    assert spans["wraps across"] == 4          # wrapped span: line where it starts
    assert spans["gamma_delta"] == 5           # after the wrap, still exact
    assert spans["table_cell"] == 7
    assert spans["mj_thing"] == 11
    links = {l.href: l for l in L.links}
    assert links["other.md"].line == 3 and links["other.md"].text == "链接"
    assert links["https://example.org/a"].line == 9
    assert links["https://example.org/b"].code_before == "mj_thing"
    assert links["c.md"].code_before is None   # words between span and link
    assert [(b.lang, b.line, b.first_line, b.text) for b in L.code_blocks] == [
        ("python", 13, 14, "x = 1\n")]
    assert [(m.text, m.display, m.line) for m in L.math] == [("a_b + c_d", True, 17),
                                                            ("x_i", False, 17)]


def test_sentences_split_on_chinese_and_english_punctuation():
    L = parse_lesson(TEXT)
    texts = [(s.text, s.line) for s in L.sentences]
    assert ("第一句。", 3) in texts
    assert any(t.startswith("第二句有 alpha_beta 和 链接！") for t, _ in texts)
    assert ("Third sentence.", 3) in texts
    assert ("Fourth;", 3) in texts


def test_suppressions_scope():
    L = parse_lesson(TEXT)
    by = {s.names: s for s in L.suppressions}
    standalone = by[("next_name",)]
    assert standalone.line == 19
    # a comment on its own line applies to the block after it
    assert L.block_lines[standalone.block][0] == 21
    inline = by[("one", "two")]
    assert inline.line == 21 and inline.block == standalone.block


def test_math_underscores_are_not_emphasis():
    L = parse_lesson("Text $a_b$ and $c_d$ end.\n")
    assert [m.text for m in L.math] == ["a_b", "c_d"]
    assert L.sentences[0].text == "Text $a_b$ and $c_d$ end."
