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
`not`, `is`, `is not`), `<`, `<=`, `>`, `>=` between known integers, parentheses, casts,
integer/boolean literals and enum-like names:
ALL_CAPS (`RK4`), `kName` (`Mode::kNoisy`), `mjPFX_NAME` (`mjINT_RK4`), `Enum.MEMBER`, or names
listed in `options.constants`. Two different enum names are taken to be different values
(names compare by their last component: `Mode::kA` == `kA`). **A condition mentioning anything
unbound is undecidable, and both sides "may reach".** Bitwise tests and calls are
undecidable unless the whole expression is bound (a binding key may be any expression:
`"mju_abs(denom) < mjMINVAL" = true`). A binding may list values
(`type = ["mjSENS_GEOMDIST", "mjSENS_GEOMFROMTO"]`): the claim must hold under each.

Entries of `reaches` / `not_reaches` are:

- a callee: its last name (`mj_Euler`) or whole expression (`self._mujoco.mj_step`);
- a call with its arguments, compared structurally (`mj_ray(m, d, origin, rvec, NULL, 1, ...)`:
  a trailing `...` means "these first arguments");
- an exit: `return`, `return X`, `raise E`, `throw E`;
- an assignment: `x = expr`, `n += 1`, or `x =` for any value (initialisers count);
- an assertion: `assert X`, or `assert` for any.

Expressions compare by meaning (`verifier/claims/compare`); Names in `expected` may be written in the lesson's notation when the claim file or the
course declares it (`[notation]`, see docs/claims/README.md); the verdict names the
entries it needed.
A callee in `reaches` that the function calls nowhere while a near-miss name is called is
the claim's `error` ("did you mean"); a near-miss in `not_reaches` is an `error` unless the
lesson sentence names it.

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
| `bindings` | table `expression = value` (enum name, integer, boolean), or `expression = [values]`: the claim must hold under each |
| `constants` | extra names to treat as constants when they appear in a comparison |
| `follow` | levels of same-file callees to walk into (0-10, default 0) |
| `overload` | 0-based index among same-named definitions |

## Evidence
The definition's line range at the pinned blob. The message lists every possibly reached
callee and the undecidable conditions (with lines), so a reviewer can see why.

## Verdicts
`verified` / `diverged` (`actual` = the expected entries split into those reached and not;
with listed binding values, one such table per combination, with its `bindings`);
`unavailable`; `error` for a bad `expected` table, bindings (more than 64 combinations) or
locator.
"""

from __future__ import annotations

import re

from verifier.claims.compare import close_names, same_expression, same_name
from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome
from verifier.claims.notation import Tracker
from verifier.facts.names import split_args
from verifier.facts import flow
from verifier.facts.flow.calls import is_call
from verifier.results import Verdict

OPTIONS = {"bindings": "table expression -> value", "constants": "extra constant names",
           "follow": "levels of same-file callees to walk into (default 0)",
           "overload": "0-based definition index"}

_EXIT = re.compile(r"^(return|raise|throw)\b\s*(.*?)\s*;?\s*$", re.S)
_ASSIGN = re.compile(r"^(.+?)\s*((?:<<|>>|\*\*|//|[-+*/%&|^])?=)(?!=)\s*(.*?)\s*;?\s*$", re.S)
_ASSERT = re.compile(r"^assert\b\s*(.*?)\s*;?\s*$", re.S)
_EXIT_TYPES = {"return": "return_statement", "raise": "raise_statement",
               "throw": "throw_statement"}


class _Item:
    """One entry of `reaches`/`not_reaches`: a callee, an exit (`return X`, `raise E`),
    an assignment (`x = expr`, `n += 1`, or `x =` for any value) or an `assert X`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.op = "="
        self.callee, self.args, self.prefix = "", None, False
        t = text.strip()
        m = _EXIT.match(t)
        if m:
            self.kind, self.what, self.value = "exit", m.group(1), m.group(2) or None
            return
        m = _ASSERT.match(t)
        if m:
            self.kind, self.what, self.value = "assert", "assert", m.group(1) or None
            return
        m = _ASSIGN.match(t)
        if m and not re.fullmatch(r"[\w:.<>~]+", t) and not m.group(1).rstrip().endswith(
                ("<", ">", "!")):
            self.kind, self.what, self.op = "assign", m.group(1).strip(), m.group(2)
            self.value = m.group(3) or None
            return
        self.kind, self.what, self.value = "call", t, None
        self.callee, self.args, self.prefix = t, None, False
        m = re.match(r"^([\w:.>\-\[\]<]+?)\s*\((.*)\)\s*;?$", t, re.S)
        if m:                      # a call with its arguments: f(a, b) or f(a, ...)
            args = split_args(m.group(2))
            self.prefix = bool(args) and args[-1] == "..."
            self.callee, self.args = m.group(1), [a for a in args if a != "..."]


