"""symbol (VC101) on the simx fixtures: C, C++, pybind11 and Python names."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, no_memo, simx  # noqa: F401 (fixtures)




CASES = [
    # (path, symbol, expected, verdict)
    ("include/simx/simx.h", "sx_advance", True, "verified"),          # MJAPI prototype
    ("include/simx/simx.h", "sx_readProbe", True, "verified"),        # multi-line prototype
    ("include/simx/simx.h", "sx_missing", True, "error"),
    ("include/simx/simx.h", "sx_missing", False, "verified"),
    ("include/simx/sxtype.h", "sxPART_DYNAMICS", True, "verified"),   # enumerator
    ("include/simx/sxtype.h", "sxMAXCHANNEL", True, "verified"),      # macro
    ("include/simx/sxdata.h", "sxData_.gravity", True, "verified"),   # struct field
    ("include/simx/sxdata.h", "sxData_.accel", True, "error"),
    ("systems/sensors/gyro_probe.h", "GyroProbe::AddToDiagram", True, "verified"),
    ("systems/sensors/gyro_probe.h", "simx::systems::sensors::GyroProbe", True, "verified"),
    ("systems/sensors/gyro_probe.h", "AddToDiagram", True, "error"),  # needs its class
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroProbe.AddToDiagram", False, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroProbe.scale", True, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "ProbeMode.kFiltered", True, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "MakeDefaultGyro", True, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroConfig.rate_hz", True, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroConfig.Validate", True, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroConfig.__init__", True, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroConfig.Reset", True, "error"),
    ("pysimx/sensors.py", "pysimx.sensors.ProbeIMU", True, "verified"),  # re-export
    ("pysimx/sensors.py", "pysimx.sensors.ProbeLidar", True, "error"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU.update", True, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU.gyroscope", True, "verified"),  # self.x
    ("pysimx/_src/sensors/probe_imu.py", "update", True, "error"),  # method, not module-level
]


@pytest.mark.parametrize("path,symbol,expected,verdict", CASES)
def test_symbol(simx, path, symbol, expected, verdict):
    r = simx.one(claim("c", "symbol", path, symbol, expected, "sx_advance(model, d)"))
    assert r.verdict.value == verdict, r.message
    if verdict == "error":   # a name the claim expects that is not there: the claim's locator
        assert f"no symbol `{symbol}`" in r.message and r.evidence is None
        return
    assert r.actual == (expected if verdict == "verified" else not expected)
    ev = r.evidence
    assert ev is not None and ev.path == path and ev.status == "pinned"
    assert ev.blob == simx.repo.blob(path)
    assert ev.permalink.startswith(f"{simx.repo.url}/blob/{simx.repo.head}/{path}")


def test_symbol_evidence_lines(simx):
    r = simx.one(claim("c", "symbol", "include/simx/simx.h", "sx_readProbe", True, "sx_advance1"))
    assert r.evidence.lines == (18, 19)
    assert r.evidence.permalink.endswith("#L18-L19")
    assert r.line == 3  # the lesson line holding the fragment


def test_absent_member_evidence_is_the_class(simx):
    r = simx.one(claim("c", "symbol", "bindings/pysimx/systems/sensors_py_gyro.cc",
                       "GyroProbe.AddToDiagram", False, "AddToDiagram"))
    assert r.verdict.value == "verified"
    start, end = r.evidence.lines
    assert start == 10 and end >= 17


def test_symbol_needs_boolean(simx):
    r = simx.one(claim("c", "symbol", "include/simx/simx.h", "sx_advance", "yes", "sx_advance1"))
    assert r.verdict.value == "error" and "true or false" in r.message
    assert simx.claim_where + ":4" in r.message


@pytest.mark.parametrize("symbol,expected,verdict", [
    ("pysimx.stubs.sensors.GyroProbe.AddToDiagram", False, "verified"),
    ("GyroProbe.scale", True, "verified"),
    ("MakeDefaultGyro", True, "verified"),
])
def test_symbol_in_pyi_stub(simx, symbol, expected, verdict):
    r = simx.one(claim("c", "symbol", "pysimx/stubs/sensors.pyi", symbol, expected, "sx_advance1"))
    assert r.verdict.value == verdict, r.message


def test_stub_overloads_in_signature(simx):
    r = simx.one(claim("c", "signature", "pysimx/stubs/sensors.pyi", "GyroProbe",
                       ["body", "X_BP", "bias", "scale"], "sx_advance1"))
    assert r.verdict.value == "verified" and "1 of 2 overloads" in r.message


def test_a_crashing_kind_is_an_error_not_a_crash(simx, no_memo, monkeypatch):
    from verifier.claims.kinds import symbol as symbol_mod

    def boom(*a, **kw):
        raise RuntimeError("extractor bug")

    monkeypatch.setattr(symbol_mod, "file_facts", boom)
    r = simx.one(claim("c", "symbol", "include/simx/simx.h", "sx_advance", True, "sx_advance1"))
    assert r.verdict.value == "error", r.message
    assert "internal error in kind 'symbol'" in r.message


def test_module_qualified_symbol_in_another_module_is_a_claim_error(simx):
    r = simx.one(claim("c", "symbol", "pysimx/_src/sensors/probe_imu.py",
                       "pysimx.sensors.ProbeIMU", True, "sx_advance1"))
    assert r.verdict.value == "error" and "is module 'pysimx._src.sensors.probe_imu'" in r.message
