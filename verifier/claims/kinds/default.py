"""The default value of a parameter, field or member initializer.

## What it checks
The default value of

- a field: Python dataclass/class field (`ClearData.clear_depth`), an attribute assigned in
  `__init__` (`World.time`), a module constant, a C++ member initializer
  (`double scale_{1.0};` or `int n_ = 4;`) — `symbol = "Class.field"`;
- a parameter: Python default, C++ default argument, pybind11 `py::arg("x") = ...` —
  `symbol` = the function, method, constructor or class, and `options.param = "name"`.

`expected` is the default as the lesson writes it, compared by meaning
(`verifier/claims/compare`): numbers by value (`0.0` == `0.` == `0.0f`, `0x1F` == `31`,
`1e-3` == `0.001`, `-0.0` == `0.0`) with constant arithmetic folded (`1/30` == `1.0 / 30`;
the source's own language decides, so C's integer `1/30` is 0), strings by value, booleans
as Python/C++ spell them (`true` == `True`), lists/tuples/brace initialisers as
sequences, set literals and flag compositions (`A | B`) as sets, calls by name and
arguments (`wp.vec3(0)` == `wp.vec3(0.0)`), anything else as an expression
(`Eigen::Vector3d::Zero()`); an enumerator may be written with less qualification than
the source gives it (`kExact` for `LineSearchType::kExact`; in Python, `mjSTATE_CTRL` for
`mujoco.mjtState.mjSTATE_CTRL.value`, the member's value). Names in `expected` may be written in the lesson's notation when the claim file or the
course declares it (`[notation]`, see docs/claims/README.md); the verdict names the
entries it needed. A field's default is what the fact model reads from its declaration:
a dataclass `field(default=X)` counts as `X` and `field(default_factory=F)` as `F()`,
so do pydantic `Field(X)` / `Field(default_factory=F)` and attrs `attr.ib(default=X)`,
`factory=F`, `Factory(F)`; a required field (`Field(...)`, no value) has no default. A
class's generated constructor (dataclass, pydantic, attrs, `NamedTuple`) takes the same
defaults, so `options.param` on the class works too.

## Why it matters
Lessons tell readers what happens when they pass nothing: a changed default silently
changes behaviour.

## Example
```toml
[[claim]]
id = "accel-gravity-default"
fragment = "gravity_vector"
kind = "default"
upstream = "drake"
path = "systems/sensors/accelerometer.h"
symbol = "Accelerometer"
expected = "Eigen::Vector3d::Zero()"
options = { param = "gravity_vector" }

[[claim]]
id = "clear-depth"
fragment = "clear_depth=0.0"
kind = "default"
upstream = "newton"
path = "newton/_src/sensors/warp_raytrace/types.py"
symbol = "ClearData.clear_depth"
expected = 0.0
```

## Options
| option | meaning |
|---|---|
| `param` | the parameter name, for callables (without it `symbol` must name a field) |

## Evidence
The field's line, or the callable's declaration head.

## Verdicts
`verified` / `diverged` (actual = the default text, `null` when there is none);
`unavailable`; `error` when the field, callable or parameter does not exist at the pin
(with "did you mean"), or for a bad option. An unknown option is an `error` (known: param).
"""

from __future__ import annotations

import re

from verifier.claims.compare import close_names
from verifier.claims.kinds._lookup import (check_options, file_facts, lookup_through_typedefs,
                                           need, same_value, sym_desc, unresolved)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.claims.kinds.signature import callables
from verifier.results import Verdict


def unwrap_field(text: str | None) -> str | None:
    if text is None:
        return None
    m = re.fullmatch(r"\s*(?:dataclasses\.)?field\((.*)\)\s*", text, re.S)
    if not m:
        return text
    args = m.group(1)
    d = re.search(r"\bdefault\s*=\s*(.+?)\s*(?:,\s*\w+\s*=|$)", args, re.S)
    if d:
        return d.group(1).strip()
    f = re.search(r"\bdefault_factory\s*=\s*(.+?)\s*(?:,\s*\w+\s*=|$)", args, re.S)
    if f:
        return f.group(1).strip() + "()"
    return None


_SCOPED = re.compile(r"^[A-Za-z_]\w*(?:\s*(?:\.|::)\s*[A-Za-z_]\w*)*$")


def same_default(claim, val, ctx, lang) -> bool:
    """By meaning (`same_value`), or an enumerator written with less qualification than
    the source gives it (`kExact` for `LineSearchType::kExact`, `ShapeFlags.VISIBLE` for
    `newton.ShapeFlags.VISIBLE`): the same name, its scope left implicit."""
    if val is None:
        return False
    if same_value(claim.expected, val, ctx, lang):
        return True
    exp = claim.expected
    if not (isinstance(exp, str) and _SCOPED.match(exp) and _SCOPED.match(val.strip())):
        return False
    e = re.split(r"\s*(?:\.|::)\s*", exp.strip())
    a = re.split(r"\s*(?:\.|::)\s*", val.strip())
    if lang == "python" and len(a) > 2 and a[-1] == "value" and e[-1] != "value":
        a = a[:-1]        # `mujoco.mjtState.mjSTATE_CTRL.value`: the enum member's value
    return len(e) < len(a) and a[len(a) - len(e):] == e


class DefaultKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "default"
    code = "VC103"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"param"})
        need(claim, "path", "symbol")
        param = claim.options.get("param")
        if param is not None and not isinstance(param, str):
            raise ClaimError("options.param must be a parameter name")
        facts, sf = file_facts(claim, ctx)
        if param:
            cands = callables(facts, claim.symbol, ctx)
            if not cands:
                raise unresolved(facts, claim.symbol, "function/method/constructor")
            seen = []
            for s in cands:
                for p in s.params or ():
                    if p.name == param:
                        seen.append((s, p.default))
            if not seen:
                s = cands[0]
                names = [p.name for c in cands for p in c.params or ()]
                close = close_names(param, names)
                raise ClaimError(f"{sym_desc(s)} has no parameter `{param}` (options.param) at "
                                 f"the pin (has: {', '.join(dict.fromkeys(names)) or 'none'})"
                                 + (f"; did you mean {', '.join(f'`{c}`' for c in close)}?"
                                    if close else ""))
            for s, val in seen:
                if same_default(claim, val, ctx, facts.lang):
                    return Outcome(Verdict.VERIFIED, actual=val, evidence=ctx.evidence(sf, *s.head),
                                   message=f"{sym_desc(s)}: {param} = {val}")
            s, val = seen[0]
            return Outcome(Verdict.DIVERGED, actual=val, evidence=ctx.evidence(sf, *s.head),
                           message=f"{sym_desc(s)}: {param} "
                                   + ("has no default" if val is None else f"= {val}"))
        kinds = {"field", "attribute", "variable"}
        cands = [s for s in lookup_through_typedefs(facts, claim.symbol) if s.kind in kinds]
        if not cands:
            err = unresolved(facts, claim.symbol, "field/attribute", kinds)
            raise ClaimError(f"{err} (for a parameter, set options.param)")
        s = cands[0]
        val = unwrap_field(s.value)
        ok = same_default(claim, val, ctx, facts.lang)
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=val,
                       evidence=ctx.evidence(sf, *s.head),
                       message=f"{sym_desc(s)}" + (" has no default" if val is None else f" = {val}"))
