"""The flow kinds say more and blame the right side: branch reaches returns and
assignments, cases over if / else-if chains, locator typos are the claim's error,
negative near misses, notation in call lists and reachability."""

from __future__ import annotations

import pytest

from tests.claims_flow.conftest import CPP, C, PY, claim
from verifier.claims.kinds.base import ClaimError
from verifier.claims.kinds.branch import BranchKind
from verifier.claims.kinds.call_order import CallOrderKind
from verifier.claims.kinds.cases import CasesKind
from verifier.claims.kinds.expression import ExpressionKind
from verifier.claims.kinds.text import TextKind
from verifier.claims.notation import Mapping, Notation, Tracker
from verifier.results import Verdict

KINDS = {"branch": BranchKind, "call_order": CallOrderKind, "cases": CasesKind,
         "expression": ExpressionKind, "text": TextKind}


def run(ctx, kind, path, symbol, expected, **options):
    return KINDS[kind]().check(claim(kind, path, symbol, expected, **options), ctx)


# ---------------------------------------------------------------- branch: exits, assignments

def test_branch_reaches_returns_under_bindings(flow_ctx):
    euler = {"kind": "Integrator.EULER"}
    out = run(flow_ctx, "branch", PY, "SolverAdapter.pick_solver",
              {"reaches": ["return self._euler()"],
               "not_reaches": ["return self._staged(kind)", "raise ValueError", "self.last ="]},
              bindings=euler)
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "branch", PY, "SolverAdapter.pick_solver",
              {"reaches": ["raise ValueError", "return"]}, bindings={"kind": "Integrator.OTHER"})
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "branch", PY, "SolverAdapter.pick_solver",
              {"reaches": ["self.last = kind", "return self._staged(kind)"],
               "not_reaches": ["return self._euler()"]}, bindings={"kind": "Integrator.RK4"})
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "branch", PY, "SolverAdapter.pick_solver",
              {"reaches": ["return self._euler()"]}, bindings={"kind": "Integrator.RK4"})
    assert out.verdict is Verdict.DIVERGED and "possible exits" in out.message


def test_branch_assignments_in_c(flow_ctx):
    out = run(flow_ctx, "branch", C, "mj_advanceTime", {"reaches": ["d->time = t + h"],
                                                         "not_reaches": ["d->time = 0"]},
              bindings={"d->flg_reset": False})
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "branch", C, "mj_advanceTime", {"reaches": ["d->time = 0", "t ="]},
              bindings={"d->flg_reset": True})
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "branch", C, "mj_advanceTime", {"reaches": ["d->time = t - h"]})
    assert out.verdict is Verdict.DIVERGED
    # unreachable code after a certain return
    out = run(flow_ctx, "branch", C, "mj_stageCount", {"reaches": ["return mj_countAcc(m)"],
                                                        "not_reaches": ["mj_afterReturn"]},
              bindings={"stage": 2})
    assert out.verdict is Verdict.VERIFIED, out.message


# ---------------------------------------------------------------- cases: if chains

def test_cases_over_a_python_if_elif_chain(flow_ctx):
    out = run(flow_ctx, "cases", PY, "SolverAdapter.pick_solver",
              {"cases": {"Integrator.EULER": "_euler", "Integrator.RK4": "_staged",
                         "Integrator.IMPLICIT": "_staged"}, "default": "ValueError"})
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "cases", PY, "SolverAdapter.pick_solver", {"cases": ["EULER", "RK4"]},
              switch="kind")
    assert out.verdict is Verdict.DIVERGED and "also handled: Integrator.IMPLICIT" in out.message


# ---------------------------------------------------------------- typos: the claim's error

@pytest.mark.parametrize("kind,path,symbol,expected,options,needle", [
    ("branch", C, "mj_stp2", {"reaches": ["mj_Euler"]}, {}, "did you mean `mj_step2`"),
    ("branch", C, "mj_step2", {"reaches": ["mj_Eulr"]}, {}, "did you mean `mj_Euler`"),
    ("call_order", C, "mj_step", ["mj_forward"], {"callee": "mj_forwrd"},
     "did you mean `mj_forward`"),
    ("expression", C, "mj_advanceTime", "t + h", {"target": "d->tme"},
     "did you mean `d->time`"),
    ("expression", CPP, "Accelerometer<T>::CalcOutput", "x", {"call": "SetFromVectr"},
     "did you mean `SetFromVector`"),
    ("cases", C, "mj_step", {"cases": ["mjINT_EULER"]}, {"switch": "m->opt.integratr"},
     "did you mean `m->opt.integrator`"),
    ("text", C, "mj_advanceTme", True, {"pattern": "time"}, "did you mean `mj_advanceTime`"),
])
def test_flow_locator_typos(flow_ctx, kind, path, symbol, expected, options, needle):
    with pytest.raises(ClaimError, match=needle):
        run(flow_ctx, kind, path, symbol, expected, **options)


def test_not_reaches_with_a_near_miss_is_flagged(flow_ctx):
    out = run(flow_ctx, "branch", C, "mj_step2", {"not_reaches": ["mj_implicitt"]})
    assert out.verdict is Verdict.VERIFIED
    assert out.near_miss == (("mj_implicitt", ("mj_implicit",)),)
    out = run(flow_ctx, "branch", C, "mj_step2", {"not_reaches": ["mj_RungeKutta"]})
    assert out.near_miss == ()
    out = run(flow_ctx, "call_order", C, "mj_step", [], callee="mj_forwrd")
    assert out.verdict is Verdict.VERIFIED and out.near_miss[0][0] == "mj_forwrd"


