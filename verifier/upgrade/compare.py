"""Following every cited permalink from the old pin to the new version.

The old side is the project as pinned; the new side is an in-memory project
whose pins point at the new version (see target.py). Every comparison reads
the old file from the old side and the new file from the new side, each at its
own identity; a file that either side cannot serve is reported `unavailable`,
never compared with another version. At a release without a git tree, the new
release's listing decides a path only where a wheel map rule that served it at
the old pin has a home in the new release (`wheelplan.py`); a rule without one
leaves its paths unassessed (`lost`), and a file no wheel serves needs git."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from verifier.errors import AcquisitionError
from verifier.lessons import github_links
from verifier.permalinks import GitHubLink
from verifier.pins import Upstream
from verifier.project import LessonDoc, Project
from verifier.sources.gitstore import PartialClone
from verifier.sources.models import SourceFile
from verifier.sources.wheel import WheelSource
from verifier.upgrade.fingerprint import fingerprint, split_lines
from verifier.upgrade.linemap import LineMap, from_alignment, from_git_diff
from verifier.upgrade.model import CODES, FileChange, LinkChange, LinkStatus
from verifier.upgrade.relocate import Relocation, relocate
from verifier.upgrade.renames import git_renames, similar_file
from verifier.upgrade.target import Target


@dataclass
class Cited:
    lesson: LessonDoc
    line: int
    link: GitHubLink


def lesson_links(lesson: LessonDoc, up: Upstream) -> list[Cited]:
    out = []
    for ref, gl in github_links(lesson.text):
        if gl.slug.lower() == up.slug.lower() and gl.ref == up.commit:
            out.append(Cited(lesson, ref.line, gl))
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


SIDE_LINES = 80      # at most this many lines of each side of a changed range are kept


def _clip(lines: list[str]) -> list[str]:
    if len(lines) <= SIDE_LINES:
        return lines
    return lines[:SIDE_LINES] + [f"… ({len(lines) - SIDE_LINES} more lines)"]


class Compare:
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
        elif (self.target.repo is not None
              or (path in self.old_wheel() and self._authoritative(path))):
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
                             else "the new wheels")
                    self.files[path] = FileChange(
                        path=path, status="deleted", method="similarity", code=CODES["deleted"],
                        detail=f"absent from {where}; no file of it is ≥50% similar")
        elif (lost := self.lost_reason(path)) is not None:
            self.files[path] = FileChange(
                path=path, status="unavailable", code=CODES["unavailable"], lost=lost[0],
                detail=f"unassessed: {lost[1]}")
        else:
            served = ("the new release ships no source file" if self.target.surface_only
                      else "not in the new version's wheels")
            self.files[path] = FileChange(
                path=path, status="unavailable", code=CODES["unavailable"], needs_git=True,
                detail=f"{served} and no git tree of the new version: cannot tell whether it "
                       "changed")
        self._new_path[path] = result
        return result

    def _authoritative(self, path: str) -> bool:
        """A release's listing decides `path` when a rule that served it at the old pin
        has a home in the new release (no plan: the bumped wheels themselves)."""
        plan = self.target.plan
        return plan is None or (plan.lost_reason(path) is None and plan.covers(path))

    def lost_reason(self, path: str) -> tuple[str, str] | None:
        """(wheel, why) when a pinned wheel that served `path` has no home at the new version
        (never with git identity: the tree serves every path)."""
        plan = self.target.plan
        if plan is None or self.target.repo is not None:
            return None
        for rule, lw in plan.lost_rules:
            member = rule.to_wheel(path)
            if member is not None and rule.to_repo(member) == path:
                return lw.requirement, lw.reason
        return None

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

    def link(self, c: Cited, commit_known: bool) -> LinkChange:
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
            lost = self.lost_reason(gl.path)
            return make(LinkStatus.UNAVAILABLE, lost=lost[0] if lost else None,
                        needs_git=self.target.repo is None and lost is None,
                        detail=f"old version: {osf.status.value} ({osf.reason or osf.detail})")
        new_path = self.new_path(gl.path)
        if new_path is None:
            fc = self.files.get(gl.path)
            if fc is not None and fc.status == "unavailable":
                return make(LinkStatus.UNAVAILABLE, detail=f"new version: {fc.detail}",
                            lost=fc.lost, needs_git=fc.needs_git)
            return make(LinkStatus.DELETED, detail=fc.detail if fc else "file is gone")
        nsf, ntext = self.new(new_path)
        if ntext is None:
            detail = nsf.detail
            if self.target.identity.commit is None:  # never show the stand-in commit
                detail = detail.replace(self.new_up.commit[:7], "the new release")
            return make(LinkStatus.UNAVAILABLE, new_path=new_path,
                        needs_git=self.target.repo is None,
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
        side: dict = {}
        if rel.status in (LinkStatus.CHANGED, LinkStatus.AMBIGUOUS) and rel.suggested:
            # the code side by side: the cited lines at the old pin, the suggested ones new
            s0, e0 = gl.start, gl.end or gl.start
            side = {"old_lines": _clip(split_lines(otext)[s0 - 1:e0]),
                    "new_lines": _clip(split_lines(ntext)[rel.suggested[0] - 1:
                                                          rel.suggested[1]])}
        return make(rel.status, new_path=new_path if rel.status != LinkStatus.SKIPPED else None,
                    suggested=rel.suggested, method=rel.method, symbol=rel.symbol,
                    old_fingerprint=rel.old_fingerprint, new_fingerprint=rel.new_fingerprint,
                    detail=detail, diff=rel.diff or [], **side)
