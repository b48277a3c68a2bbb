"""Unit tests of verifier/facts/flow.py: names, function location, calls, canonical
expressions (on small snippets written here)."""

from __future__ import annotations

import pytest

from verifier.facts import flow

CPP_SHAPES = b"""
namespace outer { namespace inner {
template <typename T>
class Box {
 public:
  Box() { Init(); }
  ~Box() { Release(); }
  bool operator<(const Box& o) const { return Less(o); }
  static int Count() { return Tally<int>(); }
};
template <typename T>
const Box<T>& Box<T>::Get(int i) const { return *Lookup(i); }
int Free(int x) { return ns::Helper(x) + obj.method(x) + ptr->other(x); }
}}
"""


@pytest.mark.parametrize("symbol,n", [
    ("Box::Box", 1), ("Box<T>::Box", 1), ("outer::inner::Box::Count", 1), ("Box::~Box", 1),
    ("Box::operator<", 1), ("Box<T>::Get", 1), ("Get", 1), ("Free", 1), ("inner::Free", 1),
    ("Other::Free", 0), ("Box::Missing", 0),
])
def test_cpp_function_location(symbol, n):
    src = flow.parse_source("x.cc", CPP_SHAPES)
    found = flow.find_functions(src, symbol)
    assert len(found) == n, [f.qual for f in flow.functions(src)]


def test_cpp_get_includes_template_header_lines():
    src = flow.parse_source("x.cc", CPP_SHAPES)
    (get,) = flow.find_functions(src, "Box<T>::Get")
    assert (get.start, get.end) == (11, 12)
    assert get.qual == ("outer", "inner", "Box", "Get")


def test_call_names():
    src = flow.parse_source("x.cc", CPP_SHAPES)
    (free,) = flow.find_functions(src, "Free")
    calls = flow.calls_in(src, free.body)
    assert [c.name for c in calls] == ["Helper", "method", "other"]
    assert [c.callee for c in calls] == ["ns::Helper", "obj.method", "ptr->other"]
    assert calls[0].matches("ns::Helper") and calls[0].matches("Helper")
    assert not calls[0].matches("Help")


def test_python_call_of_a_wrapped_function_calls_it():
    # `named_scope(solver.solve)(m, d)`: the outer call calls the wrapped `solve`
    code = b"""
def forward(m, d):
    d = named_scope(solver.solve)(m, d)
    return jax.jit(step)(d), make(a, b)(d)
"""
    src = flow.parse_source("m.py", code)
    (fwd,) = flow.find_functions(src, "forward")
    calls = flow.calls_in(src, fwd.body)
    assert [(c.callee, c.name) for c in calls] == [
        ("solver.solve", "solve"), ("named_scope", "named_scope"), ("step", "step"),
        ("jax.jit", "jit"), ("make(a,b)", "make(a,b)"), ("make", "make")]   # 2 args: no


def test_python_nested_and_decorated():
    code = b"""
class A:
    @property
    def x(self):
        def inner():
            return helper()
        return inner()

def x():
    pass
"""
    src = flow.parse_source("m.py", code)
    assert [f.qual for f in flow.functions(src)] == [("A", "x"), ("A", "x", "inner"), ("x",)]
    (ax,) = flow.find_functions(src, "A.x")
    assert (ax.start, ax.end) == (3, 7)  # decorator included
    assert len(flow.find_functions(src, "x")) == 2


@pytest.mark.parametrize("text,out", [
    ("Accelerometer<T>::CalcOutput", ("Accelerometer", "CalcOutput")),
    ("std::vector<std::pair<int, T>>::size", ("std", "vector", "size")),
    ("SolverMuJoCo.step", ("SolverMuJoCo", "step")),
    ("Box::operator<", ("Box", "operator<")),
    ("mj_step2()", ("mj_step2",)),
])
def test_split_symbol(text, out):
    assert flow.split_symbol(text) == out


@pytest.mark.parametrize("callee,name", [
    ("this->DeclareAbstractInputPort", "DeclareAbstractInputPort"),
    ("get_port().template Eval<std::vector<T>>", "Eval"),
    ("builder->template AddSystem<Accelerometer<T>>", "AddSystem"),
    ("self._mujoco.mj_step", "mj_step"),
    ("mj_Euler", "mj_Euler"),
])
def test_short_name(callee, name):
    assert flow.short_name(callee) == name


@pytest.mark.parametrize("lang,a,b,equal", [
    ("cpp", "R_SW * (A_WS.translational() - g_)", "R_SW*(A_WS.translational()-g_)", True),
    ("cpp", "R_SW * (A_WS.translational() - g_)", "((R_SW * ((A_WS.translational()) - g_)))",
     True),
    ("cpp", "R_SW * (A_WS.translational() - g_)", "R_SW * A_WS.translational() - g_", False),
    ("cpp", "a - b - c", "a - (b - c)", False),
    ("cpp", "a - b - c", "(a - b) - c", True),
    ("c", "x /* why */ + 1", "x+1", True),
    ("python", "self.scale * (a - g)", "self.scale*(a-g)", True),
    ("python", "f(x, y=2)", "f(x, y = 2)", True),
    ("python", "'a b'", "'ab'", False),
])
def test_canonical_expressions(lang, a, b, equal):
    from verifier.claims.compare import expression_text_equal, parse_expression

    assert bool(expression_text_equal(lang, a, b)) is equal
    na, nb = parse_expression(lang, a), parse_expression(lang, b)
    assert (flow.canonical_expression(na) == flow.canonical_expression(nb)) is equal


def test_unparsable_expression_is_none():
    from verifier.claims.compare import parse_expression

    assert parse_expression("cpp", "a * (b") is None


def test_parse_memo_by_blob():
    a = flow.parse_source("f.c", b"int f(void){return 1;}", blob="1" * 40)
    b = flow.parse_source("f.c", b"int f(void){return 1;}", blob="1" * 40)
    c = flow.parse_source("f.c", b"int f(void){return 1;}")
    assert a is b and c is not a


def test_literal_values():
    src = flow.parse_source("x.c", b'void f(void){ g("a" "b", \'c\', 3, "d\\\\n"); }')
    (fn,) = flow.find_functions(src, "f")
    (call,) = flow.calls_in(src, fn.body)
    assert [flow.literal_value(a) for a in call.args] == ["ab", "'c'", "3", "d\\\\n"]
