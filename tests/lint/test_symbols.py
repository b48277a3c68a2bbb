"""The symbol index as a projection of the fact records, on snippets written for
these tests (shaped like upstream code)."""

from __future__ import annotations

from verifier.facts.extract import extract_bytes
from verifier.facts.symbols import SymbolIndex, project_file, pybind_module
from verifier.facts.names import module_name

C_SRC = b"""#define LIB_LIMIT 4
#ifdef __cplusplus
extern "C" {
#endif
typedef enum libMode_ { LIB_MODE_A = 0, LIB_MODE_B } libMode;
typedef struct libData_ {
  double  time;
  int*    body_adr;
  double  pos[3];
  double** pp;
  int (*fn)(int);
} libData;
MJAPI extern int (*lib_callback)(int);
MJAPI int lib_step(libData* d);
MJAPI const double* lib_read(const libData* d, int id);
static int helper(int x) { int local = x; return local; }
#ifdef __cplusplus
}
#endif
"""


def _names(rows, kind=None):
    return {s.name for s in rows if kind is None or s.kind == kind}


def _index(*files: tuple[str, bytes], module=None) -> SymbolIndex:
    rows, stars = [], {}
    for path, data in files:
        facts = extract_bytes(path, data, None)
        mod = module or (module_name(path) if facts.lang == "python" else pybind_module(path))
        r, s = project_file(facts, mod)
        rows += r
        if s:
            stars.setdefault(mod, []).extend(s)
    return SymbolIndex(upstream="lib", commit="0" * 40, files={p: "x" for p, _ in files},
                       symbols=rows, star_imports=stars)


def test_c_rows():
    idx = _index(("include/lib.h", C_SRC))
    rows = idx.symbols
    assert {"lib_step", "lib_read", "helper"} <= _names(rows, "function")
    assert _names(rows, "macro") == {"LIB_LIMIT"}
    assert _names(rows, "enumerator") == {"LIB_MODE_A", "LIB_MODE_B"}
    fields = {(s.name, s.parent) for s in rows if s.kind == "field"}
    # double pointers and function-pointer fields too (the old index missed both)
    assert {("time", "libData_"), ("body_adr", "libData_"), ("pos", "libData_"),
            ("pp", "libData_"), ("fn", "libData_")} <= fields
    assert "local" not in _names(rows)
    assert idx.aliases["libData"] == "libData_"
    assert idx.member("libData", "body_adr") and idx.member("libData", "fn")
    assert ("d", "lib_step") in {(s.name, s.parent) for s in rows if s.kind == "parameter"}
    assert idx.complete


def test_cpp_rows_templates_out_of_line_and_ports():
    src = b"""namespace lib {
template <typename T>
class Sensor final : public Base<T> {
 public:
  explicit Sensor(int body);
  const Port& get_output_port() const { return *port_; }
  int count_{0};
};
template <typename T>
Sensor<T>::Sensor(int body) {
  this->DeclareVectorInputPort("body_state", 3);
  DeclareAbstractOutputPort(kUseDefaultName, &Sensor::Calc);
}
template <typename T>
void Sensor<T>::CalcOutput(const Context& c) const {}
double free_function(int a);
enum class Kind { kOne, kTwo };
}  // namespace lib
"""
    idx = _index(("lib/sensor.h", src))
    rows = idx.symbols
    assert ("Sensor", "lib") in {(s.name, s.parent) for s in rows if s.kind == "class"}
    methods = {(s.name, s.parent) for s in rows if s.kind == "method"}
    assert ("get_output_port", "Sensor") in methods and ("CalcOutput", "Sensor") in methods
    assert "free_function" in _names(rows, "function")
    assert {"kOne", "kTwo"} <= _names(rows, "enumerator")
    # a port declared by string literal, parent = the enclosing class; not kUseDefaultName
    assert {(s.name, s.parent) for s in rows if s.kind == "port"} == {("body_state", "Sensor")}
    assert idx.member("Sensor", "body_state")
    assert idx.member("lib", "Sensor")            # a namespace is a container too


