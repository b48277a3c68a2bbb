"""The verification record: one run's results as a versioned, deterministic model.

`build_report` gathers what a run used and found -- tool version, pins and lock,
the identity of every upstream file used, the sha256 of each lesson, every
claim's verdict with evidence, runtime results, lint findings, and what was not
run and why -- into a `RunReport`. Reporters (`verifier.reporters`) render it.

Determinism: lists are sorted by stable keys, the JSON record uses sorted keys,
and nothing time-dependent (timestamps, runtime durations) is recorded unless a
timestamp is given. `verifier schema` prints `RunReport`'s JSON Schema.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from verifier.textlines import source_lines
from verifier import __version__
from verifier.exitcodes import ExitCode
from verifier.results import ClaimResult, Finding, Severity, Verdict

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project

SCHEMA_VERSION = 1
MAX_SNIPPET_LINES = 60
MAX_SENTENCE_CHARS = 600


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolInfo(_M):
    name: Literal["verifier"] = "verifier"
    version: str


class PinnedUpstream(_M):
    name: str
    repo: str
    commit: str
    version: str
    tag: str | None = None
    also: list[str] = Field(default_factory=list)
    wheels: list[str] = Field(default_factory=list, description="pinned wheel requirements")
    runtime: list[str] = Field(default_factory=list)


class PinnedCourse(_M):
    name: str
    path: str | None = None
    git: str | None = Field(default=None, description="the course repository (pins.toml `repo`)")
    commit: str | None = None
    docs: str
    upstreams: list[str]
    read_from: Literal["commit", "local"] | None = Field(
        default=None, description="how this run read the lessons: the repository at `commit` "
        "(full tree known) or a local checkout / copy; none when no lesson was read")
    partial: bool = Field(default=False, description="the local copy holds only some of the "
                          "repository's files")


class PinsInfo(_M):
    file: str = Field(description="pins file name, relative to its directory")
    sha256: str | None
    upstreams: list[PinnedUpstream]
    courses: list[PinnedCourse]


class LockedInfo(_M):
    name: str
    commit: str
    matches_pin: bool = Field(description="the lock is for the commit pins.toml pins")
    files: int
    source: list[str] = Field(default_factory=list)


class LockInfo(_M):
    file: str
    present: bool
    sha256: str | None
    upstreams: list[LockedInfo]


class SourceIdentity(_M):
    """Identity of one upstream file the run used (cited by a lesson or read by a claim)."""

    upstream: str
    path: str
    status: str = Field(description="pinned | release | mismatch | unavailable")
    blob: str | None = Field(default=None, description="git blob SHA of what was served")
    expected_blob: str | None = Field(default=None, description="the pin's blob, when known")
    identity: str | None = Field(default=None, description="where expected_blob came from")
    provider: str | None = None
    detail: str = ""


class LessonRecord(_M):
    course: str
    path: str = Field(description="path inside the course repository")
    sha256: str
    upstreams: list[str]
    cited: list[str] = Field(default_factory=list, description="'upstream:path' it links")
    verdicts: dict[str, int] = Field(default_factory=dict)
    findings: dict[str, int] = Field(default_factory=dict)


class NotRun(_M):
    stage: str = Field(description="lint | check | runtime | ...")
    what: str
    why: str


class RuntimeInfo(_M):
    ran: int = Field(description="claims with a runtime result")
    statuses: dict[str, int] = Field(default_factory=dict)
    sampling: dict[str, Any] | None = None


class Summary(_M):
    lessons: int
    claims: int
    verdicts: dict[str, int] = Field(description="reviewed claims by verdict (drafts apart)")
    drafts: dict[str, int] = Field(default_factory=dict,
                                   description="draft claims (review = \"draft\") by verdict; "
                                               "a verified draft is unreviewed, not verified")
    findings: dict[str, int]
    sources: dict[str, int]
    exit_code: int
    reasons: list[str] = Field(default_factory=list, description="why exit_code is not 0")


class Excerpt(_M):
    """What the HTML report shows beside a claim: the lesson line holding it and the
    pinned source at its evidence lines (only at pinned or release identity)."""

    sentence: str | None = None          # the lesson line(s) holding the claim
    sentence_line: int | None = None
    snippet: str | None = None           # the source at the evidence lines, pinned/release only
    snippet_start: int | None = None
    snippet_status: str | None = None
    snippet_note: str | None = None      # why there is no snippet


class RunReport(_M):
    """One verification run (the JSON verification record)."""

    model_config = ConfigDict(extra="forbid", frozen=True,
                              json_schema_extra={"title": "verifier verification record"})

    schema_version: Literal[1] = SCHEMA_VERSION
    tool: ToolInfo
    timestamp: str | None = Field(default=None, description="only when asked for (--timestamp)")
    pins: PinsInfo
    lock: LockInfo
    lessons: list[LessonRecord]
    sources: list[SourceIdentity]
    claims: list[ClaimResult] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    runtime: RuntimeInfo
    not_run: list[NotRun] = Field(default_factory=list)
    summary: Summary
    excerpts: dict[str, Excerpt] = Field(
        default_factory=dict, description="per claim (global id): the lesson sentence and the "
        "pinned source lines beside it, so the HTML report can be rendered from this record")

    def lesson_claims(self, lesson: LessonRecord) -> list[ClaimResult]:
        return [c for c in self.claims if claim_lesson_key(c) == (lesson.course, lesson.path)]

    def lesson_findings(self, lesson: LessonRecord) -> list[Finding]:
        return [f for f in self.findings if finding_lesson_key(f) == (lesson.course, lesson.path)]

    def orphan_claims(self) -> list[ClaimResult]:
        """Claims about a lesson that is not part of this run's lessons."""
        keys = {(les.course, les.path) for les in self.lessons}
        return [c for c in self.claims if claim_lesson_key(c) not in keys]

    def orphan_findings(self) -> list[Finding]:
        keys = {(les.course, les.path) for les in self.lessons}
        return [f for f in self.findings if finding_lesson_key(f) not in keys]


