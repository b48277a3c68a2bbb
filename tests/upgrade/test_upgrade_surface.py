"""The release surface of the names the lessons use, old version against new, on a
compiled-module-like fixture package (`cmod`: its wheel ships `.pyi` stubs and no
source file, like Drake's), and the docstring readers on pybind11- and nanobind-style
docstrings written for these tests.

With `--offline` no environment of the new version is built, so the stubs decide;
the environment tests build both versions' environments from a local index."""

from __future__ import annotations

import pytest

from tests.helpers_upstream import UpstreamSpec, make_index, make_wheel, write_pins
from verifier.facts.model import FileFacts, Param, Sym
from verifier.project import load_project
from verifier.upgrade import run_upgrade
from verifier.upgrade.model import LinkStatus
from verifier.upgrade.surface import Side, code_names, compare_key, doc_signatures, split_doc

V1 = "1" * 40

STUB_V1 = '''def step(model: Model, data: Data) -> None: ...
def make_solver(kind: str = ...) -> Solver: ...
def reset(data: Data) -> None: ...
class Model:
    def get_x(self) -> float: ...
    @property
    def gravity(self) -> float: ...
'''
STUB_V2 = '''def step(model: Model, data: Data, nstep: int = ...) -> None: ...
def make_solvers(kind: str = ...) -> list[Solver]: ...
class Model:
    def get_x(self) -> Annotated[NDArray[numpy.float64], dict(shape=(3,))]: ...
    @property
    def gravity(self) -> float: ...
'''
LESSON = """# cmod

Step with `cmod.step(model, data)`; a solver from `cmod.make_solver()`; `cmod.reset(d)`
clears it; `Model.get_x()` reads x. The C++ is [here]({cc}).
"""


def _module(version: str, stub: str) -> dict[str, str]:
    return {"cmod/__init__.pyi": stub, "cmod/__init__.py": f"__version__ = {version!r}\n"}


@pytest.fixture
def cx(tmp_path, monkeypatch):
    dist = tmp_path / "dist"
    wheels = [make_wheel(dist, "cmod", "1.0.0", _module("1.0.0", STUB_V1)),
              make_wheel(dist, "cmod", "2.0.0", _module("2.0.0", STUB_V2))]
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_INDEX_URL", make_index(tmp_path / "index", wheels))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    root = tmp_path / "project"
    docs = root / "course" / "docs"
    docs.mkdir(parents=True)
    (docs / "lesson.md").write_text(LESSON.format(
        cc=f"https://github.com/o/cmod/blob/{V1}/src/cmod.cc#L1-L3"))
    pins = write_pins(root, {"cmod": UpstreamSpec(url="https://github.com/o/cmod", commit=V1)},
                      courses={"course": ("course", ["cmod"])})
    pins.write_text(pins.read_text().replace('version = "1.0.0"\n',
                                             'version = "1.0.0"\nruntime = ["cmod==1.0.0"]\n', 1))
    return pins


def test_release_surface_upgrade_without_source(cx, monkeypatch):
    # the wheels are fetched first (online), then the upgrade runs offline: no env is built
    from verifier.pins import Wheel
    from verifier.sources.wheel import WheelSource

    project = load_project(cx)
    for req in ("cmod==1.0.0", "cmod==2.0.0"):
        assert WheelSource(project.store, Wheel(requirement=req),
                           index_url=project.config.index_url).listing()
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")
    report = run_upgrade(load_project(cx), "cmod", "2.0.0", runtime="none")
    assert report.new.identity == "release" and "release surface" in report.new.provider
    got = {(c.symbol, c.change): c for c in report.surface.changes}
    assert set(got) == {("cmod:step", "signature"), ("cmod:make_solver", "renamed"),
                        ("cmod:reset", "removed")}
    step = got[("cmod:step", "signature")]
    assert step.old == ["step(model, data)"] and step.new == ["step(model, data, nstep = …)"]
    assert step.lessons == {"course/docs/lesson.md": [3]}
    assert got[("cmod:make_solver", "renamed")].renamed_to == "cmod:make_solvers"
    # an annotation spelled differently (`float` -> `numpy.ndarray[...]`) is no change
    assert not any(c.symbol == "cmod:Model.get_x" for c in report.surface.changes)
    # the C++ permalink needs git, with the command that would check it
    link = report.lessons[0].links[0]
    assert link.status is LinkStatus.UNAVAILABLE and link.needs_git
    assert report.needs_git.files == {"src/cmod.cc": 1}
    assert report.needs_review           # a signature change, a removal: the author looks
    assert any("no environment of the new version" in n for n in report.surface.notes)


