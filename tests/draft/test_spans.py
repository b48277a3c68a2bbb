"""What a code span names, and what counts as a literal value in a sentence."""

from __future__ import annotations

import pytest

from verifier.draft.proposers.base import literal
from verifier.draft.spans import refs


@pytest.mark.parametrize("span, want", [
    ("mj_step", [(("mj_step",), False, (), ())]),
    ("data.qpos/qvel", [(("data", "qpos"), False, (), ()), (("data", "qvel"), False, (), ())]),
    ("ContactModel.kPoint / kHydroelastic",
     [(("ContactModel", "kPoint"), False, (), ()), (("ContactModel", "kHydroelastic"), False, (), ())]),
    ("Accelerometer<T>::CalcOutput", [(("Accelerometer", "CalcOutput"), False, (), ())]),
    ("SensorIMU(model, sites=..., verbose=True)",
     [(("SensorIMU",), True, ("model",), (("sites", "..."), ("verbose", "True")))]),
    ("scene_graph.model_inspector()", [(("scene_graph", "model_inspector"), True, (), ())]),
    ("CollisionFilterDeclaration().ExcludeBetween(GeometrySet(a), b)",
     [(("CollisionFilterDeclaration",), True, (), ()),
      (("CollisionFilterDeclaration", "ExcludeBetween"), True, ("GeometrySet(a)", "b"), ()),
      (("GeometrySet",), True, ("a",), ())]),
    ("aid=model.actuator(name).id", [(("model", "actuator"), True, ("name",), ())]),
    ("actuator_force[aid]", [(("actuator_force",), False, (), ())]),
    # notation and statements name nothing
    ("x=(p_WCb−p_WCa)·nhat_BA_W", []),
    ("qpos += dt * qvel", []),
    ("vᵀJᵀf=(Jv)ᵀf", []),
])
def test_refs(span, want):
    assert [(r.parts, r.call, r.args, r.kwargs) for r in refs(span)] == want


def test_assignments():
    assert [(r.parts, r.value) for r in refs("time_step=0.001")] == [(("time_step",), "0.001")]
    assert [(r.parts, r.value) for r in refs("nactuator=2, nu=3")] == \
        [(("nactuator",), "2"), (("nu",), "3")]


@pytest.mark.parametrize("text, want", [
    ("0.001 s", (True, 0.001)), ("1e−14 √J", (True, 1e-14)), ("100", (True, 100)),
    ("-1，", (True, -1)), ("0xFFFFFFFF", (True, "0xFFFFFFFF")), ("True", (True, True)),
    ("`False`", (True, False)),
    ("kExact", (False, None)), ("2*h", (False, None)), ("1/30", (False, None)),
    ('"dist"', (True, '"dist"')),        # strings compare by value: quoting does not matter
    ("'dist' ok", (True, "'dist'")), ("None", (True, "None")),
])
def test_literal(text, want):
    assert literal(text) == want
