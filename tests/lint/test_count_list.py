"""count-list (VL113): a sentence that states how many names it lists, and lists
another number of them."""

from __future__ import annotations

import pytest

from tests.lint.conftest import lint
from verifier.lint.rules.count_list import mismatches

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.mark.parametrize("text, want", [
    ("`demo` 的公开出口列出 5 类：Alpha、Beta、Gamma、Delta。", [(5, 4)]),
    ("`demo` 的公开出口列出 4 类：Alpha、Beta、Gamma、Delta。", []),
    ("模式有四种：FAST、SAFE 和 SLOW。", [(4, 3)]),
    ("FAST、SAFE、SLOW 两种模式可选。", [(2, 3)]),
    ("The three fields: item_count, item_pos, time, mode.", [(3, 4)]),
    ("The four modes: FREE, TRACKING, FIXED and USER.", []),
    ("`pos` 与 `vel` 两部分。", []),
    # not the whole: a prefix, a bound, an open list, a description, a slash
    ("前 3 个：a、b、c、d。", []),
    ("最多 2 个：a、b、c。", []),
    ("4 类：Alpha、Beta 等。", []),
    ("3 类：Alpha（旧）、Beta、Gamma、Delta。", []),
    ("2 个：pos/vel、acc。", []),
])
def test_a_stated_count_against_the_names_listed(text, want):
    assert [(n, got) for n, got, _ in mismatches(text)] == want


def test_a_wrong_count_is_a_warning_on_its_line(demo):
    p = demo.write("count.md", "# 计数\n\n本篇无关。\n\n`demoMode` 有三个取值：DEMO_MODE_FAST、"
                   "DEMO_MODE_SAFE。\n\n`demoState` 有 3 个字段：time、item_count、item_pos。\n")
    fs = [f for f in lint(demo.project(), [p]) if f.rule == "count-list"]
    assert [(f.line, f.severity.value, f.data["stated"], f.data["listed"]) for f in fs] == \
        [(5, "warning", 3, 2)]
