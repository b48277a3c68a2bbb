"""What the source layer serves: a file of an upstream, its identity and provenance;
what it knows about a path's existence at the pin; and what it has to say about
the run (notices)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import ConfigDict, Field

from verifier.basemodel import Model


class Status(StrEnum):
    PINNED = "pinned"          # blob equals the pin's blob for this path
    RELEASE = "release"        # from the pinned release's wheel; pin blob unknown (weaker)
    MISMATCH = "mismatch"      # a provider has this path, but with another blob: not served
    UNAVAILABLE = "unavailable"  # nothing can serve it at pinned identity

    @property
    def usable(self) -> bool:
        return self in (Status.PINNED, Status.RELEASE)


class Presence(StrEnum):
    """Whether a path exists at the pin, and how sure the source layer is."""

    PRESENT = "present"                # in the pin's git tree, or in pins.lock (at the pin)
    RELEASE = "release"                # in the pinned release only (pin unknown)
    ABSENT = "absent"                  # not in the pin's git tree / a complete lock: an error
    NOT_IN_RELEASE = "not-in-release"  # a wheel map covers the path and the release lacks
    #                                    it: probably absent at the pin
    UNKNOWN = "unknown"                # nothing the layer can consult lists or covers it

    @property
    def known_absent(self) -> bool:
        return self in (Presence.ABSENT, Presence.NOT_IN_RELEASE)


class PathPresence(Model):
    model_config = ConfigDict(frozen=True)

    upstream: str
    path: str
    state: Presence
    basis: str = ""                     # e.g. 'git tree at 9ea3cdf (mirror:/srv/x)'
    suggestions: list[str] = Field(default_factory=list)   # close known paths

    def message(self) -> str:
        """One clause for a finding or a verdict, e.g. 'no such path at 9ea3cdf (...);
        did you mean a/b.c?'."""
        head = {Presence.ABSENT: "no such path at the pin",
                Presence.NOT_IN_RELEASE: "not in the pinned release (its wheel map covers this "
                                         "path); probably absent at the pin",
                Presence.PRESENT: "present at the pin",
                Presence.RELEASE: "in the pinned release",
                Presence.UNKNOWN: "unknown at the pin"}[self.state]
        text = f"{head} ({self.basis})" if self.basis else head
        if self.suggestions:
            text += "; did you mean " + " or ".join(self.suggestions) + "?"
        return text


class SourceFile(Model):
    """One upstream file as resolved by the source layer (content lives in the cache)."""

    model_config = ConfigDict(frozen=True)

    upstream: str
    path: str
    status: Status
    blob: str | None = None            # blob SHA of what is served (or what mismatched)
    expected_blob: str | None = None   # the pin's blob, when known
    identity: str | None = None        # where expected_blob came from: 'git-tree' | 'lock'
    provider: str | None = None        # e.g. 'wheel:mujoco==3.15.0', 'mirror:/srv/x.git'
    cached: bool = False               # served from the cache in this run
    detail: str = ""                   # why it is mismatch/unavailable
    reason: str = ""                   # the same in stable wording, without this run's
                                       # provider failures (what records show)
    presence: Presence | None = None   # set when the layer knows the path is absent
    suggestions: list[str] = Field(default_factory=list)

    def public(self) -> dict:
        """The stable JSON shape of `verifier sources --format json` (plus extras)."""
        return {
            "upstream": self.upstream,
            "path": self.path,
            "blob": self.blob,
            "provider": self.provider,
            "status": self.status.value,
            "expected_blob": self.expected_blob,
            "identity": self.identity,
            "cached": self.cached,
            "detail": self.detail,
            "presence": self.presence.value if self.presence else None,
            "suggestions": list(self.suggestions),
        }


# Codes the layer also reports through `notify` when they happen (a summary need not repeat
# them unless they are warnings).
NOTIFIED_CODES = frozenset({"provider-failed", "mirror-lacks-commit", "wheel-repaired",
                            "commit-unknown"})


class Notice(Model):
    """Something a run must say once, in every command's summary and in the record.

    `warning`: identity was weakened or something was lost (a lock for another
    commit, a truncated lock, needed files without a pin blob, a commit the
    upstream does not have, cache entries that vanished); `--strict` fails on
    these. `info`: provider failures the run worked around, repairs it made."""

    model_config = ConfigDict(frozen=True)

    severity: Literal["warning", "info"]
    code: str                          # stable: 'lock-other-commit', 'lock-gap', ...
    upstream: str | None = None
    message: str
    paths: list[str] = Field(default_factory=list)   # affected paths (all of them, sorted)
