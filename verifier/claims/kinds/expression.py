"""The expression assigned to a variable, returned, or passed to a call, inside a function.

## What it checks
The expression a function assigns to a variable, returns, or passes to a call.

- `options.target = "R_SW"`: a declaration's initialiser (`const auto R_SW = ...;`) or a plain
  `=` assignment (`d->time = ...`, `self.dt = ...`); compound assignments are not targets.
- `options.target = "return"`: the value of a `return`.
- `options.call = "SetFromVector"` (regex, full match on the callee name or whole callee) with
  `options.arg` (default 0): that argument of the call.

Comparison is structural: `expected` is parsed with the file's grammar and both sides are
compared as token sequences with explicit grouping. Whitespace, comments and redundant
parentheses do not matter; names, operators and grouping do:
`R_SW*(A_WS.translational()-gravity_vector_)` equals
`R_SW * ( A_WS.translational() - gravity_vector_ )`, but not
`R_SW * A_WS.translational() - gravity_vector_` and not `... - gravity_vector)`.
When `expected` does not parse, whitespace-insensitive text comparison is used.

## Why it matters
Lessons quote the formula an implementation computes.

## Example
```toml
[[claim]]
id = "accel-output-formula"
fragment = "A_WS.translational()"
kind = "expression"
path = "systems/sensors/accelerometer.cc"
symbol = "Accelerometer<T>::CalcOutput"
expected = "R_SW * (A_WS.translational() - gravity_vector_)"
[claim.options]
call = "SetFromVector"
```

## Options
| option | meaning |
|---|---|
| `target` | variable name, or `return` |
| `call`, `arg` | callee regex and argument index (instead of `target`) |
| `occurrence` | 1-based occurrence (negative counts from the end) when the target gets several different expressions; without it such a claim is an error listing the lines |
| `overload` | 0-based index among same-named definitions |

## Evidence
The lines of the statement holding the expression, at the pinned blob.

## Verdicts
`verified` / `diverged` (`actual` = the source text, whitespace collapsed; `null` when the
function never assigns the target); `unavailable`; `error` for bad options or ambiguity.
"""

from __future__ import annotations

import re

from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome
from verifier.facts import flow
from verifier.results import Verdict

OPTIONS = {"target": "variable name or 'return'", "call": "regex on a callee name",
           "arg": "argument index (with call)", "occurrence": "1-based, negative from end",
           "overload": "0-based definition index"}


class ExpressionKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind
    name = "expression"
    code = "VC109"

    def check(self, claim, ctx) -> Outcome:
        fs.check_options(claim, OPTIONS)
        if not isinstance(claim.expected, str) or not claim.expected.strip():
            raise ClaimError(f"expected must be the expression text, got {claim.expected!r}")
        target, callpat = claim.options.get("target"), claim.options.get("call")
        if (target is None) == (callpat is None):
            raise ClaimError("expression needs exactly one of options.target (variable or "
                             "'return') and options.call (callee regex)")
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise ClaimError(f"options.target must be a variable name or 'return', got {target!r}")
        occ = claim.options.get("occurrence")
        if occ is not None and (isinstance(occ, bool) or not isinstance(occ, int) or occ == 0):
            raise ClaimError(f"options.occurrence must be a non-zero integer, got {occ!r}")
        if callpat is not None:
            if not isinstance(callpat, str):
                raise ClaimError("options.call must be a regular expression string")
            try:
                rx = re.compile(callpat)
            except re.error as exc:
                raise ClaimError(f"options.call is not a valid regular expression: {exc}") from None
            arg = fs.arg_option(claim)
            arg = 0 if arg is None else arg
            if isinstance(arg, str):
                raise ClaimError("options.arg must be an index for expression claims")
        elif "arg" in claim.options:
            raise ClaimError("options.arg only goes with options.call")
        src, sf = fs.load(claim, ctx)

        def found(fn: flow.FunctionDef) -> list[flow.Target]:
            if callpat is None:
                return flow.targets(src, fn, target)
            out = []
            for c in flow.calls_in(src, fn.body):
                if (rx.fullmatch(c.name) or rx.fullmatch(c.callee)) and arg < len(c.args):
                    out.append(flow.Target(c.args[arg], flow.statement_of(c.node), "arg"))
            return out

        fn = fs.function(claim, src, found)
        cands = found(fn)
        what = f"`{target}`" if callpat is None else f"argument {arg} of calls to /{callpat}/"
        if not cands:
            return Outcome(Verdict.DIVERGED, actual=None,
                           evidence=ctx.evidence(sf, fn.start, fn.end),
                           message=f"no {what} in {fn.name}")
        if occ is not None:
            if abs(occ) > len(cands):
                raise ClaimError(f"options.occurrence = {occ}, but {what} occurs "
                                 f"{len(cands)} time(s) in {fn.name}")
            pick = cands[occ - 1] if occ > 0 else cands[occ]
        else:
            forms = {flow.canonical_expression(c.node) for c in cands}
            if len(forms) > 1:
                where = ", ".join(f"L{c.stmt.start_point[0] + 1}" for c in cands)
                raise ClaimError(f"{what} has {len(forms)} different expressions in {fn.name} "
                                 f"({where}); set options.occurrence")
            pick = cands[0]
        actual = flow.squash(flow.text(pick.node))
        ok = flow.same_expression(src.lang, pick.node, claim.expected)
        start, end = flow.lines_of(pick.stmt)
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=actual,
                       evidence=ctx.evidence(sf, start, end),
                       message=None if ok else f"{what} in {fn.name} differs")
