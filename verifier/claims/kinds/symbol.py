"""A name exists, or does not, in a file at the pin.

## What it checks
Whether a name exists (`expected = true`) or does not exist (`expected = false`) in one
file at the pinned commit:

- **C** (MuJoCo headers and sources; export macros such as `MJAPI` are blanked before
  parsing): functions (prototypes and definitions), structs/unions and their fields
  (`mjData_.qpos`), enums and enumerators (enum scopes are transparent: `mjSTATE_PHYSICS`),
  macros, typedefs, global variables.
- **C++** (Drake): namespaces (may be left out), classes, methods
  (`Accelerometer::AddToDiagram` or `Accelerometer.AddToDiagram`), constructors, fields,
  enums, aliases, and the ports a system declares (`DeclareVectorInputPort("u", ...)`, kind
  `port`, only with `kinds`). A method needs its class: `AddToDiagram` alone does not
  match a member.
- **pybind11 bindings** (`bindings/pydrake/...`): the Python names the file binds —
  classes from `py::class_<X>(m, "Name")` / `DefineTemplateClassWithDefault<...>(m, "Name", ...)`,
  `.def("name")`, `.def_static`, `.def_readwrite`, `.def_property*`, `__init__` from
  `py::init<...>()`, enum values from `.value("A")`, module functions from `m.def("name")`.
  This is how "pydrake's `Accelerometer` has no `AddToDiagram`" is checked.
- **Python** (`ast`): module-level functions, classes, variables and imported names (a
  re-export `from ._src import X` makes `pkg.X` exist), class methods, fields, class
  attributes and `self.x = ...` attributes (of any method). The module prefix derived from
  the path may be written: `newton.sensors.SensorIMU` in `newton/sensors.py`.

Typedef names are followed: `mjData.qpos` finds the field of `struct mjData_`.

A claim that a name exists names a locator: when it resolves to nothing at the pin, the
claim is an `error` with "did you mean" suggestions (a typo in a claim is the claim's
error, never the lesson's). A claim that a name does **not** exist is `verified` when it
is absent, unless a near-miss name exists in the same scope (`sx_advance3` absent while
`sx_advance1` exists) and the lesson sentence does not name it: then it is an `error` too,
since the claim may be mistyped.

## Why it matters
Lessons name the API to call. A name that is gone, or one the lesson says is missing but
exists, misleads readers.

## Example
```toml
[[claim]]
id = "pydrake-accelerometer-no-addtodiagram"
fragment = "`AddToDiagram`"                # verbatim fragment of the lesson sentence
kind = "symbol"
upstream = "drake"
path = "bindings/pydrake/systems/sensors_py_accelerometer.cc"
symbol = "Accelerometer.AddToDiagram"
expected = false
```

## Options
| option | meaning |
|---|---|
| `kinds` | list of symbol kinds that count (`["function"]`, `["method", "constructor"]`, ...); default: any definition; a name declared by a string literal (a port, `DeclareVectorInputPort("u", ...)`: kind `port`; an attribute registered by string, `CustomAttribute(name="x")`: kind `registered`) counts only when listed |

## Evidence
The definition's lines. For an absent member: the enclosing class or struct (for pybind11,
the whole `.def` chain); for an absent top-level name: the file (no line range).

## Verdicts
`verified` / `diverged` (actual `true`/`false`: the name exists although the lesson says it
does not); `unavailable` when the file is not at pinned identity; `error` when an expected
name does not exist at the pin (with "did you mean"), for a near-miss negative claim (see
above), when `path`, `symbol` or a boolean `expected` is missing, or the file's language is
not supported. An unknown option is an `error` (known: kinds).
"""

from __future__ import annotations

from verifier.claims.kinds._lookup import (as_bool, check_options, file_facts,
                                           lookup_through_typedefs, near_misses, need,
                                           option, owner_range, sym_desc, unresolved)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.facts.model import LITERAL_KINDS
from verifier.results import Verdict


class SymbolKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "symbol"
    code = "VC101"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"kinds"})
        need(claim, "path", "symbol")
        expected = as_bool(claim)
        kinds = option(claim, "kinds")
        if kinds is not None and not (isinstance(kinds, list) and all(isinstance(k, str) for k in kinds)):
            raise ClaimError("options.kinds must be a list of symbol kinds, e.g. [\"function\"]")
        facts, sf = file_facts(claim, ctx)
        found = lookup_through_typedefs(facts, claim.symbol, set(kinds) if kinds else None)
        if found:
            s = found[0]
            msg = f"found {sym_desc(s)} at line {s.start}"
            if len(found) > 1:
                msg += f" (+{len(found) - 1} more)"
            verdict = Verdict.VERIFIED if expected else Verdict.DIVERGED
            return Outcome(verdict, actual=True, evidence=ctx.evidence(sf, s.start, s.end),
                           message=msg)
        if expected:
            # the claim's locator names nothing at the pin: the claim's error
            literal = [] if kinds else lookup_through_typedefs(facts, claim.symbol,
                                                               set(LITERAL_KINDS))
            if literal:
                raise ClaimError(f"`{claim.symbol}` in {facts.path} is declared by a string "
                                 f"literal ({sym_desc(literal[0])}, line {literal[0].start}), "
                                 f"not defined: set options.kinds = [\"{literal[0].kind}\"] "
                                 "to count it")
            raise unresolved(facts, claim.symbol, "symbol", set(kinds) if kinds else None)
        rng = owner_range(facts, claim.symbol)
        close = near_misses(facts, claim.symbol)
        return Outcome(Verdict.VERIFIED, actual=False, evidence=ctx.evidence(sf, *(rng or (None, None))),
                       message=f"no symbol `{claim.symbol}` in {facts.path} at the pin",
                       near_miss=((claim.symbol, tuple(close)),) if close else ())
