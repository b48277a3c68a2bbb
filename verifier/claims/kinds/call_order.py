"""call_order (VC106): the order of calls inside a function body.

What it checks: the calls a function's body makes, in source order, optionally
filtered by callee (`options.callee`, a regex that must fully match the callee's
name, e.g. `DeclareAbstractInputPort`, or its whole expression,
`this->DeclareAbstractInputPort`), reported either as callee names or as one
argument of each call (`options.arg`: 0-based index, or a keyword name in
Python; string literals are reported unquoted, adjacent C strings joined).

Why it matters: lessons describe pipelines ("declares ports A, B, C in that
order", "step2 runs actuation, acceleration, constraint").

Example:
    kind = "call_order"
    path = "systems/sensors/accelerometer.cc"
    symbol = "Accelerometer<T>::Accelerometer"
    expected = ["body_poses", "body_spatial_velocities", "body_spatial_accelerations"]
    [claim.options]
    callee = "DeclareAbstractInputPort"
    arg = 0

Evidence used: the function's definition lines at the pinned blob.

Options: callee, arg, match = "exact" (default: the filtered list equals
`expected`) | "subsequence" (expected items occur in this order, others may
interleave) | "prefix"; overload (0-based index among same-named definitions).
Source order means an outer call precedes the calls in its arguments.
"""

from __future__ import annotations

from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome, same
from verifier.facts import flow
from verifier.results import Verdict

OPTIONS = {"callee": "regex on the callee name", "arg": "argument index or keyword to report",
           "match": "exact | subsequence | prefix", "overload": "0-based definition index"}


def _subsequence(want: list, have: list) -> bool:
    it = iter(have)
    return all(any(same(w, h) for h in it) for w in want)


class CallOrderKind(ClaimKind):
    name = "call_order"
    code = "VC106"

    def check(self, claim, ctx) -> Outcome:
        fs.check_options(claim, OPTIONS)
        expected = fs.str_list(claim, claim.expected, "expected (ordered callee names or arguments)")
        mode = claim.options.get("match", "exact")
        if mode not in ("exact", "subsequence", "prefix"):
            raise ClaimError(f"options.match must be exact, subsequence or prefix, got {mode!r}")
        keep = fs.callee_filter(claim)
        arg = fs.arg_option(claim)
        src, sf = fs.load(claim, ctx)

        def produce(fn: flow.FunctionDef) -> list[str]:
            out = []
            for call in flow.calls_in(src, fn.body):
                if not keep(call):
                    continue
                if arg is None:
                    out.append(call.name)
                else:
                    v = fs.call_arg(call, arg, src.lang)
                    if v is not None:
                        out.append(v)
            return out

        fn = fs.function(claim, src, produce)
        actual = produce(fn)
        if mode == "exact":
            ok = same(expected, actual)
        elif mode == "prefix":
            ok = len(actual) >= len(expected) and same(expected, actual[:len(expected)])
        else:
            ok = _subsequence(expected, actual)
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=actual,
                       evidence=ctx.evidence(sf, fn.start, fn.end),
                       message=None if ok else f"calls in {fn.name} ({mode} match) differ")
