"""The assertion proposers on the `asim` fixture (tests/draft/assert_project.py): each
reads one kind of assertion from the sentence (Chinese and English, prose, tables and
code spans), grounds it in the pinned fixture source, and proposes a claim whose
`expected` comes from the sentence; a sentence that is right at the pin checks
`verified`, one that is wrong `diverged`. Plus grounding by context (an ambiguous
binding is reported, not guessed), fragments cut at word boundaries, and the F14 rule
(a sentence that only cites a file gets no claim)."""

from __future__ import annotations

import re

import pytest

from tests.draft.assert_project import make_project

LESSON = """# A1 · 断言的读取

本篇基于 asim 1.0.0，固定提交 `PINSHA`。

## 1. 默认值

`Solver` 的 `iterations` 默认 2。

`Solver` 的 `relaxation` 默认为 0.5，比常见值小。

By default the `Solver` uses `enable_restitution=True`.

`Solver` 默认 `mode="average"`。

## 2. 值与组成

`asMAXPROBE` 的值为 16。

`asNSTAGE` 是 5。

| 组合 | 组成 | 说明 |
|---|---|---|
| `asPART_MOTION` | pos、vel、act | 运动状态 |
| `asPART_ALL` | clock + MOTION | 全部状态 |

## 3. 尺寸

`asModel` 的数组：

| 字段 | 尺寸 | 含义 |
|---|---|---|
| `pos0` | npos | 参考位置 |
| `act_gear` | nact × 3 | 传动 |

`act_gear` 为展平的 2×3 矩阵。

旧笔记说 `act_gear` 是 3×3 矩阵。

## 4. 类型

`RayProbe` 的 `hits` 是 `(N,)` 的 vec3，`depths` 为 float32。

`RayProbe` 的 `ids` 是 int64 数组。

## 5. 顺序

`as_integrate(m, pos, vel, dt)` 原位更新位置。

`as_ray(m, d, vec, pnt, hit)` 返回命中。

`as_integrate(model, q, v, dt)` 用课程自己的变量名。

`as_integrate(model, q, dt, v)` 把步长写在第三位。

射线字段按 `dist dir origin point` 的顺序排列。

另一处把字段顺序写成 `dist origin dir point`。

## 6. 关键字

`cast_rays(model, origins, directions, world_ids=ids)` 查询所有射线。

`RayProbe(model, sites=s, max_distance=5.0)` 创建探针。

## 7. 归属

`State` 保存时变数组，`Control` 保存控制输入。

`state.body_f` 是外力缓冲。

`control.body_f` 由控制器写入。

`asData.pos0` 保存参考位置。

`State` 与 `Control` 的 `reset` 都会清空数组。

## 8. 缺失

Python 绑定的 `TiltProbe` 没有 `Reset`。

C++ 的 `TiltProbe` 没有 `gain`。

## 9. 端口

| 系统 | 输入 | 输出 |
|---|---|---|
| `TiltProbe` | body poses、spatial velocities、spatial accelerations | 倾角 |

`TiltProbe` 的输入依次是 spatial velocities、body poses。

## 10. 调用顺序

`as_step` 依次调用 `as_position`、`as_velocity`、`as_acceleration`。

`as_step` 先调用 `as_velocity` 再调用 `as_position`。

## 11. 引用

这一点在头文件里写得很清楚，见[这里](https://github.com/asim-org/asim/blob/PINSHA/include/asim/asmodel.h#L6-L13)。

## 13. 所在对象

| 字段 | 所在对象 | 含义 |
|---|---|---|
| `act_gear` | asModel | 传动比 |
| `pos0` | asData | 参考位置 |

## 14. 默认常量

`Recorder` 记录状态的一部分。

默认记录的部分为 `asPART_MOTION`。

旧版说明写默认记录的部分为 `asPART_ALL`。

## 15. 六维分量

`as_bodyVelocity` 输出角速度在前、线速度在后。

旧笔记说 `as_bodyVelocity` 的前三项为线速度。

## 16. 单独的关键字

`RayProbe` 逐条更新命中。构造时传 `verbose=True` 打印每一步。

`RayProbe` 也可以安静运行。构造时传 `verbos=False` 关掉输出。

`RayProbe` 还有颜色。构造时传 `colour=1` 改变颜色。

## 12. 段落引用

批量查询逐条写入命中。默认 `fast=True`。结果写入缓冲。[查询](https://github.com/asim-org/asim/blob/PINSHA/pyasim/_src/sensors/ray_probe.py#L20-L22)

另一种写法逐条写入。它默认 `fast=False`。结果同样写入缓冲。[查询](https://github.com/asim-org/asim/blob/PINSHA/pyasim/_src/sensors/ray_probe.py#L20-L22)
"""


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    from verifier.claims.check import run_check
    from verifier.draft import write

    mp = pytest.MonkeyPatch()
    try:
        ap = make_project(tmp_path_factory.mktemp("assert"), mp, LESSON)
        d = ap.draft()
        write.append(ap.project(), d)
        verdicts = {r.id.rsplit("/", 1)[-1]: r for r in run_check(ap.project())}
        yield ap, d, verdicts
    finally:
        mp.undo()


