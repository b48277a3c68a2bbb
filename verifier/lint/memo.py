"""Memoised lint findings: a lesson is linted again only when something its rules
read has changed (the idea of ruff's cache, with recorded dependencies, because lint
findings depend on more than the lesson's text).

An entry is stored in the fact cache (`facts/lint/`, signed plain data) keyed by the
blob of the lesson's text, the code version of `verifier.lint` (the import closure of
every rule) and a query: the lesson's course, path and name, the bytes of lint.toml,
pins.toml and pins.lock, and whether the course copy is partial or acquired at its
commit. The value is the lesson's findings after suppressions and folding, the
lint.toml suppressions they used, the files the lesson cites (for the record, so that
a hit reads nothing of the lesson but its text), and the dependencies recorded while
the rules ran:

- the *course view*: for each relative link, what the course directory holds there
  (whether the target exists, where it resolves, the identity and modification time
  of its directory when it is missing, the bytes of a linked `.py` example);
- every file the rules resolved or read, as (upstream, path, blob, status, provider,
  presence, reason, suggestions) at the time;
- every path-presence answer, every `known_paths` listing and pin tree (by digest);
- every symbol index a rule asked for, by identity (the served paths and blobs it was
  built from, `facts/symbols.build_index`) and the identity of its pinned release
  surface (wheels, environment, script: `facts/release.release_identity`).

A hit is used only if every dependency still answers exactly as recorded. Lint rules
reach the course directory only through a lesson's relative links; the rules that do
(`relative_link.py`, `_names.py`) are listed in `COURSE_READERS`, and
`tests/lint/test_memo.py` fails when another rule module touches the filesystem, so a
new reader cannot escape the course view unnoticed.

Like claim outcomes, memoised findings are audited (`verifier/facts/audit.py`: a
sample of hits is linted again and compared; unlike claims, the first hit is not
always audited, or a one-lesson lint could never use the memo); one mismatch drops
the whole `lint` section, refuses hits for the rest of the run and is named in the
run's notes. A lesson whose lint crashed is never memoised. `VERIFIER_FACT_CACHE=0`
turns the memo off with the rest of the fact cache.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from verifier.codeversion import code_version
from verifier.facts.audit import audit_state
from verifier.facts.cache import fact_cache, round_trip
from verifier.fileio import file_sha256, real_path
from verifier.results import Finding
from verifier.sources.recording import Recorder, answers_same
from verifier.sources.recording import digest as _digest
from verifier.sources.recording import recording as record_sources

if TYPE_CHECKING:
    from verifier.lint.base import LintContext
    from verifier.project import LessonDoc

EXTRACTOR = "lint"
COURSE_READERS = ("relative_link.py", "_names.py")   # rule modules that read course files


@contextlib.contextmanager
def recording(ctx: "LintContext"):
    """Record, while the block runs, what the lint rules ask the source layer
    (`verifier/sources/recording.py`) and which symbol indexes they open. Building an
    index is not recorded (its identity is)."""
    with record_sources(ctx.project.sources) as rec:
        ctx.recorder = rec
        try:
            yield rec
        finally:
            ctx.recorder = None


def _still(memo: "Memo", doc: "LessonDoc", deps: dict) -> bool:
    """Every recorded dependency answers as it did."""
    view = deps["view"]
    if _course_view(doc, [e[0] for e in view], memo.dirs) != view:
        return False
    if not answers_same(memo.ctx.project.sources, deps):
        return False
    return all(memo.index_identity(u) == fp for u, fp in deps["indexes"])


def _relative_hrefs(links) -> list[str]:
    """The hrefs of the lesson's links into the course directory (relative links)."""
    out = []
    for link in links:
        href = link.href.strip()
        sp = urlsplit(href)
        if sp.scheme or sp.netloc or not sp.path or href.startswith(("#", "/", "mailto:")):
            continue
        out.append(href)
    return out


def _course_view(doc: "LessonDoc", hrefs: list[str], dirs: dict | None = None) -> list:
    """What the course directory holds where the lesson's relative links point (all
    that the course-reading rules look at, and more): per link the target's real
    path, whether it exists and is a file, the bytes of a linked `.py` example, and for
    a missing target its directory's identity and modification time (what a dead-link
    rule's "did you mean" reads, without listing it). `dirs` memoises the real paths
    and states of directories across the lessons of a run."""
    dirs = {} if dirs is None else dirs
    parts = PurePosixPath(doc.path).parts
    root = doc.file.absolute()
    for _ in parts:
        root = root.parent
    here = PurePosixPath(doc.path).parent
    out = []
    for href in hrefs:
        f = os.path.normpath(os.path.join(root, *here.parts, unquote(urlsplit(href).path)))
        entry: list = [href, real_path(f, dirs.setdefault("real", {})), os.path.lexists(f),
                       os.path.isfile(f)]
        if not os.path.exists(f):
            entry.append(_dir_state(os.path.dirname(f), dirs.setdefault("state", {})))
        elif f.endswith(".py") and os.path.isfile(f):
            entry.append(file_sha256(Path(f)))
        out.append(entry)
    return out


