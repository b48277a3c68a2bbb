"""default (VC103) on the simx fixtures."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)




CASES = [
    # Python dataclass fields
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_depth", 0.0, {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_depth", "0.", {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_depth", -1.0, {}, "diverged"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_index", "0xFFFFFFFF", {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_index", 4294967295, {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "CameraConfig.near", 0.01, {}, "verified"),  # field(default=)
    ("pysimx/_src/sensors/probe_camera.py", "CameraConfig.tags", "list()", {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues.clear_normal", "(0.0, 0.0, 0.0)", {},
     "verified"),
    # Python parameters and attributes
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU", "True",
     {"param": "request_state_attributes"}, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU", True,
     {"param": "request_state_attributes"}, "verified"),                     # TOML true
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU", False,
     {"param": "request_state_attributes"}, "diverged"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU", "None", {"param": "sites"}, "diverged"),
    ("pysimx/_src/world.py", "World", 0.001, {"param": "dt"}, "verified"),
    ("pysimx/_src/world.py", "World.time", 0, {}, "verified"),                # self.time = 0.0
    ("pysimx/_src/world.py", "World.gravity", "(0.0, 0.0, -9.81)", {}, "verified"),
    # C++ default arguments and member initializers
    ("systems/sensors/gyro_probe.h", "GyroProbe", "Eigen::Vector3d::Zero()", {"param": "bias"},
     "verified"),
    ("systems/sensors/gyro_probe.h", "GyroProbe", "Eigen::Vector3d :: Zero( )", {"param": "bias"},
     "verified"),                                                             # normalised text
    ("systems/sensors/gyro_probe.h", "GyroProbe", 1, {"param": "scale"}, "verified"),
    ("systems/sensors/gyro_probe.h", "GyroProbe.scale_", 1.0, {}, "verified"),   # {1.0}
    ("systems/sensors/gyro_probe.h", "GyroProbe.samples_", 4, {}, "verified"),   # = 4
    ("systems/sensors/gyro_probe.h", "GyroProbe.bias_", 0, {}, "diverged"),     # no initializer
    # pybind11 py::arg defaults
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroProbe.__init__", 1.0, {"param": "scale"},
     "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "MakeDefaultGyro", 2.5, {"param": "scale"},
     "verified"),
]


@pytest.mark.parametrize("path,symbol,expected,options,verdict", CASES)
def test_default(simx, path, symbol, expected, options, verdict):
    r = simx.one(claim("d", "default", path, symbol, expected, "clear_depth", **options))
    assert r.verdict.value == verdict, (r.message, r.actual)
    assert r.evidence is not None and r.evidence.blob == simx.repo.blob(path)


def test_unknown_param(simx):
    r = simx.one(claim("d", "default", "systems/sensors/gyro_probe.h", "GyroProbe", 1,
                       "clear_depth", param="gain"))
    assert r.verdict.value == "error" and "no parameter `gain`" in r.message
    assert "(has: " in r.message


def test_parameter_without_options_param(simx):
    r = simx.one(claim("d", "default", "pysimx/_src/world.py", "make_world.dt", 0.001,
                       "clear_depth"))
    assert r.verdict.value == "error" and "options.param" in r.message
