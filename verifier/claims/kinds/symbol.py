"""symbol (VC101): a name exists, or does not, in a file at the pin.

What it checks
    Whether `symbol` is defined in `path`: a C function/struct/enum constant/
    macro/typedef, a C++ class/method/field (namespaces may be left out), a
    Python module-level name or class member (the module prefix derived from
    the path may be included: `newton.sensors.SensorIMU` in newton/sensors.py),
    or a name a pybind11 bindings file exports to Python (`Accelerometer.pose`).
Why it matters
    Lessons tell readers which API to call; a name that does not exist (or
    that the lesson says is missing but exists) misleads them.
Example
    symbol = "Accelerometer.AddToDiagram", expected = false, path =
    "bindings/pydrake/systems/sensors_py_accelerometer.cc"
Evidence used
    The definition's lines; for an absent name the enclosing class (or the
    whole file).
Options
    `kinds`: list of symbol kinds that count (e.g. ["function"]); default any.
"""

from __future__ import annotations

from verifier.claims.kinds._lookup import (as_bool, check_options, file_facts, lookup, missing,
                                           need, option, owner_range, sym_desc)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
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
        found = lookup(facts, claim.symbol, set(kinds) if kinds else None)
        exists = bool(found)
        verdict = Verdict.VERIFIED if exists == expected else Verdict.DIVERGED
        if found:
            s = found[0]
            ev = ctx.evidence(sf, s.start, s.end)
            msg = f"found {sym_desc(s)} at line {s.start}"
            if len(found) > 1:
                msg += f" (+{len(found) - 1} more)"
        else:
            rng = owner_range(facts, claim.symbol)
            ev = ctx.evidence(sf, *(rng or (None, None)))
            msg = missing(facts, claim.symbol)
        return Outcome(verdict, actual=exists, evidence=ev, message=msg)
