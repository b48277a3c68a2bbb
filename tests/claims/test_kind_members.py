"""members (VC105) on the simx fixtures."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)

PARTS = ["sxPART_CLOCK", "sxPART_POS", "sxPART_VEL", "sxPART_ACT", "sxPART_MEMORY", "sxNPART",
         "sxPART_DYNAMICS", "sxPART_EVERYTHING"]
CASES = [
    ("include/simx/sxtype.h", "sxtPart", PARTS, {}, "verified"),              # via typedef
    ("include/simx/sxtype.h", "sxtPart_", PARTS[:5], {"match": "prefix"}, "verified"),
    ("include/simx/sxtype.h", "sxtPart", PARTS[::-1], {}, "diverged"),        # order matters
    ("include/simx/sxtype.h", "sxtPart", 8, {"match": "count"}, "verified"),
    ("include/simx/sxtype.h", "sxtStage", ["sxSTAGE_NONE", "sxSTAGE_POS", "sxSTAGE_VEL",
                                           "sxSTAGE_ACC"], {}, "verified"),
    ("include/simx/sxdata.h", "sxData", ["nbuffer", "nprobe"], {"match": "prefix"}, "verified"),
    ("include/simx/sxdata.h", "sxData", ["gravity", "clock"], {"match": "subset"}, "verified"),
    ("include/simx/sxdata.h", "sxData", ["gravity", "accel"], {"match": "subset"}, "diverged"),
    ("include/simx/sxdata.h", "sxProbe", ["kind", "dim", "values"], {}, "verified"),
    ("systems/sensors/gyro_probe.h", "GyroProbe",
     ["velocities_port_", "scale_", "samples_", "bias_"], {}, "verified"),
    ("systems/sensors/gyro_probe.h", "ProbeMode", ["kRaw", "kFiltered", "kBoth"], {}, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroProbe",
     ["__init__", "get_body_velocities_input_port", "scale"], {}, "verified"),
    ("bindings/pysimx/systems/sensors_py_gyro.cc", "ProbeMode", ["kRaw", "kFiltered"], {},
     "verified"),
    ("pysimx/sensors.py", "pysimx.sensors", ["ProbeCamera", "ProbeContact", "ProbeIMU"], {},
     "verified"),
    ("pysimx/sensors.py", "pysimx.sensors", 4, {"match": "count"}, "diverged"),
    ("pysimx/__init__.py", "pysimx", ["World", "make_world", "sensors"], {}, "verified"),
    ("pysimx/_src/sensors/probe_camera.py", "ClearValues",
     ["clear_color", "clear_depth", "clear_index", "clear_normal"], {}, "verified"),
    ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU", ["update", "request"], {"match": "subset",
                                                                             "of": "methods"},
     "verified"),
    ("pysimx/_src/world.py", "pysimx._src.world", ["World", "make_world"], {}, "verified"),
]


@pytest.mark.parametrize("path,symbol,expected,options,verdict", CASES)
def test_members(simx, path, symbol, expected, options, verdict):
    r = simx.one(claim("m", "members", path, symbol, expected, "sxNPART", **options))
    assert r.verdict.value == verdict, (r.message, r.actual)
    assert r.evidence.blob == simx.repo.blob(path)


def test_exports_evidence_is_all(simx):
    r = simx.one(claim("m", "members", "pysimx/sensors.py", "pysimx.sensors",
                       ["ProbeCamera", "ProbeContact", "ProbeIMU"], "sxNPART"))
    assert r.evidence.lines == (7, 11)


def test_order_difference_is_explained(simx):
    r = simx.one(claim("m", "members", "pysimx/sensors.py", "pysimx.sensors",
                       ["ProbeIMU", "ProbeContact", "ProbeCamera"], "sxNPART"))
    assert r.verdict.value == "diverged" and "different order" in r.message


def test_count_needs_int(simx):
    r = simx.one(claim("m", "members", "pysimx/sensors.py", "pysimx.sensors", ["x"], "sxNPART",
                       match="count"))
    assert r.verdict.value == "error" and "must be an integer" in r.message
