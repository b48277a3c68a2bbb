"""The declared type of a field, attribute, variable or parameter.

## What it checks
The type a declaration states at the pin, as the fact model records it:

- a field, attribute or variable — `symbol = "Class.field"` (a Python annotation,
  `accelerometer: wp.array[wp.vec3]`; a C/C++ member's type specifier, `mjtNum` for
  `mjtNum* qpos`: the fact model keeps no `const`, `*`, `&` or `[]`);
- a parameter — `symbol` = the function, method, constructor or class and
  `options.param = "name"` (a Python annotation, a C/C++ type specifier).

`expected` is a type name, or a list of them, as the lesson writes it. With
`match = "mentions"` (the default) each name must occur in the declared type as a whole
identifier, module qualifiers ignored (`vec3` and `wp.vec3` are both in
`wp.array[wp.vec3] | None`); Warp's short names and their `f` spellings are the same type
(`vec3` == `vec3f`, `mat33` == `mat33f`, `quat` == `quatf`, `transform` ==
`transformf`, `spatial_vector` == `spatial_vectorf`). With `match = "exact"` the whole
declared type must equal `expected` (whitespace and module qualifiers ignored).

## Why it matters
Lessons tell readers what an array holds (`vec3` per site, `uint32` packed colour,
`mjtNum` doubles): a wrong element type breaks every consumer written from the lesson.

## Example
```toml
[[claim]]
id = "imu-accelerometer-vec3"
fragment = "均为 `(N,)` 的 vec3"
kind = "type"
upstream = "newton"
path = "newton/_src/sensors/sensor_imu.py"
symbol = "SensorIMU.accelerometer"
expected = "vec3"
```

## Options
| option | meaning |
|---|---|
| `param` | the parameter name, for callables (without it `symbol` must name a field/attribute/variable) |
| `match` | `mentions` (default): each expected name occurs in the declared type; `exact`: the declared type equals `expected` |

## Evidence
The declaration's lines (a callable's declaration head for a parameter).

## Verdicts
`verified` / `diverged` (actual = the declared type text); `unavailable`; `error` when the
declaration or parameter does not exist at the pin (with "did you mean"), when it declares
no type (nothing static to compare: a `runtime` claim can check the value), or for a bad
`expected` or option. An unknown option is an `error` (known: param, match).
"""

from __future__ import annotations

import re

from verifier.claims.compare import close_names
from verifier.claims.kinds._lookup import (check_options, file_facts, lookup_through_typedefs,
                                           need, option, sym_desc, unresolved)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.claims.kinds.signature import callables
from verifier.results import Verdict

# Warp's short type names and their explicit float32 spellings
_SAME = {"vec2f": "vec2", "vec3f": "vec3", "vec4f": "vec4", "mat22f": "mat22",
         "mat33f": "mat33", "mat44f": "mat44", "quatf": "quat", "transformf": "transform",
         "spatial_vectorf": "spatial_vector", "spatial_matrixf": "spatial_matrix"}
_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*(?:\.|::)\s*[A-Za-z_][A-Za-z0-9_]*)*")


def type_names(text: str) -> list[str]:
    """The identifiers a type mentions, module qualifiers dropped, Warp's spellings
    folded (`wp.array[wp.vec3f] | None` -> array, vec3, None)."""
    out = []
    for m in _ID.finditer(text):
        last = re.split(r"\s*(?:\.|::)\s*", m.group(0))[-1]
        out.append(_SAME.get(last, last))
    return out


def _expected(claim) -> list[str]:
    exp = claim.expected
    items = exp if isinstance(exp, list) else [exp]
    if not items or not all(isinstance(x, str) and type_names(x) for x in items):
        raise ClaimError("type: `expected` must be a type name or a list of type names")
    return [str(x) for x in items]


def type_matches(expected: list[str], declared: str, mode: str) -> bool:
    have = type_names(declared)
    if mode == "exact":
        return [n for e in expected for n in type_names(e)] == have
    return all(all(n in have for n in type_names(e)) for e in expected)


class TypeKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "type"
    code = "VC113"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"param", "match"})
        need(claim, "path", "symbol")
        mode = option(claim, "match", "mentions", ("mentions", "exact"))
        exp = _expected(claim)
        param = claim.options.get("param")
        if param is not None and not isinstance(param, str):
            raise ClaimError("options.param must be a parameter name")
        facts, sf = file_facts(claim, ctx)
        if param:
            cands = callables(facts, claim.symbol)
            if not cands:
                raise unresolved(facts, claim.symbol, "function/method/constructor")
            seen = [(s, p) for s in cands for p in s.params or () if p.name == param]
            if not seen:
                names = [p.name for c in cands for p in c.params or ()]
                close = close_names(param, names)
                raise ClaimError(f"{sym_desc(cands[0])} has no parameter `{param}` "
                                 f"(options.param) at the pin"
                                 + (f"; did you mean {', '.join(f'`{c}`' for c in close)}?"
                                    if close else ""))
            typed = [(s, p) for s, p in seen if p.type]
            if not typed:
                raise ClaimError(f"{sym_desc(seen[0][0])}: parameter `{param}` declares no "
                                 "type at the pin (a runtime claim can check the value)")
            for s, p in typed:
                if type_matches(exp, p.type, mode):
                    return Outcome(Verdict.VERIFIED, actual=p.type,
                                   evidence=ctx.evidence(sf, *s.head),
                                   message=f"{sym_desc(s)}: {param}: {p.type}")
            s, p = typed[0]
            return Outcome(Verdict.DIVERGED, actual=p.type, evidence=ctx.evidence(sf, *s.head),
                           message=f"{sym_desc(s)}: {param}: {p.type}")
        kinds = {"field", "attribute", "variable"}
        cands = [s for s in lookup_through_typedefs(facts, claim.symbol) if s.kind in kinds]
        if not cands:
            err = unresolved(facts, claim.symbol, "field/attribute", kinds)
            raise ClaimError(f"{err} (for a parameter, set options.param)")
        typed = [s for s in cands if s.params and s.params[0].type]
        if not typed:
            raise ClaimError(f"{sym_desc(cands[0])} declares no type at the pin (a runtime "
                             "claim can check the value)")
        s = typed[0]
        declared = s.params[0].type
        ok = type_matches(exp, declared, mode)
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=declared,
                       evidence=ctx.evidence(sf, s.start, s.end),
                       message=f"{sym_desc(s)}: {declared}")
