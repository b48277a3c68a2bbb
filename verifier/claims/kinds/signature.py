"""The ordered parameters of a function, method or constructor.

## What it checks
The ordered parameters of a callable, by name and optionally with defaults:

- C functions (header prototypes, source definitions; `(void)` is no parameter);
- C++ functions, methods and constructors — a class name (`Accelerometer`) means its
  constructors; out-of-line definitions (`Accelerometer<T>::Accelerometer`) work too;
- Python functions and methods — `self`/`cls` are dropped (not for `@staticmethod`),
  `*args`/`**kwargs` keep their stars; a class name means `__init__`, or for a dataclass
  without `__init__` its fields;
- pybind11 `__init__`/`.def(...)` with `py::arg("x") = default`.

When there are overloads, the claim holds if one of them matches; the message lists the
others.

## Why it matters
Lessons show calls. A renamed or reordered parameter breaks code copied from the lesson.

## Example
```toml
[[claim]]
id = "imu-ctor"
fragment = "SensorIMU(model, sites=..., request_state_attributes=True)"
kind = "signature"
upstream = "newton"
path = "newton/_src/sensors/sensor_imu.py"
symbol = "SensorIMU"
expected = ["model", "sites", { name = "request_state_attributes", default = "True" }]
options = { match = "subset" }     # the lesson leaves out `verbose`
```

## Options
| option | meaning |
|---|---|
| `match` | `exact` (default): same parameters in the same order; `prefix`: the first parameters; `subset`: these parameters in this relative order, others may interleave |

Entries of `expected` are names, or tables `{ name = ..., default = ... }`; a default is
compared like the `default` kind does (`0.0` == `0.` == `0`, `true` == `True`,
`0xFFFFFFFF` == `4294967295`, whitespace-normalised text).

## Evidence
The declaration head: from the first line (decorators, `template <...>`) to the end of the
parameter list.

## Verdicts
`verified` (actual = the matching overload) / `diverged` (actual = the first overload, the
others in the message; `null` when no callable has that name); `unavailable`; `error` for a
malformed `expected` or option. An unknown option is an `error` (known: match).
"""

from __future__ import annotations

from verifier.claims.kinds._lookup import (check_options, file_facts, lookup, missing, need,
                                           option, same_value, sym_desc)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.facts.model import FileFacts, Param, Sym
from verifier.results import Verdict

_CALLABLE = {"function", "method", "constructor", "macro"}


def callables(facts: FileFacts, symbol: str) -> list[Sym]:
    found = lookup(facts, symbol)
    out = [s for s in found if s.kind in _CALLABLE and s.params is not None]
    for s in found:
        if s.kind not in ("class", "struct"):
            continue
        if facts.lang == "python":
            init = [c for c in facts.children(s) if c.name == "__init__" and c.params is not None]
            if init:
                out.extend(init)
            elif any(d.split(".")[-1] in ("dataclass", "define", "frozen") for d in s.decorators):
                fields = [c for c in facts.children(s) if c.kind == "field"]
                out.append(Sym(name=s.name, kind="dataclass-init", qual=s.qual, start=s.start,
                               end=s.end, params=tuple(f.params[0] for f in fields if f.params)))
        else:
            out.extend(c for c in facts.children(s)
                       if c.kind == "constructor" and c.params is not None)
    return out


def _expected(claim) -> list[dict]:
    exp = claim.expected
    if not isinstance(exp, list):
        raise ClaimError("signature: `expected` must be a list of parameter names or of "
                         "{name = ..., default = ...} tables")
    out = []
    for item in exp:
        if isinstance(item, str):
            out.append({"name": item})
        elif isinstance(item, dict) and isinstance(item.get("name"), str) and \
                set(item) <= {"name", "default"}:
            out.append(item)
        else:
            raise ClaimError(f"signature: bad parameter entry {item!r} (a name, or a table "
                             "with `name` and optional `default`)")
    return out


def _item_ok(e: dict, p: Param) -> bool:
    if e["name"] != p.name:
        return False
    if "default" in e:
        return same_value(e["default"], p.default) if p.default is not None else e["default"] is None
    return True


def matches(exp: list[dict], params: tuple[Param, ...], mode: str) -> bool:
    ps = list(params)
    if mode == "exact":
        return len(ps) == len(exp) and all(_item_ok(e, p) for e, p in zip(exp, ps, strict=True))
    if mode == "prefix":
        return len(ps) >= len(exp) and all(_item_ok(e, p) for e, p in zip(exp, ps, strict=False))
    it = iter(ps)  # subset, in relative order
    return all(any(_item_ok(e, p) for p in it) for e in exp)


def shown(exp: list[dict], params: tuple[Param, ...]) -> list:
    with_defaults = any("default" in e for e in exp)
    if with_defaults:
        return [{"name": p.name, "default": p.default} if p.default is not None
                else {"name": p.name} for p in params]
    return [p.name for p in params]


class SignatureKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "signature"
    code = "VC102"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"match"})
        need(claim, "path", "symbol")
        mode = option(claim, "match", "exact", ("exact", "prefix", "subset"))
        exp = _expected(claim)
        facts, sf = file_facts(claim, ctx)
        cands = callables(facts, claim.symbol)
        if not cands:
            return Outcome(Verdict.DIVERGED, actual=None, evidence=ctx.evidence(sf, None, None),
                           message=missing(facts, claim.symbol, "function/method/constructor"))
        for s in cands:
            if matches(exp, s.params or (), mode):
                return Outcome(Verdict.VERIFIED, actual=shown(exp, s.params or ()),
                               evidence=ctx.evidence(sf, *s.head),
                               message=f"{sym_desc(s)} at line {s.start}"
                                       + (f" (1 of {len(cands)} overloads)" if len(cands) > 1 else ""))
        s = cands[0]
        others = "; ".join(f"line {c.start}: {shown(exp, c.params or ())}" for c in cands[1:])
        return Outcome(Verdict.DIVERGED, actual=shown(exp, s.params or ()),
                       evidence=ctx.evidence(sf, *s.head),
                       message=f"{sym_desc(s)} at line {s.start}"
                               + (f"; other overloads: {others}" if others else ""))
