"""text (VC110): regex inside a function or a file, on fixture code."""

from __future__ import annotations

import pytest

from tests.claims_flow.conftest import CPP, FIXTURES, C, PY, claim
from verifier.claims.kinds.base import ClaimError
from verifier.claims.kinds.text import TextKind
from verifier.results import Verdict


def run(ctx, path, symbol, expected, **options):
    return TextKind().check(claim("text", path, symbol, expected, **options), ctx)


def test_python_todo_in_method(flow_ctx):
    out = run(flow_ctx, PY, "SolverAdapter.step", True, pattern=r"TODO: handle use_cpu")
    assert out.verdict is Verdict.VERIFIED, out
    assert out.actual is True
    assert out.evidence.lines == (32, 32)
    # not inside another method
    out = run(flow_ctx, PY, "SolverAdapter.integrate", True, pattern=r"TODO: handle use_cpu")
    assert out.verdict is Verdict.DIVERGED and out.actual is False


def test_whole_file_and_negative(flow_ctx):
    assert run(flow_ctx, C, None, True, pattern=r"falls back to\s+Euler").verdict \
        is Verdict.VERIFIED
    assert run(flow_ctx, C, None, False, pattern=r"mj_RungeKutta\(m, d, 2\)").verdict \
        is Verdict.VERIFIED
    out = run(flow_ctx, C, None, True, pattern=r"no such text")
    assert out.verdict is Verdict.DIVERGED and out.actual is False
    n = len((FIXTURES / "engine_forward.c").read_text().splitlines())
    assert out.evidence.lines == (1, n)  # the whole file was searched
    out = run(flow_ctx, C, "mj_step", False, pattern=r"mj_RungeKutta\(m, d, 4\)")
    assert out.verdict is Verdict.DIVERGED and out.evidence.lines == (22, 22)


def test_flags_and_cpp_scope(flow_ctx):
    assert run(flow_ctx, CPP, "Accelerometer::CalcOutput", True, pattern="setfromvector",
               flags="i").verdict is Verdict.VERIFIED
    assert run(flow_ctx, CPP, "Accelerometer::CalcOutput", True,
               pattern="setfromvector").verdict is Verdict.DIVERGED


@pytest.mark.parametrize("expected,options,needle", [
    ("yes", {"pattern": "x"}, "expected must be true"),
    (True, {}, "needs options.pattern"),
    (True, {"pattern": "("}, "not a valid regular expression"),
    (True, {"pattern": "x", "flags": "q"}, "options.flags"),
])
def test_bad_text_claims(flow_ctx, expected, options, needle):
    with pytest.raises(ClaimError) as exc:
        run(flow_ctx, C, None, expected, **options)
    assert needle in str(exc.value)
