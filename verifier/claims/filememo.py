"""Memoised claim files: a warm check serves every claim of an unchanged claim file
from one entry, with one look at what the file's claims read.

`claims/memo.py` memoises each claim's outcome; a warm check still paid, per claim,
for an entry's read and signature, its files re-resolved, the sentence located in
the lesson and the result built (~0.2 ms a claim here). This memo sits above it: one
entry per claim file holds the final static results of its claims (after the
sentence, binding, identity and near-miss rules of `claims/check.py`) and the
notation entries each needed.

An entry is stored in the fact cache (`facts/claim-file/`, signed plain data) keyed by
the blob of the claim file, the code version of `verifier.claims.check` (its import
closure: every kind, the memo, the sentence rules) and a query holding everything
else a result depends on: the claim file's path as messages name it, the lesson's
course, path and text blob, each claim's run-unique id, header line, upstream and
load problem, the file's notation with where each entry is declared, the claims'
sentence bindings (claims.lock), the bytes of pins.toml and pins.lock (so a pin
bump falls back to the per-claim memo, which has the early cutoff) and whether
libclang can be used. Its dependencies are every question the checks asked of the
source layer (`verifier/sources/recording.py`: each file resolved, with its served
and pinned blob, status, provider and reason, and each presence answer); a hit is
used only if every one answers as recorded.

A file whose check crashed is never stored, nor one with a result that is not plain
data or not built from its claim as `claims/check.py` builds every result. Like the
other memos it is audited (`verifier/facts/audit.py`): a sample of the files hit
(`VERIFIER_MEMO_AUDIT`, by claim file, with a salt new every run; the first hit is not
always audited, or a one-lesson check could never use the memo) is checked again with
the per-claim memo bypassed, so an audit derives from the sources, not from another
memo, and the share of memoised verdicts re-derived from the sources stays what
`VERIFIER_MEMO_AUDIT` says. (Checked again through the per-claim memo instead, whose own
audit samples the outcomes it serves, only ~0.25 % of verdicts would be re-derived from
the sources: faster, by ~1 s of a warm check at `--scale 10`, but not the documented
guarantee.) One mismatch drops this memo and the per-claim one, refuses both for the
rest of the run and has every claim checked again in the same run (`claims/check.py`),
and the run's notes say so. `VERIFIER_FACT_CACHE=0` turns it off
with the rest of the fact cache; `VERIFIER_CLAIM_FILE_MEMO=0` turns off only this layer
(the per-claim memo's own tests use it).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from verifier import gcpause
from verifier.claims import memo
from verifier.claims.kinds.base import REGISTRY
from verifier.codeversion import code_version
from verifier.facts.audit import audit_state
from verifier.facts.cache import fact_cache, round_trip
from verifier.fileio import file_sha256
from verifier.results import ClaimResult, Evidence, SentenceEdit, Verdict
from verifier.sources.recording import answers_same, recording

if TYPE_CHECKING:
    from verifier.claims.loader import LoadedClaim
    from verifier.claims.lock import Bindings
    from verifier.project import LessonDoc, Project

EXTRACTOR = "claim-file"

# what a check computes; a result's other fields are its claim's (`_own`)
_COMPUTED = ("line", "message", "actual")

Compute = Callable[[], "tuple[list[ClaimResult], dict[str, list[str]], bool]"]


def off() -> bool:
    return os.environ.get("VERIFIER_CLAIM_FILE_MEMO", "1").strip().lower() in ("0", "off", "no")


def _digested(kind: str) -> bool:
    """Whether a kind's code is in this memo's code version (an unknown kind's result
    is an error that `claims/check.py` builds)."""
    cls = REGISTRY.get(kind)
    return cls is None or memo.digested(cls)


def _own(lc: "LoadedClaim") -> dict[str, Any]:
    """The fields of a claim's result that are its claim's, not the check's (as
    `claims/check.py` builds every result)."""
    c = lc.claim
    return {"id": lc.gid, "lesson": lc.lesson, "upstream": lc.upstream or "", "kind": c.kind,
            "expected": c.expected, "course": lc.course, "fragment": c.fragment,
            "symbol": c.symbol, "options": dict(c.options), "review": getattr(c, "review", None),
            "note": c.note, "runtime_code": c.runtime.code if c.runtime else None}


def _plain(group: "list[LoadedClaim]", results: list[ClaimResult],
           uses: dict[str, list[str]]) -> dict | None:
    """What is stored: per result only what its check computed. None (not stored) when
    a result is not built as `_own` says, or is not static."""
    out = []
    for lc, r in zip(group, results, strict=True):
        if r.runtime is not None or any(getattr(r, k) != v for k, v in _own(lc).items()):
            return None
        ev = r.evidence
        out.append([r.verdict.value, *(getattr(r, k) for k in _COMPUTED), None if ev is None
                    else [ev.path, list(ev.lines) if ev.lines else None, ev.blob, ev.permalink,
                          ev.status, ev.provider],
                    None if r.edit is None else r.edit.model_dump()])
    return {"results": out, "uses": [[gid, sorted(keys)] for gid, keys in sorted(uses.items())]}


def _results(group: "list[LoadedClaim]", value: dict
             ) -> tuple[list[ClaimResult], dict[str, list[str]]]:
    out = []
    rows = value["results"]
    if len(rows) != len(group):
        raise ValueError("an entry for another number of claims")
    for lc, (verdict, line, message, actual, e, edit) in zip(group, rows, strict=True):
        # validated, not `model_construct`ed: with pydantic 2.14 validating these two
        # models costs 5 us a result, constructing them unvalidated 14 us
        ev = None if e is None else Evidence(
            path=e[0], lines=tuple(e[1]) if e[1] else None, blob=e[2], permalink=e[3],
            status=e[4], provider=e[5])
        out.append(ClaimResult(**_own(lc), verdict=Verdict(verdict), line=line, message=message,
                               actual=actual, evidence=ev, runtime=None,
                               edit=None if edit is None else SentenceEdit.model_validate(edit)))
    return out, {gid: list(keys) for gid, keys in value["uses"]}


class FileMemo:
    """The claim-file memo of one `check_claims` run."""

    def __init__(self, project: "Project", bindings: "Bindings | None") -> None:
        self.project = project
        self.bindings = bindings
        fc = fact_cache(project.store)
        if fc.notify is None:
            fc.notify = project.notify
        self.fc = fc
        self.enabled = fc.enabled and not off()
        self.version = code_version("verifier.claims.check", __name__) if self.enabled else ""
        self.base: dict | None = None

    def expect(self, files: int) -> None:
        """This run checks `files` claim files: the audit's budget (facts/audit.py)."""
        if self.enabled:
            audit_state(self.fc, EXTRACTOR, first=False).expect(files)

    def _key(self, group: "list[LoadedClaim]", lesson: "LessonDoc | None"
             ) -> tuple[str | None, dict]:
        first = group[0]
        if self.base is None:
            self.base = {"pins": file_sha256(self.project.pins.path),
                         "lock": file_sha256(self.project.lock_path),
                         "env": memo._claim_env()}
        b = self.bindings
        return first.blob, {
            **self.base, "file": str(first.file), "course": first.course,
            "lesson": first.lesson,
            "text": None if lesson is None else lesson.blob,
            "claims": [[lc.gid, lc.line, lc.upstream, lc.problem] for lc in group],
            "notation": [[m.kind, m.lesson, m.source, m.where] for m in first.notation.entries],
            "bindings": None if b is None else [b.exists, [b.key(lc.gid) for lc in group]],
            "negated": [lc.negated for lc in group]}

    def check(self, group: "list[LoadedClaim]", lesson: "LessonDoc | None", compute: Compute
              ) -> tuple[list[ClaimResult], dict[str, list[str]]]:
        """`compute()` -> (results, notation uses by claim id, crashed), memoised for the
        claims of one claim file (`group`, in file order)."""
        if not self.enabled or group[0].blob is None \
                or not all(_digested(lc.claim.kind) for lc in group):
            results, uses, _ = compute()
            return results, uses
        fc = self.fc
        state = audit_state(fc, EXTRACTOR, first=False)
        claim_state = audit_state(fc, memo.EXTRACTOR)
        blob, query = self._key(group, lesson)
        at = fc.locate(EXTRACTOR, self.version, blob, query)
        trusted = not (state.distrusted or claim_state.distrusted)
        hit = fc.get(EXTRACTOR, self.version, blob, query, at=at) if trusted else None
        layer = self.project.sources
        if isinstance(hit, dict) and isinstance(hit.get("deps"), dict):
            try:
                current = answers_same(layer, hit["deps"])
            except (KeyError, TypeError, ValueError):
                current = False             # an entry of another shape: a miss
            if current:
                if state.sampled(os.path.basename(at[0])):
                    fc.stats.audited += 1
                    claim_state.bypassed = True    # derived from the sources, not a memo
                    try:
                        results, uses, crashed = compute()
                    finally:
                        claim_state.bypassed = False
                    if crashed or round_trip(_plain(group, results, uses)) != hit["value"]:
                        state.distrusted = claim_state.distrusted = True
                        self._distrust(group[0])
                    return results, uses
                try:
                    with gcpause.paused():      # models that live on, no cycles
                        return _results(group, hit["value"])
                except (KeyError, TypeError, ValueError):
                    fc.stats.corrupt += 1   # a signed entry of another shape: checked again
            else:
                fc.stats.stale += 1
        with recording(layer) as rec:
            results, uses, crashed = compute()
        value = None if crashed else _plain(group, results, uses)
        if value is not None:
            try:
                fc.put(EXTRACTOR, self.version, blob, {"value": value, "deps": rec.plain()},
                       query)
            except TypeError:
                pass        # a result whose data is not plain: this file is not memoised
        return results, uses

    def _distrust(self, lc: "LoadedClaim") -> None:
        fc = self.fc
        n = fc.drop(EXTRACTOR) + fc.drop(memo.EXTRACTOR)
        fc.note(f"the memoised results of claim file {lc.file} did not match a fresh check: "
                f"all {n} memoised claim files and outcomes were dropped and every claim is "
                "checked again in this run")
