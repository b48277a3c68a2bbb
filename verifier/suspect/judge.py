"""Check a lesson's drafted assertions in memory: the diverged ones are suspects.

Each decisive static proposal becomes a `Claim` (never written anywhere) and is checked
by its kind through the claim memo (`verifier/claims/memo.py`), exactly as `check`
checks a claim file's claims. Only `diverged` with evidence read at pinned identity
(`pinned`, or `release` from the pinned wheel) is a suspect; `verified`, `error` (the
draft's locator or reading was off), `unavailable` and runtime skeletons say nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.results import Finding, Verdict

if TYPE_CHECKING:
    from verifier.draft.model import LessonDraft, Proposal  # noqa: F401
    from verifier.project import LessonDoc, Project


def judge(project: "Project", lesson: "LessonDoc", draft: "LessonDraft"
          ) -> tuple[list[Finding], list]:
    """(suspect findings, [(upstream, path, blob, status, provider)] of every file read)."""
    from verifier.claims import kinds as _kinds  # noqa: F401  (registers every kind)
    from verifier.claims.kinds.base import (REGISTRY, CheckContext, ClaimError,
                                            SourceUnavailable)
    from verifier.claims.memo import check_claim, dep_of
    from verifier.claims.model import Claim
    from verifier.suspect.finding import suspect_finding

    out: list[Finding] = []
    deps: dict[tuple[str, str], tuple] = {}
    for p in draft.proposals:
        if p.person or not p.decisive or p.kind not in REGISTRY or p.path is None:
            continue
        try:
            claim = Claim(id=p.id or "suspect", fragment=p.fragment or "???", kind=p.kind,
                          upstream=p.upstream, path=p.path, symbol=p.symbol,
                          expected=p.expected, options=dict(p.options))
        except ValueError:
            continue
        ctx = CheckContext(project=project, upstream=project.pins.get(p.upstream))
        try:
            outcome = check_claim(REGISTRY.get(p.kind)(), claim, ctx)
        except (ClaimError, SourceUnavailable):
            outcome = None
        for sf in ctx.used:
            deps.setdefault((sf.upstream, sf.path), dep_of(sf))
        if outcome is None or outcome.verdict is not Verdict.DIVERGED:
            continue
        ev = outcome.evidence
        if ev is None or ev.status not in ("pinned", "release") or not ev.blob:
            continue
        if any(not sf.status.usable for sf in ctx.used):
            continue
        out.append(suspect_finding(lesson, p, outcome, source_says(p, outcome)))
    return out, [list(d) for d in deps.values()]


def source_says(p: "Proposal", outcome) -> str:
    """What the pinned source says, in words, for the suspect's message."""
    a = outcome.actual
    name = p.options.get("param") or (p.symbol or "").split(".")[-1]
    if p.kind == "default":
        return f"`{name}` has no default" if a is None else f"`{name}` defaults to {a}"
    if p.kind == "enum":
        return f"`{p.symbol}` is {a}"
    if p.kind == "signature":
        return f"the parameters of `{p.symbol}` are {a}"
    if p.kind == "members":
        return f"`{p.symbol}` has {outcome.message.split(': ', 1)[-1]} ({a})"
    if p.kind == "symbol":
        return f"`{p.symbol}` exists" if p.expected is False else f"`{p.symbol}` does not exist"
    if p.kind == "type":
        return f"`{name}` is declared `{a}`"
    if p.kind == "call_order":
        return f"`{p.symbol}` calls {a}"
    return f"{a!r} ({outcome.message})"
