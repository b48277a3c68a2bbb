"""A claim typo is the claim's error, never the lesson's: a locator that names nothing
at the pin is `error` with "did you mean", in every kind; a negative claim whose name
has a near miss is `error` unless the lesson names that exact name."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)

SX = "include/simx/simx.h"
DATA = "include/simx/sxdata.h"
TYPE = "include/simx/sxtype.h"
GYRO = "systems/sensors/gyro_probe.h"
IMU = "pysimx/_src/sensors/probe_imu.py"
F = "`sx_advance(model, d)`"

TYPOS = [
    # (kind, path, symbol, expected, options, the suggestion the message must give)
    ("symbol", SX, "sx_advanse", True, {}, "`sx_advance`"),
    ("symbol", DATA, "sxData_.gravty", True, {}, "`sxData_.gravity`"),
    ("symbol", GYRO, "AddToDiagram", True, {}, "GyroProbe.AddToDiagram"),   # needs its class
    ("signature", SX, "sx_readProbes", ["model"], {"match": "prefix"}, "`sx_readProbe`"),
    ("signature", IMU, "ProbeIMU.updat", ["state"], {"match": "prefix"}, "`ProbeIMU.update`"),
    ("default", GYRO, "GyroProbe.scale__", 1.0, {}, "`GyroProbe.scale_`"),
    ("default", GYRO, "GyroProbe", 1.0, {"param": "scal"}, "`scale`"),
    ("members", DATA, "sxDta", ["nbuffer"], {"match": "prefix"}, "`sxData`"),
    ("enum", TYPE, "sxPART_DYNAMIC", 30, {}, "`sxPART_DYNAMICS`"),
]


@pytest.mark.parametrize("kind,path,symbol,expected,options,suggestion", TYPOS,
                         ids=[f"{t[0]}-{t[2]}" for t in TYPOS])
def test_a_locator_that_names_nothing_is_an_error_with_a_suggestion(
        simx, kind, path, symbol, expected, options, suggestion):
    r = simx.one(claim("t", kind, path, symbol, expected, F, **options))
    assert r.verdict.value == "error", (r.verdict, r.message)
    assert "did you mean" in r.message and suggestion in r.message, r.message
    assert simx.claim_where in r.message          # the claim file and line


def test_the_same_claims_spelled_right_verify(simx):
    ok = [("symbol", SX, "sx_advance", True, {}), ("symbol", DATA, "sxData_.gravity", True, {}),
          ("signature", SX, "sx_readProbe", ["model"], {"match": "prefix"}),
          ("default", GYRO, "GyroProbe", 1.0, {"param": "scale"}),
          ("members", DATA, "sxData", ["nbuffer"], {"match": "prefix"}),
          ("enum", TYPE, "sxPART_DYNAMICS", 30, {})]
    for kind, path, symbol, expected, options in ok:
        r = simx.one(claim("t", kind, path, symbol, expected, F, **options))
        assert r.verdict.value == "verified", (kind, symbol, r.message)


def test_symbol_follows_a_typedef_owner(simx):
    r = simx.one(claim("t", "symbol", DATA, "sxData.gravity", True, F))
    assert r.verdict.value == "verified" and "field sxData_.gravity" in r.message
    r = simx.one(claim("t", "default", GYRO, "GyroProbe.samples_", 4, F))
    assert r.verdict.value == "verified"


def test_negative_claim_with_a_near_miss_is_an_error(simx):
    # `sx_advance3` is absent, but sx_advance1/2 exist and the sentence names neither
    r = simx.one(claim("t", "symbol", SX, "sx_advance3", False, F))
    assert r.verdict.value == "error", r.message
    assert "near-miss" in r.message and "`sx_advance1`" in r.message


def test_negative_claim_whose_name_the_lesson_uses_stands(simx):
    # the lesson says "There is no `sx_advance3`": that exact name is meant
    r = simx.one(claim("t", "symbol", SX, "sx_advance3", False, "no `sx_advance3`"))
    assert r.verdict.value == "verified", r.message


def test_negative_claim_far_from_any_name_is_verified(simx):
    r = simx.one(claim("t", "symbol", SX, "sx_teleport", False, F))
    assert r.verdict.value == "verified" and r.actual is False


def test_a_name_the_sentence_writes_next_to_chinese_counts_as_named():
    # plain sentence text drops the backticks: "调用C的mj_forward" (CJK letters are \w)
    from verifier.claims.check import _names_in_sentence

    assert _names_in_sentence("mj_forward", "不是在每个设备步里调用C的mj_forward")
    assert not _names_in_sentence("forward", "不是在每个设备步里调用C的mj_forward")