def _sym(name, kind="function", params=None, qual=None, decorators=()):
    return Sym(name=name, kind=kind, qual=qual or (name,), start=0, end=0,
               params=None if params is None else tuple(Param(*p) for p in params),
               decorators=tuple(decorators))


def _side(*syms, producer="stub", mod="m"):
    side = Side()
    side.add([FileFacts(path=mod, blob=None, lang="python", syms=tuple(syms), module=mod)],
             producer)
    return side


def test_compare_key_kinds_of_change():
    old = _side(_sym("f", params=[("a",), ("b", "1")]), _sym("g"), _sym("C", "class"),
                _sym("p", "method", [("self",)], ("C", "p"), ["property"]))
    new = _side(_sym("f", params=[("a",), ("b", "2")]), _sym("C", "function"),
                _sym("p", "attribute", None, ("C", "p")))
    assert compare_key(("m", ("f",)), old, new, {}, {}) == [
        ("default", {"b": "1"}, {"b": "2"}, "stub", None)]
    assert compare_key(("m", ("g",)), old, new, {}, {})[0][0] == "removed"
    assert compare_key(("m", ("C",)), old, new, {}, {})[0][:3] == ("kind", "class", "function")
    # a property read as a method by one stub generator and an attribute by another
    assert compare_key(("m", ("C", "p")), old, new, {}, {}) == []
    # a producer that has nothing at the new version decides nothing
    assert compare_key(("m", ("f",)), old, Side(), {}, {}) == []


PYBIND = """step(*args, **kwargs)
Overloaded function.

1. step(self: m.Sim, n: int = 1) -> None

Advances the simulation.

2. step(self: m.Sim, n: int, dt: float) -> None

Advances the simulation.

Members:

kA : first
"""
NANOBIND = """step(self, n: int = 1) -> None
step(self, n: int, dt: float) -> None

Overloaded function.

1. ``step(self, n: int = 1) -> None``

Advances the simulation.

2. ``step(self, n: int, dt: float) -> None``

Advances the simulation."""


def test_docstrings_of_two_binding_generators_say_the_same():
    assert split_doc(PYBIND)[1] == split_doc(NANOBIND)[1] == "Advances the simulation."
    assert doc_signatures(split_doc(PYBIND)[0]) == doc_signatures(split_doc(NANOBIND)[0]) == [
        ("step", (("n", None), ("dt", None))), ("step", (("n", "1"),))]
    key = ("m", ("Sim", "step"))
    side = _side(_sym("step", "method", None, ("Sim", "step")), producer="introspection")
    docs = {"m:Sim.step": PYBIND, "m:Sim": "A sim."}
    assert compare_key(key, side, side, docs, {"m:Sim.step": NANOBIND, "m:Sim": "A sim."}) == []
    changed = NANOBIND.replace("n: int = 1", "n: int = 2")
    assert compare_key(key, side, side, docs, {"m:Sim.step": changed})[0][0] == "default"
    added = NANOBIND.replace("dt: float)", "dt: float, k: int)")
    assert compare_key(key, side, side, docs, {"m:Sim.step": added})[0][0] == "signature"
    text = NANOBIND.replace("Advances the simulation.", "Advances it twice.", 1)
    assert [c[0] for c in compare_key(key, side, side, docs, {"m:Sim.step": text})] == [
        "docstring"]


def test_code_names_of_a_snippet():
    code = ("from cmod.sim import Sim as S\nimport numpy as np\ns = S()\n"
            "s.Advance(1.0).copy()\nname.lower()\nx = np.zeros(3)\n")
    assert code_names(code) == ["cmod.sim.Sim", "numpy.zeros", "s.Advance"]
    assert code_names("this is (not python") == []





PKG = '''"""vfxcmod {version}: a fixture module shaped like compiled bindings."""


class Sim:
    def advance(self, n, dt=0.{dt}):
        """advance(self, n: int, dt: float = 0.{dt}) -> None

{doc}"""
        return n


def step_count(n):
    return n * {factor}
'''

