"""Which calls a function can reach under given bindings.

## What it checks
Which calls a function can reach when some expressions are fixed by `options.bindings`.
The body is walked statement by statement:

- `if` / `else if` / `else`, C/C++ `switch` (fall-through until `break`, `default`), Python
  `if`/`elif`/`else` and `match` (`case _:` is the default, guards are conditions);
- ternaries (`c ? a : b`, `a if c else b`) and `&&` / `||` (`and` / `or`) short-circuits;
- `return`, `break`, `continue`, `goto`, `raise`/`throw`: code after a *certain* exit is
  unreachable (a C label makes it reachable again); loops may run their body.

A condition is decided when it is built from `==`, `!=`, `||`, `&&`, `!` (and `and`, `or`,
`not`, `is`, `is not`), parentheses, casts, integer/boolean literals and enum-like names:
ALL_CAPS (`RK4`), `kName` (`Mode::kNoisy`), `mjPFX_NAME` (`mjINT_RK4`), `Enum.MEMBER`, or names
listed in `options.constants`. Two different enum names are taken to be different values
(names compare by their last component: `Mode::kA` == `kA`). **A condition mentioning anything
unbound is undecidable, and both sides "may reach".** Bitwise tests, `<`/`>` and calls are
undecidable unless the whole expression is bound.

`reaches` holds when some possible path calls the callee; `not_reaches` holds only when no
possible path calls it. By default only direct calls of this function count (calls inside
nested lambdas/definitions count as possible); `options.follow = N` walks N levels into
callees defined in the same file (every same-named definition, under the same bindings),
and the message lists the functions followed.
Macros are not expanded: a function-like macro invocation (`mjERROR(...)`,
`mjENABLED(...)`) counts as a call by its own name, and calls through function pointers
or callbacks count by the pointer's name.

## Why it matters
Lessons explain dispatch: "3.15's `mj_step2` runs Euler when the model asks for RK4".

## Example
```toml
[[claim]]
id = "step2-rk4-euler"
fragment = "mj_step2"
kind = "branch"
path = "src/engine/engine_forward.c"
symbol = "mj_step2"
expected = { reaches = ["mj_Euler"], not_reaches = ["mj_implicit", "mj_RungeKutta"] }
[claim.options]
bindings = { "m->opt.integrator" = "mjINT_RK4" }
```

A binding key is any expression, matched without whitespace, casts or outer parentheses, so
`switch ((mjtIntegrator) m->opt.integrator)` matches `m->opt.integrator`, and
`"mjENABLED(mjENBL_FWDINV)" = false` decides a macro test. Values: enum name (string),
integer, or boolean.

## Options
| option | meaning |
|---|---|
| `bindings` | table `expression = value` |
| `constants` | extra names to treat as constants when they appear in a comparison |
| `follow` | levels of same-file callees to walk into (0-10, default 0) |
| `overload` | 0-based index among same-named definitions |

## Evidence
The definition's line range at the pinned blob. The message lists every possibly reached
callee and the undecidable conditions (with lines), so a reviewer can see why.

## Verdicts
`verified` / `diverged` (`actual` = the expected names split into those reached and not);
`unavailable`; `error` for a bad `expected` table, bindings or locator.
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
    __doc__ = __doc__  # the module docstring documents the kind
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
