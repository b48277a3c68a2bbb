"""Claim kinds against the real pinned upstream files: MuJoCo headers and Newton
sources from the pinned wheels (every file checked at its pin blob); Drake C++
from local upstream snapshots (skipped when none is configured)."""

from __future__ import annotations

import pytest

from verifier.claims.kinds import REGISTRY
from verifier.claims.kinds.base import CheckContext, SourceUnavailable
from verifier.claims.model import Claim
from verifier.results import Verdict

pytestmark = pytest.mark.wheels


def run(project, upstream: str, **fields):
    c = Claim(id="t", fragment="xxx", **fields)
    ctx = CheckContext(project=project, upstream=project.pins.get(upstream))
    out = REGISTRY[c.kind]().check(c, ctx)
    if out.verdict is Verdict.VERIFIED:
        sf = ctx.used[0]
        assert sf.status.value == "pinned" and sf.blob == sf.expected_blob == out.evidence.blob
    return out


MUJOCO = [
    dict(kind="enum", path="include/mujoco/mjtype.h", symbol="mjSTATE_PHYSICS", expected=30),
    dict(kind="enum", path="include/mujoco/mjtype.h", symbol="mjSTATE_PHYSICS",
         expected=["mjSTATE_QPOS", "mjSTATE_QVEL", "mjSTATE_ACT", "mjSTATE_HISTORY"],
         options={"compare": "composition"}),
    dict(kind="enum", path="include/mujoco/mjtype.h", symbol="mjSTATE_FULLPHYSICS",
         expected=8223),
    dict(kind="enum", path="include/mujoco/mjtype.h", symbol="mjNSTATE", expected=14),
    dict(kind="symbol", path="include/mujoco/mujoco.h", symbol="mj_step", expected=True),
    dict(kind="symbol", path="include/mujoco/mujoco.h", symbol="mj_step3", expected=False),
    dict(kind="signature", path="include/mujoco/mujoco.h", symbol="mj_step", expected=["m", "d"]),
    dict(kind="members", path="include/mujoco/mjtype.h", symbol="mjtState",
         expected=["mjSTATE_TIME", "mjSTATE_QPOS", "mjSTATE_QVEL"], options={"match": "prefix"}),
    dict(kind="members", path="include/mujoco/mjdata.h", symbol="mjData",
         expected=["qpos", "qvel", "act", "ctrl", "sensordata"], options={"match": "subset"}),
    dict(kind="doc", path="include/mujoco/mjmodel.h", symbol="mjModel.sensor_refid",
         expected="-1: global frame"),
    dict(kind="doc", path="include/mujoco/mjmodel.h", symbol="mjModel",
         expected={"sensor_dim": "number of scalar outputs", "sensor_adr": "address in sensor array"}),
    dict(kind="doc", path="include/mujoco/mjtype.h", symbol="mjSENS_RANGEFINDER",
         expected="distance to nearest geom along z-axis"),
    dict(kind="doc", path="include/mujoco/mujoco.h", symbol="mj_forward",
         expected="same as mj_step but do not integrate in time"),
    dict(kind="symbol", path="include/mujoco/mjdata.h", symbol="mjData.sensordata",
         expected=True),                                   # a typedef'd owner is followed
]

