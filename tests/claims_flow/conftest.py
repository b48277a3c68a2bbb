"""Fixture upstream for the flow claim kinds: tests/fixtures/flow/* committed to
a local git repo, pinned in a temporary pins.toml, served by the mirror provider."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers_upstream import UpstreamSpec, make_git_repo, write_pins

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "flow"
FILES = {
    "src/engine/engine_forward.c": "engine_forward.c",
    "systems/sensors/accel_sensor.cc": "accel_sensor.cc",
    "pkg/solver_adapter.py": "solver_adapter.py",
}


@pytest.fixture
def flow_ctx(tmp_path, monkeypatch):
    """A CheckContext over the fixture upstream `fx` (files at pinned identity)."""
    from verifier.claims.kinds.base import CheckContext
    from verifier.project import load_project

    repo = make_git_repo(tmp_path / "fx.git",
                         {dest: (FIXTURES / src).read_text() for dest, src in FILES.items()})
    pins = write_pins(tmp_path, {"fx": UpstreamSpec(url="https://github.com/example/fx",
                                                    commit=repo.head)})
    monkeypatch.setenv("VERIFIER_MIRRORS", f"fx={repo.path}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    project = load_project(pins)
    return CheckContext(project=project, upstream=project.pins.get("fx"))


def claim(kind: str, path: str | None, symbol: str | None, expected, **options):
    from verifier.claims.model import Claim

    return Claim(id="c1", fragment="fixture fragment", kind=kind, path=path, symbol=symbol,
                 expected=expected, options=options)


C = "src/engine/engine_forward.c"
CPP = "systems/sensors/accel_sensor.cc"
PY = "pkg/solver_adapter.py"
