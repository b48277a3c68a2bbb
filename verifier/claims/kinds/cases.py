"""The case labels a switch (C/C++) or match (Python) handles, and what its default branch
does.

## What it checks
The case labels a C/C++ `switch`, a Python `match`, or an if / else-if chain over one subject
(`if (x == A) ... else if (x == B || x == C) ... else ...`, Python `if x == A:` / `elif x in
(B, C):` / `else:`) handles inside a function, and what the default branch (the final
`else` of a chain) does. Without `options.switch`, a switch or match is preferred over a
chain.

`expected` is a table with either or both keys:

- `cases`: the labels (compared as a set by default; a label also matches by its last
  component, `kIdeal` ~ `Mode::kIdeal`, and by value, `0x1` ~ `1`), **or** a table
  `label = callee` requiring that the label reaches that callee (following fall-through
  until `break`) or runs that statement (`"return mjSTAGE_POS"`, whitespace ignored; a label
  grouped with the next ones runs theirs);
- `default`: a callee name or a piece of text the default branch does (matches a call reached
  from `default`, or a whitespace-insensitive substring of its statements); `false` means
  there must be no default branch, `true` that there must be one. In Python, `case _:` (or an
  irrefutable capture pattern) is the default.

Names in `expected` may be written in the lesson's notation when the claim file or the
course declares it (`[notation]`, see docs/claims/README.md); the verdict names the
entries it needed.

## Why it matters
Lessons enumerate handled modes: "Euler, RK4 and the two implicit integrators; anything else
is an error".

## Example
```toml
[[claim]]
id = "step-integrators"
fragment = "mj_step"
kind = "cases"
path = "src/engine/engine_forward.c"
symbol = "mj_step"
expected = { cases = ["mjINT_EULER", "mjINT_RK4", "mjINT_IMPLICIT", "mjINT_IMPLICITFAST"], default = "mjERROR" }
[claim.options]
switch = "m->opt.integrator"
```

## Options
| option | meaning |
|---|---|
| `switch` | the switch/match subject, compared without whitespace, casts or outer parentheses; optional when the function has exactly one |
| `match` | `set` (default): same labels; `exact`: same labels in source order; `subset`: the expected labels are among those handled |
| `overload` | 0-based index among same-named definitions |

## Evidence
The switch (or match) statement's line range at the pinned blob.

## Verdicts
`verified` / `diverged` (message names missing/extra labels, wrong callees, default
problems; `actual` = labels and the default branch's text); `unavailable`; `error` when the
function has no such switch or chain (with "did you mean" for the subject) or several
without `options.switch`.
"""

from __future__ import annotations

from verifier.claims.compare import close_names, same_name, same_value
from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.notation import Tracker
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome
from verifier.facts import flow
from verifier.results import Verdict

OPTIONS = {"switch": "switch expression text", "match": "set | exact | subset",
           "overload": "0-based definition index"}


def _norm(label: str) -> str:
    return "".join(str(label).split())


def _label_eq(a: str, b: str, tracker: Tracker | None = None) -> bool:
    """Labels by meaning: the same constant (`kA` ~ `Mode::kA`, `0x1` ~ `1`), or the
    same name through the claim's notation."""
    a, b = _norm(a), _norm(b)
    if a == b:
        return True
    pa, pb = flow.split_symbol(a), flow.split_symbol(b)
    if pa and pb and pa[-1] == pb[-1]:
        return True
    if same_value(a, b, None, None):
        return True
    return tracker is not None and bool(same_name(a, b, tracker))


def _arm_text(sw: flow.Switch, arm: flow.Arm) -> str:
    """The statements a label runs: its own, or (a label with none, grouped with the
    next ones) those of the first following arm that has statements."""
    i = next(k for k, a in enumerate(sw.arms) if a is arm)
    for a in sw.arms[i:]:
        if a.text.strip():
            return a.text
    return ""


def _default_does(arm: flow.Arm, want: str) -> bool:
    if any(c == _norm(want) or flow.short_name(want) == c for c in arm.calls):
        return True
    return _norm(want) in _norm(arm.text)


class CasesKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind
    name = "cases"
    code = "VC108"

    def check(self, claim, ctx) -> Outcome:
        fs.check_options(claim, OPTIONS)
        exp = claim.expected
        if not isinstance(exp, dict) or not exp or set(exp) - {"cases", "default"}:
            raise ClaimError("expected must be a table with `cases` (labels, or label = callee) "
                             f"and/or `default` (callee/text, or true/false), got {exp!r}")
        cases = exp.get("cases")
        if cases is not None and not isinstance(cases, dict):
            cases = fs.str_list(claim, cases, "expected.cases")
        if isinstance(cases, dict) and not all(isinstance(v, str) for v in cases.values()):
            raise ClaimError("expected.cases as a table maps label = callee name (strings)")
        dflt = exp.get("default")
        if "default" in exp and not isinstance(dflt, (str, bool)):
            raise ClaimError(f"expected.default must be a callee/text or true/false, got {dflt!r}")
        mode = claim.options.get("match", "set")
        if mode not in ("set", "exact", "subset"):
            raise ClaimError(f"options.match must be set, exact or subset, got {mode!r}")
        subject = claim.options.get("switch")
        if subject is not None and not isinstance(subject, str):
            raise ClaimError("options.switch must be the switch expression's text")
        src, sf = fs.load(claim, ctx)

        def pick(fn: flow.FunctionDef) -> list[flow.Switch]:
            sws = flow.switches(src, fn)
            if subject is None:
                return sws or flow.if_chains(src, fn)   # a switch/match first, else a chain
            key = flow.subject_key(subject)
            return [s for s in sws + flow.if_chains(src, fn)
                    if s.subject_key == key or _norm(s.subject) == _norm(subject)
                    or flow.subject_key(s.subject) == key]

        fn = fs.function(claim, src, pick)
        sws = pick(fn)
        kw = "match" if src.lang == "python" else "switch"
        if not sws:
            found = flow.switches(src, fn) + flow.if_chains(src, fn)
            present = [s.subject for s in found]
            close = close_names(flow.subject_key(subject), [s.subject_key for s in found]) \
                if subject else []
            raise ClaimError(f"no {kw} or if / else-if chain " + (f"on `{subject}` " if subject else "")
                             + f"in {fn.name} at the pin"
                             + (f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close
                                else f" (it has: {', '.join(present)})" if present else ""))
        if len(sws) > 1:
            raise ClaimError(f"{fn.name} has {len(sws)} {kw} statements "
                             f"({', '.join(s.subject for s in sws)}); set options.switch")
        sw = sws[0]
        labels = sw.labels
        arm_default = sw.default_arm
        problems: list[str] = []
        actual: dict = {}
        if cases is not None:
            want = list(cases) if isinstance(cases, dict) else cases
            tr = ctx.notation
            missing = [w for w in want if not any(_label_eq(w, h, tr) for h in labels)]
            extra = [h for h in labels if not any(_label_eq(w, h, tr.probe()) for w in want)]
            if missing:
                problems.append(f"not handled: {', '.join(missing)}")
            if extra and mode in ("set", "exact"):
                problems.append(f"also handled: {', '.join(extra)}")
            if mode == "exact" and not missing and not extra:
                order = [next(h for h in labels if _label_eq(w, h, tr.probe())) for w in want]
                if order != [h for h in labels if h in order]:
                    problems.append("labels are handled in another order")
            if isinstance(cases, dict):
                got = {}
                for w, callee in cases.items():
                    arm = next((a for a in sw.arms
                                if any(_label_eq(w, lab, tr.probe()) for lab in a.labels)), None)
                    got[w] = arm.calls if arm else None
                    if arm is not None and not any(c == flow.short_name(callee) or
                                                   c == _norm(callee) or same_name(callee, c, tr)
                                                   for c in arm.calls) \
                            and _norm(callee) not in _norm(_arm_text(sw, arm)):
                        problems.append(f"{w} does not reach {callee} (reaches "
                                        f"{', '.join(arm.calls) or 'no call'})")
                actual["cases"] = {lab: next((a.calls for a in sw.arms if lab in a.labels), [])
                                   for lab in labels}
            else:
                actual["cases"] = labels
        if "default" in exp:
            actual["default"] = arm_default.text if arm_default else None
            if isinstance(dflt, bool):
                if dflt != (arm_default is not None):
                    problems.append("has a default branch" if arm_default else "no default branch")
            elif arm_default is None:
                problems.append("no default branch")
            elif not _default_does(arm_default, dflt):
                problems.append(f"default does not do {dflt!r} (calls "
                                f"{', '.join(arm_default.calls) or 'nothing'})")
        start, end = flow.lines_of(sw.node)
        return Outcome(Verdict.DIVERGED if problems else Verdict.VERIFIED, actual=actual,
                       evidence=ctx.evidence(sf, start, end),
                       message="; ".join(problems) or None)