def test_pybind_rows_and_module():
    src = b"""void Define(py::module_ m) {
  DefineTemplateClassWithDefault<Sensor<T>, LeafSystem<T>>(m, "Sensor", param, doc)
      .def("get_output_port", &Class::get_output_port, py::arg("index") = 0)
      .def_static("Make", &Class::Make);
  // TODO: .def("NotYet", ...) once bound
  py::enum_<Kind>(m, "Kind").value("kOne", Kind::kOne);
  py::class_<ClippingRange> cls(m, "ClippingRange");
  cls.def(py::init<double, double>(), py::arg("near"), py::arg("far"));
  auto other = py::class_<Other>(m, "Other");
  other.def("Go", &Other::Go);
  m.def("free_fn", &free_fn, py::arg("x"));
}
"""
    path = "bindings/pydrake/systems/sensors_py_thing.cc"
    assert pybind_module(path) == "pydrake.systems.sensors"
    assert pybind_module("bindings/pydrake/multibody/plant_py.cc") == "pydrake.multibody.plant"
    idx = _index((path, src))
    py = [s for s in idx.symbols if s.module == "pydrake.systems.sensors"]
    assert {s.name for s in py if s.kind == "class"} == {"Sensor", "Kind", "ClippingRange", "Other"}
    assert {"get_output_port", "Make", "kOne", "Go", "free_fn"} <= _names(py)
    assert "NotYet" not in _names(idx.symbols)
    kws = {(s.name, s.parent) for s in idx.symbols if s.kind == "keyword"}
    assert {("index", "Sensor"), ("near", "ClippingRange"), ("far", "ClippingRange"),
            ("x", "pydrake.systems.sensors")} <= kws
    assert set(idx.module_names("pydrake.systems.sensors")) >= {"Sensor", "free_fn"}
    assert idx.member("ClippingRange", "__init__")


def test_python_rows_reexports_and_no_bogus_bindings():
    init = (b"from ._impl import Widget as W, make\nfrom .native import *\n"
            b"from numpy.linalg import norm\nimport os.path\n__all__ = ['W']\n")
    impl = b"""class Widget:
    size = 1
    a, b = 2, 3
    def __init__(self, name, *, scale=1.0):
        self.name = name
        def inner(): pass
    def draw(self, canvas: int = 0):
        local_thing = 3
        self.last_canvas = canvas
def make(kind):
    return Widget(kind)
for loop_name in ("x",):
    pass
"""
    idx = _index(("pkg/__init__.py", init), ("pkg/_impl.py", impl))
    assert set(idx.module_names("pkg")) >= {"W", "make", "__all__", "norm", "os"}
    assert idx.module_names("pkg")["W"][0].target == "pkg._impl.Widget"
    assert idx.module_names("pkg")["norm"][0].target == "numpy.linalg.norm"
    # `from numpy.linalg import norm` binds `norm` only (the old index also bound
    # `numpy.linalg`: the `child is modnode` bug)
    assert not [s for s in idx.symbols if s.kind == "import" and "." in s.name]
    assert idx.star_imports == {"pkg": ["pkg.native"]}
    assert {(s.name, s.kind) for s in idx.member("Widget", "draw")} == {("draw", "method")}
    assert idx.member("Widget", "name") and idx.member("Widget", "size")
    assert idx.member("Widget", "a") and idx.member("Widget", "b")
    assert idx.member("Widget", "last_canvas")     # self.x in any method
    assert "inner" not in _names(idx.symbols) and "local_thing" not in _names(idx.symbols)
    assert "loop_name" in idx.module_names("pkg._impl")
    params = {(s.name, s.parent) for s in idx.symbols if s.kind == "parameter"}
    assert {("scale", "__init__"), ("canvas", "draw"), ("kind", "make")} <= params
    assert ("self", "__init__") not in params