def _exit_value(node):
    vals = [c for c in node.named_children if c.type != "comment"]
    return vals[0] if vals else None


def _op(node) -> str:
    if node.type == "init_declarator":
        return "="
    op = node.child_by_field_name("operator")
    if op is not None:
        return flow.text(op).strip()
    between = [c for c in node.children if not c.is_named and flow.text(c).endswith("=")]
    return flow.text(between[0]).strip() if between else "="


def _assign_sides(node):
    if node.type == "init_declarator":
        left = node.child_by_field_name("declarator")
        right = node.child_by_field_name("value")
        name = left
        while name is not None and name.type not in ("identifier", "field_identifier",
                                                     "qualified_identifier"):
            inner = name.child_by_field_name("declarator")
            name = inner if inner is not None else next(
                (c for c in name.named_children if c.type.endswith("declarator")
                 or c.type == "identifier"), None)
        return name, right
    return node.child_by_field_name("left"), node.child_by_field_name("right")


class BranchKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind
    name = "branch"
    code = "VC107"

    def check(self, claim, ctx) -> Outcome:
        fs.check_options(claim, OPTIONS)
        exp = claim.expected
        if not isinstance(exp, dict) or not exp or set(exp) - {"reaches", "not_reaches"}:
            raise ClaimError("expected must be a table with `reaches` and/or `not_reaches` "
                             f"(lists of callee names, `return X`, `x = expr`), got {exp!r}")
        want = {k: fs.str_list(claim, v, f"expected.{k}") for k, v in exp.items()}
        bindings = claim.options.get("bindings", {})
        if not isinstance(bindings, dict) or not all(
                isinstance(v, (str, int, bool)) or (isinstance(v, list) and v and all(
                    isinstance(x, (str, int, bool)) for x in v)) for v in bindings.values()):
            raise ClaimError("options.bindings must be a table of expression = value "
                             "(enum name, integer or boolean), or = [values] for a claim that "
                             "must hold for each of them")
        scenarios = _scenarios(bindings)
        constants = claim.options.get("constants", [])
        constants = fs.str_list(claim, constants, "options.constants")
        follow = claim.options.get("follow", 0)
        if isinstance(follow, bool) or not isinstance(follow, int) or not 0 <= follow <= 10:
            raise ClaimError(f"options.follow must be an integer from 0 to 10, got {follow!r}")
        src, sf = fs.load(claim, ctx)
        fn = fs.function(claim, src, lambda f: bool(flow.calls_in(src, f.body)))
        every = flow.reachable_calls(src, fn, {}, constants, follow)   # any path, no bindings
        lang = src.lang
        items = {k: [_Item(t) for t in v] for k, v in want.items()}
        callees = list(dict.fromkeys(c.name for c in every.calls))
        near: list[tuple[str, tuple[str, ...]]] = []
        for it in items.get("reaches", []):
            if it.kind == "call" and not _hits(it, every, ctx.notation.probe(), lang) and not \
                    _hits(it, every, None, lang):
                close = close_names(flow.short_name(it.callee), callees, cutoff=0.8)
                if close and flow.short_name(it.callee) not in callees:
                    raise ClaimError(f"`{it.what}` (expected.reaches) is called nowhere in "
                                     f"{fn.name} at the pin; did you mean "
                                     f"{', '.join(f'`{c}`' for c in close)}?")
        for it in items.get("not_reaches", []):
            if it.kind == "call" and not _hits(it, every, ctx.notation.probe(), lang):
                close = close_names(flow.short_name(it.callee), callees, cutoff=0.8)
                if close and flow.short_name(it.callee) not in callees:
                    near.append((it.what, tuple(close)))

        names = list(dict.fromkeys(want.get("reaches", []) + want.get("not_reaches", [])))
        by_text = {it.text: it for v in items.values() for it in v}
        runs = []
        for bound in scenarios:
            reach = flow.reachable_calls(src, fn, bound, constants, follow)

            def reached(item: _Item, reach=reach) -> bool:
                if _hits(item, reach, None, lang):
                    return True
                probe = ctx.notation.probe()
                if ctx.notation.notation and _hits(item, reach, probe, lang):
                    ctx.notation.record(probe.used.values())
                    return True
                return False

            status = {n: reached(by_text[n]) for n in names}
            ok = (all(status[n] for n in want.get("reaches", []))
                  and not any(status[n] for n in want.get("not_reaches", [])))
            runs.append((bound, reach, status, ok))
        ok = all(r[3] for r in runs)
        parts = []
        actuals = []
        for bound, reach, status, good in runs:
            act = {"reaches": [n for n in names if status[n]],
                   "not_reaches": [n for n in names if not status[n]]}
            act = {k: v for k, v in act.items() if v or k in want}
            if len(runs) > 1:
                act = {"bindings": bound, **act}
            actuals.append(act)
            if not good:
                wrong = [n for n in want.get("reaches", []) if not status[n]]
                wrong += [n for n in want.get("not_reaches", []) if status[n]]
                under = f" under {_show(bound)}" if len(runs) > 1 else ""
                parts.append(f"differs for: {', '.join(wrong)}{under}")
        bound, reach, _, _ = next((r for r in runs if not r[3]), runs[0])
        possible = list(dict.fromkeys(c.name for c in reach.calls))
        shown = ", ".join(possible[:30]) + (f" (+{len(possible) - 30} more)"
                                            if len(possible) > 30 else "")
        parts.append("possibly reached" + (f" under {_show(bound)}" if len(runs) > 1 else "")
                     + ": " + (shown or "(no calls)"))
        if any(it.kind != "call" for v in items.values() for it in v):
            exits = [flow.squash(flow.text(n))[:60] for n in reach.returns[:6]]
            parts.append("possible exits: " + ("; ".join(exits) or "(none)"))
        if reach.followed:
            parts.append("followed into: " + ", ".join(reach.followed))
        if reach.undecided:
            und = "; ".join(f"L{ln} {t[:60]}" for ln, t in reach.undecided[:6])
            more = f" (+{len(reach.undecided) - 6} more)" if len(reach.undecided) > 6 else ""
            parts.append(f"undecidable: {und}{more}")
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED,
                       actual=actuals[0] if len(actuals) == 1 else actuals,
                       evidence=ctx.evidence(sf, fn.start, fn.end), message="; ".join(parts),
                       near_miss=tuple(near) if ok else ())