def _line(text: str) -> int:
    return next(i for i, ln in enumerate(LESSON.splitlines(), 1) if text in ln)


def _at(d, where: str, kind: str):
    line = _line(where)
    got = [p for p in d.proposals if p.line == line and p.kind == kind]
    assert got, (where, kind, [(p.kind, p.symbol, p.expected) for p in d.proposals
                               if p.line == line])
    return got


# (where in the lesson, kind, symbol, options subset, expected, verdict)
CASES = [
    ("`iterations` 默认 2", "default", "Solver.__init__", {"param": "iterations"}, 2,
     "verified"),
    ("`relaxation` 默认为 0.5", "default", "Solver.__init__", {"param": "relaxation"}, 0.5,
     "diverged"),                                       # the pin says 0.8
    ("By default the `Solver`", "default", "Solver.__init__",
     {"param": "enable_restitution"}, True, "diverged"),  # English; the pin says False
    ('默认 `mode="average"`', "default", "Solver.__init__", {"param": "mode"}, '"average"',
     "verified"),                                       # a quoted string
    ("`asMAXPROBE` 的值为 16", "enum", "asMAXPROBE", {}, 16, "verified"),
    ("`asNSTAGE` 是 5", "enum", "asNSTAGE", {}, 5, "diverged"),   # it is 4
    ("| `asPART_MOTION` |", "enum", "asPart_.asPART_MOTION", {"compare": "composition"},
     ["asPART_POS", "asPART_VEL", "asPART_ACT"], "verified"),
    ("| `asPART_ALL` |", "enum", "asPart_.asPART_ALL", {"compare": "composition"},
     ["asPART_CLOCK", "asPART_MOTION"], "diverged"),     # CTRL is missing
    ("| `pos0` |", "doc", "asModel_.pos0", {}, "(npos x", "verified"),
    ("| `act_gear` |", "doc", "asModel_.act_gear", {}, "(nact x 3)", "diverged"),
    # a matrix per row in prose: the shape's second dimension
    ("`act_gear` 为展平的 2×3 矩阵", "doc", "asModel_.act_gear", {}, " x 6)", "verified"),
    ("`act_gear` 是 3×3 矩阵", "doc", "asModel_.act_gear", {}, " x 9)", "diverged"),
    ("`hits` 是 `(N,)` 的 vec3", "type", "RayProbe.hits", {}, "vec3", "verified"),
    ("`hits` 是 `(N,)` 的 vec3", "type", "RayProbe.depths", {}, "float32", "verified"),
    ("`ids` 是 int64", "type", "RayProbe.ids", {}, "int64", "diverged"),  # int32
    ("`as_integrate(m, pos, vel, dt)`", "signature", "as_integrate", {"match": "subset"},
     ["m", "pos", "vel", "dt"], "verified"),
    ("`as_ray(m, d, vec, pnt, hit)`", "signature", "as_ray", {"match": "subset"},
     ["m", "d", "vec", "pnt", "hit"], "diverged"),       # pnt comes before vec
    # every parameter given positionally: a name fixes its place (`at`), even alone
    ("`as_integrate(model, q, v, dt)`", "signature", "as_integrate", {"match": "subset"},
     [{"name": "dt", "at": 4}], "verified"),
    ("`as_integrate(model, q, dt, v)`", "signature", "as_integrate", {"match": "subset"},
     [{"name": "dt", "at": 3}], "diverged"),
    ("`dist dir origin point` 的顺序", "members", "asRayField_", {"match": "subsequence"},
     ["asRAY_DIST", "asRAY_DIR", "asRAY_ORIGIN", "asRAY_POINT"], "verified"),
    ("`dist origin dir point`", "members", "asRayField_", {"match": "subsequence"},
     ["asRAY_DIST", "asRAY_ORIGIN", "asRAY_DIR", "asRAY_POINT"], "diverged"),
    ("`cast_rays(model", "signature", "cast_rays", {"match": "names"}, ["world_ids"],
     "verified"),
    ("`RayProbe(model, sites=s", "signature", "RayProbe", {"match": "names"},
     ["sites", "max_distance"], "diverged"),             # the keyword is max_dist
    ("`state.body_f` 是外力", "members", "State", {"match": "subset"}, ["body_f"],
     "verified"),
    ("`control.body_f` 由控制器", "members", "Control", {"match": "subset"}, ["body_f"],
     "diverged"),                                       # a member of State, not Control
    ("`asData.pos0`", "members", "asData_", {"match": "subset"}, ["pos0"], "diverged"),
    ("Python 绑定的 `TiltProbe` 没有 `Reset`", "symbol", "TiltProbe.Reset", {}, False,
     "verified"),                                       # the binding has no Reset
    ("C++ 的 `TiltProbe` 没有 `gain`", "symbol", "TiltProbe.gain", {}, False,
     "diverged"),                                       # it has
    ("| `TiltProbe` | body poses", "call_order", "TiltProbe.TiltProbe",
     {"arg": 0}, ["body_poses", "body_spatial_velocities", "body_spatial_accelerations"],
     "verified"),
    ("输入依次是 spatial velocities、body poses", "call_order",
     "TiltProbe.TiltProbe", {"arg": 0},
     ["body_spatial_velocities", "body_poses"], "diverged"),
    ("`as_step` 依次调用", "call_order", "as_step", {"match": "subsequence"},
     ["as_position", "as_velocity", "as_acceleration"], "verified"),
    ("`as_step` 先调用 `as_velocity`", "call_order", "as_step", {"match": "subsequence"},
     ["as_velocity", "as_position"], "diverged"),
    # a default stated by its constant alone: the one parameter of the context's
    # callables whose default is a constant of the same enum
    ("默认记录的部分为 `asPART_MOTION`", "default", "Recorder.record", {"param": "parts"},
     "asPART_MOTION", "verified"),
    ("旧版说明写默认记录的部分为 `asPART_ALL`", "default", "Recorder.record",
     {"param": "parts"}, "asPART_ALL", "diverged"),
    # which part of a 6-vector comes first, against the order the doc comment states
    ("`as_bodyVelocity` 输出角速度在前", "doc", "as_bodyVelocity", {"match": "order"},
     ["angular", "linear"], "verified"),
    ("`as_bodyVelocity` 的前三项为线速度", "doc", "as_bodyVelocity", {"match": "order"},
     ["linear", "angular"], "diverged"),
    # a bare keyword: of the one class the context names, when it takes it or a slip of it
    ("构造时传 `verbose=True`", "signature", "RayProbe", {"match": "names"}, ["verbose"],
     "verified"),
    ("构造时传 `verbos=False`", "signature", "RayProbe", {"match": "names"}, ["verbos"],
     "diverged"),
    # a table's owner column says which object holds the row's fields
    ("| `act_gear` | asModel |", "members", "asModel_", {"match": "subset"}, ["act_gear"],
     "verified"),
    ("| `pos0` | asData |", "members", "asData_", {"match": "subset"}, ["pos0"],
     "diverged"),                                       # pos0 is asModel's
    # a parameter of the one callable the paragraph cites (in another of its sentences)
    ("默认 `fast=True`", "default", "cast_rays", {"param": "fast"}, True, "verified"),
    ("它默认 `fast=False`", "default", "cast_rays", {"param": "fast"}, False, "diverged"),
]


