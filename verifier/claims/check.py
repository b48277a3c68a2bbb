"""Static claim checking: locate each claim's sentence in its lesson, run its kind
against the pinned source, and enforce the identity rule.

Verdicts (see docs/claims/README.md):
  verified     the fact at the pin matches `expected` (evidence: path, lines, blob, permalink)
  diverged     it does not (expected vs actual, with evidence)
  stale        the claim's fragment is no longer in the lesson, or the sentence around it
               changed since the claim was bound to it (`verifier claims rebind`)
  unavailable  the file is not available at pinned identity (or a runtime-only claim)
  error        the claim itself is bad (message names `<claim file>:<line>`): a locator
               (`path`, `symbol`, an option) that names nothing at the pin, with "did you
               mean" suggestions; a negative claim whose name has near misses the lesson
               does not name

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

from verifier.safewrite import machine_failure
from verifier.claims import kinds as _kinds  # noqa: F401  (registers every kind)
from verifier.claims.kinds.base import REGISTRY, CheckContext, ClaimError, SourceUnavailable
from verifier.claims import memo
from verifier.claims.loader import LoadedClaim, claims_root, load_claims
from verifier.claims.filememo import FileMemo
from verifier.claims.memo import check_claim
from verifier.claims.notation import NOTATION_FILE, Tracker, unused_findings
from verifier.claims.binding import Bound, bind_claim
from verifier.claims.lock import Bindings, load_bindings
from verifier.claims.sentences import occurrences
from verifier.facts.model import split_symbol
from verifier.registry import choice_message
from verifier.results import ClaimResult, Crash, Evidence, Verdict, draft_counts

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def _result(lc: LoadedClaim, line: int | None, verdict: Verdict, *, actual=None,
            evidence: Evidence | None = None, message: str | None = None) -> ClaimResult:
    c = lc.claim
    return ClaimResult(id=lc.gid, lesson=lc.lesson, line=line, upstream=lc.upstream or "",
                       kind=c.kind, verdict=verdict, expected=c.expected, actual=actual,
                       evidence=evidence, message=message, course=lc.course, fragment=c.fragment,
                       symbol=c.symbol, options=dict(c.options), review=getattr(c, "review", None),
                       note=c.note, runtime_code=c.runtime.code if c.runtime else None)


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


def _known_absent(project: "Project", sf) -> str | None:
    """Why an unavailable file is known not to exist at the pin (a mistyped path: the
    claim's error), or None when it may well exist there (then: `unavailable`). The
    source layer knows: the pin's git tree, a complete pins.lock, or a pinned release
    whose wheel map covers the path and lacks it."""
    try:
        pres = project.sources.presence(sf.upstream, sf.path)
    except Exception:  # noqa: BLE001 - nothing known about the path: it stays unavailable
        return None
    if not pres.state.known_absent:
        return None
    return f"no file `{sf.path}` at {project.pins.get(sf.upstream).short}: {pres.message()}"


def _names_in_sentence(name: str, sentence: str | None) -> bool:
    if not sentence:
        return False
    parts = split_symbol(name)
    last = parts[-1] if parts else name
    # identifier boundaries, not \w: Chinese prose runs into names ("调用C的mj_forward")
    return bool(re.search(r"(?<![A-Za-z0-9_])" + re.escape(last) + r"(?![A-Za-z0-9_])", sentence))


def check_one(project: "Project", lc: LoadedClaim, lesson: "LessonDoc | None",
              crashes: list[Crash] | None = None, bindings: Bindings | None = None,
              uses: dict[str, list[str]] | None = None, bound: Bound | None = None
              ) -> ClaimResult:
    """The static verdict of one claim. `crashes` receives a kind's crash; `bindings`:
    claims.lock (what the claim was reviewed against); `uses` receives the keys of the
    notation entries the check needed, by claim id; `bound`: the claim already bound to
    its sentence as it reads now (claims/binding.py), else bound here."""
    if lesson is None:
        return _error(lc, None, f"lesson {lc.lesson!r} not found in course {lc.course!r}")
    if bound is None:
        bound = bind_claim(lc, lesson, bindings, project.store)
    checked = bound.lc
    line = bound.line
    if lc.problem:
        return _error(lc, line, lc.problem)
    note: tuple[str, str] | None = None
    if bound.state in ("gone", "stale"):
        note = ("stale", bound.note or "")
    elif bound.state == "unbound" and bindings is not None and bindings.exists:
        note = ("unbound", f"not bound to its lesson sentence yet: review it, then run "
                           f"`verifier claims rebind {lc.gid}`")
    edited = {c.now for c in bound.edit.spans if c.now} if bound.state == "derived" and \
        bound.edit is not None else set()
    res = _checked(project, checked, lesson, line, bound.sentence, crashes, uses, edited)
    if bound.problem:
        # `says` is not what the sentence says: the claim's own verdict stands when it found
        # something wrong itself (a mistyped locator), else the claim is in error
        if res.verdict in (Verdict.VERIFIED, Verdict.UNAVAILABLE):
            return _error(lc, line, bound.problem)
        res = res.model_copy(update={"message": f"{res.message}; also {bound.problem}"
                                     if res.message else bound.problem})
    if bound.edit is not None:
        res = res.model_copy(update={"edit": bound.edit})
    if bound.state == "derived":
        res = _derived(res, bound)
        slip = _slip(project, lc.upstream, bound)
        if slip and res.verdict in (Verdict.VERIFIED, Verdict.UNAVAILABLE):
            res = res.model_copy(update={"verdict": Verdict.ERROR, "message": f"{slip}; "
                                         f"{res.message}" if res.message else slip})
    elif bound.state == "outside" and bound.note:
        res = res.model_copy(update={"message": (f"{res.message}; " if res.message else "")
                                     + bound.note})
    return _stale_or(lc, line, note, res)


def _slip(project: "Project", upstream: str | None, bound: Bound) -> str | None:
    """A name the edit wrote where a reviewed name stood that is a slip of it: no name of
    the upstream at the pin, one or two letters off the reviewed one (`mj_forward` ->
    `mj_forard`). A claim derived from it may still verify (a negative claim about a name
    that does not exist); the sentence is wrong all the same."""
    if not upstream or bound.edit is None:
        return None
    import difflib

    pairs = []
    for sc in bound.edit.spans:
        if not sc.now or sc.why:
            continue
        if not (re.fullmatch(r"[\w.:>~-]+", sc.was) and re.fullmatch(r"[\w.:>~-]+", sc.now)):
            continue
        a, b = split_symbol(sc.was), split_symbol(sc.now)
        if not a or not b:
            continue
        old, new = a[-1], b[-1]
        if old != new and abs(len(old) - len(new)) <= 1 and re.fullmatch(r"[A-Za-z_]\w+", new) \
                and difflib.SequenceMatcher(None, old, new).ratio() >= 0.8:
            pairs.append((old, new))
    if not pairs:
        return None
    from verifier.facts.symbols import build_index

    try:
        index = build_index(project, upstream)
    except Exception:  # noqa: BLE001 - no index: nothing to say
        return None
    for old, new in pairs:
        if not index.lookup(new) and index.lookup(old):
            return (f"the edited sentence names `{new}`, which is no name of {upstream} at the "
                    f"pin; did you mean `{old}`?")
    return None


def _derived(res: ClaimResult, bound: Bound) -> ClaimResult:
    """The result of a claim re-derived from its edited sentence: negated when the
    sentence's polarity flipped (what the source shows is then what the sentence denies)."""
    verdict, message = res.verdict, res.message
    if bound.lc.negated:
        if verdict is Verdict.VERIFIED:
            verdict = Verdict.DIVERGED
            message = ("the pinned source shows what the reviewed sentence said, and the sentence "
                       "now denies it" + (f" ({message})" if message else ""))
        elif verdict is Verdict.DIVERGED:
            verdict = Verdict.VERIFIED
            message = ("the sentence now denies what the pinned source does not show"
                       + (f" ({message})" if message else ""))
    message = f"{bound.note}; {message}" if message else bound.note
    return res.model_copy(update={"verdict": verdict, "message": message})


def _checked(project: "Project", lc: LoadedClaim, lesson: "LessonDoc", line: int | None,
             sentence: str | None, crashes: list[Crash] | None,
             uses: dict[str, list[str]] | None, edited: set[str] = frozenset()) -> ClaimResult:
    """The kind's verdict on `lc` (identity, near-miss and fragment rules applied).
    `edited`: the words an edit of the sentence put where the claim's spans were (a
    near-miss name among them is no exception: it is what the sentence now says)."""
    c = lc.claim
    kind_cls = REGISTRY.get(c.kind)
    if kind_cls is None:
        return _error(lc, line, choice_message("kind", c.kind, REGISTRY))
    if not lc.upstream:
        return _error(lc, line, "no upstream: set `upstream` on the claim or at the top of the file")
    if lc.upstream not in project.pins.upstream:
        return _error(lc, line, f"unknown upstream {lc.upstream!r} (pins.toml has: "
                                f"{', '.join(sorted(project.pins.upstream))})")
    ctx = CheckContext(project=project, upstream=project.pins.get(lc.upstream),
                       notation=Tracker(lc.notation))
    try:
        out = check_claim(kind_cls(), c, ctx)   # memoised by blob (verifier/claims/memo.py)
    except SourceUnavailable as exc:
        sf = exc.sf
        absent = _known_absent(project, sf)
        if absent is not None:
            return _error(lc, line, f"`path`: {absent}")
        ev = Evidence(path=sf.path, blob=sf.expected_blob, status=sf.status.value,
                      permalink=ctx.upstream.permalink(sf.path), provider=sf.provider)
        return _result(lc, line, Verdict.UNAVAILABLE, evidence=ev,
                       message=f"{sf.path} is {sf.status.value} at {ctx.upstream.short}: "
                               f"{sf.reason}".rstrip(": "))
    except ClaimError as exc:
        return _error(lc, line, str(exc))
    except Exception as exc:  # noqa: BLE001 - a bug in a kind must not sink the whole run
        if os.environ.get("VERIFIER_DEBUG") or machine_failure(exc):
            raise                       # a full or unusable cache: exit 2 naming the file
        crash = Crash.of(exc, stage="check", what=f"claim kind {c.kind} ({kind_cls.code})",
                         course=lc.course, lesson=lc.lesson)
        if crashes is not None:
            crashes.append(crash)
        return _error(lc, line, f"internal error in kind {c.kind!r}: {crash.error} (a bug in "
                                "verifier: see the crash log)")
    if uses is not None:
        uses[lc.gid] = list(ctx.notation.used)
    verdict, message = out.verdict, out.message
    if verdict is Verdict.VERIFIED:
        why = _identity_ok(out.evidence, ctx)
        if why:
            verdict, message = Verdict.ERROR, (f"{lc.where}: refusing `verified` ({why}); "
                                               f"kind said: {message or ''}").rstrip("; ")
    if verdict is Verdict.VERIFIED and out.near_miss:
        missed = [(n, close) for n, close in out.near_miss
                  if not _names_in_sentence(n, sentence) or split_symbol(n)[-1] in edited]
        if missed:
            what = "; ".join(f"`{n}` is absent, but {', '.join(f'`{x}`' for x in close)} "
                             f"exist{'s' if len(close) == 1 else ''}" for n, close in missed)
            typo = [n for n, _ in missed if split_symbol(n)[-1] in edited]
            if typo:
                return _result(lc, line, Verdict.ERROR, message=(
                    f"the edited sentence names `{split_symbol(typo[0])[-1]}`, which is not a "
                    f"name at the pin ({what}); did you mean {missed[0][1][0]}?"))
            return _error(lc, line, f"negative claim with a near-miss name: {what}; did you mean "
                                    f"{missed[0][1][0]}? (the lesson sentence does not name "
                                    f"`{split_symbol(missed[0][0])[-1]}`, so the claim may be "
                                    "mistyped)")
    via = ctx.notation.describe_used()
    if via and verdict in (Verdict.VERIFIED, Verdict.DIVERGED):
        message = (f"{message}; " if message else "") + via
    n = occurrences(c.fragment, lesson.text) if line is not None else 0
    if n > 1:
        message = (f"{message}; " if message else "") + (
            f"fragment occurs {n} times in the lesson, line {line} is the first")
    return _result(lc, line, verdict, actual=out.actual, evidence=out.evidence, message=message)


def _stale_or(lc: LoadedClaim, line: int | None, note: tuple[str, str] | None,
              res: ClaimResult) -> ClaimResult:
    """`res`, or `stale` when the sentence it was reviewed against changed in a way the
    claim cannot follow (the check's own outcome kept in the message: what the evidence
    still says), or `res` with a note when it was never bound."""
    if note is None:
        return res
    kind, text = note
    if kind == "unbound":
        return res.model_copy(update={"message": (f"{res.message}; " if res.message else "") + text})
    was = f"as reviewed, the claim is {res.verdict.value}" + (f": {res.message}" if res.message
                                                              else "")
    return res.model_copy(update={"verdict": Verdict.STALE,
                                  "message": f"{lc.where}: {text}; {was}"})


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
                 tick: Callable[[], None] | None = None, findings: list | None = None,
                 listed: "list[LessonDoc] | None" = None,
                 ) -> list[tuple[LoadedClaim, ClaimResult]]:
    """Like `run_check`, keeping each result next to its loaded claim (for the runtime
    stage). `kinds` keeps only claims of those kinds; `tick()` after each claim; a kind
    that raises appends to `crashes` (its claim is an `error`); `findings` receives the
    claim files' own findings: notation entries no checked claim needed
    (`notation-unused`, warnings); `listed`: every lesson of the course, already listed
    by the caller (with `lessons=None`: not listed again)."""
    if upstream is not None:
        project.pins.get(upstream)  # unknown upstream -> clear error
    pool = lessons if lessons is not None else (listed if listed is not None
                                                else project.lessons())
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
    bindings = load_bindings(claims_root(project), project.store)
    uses: dict[str, list[str]] = {}    # claim id -> keys of the notation entries it needed

    turned: list[tuple["LessonDoc", Bound]] = []

    def check_all() -> tuple[list, list[Crash]]:
        got, caught = [], []
        uses.clear()
        turned.clear()
        files = FileMemo(project, bindings)
        groups = _by_file(loaded)
        files.expect(len(groups))
        for group in groups:
            lesson = by_key.get((group[0].course, group[0].lesson))
            bounds = _bound(group, lesson, bindings, project)
            if bounds is not None:     # the lesson changed since review: what it says now
                group = [b.lc for b in bounds]
                turned.extend((lesson, b) for b in bounds if b.turned)

            def compute(group=group, lesson=lesson, bounds=bounds):
                before, own = len(caught), {}
                results = [check_one(project, lc, lesson, caught, bindings, own,
                                     bounds[i] if bounds is not None else None)
                           for i, lc in enumerate(group)]
                return results, own, len(caught) > before

            results, used = files.check(group, lesson, compute)  # memoised per claim file
            uses.update(used)
            for lc, r in zip(group, results, strict=True):
                got.append((lc, r))
                if tick is not None:
                    tick()
        return got, caught

    pairs, caught = check_all()
    if memo.distrusted(project):   # a memoised outcome was contradicted: nothing from the memo
        pairs, caught = check_all()
    if crashes is not None:
        crashes.extend(caught)
    project.sources.save_index()
    if findings is not None:
        findings.extend(notation_findings(pairs, uses, complete=upstream is None
                                          and lessons is None and kinds is None))
        findings.extend(turned_findings(turned))
    return pairs


