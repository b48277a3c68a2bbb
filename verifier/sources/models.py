"""What the source layer serves: a file of an upstream, its identity and provenance."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Status(StrEnum):
    PINNED = "pinned"          # blob equals the pin's blob for this path
    RELEASE = "release"        # from the pinned release's wheel; pin blob unknown (weaker)
    MISMATCH = "mismatch"      # a provider has this path, but with another blob: not served
    UNAVAILABLE = "unavailable"  # nothing can serve it at pinned identity

    @property
    def usable(self) -> bool:
        return self in (Status.PINNED, Status.RELEASE)


class SourceFile(BaseModel):
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
        }
