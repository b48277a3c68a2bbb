"""Claims re-run against the new version: the verdicts that change.

Both runs use `run_check` (claims-core contract): once with the project as
pinned, once with the in-memory project whose pins point at the new version."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from verifier.upgrade.model import CODES, ClaimChange, ClaimsRun

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project
    from verifier.results import ClaimResult


def _key(r: "ClaimResult") -> tuple[str, str, str]:
    return (r.course or "", r.lesson, r.id)


def diff_results(old: list["ClaimResult"], new: list["ClaimResult"]) -> list[ClaimChange]:
    """Claims whose verdict differs (a claim only one side has counts as changed)."""
    olds = {_key(r): r for r in old}
    news = {_key(r): r for r in new}
    out: list[ClaimChange] = []
    for key in sorted(set(olds) | set(news)):
        o, n = olds.get(key), news.get(key)
        ov = o.verdict.value if o else "absent"
        nv = n.verdict.value if n else "absent"
        if ov == nv:
            continue
        ref = n or o
        assert ref is not None
        change = ClaimChange(
            id=ref.id, course=ref.course, lesson=ref.lesson, kind=ref.kind,
            old_verdict=ov, new_verdict=nv, expected=ref.expected,
            old_actual=o.actual if o else None, new_actual=n.actual if n else None,
            old_message=o.message if o else None, new_message=n.message if n else None)
        out.append(change.model_copy(update={
            "code": CODES["claim-changed" if change.decided else "claim-unchecked"]}))
    return out


def _relabel(results: list["ClaimResult"], stand_in: str | None,
             label: str) -> list["ClaimResult"]:
    """Messages of the new side name its stand-in commit; say what it is instead."""
    if not stand_in:
        return results
    out = []
    for r in results:
        msg = r.message
        if msg:
            msg = msg.replace(stand_in, label).replace(stand_in[:7], label)
        out.append(r.model_copy(update={"message": msg}))
    return out


def rerun(old_project: "Project", new_project: "Project", lessons: "list[LessonDoc]",
          upstream: str, stand_in: str | None = None,
          label: str = "") -> tuple[ClaimsRun, list[ClaimChange]]:
    from verifier.claims.check import run_check

    old = run_check(old_project, lessons, upstream=upstream)
    new = _relabel(run_check(new_project, lessons, upstream=upstream), stand_in, label)
    changes = diff_results(old, new)
    return ClaimsRun(ran=True, old_total=len(old), new_total=len(new),
                     changed=sum(1 for c in changes if c.decided),
                     unchecked=sum(1 for c in changes if not c.decided),
                     old_verdicts=dict(sorted(Counter(r.verdict.value for r in old).items())),
                     new_verdicts=dict(sorted(Counter(r.verdict.value for r in new).items()))), changes


__all__ = ["diff_results", "rerun"]