TURNED = "sentence-turned"
TURNED_CODE = "VC151"


def turned_findings(turned: list[tuple["LessonDoc", Bound]]) -> list:
    """`sentence-turned` warnings: a reviewed sentence whose polarity flipped outside
    what its claims check (a negation word gained or lost, a pair word swapped in
    another clause): the claims still hold, but the sentence now says the opposite of
    what was reviewed somewhere; one warning per lesson line."""
    from verifier.results import Finding, Severity

    by_line: dict[tuple[str, str, int], list[Bound]] = {}
    docs = {}
    for doc, b in turned:
        key = (doc.course, doc.path, b.line or 1)
        by_line.setdefault(key, []).append(b)
        docs[key] = doc
    out = []
    for key, bs in sorted(by_line.items()):
        doc = docs[key]
        why = sorted({w for b in bs for w in (b.turned or [])})
        ids = ", ".join(sorted(b.lc.gid for b in bs))
        out.append(Finding(rule=TURNED, code=TURNED_CODE, severity=Severity.WARNING,
                           path=doc.path, course=doc.course, line=key[2],
                           message=f"the sentence was edited since review and now says the "
                                   f"opposite somewhere outside what its claims check "
                                   f"({'; '.join(why)}); re-check it against the source "
                                   f"(claims on it: {ids})", target=why[0] if why else None))
    return out


