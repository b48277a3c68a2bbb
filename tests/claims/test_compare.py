"""verifier/claims/compare.py: values and expressions compared by meaning, one module
for every kind."""

from __future__ import annotations

import pytest

from verifier.claims.compare import (number_value, parse_expression, same_expression, same_list,
                                     same_name, same_value)
from verifier.claims.notation import Mapping, Notation, Tracker

SAME = [
    # (lesson, source, source language)
    ("1/30", "1.0 / 30", "python"),
    ("1/30", "1.0 / 30", "cpp"),
    ("0x1F", "31", "c"),
    ("31", "0x1fu", "c"),
    ("-0.0", "0.0", "python"),
    ("1e-3", "0.001", "python"),
    ("0.001", "1e-3f", "cpp"),
    ("1000", "1'000", "cpp"),
    ("1000", "1_000", "python"),
    (0.0, "0.f", "cpp"),
    (1, "1.0", "python"),
    ("0xFFFFFFFF", "4294967295", "python"),
    ("010", "8", "c"),                       # C octal
    ("2**10", "1024", "python"),
    ("1 << 4", "16", "c"),
    (True, "true", "cpp"),
    (False, "False", "python"),
    ("rgb", "'rgb'", "python"),              # the lesson wrote the string's content
    ('"rgb"', "'rgb'", "python"),
    (["a", "b"], '("a", "b")', "python"),
    ("[0, 0, 0]", "{0.0, 0, 0}", "cpp"),     # brace initialiser: a sequence
    ("{2, 1}", "{1, 2}", "python"),          # set literal: no order
    ("A | B | C", "C | A | B", "c"),         # flag composition: a set
    ("Eigen::Vector3d::Zero()", "Eigen::Vector3d::Zero( )", "cpp"),
    ("wp.vec3(0)", "wp.vec3(0.0)", "python"),
    ("field(default_factory=list)", "field(default_factory = list)", "python"),
    ("dict(a=1, b=2)", "dict(b=2, a=1.0)", "python"),
]

DIFFERENT = [
    ("1/30", "1/3", "python"),
    ("1/30", "0.0333", "python"),
    ("0.5", "1/30", "c"),
    ("1/31", "1/30", "c"),
    ("31", "0x1E", "c"),
    ("[1, 2]", "(2, 1)", "python"),           # sequences keep their order
    ("A | B", "A | C", "c"),
    ("A | B", "A & B", "c"),                  # operators are never rewritten
    (True, "False", "python"),
    ("rgb", "'rgba'", "python"),
    ("wp.vec3(0)", "wp.vec4(0)", "python"),
    ("dict(a=1)", "dict(a=2)", "python"),
]


@pytest.mark.parametrize("lesson,source,lang", SAME)
def test_same_by_meaning(lesson, source, lang):
    assert same_value(lesson, source, lang), (lesson, source)


@pytest.mark.parametrize("lesson,source,lang", DIFFERENT)
def test_different_meaning(lesson, source, lang):
    assert not same_value(lesson, source, lang), (lesson, source)


def test_c_integer_division_is_the_sources_rule():
    # the source's C `1/30` is 0; the lesson's `1/30` is a thirtieth; same spelling still agrees
    assert not same_value("1/30", "1/30 + 0", "c")
    assert same_value("0", "1/30", "c")
    assert same_value("1/30", "1/30", "c")
    assert same_value("1/30", "1 / 30.0", "c")


def test_number_literals():
    assert number_value("0x1F") == (31, True)
    assert number_value("1.5e-3f")[0] * 1000 == 1.5
    assert number_value("1.0f")[1] is False and number_value("30u") == (30, True)
    assert number_value("abc") is None and number_value("1.2.3") is None


@pytest.mark.parametrize("lesson,source,lang,ok", [
    ("R_SW*(A_WS.translational()-g)", "R_SW * (A_WS.translational() - g)", "cpp", True),
    ("x * (1/30)", "x * (1.0 / 30)", "cpp", True),        # constant sub-expressions folded
    ("x * 1/30", "x * (1.0 / 30)", "cpp", False),         # grouping is meaning
    ("a - b", "b - a", "python", False),
    ("x / 2", "x / 2.0", "python", True),
    ("f('a')", 'f("a")', "python", True),
    ("-0.0 + y", "0.0 + y", "python", True),
])
def test_expressions(lesson, source, lang, ok):
    node = parse_expression(lang, source)
    assert bool(same_expression(lang, node, lesson)) is ok


NT = Notation(names=(Mapping("g_W", "gravity_vector", "n.toml:2"),
                     Mapping("r_W", "p_BS_W", "n.toml:3")),
              receivers=(Mapping("", "self.", "n.toml:4", "receiver"),))


def test_notation_renames_names_only_where_needed():
    t = Tracker(NT)
    node = parse_expression("cpp", "A_WB.Shift(p_BS_W, V_WB.rotational())")
    m = same_expression("cpp", node, "A_WB.Shift(r_W,V_WB.rotational())", t)
    assert m and [u.lesson for u in m.used] == ["r_W"] and list(t.used_list()) == list(m.used)
    t2 = Tracker(NT)
    assert same_expression("cpp", node, "A_WB.Shift(p_BS_W, V_WB.rotational())", t2)
    assert t2.used_list() == []                          # literal match: nothing used


def test_receivers_may_be_left_out_in_front_of_a_name_only():
    node = parse_expression("python", "int(time * self.fps)")
    t = Tracker(NT)
    assert same_expression("python", node, "int(time * fps)", t)
    assert [u.kind for u in t.used_list()] == ["receiver"]
    assert not same_expression("python", node, "int(self.time * fps)", Tracker(NT))
    assert not same_expression("python", node, "int(time + fps)", Tracker(NT))
    other = parse_expression("python", "int(time * cfg.fps)")
    assert not same_expression("python", other, "int(time * fps)", Tracker(NT))


def test_notation_in_names_and_lists():
    assert same_name("g_W", "gravity_vector", Tracker(NT))
    assert not same_name("g_W", "gravity", Tracker(NT))
    assert not same_name("g_W", "gravity_vector")          # no table, no rename
    ok = same_list(["body", "g_W"], ["body", "gravity_vector"], "cpp", Tracker(NT), names=True)
    assert ok and [u.lesson for u in ok.used] == ["g_W"]
    assert not same_list(["g_W", "body"], ["body", "gravity_vector"], "cpp", Tracker(NT),
                         names=True)
    assert same_list(["g_W", "body"], ["body", "gravity_vector"], "cpp", Tracker(NT),
                     mode="set", names=True)
    assert same_list(["a", "c"], ["a", "b", "c"], None, None, mode="subsequence")
    assert not same_list(["c", "a"], ["a", "b", "c"], None, None, mode="subsequence")


def test_values_with_names_go_through_notation_but_values_never_do():
    assert same_value("g_W", "gravity_vector", "cpp", Tracker(NT))
    assert same_value("-g_W", "-gravity_vector", "cpp", Tracker(NT))
    assert not same_value("g_W", "-gravity_vector", "cpp", Tracker(NT))
    assert not same_value("2 * g_W", "3 * gravity_vector", "cpp", Tracker(NT))
