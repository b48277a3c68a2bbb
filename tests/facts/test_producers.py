"""The two Python producers held to the same tests (griffe's visitor and inspector):
the static producer (`facts/python.py`, `pyclass.py`, `pymodule.py`) and the runtime
inspector (`facts/introspect.py`) must describe every modern-Python construct the same
way (`facts/agreement.py` compares them construct by construct).

(a) our own fixture package (tests/fixtures/producers/fixmods: dataclasses, pydantic,
attrs, NamedTuple, TypedDict, enums, properties, slots, overloads, lazy re-exports,
import aliases), introspected with this interpreter; (b) the pinned newton 1.6.1 and
warp-lang 1.18.0 wheels against the pinned newton runtime environment (built from PyPI
into the session cache, as tests/runtime/test_real_envs.py does)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from verifier.facts import python as pyfacts
from verifier.facts import release
from verifier.facts.agreement import CONSTRUCTS, LEGITIMATE, compare

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "producers"


def _static() -> list:
    return [pyfacts.extract(p.relative_to(ROOT).as_posix(), p.read_bytes())
            for p in sorted(ROOT.rglob("*.py"))]


def _introspect(python: str, roots: list[str], paths: list[str], out: Path, env=None) -> dict:
    res = subprocess.run([python, "-I", str(release.SCRIPT), json.dumps(roots), str(out),
                          json.dumps(paths)], capture_output=True, text=True, env=env,
                         cwd=out.parent, timeout=900)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def fixture_runtime(tmp_path_factory):
    out = tmp_path_factory.mktemp("introspect") / "surface.json"
    data = _introspect(sys.executable, ["fixmods"], [str(ROOT)], out)
    assert data["errors"] == {}
    return release._records_from(data, "fixture")


def _by(facts, qual):
    return {s.qual: s for s in facts.syms}[tuple(qual.split("."))]


def test_static_facts_of_the_fixture_package():
    f = {x.path: x for x in _static()}
    models, kinds, init = f["fixmods/models.py"], f["fixmods/kinds.py"], f["fixmods/__init__.py"]
    ctor = _by(models, "StepConfig.__init__")
    assert ctor.origin == "generated" and "dataclass" in ctor.traits
    assert [(p.name, p.default) for p in ctor.params] == [
        ("dt", None), ("substeps", "4"), ("gravity", "(0.0, 0.0, -9.81)"), ("names", "list()"),
        ("seed", "0")]                     # InitVar in, init=False and ClassVar out
    assert _by(models, "StepConfig.registry").kind == "attribute"
    assert "initvar" in _by(models, "StepConfig.seed").traits
    # inherited fields first, keyword-only ones (the KW_ONLY marker) last
    solver = _by(models, "SolverConfig.__init__")
    assert [p.name for p in solver.params][-4:] == ["iterations", "verbose", "tolerance", "seed"] \
        or [p.name for p in solver.params] == ["dt", "substeps", "gravity", "names", "seed",
                                               "iterations", "verbose", "tolerance"]
    assert solver.params[-1].kind == "keyword_only" and solver.params[-1].name == "tolerance"
    pyd = _by(models, "SolverOptions.__init__")
    assert [(p.name, p.kind) for p in pyd.params] == [
        ("iterations", "keyword_only"), ("relaxation", "keyword_only"),
        ("warm_start", "keyword_only"), ("joints", "keyword_only"), ("label", "keyword_only"),
        ("**extra_data", "var_keyword")]
    assert _by(models, "SolverOptions.relaxation").value == "0.8"
    assert _by(models, "SolverOptions.name").value is None          # Field(...) without default
    assert "validator" in _by(models, "SolverOptions.positive").traits
    assert [p.name for p in _by(models, "Actuator.__init__").params] == ["gain", "limits",
                                                                         "spare", "name"]
    assert [p.name for p in _by(models, "Sensor.__init__").params] == ["rate", "channels",
                                                                       "offset", "noise"]
    assert [p.name for p in _by(models, "Contact.__init__").params] == ["body_a", "body_b",
                                                                        "depth"]
    assert ("Report", "__init__") not in {s.qual for s in models.syms}   # a TypedDict: no ctor
    assert "not_required" in _by(models, "Sample.label").traits
    assert [(s.name, s.value) for s in kinds.children(_by(kinds, "Priority"))] == [
        ("LOW", "5"), ("HIGH", "6"), ("MID", "2"), ("URGENT", "7")]
    assert [s.value for s in kinds.children(_by(kinds, "Channels"))] == ["1", "2", "8", "16"]
    assert _by(kinds, "Backend.CPU").value == "'cpu'"
    assert _by(kinds, "World.time").traits == ("property", "settable")
    assert _by(kinds, "World.layout").traits == ("cached_property",)
    assert _by(kinds, "World.state").origin == "self"               # set in build()
    assert [s.traits for s in kinds.syms if s.qual == ("World", "step")] == [
        ("overload",), ("overload",), ()]
    assert {s.name for s in kinds.syms if "slot" in s.traits} == {"site", "value"}
    assert init.exports == ("SolverOptions", "StepConfig", "World", "Probe", "kinds_mod")
    lazy = {s.name: s.value for s in init.syms if "lazy" in s.traits}
    assert lazy == {"World": "fixmods.kinds.World", "Probe": None}
    assert _by(init, "kinds_mod").value == "fixmods.kinds"


def test_the_producers_agree_on_the_fixture_package(fixture_runtime):
    a = compare(_static(), fixture_runtime)
    print(a.table())
    assert a.disagreements() == []
    # every construct class was compared (the test cannot pass by comparing nothing)
    assert {c: a.tallies[c].compared for c in CONSTRUCTS if not a.tallies[c].compared} == {}
    assert a.classes >= 18 and a.modules == 3
    # what is counted apart is a documented class
    assert set(a.apart) <= set(LEGITIMATE)


def test_a_disagreement_is_reported(fixture_runtime):
    """The comparison can fail: a static record with a field dropped and a default
    changed disagrees."""
    from dataclasses import replace

    static = _static()
    models = next(f for f in static if f.path == "fixmods/models.py")
    syms = [s for s in models.syms if s.qual != ("StepConfig", "substeps")]
    syms = [replace(s, value="5.0") if s.qual == ("ContactConfig", "damping") else s
            for s in syms]
    static[static.index(models)] = replace(models, syms=tuple(syms))
    got = compare(static, fixture_runtime).disagreements()
    assert any(d.startswith("fields: fixmods.models:StepConfig") for d in got), got
    assert any("ContactConfig.damping" in d for d in got), got


# --------------------------------------------------------------------------- real wheels


def _wheel_records(project, upstream: str) -> list:
    from verifier.sources.wheel import WheelSource

    out = []
    for wheel in project.pins.get(upstream).wheel:
        ws = WheelSource(project.store, wheel, offline=project.config.offline,
                         index_url=project.config.index_url)
        ws.files()
        assert ws.archive_name, ws.error
        with zipfile.ZipFile(ws.dir / ws.archive_name) as zf:
            for name in sorted(zf.namelist()):
                if name.endswith(".py"):
                    out.append(pyfacts.extract(name, zf.read(name)))
    return out


@pytest.mark.wheels
@pytest.mark.runtime
def test_the_producers_agree_on_the_pinned_newton_and_warp_wheels(real_project, tmp_path):
    from verifier.cache import Store
    from verifier.runtime.envs import EnvSpec, RuntimeEnvError, create_env

    store = real_project.store
    keep = os.environ.get("VERIFIER_TEST_RUNTIME_CACHE")
    if keep:
        store = Store(Path(keep))
    spec = EnvSpec.from_upstream(real_project.pins.upstream["newton"])
    try:
        info = create_env(store, spec)
    except RuntimeEnvError as exc:
        try:
            socket.create_connection(("pypi.org", 443), timeout=5).close()
        except OSError:
            pytest.skip(f"cannot build the newton environment without PyPI: {exc.message[:200]}")
        raise
    python = str(info.python)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["WARP_CACHE_PATH"] = str(tmp_path / "warp-cache")
    data = _introspect(python, ["newton", "warp"], [], tmp_path / "surface.json", env)
    runtime = release._records_from(data, "newton env")
    static = _wheel_records(real_project, "newton") + _wheel_records(real_project, "warp")
    a = compare(static, runtime)
    print(f"\n{a.classes} classes, {a.modules} modules; import errors: {len(data['errors'])}")
    print(a.table())
    assert a.disagreements() == []
    assert a.classes >= 300
    for construct, least in (("flavour", 300), ("fields", 30), ("field defaults", 200),
                             ("constructor", 200), ("enum members", 40), ("properties", 100),
                             ("class attributes", 50), ("methods", 150), ("module exports", 10)):
        assert a.tallies[construct].compared >= least, (construct, a.tallies[construct])
    assert set(a.apart) <= set(LEGITIMATE)
