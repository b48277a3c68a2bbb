"""The per-language extractors on fixtures written for these tests (shaped like
upstream code: a MuJoCo-style C header, Drake-style C++ and pybind11 bindings,
Newton-style Python)."""

from __future__ import annotations

import json

import pytest

from verifier.facts import names
from verifier.facts.extract import UnsupportedLanguage, extract_bytes
from verifier.facts.model import (KEYWORD_ONLY, POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD,
                                  VAR_KEYWORD, VAR_POSITIONAL, FileFacts)

C_HEADER = b"""// Copyright notice of the fixture.

//---------------------------------- simData -----------------------------------

// Advance the simulation by one step.
// Calls the control callback first.
MJAPI void sim_step(const simModel* m, simData* d);

typedef enum simtState_ {        // state components
  simSTATE_TIME     = 1<<0,      // time
  simSTATE_QPOS     = 1<<1,      // position
  simSTATE_PHYSICS  = simSTATE_TIME | simSTATE_QPOS
} simtState;

struct simData_ {
  int       nq;                  // number of generalized coordinates
  double**  pp;                  // double pointer
  int       (*cb)(int, double);  // callback: function-pointer field
  double    xpos[3];             // array
  union {
    int     as_int;
    float   as_float;
  };
};
typedef struct simData_ simData;

#define simMINVAL 1E-15          // minimum value in any denominator
static int helper(int x) { int local = x; return local; }
"""


def _by_qual(facts: FileFacts) -> dict:
    return {s.qual: s for s in facts.syms}


def test_c_header_fields_pointers_docs():
    f = extract_bytes("include/sim/simdata.h", C_HEADER, None)
    assert f.lang == "c" and f.parse_errors == 0
    q = _by_qual(f)
    step = q[("sim_step",)]
    assert step.kind == "function" and [p.name for p in step.params] == ["m", "d"]
    assert step.doc == "Advance the simulation by one step.\nCalls the control callback first."
    # double pointers, function-pointer fields, arrays, anonymous-union members: all fields
    for name in ("nq", "pp", "cb", "xpos", "as_int", "as_float"):
        assert q[("simData_", name)].kind == "field", name
    assert q[("simData_", "nq")].doc == "number of generalized coordinates"
    assert q[("simData_", "cb")].doc == "callback: function-pointer field"
    assert ("cb",) not in q                     # a function-pointer field is no function
    assert q[("simtState_",)].doc == "state components"      # after the opening brace
    assert q[("simtState",)].value == "simtState_" and q[("simtState",)].origin == "tag"
    assert q[("simtState",)].doc == "state components"
    assert q[("simtState_", "simSTATE_QPOS")].value == "1<<1"
    assert q[("simtState_", "simSTATE_QPOS")].doc == "position"
    assert q[("simData",)].value == "simData_"
    assert q[("simMINVAL",)].value == "1E-15"
    assert q[("simMINVAL",)].doc == "minimum value in any denominator"
    assert q[("simData_",)].doc is None          # a blank line and a rule do not attach
    assert "local" not in {s.name for s in f.syms}


CPP = b"""namespace drake {
namespace systems::sensors {

/// A sensor that measures things.
/// Second line of its doc.
template <typename T>
class Gauge final : public LeafSystem<T> {
 public:
  /// Constructs the gauge.
  explicit Gauge(const Body<T>& body, double rate = 1.0);
  const InputPort<T>& get_body_input_port() const;
  bool operator()(int i) const;
  int count_{0};  ///< how many readings
 private:
  void CalcReading(const Context<T>& c, BasicVector<T>* out) const;
};

template <typename T>
Gauge<T>::Gauge(const Body<T>& body, double rate)
    : LeafSystem<T>(SystemTypeTag<Gauge>{}) {
  this->DeclareAbstractInputPort("body_poses", Value<std::vector<Pose>>());
  this->template DeclareVectorOutputPort<double>("reading", 3, &Gauge::CalcReading);
  DeclareVectorInputPort(kUseDefaultName, 6);
  auto helper = [this]() { this->DeclareAbstractOutputPort("in_lambda", &Gauge::Calc); };
}

template <typename T>
void Gauge<T>::CalcReading(const Context<T>& c, BasicVector<T>* out) const {}

}  // namespace systems::sensors
}  // namespace drake
"""


