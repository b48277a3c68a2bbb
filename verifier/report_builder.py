"""Build the verification record (`verifier.report.RunReport`) from a run's results.

The one place that turns stage results into the record. Upstream files are read
only through the source layer (`project.sources`), at pinned identity.

Determinism: lists are sorted by stable keys; nothing that differs between two
runs of the same inputs goes into the record. Runtime durations, import times
and snippet output, and this run's provider messages (an unreachable remote, a
failed download) go to `RunDetails` (`run.json`); the record says once per
upstream, in stable wording, what the sources situation was (`notes`).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from verifier import __version__
from verifier.fileio import file_sha256
from verifier.report import (CheckTiming, EnvironmentTiming, Excerpt, InternalError,
                             LessonRecord, LockedInfo, LockInfo, Note, NotRun, PinnedCourse,
                             PinnedUpstream, PinsInfo, RunDetails, RunReport, RuntimeInfo,
                             SourceIdentity, Summary, ToolInfo, claim_gid, claim_lesson_key,
                             claim_sort_key, exit_status, finding_lesson_key, finding_sort_key)
from verifier.results import ClaimResult, Crash, Finding, Severity, Verdict, draft_counts
from verifier.textlines import source_lines

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project

MAX_SNIPPET_LINES = 60
MAX_SENTENCE_CHARS = 600
# per-environment keys of the runtime sampling record that are timings (-> run.json)
_ENV_TIMINGS = ("import_s", "wall_s", "isolation")   # machine-dependent: run.json only
_RUNTIME_VOLATILE = ("duration_s", "stdout", "stderr")


def _pins_info(project: "Project") -> PinsInfo:
    pins = project.pins
    ups = [PinnedUpstream(name=u.name, repo=u.repo, commit=u.commit, version=u.version,
                          tag=u.tag, also=sorted(u.also),
                          wheels=sorted(w.requirement for w in u.wheel),
                          runtime=list(u.runtime))
           for _, u in sorted(pins.upstream.items())]
    courses = []
    for _, c in sorted(pins.course.items()):
        co = project.known_checkout(c.name)
        courses.append(PinnedCourse(
            name=c.name, path=c.path, git=c.repo, commit=c.commit, docs=c.docs,
            upstreams=list(c.upstreams),
            read_from=None if co is None else ("commit" if co.full_tree else "local"),
            partial=bool(co is not None and co.partial)))
    return PinsInfo(file=pins.path.name if pins.path else "pins.toml",
                    sha256=file_sha256(pins.path),
                    upstreams=ups, courses=courses)


def _lock_info(project: "Project") -> LockInfo:
    lp = project.lock_path
    ups = []
    for name, entry in sorted(project.lock.upstream.items()):
        pin = project.pins.upstream.get(name)
        ups.append(LockedInfo(name=name, commit=entry.commit,
                              matches_pin=bool(pin and pin.commit == entry.commit),
                              files=len(entry.files), source=list(entry.source)))
    return LockInfo(file=lp.name, present=lp.exists(), sha256=file_sha256(lp), upstreams=ups)


def _stable_runtime(c: ClaimResult) -> ClaimResult:
    """The claim without its runtime duration and snippet output (those go to run.json)."""
    rt = c.runtime
    if rt is None or all(getattr(rt, k) is None for k in _RUNTIME_VOLATILE):
        return c
    return c.model_copy(update={"runtime": rt.model_copy(
        update={k: None for k in _RUNTIME_VOLATILE})})


def _stable_sampling(sampling: dict | None) -> dict | None:
    if sampling is None:
        return None
    out = dict(sampling)
    if "environments" in out:
        out["environments"] = [{k: v for k, v in env.items() if k not in _ENV_TIMINGS}
                               for env in out["environments"]]
    return out


def _unique_course(lessons) -> dict[str, str]:
    """lesson path -> course, for paths only one course has (to fill a missing course)."""
    seen: dict[str, set[str]] = {}
    for d in lessons:
        seen.setdefault(d.path, set()).add(d.course)
    return {p: next(iter(cs)) for p, cs in seen.items() if len(cs) == 1}


def _with_course(r, course_of: dict[str, str]):
    path = r.lesson if isinstance(r, ClaimResult) else r.path
    if r.course is None and path in course_of:
        return r.model_copy(update={"course": course_of[path]})
    return r


_MD_LINK = re.compile(r"\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))+\)")


def _lesson_sentence(text: str, line: int | None, fragment: str | None,
                     lines: list[str] | None = None) -> tuple[str | None, int | None]:
    """The lesson line holding the claim (the fragment's line if the given line lacks it).
    `lines`: `text.splitlines()`, split once for the lesson's claims."""
    lines = text.splitlines() if lines is None else lines
    at = line
    if fragment and (at is None or not (1 <= at <= len(lines)) or fragment not in lines[at - 1]):
        hits = [i + 1 for i, s in enumerate(lines) if fragment in s]
        if hits:
            at = min(hits, key=lambda i: abs(i - (line or 0)))
    if at is None or not (1 <= at <= len(lines)):
        return None, None
    s = _MD_LINK.sub(r"\1", lines[at - 1]).strip()
    if len(s) > MAX_SENTENCE_CHARS:
        pos = s.find(fragment) if fragment else -1
        start = max(0, pos - MAX_SENTENCE_CHARS // 2) if pos >= 0 else 0
        s = ("…" if start else "") + s[start:start + MAX_SENTENCE_CHARS] + "…"
    return s, at


def _snippet(project: "Project", c: ClaimResult, lines_of: dict[str, list[str]] | None = None
             ) -> tuple[str | None, int | None, str | None, str]:
    """(snippet, first line, status, note): source only at pinned/release identity.
    `lines_of`: the files' lines by blob, split once per run (claims share files)."""
    ev = c.evidence
    if ev is None:
        return None, None, None, "no evidence location (source unavailable at pinned identity)"
    if ev.status not in ("pinned", "release") or not ev.blob:
        return None, None, ev.status, "source unavailable at pinned identity"
    if c.upstream not in project.pins.upstream:
        return None, None, ev.status, f"upstream {c.upstream!r} is not in pins.toml"
    sf = project.sources.resolve(c.upstream, ev.path)
    if not sf.status.usable or sf.blob != ev.blob:
        return None, None, sf.status.value, "source unavailable at pinned identity"
    lines = (lines_of or {}).get(sf.blob)
    if lines is None:
        data = project.sources.read(sf)
        if data is None:
            return None, None, sf.status.value, "source unavailable at pinned identity"
        lines = source_lines(data.decode("utf-8", errors="replace"))
        if lines_of is not None:
            lines_of[sf.blob] = lines
    if not ev.lines:
        return None, None, sf.status.value, "no line range in the evidence"
    start, end = ev.lines
    end = end or start
    if not (1 <= start <= len(lines)):
        return None, None, sf.status.value, f"lines {start}-{end} outside the file"
    end = min(max(end, start), len(lines), start + MAX_SNIPPET_LINES - 1)
    return "\n".join(lines[start - 1:end]), start, sf.status.value, ""


def _default_not_run(findings, claims, sampling, given: list[NotRun]) -> list[NotRun]:
    stages = {n.stage for n in given}
    out = []
    if findings is None and "lint" not in stages:
        out.append(NotRun(stage="lint", what="lesson lint", why="not run in this invocation"))
    if claims is None and "check" not in stages:
        out.append(NotRun(stage="check", what="static claim check",
                          why="not run in this invocation"))
    ran_runtime = any(c.runtime is not None for c in claims or [])
    if sampling is None and not ran_runtime and "runtime" not in stages:
        out.append(NotRun(stage="runtime", what="runtime confirmation",
                          why="not requested in this invocation"))
    return out


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def identity_notes(project: "Project") -> list[Note]:
    """The source layer's warnings (identity weakened, cache entries lost), in its order.
    Its `info` notices (provider failures worked around, repairs) depend on the network
    and the cache's history, so they stay out of the record (run.json, stderr)."""
    if project._layer is None:
        return []
    return [Note(topic="identity", severity="warning", code=n.code, upstream=n.upstream,
                 text=n.message, paths=list(n.paths))
            for n in project.sources.notices() if n.severity == "warning"]


def source_notes(sources: list[SourceIdentity]) -> list[Note]:
    """Once per upstream, in stable wording: what was not at pinned identity, and why."""
    notes: list[Note] = []
    by_up: dict[str, list[SourceIdentity]] = defaultdict(list)
    for s in sources:
        by_up[s.upstream].append(s)
    for up, files in sorted(by_up.items()):
        c = Counter(s.status for s in files)
        total = len(files)
        if c.get("unavailable"):
            notes.append(Note(topic="sources", upstream=up, text=(
                f"{c['unavailable']} of {_plural(total, 'file', 'files')} used "
                f"{'is' if c['unavailable'] == 1 else 'are'} unavailable at pinned identity: no "
                "configured provider serves the pinned blob, so nothing was checked against "
                "them (`verifier sources --status unavailable` lists them; the providers' "
                "messages of a run are in its run.json)")))
        if c.get("mismatch"):
            notes.append(Note(topic="sources", upstream=up, text=(
                f"{c['mismatch']} of {_plural(total, 'file', 'files')} used "
                f"{'has' if c['mismatch'] == 1 else 'have'} another blob at a provider than the "
                "pin: not served (each source entry names the provider and both blobs)")))
        if c.get("release"):
            notes.append(Note(topic="identity", upstream=up, text=(
                f"{c['release']} of {_plural(total, 'file', 'files')} used came from the pinned "
                "release's wheel; their pin blob is not known (pins.lock has no entry and no "
                "git tree at the pin was reachable): weaker identity")))
        if any(s.identity == "lock" for s in files) and not any(
                s.identity == "git-tree" for s in files):
            notes.append(Note(topic="identity", upstream=up, text=(
                "pin blobs come from pins.lock: the git tree at the pinned commit was not "
                "reachable through any provider")))
    return notes


def build_report(project: "Project", *, lessons: "list[LessonDoc]",
                 findings: list[Finding] | None, claims: list[ClaimResult] | None,
                 sampling: dict | None = None, not_run: list[NotRun | dict] | None = None,
                 crashes: list[Crash] | None = None, timestamp: str | None = None,
                 excerpts: bool = True) -> RunReport:
    """Everything a run used and found, as a deterministic RunReport.

    `findings`/`claims` None means that stage did not run (recorded in `not_run`);
    an empty list means it ran and found nothing. The files a run used are the ones
    its claims read, and (when lint ran) the ones its lessons cite."""
    given = [n if isinstance(n, NotRun) else NotRun.model_validate(n) for n in not_run or []]
    nr = sorted(set(given + _default_not_run(findings, claims, sampling, given)),
                key=lambda n: (n.stage, n.what, n.why))

    lesson_list = sorted(lessons, key=lambda d: (d.course, d.path))
    course_of = _unique_course(lesson_list)
    cl = sorted((_with_course(_stable_runtime(c), course_of) for c in (claims or [])),
                key=claim_sort_key)
    fs = sorted((_with_course(f, course_of) for f in findings or []), key=finding_sort_key)

    cited_by: dict[tuple[str, str], list[str]] = {}
    for doc in lesson_list:
        cited_by[(doc.course, doc.path)] = [f"{u}:{p}" for u, p in project.cited_files([doc])]
    used: set[tuple[str, str]] = set()
    if findings is not None:
        used = {tuple(k.split(":", 1)) for v in cited_by.values() for k in v}
    for c in cl:
        if c.evidence is not None and c.upstream in project.pins.upstream:
            used.add((c.upstream, c.evidence.path))
    resolved = project.sources.resolve_many(sorted(used)) if used else []
    sources = sorted((SourceIdentity(upstream=sf.upstream, path=sf.path, status=sf.status.value,
                                     blob=sf.blob, expected_blob=sf.expected_blob,
                                     identity=sf.identity, provider=sf.provider,
                                     detail=sf.reason) for sf in resolved),
                     key=lambda s: (s.upstream, s.path))

    verdicts: dict[tuple[str, str], Counter] = {}
    severities: dict[tuple[str, str], Counter] = {}
    for c in cl:
        verdicts.setdefault(claim_lesson_key(c), Counter())[c.verdict.value] += 1
    for f in fs:
        severities.setdefault(finding_lesson_key(f), Counter())[f.severity.value] += 1
    lesson_recs = []
    for doc in lesson_list:
        key = (doc.course, doc.path)
        vc, fc = verdicts.get(key, Counter()), severities.get(key, Counter())
        lesson_recs.append(LessonRecord(
            course=doc.course, path=doc.path,
            sha256=file_sha256(doc.file) or hashlib.sha256(doc.text.encode()).hexdigest(),
            upstreams=list(doc.upstreams), cited=cited_by[key],
            verdicts=dict(sorted(vc.items())), findings=dict(sorted(fc.items()))))

    internal = sorted({InternalError(stage=c.stage, what=c.what, course=c.course,
                                     lesson=c.lesson, error=c.error) for c in crashes or []},
                      key=lambda e: (e.stage, e.course or "", e.lesson or "", e.what, e.error))
    rt = Counter(c.runtime.status for c in cl if c.runtime is not None)
    code, reasons = exit_status(cl, fs, sources, internal)
    summary = Summary(
        lessons=len(lesson_recs), claims=len(cl),
        verdicts={v.value: sum(1 for c in cl if c.verdict is v and not c.draft) for v in Verdict},
        drafts=draft_counts(cl) if any(c.draft for c in cl) else {},
        findings={s.value: sum(1 for f in fs if f.severity is s) for s in Severity},
        sources=dict(sorted(Counter(s.status for s in sources).items())),
        exit_code=int(code), reasons=reasons)

    shown: dict[str, Excerpt] = {}
    if excerpts:
        texts = {(d.course, d.path): d.text for d in lesson_list}
        lines_of: dict[str, list[str]] = {}
        lesson_lines: dict[tuple[str, str], list[str]] = {}
        for c in cl:
            key = claim_lesson_key(c)
            text = texts.get(key)
            if text and key not in lesson_lines:
                lesson_lines[key] = text.splitlines()
            sentence, at = (_lesson_sentence(text, c.line, c.fragment, lesson_lines[key])
                            if text else (None, None))
            snip, start, status, note = _snippet(project, c, lines_of)
            shown[claim_gid(c)] = Excerpt(
                sentence=sentence, sentence_line=at, snippet=snip, snippet_start=start,
                snippet_status=status, snippet_note=note or None)

    return RunReport(
        tool=ToolInfo(version=__version__), timestamp=timestamp,
        pins=_pins_info(project), lock=_lock_info(project), lessons=lesson_recs,
        sources=sources, claims=cl, findings=fs,
        runtime=RuntimeInfo(ran=sum(rt.values()), statuses=dict(sorted(rt.items())),
                            sampling=_stable_sampling(sampling)),
        notes=source_notes(sources) + identity_notes(project), internal_errors=internal,
        not_run=nr,
        excerpts=dict(sorted(shown.items())), summary=summary)


def build_details(project: "Project", claims: list[ClaimResult] | None,
                  sampling: dict | None) -> RunDetails:
    """What this run did that another run of the same inputs may not repeat exactly."""
    envs = []
    for env in (sampling or {}).get("environments", []):
        if any(k in env for k in _ENV_TIMINGS):
            envs.append(EnvironmentTiming(upstream=env.get("upstream", "?"),
                                          import_s=env.get("import_s"),
                                          wall_s=env.get("wall_s"),
                                          isolation=env.get("isolation")))
    checks: dict[str, CheckTiming] = {}
    for c in claims or []:
        rt = c.runtime
        if rt is not None and any(getattr(rt, k) is not None for k in _RUNTIME_VOLATILE):
            checks[claim_gid(c)] = CheckTiming(duration_s=rt.duration_s, stdout=rt.stdout,
                                               stderr=rt.stderr)
    messages: dict[str, Any] = {u: m for u, m in project.sources.notes().items() if m}
    return RunDetails(provider_messages=messages,
                      environments=sorted(envs, key=lambda e: e.upstream),
                      checks=dict(sorted(checks.items())))
