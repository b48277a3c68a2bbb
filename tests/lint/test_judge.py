"""How lint decides about one reference and one path, on small hand-made indexes and
source layers that stand in for what the `facts` and `sources` helpers provide
(release surface, `SourceLayer.presence`)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from verifier.facts.symbols import Symbol, SymbolIndex
from verifier.lint.resolve import Resolution
from verifier.lint.rules import _judge
from verifier.lint.rules._judge import (closed_container_miss, closed_family_miss, judge,
                                       module_closed)
from verifier.lint.rules._links import (ABSENT, PRESENT, RELEASE_ABSENT, UNKNOWN, _from_layer,
                                        path_presence)
from verifier.lint.shapes import classify


def _index(symbols, *, files=("a.h",), unavailable=(), stars=None, name="up"):
    return SymbolIndex(upstream=name, commit="0" * 40, files={f: "1" * 40 for f in files},
                       unavailable=list(unavailable), symbols=symbols,
                       star_imports=stars or {})


C_SYMS = [Symbol(name="demo_resetState", kind="function", path="a.h", line=3),
          Symbol(name="demoMode_", kind="enum", path="a.h", line=5),
          Symbol(name="demoMode", kind="typedef", path="a.h", line=9, target="demoMode_"),
          Symbol(name="DEMO_FAST", kind="enum_constant", path="a.h", line=6, parent="demoMode_"),
          Symbol(name="DEMO_SAFE", kind="enum_constant", path="a.h", line=7, parent="demoMode_")]


def _ref(text):
    (ref,) = classify(text)
    return ref


def test_near_miss_with_unserved_sources_is_inconclusive():
    idx = _index(C_SYMS, unavailable=["src/engine.c"])
    j = judge([idx], _ref("demo_resetStates"))
    assert j.status == "inconclusive" and j.suggestion == "demo_resetState"
    assert "did you mean `demo_resetState`" in j.how


def test_near_miss_with_complete_sources_is_an_error_with_the_suggestion():
    idx = _index(C_SYMS)
    j = judge([idx], _ref("demo_resetStates"))
    assert j.status == "unresolved" and "did you mean `demo_resetState`" in j.how


def test_member_of_a_served_c_enum_is_conclusive():
    idx = _index(C_SYMS, unavailable=["src/engine.c"])
    assert closed_container_miss([idx], _ref("demoMode.DEMO_SLOW"))
    assert judge([idx], _ref("demoMode.DEMO_SLOW")).status == "unresolved"
    assert judge([idx], _ref("demoMode.DEMO_SAFE")).status == "resolved"
    # an untyped receiver is not a container
    assert judge([idx], _ref("mode.DEMO_SLOW")).status == "inconclusive"


PY = [Symbol(name="pkg", kind="module", path="pkg/__init__.py", line=1, module="pkg"),
      Symbol(name="helper", kind="function", path="pkg/__init__.py", line=3, module="pkg",
             parent="pkg")]


def test_module_closed_only_without_compiled_star_imports_or_unserved_submodules():
    closed = _index(PY, files=["pkg/__init__.py"])
    assert module_closed(closed, ("pkg", "nothing"))
    assert judge([closed], _ref("pkg.nothing")).status == "unresolved"
    star = _index(PY, files=["pkg/__init__.py"], stars={"pkg": ["pkg._native"]},
                  unavailable=["pkg/other.py"])
    assert not module_closed(star, ("pkg", "Thing"))
    assert judge([star], _ref("pkg.Thing")).status == "inconclusive"
    sub = _index(PY, files=["pkg/__init__.py"], unavailable=["src/pkg/extra/__init__.py"])
    assert not module_closed(sub, ("pkg", "extra"))


def test_c_enum_member_through_an_open_module_is_conclusive():
    """`pkg.demoMode.X`: the module star-imports a compiled extension (it may bind
    more names), but the enum it exposes is the header's, which lists every value."""
    idx = _index(PY + C_SYMS, files=["pkg/__init__.py", "a.h"], stars={"pkg": ["pkg._native"]},
                 unavailable=["src/engine.c"])
    assert not module_closed(idx, ("pkg", "demoMode", "DEMO_SLOW"))
    j = judge([idx], _ref("pkg.demoMode.DEMO_SLOW"))
    assert j.status == "unresolved" and "has no member `DEMO_SLOW`" in j.how
    assert judge([idx], _ref("pkg.demoMode.DEMO_SAFE")).status == "resolved"
    assert judge([idx], _ref("pkg.Other.DEMO_SLOW")).status == "inconclusive"


