"""The symbol index extractors on small snippets written for these tests."""

from __future__ import annotations

from verifier.facts.symbols import (SymbolIndex, extract_c, extract_cpp, extract_pybind,
                                    extract_python, pybind_module)

C_SRC = b"""#define LIB_LIMIT 4
#ifdef __cplusplus
extern "C" {
#endif
typedef enum libMode_ { LIB_MODE_A = 0, LIB_MODE_B } libMode;
typedef struct libData_ {
  double  time;
  int*    body_adr;
  double  pos[3];
} libData;
MJAPI extern int (*lib_callback)(int);
MJAPI int lib_step(libData* d);
MJAPI const double* lib_read(const libData* d, int id);
static int helper(int x) { int local = x; return local; }
#ifdef __cplusplus
}
#endif
"""


def _names(syms, kind=None):
    return {s.name for s in syms if kind is None or s.kind == kind}


def test_c_symbols():
    syms = extract_c("include/lib.h", C_SRC)
    assert {"lib_step", "lib_read", "helper"} <= _names(syms, "function")
    assert _names(syms, "macro") == {"LIB_LIMIT"}
    assert _names(syms, "enum_constant") == {"LIB_MODE_A", "LIB_MODE_B"}
    fields = {(s.name, s.parent) for s in syms if s.kind == "field"}
    assert {("time", "libData_"), ("body_adr", "libData_"), ("pos", "libData_")} <= fields
    assert "local" not in _names(syms)
    idx = SymbolIndex(upstream="lib", commit="0" * 40, files={"include/lib.h": "x"},
                      symbols=syms)
    assert idx.aliases["libData"] == "libData_"
    assert idx.member("libData", "body_adr")
    assert idx.complete


def test_cpp_symbols():
    src = b"""namespace lib {
template <typename T>
class Sensor final : public Base<T> {
 public:
  explicit Sensor(int body);
  const Port& get_output_port() const { return *port_; }
  int count_{0};
};
template <typename T>
void Sensor<T>::CalcOutput(const Context& c) const {}
double free_function(int a);
enum class Kind { kOne, kTwo };
}  // namespace lib
"""
    syms = extract_cpp("lib/sensor.h", src)
    assert ("Sensor", None) in {(s.name, s.parent) for s in syms if s.kind == "class"}
    methods = {(s.name, s.parent) for s in syms if s.kind == "method"}
    assert ("get_output_port", "Sensor") in methods and ("CalcOutput", "Sensor") in methods
    assert "free_function" in _names(syms, "function")
    assert {"kOne", "kTwo"} <= _names(syms, "enum_constant")


def test_pybind_names_and_module():
    src = b"""void Define(py::module_ m) {
  DefineTemplateClassWithDefault<Sensor<T>, LeafSystem<T>>(m, "Sensor", param, doc)
      .def("get_output_port", &Class::get_output_port)
      .def_static("Make", &Class::Make);
  // TODO: .def("NotYet", ...) once bound
  py::enum_<Kind>(m, "Kind").value("kOne", Kind::kOne);
}
"""
    assert pybind_module("bindings/pydrake/systems/sensors_py_thing.cc") == "pydrake.systems.sensors"
    assert pybind_module("bindings/pydrake/multibody/plant_py.cc") == "pydrake.multibody.plant"
    syms = extract_pybind("bindings/pydrake/systems/sensors_py_thing.cc", src,
                          "pydrake.systems.sensors")
    assert _names(syms, "pybind_class") == {"Sensor", "Kind"}
    assert {"get_output_port", "Make", "kOne"} <= _names(syms, "pybind_def")
    assert "NotYet" not in _names(syms)


def test_python_symbols_and_reexports():
    init = b"from ._impl import Widget as W, make\nfrom .native import *\n__all__ = ['W']\n"
    impl = b"""class Widget:
    size = 1
    def __init__(self, name, *, scale=1.0):
        self.name = name
        def inner(): pass
    def draw(self, canvas: int = 0):
        local_thing = 3
def make(kind):
    return Widget(kind)
"""
    stars: dict = {}
    a = extract_python("pkg/__init__.py", init, "pkg", stars)
    b = extract_python("pkg/_impl.py", impl, "pkg._impl", stars)
    idx = SymbolIndex(upstream="p", commit="0" * 40, files={"a": "1"}, symbols=a + b,
                      star_imports=stars)
    assert set(idx.module_names("pkg")) >= {"W", "make", "__all__"}
    assert idx.module_names("pkg")["W"][0].target == "pkg._impl.Widget"
    assert stars == {"pkg": ["pkg.native"]}
    assert {(s.name, s.kind) for s in idx.member("Widget", "draw")} == {("draw", "method")}
    assert idx.member("Widget", "name") and idx.member("Widget", "size")
    assert "inner" not in _names(b) and "local_thing" not in _names(b)
    params = {(s.name, s.parent) for s in b if s.kind == "parameter"}
    assert {("scale", "__init__"), ("canvas", "draw"), ("kind", "make")} <= params
