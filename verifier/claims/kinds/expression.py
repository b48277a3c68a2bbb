"""expression (VC109): the expression assigned to a variable, returned, or
passed to a call, inside a function.

What it checks: `options.target` names a variable (a declaration's
initialiser or a plain `=` assignment: `R_SW`, `d->time`, `self.dt`) or is
"return"; alternatively `options.call` (regex fully matching a callee name,
e.g. `SetFromVector`) with `options.arg` (default 0) takes a call argument.
`expected` is the expression text. Comparison is structural: both sides are
parsed with the file's grammar and compared as token sequences with explicit
grouping, so whitespace and redundant parentheses do not matter
(`R_SW*(A_WS.translational()-gravity_vector_)` equals
`R_SW * (A_WS.translational() - gravity_vector_)`, but not `R_SW*A_WS.translational()-g`).

Why it matters: lessons quote formulas from the implementation.

Example:
    kind = "expression"
    path = "systems/sensors/accelerometer.cc"
    symbol = "Accelerometer<T>::CalcOutput"
    expected = "R_SW * (A_WS.translational() - gravity_vector_)"
    [claim.options]
    call = "SetFromVector"

Evidence used: the lines of the statement holding the expression.

Options: target | call (+ arg), occurrence (1-based; negative counts from the
end) when the target is assigned several different expressions, overload.
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