NEWTON = [
    dict(kind="members", path="newton/sensors.py", symbol="newton.sensors",
         expected=["SensorContact", "SensorFrameTransform", "SensorIMU", "SensorTiledCamera"]),
    dict(kind="symbol", path="newton/sensors.py", symbol="newton.sensors.SensorIMU", expected=True),
    dict(kind="default", path="newton/_src/sensors/warp_raytrace/types.py",
         symbol="ClearData.clear_depth", expected=0.0),
    dict(kind="default", path="newton/_src/sensors/warp_raytrace/types.py",
         symbol="ClearData.clear_shape_index", expected="0xFFFFFFFF"),
    dict(kind="default", path="newton/_src/sensors/sensor_imu.py", symbol="SensorIMU",
         options={"param": "request_state_attributes"}, expected=True),
    dict(kind="signature", path="newton/_src/sensors/sensor_imu.py", symbol="SensorIMU",
         expected=["model", "sites", "request_state_attributes"], options={"match": "subset"}),
    dict(kind="doc", path="newton/_src/geometry/raycast.py", symbol="intersect_ray",
         options={"param": "ray_directions"}, expected="shape [ray_count, 3]"),
    dict(kind="doc", path="newton/_src/sensors/sensor_imu.py", symbol="SensorIMU.accelerometer",
         expected="Linear acceleration readings [m/s²] in sensor frame"),
    dict(kind="signature", path="newton/_src/sensors/sensor_tiled_camera.py",
         symbol="SensorTiledCamera.update", options={"match": "subset"},
         expected=[{"name": "depth_image", "type": "wp.array4d[wp.float32] | None",
                    "default": "None"}]),
    dict(kind="branch", path="newton/_src/sensors/sensor_imu.py", symbol="compute_sensor_imu_kernel",
         options={"bindings": {"body_idx": -1}},
         expected={"reaches": ["gyroscope[sensor_idx] = wp.vec3(0.0)", "return"],
                   "not_reaches": ["gyroscope[sensor_idx] = wp.quat_rotate_inv(q, vel_ang)"]}),
]


@pytest.mark.parametrize("fields", [
    dict(kind="doc", path="include/mujoco/mjmodel.h", symbol="mjModel.sensor_refid",
         expected="-2: global frame"),
    dict(kind="branch", path="newton/_src/sensors/sensor_imu.py", symbol="compute_sensor_imu_kernel",
         options={"bindings": {"body_idx": 0}},
         expected={"reaches": ["gyroscope[sensor_idx] = wp.vec3(0.0)"]}),
    dict(kind="signature", path="newton/_src/sensors/sensor_tiled_camera.py",
         symbol="SensorTiledCamera.update", options={"match": "subset"},
         expected=[{"name": "depth_image", "type": "wp.array4d[wp.uint32] | None"}]),
], ids=lambda f: f"{f['kind']}-{f['symbol']}")
def test_wrong_facts_on_real_code_diverge(real_project, fields):
    up = "mujoco" if fields["path"].startswith("include/") else "newton"
    assert run(real_project, up, **fields).verdict is Verdict.DIVERGED


@pytest.mark.parametrize("fields", MUJOCO, ids=lambda f: f"{f['kind']}-{f['symbol']}")
def test_mujoco_headers(real_project, fields):
    out = run(real_project, "mujoco", **fields)
    assert out.verdict is Verdict.VERIFIED, (out.message, out.actual)
    assert out.evidence.permalink.startswith(
        "https://github.com/google-deepmind/mujoco/blob/9ea3cdfcae93bf2cc4dc0e1a1627c5a39a1e06e5/")


def test_mujoco_wrong_value_diverges(real_project):
    out = run(real_project, "mujoco", kind="enum", path="include/mujoco/mjtype.h",
              symbol="mjSTATE_PHYSICS", expected=31)
    assert out.verdict is Verdict.DIVERGED and out.actual == 30


@pytest.mark.parametrize("fields", NEWTON, ids=lambda f: f"{f['kind']}-{f['symbol']}")
def test_newton_sources(real_project, fields):
    out = run(real_project, "newton", **fields)
    assert out.verdict is Verdict.VERIFIED, (out.message, out.actual)


def test_engine_sources_are_unavailable_without_snapshot(real_project):
    """MuJoCo's engine C is in no wheel: the kind must not get its text."""
    with pytest.raises(SourceUnavailable):
        run(real_project, "mujoco", kind="symbol", path="src/engine/engine_sensor.c",
            symbol="mj_sensorPos", expected=True)


