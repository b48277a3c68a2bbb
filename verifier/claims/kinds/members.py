r"""The ordered members of a struct, enum, class or module.

## What it checks
The ordered members of a container:

| container | members |
|---|---|
| C/C++ struct or union (`mjData`, typedefs are followed to `mjData_`) | fields |
| enum (`mjtState`), Python `Enum`/`IntEnum`/`Flag` class | enumerators (members, in order) |
| Python dataclass, pydantic model, attrs class, `NamedTuple`, `TypedDict`, class with annotated fields | fields, in order (as `dataclasses.fields()` lists them: no `ClassVar`, no `InitVar`; pydantic private names and `model_config` are no fields) |
| other Python class | `__init__` (written or generated), public methods and attributes: class attributes, properties, `__slots__` and instance attributes assigned in any method (`self.x = ...` in `build()` too) |
| Python module (`symbol` = the module, e.g. `newton.sensors`) | `__all__` (literal list, `+=`, `.extend`), else public top-level names |
| pybind11 class in a bindings file | the names bound on it (`__init__`, `.def(...)`) |

Typedef names are followed to the struct or enum they name. Names in `expected` may be written in the lesson's notation when the claim file or the
course declares it (`[notation]`, see docs/claims/README.md); the verdict names the
entries it needed.

## Why it matters
"Exactly four sensor classes", "these fields in this order": lists drift as upstream grows.

## Example
```toml
[[claim]]
id = "sensors-exports"
fragment = "`newton.sensors`"
kind = "members"
upstream = "newton"
path = "newton/sensors.py"
symbol = "newton.sensors"
expected = ["SensorContact", "SensorFrameTransform", "SensorIMU", "SensorTiledCamera"]
```

## Options
| option | meaning |
|---|---|
| `match` | `exact` (default): same names, same order; `prefix`; `subset`: every expected name present, any order; `set`: the same names, any order; `subsequence`: every expected name present, in this relative order (others may interleave); `count`: `expected` is the number of members |
| `of` | `fields` (fields and attributes: properties, slots, class and instance attributes) \| `methods` (methods and constructors; a property is an attribute, not a method) \| `enumerators` \| `all`: override the default selection above |

## Evidence
The container's lines (`__all__`'s lines for a module).

## Verdicts
`verified` / `diverged` (actual = the member list, or the count; the message names missing
and unexpected members, or "same names, different order"); `unavailable`; `error` when the
container does not exist at the pin (with "did you mean"), or for a malformed `expected`. An unknown option is an `error` (known: match, of).
"""

from __future__ import annotations

from verifier.claims.compare import same_list, same_name
from verifier.claims.kinds._lookup import (check_options, file_facts, lookup, need, option,
                                           resolve_alias, sym_desc, symbol_parts, unresolved)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.facts.model import FileFacts, Sym
from verifier.results import Verdict

_CONTAINERS = {"struct", "union", "class", "enum", "typedef", "namespace"}


def members_of(facts: FileFacts, s: Sym, of: str | None) -> list[str]:
    kids = facts.children(s)
    if of == "all":
        return _uniq(k.name for k in kids)
    if of == "fields":
        return _uniq(k.name for k in kids if k.kind in ("field", "attribute"))
    if of == "methods":
        return _uniq(k.name for k in kids if k.kind in ("method", "constructor", "function"))
    if of == "enumerators" or s.kind == "enum" or s.flavour == "enum":
        return _uniq(k.name for k in kids if k.kind == "enumerator")
    if s.kind in ("struct", "union"):
        return _uniq(k.name for k in kids if k.kind == "field")
    if facts.lang == "python" or s.origin:
        # a generated-constructor class's fields as `dataclasses.fields()` lists them
        # (no `InitVar`, no `ClassVar`), a plain class's annotated names
        fields = [k.name for k in kids if k.kind == "field" and "initvar" not in k.traits]
        if fields and not s.origin:
            return _uniq(fields)
        return _uniq(k.name for k in kids if not k.name.startswith("_") or k.name == "__init__")
    return _uniq(k.name for k in kids if k.kind == "field")


def _uniq(names) -> list[str]:
    return list(dict.fromkeys(names))


class MembersKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "members"
    code = "VC105"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"match", "of"})
        need(claim, "path", "symbol")
        mode = option(claim, "match", "exact", ("exact", "prefix", "subset", "set", "count",
                                                "subsequence"))
        of = option(claim, "of", None, (None, "fields", "methods", "enumerators", "all"))
        exp = claim.expected
        if mode == "count":
            if not isinstance(exp, int) or isinstance(exp, bool):
                raise ClaimError("members with options.match = \"count\": `expected` must be an integer")
        elif not (isinstance(exp, list) and all(isinstance(x, str) for x in exp)):
            raise ClaimError("members: `expected` must be a list of names")
        facts, sf = file_facts(claim, ctx)
        if facts.lang == "python" and not symbol_parts(facts, claim.symbol):
            # the module itself
            if facts.exports is not None and of is None:
                actual = list(facts.exports)
                rng = facts.exports_lines
                desc = f"__all__ of {facts.path}"
            else:
                actual = _uniq(s.name for s in facts.syms if len(s.qual) == 1
                               and not s.name.startswith("_") and s.kind != "import")
                rng = None
                desc = f"public top-level names of {facts.path}"
        else:
            found = [s for s in lookup(facts, claim.symbol) if s.kind in _CONTAINERS]
            if not found:
                raise unresolved(facts, claim.symbol, "struct/enum/class", _CONTAINERS)
            s = resolve_alias(facts, found[0], {"struct", "union", "class", "enum"})
            actual = members_of(facts, s, of)
            rng = (s.start, s.end)
            desc = sym_desc(s)
        if mode == "count":
            ok = len(actual) == exp
        else:
            ok = bool(same_list(exp, actual, facts.lang, ctx.notation, mode=mode, names=True))
        shown = len(actual) if mode == "count" else actual
        extra = ""
        if mode in ("exact", "subset", "set", "subsequence") and not ok:
            miss = [x for x in exp if not any(same_name(x, y, ctx.notation.probe())
                                              for y in actual)]
            more = [y for y in actual if not any(same_name(x, y, ctx.notation.probe())
                                                 for x in exp)]
            extra = (f"; missing {miss}" if miss else "") + (
                f"; not expected {more}" if more and mode not in ("subset", "subsequence")
                else "")
            if not miss and not more:
                extra = "; same names, different order"
            elif not miss and mode == "subsequence":
                extra = "; every expected name is there, in another order"
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=shown,
                       evidence=ctx.evidence(sf, *(rng or (None, None))),
                       message=f"{desc}: {len(actual)} members{extra}")
