"""Shared by the static kinds: read the claim's file at pinned identity, extract
its facts, and find the claimed symbol."""

from __future__ import annotations

import difflib
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from verifier.claims.kinds.base import CheckContext, ClaimError, same
from verifier.facts.extract import UnsupportedLanguage, cached, facts_for
from verifier.facts.model import FileFacts, Sym
from verifier.facts.names import module_name, split_symbol
from verifier.facts.symbols import python_module

if TYPE_CHECKING:
    from verifier.claims.model import Claim
    from verifier.sources.models import SourceFile

_TRANSPARENT = {"namespace", "enum"}


def need(claim: "Claim", *fields: str) -> None:
    for f in fields:
        if getattr(claim, f) in (None, "", [], {}):
            raise ClaimError(f"kind {claim.kind!r} needs `{f}` "
                             f"({_FIELD_HELP.get(f, 'see docs/claims/' + claim.kind + '.md')})")


_FIELD_HELP = {
    "path": "the upstream repository path of the file to read, e.g. include/mujoco/mjmodel.h",
    "symbol": "the qualified name, e.g. mj_step, Accelerometer.AddToDiagram, "
              "newton.sensors.SensorIMU",
    "expected": "the value the lesson states",
}


def file_facts(claim: "Claim", ctx: CheckContext) -> tuple[FileFacts, "SourceFile"]:
    need(claim, "path")
    assert claim.path is not None
    text, sf = ctx.source(claim.path)
    try:  # persistent by blob (verifier/facts/extract.py): a file is parsed once
        facts = cached(ctx.project.store, claim.path, sf.blob,
                       lambda: facts_for(claim.path, text, sf.blob))
    except UnsupportedLanguage as exc:
        raise ClaimError(str(exc)) from None
    if facts.lang == "python":
        # the module the file is in the pinned wheel's layout (`python/mujoco/x.py` is
        # `mujoco.x`), as lint's index names it
        mod = python_module(ctx.project, ctx.upstream.name, claim.path)
        if mod and mod != facts.module:
            facts = replace(facts, module=mod)
    return facts, sf


def symbol_parts(facts: FileFacts, symbol: str) -> list[str]:
    parts = list(split_symbol(symbol))
    if facts.lang == "python":
        mods = [m.split(".") for m in dict.fromkeys(
            [facts.module or module_name(facts.path), module_name(facts.path)])]
        for mod in mods:
            if parts[:len(mod)] == mod:
                return parts[len(mod):]
        mod = mods[0]
        if (len(parts) > 1 and parts[0] in {m[0] for m in mods} and not facts.path.endswith(".pyi")
                and not any(s.qual == (parts[0],) for s in facts.syms)):
            raise ClaimError(f"symbol {symbol!r} is qualified with a module, but {facts.path} "
                             f"is module {'.'.join(mod)!r}: write the name relative to that "
                             f"module, or point `path` at the module the symbol names")
    return parts


def lookup(facts: FileFacts, symbol: str, kinds: set[str] | None = None) -> list[Sym]:
    parts = symbol_parts(facts, symbol)
    if not parts:
        return []
    transparent = set() if facts.lang == "python" else _TRANSPARENT
    return facts.find(parts, kinds=kinds, transparent=transparent)


def resolve_alias(facts: FileFacts, sym: Sym, kinds: set[str]) -> Sym:
    """A typedef (`mjtState` -> `mjtState_`, `mjData` -> `mjData_`) to its target."""
    seen = 0
    while sym.kind == "typedef" and sym.value and seen < 5:
        seen += 1
        target = [s for s in lookup(facts, sym.value.split()[-1]) if s.kind in kinds | {"typedef"}]
        if not target:
            break
        sym = target[0]
    return sym


def missing(facts: FileFacts, symbol: str, what: str = "symbol") -> str:
    parts = symbol_parts(facts, symbol)
    names = sorted({s.name for s in facts.syms})
    close = difflib.get_close_matches(parts[-1] if parts else symbol, names, n=3, cutoff=0.75)
    hint = f" (close: {', '.join(close)})" if close else ""
    return f"no {what} {symbol!r} in {facts.path}{hint}"


def owner_range(facts: FileFacts, symbol: str) -> tuple[int, int] | None:
    """Lines of the enclosing class/struct/module scope of `symbol`, if found."""
    parts = symbol_parts(facts, symbol)
    if len(parts) < 2:
        return None
    owners = lookup(facts, ".".join(parts[:-1])) if facts.lang != "python" else \
        facts.find(tuple(parts[:-1]), transparent=set())
    owners = [o for o in owners if o.kind in ("class", "struct", "union", "enum", "namespace")]
    return (owners[0].start, owners[0].end) if owners else None


def sym_desc(s: Sym) -> str:
    origin = f" ({s.origin})" if s.origin and s.origin != "tag" else ""
    return f"{s.kind} {'.'.join(s.qual)}{origin}"


def as_bool(claim: "Claim") -> bool:
    if not isinstance(claim.expected, bool):
        raise ClaimError(f"kind {claim.kind!r}: `expected` must be true or false, got "
                         f"{claim.expected!r}")
    return claim.expected


def option(claim: "Claim", name: str, default: Any = None, allowed: tuple | None = None) -> Any:
    v = claim.options.get(name, default)
    if allowed is not None and v not in allowed:
        raise ClaimError(f"options.{name} must be one of {', '.join(map(repr, allowed))}, "
                         f"got {v!r}")
    return v


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, str):
        t = v.strip().rstrip("uUlL")
        try:
            return int(t, 0)
        except ValueError:
            try:
                f = float(t.rstrip("fF"))
            except ValueError:
                return None
            return int(f) if f.is_integer() else None
    return None


def same_value(expected: Any, actual: Any) -> bool:
    """`same` (0.0 == 0. == 0, whitespace-normalised text) plus integer spellings
    (0xFFFFFFFF == 4294967295) and booleans (true == "True" == "true")."""
    if same(expected, actual):
        return True
    for x, y in ((expected, actual), (actual, expected)):
        if isinstance(x, bool) and isinstance(y, str):
            return y.strip() in (("True", "true") if x else ("False", "false"))
    a, b = _as_int(expected), _as_int(actual)
    return a is not None and a == b


def check_options(claim: "Claim", allowed: set[str]) -> None:
    """An unknown option is a bad claim (a typo must not silently change the check)."""
    unknown = sorted(set(claim.options) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise ClaimError(f"unknown option(s) {', '.join(unknown)} for kind {claim.kind!r} "
                         f"(known: {known})")
