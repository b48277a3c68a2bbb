"""Which code spans are API names (verifier/lint/shapes.py)."""

from __future__ import annotations

import pytest

from verifier.lint.shapes import classify, names_in_text


@pytest.mark.parametrize("span,expected", [
    ("mj_resetDataKeyframe", ["mj_resetDataKeyframe"]),
    ("mjSTATE_INTEGRATION", ["mjSTATE_INTEGRATION"]),
    ("sensor_adr", ["sensor_adr"]),
    ("SensorTiledCamera.ClearData", ["SensorTiledCamera.ClearData"]),
    ("plant.get_reaction_forces_output_port()", ["plant.get_reaction_forces_output_port"]),
    ("data.sensor(name).data", ["data.sensor.data"]),
    ("newton.intersect_ray", ["newton.intersect_ray"]),
    ("mjModel", ["mjModel"]),
    ("Renderer(height,width)", ["Renderer"]),
    ("jnt_qposadr[jid]", ["jnt_qposadr"]),
    ("cam_xmat.reshape(3,3)", ["cam_xmat"]),
    ("sensor_objtype/objid", ["sensor_objtype", "sensor_objid"]),
    ("data.joint(name).qpos/qvel", ["data.joint.qpos", "data.joint.qvel"]),
    ("Class<T>::Method", ["Class.Method"]),
    ("create_*_image_output", ["create_*_image_output"]),
    ("mj_step", ["mj_step"]),
])
def test_api_names(span, expected):
    assert [r.dotted for r in classify(span)] == expected


@pytest.mark.parametrize("span", [
    "R_SW", "X_BS", "g_W", "F_i/area(A_i)", "R_SW*(A_WS.translational()-gravity_vector)",
    'output="rgb depth"', 'camera output="rgb depth"', "qpos += dt * qvel", "qpos", "IMU",
    "0xFFFFFFFF", "(N,3)", "sleep()", "close()", ".copy()", "sum(qfrc_constraint)",
    "memset(0)", "simulation.rst", "examples/e4_camera_frame.py", "Rᵀ(a−g)", "data",
    "efc_address>=0", "std::vector<int>", "np.linalg.norm(v)", "phase=forward, time=t", "TODO: handle use_mujoco_cpu", "3.15.0",
])
def test_not_api_names(span):
    assert classify(span) == []


def test_names_in_link_text():
    assert [r.dotted for r in names_in_text("SensorContact 属性")] == ["SensorContact"]
    assert [r.dotted for r in names_in_text("mj_readSensor")] == ["mj_readSensor"]
    assert names_in_text("原生分阶段执行") == []
    assert names_in_text("IMU 含义") == []
