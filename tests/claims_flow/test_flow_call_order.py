"""call_order (VC106) on fixture C, C++ and Python code at pinned identity."""

from __future__ import annotations

import pytest

from tests.claims_flow.conftest import CPP, C, PY, claim
from verifier.claims.kinds.base import ClaimError
from verifier.claims.kinds.call_order import CallOrderKind
from verifier.results import Verdict

PORTS = ["body_poses", "body_spatial_velocities", "body_spatial_accelerations"]


def run(ctx, *a, **kw):
    return CallOrderKind().check(claim("call_order", *a, **kw), ctx)


def test_cpp_constructor_ports_in_order(flow_ctx):
    out = run(flow_ctx, CPP, "Accelerometer<T>::Accelerometer", PORTS,
              callee="DeclareAbstractInputPort", arg=0)
    assert out.verdict is Verdict.VERIFIED, out
    assert out.actual == PORTS
    # the delegating overload has no such call: the one with calls is chosen
    assert out.evidence.lines == (13, 26)
    assert out.evidence.status == "pinned"
    assert out.evidence.permalink.endswith(f"{CPP}#L13-L26")


def test_cpp_wrong_order_diverges(flow_ctx):
    out = run(flow_ctx, CPP, "Accelerometer::Accelerometer", list(reversed(PORTS)),
              callee="DeclareAbstractInputPort", arg=0)
    assert out.verdict is Verdict.DIVERGED
    assert out.actual == PORTS


def test_cpp_whole_callee_expression_matches(flow_ctx):
    out = run(flow_ctx, CPP, "Accelerometer::Accelerometer",
              ["measurement", *PORTS], callee=r"this->Declare\w+Port", arg=0)
    assert out.verdict is Verdict.VERIFIED, out


def test_c_names_subsequence_and_exact(flow_ctx):
    want = ["mj_fwdActuation", "mj_fwdAcceleration", "mj_fwdConstraint"]
    assert run(flow_ctx, C, "mj_step2", want, match="subsequence").verdict is Verdict.VERIFIED
    assert run(flow_ctx, C, "mj_step2", want, match="prefix").verdict is Verdict.VERIFIED
    # exact: the unfiltered list also holds the integrators
    out = run(flow_ctx, C, "mj_step2", want)
    assert out.verdict is Verdict.DIVERGED
    assert out.actual == want + ["mj_implicit", "mj_Euler"]
    swapped = ["mj_fwdAcceleration", "mj_fwdActuation"]
    assert run(flow_ctx, C, "mj_step2", swapped, match="subsequence").verdict is Verdict.DIVERGED


def test_python_method_keyword_and_positional_args(flow_ctx):
    out = run(flow_ctx, PY, "SolverAdapter.__init__", ["imu", "contact"],
              callee="register_sensor", arg=0)
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, PY, "SolverAdapter.__init__", ["accel", "force"],
              callee="register_sensor", arg="kind")
    assert out.verdict is Verdict.VERIFIED, out
    out = run(flow_ctx, PY, "SolverAdapter.step",
              ["_apply_control", "mj_step", "_update_state", "ScopedDevice", "_apply_control",
               "_convert_contacts", "_warp_step", "_update_state"])
    assert out.verdict is Verdict.VERIFIED, out


@pytest.mark.parametrize("kw,needle", [
    ({"symbol": "mj_nothing"}, "no definition of `mj_nothing`"),
    ({"options": {"calee": "x"}}, "unknown option(s) calee"),
    ({"options": {"callee": "("}}, "not a valid regular expression"),
    ({"options": {"match": "fuzzy"}}, "options.match"),
    ({"expected": "mj_Euler"}, "expected (ordered callee names or arguments) must be a list"),
    ({"options": {"overload": 7}}, "options.overload = 7"),
])
def test_bad_claims_are_errors(flow_ctx, kw, needle):
    args = {"path": C, "symbol": "mj_step2", "expected": ["mj_Euler"], "options": {}}
    args.update(kw)
    with pytest.raises(ClaimError, match=None) as exc:
        run(flow_ctx, args["path"], args["symbol"], args["expected"], **args["options"])
    assert needle in str(exc.value)


def test_calls_none_holds_for_every_overload(flow_ctx):
    # "calls none of these": both constructors are checked
    out = run(flow_ctx, CPP, "Accelerometer::Accelerometer", [], callee="NoSuchCall")
    assert out.verdict is Verdict.VERIFIED and "none of the 2 definitions" in out.message
    out = run(flow_ctx, CPP, "Accelerometer::Accelerometer", [], callee="DeclareAbstractInputPort")
    assert out.verdict is Verdict.DIVERGED
    out = run(flow_ctx, CPP, "Accelerometer::Accelerometer", [], callee="NoSuchCall", overload=0)
    assert out.verdict is Verdict.VERIFIED
    assert out.evidence.lines == (8, 11)


def test_unavailable_file_raises_source_unavailable(flow_ctx):
    from verifier.claims.kinds.base import SourceUnavailable

    with pytest.raises(SourceUnavailable):
        run(flow_ctx, "src/engine/missing.c", "mj_step2", ["x"])
