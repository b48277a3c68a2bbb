"""Which upstream files a run needs: every file the lessons cite by permalink,
plus every file a claim locates (given by the caller: claims are a later stage,
see `verifier.claims.loader.claimed_files`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def needed_files(project: "Project", upstream: str | None = None,
                 lessons: "list[LessonDoc] | None" = None,
                 claimed: Iterable[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """Sorted (upstream, path) of every file cited by `lessons` (or all lessons), plus
    `claimed` (files claims locate), optionally of one upstream only."""
    items = set(project.cited_files(lessons)) | set(claimed)
    if upstream:
        project.pins.get(upstream)  # unknown upstream -> clear error
        items = {i for i in items if i[0] == upstream}
    return sorted(items)
