"""The order of calls inside a function body.

## What it checks
The calls a function body makes, in source order (an outer call comes before the calls in
its arguments), optionally filtered by callee, reported as callee names or as one argument of
each call. Works for C functions (`mj_step2`), C++ out-of-line or in-class definitions
(`Accelerometer<T>::Accelerometer`, `Accelerometer::CalcOutput`; template arguments are
ignored) and Python functions/methods (`SolverMuJoCo.step`).
Macros are not expanded: a function-like macro invocation (`mjERROR(...)`,
`mjENABLED(...)`) counts as a call by its own name, and calls through function pointers
or callbacks count by the pointer's name.

Items compare by meaning (numbers by value, strings by value); Names in `expected` may be written in the lesson's notation when the claim file or the
course declares it (`[notation]`, see docs/claims/README.md); the verdict names the
entries it needed.

`expected = []` claims the function calls nothing the filter matches ("makes no state
declarations"); with several same-named definitions (constructors, overloads) every one
must hold. A filter that matches no call while `expected` lists calls is the claim's
`error` (with "did you mean"); a "calls none" claim whose filter is a near miss of a call
the function does make is an `error` unless the lesson sentence names it.

## Why it matters
Lessons describe pipelines: "the constructor declares the ports A, B, C in that order",
"step2 runs actuation, then acceleration, then constraints".

## Example
```toml
[[claim]]
id = "accel-input-ports-order"
fragment = "body_poses"                 # a verbatim fragment of the lesson sentence
kind = "call_order"
path = "systems/sensors/accelerometer.cc"
symbol = "Accelerometer<T>::Accelerometer"
expected = ["body_poses", "body_spatial_velocities", "body_spatial_accelerations"]
[claim.options]
callee = "DeclareAbstractInputPort"     # regex, full match on the name or whole callee
arg = 0                                 # report argument 0 (string literals unquoted)
```

## Options
| option | meaning |
|---|---|
| `callee` | regex that must fully match the callee's last name (`DeclareAbstractInputPort`) or its whole expression (`this->DeclareAbstractInputPort`, `self._mujoco.mj_step`) |
| `arg` | 0-based positional argument to report, or (Python) a keyword name; absent: report callee names |
| `match` | `exact` (default): the filtered list equals `expected`; `subsequence`: expected items occur in this order, others may interleave; `prefix` |
| `overload` | 0-based index among same-named definitions (source order). Without it, a single definition is used; with several, the one whose filtered call list is non-empty, else the claim is an error naming their lines |

## Evidence
The definition's line range at the pinned blob (C++ includes its `template <...>` line,
Python its decorators), with a permalink at the pinned commit.

## Verdicts
`verified` / `diverged` (actual list shown); `unavailable` when the file is not at pinned
identity; `error` for an unknown function or a filter that names nothing (both with "did
you mean"), bad options or an ambiguous overload.
"""

from __future__ import annotations

from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.compare import close_names, same_list
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome
from verifier.facts import flow
from verifier.results import Verdict

OPTIONS = {"callee": "regex on the callee name", "arg": "argument index or keyword to report",
           "match": "exact | subsequence | prefix", "overload": "0-based definition index"}


class CallOrderKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind
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

        defs = flow.find_functions(src, fs.need(claim, "symbol"))
        if not expected and len(defs) > 1 and claim.options.get("overload") is None:
            # "calls none of these": every definition (overloads, constructors) must hold
            found = [(d, produce(d)) for d in defs]
            bad = [(d, got) for d, got in found if got]
            d, got = bad[0] if bad else found[0]
            return Outcome(Verdict.DIVERGED if bad else Verdict.VERIFIED, actual=got,
                           evidence=ctx.evidence(sf, d.start, d.end),
                           message=(f"{d.name} (lines {d.start}-{d.end}) calls {got}" if bad else
                                    f"none of the {len(defs)} definitions of {d.name} does"))
        fn = fs.function(claim, src, produce)
        actual = produce(fn)
        near: tuple = ()
        if not actual and "callee" in claim.options:
            callees = list(dict.fromkeys(c.name for c in flow.calls_in(src, fn.body)))
            pat = str(claim.options["callee"])
            close = close_names(pat, callees)
            if expected:     # the filter is the claim's locator, and it names nothing
                hint = (f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else
                        f" (it calls: {', '.join(callees[:12]) or 'nothing'})")
                raise ClaimError(f"options.callee /{pat}/ matches no call in {fn.name} at the "
                                 "pin" + (f" (with an argument {arg})" if arg is not None else "")
                                 + hint)
            if close:        # "calls no X": is X a typo of a call it does make?
                near = ((pat, tuple(close)),)
        ok = same_list(expected, actual, src.lang, ctx.notation, mode=mode)
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=actual,
                       evidence=ctx.evidence(sf, fn.start, fn.end),
                       message=None if ok else f"calls in {fn.name} ({mode} match) differ",
                       near_miss=near)