@pytest.mark.parametrize("where, kind, symbol, opts, expected, verdict", CASES,
                         ids=[f"{c[1]}:{c[0][:24]}" for c in CASES])
def test_each_assertion_is_read_grounded_and_decided(checked, where, kind, symbol, opts,
                                                      expected, verdict):
    ap, d, verdicts = checked
    got = [p for p in _at(d, where, kind) if p.symbol.endswith(symbol)
           and all(p.options.get(k) == v for k, v in opts.items())]
    assert got, [(p.symbol, p.options, p.expected) for p in _at(d, where, kind)]
    p = next((x for x in got if x.expected == expected), got[0])
    assert p.expected == expected
    assert p.says, "a draft names the spans of the sentence it was read from"
    raw = LESSON.splitlines()[p.line - 1]
    for sp in p.says:
        text = sp["text"] if isinstance(sp, dict) else sp
        assert text in raw, (text, raw)
    assert verdicts[p.id].verdict.value == verdict, verdicts[p.id].message


def test_an_ambiguous_binding_is_reported_not_guessed(checked):
    _, d, _ = checked
    line = _line("`reset` 都会清空数组")
    # the bare `reset` is bound to neither class (no `symbol` claim on one of them);
    # "`Control` 的 `reset`" itself attributes it to Control, which holds
    assert not [p for p in d.proposals if p.line == line and p.kind == "symbol"
                and (p.symbol or "").endswith("reset")]
    notes = [why for ln, why in d.ambiguous if ln == line]
    assert notes and "`State`" in notes[0] and "`Control`" in notes[0]