def _dir_state(d: str, states: dict) -> list | None:
    """A directory's identity and modification time (None: no directory), once per run."""
    if d not in states:
        try:
            st = os.stat(d)
            states[d] = [st.st_ino, st.st_mtime_ns] if os.path.isdir(d) else None
        except OSError:
            states[d] = None
    return states[d]


@dataclass
class Memo:
    """The lint memo of one run."""

    ctx: "LintContext"
    enabled: bool = False
    version: str = ""
    base: dict | None = None                     # the query's parts shared by every lesson
    identities: dict[str, list] = field(default_factory=dict)   # upstream -> index identity
    dirs: dict[str, Any] = field(default_factory=dict)   # course view: real paths, states

    @classmethod
    def of(cls, ctx: "LintContext") -> "Memo":
        fc = fact_cache(ctx.project.store)
        if fc.notify is None:
            fc.notify = ctx.project.notify
        on = fc.enabled
        return cls(ctx, enabled=on, version=code_version("verifier.lint", __name__) if on else "")

    def _key(self, doc) -> tuple[str, dict]:
        ctx = self.ctx
        project = ctx.project
        if self.base is None:
            self.base = {"config": _digest(ctx.config.text or ""),
                         "pins": file_sha256(project.pins.path),
                         "lock": file_sha256(project.lock_path)}
        co = ctx.course_checkout(doc.course)
        return doc.blob, {
            **self.base, "course": doc.course, "path": doc.path, "name": doc.name,
            "partial": ctx.course_partial(doc.course),
            "checkout": [co.kind, co.commit, co.paths is not None] if co is not None else None}

    def index_identity(self, upstream: str) -> list:
        """The identity of the upstream's symbol index and of its release surface (once
        per run)."""
        if upstream not in self.identities:
            from verifier.facts.release import release_identity

            idx = self.ctx.index(upstream)
            self.identities[upstream] = [idx.identity, release_identity(self.ctx.project,
                                                                        upstream)]
        return self.identities[upstream]

    def expect(self, lessons: int) -> None:
        """This run lints `lessons` lessons: the audit's budget (facts/audit.py)."""
        if self.enabled:
            audit_state(fact_cache(self.ctx.project.store), EXTRACTOR, first=False
                        ).expect(lessons)

    def lint(self, doc, compute) -> tuple[list[Finding], list[int]]:
        """`compute()` -> (findings, lint.toml suppressions used, crashed), memoised."""
        if not self.enabled:
            found, used, _ = compute()
            return found, used
        fc = fact_cache(self.ctx.project.store)
        state = audit_state(fc, EXTRACTOR, first=False)
        blob, query = self._key(doc)
        at = fc.locate(EXTRACTOR, self.version, blob, query)
        hit = None if state.distrusted else fc.get(EXTRACTOR, self.version, blob, query, at=at)
        if isinstance(hit, dict) and isinstance(hit.get("deps"), dict):
            try:
                current = _still(self, doc, hit["deps"])
            except (KeyError, TypeError, ValueError):
                current = False                # an entry of another shape: a miss
            if current:
                if state.sampled(os.path.basename(at[0])):
                    fc.stats.audited += 1
                    found, used, crashed = compute()
                    if crashed or round_trip(_plain(found, used)) != hit["value"]:
                        self._distrust(fc, doc)
                    return found, used
                self.ctx.project.remember_cited(blob, hit["cited"])
                return _findings(hit["value"])
            fc.stats.stale += 1
        with recording(self.ctx) as rec:
            found, used, crashed = compute()
        if not crashed:
            links = self.ctx.project.links(doc)      # also notes the files it cites
            deps = self._deps(rec)
            deps["view"] = _course_view(doc, _relative_hrefs(links), self.dirs)
            try:
                fc.put(EXTRACTOR, self.version, blob,
                       {"value": _plain(found, used), "deps": deps,
                        "cited": self.ctx.project.cited_by(doc)}, query)
            except TypeError:
                pass       # a finding whose data is not plain: simply not memoised
        return found, used

    def _deps(self, rec: Recorder) -> dict:
        deps = rec.plain()
        deps["indexes"] = [[u, self.index_identity(u)] for u in deps["indexes"]]
        return deps

    def _distrust(self, fc, doc) -> None:
        audit_state(fc, EXTRACTOR, first=False).distrusted = True
        n = fc.drop(EXTRACTOR)
        fc.note(f"memoised lint findings of {doc.course}/{doc.path} did not match a fresh "
                f"lint: all {n} memoised lessons were dropped and every lesson is linted "
                "again in this run")


def _plain(found: list[Finding], used: list[int]) -> dict:
    return {"findings": [f.model_dump(mode="json") for f in found], "used": list(used)}


def _findings(value: dict) -> tuple[list[Finding], list[int]]:
    return [Finding(**d) for d in value["findings"]], list(value["used"])