def test_cpp_templates_out_of_line_ports_docs():
    f = extract_bytes("systems/sensors/gauge.cc", CPP, None)
    assert f.lang == "cpp" and f.parse_errors == 0
    q = _by_qual(f)
    cls = q[("drake", "systems", "sensors", "Gauge")]
    assert cls.kind == "class" and cls.value == "LeafSystem<T>"
    assert cls.doc == "A sensor that measures things.\nSecond line of its doc."
    ctors = [s for s in f.syms if s.qual == cls.qual + ("Gauge",)]
    assert [c.kind for c in ctors] == ["constructor", "constructor"]     # in-class + out-of-line
    assert ctors[0].doc == "Constructs the gauge."
    assert [(p.name, p.default, p.kind) for p in ctors[0].params] == [
        ("body", None, POSITIONAL_OR_KEYWORD), ("rate", "1.0", POSITIONAL_OR_KEYWORD)]
    assert ctors[1].line == ctors[1].start + 1 or ctors[1].line is None
    assert q[cls.qual + ("count_",)].doc == "how many readings"
    assert q[cls.qual + ("count_",)].value == "0"
    assert q[cls.qual + ("operator()",)].kind == "method"
    calc = [s for s in f.syms if s.qual == cls.qual + ("CalcReading",)]
    assert len(calc) == 2 and all(c.kind == "method" for c in calc)
    # ports declared by string literal, parent = the class; kUseDefaultName is no name
    ports = {s.name: s for s in f.syms if s.kind == "port"}
    assert set(ports) == {"body_poses", "reading", "in_lambda"}
    assert ports["reading"].qual == cls.qual + ("reading",)
    assert ports["reading"].value == "DeclareVectorOutputPort" and ports["reading"].origin == "literal"
    # literal-declared names stay out of member lists and plain lookups unless asked for
    assert "reading" not in {c.name for c in f.children(cls)}
    assert not f.find(("Gauge", "reading"), transparent={"namespace"})
    assert f.find(("Gauge", "reading"), kinds={"port"}, transparent={"namespace"})


PYBIND = b"""void DefineGauge(py::module m) {
  using Class = Gauge<T>;
  DefineTemplateClassWithDefault<Gauge<T>, LeafSystem<T>>(m, "Gauge", param, doc.Gauge.doc)
      .def(py::init<const Body<T>&, double>(), py::arg("body"), py::kw_only(),
          py::arg("rate") = 1.0)
      .def("get_body_input_port", &Class::get_body_input_port, py_rvp::reference_internal);
  py::class_<Range> range(m, "Range");
  range.def(py::init<double, double>(), py::arg("near"), py::arg("far"))
      .def_readwrite("near", &Range::near);
  auto cfg = py::class_<Config>(m, "Config");
  cfg.def("Validate", &Config::Validate, py::arg("strict"), py::pos_only(), py::arg("loud"));
  py::enum_<Mode>(m, "Mode").value("kFast", Mode::kFast).value("kSlow", Mode::kSlow);
  m.def("MakeGauge", &MakeGauge, py::arg("name"));
}
"""


def test_pybind_chains_keywords_kinds():
    f = extract_bytes("bindings/pydrake/systems/sensors_py_gauge.cc", PYBIND, None)
    q = {(s.qual, s.kind): s for s in f.syms if s.origin == "pybind11"}
    assert {k for k in q if k[1] == "class"} == {
        (("Gauge",), "class"), (("Range",), "class"), (("Config",), "class"), (("Mode",), "class")}
    init = q[(("Gauge", "__init__"), "constructor")]
    assert [(p.name, p.default, p.kind) for p in init.params] == [
        ("body", None, POSITIONAL_OR_KEYWORD), ("rate", "1.0", KEYWORD_ONLY)]
    assert (("Gauge", "get_body_input_port"), "method") in q
    assert (("Range", "near"), "attribute") in q
    assert [p.kind for p in q[(("Config", "Validate"), "method")].params] == [
        POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD]
    assert (("Mode", "kFast"), "enumerator") in q and (("Mode", "kSlow"), "enumerator") in q
    assert [p.name for p in q[(("MakeGauge",), "function")].params] == ["name"]
    # bound names in source order on the class (the `members` claim kind reads this)
    assert [c.name for c in f.children(("Gauge",))] == ["__init__", "get_body_input_port"]


PY = b'''"""Sensors of the fixture package."""

from __future__ import annotations

import numpy as np
from . import utils
from .._core import Model as _Model, State
from .native import *

__all__ = ["SensorA", "make"]
__all__ += ["extra"]

x, (y, *z) = 1, (2, 3)
"""Docstring of the tuple assignment."""

for loop_var in range(2):
    inside_for = loop_var
with open("f") as fh, ctx() as (wa, wb):
    inside_with = 1

\x0c
class SensorA:
    """Measures A."""

    b, c = 3, 4
    rate: float = 60.0
    """Sampling rate."""

    def __init__(self, model, /, key=1, *args, strict, scale=2.0, **options):
        """Builds it."""
        self.model = model
        self.first, self.second = key, scale

    def reset(me):
        me.buffer = None

    @staticmethod
    def make_default(n, m=3):
        return SensorA(n)


def make(kind="imu", *, device=None):
    def inner():
        pass
    return kind
'''


