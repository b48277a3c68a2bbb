"""type (VC113) on the simx fixtures, and the options the drafter relies on:
`signature` `match = "names"`, `members` `match = "subsequence"`, and `default`'s
unqualified enumerator spelling."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)
from verifier.claims.kinds.declared_type import type_matches, type_names

CASES = [
    # Python annotated dataclass fields
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_depth", "float", {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_depth", "int", {}, "diverged"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_normal", "tuple", {},
     "verified"),                                           # mentioned in tuple[float, ...]
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_normal", "tuple", {"match":
     "exact"}, "diverged"),                                 # not the whole declared type
    # C struct fields: the type specifier
    ("include/simx/sxdata.h", "sxData.pos", "sxtReal", {}, "verified"),
    ("include/simx/sxdata.h", "sxData.nprobe", "size_t", {}, "diverged"),   # int
    # parameters
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU", "bool", {"param": "verbose"}, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU", "int", {"param": "verbose"}, "diverged"),
]


@pytest.mark.parametrize("path,symbol,expected,options,verdict", CASES)
def test_type(simx, path, symbol, expected, options, verdict):
    r = simx.one(claim("t", "type", path, symbol, expected, "clear_depth", **options))
    assert r.verdict.value == verdict, (r.message, r.actual)
    assert r.evidence is not None and r.evidence.blob == simx.repo.blob(path)


def test_no_declared_type_is_the_claims_error(simx):
    r = simx.one(claim("t", "type", "pysimx/_src/sensors/probe_camera.py", "ProbeCamera.update",
                       "int", "clear_depth", param="color_image"))
    assert r.verdict.value == "error" and "declares no type" in r.message


def test_unknown_parameter(simx):
    r = simx.one(claim("t", "type", "pysimx/_src/sensors/probe_imu.py", "ProbeIMU", "int",
                       "clear_depth", param="verbos"))
    assert r.verdict.value == "error" and "did you mean" in r.message


def test_warp_spellings_fold_and_qualifiers_drop():
    assert type_names("wp.array[wp.vec3f] | None") == ["array", "vec3", "None"]
    assert type_matches(["vec3"], "wp.array[wp.vec3]", "mentions")
    assert type_matches(["wp.vec3"], "wp.array[wp.vec3f]", "mentions")
    assert not type_matches(["vec4"], "wp.array[wp.vec3]", "mentions")
    assert type_matches(["mjtNum"], "mjtNum", "exact")


def test_signature_names_ignores_order(simx):
    ok = simx.one(claim("s", "signature", "pysimx/_src/sensors/probe_imu.py", "ProbeIMU",
                        ["request_state_attributes", "sites"], "clear_depth", match="names"))
    assert ok.verdict.value == "verified"
    bad = simx.one(claim("s", "signature", "pysimx/_src/sensors/probe_imu.py", "ProbeIMU",
                         ["request_state_attributes", "site"], "clear_depth", match="names"))
    assert bad.verdict.value == "diverged"


def test_members_subsequence_keeps_the_relative_order(simx):
    ok = simx.one(claim("m", "members", "include/simx/sxtype.h", "sxtPart",
                        ["sxPART_POS", "sxPART_ACT"], "clear_depth", match="subsequence"))
    assert ok.verdict.value == "verified"
    bad = simx.one(claim("m", "members", "include/simx/sxtype.h", "sxtPart",
                         ["sxPART_ACT", "sxPART_POS"], "clear_depth", match="subsequence"))
    assert bad.verdict.value == "diverged" and "another order" in bad.message


@pytest.mark.parametrize("expected, actual, same", [
    ("kExact", "LineSearchType::kExact", True),
    ("ShapeFlags.VISIBLE", "newton.ShapeFlags.VISIBLE", True),
    ("kBackTracking", "LineSearchType::kExact", False),
    ("LineSearchType::kExact", "kExact", False),    # the lesson may not qualify more
    ("Exact", "LineSearchType::kExact", False),     # whole names only
])
def test_default_accepts_an_unqualified_enumerator(expected, actual, same):
    from verifier.claims.kinds.default import same_default
    from verifier.claims.notation import Tracker

    ctx = SimpleNamespace(notation=Tracker())
    assert bool(same_default(SimpleNamespace(expected=expected), actual, ctx, "cpp")) is same
