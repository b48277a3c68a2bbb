"""`verifier draft` on a fixture lesson (mixed Chinese/English, shaped like the
course's lessons) against the hand-written `simx` upstream: every proposal kind,
its locator, its expected value read from the sentence, and its verdict when
checked (sentences that are wrong at the pin come out `diverged`)."""

from __future__ import annotations

import json

import pytest

from tests.draft.draft_project import dp  # noqa: F401  (fixture)
from verifier.claims.check import run_check
from verifier.draft import draft_lessons, write
from verifier.draft.fragment import MAX_LEN


def _draft(dp):  # noqa: F811
    p = dp.project()
    (d,), excluded = draft_lessons(p, p.lessons())
    assert excluded == []
    return d


def _by(d, kind, symbol, **opts):
    hits = [x for x in d.proposals if x.kind == kind and x.symbol == symbol
            and all(x.options.get(k) == v for k, v in opts.items())]
    assert hits, f"no {kind} proposal for {symbol} {opts}: " + ", ".join(
        f"{x.kind}:{x.symbol}" for x in d.proposals)
    return hits


# (kind, symbol, options, path, expected, verdict)
CASES = [
    ("symbol", "sx_readProbe", {}, "include/simx/simx.h", True, "verified"),
    ("call_order", "sx_advance", {"match": "subsequence"}, "src/engine/sx_forward.c",
     ["sx_advance1", "sx_advance2"], "verified"),
    ("call_order", "sx_advance", {"match": "subsequence"}, "src/engine/sx_forward.c",
     ["sx_advance2", "sx_advance1"], "diverged"),          # the sentence has the order wrong
    ("members", "sxData_", {"match": "subset"}, "include/simx/sxdata.h",
     ["nbuffer", "nprobe", "pos", "vel"], "verified"),
    ("enum", "sxtStepper_.sxSTEP_SEMI", {}, "include/simx/sxtype.h", 5, "verified"),
    ("enum", "sxtPart_.sxNPART", {}, "include/simx/sxtype.h", 6, "diverged"),   # it is 5
    ("enum", "sxtPart_.sxPART_DYNAMICS", {"compare": "composition"}, "include/simx/sxtype.h",
     ["sxPART_POS", "sxPART_VEL", "sxPART_ACT", "sxPART_MEMORY"], "verified"),
    ("members", "pysimx.sensors", {"match": "subset"}, "pysimx/sensors.py",
     ["ProbeCamera", "ProbeContact", "ProbeIMU"], "verified"),
    ("members", "pysimx.sensors", {"match": "count"}, "pysimx/sensors.py", 3, "verified"),
    ("signature", "ProbeIMU", {"match": "names"}, "pysimx/_src/sensors/probe_imu.py",
     ["sites", "request_state_attributes"], "verified"),
    ("default", "ProbeIMU.__init__", {"param": "request_state_attributes"},
     "pysimx/_src/sensors/probe_imu.py", True, "verified"),
    ("default", "ClearValues.clear_depth", {}, "pysimx/_src/sensors/probe_camera.py", 1.0,
     "diverged"),                                           # the pin says 0.0
    ("default", "ClearValues.clear_color", {}, "pysimx/_src/sensors/probe_camera.py", 0,
     "verified"),                                           # a table row under 默认值
    ("default", "ClearValues.clear_index", {}, "pysimx/_src/sensors/probe_camera.py",
     "0xFFFFFFFF", "verified"),
    ("default", "GyroProbe.GyroProbe", {"param": "scale"}, "systems/sensors/gyro_probe.h", 2.0,
     "diverged"),                                           # the pin says 1.0
    ("symbol", "GyroProbe.Reset", {}, "bindings/pysimx/systems/sensors_py_gyro.cc", False,
     "verified"),                                           # "没有 `Reset`": absent
]


def test_each_proposal_kind_locator_expected_and_verdict(dp):  # noqa: F811
    d = _draft(dp)
    p = dp.project()
    write.append(p, d)
    verdicts = {r.id.rsplit("/", 1)[-1]: r for r in run_check(dp.project())}
    for kind, symbol, opts, path, expected, verdict in CASES:
        hits = [x for x in _by(d, kind, symbol, **opts) if x.expected == expected]
        assert hits, (kind, symbol, [x.expected for x in _by(d, kind, symbol, **opts)])
        x = hits[0]
        assert x.path == path and x.upstream == "simx"
        r = verdicts[x.id]
        assert r.verdict.value == verdict, (x.id, r.verdict, r.message)
        assert r.review == "draft"


def test_no_proposal_for_notation_headings_questions_or_versions(dp):  # noqa: F811
    d = _draft(dp)
    frags = " ".join(x.fragment for x in d.proposals)
    text = dp.lesson.read_text()
    for absent in ("x=(p_A", "练习 1", "D1 ·", "simx 1.0.0"):
        assert absent not in frags
    assert not any(x.kind == "expression" for x in d.proposals)
    # every fragment is unique in the lesson and inside its own sentence's line
    for x in d.proposals:
        assert text.count(x.fragment) == 1, x.fragment
        assert 3 <= len(x.fragment) <= MAX_LEN


