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

    @property
    def decided(self) -> bool:
        """Both sides have a verdict from source (not unavailable/absent, nor `error`: a
        claim naming a file or symbol gone at that version says nothing about the lesson
        there): a real change."""
        undecided = ("unavailable", "absent", "error")
        return self.old_verdict not in undecided and self.new_verdict not in undecided


class LessonUpgrade(_M):
    course: str
    lesson: str
    read_only: bool = False              # lesson of a git-hosted course: never rewritten
    links: list[LinkChange] = Field(default_factory=list)
    claims: list[ClaimChange] = Field(default_factory=list)

    @property
    def needs_review(self) -> bool:
        return (any(c.decided for c in self.claims)
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
    summary: dict[str, int] = Field(default_factory=dict)
    written: list[Written] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    left_for_author: list[str] = Field(default_factory=list)

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    @property
    def needs_review(self) -> bool:
        return any(ls.needs_review for ls in self.lessons)

    def to_json(self) -> dict:
        return self.model_dump(mode="json", by_alias=True)
