"""branch (VC107): which calls a function can reach under given bindings.

What it checks: with `options.bindings` fixing some expressions (e.g.
`{ "m->opt.integrator" = "mjINT_RK4" }`), walks the function body and evaluates
`if` / `else if` / `else`, `switch` (with fall-through and `default`), Python
`match`, ternaries and `&&` / `||` short-circuits. Conditions are decided when
built from `==`, `!=`, `||`, `&&`, `!` (`and`, `or`, `not`, `is`, `is not`),
parentheses, casts, integer / boolean literals and enum-like names (ALL_CAPS,
`kName`, `mjPFX_NAME`, `Enum.MEMBER`, `ns::kName`, or listed in
`options.constants`); distinct enum names are taken to be distinct values.
A condition mentioning anything unbound is undecidable: both sides "may reach".
A binding key may be any expression, matched after removing whitespace, casts
and outer parentheses (`"mjENABLED(mjENBL_FWDINV)" = false` binds a macro
call); a value is an enum name, an integer or a boolean.

`expected = { reaches = [...], not_reaches = [...] }` (callee names: the last
component, `mj_Euler`, or the whole callee expression, `self._mujoco.mj_step`).
`reaches` holds when some possible path calls the callee; `not_reaches` holds
only when no possible path does. Only direct calls in this function count
(nested lambdas/definitions count as possible), unless `options.follow = N`
walks N levels into callees defined in the same file (every same-named
definition, under the same bindings). Code after a certain `return` / `break` /
`continue` is unreachable.

Why it matters: lessons explain dispatch ("step2 with RK4 runs Euler").

Example:
    kind = "branch"
    path = "src/engine/engine_forward.c"
    symbol = "mj_step2"
    expected = { reaches = ["mj_Euler"], not_reaches = ["mj_implicit", "mj_RungeKutta"] }
    [claim.options]
    bindings = { "m->opt.integrator" = "mjINT_RK4" }

Evidence used: the function's definition lines at the pinned blob.

Options: bindings, constants (extra names to treat as constants), follow, overload.
"""

from __future__ import annotations

from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome
from verifier.facts import flow
from verifier.results import Verdict

OPTIONS = {"bindings": "table expression -> value", "constants": "extra constant names",
           "follow": "levels of same-file callees to walk into (default 0)",
           "overload": "0-based definition index"}


class BranchKind(ClaimKind):
    name = "branch"
    code = "VC107"

    def check(self, claim, ctx) -> Outcome:
        fs.check_options(claim, OPTIONS)
        exp = claim.expected
        if not isinstance(exp, dict) or not exp or set(exp) - {"reaches", "not_reaches"}:
            raise ClaimError("expected must be a table with `reaches` and/or `not_reaches` "
                             f"(lists of callee names), got {exp!r}")
        want = {k: fs.str_list(claim, v, f"expected.{k}") for k, v in exp.items()}
        bindings = claim.options.get("bindings", {})
        if not isinstance(bindings, dict) or not all(
                isinstance(v, (str, int, bool)) for v in bindings.values()):
            raise ClaimError("options.bindings must be a table of expression = value "
                             "(enum name, integer or boolean)")
        constants = claim.options.get("constants", [])
        constants = fs.str_list(claim, constants, "options.constants")
        follow = claim.options.get("follow", 0)
        if isinstance(follow, bool) or not isinstance(follow, int) or not 0 <= follow <= 10:
            raise ClaimError(f"options.follow must be an integer from 0 to 10, got {follow!r}")
        src, sf = fs.load(claim, ctx)
        fn = fs.function(claim, src, lambda f: bool(flow.calls_in(src, f.body)))
        reach = flow.reachable_calls(src, fn, bindings, constants, follow)

        def reached(name: str) -> bool:
            return any(c.matches(name) for c in reach.calls)

        names = list(dict.fromkeys(want.get("reaches", []) + want.get("not_reaches", [])))
        actual = {"reaches": [n for n in names if reached(n)],
                  "not_reaches": [n for n in names if not reached(n)]}
        actual = {k: v for k, v in actual.items() if v or k in want}
        ok = (all(reached(n) for n in want.get("reaches", []))
              and not any(reached(n) for n in want.get("not_reaches", [])))
        possible = list(dict.fromkeys(c.name for c in reach.calls))
        parts = []
        if not ok:
            wrong = [n for n in want.get("reaches", []) if not reached(n)]
            wrong += [n for n in want.get("not_reaches", []) if reached(n)]
            parts.append(f"differs for: {', '.join(wrong)}")
        shown = ", ".join(possible[:30]) + (f" (+{len(possible) - 30} more)"
                                            if len(possible) > 30 else "")
        parts.append("possibly reached: " + (shown or "(no calls)"))
        if reach.followed:
            parts.append("followed into: " + ", ".join(reach.followed))
        if reach.undecided:
            und = "; ".join(f"L{ln} {t[:60]}" for ln, t in reach.undecided[:6])
            more = f" (+{len(reach.undecided) - 6} more)" if len(reach.undecided) > 6 else ""
            parts.append(f"undecidable: {und}{more}")
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=actual,
                       evidence=ctx.evidence(sf, fn.start, fn.end), message="; ".join(parts))
