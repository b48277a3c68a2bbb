"""`verifier claims rebind`: bind claims to their lesson sentences as they read now.

A claim is checked as its sentence reads now first (claims/binding.py, claims/check.py,
and at runtime when it has a runtime check and a confirmer is given), then:

  same, unbound, outside   bound (its assertion does not change: a known lesson error
                           that diverges stays a diverged claim)
  derived                  its spans were edited: bound only when the re-derived claim
                           verifies; then the claim file follows the sentence (the
                           changed `says` spans and the values derived from them are
                           written into it: a minimal tomlkit edit)
  stale                    refused: a span is gone or no longer parses, the claim's own
                           words changed outside its spans (claims.lock `marks`), or a
                           claim without spans whose reworded sentence no longer verifies

`force` (the reviewer's note) binds a refused claim anyway: a derived claim is written
as the sentence says it (and keeps diverging, with the note in claims.lock); a gone
span is dropped from `says`, and a claim left without spans gets `paraphrase` = the
note. A claim whose fragment left the lesson, or whose `says` is not its sentence's,
is always refused: fix the claim file first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.claims.binding import Bound, bind_claim
from verifier.claims.follow import claim_atoms, review
from verifier.claims.lock import Bindings, dump_bindings, load_bindings, lock_path
from verifier.claims.says import spans_of
from verifier.claims.sentences import _plain_fragment, sentence_hash
from verifier.results import ClaimResult, Verdict

if TYPE_CHECKING:
    from verifier.claims.loader import LoadedClaim
    from verifier.project import Project

Confirm = Callable[[list[tuple["LoadedClaim", ClaimResult]]], list[ClaimResult]]


@dataclass(frozen=True)
class Rebound:
    gid: str
    old: str | None           # the sentence hash it was bound to (None: never)
    new: str
    state: str                # same | unbound | outside | derived | forced
    changes: tuple[str, ...] = ()   # what the claim file now says differently


@dataclass
class Report:
    bound: list[Rebound] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)   # (gid, why)
    files: list[Path] = field(default_factory=list)                # claim files edited


def _choose(loaded: list["LoadedClaim"], ids: list[str] | None) -> list["LoadedClaim"]:
    from verifier.errors import UsageError

    by_gid = {lc.gid: lc for lc in loaded}
    if ids is None:
        return loaded
    chosen, unknown = [], []
    for i in ids:
        i = i.rstrip("/")
        hit = [by_gid[i]] if i in by_gid else [lc for lc in loaded if lc.gid.startswith(i + "/")]
        if not hit:
            unknown.append(i)
        chosen.extend(hit)
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], sorted(by_gid), n=3, cutoff=0.6)
        raise UsageError(f"no claim {unknown[0]!r}" + (
            f"; did you mean {', '.join(close)}?" if close else
            " (ids as `verifier check` prints them: <course>/<lesson-stem>/<id>)"))
    return list({lc.gid: lc for lc in chosen}.values())


def rebind(project: "Project", ids: list[str] | None, *, force: str | None = None,
           confirm: Confirm | None = None) -> Report:
    """Bind the claims `ids` (global ids; a lesson prefix `<course>/<lesson-stem>` binds
    all its claims), or every claim when `ids` is None; write claims.lock (and the claim
    files of claims that follow their edited sentences). `confirm` runs runtime checks
    (without it, a re-derived claim with a runtime check is refused: it cannot be
    confirmed); `force`: the reviewer's note, binding refused claims anyway."""
    from verifier.claims.check import check_one
    from verifier.claims.loader import claims_root, load_claims
    from verifier.gitblob import blob_sha
    from verifier.safewrite import Area, Transaction

    loaded = load_claims(project)
    chosen = _choose(loaded, ids)
    current = load_bindings(claims_root(project))
    entries = dict(current.entries)
    report = Report()
    lessons: dict[tuple[str, str], object] = {}
    todo: list[tuple["LoadedClaim", Bound, ClaimResult]] = []
    for lc in chosen:
        key = (lc.course, lc.lesson)
        if key not in lessons:
            course = project.pins.course.get(lc.course)
            f = project.course_root(course) / lc.lesson if course is not None else None
            lessons[key] = project.lesson_for(f, lc.course) if f is not None and f.is_file() \
                else None
        lesson = lessons[key]
        if lesson is None:
            report.refused.append((lc.gid, f"its lesson {lc.course}/{lc.lesson} is not there"))
            continue
        bound = bind_claim(lc, lesson, current, project.store)
        if bound.state == "gone" or bound.sentence is None:
            report.refused.append((lc.gid, f"fragment {lc.claim.fragment!r} is not in "
                                           f"{lc.course}/{lc.lesson} (fix the fragment first)"))
            continue
        if lc.problem or bound.problem:
            report.refused.append((lc.gid, f"{lc.where}: {lc.problem or bound.problem}"))
            continue
        todo.append((lc, bound, check_one(project, lc, lesson, None, current, None, bound)))
    runtime = [(b.lc, r) for lc, b, r in todo if b.lc.claim.runtime is not None
               and b.state in ("derived", "stale")]
    confirmed: dict[str, ClaimResult] = {}
    if runtime and confirm is not None:
        for r in confirm(runtime):
            confirmed[r.id] = r
    edits: dict[Path, list[tuple["LoadedClaim", Bound]]] = {}
    for lc, bound, res in todo:
        res = confirmed.get(res.id, res)
        why = _refusal(bound, res, runtime_ran=res.id in confirmed)
        state = bound.state
        if why is not None:
            if force is None:
                report.refused.append((lc.gid, why))
                continue
            state = "forced"
        target = bound.lc
        if target.negated:
            target = _negate(target)
        if bound.state == "stale" and force is not None and bound.edit is not None:
            target = _dropped(lc, bound, force)
        if target.claim != lc.claim:
            edits.setdefault(lc.file, []).append((lc, bound.__class__(
                target, bound.line, bound.sentence, bound.state, bound.note, bound.edit)))
        spans = spans_of(target.claim.says)
        entry, _ = review(bound.sentence, _plain_fragment(lc.claim.fragment), spans,
                          sentence_hash(bound.sentence), bound.line,
                          blob_sha(lessons[(lc.course, lc.lesson)].text.encode("utf-8")),
                          claim_atoms(target.claim.model_dump(), spans))
        if force is not None and state == "forced":
            from dataclasses import replace

            entry = replace(entry, note=force)
        old = current.get(lc.gid)
        entries[lc.gid] = entry
        report.bound.append(Rebound(lc.gid, old.sentence if old else None, entry.sentence,
                                    state, _changes(lc, target)))
    from verifier.claims.claimedit import rewrite

    # the claim files and claims.lock: all of them or none
    root = claims_root(project)
    tx = Transaction(root, "`claims rebind`")
    for path, items in sorted(edits.items()):
        rewrite(project, path, [(lc.claim.id, lc.claim, b.lc.claim) for lc, b in items], tx)
        report.files.append(path)
    if ids is None:      # --all: forget claims that no longer exist
        known = {lc.gid for lc in loaded}
        entries = {g: e for g, e in entries.items() if g in known}
    if entries != current.entries or not current.exists and report.bound:
        tx.write(Area.edit(root, "the claim files"), lock_path(root), dump_bindings(entries))
    if tx.items:
        tx.commit()
    return report


