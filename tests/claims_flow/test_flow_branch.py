"""branch (VC107): reachability of calls under bindings, on fixture code."""

from __future__ import annotations

import pytest

from tests.claims_flow.conftest import CPP, C, PY, claim
from verifier.claims.kinds.base import ClaimError
from verifier.claims.kinds.branch import BranchKind
from verifier.results import Verdict

RK4 = {"m->opt.integrator": "mjINT_RK4"}


def run(ctx, path, symbol, expected, **options):
    return BranchKind().check(claim("branch", path, symbol, expected, **options), ctx)


def test_step2_rk4_falls_back_to_euler(flow_ctx):
    out = run(flow_ctx, C, "mj_step2", {"reaches": ["mj_Euler"], "not_reaches": ["mj_implicit"]},
              bindings=RK4)
    assert out.verdict is Verdict.VERIFIED, out
    assert out.actual == {"reaches": ["mj_Euler"], "not_reaches": ["mj_implicit"]}
    assert out.evidence.lines == (39, 51)


def test_step2_rk4_claiming_implicit_diverges(flow_ctx):
    out = run(flow_ctx, C, "mj_step2", {"reaches": ["mj_implicit"]}, bindings=RK4)
    assert out.verdict is Verdict.DIVERGED
    assert out.actual == {"reaches": [], "not_reaches": ["mj_implicit"]}
    assert "differs for: mj_implicit" in out.message


def test_step_switch_under_each_integrator(flow_ctx):
    ok = run(flow_ctx, C, "mj_step",
             {"reaches": ["mj_RungeKutta", "mj_forward"],
              "not_reaches": ["mj_Euler", "mj_implicit", "mjERROR"]}, bindings=RK4)
    assert ok.verdict is Verdict.VERIFIED, ok
    # fall-through of the two implicit labels
    fast = run(flow_ctx, C, "mj_step", {"reaches": ["mj_implicit"], "not_reaches": ["mj_Euler"]},
               bindings={"m->opt.integrator": "mjINT_IMPLICIT"})
    assert fast.verdict is Verdict.VERIFIED, fast
    # an unknown constant takes the default branch only
    other = run(flow_ctx, C, "mj_step", {"reaches": ["mjERROR"],
                                         "not_reaches": ["mj_Euler", "mj_RungeKutta"]},
                bindings={"m->opt.integrator": "mjINT_OTHER"})
    assert other.verdict is Verdict.VERIFIED, other


def test_unbound_is_may_reach_both(flow_ctx):
    out = run(flow_ctx, C, "mj_step2", {"reaches": ["mj_Euler", "mj_implicit"]})
    assert out.verdict is Verdict.VERIFIED
    assert "undecidable: L45" in out.message
    # not_reaches cannot hold when the condition is undecidable
    out = run(flow_ctx, C, "mj_step2", {"not_reaches": ["mj_implicit"]})
    assert out.verdict is Verdict.DIVERGED


def test_unbound_macro_condition_may_reach_and_can_be_bound(flow_ctx):
    out = run(flow_ctx, C, "mj_step", {"reaches": ["mj_compareFwdInv"]}, bindings=RK4)
    assert out.verdict is Verdict.VERIFIED
    out = run(flow_ctx, C, "mj_step", {"not_reaches": ["mj_compareFwdInv"]},
              bindings={**RK4, "mjENABLED(mjENBL_FWDINV)": False})
    assert out.verdict is Verdict.VERIFIED, out


def test_fallthrough_return_ternary_and_dead_code(flow_ctx):
    out = run(flow_ctx, C, "mj_stageCount",
              {"reaches": ["mj_countPos", "mj_countVel"],
               "not_reaches": ["mj_countAcc", "mj_neverCalled", "mj_afterReturn"]},
              bindings={"stage": 0})
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, C, "mj_stageCount",
              {"reaches": ["mj_countAcc"],
               "not_reaches": ["mj_countPos", "mj_countVel", "mj_clampCount"]},
              bindings={"stage": 2})
    assert out.verdict is Verdict.VERIFIED, out  # `return` in case 2 ends the function
    out = run(flow_ctx, C, "mj_stageCount", {"reaches": ["mj_clampCount", "mj_zeroCount"]},
              bindings={"stage": 1})
    assert out.verdict is Verdict.VERIFIED, out  # `flags & 1` and `n > 0` are undecidable


