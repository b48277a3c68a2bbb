"""expression (VC109): assigned / returned / passed expressions, on fixture code."""

from __future__ import annotations

import pytest

from tests.claims_flow.conftest import CPP, C, PY, claim
from verifier.claims.kinds.base import ClaimError
from verifier.claims.kinds.expression import ExpressionKind
from verifier.results import Verdict


def run(ctx, path, symbol, expected, **options):
    return ExpressionKind().check(claim("expression", path, symbol, expected, **options), ctx)


def test_cpp_call_argument_normalised(flow_ctx):
    out = run(flow_ctx, CPP, "Accelerometer<T>::CalcOutput",
              "R_SW*(A_WS.translational()-gravity_vector_)", call="SetFromVector")
    assert out.verdict is Verdict.VERIFIED, out
    assert out.actual == "R_SW * ( A_WS.translational() - gravity_vector_ )"
    assert out.evidence.lines == (36, 37)


@pytest.mark.parametrize("wrong", [
    "R_SW * (A_WS.translational() - gravity_vector)",     # name differs (lesson-style typo)
    "R_SW * A_WS.translational() - gravity_vector_",      # grouping differs
    "(R_SW * A_WS.translational()) - gravity_vector_",
])
def test_cpp_expression_differences_diverge(flow_ctx, wrong):
    out = run(flow_ctx, CPP, "Accelerometer::CalcOutput", wrong, call="SetFromVector")
    assert out.verdict is Verdict.DIVERGED


def test_cpp_declaration_initialiser(flow_ctx):
    out = run(flow_ctx, CPP, "Accelerometer::CalcOutput", "(R_BS.inverse() * R_WB.inverse())",
              target="R_SW")
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, CPP, "Accelerometer::CalcOutput", "R_WB.inverse() * R_BS.inverse()",
              target="R_SW")
    assert out.verdict is Verdict.DIVERGED


def test_c_assignment_occurrences(flow_ctx):
    with pytest.raises(ClaimError, match="set options.occurrence"):
        run(flow_ctx, C, "mj_advanceTime", "t + h", target="d->time")
    assert run(flow_ctx, C, "mj_advanceTime", "t+h", target="d->time", occurrence=1).verdict \
        is Verdict.VERIFIED
    assert run(flow_ctx, C, "mj_advanceTime", "0", target="d->time", occurrence=-1).verdict \
        is Verdict.VERIFIED
    assert run(flow_ctx, C, "mj_advanceTime", "d->time", target="t").verdict is Verdict.VERIFIED
    with pytest.raises(ClaimError, match=r"never assigns `d->timestep` \(options.target\) at "
                                         r"the pin; did you mean `d->time`\?"):
        run(flow_ctx, C, "mj_advanceTime", "h", target="d->timestep")


def test_c_return(flow_ctx):
    with pytest.raises(ClaimError, match="different expressions"):
        run(flow_ctx, C, "mj_stageCount", "n", target="return")
    assert run(flow_ctx, C, "mj_stageCount", "n", target="return", occurrence=-1).verdict \
        is Verdict.VERIFIED


def test_python_return(flow_ctx):
    out = run(flow_ctx, PY, "SolverAdapter.gravity_term", "self.scale*(a-g)", target="return")
    assert out.verdict is Verdict.VERIFIED, out
    assert run(flow_ctx, PY, "SolverAdapter.gravity_term", "self.scale*a-g",
               target="return").verdict is Verdict.DIVERGED


@pytest.mark.parametrize("options,needle", [
    ({}, "exactly one of options.target"),
    ({"target": "x", "call": "f"}, "exactly one of options.target"),
    ({"target": "x", "arg": 1}, "options.arg only goes with options.call"),
    ({"target": "x", "occurrence": 0}, "options.occurrence"),
])
def test_bad_expression_claims(flow_ctx, options, needle):
    with pytest.raises(ClaimError) as exc:
        run(flow_ctx, C, "mj_advanceTime", "t", **options)
    assert needle in str(exc.value)