def test_alternative_readings_any_resolves():
    idx = _index(PY + [Symbol(name="qacc", kind="field", path="a.h", line=1, parent="d"),
                       Symbol(name="qacc_smooth", kind="field", path="a.h", line=2, parent="d")],
                 files=["a.h", "pkg/__init__.py"])
    refs = classify("data.qacc_smooth/qacc")
    assert [r.dotted for r in refs] == ["data.qacc_smooth", "data.qacc_qacc"]
    assert judge([idx], refs[1]).status == "resolved"   # read as written: `data.qacc`


def test_a_release_status_becomes_a_warning_on_the_line(demo, monkeypatch):
    """Stand-in for the release-surface producer: the resolver says "not in the pinned
    release" for a name; lint reports it on its line as a warning, not as unchecked."""
    from tests.lint.conftest import lint

    real = _judge._NoNear.resolve

    def fake(self, ref):
        if ref.last == "demo_vanished":
            return Resolution("not-in-release", "not in the pinned release (stubs, runtime)")
        return real(self, ref)

    monkeypatch.setattr(_judge._NoNear, "resolve", fake)
    p = demo.write("release.md", "# R\n\n调用 `demo_vanished` 之前先 `demo_step`。\n")
    fs = [f for f in lint(demo.project(), [p]) if f.path == "docs/release.md"]
    loud = [(f.rule, f.severity.value, f.line, f.target) for f in fs if f.severity != "info"]
    assert loud == [("identifier", "warning", 3, "demo_vanished")]
    assert "not in the pinned release" in fs[0].message


# --------------------------------------------------------------------------- paths


def _ctx(answer):
    layer = SimpleNamespace(presence=lambda u, p: answer(p))
    return SimpleNamespace(project=SimpleNamespace(sources=layer))


@pytest.mark.parametrize("state,expect", [
    ("present", PRESENT), ("release", PRESENT), ("absent", ABSENT),
    ("not-in-release", RELEASE_ABSENT), ("unknown", UNKNOWN)])
def test_path_presence_reads_the_source_layer(state, expect):
    """What `SourceLayer.presence` answers (verifier.sources.models.PathPresence)."""
    from verifier.sources.models import PathPresence, Presence

    answer = PathPresence(upstream="demo", path="include/b.h", state=Presence(state),
                          basis="demo==1.0.0", suggestions=["include/a.h"])
    got = path_presence(_ctx(lambda p: answer), SimpleNamespace(name="demo"), "include/b.h")
    assert got.state == expect
    assert "demo==1.0.0" in got.how and "did you mean include/a.h" in got.how
    assert got.suggestions == ("include/a.h",)


def test_path_presence_of_an_unreadable_answer_is_unknown():
    assert _from_layer(object()) is None
    got = path_presence(_ctx(lambda p: object()), SimpleNamespace(name="demo"), "x")
    assert got.state == UNKNOWN


def test_a_nested_class_named_bare_is_not_a_closed_container():
    """`Impl._construct` in a lesson about Python: the served C++ sources define only
    `Pool::Impl` (an out-of-line nested class); a missing member of it says nothing
    about the `Impl` the lesson means. A top-level class without bases stays closed."""
    syms = [Symbol(name="Pool", kind="class", path="pool.cc", line=3, lang="cpp", qual=("Pool",)),
            Symbol(name="Impl", kind="class", path="pool.cc", line=8, lang="cpp", parent="Pool",
                   qual=("Pool", "Impl")),
            Symbol(name="capacity", kind="method", path="pool.cc", line=10, parent="Impl",
                   qual=("Pool", "Impl", "capacity"))]
    idx = _index(syms, files=["pool.cc"], unavailable=["bindings/py/scalar.py"])
    assert judge([idx], _ref("Impl._construct")).status == "inconclusive"
    assert judge([idx], _ref("Impl.capacity")).status == "resolved"
    assert judge([idx], _ref("Pool.drain")).status == "unresolved"