def test_cpp_in_class_enum_class_switch(flow_ctx):
    out = run(flow_ctx, CPP, "Filter::Apply",
              {"reaches": ["AddNoise"], "not_reaches": ["AddBias", "Unreachable"]},
              bindings={"mode_": "Mode::kNoisy"})
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, CPP, "Filter::Apply", {"reaches": ["Unreachable"]},
              bindings={"mode_": "Mode::kIdeal"})
    assert out.verdict is Verdict.DIVERGED


def test_python_if_else_and_match(flow_ctx):
    out = run(flow_ctx, PY, "SolverAdapter.step",
              {"reaches": ["_warp_step", "_convert_contacts"],
               "not_reaches": ["mj_step", "self._native.mj_step"]},
              bindings={"self.use_cpu": False})
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, PY, "SolverAdapter.step", {"not_reaches": ["_convert_contacts"]},
              bindings={"self.use_cpu": False, "self.collide_on_device": True})
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, PY, "SolverAdapter.integrate",
              {"reaches": ["_staged"], "not_reaches": ["_euler", "ValueError"]},
              bindings={"mode": "Integrator.RK4"})
    assert out.verdict is Verdict.VERIFIED, out


@pytest.mark.parametrize("expected,options,needle", [
    (["mj_Euler"], {}, "expected must be a table"),
    ({"reach": ["mj_Euler"]}, {}, "expected must be a table"),
    ({"reaches": "mj_Euler"}, {}, "expected.reaches must be a list"),
    ({"reaches": ["mj_Euler"]}, {"bindings": ["x"]}, "options.bindings must be a table"),
])
def test_bad_branch_claims(flow_ctx, expected, options, needle):
    with pytest.raises(ClaimError) as exc:
        run(flow_ctx, C, "mj_step2", expected, **options)
    assert needle in str(exc.value)


def test_preprocessor_parts_may_all_run_and_null_checks(flow_ctx):
    out = run(flow_ctx, C, "mj_sensorPostStep",
              {"reaches": ["mj_updateHistory", "mj_clearHistory"],
               "not_reaches": ["mj_readHistory"]}, bindings={"d->history": "NULL"})
    assert out.verdict is Verdict.VERIFIED, out
    assert "#ifdef mjUSEHISTORY" in out.message
    out = run(flow_ctx, C, "mj_sensorPostStep", {"reaches": ["mj_readHistory"]})
    assert out.verdict is Verdict.VERIFIED, out


def test_python_none_binding(flow_ctx):
    out = run(flow_ctx, PY, "SolverAdapter.read_back", {"not_reaches": ["_copy"]},
              bindings={"state.body_qdd": "None"})
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, PY, "SolverAdapter.read_back", {"reaches": ["_copy"]})
    assert out.verdict is Verdict.VERIFIED, out


def test_goto_target_inside_later_block_stays_reachable(flow_ctx):
    out = run(flow_ctx, C, "mj_retryStep", {"reaches": ["mj_stepOnce", "mj_warnRetry"]})
    assert out.verdict is Verdict.VERIFIED, out


def test_follow_walks_into_same_file_callees(flow_ctx):
    want = {"reaches": ["self._warp.step"], "not_reaches": ["self._native.mj_step"]}
    cpu_off = {"self.use_cpu": False}
    out = run(flow_ctx, PY, "SolverAdapter.step", want, bindings=cpu_off)
    assert out.verdict is Verdict.DIVERGED  # direct calls only by default
    out = run(flow_ctx, PY, "SolverAdapter.step", want, bindings=cpu_off, follow=1)
    assert out.verdict is Verdict.VERIFIED, out
    assert "followed into: SolverAdapter::_warp_step" in out.message
    with pytest.raises(ClaimError, match="options.follow"):
        run(flow_ctx, PY, "SolverAdapter.step", want, follow=-1)
