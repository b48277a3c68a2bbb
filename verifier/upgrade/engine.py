"""`verifier upgrade UPSTREAM --to REF`: what breaks when one pin moves.

The old side is the project as pinned; the new side is an in-memory project
whose pins point at the new version (see target.py). Every comparison reads
the old file from the old side and the new file from the new side, each at its
own identity; a file that either side cannot serve is reported `unavailable`,
never compared with another version."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from verifier.errors import AcquisitionError, UsageError
from verifier.lessons import github_links
from verifier.permalinks import GitHubLink
from verifier.pins import Upstream, dump_lock
from verifier.project import LessonDoc, Project
from verifier.sources.gitstore import PartialClone
from verifier.sources.models import SourceFile
from verifier.sources.wheel import WheelSource
from verifier.upgrade import claims as claims_mod
from verifier.upgrade import write as writer
from verifier.upgrade.fingerprint import fingerprint, split_lines
from verifier.upgrade.linemap import LineMap, from_alignment, from_git_diff
from verifier.upgrade.model import (CODES, FileChange, LessonUpgrade, LinkChange, LinkStatus,
                                    UpgradeReport, VersionIdentity, Written)
from verifier.upgrade.relocate import Relocation, relocate
from verifier.upgrade.renames import git_renames, similar_file
from verifier.upgrade.target import Target, resolve_target


@dataclass
class _Cited:
    lesson: LessonDoc
    line: int
    link: GitHubLink


def _lesson_links(lesson: LessonDoc, up: Upstream) -> list[_Cited]:
    out = []
    for ref, gl in github_links(lesson.text):
        if gl.slug.lower() == up.slug.lower() and gl.ref == up.commit:
            out.append(_Cited(lesson, ref.line, gl))
    return out


def _wheel_files(project: Project, up: Upstream) -> dict[str, str]:
    files: dict[str, str] = {}
    for w in up.wheel:
        if w.map:
            files.update(WheelSource(project.store, w, offline=project.config.offline,
                                     index_url=project.config.index_url).files())
    return files


def _new_url(gl: GitHubLink, commit: str, path: str, start: int | None, end: int | None) -> str:
    base = gl.url.split("#", 1)[0]
    if path == gl.path and f"/{gl.ref}/" in base:
        base = base.replace(f"/{gl.ref}/", f"/{commit}/", 1)
    else:
        base = (f"https://github.com/{gl.owner}/{gl.repo}/{gl.kind}/{commit}/"
                + quote(path, safe="/"))
    if start is None:
        return base if "#" not in gl.url else f"{base}#{gl.fragment}"
    if gl.end is None and end == start:
        return f"{base}#L{start}"
    return f"{base}#L{start}-L{end}"


class _Compare:
    """Per-run state: old/new files, renames, line maps; relocations cached per range."""

    def __init__(self, project: Project, target: Target, up: Upstream) -> None:
        self.project = project
        self.target = target
        self.up = up
        self.name = up.name
        self.new_up = target.upstream
        self.git_dir: str | None = None
        if (isinstance(target.repo, PartialClone) and not project.config.offline
                and not target.repo.has_commit(up.commit)):
            try:   # reads never fetch lazily: fetch the old pin into the clone explicitly
                target.repo.ensure_commit(up.commit)
            except AcquisitionError:
                pass
        if target.repo is not None and target.repo.has_commit(up.commit):
            self.git_dir = str(Path(target.repo.repo.git_dir))
        self.files: dict[str, FileChange] = {}
        self._new_path: dict[str, str | None] = {}
        self._renames: dict[str, tuple[str | None, int | None]] | None = None
        self._reloc: dict[tuple[str, int, int], tuple[Relocation, str]] = {}
        self._new_files: dict[str, str] | None = None
        self._maps: dict[tuple[str, str], LineMap] = {}
        self._old_known: set[str] | None = None
        self._old_wheel: dict[str, str] | None = None
        self.notes: list[str] = []

    # ---------------------------------------------------------------- listings
    def new_files(self) -> dict[str, str]:
        """path -> blob of every file of the new version (git tree, or the new wheels)."""
        if self._new_files is None:
            if self.target.repo is not None:
                self._new_files = self.target.repo.tree(self.new_up.commit)
            else:
                self._new_files = _wheel_files(self.target.project, self.new_up)
        return self._new_files

    def old_known(self) -> set[str]:
        if self._old_known is None:
            self._old_known = set(self.project.sources.known_paths(self.name))
        return self._old_known

    def old_wheel(self) -> dict[str, str]:
        if self._old_wheel is None:
            self._old_wheel = _wheel_files(self.project, self.up)
        return self._old_wheel

    # ---------------------------------------------------------------- files
    def old(self, path: str) -> tuple[SourceFile, str | None]:
        return self.project.sources.text(self.name, path)

    def new(self, path: str) -> tuple[SourceFile, str | None]:
        return self.target.project.sources.text(self.name, path)

    def new_path(self, path: str) -> str | None:
        """Where the cited file lives at the new version (None: deleted or unknown)."""
        if path in self._new_path:
            return self._new_path[path]
        result: str | None = None
        if path in self.new_files():
            result = path
        elif self.git_dir is not None:
            if self._renames is None:
                self._renames = git_renames(self.git_dir, self.up.commit, self.new_up.commit)
            dest, sim = self._renames.get(path, (None, None))
            if dest is not None:
                result = dest
                self.files[path] = FileChange(path=path, status="renamed", new_path=dest,
                                              similarity=sim, method="git-rename",
                                              code=CODES["renamed"])
            else:
                self.files[path] = FileChange(path=path, status="deleted", method="git-rename",
                                              detail=f"not in the tree at "
                                                     f"{self.new_up.commit[:7]}; git finds no "
                                                     "rename", code=CODES["deleted"])
        elif self.target.repo is not None or path in self.old_wheel():
            # the new listing is authoritative for this path: look for a renamed copy
            sf, _ = self.old(path)
            data = self.project.sources.read(sf)
            if data is None:
                self.files[path] = FileChange(
                    path=path, status="deleted", code=CODES["deleted"],
                    detail=f"absent at the new version; the old file is {sf.status.value}, so "
                           "no rename could be looked for")
            else:
                candidates = {p: b for p, b in self.new_files().items()
                              if p not in self.old_known() and p not in self.old_wheel()}
                hit = similar_file(path, data, candidates, self._read_new_blob)
                if hit is not None:
                    result = hit[0]
                    self.files[path] = FileChange(path=path, status="renamed", new_path=hit[0],
                                                  similarity=hit[1], method=hit[2],
                                                  code=CODES["renamed"])
                else:
                    where = ("the new tree" if self.target.repo is not None
                             else "the new wheel")
                    self.files[path] = FileChange(
                        path=path, status="deleted", method="similarity", code=CODES["deleted"],
                        detail=f"absent from {where}; no file of it is ≥50% similar")
        else:
            self.files[path] = FileChange(
                path=path, status="unavailable", code=CODES["unavailable"],
                detail="not in the new version's wheel and no git tree of the new version: "
                       "cannot tell whether it changed")
        self._new_path[path] = result
        return result

    def _read_new_blob(self, path: str) -> bytes | None:
        blob = self.new_files().get(path)
        if blob is None:
            return None
        data = self.project.store.get_blob(blob)
        if data is None and self.target.repo is not None:
            data = self.target.repo.read_blob(blob)
        return data

    # ---------------------------------------------------------------- ranges
    def relocate(self, path: str, new_path: str, start: int, end: int) -> tuple[Relocation, str]:
        key = (path, start, end)
        if key in self._reloc:
            return self._reloc[key]
        osf, otext = self.old(path)
        nsf, ntext = self.new(new_path)
        assert otext is not None and ntext is not None
        lm = self._linemap(path, osf, nsf, otext, ntext)
        if osf.blob and osf.blob == nsf.blob:
            fp = fingerprint(otext, start, end)
            if fp is None:
                rel = relocate(otext, ntext, start, end, old_path=path, new_path=new_path)
            else:
                status = LinkStatus.UNCHANGED if new_path == path else LinkStatus.MOVED
                rel = Relocation(status, start, end, method="same-blob", old_fingerprint=fp,
                                 new_fingerprint=fp)
        else:
            rel = relocate(otext, ntext, start, end, old_path=path, new_path=new_path,
                           linemap=lm, old_data=self.project.sources.read(osf),
                           new_data=self.target.project.sources.read(nsf))
        self._reloc[key] = (rel, new_path)
        return self._reloc[key]

    def _linemap(self, path: str, osf: SourceFile, nsf: SourceFile, otext: str,
                 ntext: str) -> LineMap | None:
        """One line map per pair of file versions (git diff hunks, else an alignment)."""
        if not (osf.blob and nsf.blob) or osf.blob == nsf.blob:
            return None
        key = (osf.blob, nsf.blob)
        if key not in self._maps:
            lm: LineMap | None = None
            if self.git_dir:
                try:
                    lm = from_git_diff(self.git_dir, osf.blob, nsf.blob,
                                       len(split_lines(otext)), len(split_lines(ntext)))
                except AcquisitionError as exc:
                    self.notes.append(f"{path}: {exc.message}; using a sequence alignment")
            if lm is None:
                lm = from_alignment(split_lines(otext), split_lines(ntext))
            self._maps[key] = lm
        return self._maps[key]

    def link(self, c: _Cited, commit_known: bool) -> LinkChange:
        gl = c.link
        base = dict(course=c.lesson.course, lesson=c.lesson.path, line=c.line, url=gl.url,
                    path=gl.path or "", start=gl.start, end=gl.end or gl.start)

        def make(status: LinkStatus, **kw) -> LinkChange:
            return LinkChange(**base, status=status, code=status.code, **kw)

        if gl.kind not in ("blob", "raw") or not gl.path or gl.hostile_path:
            return make(LinkStatus.SKIPPED, detail=f"{gl.kind} link: not a file permalink this "
                                                   "upgrade can follow; update it by hand")
        if gl.fragment and gl.start is None:
            return make(LinkStatus.SKIPPED, detail=f"fragment #{gl.fragment} is not a line "
                                                   "range; update it by hand")
        osf, otext = self.old(gl.path)
        if otext is None:
            return make(LinkStatus.UNAVAILABLE, detail=f"old version: {osf.status.value} "
                                                       f"({osf.detail})")
        new_path = self.new_path(gl.path)
        if new_path is None:
            fc = self.files.get(gl.path)
            if fc is not None and fc.status == "unavailable":
                return make(LinkStatus.UNAVAILABLE, detail=f"new version: {fc.detail}")
            return make(LinkStatus.DELETED, detail=fc.detail if fc else "file is gone")
        nsf, ntext = self.new(new_path)
        if ntext is None:
            detail = nsf.detail
            if self.target.identity.commit is None:  # never show the stand-in commit
                detail = detail.replace(self.new_up.commit[:7], "the new release")
            return make(LinkStatus.UNAVAILABLE, new_path=new_path,
                        detail=f"new version: {nsf.status.value} ({detail})")
        renamed = new_path != gl.path
        if gl.start is None:  # a whole-file link: the cited content is the file
            if osf.blob == nsf.blob:
                status = LinkStatus.MOVED if renamed else LinkStatus.UNCHANGED
                url = _new_url(gl, self.new_up.commit, new_path, None, None)
                return make(status, new_path=new_path, method="same-blob",
                            new_url=url if commit_known else None, rewritable=commit_known)
            return make(LinkStatus.CHANGED, new_path=new_path,
                        detail="whole-file link and the file changed; review it" +
                               (f" (renamed to {new_path})" if renamed else ""))
        rel, _ = self.relocate(gl.path, new_path, gl.start, gl.end or gl.start)
        detail = rel.detail
        if renamed:
            detail = (f"file renamed to {new_path}; " + detail).rstrip("; ")
        if rel.status in (LinkStatus.UNCHANGED, LinkStatus.MOVED):
            url = _new_url(gl, self.new_up.commit, new_path, rel.start, rel.end)
            return make(rel.status, new_path=new_path, new_start=rel.start, new_end=rel.end,
                        method=rel.method, old_fingerprint=rel.old_fingerprint,
                        new_fingerprint=rel.new_fingerprint,
                        new_url=url if commit_known else None, rewritable=commit_known,
                        detail=detail)
        return make(rel.status, new_path=new_path if rel.status != LinkStatus.SKIPPED else None,
                    suggested=rel.suggested, method=rel.method, symbol=rel.symbol,
                    old_fingerprint=rel.old_fingerprint, new_fingerprint=rel.new_fingerprint,
                    detail=detail, diff=rel.diff or [])


def _old_identity(project: Project, up: Upstream) -> VersionIdentity:
    return VersionIdentity(upstream=up.name, commit=up.commit, version=up.version, tag=up.tag,
                           identity="pin", wheels=[w.requirement for w in up.wheel])


def run_upgrade(project: Project, upstream: str, ref: str, *, commit: str | None = None,
                version: str | None = None, via: str = "auto", course: str | None = None,
                lesson_paths: list[str] | None = None, write: bool = False,
                claims: bool = True) -> UpgradeReport:
    # what the analysis reads, fingerprinted now: `--write` refuses when any of it changes
    snapshot = writer.Snapshot.take(project) if write else None
    if write:
        writer.preflight(project)       # an unwritable target fails now, not after the work
    up = project.pins.get(upstream)
    target = resolve_target(project, upstream, ref, commit=commit, version=version, via=via)
    new_id = target.identity
    commit_known = new_id.commit is not None
    if write and not commit_known:
        raise UsageError(f"--write needs the commit of {upstream} {new_id.version}: it was "
                         f"read from {new_id.provider} (release identity, no commit). Pass "
                         "--commit SHA (the release's commit) or use a git provider that "
                         "holds the tag")
    if write and new_id.version is None:
        raise UsageError(f"--write needs the version of {upstream} at {ref}: pass --version V")

    lessons = project.lessons(lesson_paths, course=course)
    cmp = _Compare(project, target, up)
    cited: list[_Cited] = []
    for ld in lessons:
        cited.extend(_lesson_links(ld, up))
    # one round trip per side for every cited file
    paths = sorted({c.link.path for c in cited if c.link.path and not c.link.hostile_path})
    project.sources.resolve_many([(upstream, p) for p in paths])

    by_lesson: dict[tuple[str, str], list[LinkChange]] = {}
    read_only = {name for name in project.pins.course
                 if (co := project.known_checkout(name)) is not None and not co.writable}
    for c in cited:
        ch = cmp.link(c, commit_known)
        by_lesson.setdefault((c.lesson.course, c.lesson.path), []).append(ch)

    stand_in = target.upstream.commit if new_id.commit is None else None
    label = f"{new_id.version} (release, commit unknown)"
    claims_run, changes = (claims_mod.rerun(project, target.project, lessons, upstream,
                                            stand_in, label) if claims
                           else (claims_mod.ClaimsRun(ran=False, reason="--no-claims"), []))
    claims_by: dict[tuple[str, str], list] = {}
    for ch in changes:
        claims_by.setdefault((ch.course or "", ch.lesson), []).append(ch)

    lesson_reports = []
    for key in sorted(set(by_lesson) | set(claims_by)):
        links = sorted(by_lesson.get(key, []), key=lambda lk: (lk.line, lk.url))
        lesson_reports.append(LessonUpgrade(course=key[0], lesson=key[1],
                                            read_only=key[0] in read_only, links=links,
                                            claims=claims_by.get(key, [])))
    notes = list(cmp.notes)
    if new_id.identity == "release":
        notes.append(f"new version read from {new_id.provider} (release identity: files of "
                     "the release's wheel, no git tree); files outside the wheel are "
                     "unavailable at the new version")
    for name in sorted(read_only & {ls.course for ls in lesson_reports}):
        notes.append(f"course {name} is git-hosted: its lessons are read-only here and are "
                     "never rewritten")

    report = UpgradeReport(upstream=upstream, ref=ref, old=_old_identity(project, up),
                           new=new_id, files=sorted(cmp.files.values(), key=lambda f: f.path),
                           lessons=lesson_reports, claims=claims_run, notes=notes)
    if write:
        assert snapshot is not None
        snapshot.add_lessons(lessons)
        report = _write(project, target, up, report, paths, snapshot)
    return _finish(report)


def _finish(report: UpgradeReport) -> UpgradeReport:
    counts: Counter[str] = Counter()
    left: list[str] = []
    for ls in report.lessons:
        for lk in ls.links:
            counts[lk.status.value] += 1
            if lk.written:
                continue
            where = f"{ls.course}/{ls.lesson}:{lk.line}"
            if lk.status.needs_review:
                sug = f" (suggested L{lk.suggested[0]}-L{lk.suggested[1]})" if lk.suggested else ""
                rng = f"#L{lk.start}-L{lk.end}" if lk.start is not None else " (whole file)"
                left.append(f"{where}: {lk.status.value} {lk.path}{rng}{sug}")
            elif lk.status in (LinkStatus.UNCHANGED, LinkStatus.MOVED) and report.written:
                why = "read-only course" if ls.read_only else "not found verbatim in the lesson"
                left.append(f"{where}: {lk.status.value}, not rewritten ({why})")
            elif lk.status in (LinkStatus.UNAVAILABLE, LinkStatus.SKIPPED):
                left.append(f"{where}: {lk.status.value} {lk.path}: {lk.detail}")
        for cc in ls.claims:
            counts["claim-changed" if cc.decided else "claim-unchecked"] += 1
            what = "" if cc.decided else " (cannot be re-checked at the new version)"
            left.append(f"{ls.course}/{ls.lesson}: claim {cc.id} {cc.old_verdict} -> "
                        f"{cc.new_verdict}{what}")
    for f in report.files:
        counts[f"file-{f.status}"] += 1
    return report.model_copy(update={"summary": dict(sorted(counts.items())),
                                     "left_for_author": left})


def _write(project: Project, target: Target, up: Upstream, report: UpgradeReport,
           cited_paths: list[str], snapshot: "writer.Snapshot") -> UpgradeReport:
    """Compute every edit, check that nothing read by the analysis changed since, then
    write the lessons, pins.lock and pins.toml as one transaction (see write.py)."""
    written: list[Written] = []
    notes = list(report.notes)
    pins_path = project.pins.path
    assert pins_path is not None
    text = pins_path.read_text(encoding="utf-8")
    new_text, pin_notes = writer.edit_pins(text, pins_path, up, target.upstream)
    tree = target.repo.tree(target.upstream.commit) if target.repo is not None else None
    new_cited = {lk.new_path or lk.path for ls in report.lessons for lk in ls.links} | set(cited_paths)
    lock, lock_note = writer.edit_lock(project.lock, up.name, target.upstream, tree, new_cited,
                                       f"tree:{target.repo_label}")
    edits: list[tuple[Path, bytes, str]] = []        # (file, new bytes, what)
    new_lessons = []
    for ls in report.lessons:
        reps = {lk.url: lk.new_url for lk in ls.links if lk.rewritable and lk.new_url
                and lk.new_url != lk.url}
        counts: dict[str, int] = {}
        if reps and not ls.read_only:
            course = project.pins.course[ls.course]
            file = project.course_root(course) / ls.lesson
            data = file.read_bytes()
            new_data, counts = writer.rewrite_urls(data, reps)
            if new_data != data:
                edits.append((file, new_data, f"{sum(counts.values())} permalink(s) rewritten"))
        links = [lk.model_copy(update={"written": counts.get(lk.url, 0) > 0}) for lk in ls.links]
        new_lessons.append(ls.model_copy(update={"links": links}))
    edits.append((project.lock_path, dump_lock(lock).encode(), lock_note))
    if new_text != text:
        edits.append((pins_path, new_text.encode("utf-8"), f"upstream.{up.name}: commit "
                      f"{target.upstream.commit[:7]}, version {target.upstream.version}"))
    snapshot.verify([f for f, _, _ in edits] + [pins_path, project.lock_path])
    snapshot.verify([f for f, _, _ in edits])       # once more, just before the renames
    writer.transaction(project, up.name, edits)     # all of them, or none
    written.extend(Written(file=str(file), what=what) for file, _, what in edits)
    notes.extend(pin_notes)
    return report.model_copy(update={"lessons": new_lessons, "written": written, "notes": notes})
