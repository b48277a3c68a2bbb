"""Suspects: lesson statements no reviewed claim checks that the pinned source contradicts.

`verifier check` and `verify` run this stage after the claim check. For each lesson
(pages the coverage rule excludes are skipped), the drafter (`verifier/draft`) reads
the assertions of every checkable sentence, in memory — of a sentence a claim of the
lesson's claim file covers, only the statements that claim does not check (a proposal
about a name or words one of the sentence's claims holds is dropped: that claim follows
its words and diverges when they are edited): a default, a value, an order, a keyword, an absence, a membership,
a declared type, each with its `expected` read from the sentence's own words. Each
*decisive* static proposal is checked by its claim kind against the files served at
pinned identity; one that comes out `diverged` is a finding of its own:

    rule "suspect" (VS101), severity warning, on the lesson line: what the sentence
    says, what the source says, the evidence (path, lines, blob, permalink)

A suspect is never a verdict: nothing is counted as verified, the run's exit code is
not changed by it (a warning), and a proposal that verifies, errs or cannot be checked
says nothing. Precision before recall: a proposal whose grounding is ambiguous, whose
reading is uncertain (`Proposal.decisive`), or that is a runtime skeleton, never
becomes a suspect.

Switch and suppressions (lint.toml next to pins.toml, `verifier/suspect/config.py`):

    [suspect]
    enabled = false                  # no suspect stage (default: on)

    [[suppress]]                     # a lesson's suspects about these names
    lesson = "newton-atlas/docs/sensors-rendering.md"
    rule = "suspect"
    names = ["SensorIMU.__init__"]   # the finding's target (or "suspect": all of them)
    reason = "..."

and inline, `<!-- verifier: ignore suspect -->` in (or right before) the block of the
sentence silences the suspects of that block; `ignore suspect:NAME` only those about
NAME. A suspect suppression that silences nothing is reported (`suppression-unused`,
a warning), like lint's.

Suspects of a lesson are memoised (`memo.py`) by the lesson's text, the fragments of
its claims, what decides which upstream files are served, and this stage's code:
a warm run reads one cache entry per lesson and re-validates the files it used.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from verifier.results import Crash, Finding, Severity
from verifier.suspect.finding import CODE, RULE

if TYPE_CHECKING:
    from verifier.claims.loader import LoadedClaim
    from verifier.project import LessonDoc, Project


def find_suspects(project: "Project", lessons: "list[LessonDoc]",
                  claims: "list[LoadedClaim] | None" = None, *,
                  crashes: list[Crash] | None = None,
                  tick: Callable[[], None] | None = None) -> list[Finding]:
    """Suspect findings (after suppressions) of `lessons`; `claims`: the loaded claims
    of those lessons (loaded here when None)."""
    from verifier.claims.coverage import split_lessons
    from verifier.suspect.config import load_config
    from verifier.suspect.memo import Memo

    cfg = load_config(project.root)
    if not cfg.enabled:
        return []
    keep, _ = split_lessons(project, lessons)
    if claims is None:
        from verifier.claims.loader import load_claims

        claims = load_claims(project, keep)
    by_lesson: dict[tuple[str, str], list] = {}
    for lc in claims:
        key = (getattr(lc, "course", None), getattr(lc, "lesson", None))
        by_lesson.setdefault(key, []).append(lc)
    memo = Memo(project)
    out: list[Finding] = []
    used_cfg: set[int] = set()
    for ld in sorted(keep, key=lambda d: (d.course, d.path)):
        mine = by_lesson.get((ld.course, ld.path), [])
        try:
            raw = memo.suspects(ld, mine, lambda ld=ld, mine=mine: _lesson(project, ld, mine))
        except Exception as exc:  # noqa: BLE001 - a drafting bug must not sink the run
            if os.environ.get("VERIFIER_DEBUG"):
                raise
            crash = Crash.of(exc, stage="check", what="suspect stage", course=ld.course,
                             lesson=ld.path)
            if crashes is not None:
                crashes.append(crash)
            raw = [Finding(rule=RULE, code=CODE, severity=Severity.WARNING, path=ld.path,
                           course=ld.course, line=1,
                           message=f"internal error in the suspect stage: {crash.error}; this "
                                   "lesson's suspects are missing (a bug in verifier: see the "
                                   "crash log)", data={"internal_error": True})]
        from verifier.suspect.config import suppress

        kept, used = suppress(project, ld, raw, cfg)
        used_cfg |= used
        out.extend(kept)
        if tick is not None:
            tick()
    out.extend(cfg.unused(used_cfg, keep))
    return sorted(out, key=lambda f: (f.course or "", f.path, f.line, f.code, f.message))


def _lesson(project: "Project", lesson: "LessonDoc", claims: "list[LoadedClaim]"
            ) -> tuple[list[Finding], list]:
    """(suspects, files used) of one lesson, computed."""
    from verifier.draft.engine import draft_lesson
    from verifier.suspect.judge import judge

    draft = draft_lesson(project, lesson, claims, others=True)
    return judge(project, lesson, draft)


__all__ = ["CODE", "RULE", "find_suspects"]
