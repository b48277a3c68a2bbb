"""signature (VC102) on the simx fixtures."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)




CASES = [
    ("include/simx/simx.h", "sx_readProbe", ["model", "d", "id", "out", "nout"], {}, "verified"),
    ("include/simx/simx.h", "sx_readProbe", ["model", "d", "out", "id", "nout"], {}, "diverged"),
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


def test_missing_function_diverges(simx):
    r = simx.one(claim("s", "signature", "include/simx/simx.h", "sx_nothing", [], "sx_advance1"))
    assert r.verdict.value == "diverged" and r.actual is None
    assert "no function/method/constructor 'sx_nothing'" in r.message


def test_bad_expected_is_error(simx):
    r = simx.one(claim("s", "signature", "include/simx/simx.h", "sx_advance", "model, d",
                       "sx_advance1"))
    assert r.verdict.value == "error" and "list of parameter names" in r.message