def _bound(group: list[LoadedClaim], lesson: "LessonDoc | None", bindings: Bindings,
           project: "Project") -> list[Bound] | None:
    """The claims of one file bound to their sentences as they read now, or None when
    none of them can follow an edit (each was reviewed in this lesson text, or keeps no
    spans): they are checked as written, and a warm run does not bind them again."""
    if lesson is None:
        return None
    if not bindings.exists or not any((e := bindings.get(lc.gid)) is not None and e.spans
                                      and e.lesson != lesson.blob for lc in group):
        return None
    return [bind_claim(lc, lesson, bindings, project.store) for lc in group]


def _by_file(loaded: list[LoadedClaim]) -> list[list[LoadedClaim]]:
    """The claims in runs of one claim file each (load order is file by file)."""
    groups: list[list[LoadedClaim]] = []
    for lc in loaded:
        if groups and groups[-1][0].file == lc.file:
            groups[-1].append(lc)
        else:
            groups.append([lc])
    return groups


def notation_findings(pairs: list[tuple[LoadedClaim, ClaimResult]], uses: dict[str, list[str]],
                      complete: bool = True) -> list:
    """`notation-unused` warnings for this run (see verifier/claims/notation.py).

    A course-wide entry is judged only when every claim of its course was checked
    (`complete`); a claim file's own entries whenever that file's claims were."""
    items = []
    for lc, r in pairs:
        decided = r.verdict in (Verdict.VERIFIED, Verdict.DIVERGED)
        items.append((lc.notation, lc.claim.expected, r.verdict.value,
                      set(uses.get(lc.gid, {})), decided))
    found = unused_findings(items)
    if complete:
        return found
    return [f for f in found if f.path.rsplit("/", 1)[-1] != NOTATION_FILE]


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
