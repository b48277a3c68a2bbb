"""Shared by the static kinds: read the claim's file at pinned identity, extract
its facts, and find the claimed symbol."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from verifier.claims.compare import close_names
from verifier.claims.compare import same_value as _same_value
from verifier.claims.kinds.base import CheckContext, ClaimError
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


def lookup_through_typedefs(facts: FileFacts, symbol: str,
                            kinds: set[str] | None = None) -> list[Sym]:
    """`lookup`, and when that finds nothing, the same name under the struct/enum
    a typedef'd owner names (`mjData.qpos` -> `mjData_.qpos`)."""
    found = lookup(facts, symbol, kinds)
    if found or facts.lang == "python":
        return found
    parts = symbol_parts(facts, symbol)
    if len(parts) < 2:
        return found
    out: list[Sym] = []
    for cut in range(len(parts) - 1, 0, -1):      # the longest typedef'd owner prefix
        for owner in lookup(facts, "::".join(parts[:cut])):
            if owner.kind != "typedef":
                continue
            target = resolve_alias(facts, owner, {"struct", "union", "class", "enum"})
            if target is owner:
                continue
            out.extend(facts.find(target.qual + tuple(parts[cut:]), kinds=kinds,
                                  transparent=set()))
        if out:
            break
    return out


def _owner(facts: FileFacts, parts: list[str]) -> Sym | None:
    if len(parts) < 2:
        return None
    owners = [o for o in lookup(facts, "::".join(parts[:-1]))
              if o.kind in ("class", "struct", "union", "enum", "namespace", "typedef")]
    if not owners:
        return None
    o = owners[0]
    return resolve_alias(facts, o, {"struct", "union", "class", "enum"}) if o.kind == "typedef" else o


def suggestions(facts: FileFacts, symbol: str, kinds: set[str] | None = None) -> list[str]:
    """Names the claim may have meant: the same name under another scope, then
    near-miss spellings in the claimed scope (or the whole file)."""
    parts = symbol_parts(facts, symbol) if symbol else []
    if not parts:
        return []
    last = parts[-1]
    pool = [s for s in facts.syms if kinds is None or s.kind in kinds]
    same_name = ['.'.join(s.qual) for s in pool if s.name == last]
    owner = _owner(facts, parts)
    scope = facts.children(owner) if owner is not None else pool
    lead = ".".join(parts[:-1])
    close = [f"{lead}.{n}" if lead and owner is not None else n
             for n in close_names(last, {s.name for s in scope if kinds is None or s.kind in kinds})]
    if owner is None and len(parts) > 1:
        close += [o for o in close_names(parts[-2], {s.name for s in facts.syms
                                                     if s.kind in _SCOPES})]
    return list(dict.fromkeys(same_name + close))[:4]


_SCOPES = {"class", "struct", "union", "enum", "namespace", "typedef"}


def missing(facts: FileFacts, symbol: str, what: str = "symbol",
            kinds: set[str] | None = None) -> str:
    """Why a locator resolves to nothing, with "did you mean" suggestions."""
    close = suggestions(facts, symbol, kinds)
    hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
    return f"no {what} `{symbol}` in {facts.path} at the pin{hint}"


def unresolved(facts: FileFacts, symbol: str, what: str = "symbol",
               kinds: set[str] | None = None) -> ClaimError:
    """The claim's locator names nothing at the pin: the claim's error, not the lesson's."""
    return ClaimError(missing(facts, symbol, what, kinds))


def near_misses(facts: FileFacts, symbol: str) -> list[str]:
    """For a name claimed absent: existing names one typo away (same scope)."""
    parts = symbol_parts(facts, symbol)
    if not parts:
        return []
    owner = _owner(facts, parts)
    scope = facts.children(owner) if owner is not None else \
        [s for s in facts.syms if len(s.qual) == 1 or facts.lang != "python"]
    return close_names(parts[-1], {s.name for s in scope}, cutoff=0.8)


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


def same_value(expected: Any, actual: Any, ctx: CheckContext | None = None,
               lang: str | None = None) -> bool:
    """`verifier.claims.compare.same_value` with the claim's notation (`ctx.notation`):
    numbers by value (`0.0` == `0.` == `0`, `0xFFFFFFFF` == `4294967295`), booleans
    across languages, containers, names through the notation table."""
    return bool(_same_value(expected, actual, lang, ctx.notation if ctx is not None else None))


def check_options(claim: "Claim", allowed: set[str]) -> None:
    """An unknown option is a bad claim (a typo must not silently change the check)."""
    unknown = sorted(set(claim.options) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise ClaimError(f"unknown option(s) {', '.join(unknown)} for kind {claim.kind!r} "
                         f"(known: {known})")
