"""With the local upstream snapshots configured as mirrors (object lookup only:
they lack the pinned commits), more Drake files are available at pinned identity,
so more of the Drake lesson is checked - and still nothing is passed unchecked."""

from __future__ import annotations

import pytest

from verifier.lint import run_lint

pytestmark = [pytest.mark.mirror, pytest.mark.wheels]


def test_drake_lesson_with_mirrors(mirrors, real_project):
    if "drake" not in mirrors:
        pytest.skip("no drake snapshot")
    lessons = [d for d in real_project.lessons() if d.course == "drake-atlas"]
    fs = run_lint(real_project, lessons)
    assert [f for f in fs if f.severity == "error"] == []
    un = [f for f in fs if f.rule == "source-unavailable" and f.upstream == "drake"]
    assert len(un) == 1
    unchecked = un[0].data["unchecked"]
    # the pybind sources of pydrake.systems.sensors are served: the imports resolve
    assert "codeblock" not in unchecked
    left = {u["target"] for u in unchecked["identifier"]}
    assert "AddToDiagram" not in left and "Accelerometer" not in left
    # multibody_plant.{h,cc} are not in the snapshot at the pinned blob: still unchecked
    assert "plant.get_reaction_forces_output_port" in left
    anchors = [f for f in fs if f.rule == "permalink-anchor"]
    assert any(f.data["path"] == "systems/sensors/accelerometer.h" for f in anchors)
