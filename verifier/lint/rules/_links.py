"""GitHub links of a lesson that point into a pinned upstream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.permalinks import GitHubLink, parse_github_url

if TYPE_CHECKING:
    from verifier.lessons import Lesson, Link
    from verifier.lint.base import LintContext
    from verifier.pins import Upstream


def upstream_links(ctx: "LintContext", lesson: "Lesson"
                   ) -> list[tuple["Link", GitHubLink, "Upstream"]]:
    out = []
    for link in lesson.links:
        gl = parse_github_url(link.href)
        if gl is None:
            continue
        up = ctx.project.pins.by_slug(gl.slug)
        if up is None or gl.kind not in ("blob", "tree", "raw", "commit"):
            continue
        out.append((link, gl, up))
    return out


def readable(ctx: "LintContext", gl: GitHubLink, up: "Upstream") -> bool:
    """A blob/raw link at the upstream's own pinned commit with a safe path."""
    return (gl.kind in ("blob", "raw") and bool(gl.path) and not gl.hostile_path
            and gl.ref == up.commit)