# --------------------------------------------------------------------------- keys and codes

VERDICT_ORDER = {Verdict.DIVERGED: 0, Verdict.STALE: 1, Verdict.ERROR: 2,
                 Verdict.UNAVAILABLE: 3, Verdict.VERIFIED: 4}
SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
FAILING = (Verdict.DIVERGED, Verdict.STALE, Verdict.ERROR)


def claim_gid(c: ClaimResult) -> str:
    """A run-unique id: the claim id as given, qualified by course and lesson if bare."""
    if "/" in c.id:
        return c.id
    stem = c.lesson.rsplit("/", 1)[-1].removesuffix(".md")
    return f"{c.course or '-'}/{stem}/{c.id}"


def claim_lesson_key(c: ClaimResult) -> tuple[str, str]:
    return (c.course or "", c.lesson)


def finding_lesson_key(f: Finding) -> tuple[str, str]:
    return (f.course or "", f.path)


def claim_sort_key(c: ClaimResult) -> tuple:
    return (c.course or "", c.lesson, c.line if c.line is not None else 0, c.id, c.kind)


def finding_sort_key(f: Finding) -> tuple:
    return (f.course or "", f.path, f.line, f.code, f.rule, f.target or "", f.message)


def exit_code_for(report: RunReport) -> int:
    """0 clean; 1 divergence, stale claim, claim error, lint error or source mismatch."""
    return int(_exit(report.claims, report.findings, report.sources)[0])


def _exit(claims: list[ClaimResult], findings: list[Finding],
          sources: list[SourceIdentity]) -> tuple[ExitCode, list[str]]:
    reasons = []
    vc = Counter(c.verdict for c in claims)
    for v in FAILING:
        if vc.get(v):
            reasons.append(f"{vc[v]} claim(s) {v.value}")
    lint_errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    if lint_errors:
        reasons.append(f"{lint_errors} lint error(s)")
    mism = sum(1 for s in sources if s.status == "mismatch")
    if mism:
        reasons.append(f"{mism} source file(s) mismatch the pin")
    return (ExitCode.FINDINGS if reasons else ExitCode.OK), reasons


# --------------------------------------------------------------------------- builder

def _sha256_file(path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


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
                    sha256=_sha256_file(pins.path) if pins.path else None,
                    upstreams=ups, courses=courses)


def _lock_info(project: "Project") -> LockInfo:
    lp = project.lock_path
    ups = []
    for name, entry in sorted(project.lock.upstream.items()):
        pin = project.pins.upstream.get(name)
        ups.append(LockedInfo(name=name, commit=entry.commit,
                              matches_pin=bool(pin and pin.commit == entry.commit),
                              files=len(entry.files), source=list(entry.source)))
    return LockInfo(file=lp.name, present=lp.exists(), sha256=_sha256_file(lp), upstreams=ups)


def _strip_timing(c: ClaimResult) -> ClaimResult:
    if c.runtime is not None and c.runtime.duration_s is not None:
        return c.model_copy(update={"runtime": c.runtime.model_copy(update={"duration_s": None})})
    return c


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


def _lesson_sentence(text: str, line: int | None, fragment: str | None) -> tuple[str | None, int | None]:
    """The lesson line holding the claim (the fragment's line if the given line lacks it)."""
    lines = text.splitlines()
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


def _snippet(project: "Project", c: ClaimResult) -> tuple[str | None, int | None, str | None, str]:
    """(snippet, first line, status, note): source only at pinned/release identity."""
    ev = c.evidence
    if ev is None:
        return None, None, None, "no evidence location (source unavailable at pinned identity)"
    if ev.status not in ("pinned", "release") or not ev.blob:
        return None, None, ev.status, "source unavailable at pinned identity"
    try:
        sf = project.sources.resolve(c.upstream, ev.path)
    except Exception as exc:  # noqa: BLE001 - an unknown upstream in a result: say so
        return None, None, ev.status, f"source unavailable at pinned identity ({exc})"
    if not sf.status.usable or sf.blob != ev.blob:
        return None, None, sf.status.value, "source unavailable at pinned identity"
    data = project.sources.read(sf)
    if data is None:
        return None, None, sf.status.value, "source unavailable at pinned identity"
    lines = source_lines(data.decode("utf-8", errors="replace"))
    if ev.lines:
        start, end = ev.lines
        end = end or start
    else:
        return None, None, sf.status.value, "no line range in the evidence"
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