RT_CLAIMS = """lesson = "docs/lesson.md"
upstream = "vfxcmod"

[[claim]]
id = "step-count-doubles"
fragment = "doubles the count"
kind = "runtime"

[claim.runtime]
code = '''
result = vfxcmod.step_count(2)
'''
expected = 4

[[claim]]
id = "slow-first-call"
fragment = "steps"
kind = "runtime"

[claim.runtime]
code = '''
import time
time.sleep(1.5)
result = 1
'''
expected = 1
timeout = 0.5
"""


@pytest.mark.runtime
def test_runtime_claims_rerun_in_an_environment_of_the_new_version(tmp_path, monkeypatch):
    """Both versions' environments are built from a local index; the runtime claim is
    refuted at the new version (beside its static verdict), and the docstring and the
    default the introspection of both environments reads are compared."""
    dist = tmp_path / "dist"
    files = {v: {"vfxcmod/__init__.py": PKG.format(version=v, dt=dt, doc=doc, factor=f)}
             for v, dt, doc, f in (("1.0.0", 5, "Advances the sim.", 2),
                                   ("2.0.0", 1, "Advances the sim twice.", 3))}
    wheels = [make_wheel(dist, "vfxcmod", v, fs) for v, fs in files.items()]
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_INDEX_URL", make_index(tmp_path / "index", wheels))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    root = tmp_path / "project"
    (root / "course" / "docs").mkdir(parents=True)
    (root / "course" / "docs" / "lesson.md").write_text(
        "# vfxcmod\n\n`vfxcmod.step_count(n)` doubles the count; `Sim.advance(n)` steps.\n")
    pins = write_pins(root, {"vfxcmod": UpstreamSpec(url="https://github.com/o/vfxcmod",
                                                     commit=V1)},
                      courses={"course": ("course", ["vfxcmod"])})
    pins.write_text(pins.read_text().replace(
        'version = "1.0.0"\n', 'version = "1.0.0"\nruntime = ["vfxcmod==1.0.0"]\n', 1))
    (root / "claims" / "course").mkdir(parents=True)
    (root / "claims" / "course" / "lesson.toml").write_text(RT_CLAIMS)
    from verifier.runtime.envs import EnvSpec, RuntimeEnvError, create_env

    project = load_project(pins)
    try:   # the old side's pinned environment, as `verifier env create` builds it
        create_env(project.store, EnvSpec.from_upstream(project.pins.get("vfxcmod")),
                   index_url=project.config.index_url)
    except RuntimeEnvError as exc:
        pytest.skip(f"cannot build an environment here: {exc.message[:200]}")
    report = run_upgrade(load_project(pins), "vfxcmod", "2.0.0", runtime="all")
    [change] = [c for ls in report.lessons for c in ls.claims]
    assert (change.old_verdict, change.new_verdict) == ("verified", "diverged")
    assert (change.old_runtime.status, change.new_runtime.status) == ("confirmed", "refuted")
    assert (change.old_runtime.value, change.new_runtime.value) == (4, 6)
    assert change.needs_review and change.code == "VU112"
    assert report.claims.runtime == "all" and report.claims.runtime_changed == 1
    assert any(e.startswith("new vfxcmod:") and "vfxcmod==2.0.0" in e
               for e in report.claims.environments)
    # a check that runs out of time runs once more with a longer limit (both sides): the
    # slow one passes on the retry, so it changes nothing
    assert sum("1 check(s) timed out and ran again" in e and "0 timed out again" in e
               for e in report.claims.environments) == 2
    got = {(c.symbol, c.change): c for c in report.surface.changes}
    assert set(got) == {("vfxcmod:Sim.advance", "default"), ("vfxcmod:Sim.advance", "docstring")}
    assert got[("vfxcmod:Sim.advance", "docstring")].new == "Advances the sim twice."


def test_doc_delta_says_what_changed():
    from verifier.upgrade.surface import doc_delta

    assert doc_delta("Steps the model.\n\nArgs: n: int", "Steps the model.\n\nArgs: n: int dt: float") \
        == ["~ …Args: n: int [+dt: float+]…"]
    assert doc_delta(["f(a, b=1)"], ["f(a, c=2)"]) == ["  f(…): parameters", "- b", "+ c"]
    assert doc_delta({"b": "1"}, {"b": "2"}) == ["- b=1", "+ b=2"]
    assert doc_delta("One.\n\nTwo.", "One.") == ["- Two."]
