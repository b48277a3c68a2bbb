"""With the local upstream snapshots configured as mirrors (object lookup only:
they lack the pinned commits), more files are available at pinned identity, so more
of the course is checked - still only the true errors, and nothing passed unchecked."""

from __future__ import annotations

import pytest

from tests.lint.test_real_lessons import _whole_course

pytestmark = [pytest.mark.mirror, pytest.mark.wheels]


def test_whole_course_with_mirrors(mirrors, real_project):
    if "drake" not in mirrors:
        pytest.skip("no drake snapshot")
    fs = _whole_course(real_project)
    drake = [f for f in fs if f.course == "drake-atlas"]
    un = {f.path: f.data["unchecked"] for f in drake
          if f.rule == "source-unavailable" and f.upstream == "drake" and "unchecked" in f.data}
    unchecked = un["docs/inertial-force-sensing.md"]
    # the pybind sources of pydrake.systems.sensors are served: the imports resolve
    assert "codeblock" not in unchecked
    left = {u["target"] for u in unchecked["identifier"]}
    assert "AddToDiagram" not in left and "Accelerometer" not in left
    # multibody_plant.{h,cc} are not in the snapshot at the pinned blob: a C++-only name
    # stays unchecked; a bound one is found in the pinned release's stubs (plant.pyi)
    assert "CalcReactionForces" in left
    assert "plant.get_reaction_forces_output_port" not in left
    anchors = [f for f in drake if f.rule == "permalink-anchor"]
    assert any(f.data["path"] == "systems/sensors/accelerometer.h" for f in anchors)
    # served with the snapshots: the anchors of these links name what the range is in
    found: dict = {}
    for f in anchors:
        found[(f.path, f.line)] = found.get((f.path, f.line), "") + "; ".join(
            f.data.get("names_found", [])) + " | "
    assert "the range lies in `LeafSystem`" in found[("docs/batch-lifecycle.md", 93)]
    assert "the range lies in `RigidTransform`" in found[("docs/evidence/e1-validation.md", 30)]
    assert "`BasicVector` derives from `VectorBase`" in found[("docs/evidence/e2-validation.md", 28)]
