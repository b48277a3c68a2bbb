"""Which upstream files a run needs: every file the lessons cite by permalink,
plus every file a claim locates."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def needed_files(project: "Project", upstream: str | None = None,
                 lessons: "list[LessonDoc] | None" = None) -> list[tuple[str, str]]:
    items = set(project.cited_files(lessons))
    if upstream:
        project.pins.get(upstream)  # unknown upstream -> clear error
        items = {i for i in items if i[0] == upstream}
    return sorted(items)
