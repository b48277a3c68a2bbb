"""The shipped claims whose lessons use their own notation, on real pinned code.

Drake `systems/sensors/accelerometer.{h,cc}` (pinned blobs found in a local snapshot; skips
without one) and Newton `viewer_usd.py` (pinned wheel): the lessons write `r_W`, `g_W`,
`gravity_vector` and `int(time * fps)` where the source spells `p_BS_W`,
`gravity_vector`/`gravity_vector_` and `int(time * self.fps)`. Through the notation tables
(`claims/drake-atlas/inertial-force-sensing.toml`, `claims/newton-atlas/notation.toml`)
they verify, naming both spellings; the same claims with a real error in the value (an
operator, an operand, a factor, a parameter order) still diverge.
"""

from __future__ import annotations

import dataclasses

import pytest

from verifier.claims.check import check_one
from verifier.claims.loader import load_claims
from verifier.results import Verdict

DRAKE = {
    "drake-atlas/inertial-force-sensing/accelerometer-shift": [
        "A_WB.Shift(r_W, V_WB.translational())",         # wrong operand
        "A_WB.Shift(V_WB.rotational(), r_W)",            # swapped arguments
    ],
    "drake-atlas/inertial-force-sensing/accelerometer-output-expression": [
        "R_SW * (A_WS.translational() + gravity_vector)",   # wrong sign: the lesson error
        "R_SW * A_WS.translational() - gravity_vector",     # grouping
        "R_SW * (A_WS.translational() - g_W)",              # g_W is the parameter, not the member
    ],
    "drake-atlas/inertial-force-sensing/adddiagram-signature": [
        ["body", "g_W", "X_BS", "plant", "builder"],         # order
        ["body", "X_BS", "g", "plant", "builder"],           # a name no table maps
    ],
}
NEWTON = {
    "newton-atlas/sensors-rendering/usd-sample-index": [
        "int(time * fps * 2)", "int(time / fps)", "round(time * fps)", "int(time * self.fpss)",
    ],
}


def _run(project, cases):
    loaded = {lc.gid: lc for lc in load_claims(project) if lc.gid in cases}
    assert set(loaded) == set(cases), "shipped claim ids changed"
    lessons = {}
    for gid, lc in loaded.items():
        course = project.pins.course.get(lc.course)
        f = project.course_root(course) / lc.lesson
        if not f.is_file():
            pytest.skip(f"course lesson {lc.course}/{lc.lesson} is not in this course copy")
        lessons[gid] = project.lesson_for(f, lc.course)
    for gid, wrongs in cases.items():
        lc, lesson = loaded[gid], lessons[gid]
        r = check_one(project, lc, lesson)
        assert r.verdict is Verdict.VERIFIED, (gid, r.message)
        assert "through notation" in r.message, (gid, r.message)
        for wrong in wrongs:
            bad = dataclasses.replace(lc, claim=lc.claim.model_copy(update={"expected": wrong}))
            r = check_one(project, bad, lesson)
            assert r.verdict is Verdict.DIVERGED, (gid, wrong, r.verdict, r.message)


@pytest.mark.mirror
def test_drake_notation_verifies_and_wrong_values_diverge(course_dir, mirrors, monkeypatch):
    if "drake" not in mirrors:
        pytest.skip("no local Drake snapshot")
    from tests.conftest import PINS
    from verifier.project import load_project

    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    _run(load_project(PINS), DRAKE)


@pytest.mark.wheels
def test_newton_receiver_notation_verifies_and_wrong_values_diverge(real_project):
    _run(real_project, NEWTON)