def build_report(project: "Project", *, lessons: "list[LessonDoc]",
                 findings: list[Finding] | None, claims: list[ClaimResult] | None,
                 sampling: dict | None = None, not_run: list[dict] | None = None,
                 timestamp: str | None = None, excerpts: bool = True) -> RunReport:
    """Everything a run used and found, as a deterministic RunReport.

    `findings`/`claims` None means that stage did not run (recorded in `not_run`);
    an empty list means it ran and found nothing. Runtime durations are dropped
    unless `timestamp` is given (they differ between otherwise identical runs)."""
    given = [NotRun.model_validate({"stage": d.get("stage", "other"), "what": d.get("what", ""),
                                    "why": d.get("why", "")}) for d in (not_run or [])]
    nr = given + _default_not_run(findings, claims, sampling, given)
    nr = sorted(set(nr), key=lambda n: (n.stage, n.what, n.why))

    lesson_list = sorted(lessons, key=lambda d: (d.course, d.path))
    course_of = _unique_course(lesson_list)
    cl = sorted((_with_course(c if timestamp else _strip_timing(c), course_of)
                 for c in (claims or [])), key=claim_sort_key)
    fs = sorted((_with_course(f, course_of) for f in findings or []), key=finding_sort_key)

    # Every source file used: cited by a lesson, or read by a claim.
    cited_by: dict[tuple[str, str], list[str]] = {}
    for doc in lesson_list:
        cited_by[(doc.course, doc.path)] = [f"{u}:{p}" for u, p in project.cited_files([doc])]
    used: set[tuple[str, str]] = {tuple(k.split(":", 1)) for v in cited_by.values() for k in v}
    for c in cl:
        if c.evidence is not None and c.upstream in project.pins.upstream:
            used.add((c.upstream, c.evidence.path))
    resolved = project.sources.resolve_many(sorted(used)) if used else []
    sources = sorted((SourceIdentity(upstream=sf.upstream, path=sf.path, status=sf.status.value,
                                     blob=sf.blob, expected_blob=sf.expected_blob,
                                     identity=sf.identity, provider=sf.provider,
                                     detail=sf.detail) for sf in resolved),
                     key=lambda s: (s.upstream, s.path))

    lesson_recs = []
    for doc in lesson_list:
        key = (doc.course, doc.path)
        vc = Counter(c.verdict.value for c in cl if claim_lesson_key(c) == key)
        fc = Counter(f.severity.value for f in fs if finding_lesson_key(f) == key)
        lesson_recs.append(LessonRecord(
            course=doc.course, path=doc.path,
            sha256=_sha256_file(doc.file) or hashlib.sha256(doc.text.encode()).hexdigest(),
            upstreams=list(doc.upstreams), cited=cited_by[key],
            verdicts=dict(sorted(vc.items())), findings=dict(sorted(fc.items()))))

    rt = Counter(c.runtime.status for c in cl if c.runtime is not None)
    code, reasons = _exit(cl, fs, sources)
    summary = Summary(
        lessons=len(lesson_recs), claims=len(cl),
        verdicts={v.value: sum(1 for c in cl if c.verdict is v and not c.draft) for v in Verdict},
        drafts=({"total": sum(1 for c in cl if c.draft)}
                | {v.value: sum(1 for c in cl if c.verdict is v and c.draft) for v in Verdict}
                if any(c.draft for c in cl) else {}),
        findings={s.value: sum(1 for f in fs if f.severity is s) for s in Severity},
        sources=dict(sorted(Counter(s.status for s in sources).items())),
        exit_code=int(code), reasons=reasons)

    shown: dict[str, Excerpt] = {}
    if excerpts:
        texts = {(d.course, d.path): d.text for d in lesson_list}
        for c in cl:
            text = texts.get(claim_lesson_key(c))
            sentence, at = _lesson_sentence(text, c.line, c.fragment) if text else (None, None)
            snip, start, status, note = _snippet(project, c)
            shown[claim_gid(c)] = Excerpt(
                sentence=sentence, sentence_line=at, snippet=snip, snippet_start=start,
                snippet_status=status, snippet_note=note or None)

    return RunReport(
        tool=ToolInfo(version=__version__), timestamp=timestamp,
        pins=_pins_info(project), lock=_lock_info(project), lessons=lesson_recs,
        sources=sources, claims=cl, findings=fs,
        runtime=RuntimeInfo(ran=sum(rt.values()), statuses=dict(sorted(rt.items())),
                            sampling=sampling),
        not_run=nr, summary=summary, excerpts=dict(sorted(shown.items())))


def report_schema() -> dict:
    """JSON Schema (draft 2020-12) of the JSON verification record."""
    schema = RunReport.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$comment"] = (f"verifier {__version__}; record schema_version {SCHEMA_VERSION}. "
                          "Generated from verifier.report.RunReport (`verifier schema`).")
    return schema


_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    return _SAFE.sub("-", text).strip("-") or "x"
