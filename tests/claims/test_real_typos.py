"""A claim typo is the claim's error, on real pinned code: shipped MuJoCo claims (headers
served from the pinned wheel at their pin blobs) with a mistyped locator come out `error`
with "did you mean", never `diverged`, `unavailable` or `verified`."""

from __future__ import annotations

import dataclasses

import pytest

from verifier.claims.check import check_one
from verifier.claims.loader import load_claims
from verifier.results import Verdict

pytestmark = pytest.mark.wheels
LESSON = "mujoco-atlas/sensors-and-sampling/"


@pytest.fixture
def shipped(real_project):
    loaded = {lc.gid: lc for lc in load_claims(real_project) if lc.gid.startswith(LESSON)}
    if not loaded:
        pytest.skip("no shipped claims for mujoco-atlas/sensors-and-sampling")
    lc = next(iter(loaded.values()))
    f = real_project.course_root(real_project.pins.course.get(lc.course)) / lc.lesson
    if not f.is_file():
        pytest.skip("lesson not in this course copy")
    lesson = real_project.lesson_for(f, lc.course)

    def run(cid: str, **update):
        lc = loaded[LESSON + cid]
        bad = dataclasses.replace(lc, claim=lc.claim.model_copy(update=update)) if update else lc
        return check_one(real_project, bad, lesson)
    return run


@pytest.mark.parametrize("cid,update,suggestion", [
    ("sensordata-field", {"symbol": "mjDta"}, "mjData"),                          # members
    ("name2id-signature", {"symbol": "mj_name2Id"}, "mj_name2id"),                # signature
    ("sensor-refid-minus-one-world", {"symbol": "mjModel.sensor_refidx"}, "sensor_refid"),  # doc
    ("history-in-physics-state", {"symbol": "mjSTATE_PHYSIC"}, "mjSTATE_PHYSICS"),  # enum
    ("geomdistance-exists", {"symbol": "mj_geomDistanc"}, "mj_geomDistance"),     # symbol
    ("sensordata-field", {"path": "include/mujoco/mjdat.h"}, "include/mujoco/mjdata.h"),  # path
])
def test_mistyped_locators_are_errors_with_suggestions(shipped, cid, update, suggestion):
    assert shipped(cid).verdict is Verdict.VERIFIED
    r = shipped(cid, **update)
    assert r.verdict is Verdict.ERROR, (r.verdict, r.message)
    assert "did you mean" in r.message and suggestion in r.message, r.message


def test_negative_claim_with_a_near_miss_is_an_error(shipped):
    r = shipped("geomdistance-exists", symbol="mj_geomDistance2", expected=False)
    assert r.verdict is Verdict.ERROR and "near-miss" in r.message and "mj_geomDistance" in r.message
