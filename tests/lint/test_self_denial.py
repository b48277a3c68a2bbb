"""self-denial (VL114): a sentence that asserts a term and denies the same term."""

from __future__ import annotations

import pytest

from tests.lint.conftest import lint
from verifier.lint.rules.self_denial import denials

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.mark.parametrize("text, want", [
    ("变换是 world→camera，不是 world→camera 外参。", ["world→camera"]),
    ("维度是 `2*nv+na`，不是 `2*nv+na`。", ["2*nv+na"]),
    ("It reads qpos, not qpos.", ["qpos"]),
    ("用 B→A 而非 B->A。", ["B→A"]),
    # the two sides differ, or the term carries no name
    ("变换是 camera→world，不是 world→camera 外参。", []),
    ("维度是 `2*nv+na`，不是 `2*nq+na`。", []),
    ("它不是 body ID，不是 body ID。", []),
    ("这一步是必要的，不是必要的。", []),
])
def test_a_term_asserted_and_denied(text, want):
    assert denials(text) == want


def test_a_self_denial_is_a_warning_on_its_line(demo):
    p = demo.write("deny.md", "# 否定\n\n本篇无关。\n\n`demo_step` 推进 `item_pos`，不是 `item_pos`。\n\n"
                   "`demo_step` 推进 `item_pos`，不是 `time`。\n")
    fs = [f for f in lint(demo.project(), [p]) if f.rule == "self-denial"]
    assert [(f.line, f.severity.value, f.target) for f in fs] == [(5, "warning", "item_pos")]