def test_runtime_skeleton_needs_a_person(dp):  # noqa: F811
    d = _draft(dp)
    (rt,) = [x for x in d.proposals if x.kind == "runtime"]
    assert rt.person and rt.expected == 0.002 and rt.runtime["expected"] == 0.002
    assert "NotImplementedError" in rt.runtime["code"] and "时间戳" in rt.runtime["code"]
    p = dp.project()
    write.append(p, d)
    r = next(r for r in run_check(dp.project()) if r.id.endswith(rt.id))
    assert r.verdict.value == "unavailable" and r.review == "draft"


def test_every_uncovered_sentence_gets_a_proposal_here(dp):  # noqa: F811
    d = _draft(dp)
    assert d.candidates == d.uncovered >= 15
    assert d.drafted == d.uncovered, d.skipped


def test_drafts_never_cover_and_covered_sentences_are_not_drafted_again(dp):  # noqa: F811
    from verifier.claims.coverage import run_coverage

    d = _draft(dp)
    p = dp.project()
    write.append(p, d)
    (cov,) = run_coverage(dp.project())
    assert cov.covered == 0 and cov.drafts == len(d.proposals) and cov.drafted == cov.candidates
    again = _draft(dp)
    assert again.proposals == [] and again.uncovered == 0


@pytest.mark.parametrize("fmt", ["json"])
def test_cli_json_prints_without_writing(dp, capsys, fmt):  # noqa: F811
    from verifier.cli.main import main

    assert main(["draft", "--pins", dp.pins, "-q", "--format", fmt, str(dp.lesson)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (les,) = doc["lessons"]
    assert les["course"] == "demo-atlas" and les["lesson"] == "docs/lesson.md"
    assert les["drafted"] == les["uncovered"] == doc["summary"]["drafted"]
    first = les["proposals"][0]
    assert {"id", "fragment", "kind", "review", "line", "sentence", "needs_person"} <= set(first)
    assert first["review"] == "draft"
    assert not dp.claim_file.exists()
    # by <course>/<path> too
    assert main(["draft", "--pins", dp.pins, "-q", "--format", "json",
                 "demo-atlas/docs/lesson.md"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == doc["summary"]


def test_cli_text_and_usage_errors(dp, capsys):  # noqa: F811
    from verifier.cli.main import main

    assert main(["draft", "--pins", dp.pins, "-q", str(dp.lesson)]) == 0
    out = capsys.readouterr().out
    assert "sx-advance-call-order" in out and out.rstrip().splitlines()[-1].startswith("drafts:")
    assert main(["draft", "--pins", dp.pins, "-q", "--write", "--format", "json",
                 str(dp.lesson)]) == 2
    assert main(["draft", "--pins", dp.pins, "-q", "nope/docs/x.md"]) == 2


def test_a_condition_is_no_default_and_parameters_keep_the_sentence_order(tmp_path, monkeypatch):
    # `X=False` 时 / when `X=False` names a non-default setting (the default is the other
    # half of the sentence); parameters named as a slash list are checked as names (the
    # sentence asserts no order) unless the sentence says they come in order
    from tests.draft.draft_project import make_project

    text = ("# 传感器\n\n"
            "| 对象 | 创建 | 说明 |\n|---|---|---|\n"
            "| `ProbeIMU` | `ProbeIMU.update(state)` | 默认检查；`check=False` 时跳过 |\n"
            "| `World` | `make_world()` | 默认无重力；when `dt=0.01` the step is longer |\n"
            "| `Probe` | `ProbeIMU(world, sites=[0], request_state_attributes=False)` 与默认探头共享缓冲 | - |\n\n"
            "`make_world` 的 `gravity/dt` 两个参数都可以省略。\n\n"
            "`make_world` 的参数依次为 `gravity`、`dt`。\n")
    dpx = make_project(tmp_path, monkeypatch, lesson_text=text)
    d = _draft(dpx)
    assert not [x for x in d.proposals if x.kind == "default"], [
        (x.symbol, x.expected) for x in d.proposals if x.kind == "default"]
    sigs = [x for x in d.proposals if x.kind == "signature" and x.symbol == "make_world"]
    assert [(x.expected, x.options["match"]) for x in sigs] == [
        (["gravity", "dt"], "names"), (["gravity", "dt"], "subset")]   # as written
    p = dpx.project()
    write.append(p, d)
    got = {r.id: r.verdict.value for r in run_check(dpx.project())}
    assert [got[next(i for i in got if i.endswith(x.id))] for x in sigs] == [
        "verified", "diverged"]          # the pin has (dt, gravity): only the order is wrong


def test_a_long_unique_code_span_gives_a_fragment_within_the_limit():
    from verifier.draft.fragment import choose

    span = "`" + "very_long_identifier_" * 5 + "name`"
    text = f"前文。\n\n这里 {span} 的默认值是 0。\n\n后文 {span[:30]}。\n"
    lo = text.index("这里")
    frag = choose(text, lo, text.index("\n\n", lo), anchor=span.strip("`"))
    assert frag is not None and len(frag) <= MAX_LEN and text.count(frag) == 1
