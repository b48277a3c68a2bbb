"""signature (VC102) on the simx fixtures."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)




CASES = [
    ("include/simx/simx.h", "sx_readProbe", ["model", "d", "id", "out", "nout"], {}, "verified"),
    ("include/simx/simx.h", "sx_readProbe", ["model", "d", "out", "id", "nout"], {}, "diverged"),
    ("include/simx/simx.h", "sx_readProbe", [{"name": "out", "at": 4}], {"match": "subset"},
     "verified"),
    ("include/simx/simx.h", "sx_readProbe", [{"name": "out", "at": 3}], {"match": "subset"},
     "diverged"),
    ("include/simx/simx.h", "sx_readProbe", [{"name": "nout", "at": 9}], {"match": "subset"},
     "diverged"),                                   # past the last parameter
    ("include/simx/simx.h", "sx_versionString", [], {}, "verified"),          # (void)
    ("src/engine/sx_forward.c", "sx_advance", ["model", "d"], {}, "verified"),
    ("systems/sensors/gyro_probe.h", "GyroProbe", ["body", "X_BP", "bias", "scale"], {}, "verified"),
    ("systems/sensors/gyro_probe.h", "GyroProbe", ["body", "X_BP"], {"match": "prefix"}, "verified"),
    ("systems/sensors/gyro_probe.h", "GyroProbe::AddToDiagram", ["body", "X_BP", "builder"], {},
     "verified"),
    ("systems/sensors/gyro_probe.cc", "GyroProbe<T>::GyroProbe",
     ["body", "X_BP", "bias", "scale"], {}, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroProbe.__init__",
     ["body", "X_BP", {"name": "bias", "default": "Eigen::Vector3d::Zero()"},
      {"name": "scale", "default": "1"}], {}, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU",
     ["world", "sites", "verbose", "request_state_attributes"], {}, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU",
     ["world", "sites", {"name": "request_state_attributes", "default": "True"}], {},
     "diverged"),                                   # the lesson skipped `verbose`
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU",
     ["world", "sites", {"name": "request_state_attributes", "default": "True"}],
     {"match": "subset"}, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU.update", ["state", "check"], {}, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU.units", [], {}, "verified"),  # staticmethod
    ("pysimx/_src/world.py", "make_world", ["dt", "gravity", "**options"], {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "CameraConfig",        # dataclass without __init__
     ["width", "height", "tags", "near"], {}, "verified"),
]


@pytest.mark.parametrize("path,symbol,expected,options,verdict", CASES)
def test_signature(simx, path, symbol, expected, options, verdict):
    r = simx.one(claim("s", "signature", path, symbol, expected, "sx_advance1", **options))
    assert r.verdict.value == verdict, (r.message, r.actual)
    assert r.evidence is not None and r.evidence.blob == simx.repo.blob(path)


def test_signature_evidence_is_the_head(simx):
    r = simx.one(claim("s", "signature", "pysimx/_src/sensors/probe_imu.py", "ProbeIMU",
                       ["world", "sites", "verbose", "request_state_attributes"], "sx_advance1"))
    assert r.evidence.lines == (14, 20)


def test_missing_function_is_the_claims_error(simx):
    r = simx.one(claim("s", "signature", "include/simx/simx.h", "sx_nothing", [], "sx_advance1"))
    assert r.verdict.value == "error" and r.actual is None
    assert "no function/method/constructor `sx_nothing`" in r.message


def test_bad_expected_is_error(simx):
    r = simx.one(claim("s", "signature", "include/simx/simx.h", "sx_advance", "model, d",
                       "sx_advance1"))
    assert r.verdict.value == "error" and "list of parameter names" in r.message


def test_markers_where_parameter_kinds_put_them():
    from types import SimpleNamespace as P

    from verifier.claims.kinds.signature import with_markers

    ps = (P(name="a", kind="positional_only"), P(name="b", kind="positional_or_keyword"),
          P(name="c", kind="keyword_only"), P(name="**kw", kind="var_keyword"))
    assert [x if isinstance(x, str) else x.name for x in with_markers(ps)] == \
        ["a", "/", "b", "*", "c", "**kw"]
    ps = (P(name="a", kind="positional_or_keyword"), P(name="*args", kind="var_positional"),
          P(name="c", kind="keyword_only"))
    assert [x if isinstance(x, str) else x.name for x in with_markers(ps)] == ["a", "*args", "c"]


@pytest.mark.parametrize("expected,needle", [
    (["a", "/", "/"], "at most one"),
    ([{"name": "a", "kind": "keyword"}], "is not one of"),
    ([3], "bad parameter entry"),
    ([{"name": "state", "at": 0}], "position counted from 1"),
    ([{"name": "state", "at": "2"}], "position counted from 1"),
])
def test_bad_marker_claims(simx, expected, needle):
    r = simx.one(claim("s", "signature", "pysimx/_src/sensors/probe_imu.py", "ProbeIMU.update",
                       expected, "sx_advance1"))
    assert r.verdict.value == "error" and needle in r.message


def test_c_parameter_types_are_specifiers_never_a_false_divergence(simx):
    """`int sx_readProbe(const void* model, const sxData* d, int id, ...)`: the C fact model
    records type specifiers (`sxData`), so a claim with `const`/`*` cannot be compared and
    is the claim's error, not `diverged`; the bare specifier verifies, a wrong one diverges."""
    def run(t):
        exp = [{"name": "d", "type": t}, {"name": "id", "type": "int"}]
        return simx.one(claim("s", "signature", "include/simx/simx.h", "sx_readProbe", exp,
                              "sx_advance1", match="subset"))
    r = run("const sxData*")
    assert r.verdict.value == "error" and "type specifier only" in r.message, r.message
    assert run("sxData").verdict.value == "verified"
    assert run("sxModel").verdict.value == "diverged"