def test_out_of_line_nested_class_keeps_its_enclosing_class():
    from verifier.facts.extract import facts_for

    src = ("namespace demo {\nclass Pool {\n public:\n  class Impl;\n};\n"
           "class Pool::Impl {\n public:\n  int capacity() const;\n};\n}  // namespace demo\n")
    quals = {s.name: s.qual for s in facts_for("src/pool.cc", src, None).syms}
    assert quals["Impl"] == ("demo", "Pool", "Impl")
    assert quals["capacity"] == ("demo", "Pool", "Impl", "capacity")


def test_a_helper_struct_local_to_several_implementation_files_is_not_closed():
    two = [Symbol(name="Impl", kind="struct", path=f"bindings/{f}_py.cc", line=9, lang="cpp",
                  parent="pydrake", qual=("drake", "pydrake", "Impl")) for f in ("systems", "traj")]
    idx = _index(two, files=["bindings/systems_py.cc", "bindings/traj_py.cc"],
                 unavailable=["bindings/py/scalar.py"])
    assert judge([idx], _ref("Impl._construct")).status == "inconclusive"
    one = _index(two[:1], files=["bindings/systems_py.cc"], unavailable=["bindings/py/scalar.py"])
    assert judge([one], _ref("Impl._construct")).status == "unresolved"


FAMILY = [Symbol(name="demoModel_", kind="struct", path="a.h", line=2),
          Symbol(name="demoModel", kind="typedef", path="a.h", line=20, target="demoModel_"),
          *[Symbol(name=f"jnt_{n}", kind="field", path="a.h", line=3 + i, parent="demoModel_")
            for i, n in enumerate(("type", "qposadr", "dofadr", "bodyid"))],
          Symbol(name="jnt_scratch", kind="parameter", path="pkg/kernels.py", line=4,
                 parent="step")]


def test_a_bare_name_of_a_served_struct_field_family_is_no_field():
    idx = _index(FAMILY, files=("a.h", "pkg/kernels.py"), unavailable=["src/engine.c"])
    miss = closed_family_miss([idx], _ref("jnt_qveladr"))
    assert miss and "no field `jnt_qveladr` in C struct `demoModel`" in miss
    assert "`jnt_dofadr`" in miss and "a.h:2" in miss
    # qualified names, other prefixes, and a family under FAMILY_MIN fields say nothing
    assert closed_family_miss([idx], _ref("model.jnt_qveladr")) is None
    assert closed_family_miss([idx], _ref("geom_xpos")) is None
    small = _index(FAMILY[:4], files=("a.h",), unavailable=["src/engine.c"])
    assert closed_family_miss([small], _ref("jnt_qveladr")) is None
    # fields declared outside a served header (a Python class) make no family
    py = [s._replace(path="pkg/types.py") if s.kind == "field" else s
          for s in FAMILY]
    assert closed_family_miss([_index(py, files=("a.h", "pkg/types.py"))],
                              _ref("jnt_qveladr")) is None


def test_a_family_miss_is_an_error_only_when_no_served_text_writes_the_name():
    from verifier.lint.rules.identifier import _field_family

    idx = _index(FAMILY, files=("a.h", "pkg/kernels.py"), unavailable=["src/engine.c"])
    texts = {"a.h": "struct demoModel_ { int jnt_type; };",
             "pkg/kernels.py": "# jnt_warm is what the old solver kept\n"}
    ctx = SimpleNamespace(source=lambda up, path: (None, texts[path]))
    was = _judge.Judgement("inconclusive", "no symbol")
    j = _field_family(ctx, [idx], _ref("jnt_qveladr"), was)
    assert j.status == "unresolved" and "no field `jnt_qveladr`" in j.how
    # a comment that writes the name: the lesson may be quoting it
    assert _field_family(ctx, [idx], _ref("jnt_warm"), was) is was
