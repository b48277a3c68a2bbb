"""Which upstream files a run needs: every file the lessons cite by permalink,
plus every file a claim locates."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def claimed_files(project: "Project", lessons: "list[LessonDoc] | None" = None
                  ) -> set[tuple[str, str]]:
    """(upstream, path) of every claim with a `path` (claims about `lessons`, or all)."""
    from verifier.claims.loader import load_claims

    out = set()
    for lc in load_claims(project, lessons):
        if lc.claim.path and lc.upstream and lc.upstream in project.pins.upstream:
            out.add((lc.upstream, lc.claim.path))
    return out


def needed_files(project: "Project", upstream: str | None = None,
                 lessons: "list[LessonDoc] | None" = None) -> list[tuple[str, str]]:
    items = set(project.cited_files(lessons)) | claimed_files(project, lessons)
    if upstream:
        project.pins.get(upstream)  # unknown upstream -> clear error
        items = {i for i in items if i[0] == upstream}
    return sorted(items)
