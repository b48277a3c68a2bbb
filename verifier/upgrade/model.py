"""The upgrade report: what changes for each lesson when one upstream's pin moves.

Stable JSON shape of `verifier upgrade --format json` (extend, never rename)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import ConfigDict, Field

from verifier.basemodel import Model

SCHEMA = 1


class LinkStatus(StrEnum):
    UNCHANGED = "unchanged"      # same path, same range, same content: only the SHA moves
    MOVED = "moved"              # same content at another range (and/or renamed path)
    CHANGED = "changed"          # cited content differs at the new version: author reviews
    AMBIGUOUS = "ambiguous"      # the cited content occurs several times: author picks
    DELETED = "deleted"          # the cited file is gone and no rename was found
    UNAVAILABLE = "unavailable"  # old or new file cannot be read at its identity
    SKIPPED = "skipped"          # not a line permalink this upgrade can follow

    @property
    def code(self) -> str:
        return CODES[self.value]

    @property
    def needs_review(self) -> bool:
        return self in (LinkStatus.CHANGED, LinkStatus.AMBIGUOUS, LinkStatus.DELETED)


# Stable codes of the upgrade report (VU1xx), documented in docs/upgrade.md.
CODES = {
    "unchanged": "VU100",
    "moved": "VU101",
    "changed": "VU102",
    "ambiguous": "VU103",
    "deleted": "VU104",
    "unavailable": "VU105",
    "skipped": "VU106",
    "renamed": "VU107",
    "claim-changed": "VU110",
    "claim-unchecked": "VU111",
    "runtime-changed": "VU112",
    "surface-changed": "VU120",
    "unassessed": "VU130",
    "needs-git": "VU131",
}


class _M(Model):
    model_config = ConfigDict(frozen=True)


class VersionIdentity(_M):
    """One side of the comparison. `identity` says how its files are proven:
    `git` (blobs of the tree at `commit`), `release` (files of the release's
    wheel; no git tree), or `pin` (the project's current pins)."""

    upstream: str
    commit: str | None = None
    version: str | None = None
    tag: str | None = None
    identity: Literal["pin", "git", "release"]
    provider: str | None = None
    wheels: list[str] = Field(default_factory=list)


class FileChange(_M):
    path: str
    status: Literal["deleted", "renamed", "unavailable"]
    new_path: str | None = None
    similarity: int | None = None        # percent, as git reports it
    method: str | None = None            # git-rename | same-blob | similarity
    detail: str = ""
    code: str = ""
    lost: str | None = None              # the pinned wheel with no home at the new version
    needs_git: bool = False              # only a git tree of the new version can tell


class LinkChange(_M):
    course: str
    lesson: str                          # course-relative lesson path
    line: int                            # lesson line of the link
    url: str
    path: str                            # cited upstream path at the old pin
    start: int | None = None
    end: int | None = None
    status: LinkStatus
    code: str = ""
    new_path: str | None = None
    new_start: int | None = None
    new_end: int | None = None
    suggested: tuple[int, int] | None = None   # a best guess for changed content (never written)
    method: str | None = None            # same-blob | git-diff | alignment | search | symbol
    symbol: str | None = None            # the symbol the symbol fallback anchored on
    old_fingerprint: str | None = None
    new_fingerprint: str | None = None
    new_url: str | None = None           # the rewritten link, when it may be rewritten
    rewritable: bool = False
    written: bool = False
    detail: str = ""
    diff: list[str] = Field(default_factory=list)   # cited lines old -> new (changed only)
    old_lines: list[str] = Field(default_factory=list)   # changed: the cited lines at the old pin
    new_lines: list[str] = Field(default_factory=list)   # ... and the suggested range, new
    lost: str | None = None              # unassessed: this pinned wheel has no home at the new version
    needs_git: bool = False              # unavailable: only a git tree of the new version can tell


class RuntimeSide(_M):
    status: str                          # confirmed | refuted | error | skipped | env-mismatch
    value: Any = None
    message: str | None = None


class ClaimChange(_M):
    id: str
    course: str | None = None
    lesson: str
    kind: str
    old_verdict: str
    new_verdict: str
    expected: Any = None
    old_actual: Any = None
    new_actual: Any = None
    old_message: str | None = None
    new_message: str | None = None
    code: str = CODES["claim-changed"]
    path: str | None = None              # the upstream file the claim reads, when it names one
    upstream: str | None = None          # the claim's upstream (one whose environment follows)
    # beside the merged verdicts: the static ones, and the runtime result of each side
    old_static: str | None = None
    new_static: str | None = None
    old_runtime: RuntimeSide | None = None
    new_runtime: RuntimeSide | None = None
    lost: str | None = None              # unassessed because this pinned wheel has no home
    needs_git: bool = False              # its file is served only by git at the new version

    @property
    def decided(self) -> bool:
        """Both sides have a verdict from source (not unavailable/absent, nor `error`: a
        claim naming a file or symbol gone at that version says nothing about the lesson
        there): a real change."""
        undecided = ("unavailable", "absent", "error")
        return self.old_verdict not in undecided and self.new_verdict not in undecided

    @property
    def runtime_moved(self) -> bool:
        """The runtime check ran on both sides and its result changed status (it started
        to fail, raise, or pass)."""
        o, n = self.old_runtime, self.new_runtime
        quiet = ("skipped", "env-mismatch")
        return (o is not None and n is not None and o.status != n.status
                and o.status not in quiet and n.status not in quiet)

    @property
    def timed_out(self) -> bool:
        """The new side's runtime check ran out of time: no answer, not a failure."""
        n = self.new_runtime
        return n is not None and n.status == "error" and (n.message or "").startswith("timed out")

    @property
    def needs_review(self) -> bool:
        """A decided verdict changed, or the runtime check refutes or raises at the new
        version where it did not at the old one (a timeout is no answer: reported, re-run)."""
        if self.runtime_moved and self.new_runtime.status in ("refuted", "error"):  # type: ignore[union-attr]
            return not self.timed_out
        return self.decided and self.old_verdict != self.new_verdict

    @property
    def category(self) -> str:
        """claim-changed | claim-unchecked | runtime-changed (the runtime check's result
        changed: it decides the story, whatever the verdicts)."""
        if self.old_verdict == self.new_verdict or self.runtime_moved:
            return "runtime-changed"
        return "claim-changed" if self.decided else "claim-unchecked"


class LessonUpgrade(_M):
    course: str
    lesson: str
    read_only: bool = False              # lesson of a git-hosted course: never rewritten
    links: list[LinkChange] = Field(default_factory=list)
    claims: list[ClaimChange] = Field(default_factory=list)

    @property
    def needs_review(self) -> bool:
        return (any(c.needs_review for c in self.claims)
                or any(lk.status.needs_review for lk in self.links))


class ClaimsRun(_M):
    ran: bool
    reason: str = ""                     # why not, when not
    old_total: int = 0
    new_total: int = 0
    changed: int = 0                     # verdict changes between decided verdicts
    unchecked: int = 0                   # verdicts that became (or were) unavailable
    old_verdicts: dict[str, int] = Field(default_factory=dict)
    new_verdicts: dict[str, int] = Field(default_factory=dict)
    runtime: str = "none"                # none | sample | all (both sides alike)
    runtime_changed: int = 0             # claims whose runtime result changes status or value
    environments: list[str] = Field(default_factory=list)   # what ran each side's checks


class WheelEntry(_M):
    """One `[[upstream.X.wheel]]` of the new version's map."""

    requirement: str
    map: list[dict[str, Any]] = Field(default_factory=list)


class WheelMap(_M):
    """How the release's wheels serve the upstream's files at the new version."""

    changed: bool = False                # differs from the pinned map beyond the version bump
    wheels: list[WheelEntry] = Field(default_factory=list)
    followed: list[str] = Field(default_factory=list)     # Requires-Dist followed, and why
    discovered: list[str] = Field(default_factory=list)   # rules added for cited files
    pins_diff: list[str] = Field(default_factory=list)    # unified diff of pins.toml (--write)


class Unassessed(_M):
    """A pinned wheel with no home at the new version: what it leaves unassessed."""

    requirement: str
    reason: str
    rules: list[str] = Field(default_factory=list)        # wheel prefixes -> repo prefixes
    links: int = 0
    claims: list[str] = Field(default_factory=list)       # claim ids
    lessons: dict[str, int] = Field(default_factory=dict)  # lesson -> cited ranges + claims
    code: str = CODES["unassessed"]


class NeedsGit(_M):
    """Cited files only a git tree of the new version can decide, and the commands."""

    files: dict[str, int] = Field(default_factory=dict)   # path -> cited ranges
    links: int = 0
    claims: int = 0                      # claims whose file is among them
    command: str = ""                    # the upgrade that would check them
    diff_command: str = ""               # per file, in a clone holding both commits
    code: str = CODES["needs-git"]


class SurfaceChange(_M):
    """A name the lessons use whose release surface differs at the new version."""

    name: str                            # as the lessons write it (the first spelling met)
    symbol: str                          # module:qualified name at the old version
    change: Literal["removed", "renamed", "signature", "default", "docstring", "kind"]
    old: Any = None
    new: Any = None
    renamed_to: str | None = None
    producer: str = ""                   # stub | introspection
    lessons: dict[str, list[int]] = Field(default_factory=dict)   # lesson -> lines
    claims: list[str] = Field(default_factory=list)   # claims naming it
    code: str = CODES["surface-changed"]


class Surface(_M):
    ran: bool = False
    reason: str = ""
    old_producers: dict[str, str] = Field(default_factory=dict)
    new_producers: dict[str, str] = Field(default_factory=dict)
    names: int = 0                       # names the lessons use that the old surface has
    changes: list[SurfaceChange] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class Written(_M):
    file: str
    what: str


class UpgradeReport(_M):
    schema_: int = Field(default=SCHEMA, alias="schema")
    upstream: str
    ref: str
    old: VersionIdentity
    new: VersionIdentity
    files: list[FileChange] = Field(default_factory=list)
    lessons: list[LessonUpgrade] = Field(default_factory=list)
    claims: ClaimsRun
    wheel_map: WheelMap | None = None
    unassessed: list[Unassessed] = Field(default_factory=list)
    needs_git: NeedsGit | None = None
    surface: Surface = Field(default_factory=Surface)
    coverage: dict[str, Any] = Field(default_factory=dict)   # ranges in served files, classified
    summary: dict[str, int] = Field(default_factory=dict)
    written: list[Written] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    left_for_author: list[str] = Field(default_factory=list)

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    @property
    def needs_review(self) -> bool:
        return (any(ls.needs_review for ls in self.lessons)
                or any(c.change != "docstring" for c in self.surface.changes))

    def to_json(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)
