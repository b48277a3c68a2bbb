"""Memoised claim outcomes: a static claim is re-checked only when something it
depends on changed.

An outcome is stored in the fact cache (`facts/claim/`, signed plain data) keyed by
the blob of the claim's file, the code version of the kind (its import closure)
and the claim's canonical query. It carries *dependencies*: the files it was
computed from, as (upstream, path, blob, status, provider) at the time. A hit is
used only if every dependency still resolves to exactly that, so a memoised
outcome is never served after one of its files changed identity or availability.

Early cutoff: the pin's commit is not part of the key. After a pin bump, a claim
whose files all kept their blobs is served from the memo; the permalinks of its
evidence are rendered again for the new pin (they are the only part of an outcome
that names the commit), and nothing is extracted. An outcome whose evidence
permalink is not the pin's standard one is not memoised.

A memoised verdict is only a shortcut: anything that decides it can be computed
again. Every run re-derives a sample of its hits (`VERIFIER_MEMO_AUDIT`, a
fraction, default 0.05, at least the first hit; 1 re-derives every hit, 0 none)
and compares. The sample is drawn by source file (the blob of the claim's file,
with a salt new every run): every hit on a drawn file is re-derived, so a file is
parsed once for all its claims (drawn claim by claim, the ~90 audited claims of a
warm course check parsed ~60 files again: 0.2-1.2 s; the expected share of claims
audited is the same); one mismatch means the memo cannot be trusted: the whole `claim`
section is dropped, memo hits are refused for the rest of the run, the claims
are checked again in the same run (`claims/check.py`), and the run's notes say
so. With the signing key (`verifier/facts/cache.py`) a forged entry is refused
outright; the audit is for a writer that also holds the key.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
from typing import Any

from verifier.claims.kinds.base import ClaimError, Outcome
from verifier.claims.notation import Mapping
from verifier.codeversion import code_version
from verifier.facts.audit import AuditState, audit_state
from verifier.facts.cache import fact_cache, round_trip
from verifier.results import Evidence, Verdict
from verifier.sources.recording import wrapped

EXTRACTOR = "claim"

Dep = tuple[str, str, "str | None", str, "str | None"]   # upstream, path, blob, status, provider


def dep_of(sf) -> Dep:
    return (sf.upstream, sf.path, sf.blob, sf.status.value, sf.provider)


@contextlib.contextmanager
def track_resolves(layer) -> Any:
    """Record every `SourceFile` the source layer resolves inside the block
    (reads go through `resolve` too), in order, without duplicates."""
    seen: dict[tuple[str, str], Any] = {}

    def tracking(orig):
        def resolve(upstream: str, path: str, **kw):
            sf = orig(upstream, path, **kw)
            seen.setdefault((upstream, path), sf)
            return sf
        return resolve

    with wrapped(layer, resolve=tracking):      # nests inside a recording (filememo.py)
        yield seen


def deps_current(layer, deps: list[Dep], *, needed: bool = True) -> list | None:
    """The resolved files of `deps` if each still resolves exactly as recorded
    (`needed=False` for files the check only probed, not read)."""
    out = []
    for upstream, path, blob, status, provider in deps:
        sf = layer.resolve(upstream, path, needed=needed)
        if dep_of(sf) != (upstream, path, blob, status, provider):
            return None
        out.append(sf)
    return out


KINDS_PKG = "verifier.claims.kinds."


def digested(kind_cls: type) -> bool:
    """Whether a kind's code is in the memo's code version: kinds defined outside the
    package are not, so their outcomes are never memoised."""
    return kind_cls.__module__.startswith(KINDS_PKG)


@functools.lru_cache(maxsize=1)
def _claim_env() -> dict[str, Any]:
    """Environment the outcome may depend on: whether libclang can be used (looked up
    once per process: a failed `find_spec` scans sys.path, 0.1-0.4 ms per claim)."""
    return {"libclang": importlib.util.find_spec("clang") is not None}


# ------------------------------------------------------------------ plain forms

def _outcome_plain(out: Outcome, upstream) -> dict | None:
    """The outcome as plain data without its permalink, or None when it cannot be
    memoised (a non-plain `actual`, or a permalink that is not the pin's standard one)."""
    ev = out.evidence
    evd = None
    if ev is not None:
        start, end = ev.lines if ev.lines else (None, None)
        if ev.permalink != upstream.permalink(ev.path, start, end):
            return None
        evd = {"path": ev.path, "lines": list(ev.lines) if ev.lines else None, "blob": ev.blob,
               "status": ev.status, "provider": ev.provider}
    return {"verdict": out.verdict.value, "actual": out.actual, "evidence": evd,
            "message": out.message,
            "near_miss": [[name, list(close)] for name, close in out.near_miss]}


def _outcome_of(d: dict, upstream) -> Outcome:
    ev = None
    if d["evidence"] is not None:
        e = d["evidence"]
        lines = tuple(e["lines"]) if e["lines"] else None
        # validated: with pydantic 2.14 this costs less than `model_construct` (1.5 us
        # against 5 us here)
        ev = Evidence(
            path=e["path"], lines=lines, blob=e["blob"], status=e["status"],
            provider=e["provider"],
            permalink=upstream.permalink(e["path"], *(lines or (None, None))))
    return Outcome(verdict=Verdict(d["verdict"]), actual=d["actual"], evidence=ev,
                   message=d["message"],
                   near_miss=tuple((n, tuple(c)) for n, c in d.get("near_miss", [])))


# ------------------------------------------------------------------ audit

def _state(fc) -> AuditState:
    return audit_state(fc, EXTRACTOR)


def distrusted(project) -> bool:
    """Whether this run found a memoised outcome that a fresh check contradicts."""
    return _state(fact_cache(project.store)).distrusted


# ------------------------------------------------------------------ the memo

def check_claim(kind, claim, ctx):
    """`kind.check(claim, ctx)`, memoised (module docstring). A hit re-validates every
    file the original check resolved (same blob, status and provider) and fills
    `ctx.used` with them, so the identity rule sees the same evidence; it reads no
    source. `ClaimError` outcomes are memoised too (re-raised); `SourceUnavailable`
    never is."""
    project = ctx.project
    layer = project.sources
    fc = fact_cache(project.store)
    if fc.notify is None:
        fc.notify = project.notify
    if not fc.enabled or not claim.path or not digested(type(kind)):
        return kind.check(claim, ctx)   # kinds outside the package: their code is not digested
    if _state(fc).bypassed:
        return kind.check(claim, ctx)   # a claim file's audit (filememo.py): derived afresh
    sf = layer.resolve(ctx.upstream.name, claim.path)
    if not sf.status.usable or not sf.blob:
        return kind.check(claim, ctx)          # raises SourceUnavailable
    state = _state(fc)
    version = code_version(type(kind).__module__, __name__)   # the kind's import closure
    query = {"kind": claim.kind, "path": claim.path, "symbol": claim.symbol,
             "expected": claim.expected, "options": claim.options,
             "upstream": [ctx.upstream.name, ctx.upstream.repo], "env": _claim_env(),
             "notation": ctx.notation.notation.key()}
    at = fc.locate(EXTRACTOR, version, sf.blob, query)
    hit = None if state.distrusted else fc.get(EXTRACTOR, version, sf.blob, query, at=at)
    if isinstance(hit, dict):
        deps = [tuple(d) for d in hit.get("deps", [])]
        used_deps = [tuple(d) for d in hit.get("used", [])]
        ok = deps_current(layer, deps, needed=False)
        used = deps_current(layer, used_deps) if ok is not None else None
        if used is not None:
            if state.sampled(sf.blob):          # by file: one parse for all its claims
                fc.stats.audited += 1
                fresh = _fresh(kind, claim, ctx)      # fills ctx.used itself
                if round_trip(fresh) != hit["value"]:
                    _distrust(fc, claim)
                return _replay(fresh, ctx.upstream)
            ctx.used.extend(used)
            _record_notation(ctx, hit["value"].get("notation", []))
            return _replay(hit["value"], ctx.upstream)
        fc.stats.stale += 1
    before = len(ctx.used)
    with track_resolves(layer) as seen:
        try:
            out = kind.check(claim, ctx)
        except ClaimError as exc:
            _put(fc, version, sf.blob, query, {"error": str(exc), "notation": _used(ctx)},
                 seen, ctx.used[before:])
            raise
    if isinstance(out, Outcome):
        plain = _outcome_plain(out, ctx.upstream)
        if plain is not None:
            _put(fc, version, sf.blob, query, {"outcome": plain, "notation": _used(ctx)}, seen,
                 ctx.used[before:])
    return out


def _used(ctx) -> list[list[str]]:
    """The notation entries the check needed, without where they are declared (a hit
    records them again: unused-entry reports must not depend on whether an outcome
    came from the memo). Claim files with the same notation share memo entries, so
    the declaration is looked up in the claim's own notation (`_record_notation`)."""
    return [[m.lesson, m.source, m.kind] for m in ctx.notation.used_list()]


def _record_notation(ctx, used: list[list[str]]) -> None:
    own = {(m.kind, m.lesson, m.source): m for m in ctx.notation.notation.entries}
    ctx.notation.record(own.get((kind, lesson, source)) or Mapping(lesson, source, "?", kind)
                        for lesson, source, kind in used)


def _put(fc, version: str, blob: str, query: dict, value: dict, seen, used) -> None:
    entry = {"value": value, "deps": [list(dep_of(s)) for s in seen.values()],
             "used": [list(dep_of(s)) for s in used]}
    try:
        fc.put(EXTRACTOR, version, blob, entry, query)
    except TypeError:
        pass          # an `actual` that is not plain data: this outcome is simply not memoised


def _fresh(kind, claim, ctx) -> dict:
    """The plain value a check computes now (for the audit; `ctx.used` is filled)."""
    try:
        out = kind.check(claim, ctx)
    except ClaimError as exc:
        return {"error": str(exc), "notation": _used(ctx)}
    plain = _outcome_plain(out, ctx.upstream) if isinstance(out, Outcome) else None
    return {"outcome": plain, "notation": _used(ctx)} if plain is not None else {"raw": out}


def _replay(value: dict, upstream):
    if "error" in value:
        raise ClaimError(value["error"])
    if "raw" in value:
        return value["raw"]
    return _outcome_of(value["outcome"], upstream)


def _distrust(fc, claim) -> None:
    st = _state(fc)
    st.distrusted = True
    n = fc.drop(EXTRACTOR)
    fc.note(f"a memoised outcome of claim {getattr(claim, 'id', '?')!r} did not match a fresh "
            f"check: all {n} memoised claim outcomes were dropped and every claim is checked "
            "again in this run")
