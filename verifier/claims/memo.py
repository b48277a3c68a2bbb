"""Memoised claim outcomes: a static claim is re-checked only when something it
depends on changed.

An outcome is stored in the fact cache (`facts/claim/`) keyed by the blob of the
claim's file, the code version of everything that computes it, and the claim's
canonical query. It carries *dependencies* (`Memo`): the files it was computed
from, as (upstream, path, blob, status, provider) at the time. A hit is used only
if every dependency still resolves to exactly that, so a memoised outcome is
never served after one of its files changed identity or availability.
"""

from __future__ import annotations

import contextlib
import importlib.util
from dataclasses import dataclass, field
from typing import Any

from verifier.claims.kinds.base import ClaimError, Outcome
from verifier.codeversion import code_version
from verifier.facts.cache import fact_cache

Dep = tuple[str, str, "str | None", str, "str | None"]   # upstream, path, blob, status, provider


def dep_of(sf) -> Dep:
    return (sf.upstream, sf.path, sf.blob, sf.status.value, sf.provider)


@dataclass
class Memo:
    """A value plus the files (as resolved then) it was computed from."""

    value: Any
    deps: list[Dep] = field(default_factory=list)   # every file resolved while computing
    used: list[Dep] = field(default_factory=list)   # the files the computation read


@contextlib.contextmanager
def track_resolves(layer) -> Any:
    """Record every `SourceFile` the source layer resolves inside the block
    (reads go through `resolve` too), in order, without duplicates."""
    seen: dict[tuple[str, str], Any] = {}
    orig = layer.resolve

    def tracking(upstream: str, path: str):
        sf = orig(upstream, path)
        seen.setdefault((upstream, path), sf)
        return sf

    layer.resolve = tracking
    try:
        yield seen
    finally:
        with contextlib.suppress(AttributeError):
            del layer.resolve


def deps_current(layer, deps: list[Dep]) -> list | None:
    """The resolved files of `deps` if each still resolves exactly as recorded."""
    out = []
    for upstream, path, blob, status, provider in deps:
        sf = layer.resolve(upstream, path)
        if dep_of(sf) != (upstream, path, blob, status, provider):
            return None
        out.append(sf)
    return out


KINDS_PKG = "verifier.claims.kinds."


def _claim_env() -> dict[str, Any]:
    """Environment the outcome may depend on: whether libclang can be used."""
    return {"libclang": importlib.util.find_spec("clang") is not None}


def check_claim(kind, claim, ctx):
    """`kind.check(claim, ctx)`, memoised by (blob of `claim.path`, code version,
    canonical claim query). A hit re-validates every file the original check
    resolved (same blob, status and provider) and fills `ctx.used` with them, so
    the identity rule sees the same evidence; it reads no source. `ClaimError`
    outcomes are memoised too (re-raised); `SourceUnavailable` never is."""
    project = ctx.project
    layer = project.sources
    fc = fact_cache(project.store)
    if not fc.enabled or not claim.path or not type(kind).__module__.startswith(KINDS_PKG):
        return kind.check(claim, ctx)   # kinds outside the package: their code is not digested
    sf = layer.resolve(ctx.upstream.name, claim.path)
    if not sf.status.usable or not sf.blob:
        return kind.check(claim, ctx)          # raises SourceUnavailable
    version = code_version(type(kind).__module__, __name__)   # the kind's import closure
    query = {"kind": claim.kind, "path": claim.path, "symbol": claim.symbol,
             "expected": claim.expected, "options": claim.options,
             "upstream": [ctx.upstream.name, ctx.upstream.repo, ctx.upstream.commit],
             "env": _claim_env()}
    hit = fc.get("claim", version, sf.blob, query)
    if isinstance(hit, Memo):
        ok = deps_current(layer, hit.deps)
        used = deps_current(layer, hit.used) if ok is not None else None
        if used is not None:
            ctx.used.extend(used)
            kind_, payload = hit.value
            if kind_ == "error":
                raise ClaimError(payload)
            return payload
        fc.stats.stale += 1
    before = len(ctx.used)
    with track_resolves(layer) as seen:
        try:
            out = kind.check(claim, ctx)
        except ClaimError as exc:
            fc.put("claim", version, sf.blob,
                   Memo(("error", str(exc)), [dep_of(s) for s in seen.values()],
                        [dep_of(s) for s in ctx.used[before:]]), query)
            raise
    if isinstance(out, Outcome):
        fc.put("claim", version, sf.blob,
               Memo(("outcome", out), [dep_of(s) for s in seen.values()],
                    [dep_of(s) for s in ctx.used[before:]]), query)
    return out