DRAKE = [
    dict(kind="symbol", path="bindings/pydrake/systems/sensors_py_accelerometer.cc",
         symbol="Accelerometer.AddToDiagram", expected=False),
    dict(kind="symbol", path="systems/sensors/accelerometer.h",
         symbol="Accelerometer::AddToDiagram", expected=True),
    dict(kind="default", path="systems/sensors/accelerometer.h", symbol="Accelerometer",
         options={"param": "gravity_vector"}, expected="Eigen::Vector3d::Zero()"),
    dict(kind="signature", path="systems/sensors/accelerometer.h", symbol="Accelerometer",
         expected=["body", "X_BS", "gravity_vector"]),
    dict(kind="doc", path="systems/sensors/accelerometer.h", symbol="Accelerometer",
         expected="Currently does not represent noise or bias"),
    dict(kind="doc", path="systems/sensors/rotary_encoders.h", symbol="RotaryEncoders",
         expected=["inputs to this system are assumed to be in radians",
                   "combining this with a ZeroOrderHold"]),
]


@pytest.mark.mirror
@pytest.mark.parametrize("fields", DRAKE, ids=lambda f: f"{f['kind']}-{f['symbol']}")
def test_drake_from_snapshot(mirrors, monkeypatch, fields):
    if "drake" not in mirrors:
        pytest.skip("no local Drake snapshot")
    from tests.conftest import PINS
    from verifier.project import load_project

    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    project = load_project(PINS)
    try:
        out = run(project, "drake", **fields)
    except SourceUnavailable as exc:
        pytest.skip(f"the snapshot lacks the pinned blob: {exc}")
    assert out.verdict is Verdict.VERIFIED, (out.message, out.actual)


@pytest.mark.mirror
def test_drake_doc_that_says_otherwise_diverges(mirrors, monkeypatch):
    if "drake" not in mirrors:
        pytest.skip("no local Drake snapshot")
    from tests.conftest import PINS
    from verifier.project import load_project

    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    project = load_project(PINS)
    try:
        out = run(project, "drake", kind="doc", path="systems/sensors/accelerometer.h",
                  symbol="Accelerometer", expected="represents noise and bias")
    except SourceUnavailable as exc:
        pytest.skip(f"the snapshot lacks the pinned blob: {exc}")
    assert out.verdict is Verdict.DIVERGED and "noise or bias" in str(out.actual)


# ---------------------------------------------------------------- pydrake .pyi stubs
# The drake wheel carries no repository file (its stubs are generated at build time),
# so stubs can never be evidence at pinned identity; this checks that the Python
# extractor reads the real pinned release's stubs the way the symbol/signature kinds
# need (pydrake's Accelerometer: constructor parameters, and no AddToDiagram).

@pytest.fixture
def pydrake_stubs():
    from verifier.cache import Store
    from verifier.pins import Wheel
    from verifier.sources.wheel import WheelSource

    store = Store(None)   # the session cache ($VERIFIER_CACHE, set by tests/conftest.py)
    ws = WheelSource(store, Wheel(requirement="drake==1.57.0",
                                  map=[{"wheel": "pydrake/", "repo": "pydrake/", "glob": "*.pyi"}]))
    if not ws.files():
        pytest.skip(f"drake==1.57.0 wheel not available: {ws.error}")
    return ws


def test_pydrake_stub_accelerometer(pydrake_stubs):
    from verifier.facts.python import extract

    data = pydrake_stubs.read("pydrake/systems/sensors.pyi")
    assert data is not None
    facts = extract("pydrake/systems/sensors.pyi", data, None)
    assert facts.parse_errors == 0
    assert facts.find(("Accelerometer",), transparent=set())
    assert not facts.find(("Accelerometer", "AddToDiagram"), transparent=set())
    inits = facts.find(("Accelerometer", "__init__"), transparent=set())
    assert [p.name for p in inits[0].params][:3] == ["body", "X_BS", "gravity_vector"]
    assert facts.find(("Accelerometer", "get_body_poses_input_port"), transparent=set())