MAX_SCENARIOS = 64


def _scenarios(bindings: dict) -> list[dict]:
    """Every combination of list-valued bindings (a claim must hold under each)."""
    import itertools

    keys = list(bindings)
    values = [v if isinstance(v, list) else [v] for v in bindings.values()]
    n = 1
    for v in values:
        n *= len(v)
    if n > MAX_SCENARIOS:
        raise ClaimError(f"options.bindings: {n} combinations of listed values (at most "
                         f"{MAX_SCENARIOS})")
    return [dict(zip(keys, combo)) for combo in itertools.product(*values)] or [{}]


def _show(bound: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in bound.items()) or "no bindings"


def _hits(item: "_Item", r: flow.Reach, tr: Tracker | None, lang: str) -> bool:
    """Whether the reach result `r` holds `item`."""
    if item.kind == "call":
        for c in r.calls:
            if item.args is None:
                if c.matches(item.callee) or (tr is not None and (
                        same_name(item.callee, c.name, tr) or same_name(item.callee, c.callee, tr))):
                    return True
            elif _call_matches(item, c, lang, tr):
                return True
        return False
    if item.kind == "exit":
        for node in r.returns:
            if node.type != _EXIT_TYPES[item.what] and not (
                    item.what == "raise" and node.type == "throw_statement"):
                continue
            if item.value is None:
                return True
            val = _exit_value(node)
            if val is None:
                continue
            if same_expression(lang, val, item.value, tr):
                return True
            if item.what in ("raise", "throw") and is_call(val, lang):
                c = flow.make_call(val, lang)
                if c is not None and (c.matches(item.value) or (
                        tr is not None and same_name(item.value, c.name, tr))):
                    return True
        return False
    if item.kind == "assert":
        for node in r.asserts:
            vals = [c for c in node.named_children if c.type != "comment"]
            if item.value is None or (vals and same_expression(lang, vals[0], item.value, tr)):
                return True
        return False
    want = _lvalue(item.what)
    for node in r.assigns:
        left, right = _assign_sides(node)
        if left is None or right is None or _op(node) != item.op:
            continue
        lt = _lvalue(flow.text(left))
        if lt != want and not (tr is not None and same_name(item.what, lt, tr)):
            continue
        if item.value is None or same_expression(lang, right, item.value, tr):
            return True
    return False


def _lvalue(s: str) -> str:
    return "".join(s.split()).lstrip("*&")


def _call_matches(item: "_Item", c: flow.Call, lang: str, tr: Tracker | None) -> bool:
    """A call item with arguments (`f(a, b)`, or `f(a, ...)` for the first ones)."""
    if not (c.matches(item.callee) or (tr is not None and same_name(item.callee, c.name, tr))):
        return False
    args = [a for a in c.args if a.type != "comment"]
    want = item.args or []
    if item.prefix:
        if len(args) < len(want):
            return False
    elif len(args) != len(want):
        return False
    return all(bool(same_expression(lang, a, w, tr)) for a, w in zip(args, want))
