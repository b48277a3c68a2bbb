"""Static claim checking: locate each claim's sentence in its lesson, run its kind
against the pinned source, and enforce the identity rule.

Verdicts (see docs/claims/README.md):
  verified     the fact at the pin matches `expected` (evidence: path, lines, blob, permalink)
  diverged     it does not (expected vs actual, with evidence)
  stale        the claim's fragment is no longer in the lesson (a human re-binds it)
  unavailable  the file is not available at pinned identity (or a runtime-only claim)
  error        the claim itself is bad (message names `<claim file>:<line>`)

Identity rule: a claim is `verified` only from files served at pinned identity
(`pinned`) or from the pinned release's wheel when the pin's blob is unknown
(`release`, marked so in the evidence). Anything else is downgraded to `error`
here, whatever the kind returned.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from verifier.claims import kinds as _kinds  # noqa: F401  (registers every kind)
from verifier.claims.kinds.base import REGISTRY, CheckContext, ClaimError, SourceUnavailable
from verifier.claims.loader import LoadedClaim, load_claims
from verifier.claims import memo
from verifier.claims.memo import check_claim
from verifier.registry import choice_message
from verifier.results import ClaimResult, Crash, Evidence, Verdict

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def locate(fragment: str, text: str) -> int | None:
    """1-based line where `fragment` occurs verbatim (whitespace runs may differ,
    so a fragment may span a wrapped line); None when it is gone."""
    i = text.find(fragment)
    if i < 0:
        words = fragment.split()
        if not words:
            return None
        m = re.search(r"\s+".join(re.escape(w) for w in words), text)
        if m is None:
            return None
        i = m.start()
    return text.count("\n", 0, i) + 1


def occurrences(fragment: str, text: str) -> int:
    words = fragment.split()
    if not words:
        return 0
    return len(re.findall(r"\s+".join(re.escape(w) for w in words), text))


def _result(lc: LoadedClaim, line: int | None, verdict: Verdict, *, actual=None,
            evidence: Evidence | None = None, message: str | None = None) -> ClaimResult:
    c = lc.claim
    return ClaimResult(id=lc.gid, lesson=lc.lesson, line=line, upstream=lc.upstream or "",
                       kind=c.kind, verdict=verdict, expected=c.expected, actual=actual,
                       evidence=evidence, message=message, course=lc.course, fragment=c.fragment,
                       symbol=c.symbol, options=dict(c.options), review=getattr(c, "review", None))


def _error(lc: LoadedClaim, line: int | None, msg: str) -> ClaimResult:
    return _result(lc, line, Verdict.ERROR, message=f"{lc.where}: {msg}")


def _identity_ok(ev: Evidence | None, ctx: CheckContext) -> str | None:
    """Why a `verified` outcome cannot stand, or None when it can."""
    if ev is None:
        return "no evidence"
    if ev.status not in ("pinned", "release"):
        return f"evidence status is {ev.status!r}"
    for sf in ctx.used:
        if not sf.status.usable:
            return f"{sf.path} is {sf.status.value}"
        if sf.status.value == "pinned" and sf.blob != sf.expected_blob:
            return f"{sf.path}: served blob {sf.blob} is not the pin's {sf.expected_blob}"
    if not any(sf.path == ev.path and sf.blob == ev.blob for sf in ctx.used):
        return f"evidence {ev.path}@{ev.blob} was not read through the source layer"
    return None


def check_one(project: "Project", lc: LoadedClaim, lesson: "LessonDoc | None",
              crashes: list[Crash] | None = None) -> ClaimResult:
    c = lc.claim
    if lesson is None:
        return _error(lc, None, f"lesson {lc.lesson!r} not found in course {lc.course!r}")
    line = locate(c.fragment, lesson.text) if c.fragment else None
    if lc.problem:
        return _error(lc, line, lc.problem)
    if line is None:
        return _result(lc, None, Verdict.STALE,
                       message=f"fragment {c.fragment!r} is no longer in {lc.course}/{lc.lesson} "
                               f"({lc.where})")
    kind_cls = REGISTRY.get(c.kind)
    if kind_cls is None:
        return _error(lc, line, choice_message("kind", c.kind, REGISTRY))
    if not lc.upstream:
        return _error(lc, line, "no upstream: set `upstream` on the claim or at the top of the file")
    if lc.upstream not in project.pins.upstream:
        return _error(lc, line, f"unknown upstream {lc.upstream!r} (pins.toml has: "
                                f"{', '.join(sorted(project.pins.upstream))})")
    ctx = CheckContext(project=project, upstream=project.pins.get(lc.upstream))
    try:
        out = check_claim(kind_cls(), c, ctx)   # memoised by blob (verifier/claims/memo.py)
    except SourceUnavailable as exc:
        sf = exc.sf
        ev = Evidence(path=sf.path, blob=sf.expected_blob, status=sf.status.value,
                      permalink=ctx.upstream.permalink(sf.path), provider=sf.provider)
        return _result(lc, line, Verdict.UNAVAILABLE, evidence=ev,
                       message=f"{sf.path} is {sf.status.value} at {ctx.upstream.short}: "
                               f"{sf.reason}".rstrip(": "))
    except ClaimError as exc:
        return _error(lc, line, str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug in a kind must not sink the whole run
        if os.environ.get("VERIFIER_DEBUG"):
            raise
        crash = Crash.of(exc, stage="check", what=f"claim kind {c.kind} ({kind_cls.code})",
                         course=lc.course, lesson=lc.lesson)
        if crashes is not None:
            crashes.append(crash)
        return _error(lc, line, f"internal error in kind {c.kind!r}: {crash.error} (a bug in "
                                "verifier: see the crash log)")
    verdict, message = out.verdict, out.message
    if verdict is Verdict.VERIFIED:
        why = _identity_ok(out.evidence, ctx)
        if why:
            verdict, message = Verdict.ERROR, (f"{lc.where}: refusing `verified` ({why}); "
                                               f"kind said: {message or ''}").rstrip("; ")
    n = occurrences(c.fragment, lesson.text)
    if n > 1:
        message = (f"{message}; " if message else "") + (
            f"fragment occurs {n} times in the lesson, line {line} is the first")
    return _result(lc, line, verdict, actual=out.actual, evidence=out.evidence, message=message)


def run_check(project: "Project", lessons: "list[LessonDoc] | None" = None,
              upstream: str | None = None) -> list[ClaimResult]:
    """Static verdict for every claim (about `lessons`, of `upstream`), in claim-file order."""
    return [r for _, r in check_claims(project, lessons, upstream)]


def unique_ids(loaded: list[LoadedClaim]) -> list[LoadedClaim]:
    """The loaded claims with run-unique global ids: a repeated id (a duplicate in one
    file, or two lessons with the same file name) gets `#2`, `#3`, ... in load order."""
    seen: dict[str, int] = {}
    out = []
    for lc in loaded:
        n = seen.get(lc.gid, 0) + 1
        seen[lc.gid] = n
        out.append(lc if n == 1 else dataclasses.replace(lc, gid=f"{lc.gid}#{n}"))
    return out


def check_claims(project: "Project", lessons: "list[LessonDoc] | None" = None,
                 upstream: str | None = None, *, kinds: "set[str] | None" = None,
                 crashes: list[Crash] | None = None,
                 tick: Callable[[], None] | None = None,
                 ) -> list[tuple[LoadedClaim, ClaimResult]]:
    """Like `run_check`, keeping each result next to its loaded claim (for the runtime
    stage). `kinds` keeps only claims of those kinds; `tick()` after each claim; a kind
    that raises appends to `crashes` (its claim is an `error`)."""
    if upstream is not None:
        project.pins.get(upstream)  # unknown upstream -> clear error
    pool = lessons if lessons is not None else project.lessons()
    by_key = {(ld.course, ld.path): ld for ld in pool}
    loaded = unique_ids(load_claims(project, lessons))
    if upstream is not None:
        loaded = [lc for lc in loaded if lc.upstream == upstream]
    if kinds is not None:
        loaded = [lc for lc in loaded if lc.claim.kind in kinds]
    if lessons is None:
        # claims about lessons outside the pool still need their lesson: look it up
        for lc in loaded:
            if (lc.course, lc.lesson) not in by_key:
                course = project.pins.course.get(lc.course)
                if course is not None:
                    f = project.course_root(course) / lc.lesson
                    if f.is_file():
                        by_key[(lc.course, lc.lesson)] = project.lesson_for(f, lc.course)
    def check_all() -> tuple[list, list[Crash]]:
        got, caught = [], []
        for lc in loaded:
            got.append((lc, check_one(project, lc, by_key.get((lc.course, lc.lesson)), caught)))
            if tick is not None:
                tick()
        return got, caught

    pairs, caught = check_all()
    if memo.distrusted(project):   # a memoised outcome was contradicted: nothing from the memo
        pairs, caught = check_all()
    if crashes is not None:
        crashes.extend(caught)
    project.sources.save_index()
    return pairs


def summary(results: list[ClaimResult]) -> dict:
    """Counts for `verifier check --format json` (a stable interface): verdict counts of
    the reviewed claims; drafts (`review = "draft"`) are counted apart under `drafts` and
    never as reviewed (`total` counts both)."""
    reviewed = [r for r in results if not r.draft]
    counts = {v.value: 0 for v in Verdict}
    for r in reviewed:
        counts[r.verdict.value] += 1
    by_kind: dict[str, dict[str, int]] = {}
    for r in reviewed:
        by_kind.setdefault(r.kind, {}).setdefault(r.verdict.value, 0)
        by_kind[r.kind][r.verdict.value] += 1
    # weaker evidence: verified against the pinned release's wheel, pin blob not known
    release = sum(1 for r in reviewed if r.verdict is Verdict.VERIFIED and r.evidence is not None
                  and r.evidence.status == "release")
    return {"total": len(results), **counts, "verified_from_release": release,
            "by_kind": {k: dict(sorted(v.items())) for k, v in sorted(by_kind.items())},
            "reviewed": len(reviewed), "drafts": draft_counts(results)}


def draft_counts(results: list[ClaimResult]) -> dict[str, int]:
    """Drafts by verdict (`verified` here means "draft, unreviewed": it verifies, but
    no person has accepted it)."""
    drafts = [r for r in results if r.draft]
    out = {"total": len(drafts)}
    out.update({v.value: sum(1 for r in drafts if r.verdict is v) for v in Verdict})
    return out