# ---------------------------------------------------------------- notation in flow kinds

def test_notation_in_branch_and_call_order(flow_ctx):
    flow_ctx.notation = Tracker(Notation((Mapping("Euler", "mj_Euler", "n.toml:2"),)))
    out = run(flow_ctx, "branch", C, "mj_step2", {"reaches": ["Euler"]},
              bindings={"m->opt.integrator": "mjINT_RK4"})
    assert out.verdict is Verdict.VERIFIED
    assert [m.lesson for m in flow_ctx.notation.used_list()] == ["Euler"]
    flow_ctx.notation = Tracker(Notation((Mapping("Euler", "mj_Euler", "n.toml:2"),)))
    out = run(flow_ctx, "branch", C, "mj_step2", {"not_reaches": ["Euler"]},
              bindings={"m->opt.integrator": "mjINT_RK4"})
    assert out.verdict is Verdict.DIVERGED     # a mapping never makes "does not reach" easier
    flow_ctx.notation = Tracker(Notation((Mapping("forward", "mj_forward", "n.toml:2"),)))
    out = run(flow_ctx, "call_order", C, "mj_step", ["mj_checkPos", "forward"],
              callee="mj_checkPos|mj_forward")
    assert out.verdict is Verdict.VERIFIED


def test_receivers_in_python_expressions(flow_ctx):
    flow_ctx.notation = Tracker(Notation(receivers=(Mapping("", "self.", "n.toml:3", "receiver"),)))
    out = run(flow_ctx, "expression", PY, "SolverAdapter.gravity_term", "scale * (a - g)",
              target="return")
    assert out.verdict is Verdict.VERIFIED
    out = run(flow_ctx, "expression", PY, "SolverAdapter.gravity_term", "scale * a - g",
              target="return")
    assert out.verdict is Verdict.DIVERGED


# ---------------------------------------------------------------- branch: more statements

def test_relational_conditions_under_integer_bindings(flow_ctx):
    for n, want in ((-5, "out = 0"), (500, "out = 100"), (7, None)):
        out = run(flow_ctx, "branch", C, "mj_boundCount",
                  {"not_reaches": [x for x in ("out = 0", "out = 100") if x != want],
                   **({"reaches": [want]} if want else {})}, bindings={"n": n})
        assert out.verdict is Verdict.VERIFIED, (n, out.message)


def test_compound_assignments_calls_with_arguments_and_asserts(flow_ctx):
    out = run(flow_ctx, "branch", C, "mj_boundCount",
              {"reaches": ["out += 1", "mju_copy(d->qpos, m->qpos0, m->nq)", "mju_copy(d->qpos, ...)"],
               "not_reaches": ["out -= 1", "mju_copy(d->qvel, ...)", "mju_copy(d->qpos, m->qpos0)"]})
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "branch", PY, "SolverAdapter.check_shapes",
              {"reaches": ["assert a.shape == b.shape", "assert a.dtype == b.dtype", "assert",
                           "self._checked += 1"],
               "not_reaches": ["assert a.shape != b.shape"]})
    assert out.verdict is Verdict.VERIFIED, out.message


def test_listed_binding_values_must_all_hold(flow_ctx):
    # every non-Euler integrator the fixture dispatches stays away from mj_Euler in mj_step
    out = run(flow_ctx, "branch", C, "mj_step", {"not_reaches": ["mj_Euler"]},
              bindings={"m->opt.integrator": ["mjINT_RK4", "mjINT_IMPLICIT", "mjINT_IMPLICITFAST"]})
    assert out.verdict is Verdict.VERIFIED, out.message
    assert [a["bindings"]["m->opt.integrator"] for a in out.actual] == [
        "mjINT_RK4", "mjINT_IMPLICIT", "mjINT_IMPLICITFAST"]
    out = run(flow_ctx, "branch", C, "mj_step", {"not_reaches": ["mj_Euler"]},
              bindings={"m->opt.integrator": ["mjINT_RK4", "mjINT_EULER"]})
    assert out.verdict is Verdict.DIVERGED
    assert "under m->opt.integrator = mjINT_EULER" in out.message
    with pytest.raises(ClaimError, match="combinations"):
        run(flow_ctx, "branch", C, "mj_step", {"reaches": ["mj_Euler"]},
            bindings={f"x{i}": [1, 2] for i in range(7)})


def test_cases_table_values_may_be_statements(flow_ctx):
    out = run(flow_ctx, "cases", C, "mj_stageCount",
              {"cases": {"0": "mj_countPos", "2": "return mj_countAcc(m)"}}, match="subset")
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "cases", C, "mj_stageCount", {"cases": {"2": "return n"}}, match="subset")
    assert out.verdict is Verdict.DIVERGED


def test_expression_takes_a_keyword_argument(flow_ctx):
    out = run(flow_ctx, "expression", PY, "SolverAdapter.__init__", '"accel"',
              call="self.register_sensor", arg="kind", occurrence=1)
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, "expression", PY, "SolverAdapter.__init__", "'force'",
              call="self.register_sensor", arg="kind", occurrence=-1)
    assert out.verdict is Verdict.VERIFIED, out.message