def test_python_targets_imports_docs_form_feed():
    f = extract_bytes("pkg/sensors/__init__.py", PY, None)
    assert f.lang == "python" and f.module == "pkg.sensors" and f.doc == "Sensors of the fixture package."
    q = _by_qual(f)
    for name in ("x", "y", "z", "loop_var", "inside_for", "fh", "wa", "wb", "inside_with"):
        assert q[(name,)].kind == "variable", name
    assert q[("x",)].doc == "Docstring of the tuple assignment."
    assert q[("SensorA", "b")].kind == q[("SensorA", "c")].kind == "attribute"
    rate = q[("SensorA", "rate")]
    # the form feed before the class shifts no offsets (str.splitlines would)
    assert rate.kind == "field" and rate.value == "60.0" and rate.doc == "Sampling rate."
    init = q[("SensorA", "__init__")]
    assert init.doc == "Builds it."
    assert [(p.name, p.default, p.kind) for p in init.params] == [
        ("model", None, POSITIONAL_ONLY), ("key", "1", POSITIONAL_OR_KEYWORD),
        ("*args", None, VAR_POSITIONAL), ("strict", None, KEYWORD_ONLY),
        ("scale", "2.0", KEYWORD_ONLY), ("**options", None, VAR_KEYWORD)]
    assert q[("SensorA", "model")].origin == "__init__" and q[("SensorA", "model")].value == "model"
    assert q[("SensorA", "first")].origin == q[("SensorA", "second")].origin == "__init__"
    assert q[("SensorA", "buffer")].origin == "self"           # self.x outside __init__
    assert [p.name for p in q[("SensorA", "make_default")].params] == ["n", "m"]
    assert q[("make",)].params[1].kind == KEYWORD_ONLY
    assert ("make", "inner") not in q
    assert f.exports == ("SensorA", "make", "extra")
    assert [(i.bound, i.module, i.name, i.level) for i in f.imports] == [
        ("annotations", "__future__", "annotations", 0), ("np", "numpy", None, 0),
        ("utils", "", "utils", 1), ("_Model", "_core", "Model", 2), ("State", "_core", "State", 2),
        (None, "native", "*", 1)]
    assert q[("_Model",)].kind == "import" and q[("_Model",)].value == ".._core.Model"
    assert [i.module for i in f.star_imports] == ["native"]
    assert q[("SensorA",)].doc == "Measures A." and q[("SensorA",)].line is None


def test_python_syntax_error_is_a_parse_error_not_a_crash():
    f = extract_bytes("pkg/broken.py", b"def f(:\n", None)
    assert f.parse_errors == 1 and f.syms == ()


def test_unsupported_language():
    with pytest.raises(UnsupportedLanguage):
        extract_bytes("doc/readme.rst", b"text", None)


@pytest.mark.parametrize("path,data", [("include/sim/simdata.h", C_HEADER),
                                       ("systems/sensors/gauge.cc", CPP),
                                       ("bindings/pydrake/systems/sensors_py_gauge.cc", PYBIND),
                                       ("pkg/sensors/__init__.py", PY)])
def test_plain_form_round_trips_as_json(path, data):
    f = extract_bytes(path, data, "ab" * 20)
    plain = f.to_plain()
    again = FileFacts.from_plain(json.loads(json.dumps(plain)))
    assert again == f
    with pytest.raises(ValueError):
        FileFacts.from_plain({**plain, "v": -1})


def test_one_name_normaliser():
    assert names.split_symbol("ns::A<B<C<D>>>::f()") == ("ns", "A", "f")
    assert names.name_parts("ns::A<B<C<D>>>::f") == ("ns", "A", "f")
    assert names.split_symbol("Accelerometer<T>::Accelerometer") == ("Accelerometer",) * 2
    assert names.split_symbol("newton.sensors.SensorIMU") == ("newton", "sensors", "SensorIMU")
    assert names.split_symbol("A::operator()") == ("A", "operator()")
    assert names.strip_templates("operator<<") == "operator<<"
    assert names.module_name("pkg/sub/__init__.pyi") == "pkg.sub"
    assert names.resolve_relative("pkg.sub.mod", False, "..core") == "pkg.core"
    assert names.resolve_relative("pkg.sub", True, ".x") == "pkg.sub.x"
    assert names.resolve_relative("pkg.sub", True, ".") == "pkg.sub"


def test_pybind_class_variable_reused_in_blocks():
    """Bindings reuse one variable name (`cls`) per class in separate blocks: each
    `.def` belongs to the class of the declaration in effect where it is written."""
    src = b"""void Define(py::module m) {
  {
    using Class = Rgba;
    py::class_<Class> cls(m, "Rgba");
    cls.def("r", &Class::r);
  }
  {
    using Class = MeshSource;
    py::class_<Class> cls(m, "MeshSource");
    cls.def("is_path", &Class::is_path);
  }
  {
    auto cls = DefineTemplateClassWithDefault<Box<T>>(m, "Box", param);
    cls.def("size", &Box<T>::size);
  }
}
"""
    f = extract_bytes("bindings/pydrake/geometry/geometry_py_common.cc", src, None)
    got = {s.qual for s in f.syms if s.origin == "pybind11"}
    assert got == {("Rgba",), ("Rgba", "r"), ("MeshSource",), ("MeshSource", "is_path"),
                   ("Box",), ("Box", "size")}