def _refusal(bound: Bound, res: ClaimResult, runtime_ran: bool) -> str | None:
    """Why binding this claim would bless a contradiction (or hide a lost span)."""
    if bound.state == "stale":
        if bound.marks is not None:
            return (f"the sentence's words that are the claim's own changed outside its spans "
                    f"({'; '.join(bound.marks)}); re-check what it says, fix `says`, or --force "
                    "with a note")
        if bound.edit is not None and any(s.now is None or s.why for s in bound.edit.spans):
            gone = [s.was for s in bound.edit.spans if s.now is None or s.why]
            return (f"what it checks is no longer in its sentence (span(s) {', '.join(gone)}); "
                    "fix `says`, or --force with a note to drop them")
        if res.verdict in (Verdict.DIVERGED, Verdict.ERROR):
            return (f"its reworded sentence no longer verifies ({res.verdict.value}: "
                    f"{(res.message or '')[:200]})")
        return None
    if bound.state != "derived":
        return None
    if bound.lc.negated and not _flippable(bound.lc.claim):
        return ("the edited sentence negates the claim, and its expectation is no single true/"
                "false that could follow: rewrite the claim for what the sentence now says")
    if bound.lc.claim.runtime is not None and not runtime_ran:
        return ("the claim was re-derived from the edited sentence and has a runtime check that "
                "did not run here (run without --runtime none)")
    if res.verdict in (Verdict.DIVERGED, Verdict.ERROR):
        return (f"the edited sentence contradicts the pinned source or runtime: as it reads now "
                f"the claim is {res.verdict.value} ({(res.message or '')[:240]})")
    if res.verdict in (Verdict.STALE,):
        return f"cannot follow the edited sentence: {(res.message or '')[:200]}"
    return None


def _flippable(claim) -> bool:
    if claim.runtime is not None:
        return isinstance(claim.runtime.expected, bool) and (
            claim.expected is None or isinstance(claim.expected, bool))
    return isinstance(claim.expected, bool)


def _negate(lc: "LoadedClaim") -> "LoadedClaim":
    """The claim as the negated sentence says it (a single true/false expectation flipped)."""
    from dataclasses import replace

    c = lc.claim
    upd: dict = {}
    if isinstance(c.expected, bool):
        upd["expected"] = not c.expected
    if c.runtime is not None and isinstance(c.runtime.expected, bool):
        upd["runtime"] = c.runtime.model_copy(update={"expected": not c.runtime.expected})
    return replace(lc, claim=c.model_copy(update=upd), negated=False)


def _dropped(lc: "LoadedClaim", bound: Bound, note: str) -> "LoadedClaim":
    """`lc` without its gone spans; a claim left with none says why (the note)."""
    from dataclasses import replace

    gone = {s.was for s in (bound.edit.spans if bound.edit else []) if s.now is None or s.why}
    keep = [e for e in (lc.claim.says or [])
            if (e if isinstance(e, str) else e.text).replace("`", "") not in gone]
    upd: dict = {"says": keep or None}
    if not keep:
        upd["paraphrase"] = note
    return replace(lc, claim=lc.claim.model_copy(update=upd))


def _changes(lc: "LoadedClaim", target: "LoadedClaim") -> tuple[str, ...]:
    a, b = lc.claim.model_dump(), target.claim.model_dump()
    return tuple(f"{k}: {a[k]!r} -> {b[k]!r}" for k in sorted(a) if a[k] != b[k])


__all__ = ["Bindings", "Rebound", "Report", "rebind"]