def test_a_sentence_that_only_cites_a_file_gets_no_claim(checked):
    # F14: the sentence names nothing of what it cites; a claim on the cited
    # definition would check nothing the sentence says
    _, d, _ = checked
    assert not [p for p in d.proposals if p.line == _line("头文件里写得很清楚")]


def test_fragments_are_whole_words_and_whole_code_spans(checked):
    _, d, _ = checked
    text = LESSON.replace("PINSHA", "x")
    for p in d.proposals:
        f = p.fragment
        i = text.find(f)
        assert i >= 0, f
        before, after = text[i - 1:i], text[i + len(f):i + len(f) + 1]
        word = re.compile(r"[A-Za-z0-9_]")
        assert not (word.match(before or " ") and word.match(f[:1])), f
        assert not (word.match(after or " ") and word.match(f[-1:])), f
        assert f.count("`") % 2 == 0, f


# --------------------------------------------------------------------------- property
# A proposal's `expected` is read from the sentence: writing another value in the same
# sentence changes the proposal accordingly (never the source's value).

from hypothesis import given, settings, strategies as st  # noqa: E402

TEMPLATES = {
    "default": ("`Solver` 的 `iterations` 默认 {v}。", st.integers(0, 10 ** 6),
                lambda p: p.kind == "default", lambda v: v),
    "enum": ("`asNSTAGE` 是 {v}。", st.integers(0, 999), lambda p: p.kind == "enum",
             lambda v: v),
    "type": ("`RayProbe` 的 `hits` 是 `(N,)` 的 vec{v}。", st.sampled_from([2, 3, 4]),
             lambda p: p.kind == "type", lambda v: f"vec{v}"),
    "order": ("`as_ray(m, d, {v})` 返回命中。",
              st.permutations(["pnt", "vec", "hit"]).map(", ".join),
              lambda p: p.kind == "signature", lambda v: ["m", "d", *v.split(", ")]),
    "keyword": ("`RayProbe(model, {v}=1.0)` 创建探针。",
                st.sampled_from(["max_dist", "max_distance", "verbose", "sites", "radius"]),
                lambda p: p.kind == "signature" and p.options.get("match") == "names",
                lambda v: [v]),
}


@pytest.fixture(scope="module")
def blank(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    try:
        yield make_project(tmp_path_factory.mktemp("assert-prop"), mp, "# x\n\n占位。\n")
    finally:
        mp.undo()


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_expected_follows_the_sentence(blank, monkeypatch, name):
    template, values, pick, want = TEMPLATES[name]
    blank.enter(monkeypatch)

    @settings(max_examples=6, deadline=None, derandomize=True)
    @given(values)
    def check(v):
        blank.rewrite(f"# x\n\n## 1\n\n{template.format(v=v)}\n")
        got = [p for p in blank.draft().proposals if pick(p)]
        assert got, (name, v)
        assert want(v) in [p.expected for p in got], (name, v, [p.expected for p in got])

    check()


def test_a_bare_keyword_far_from_every_parameter_is_left_alone(checked):
    _, d, _ = checked
    line = _line("构造时传 `colour=1`")
    assert not [p for p in d.proposals if p.line == line and p.kind == "signature"]
