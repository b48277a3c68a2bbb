"""The expression assigned to a variable, returned, or passed to a call, inside a function.

## What it checks
The expression a function assigns to a variable, returns, or passes to a call.

- `options.target = "R_SW"`: a declaration's initialiser (`const auto R_SW = ...;`) or a plain
  `=` assignment (`d->time = ...`, `self.dt = ...`); compound assignments are not targets.
- `options.target = "return"`: the value of a `return`.
- `options.call = "SetFromVector"` (regex, full match on the callee name or whole callee) with
  `options.arg` (default 0; in Python also a keyword name, `visible`): that argument of the
  call.

Comparison is structural: `expected` is parsed with the file's grammar and both sides are
compared as token sequences with explicit grouping. Whitespace, comments and redundant
parentheses do not matter; names, operators and grouping do:
`R_SW*(A_WS.translational()-gravity_vector_)` equals
`R_SW * ( A_WS.translational() - gravity_vector_ )`, but not
`R_SW * A_WS.translational() - gravity_vector_` and not `... - gravity_vector)`.
Numbers compare by value (`x / 2` == `x / 2.0`, `0x1F` == `31`) and constant
sub-expressions are folded (`x * (1/30)` == `x * (1.0 / 30)`; the source's language decides
integer division). Names in `expected` may be written in the lesson's notation when the claim file or the
course declares it (`[notation]`, see docs/claims/README.md); the verdict names the
entries it needed. Receivers
declared in the notation may be left out in front of a name (`int(time * fps)` for
`int(time * self.fps)`). When `expected` does not parse, whitespace-insensitive text
comparison is used.

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
| `call`, `arg` | callee regex and argument index, or (Python) keyword name (instead of `target`) |
| `occurrence` | 1-based occurrence (negative counts from the end) when the target gets several different expressions; without it such a claim is an error listing the lines |
| `overload` | 0-based index among same-named definitions |

## Evidence
The lines of the statement holding the expression, at the pinned blob.

## Verdicts
`verified` / `diverged` (`actual` = the source text, whitespace collapsed); `unavailable`;
`error` when the function never assigns the target or has no such call (with "did you
mean"), for bad options or ambiguity.
"""

from __future__ import annotations

from verifier.claims.compare import close_names, same_expression
from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome
from verifier.claims.kinds._userregex import UserRegex
from verifier.facts import flow
from verifier.results import Verdict

OPTIONS = {"target": "variable name or 'return'", "call": "regex on a callee name",
           "arg": "argument index, or keyword name in Python (with call)", "occurrence": "1-based, negative from end",
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
        arg: int | str = 0
        if callpat is not None:
            rx = UserRegex(callpat, "call")     # under the claim's time budget
            got = fs.arg_option(claim)
            arg = 0 if got is None else got
        elif "arg" in claim.options:
            raise ClaimError("options.arg only goes with options.call")
        src, sf = fs.load(claim, ctx)

        def found(fn: flow.FunctionDef) -> list[flow.Target]:
            if callpat is None:
                return flow.targets(src, fn, target)
            out = []
            for c in flow.calls_in(src, fn.body):
                if not (rx.fullmatch(c.name) or rx.fullmatch(c.callee)):
                    continue
                node = fs.call_arg_node(c, arg, src.lang)
                if node is not None:
                    out.append(flow.Target(node, flow.statement_of(c.node), "arg"))
            return out

        fn = fs.function(claim, src, found)
        cands = found(fn)
        what = f"`{target}`" if callpat is None else f"argument {arg} of calls to /{callpat}/"
        if not cands:
            raise ClaimError(_no_target(src, fn, target, callpat, arg))
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
        ok = same_expression(src.lang, pick.node, claim.expected, ctx.notation)
        start, end = flow.lines_of(pick.stmt)
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=actual,
                       evidence=ctx.evidence(sf, start, end),
                       message=None if ok else f"{what} in {fn.name} differs")


def assigned_names(fn: flow.FunctionDef) -> list[str]:
    """Every variable a function's body initialises or assigns with `=` (source order)."""
    out: list[str] = []

    def walk(n) -> None:
        t = n.type
        left = None
        if t == "init_declarator":
            left = n.child_by_field_name("declarator")
            while left is not None and left.type not in ("identifier", "field_identifier",
                                                         "qualified_identifier"):
                inner = left.child_by_field_name("declarator")
                left = inner if inner is not None else next(
                    (c for c in left.named_children if c.type.endswith("declarator")
                     or c.type == "identifier"), None)
        elif t in ("assignment_expression", "assignment"):
            op = n.child_by_field_name("operator")
            if op is None or flow.text(op) == "=":
                left = n.child_by_field_name("left")
        if left is not None:
            out.append("".join(flow.text(left).split()).lstrip("*&"))
        for c in n.children:
            walk(c)

    walk(fn.body)
    return list(dict.fromkeys(out))


def _no_target(src, fn, target, callpat, arg) -> str:
    """The claim's target or call names nothing in the function: say what is there."""
    if callpat is None:
        if target == "return":
            return f"{fn.name} has no `return` with a value at the pin"
        names = assigned_names(fn)
        close = close_names(target, names)
        hint = (f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else
                f" (it assigns: {', '.join(names[:12]) or 'nothing'})")
        return f"{fn.name} never assigns `{target}` (options.target) at the pin{hint}"
    callees = list(dict.fromkeys(c.name for c in flow.calls_in(src, fn.body)))
    close = close_names(callpat, callees)
    hint = (f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else
            f" (it calls: {', '.join(callees[:12]) or 'nothing'})")
    return (f"{fn.name} has no call matching /{callpat}/ (options.call) with an argument "
            f"{arg} at the pin{hint}")
