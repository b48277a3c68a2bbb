"""cases (VC108): switch/match labels and the default branch, on fixture code."""

from __future__ import annotations

import pytest

from tests.claims_flow.conftest import CPP, C, PY, claim
from verifier.claims.kinds.base import ClaimError
from verifier.claims.kinds.cases import CasesKind
from verifier.results import Verdict

INTS = ["mjINT_EULER", "mjINT_RK4", "mjINT_IMPLICIT", "mjINT_IMPLICITFAST"]


def run(ctx, path, symbol, expected, **options):
    return CasesKind().check(claim("cases", path, symbol, expected, **options), ctx)


def test_c_switch_labels_and_default(flow_ctx):
    out = run(flow_ctx, C, "mj_step", {"cases": list(reversed(INTS)), "default": "mjERROR"},
              switch="m->opt.integrator")
    assert out.verdict is Verdict.VERIFIED, out
    assert out.actual["cases"] == INTS
    assert out.actual["default"].startswith("mjERROR(")
    assert out.evidence.lines == (16, 32)


def test_c_switch_missing_or_extra_label_diverges(flow_ctx):
    out = run(flow_ctx, C, "mj_step", {"cases": INTS[:3]})
    assert out.verdict is Verdict.DIVERGED and "also handled: mjINT_IMPLICITFAST" in out.message
    assert run(flow_ctx, C, "mj_step", {"cases": INTS[:3]}, match="subset").verdict \
        is Verdict.VERIFIED
    out = run(flow_ctx, C, "mj_step", {"cases": INTS + ["mjINT_RK2"]})
    assert out.verdict is Verdict.DIVERGED and "not handled: mjINT_RK2" in out.message
    out = run(flow_ctx, C, "mj_step", {"cases": ["mjINT_RK4", "mjINT_EULER", *INTS[2:]]},
              match="exact")
    assert out.verdict is Verdict.DIVERGED and "another order" in out.message


def test_c_case_to_callee_table_follows_fallthrough(flow_ctx):
    out = run(flow_ctx, C, "mj_step",
              {"cases": {"mjINT_RK4": "mj_RungeKutta", "mjINT_IMPLICIT": "mj_implicit"}},
              match="subset")
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, C, "mj_step", {"cases": {"mjINT_RK4": "mj_Euler"}}, match="subset")
    assert out.verdict is Verdict.DIVERGED and "mjINT_RK4 does not reach mj_Euler" in out.message


def test_default_text_and_presence(flow_ctx):
    assert run(flow_ctx, C, "mj_step", {"default": 'mjERROR("unknown integrator'}).verdict \
        is Verdict.VERIFIED
    assert run(flow_ctx, C, "mj_step", {"default": "mj_Euler"}).verdict is Verdict.DIVERGED
    assert run(flow_ctx, C, "mj_stageCount", {"default": "n = -1"}).verdict is Verdict.VERIFIED
    out = run(flow_ctx, CPP, "Filter::Apply", {"cases": ["kIdeal", "kNoisy", "kBiased"],
                                               "default": False})
    assert out.verdict is Verdict.VERIFIED, out
    assert run(flow_ctx, CPP, "Filter::Apply", {"default": True}).verdict is Verdict.DIVERGED


def test_python_match(flow_ctx):
    out = run(flow_ctx, PY, "SolverAdapter.integrate",
              {"cases": ["Integrator.EULER", "Integrator.RK4", "Integrator.IMPLICIT"],
               "default": "ValueError"})
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, PY, "SolverAdapter.integrate", {"cases": {"RK4": "_euler"}},
              match="subset")
    assert out.verdict is Verdict.DIVERGED


@pytest.mark.parametrize("expected,options,needle", [
    ({"cases": ["a"]}, {"switch": "d->nothing"}, "no switch or if / else-if chain on `d->nothing`"),
    ({"labels": ["a"]}, {}, "expected must be a table"),
    ({"default": 3}, {}, "expected.default must be"),
    ({"cases": ["a"]}, {"match": "bag"}, "options.match"),
])
def test_bad_cases_claims(flow_ctx, expected, options, needle):
    with pytest.raises(ClaimError) as exc:
        run(flow_ctx, C, "mj_step", expected, **options)
    assert needle in str(exc.value)


def test_function_without_switch_is_an_error(flow_ctx):
    with pytest.raises(ClaimError, match="no switch or if / else-if chain in mj_advanceTime"):
        run(flow_ctx, C, "mj_advanceTime", {"cases": ["a"]})


def test_if_else_if_chain_over_one_variable(flow_ctx):
    # mj_step2: if (integrator == IMPLICIT || integrator == IMPLICITFAST) ... else mj_Euler
    out = run(flow_ctx, C, "mj_step2", {"cases": ["mjINT_IMPLICITFAST", "mjINT_IMPLICIT"],
                                         "default": "mj_Euler"})
    assert out.verdict is Verdict.VERIFIED, out.message
    assert out.actual["cases"] == ["mjINT_IMPLICIT", "mjINT_IMPLICITFAST"]
    assert out.evidence.lines == (45, 50)
    out = run(flow_ctx, C, "mj_step2", {"cases": {"mjINT_IMPLICIT": "mj_implicit"}},
              switch="m->opt.integrator", match="subset")
    assert out.verdict is Verdict.VERIFIED, out.message
    out = run(flow_ctx, C, "mj_step2", {"cases": ["mjINT_IMPLICIT", "mjINT_RK4"]})
    assert out.verdict is Verdict.DIVERGED
    assert "not handled: mjINT_RK4" in out.message and "also handled: mjINT_IMPLICITFAST" in out.message
