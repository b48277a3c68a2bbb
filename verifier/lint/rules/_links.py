"""GitHub links of a lesson that point into a pinned upstream, and what is known
about the paths they name."""

from __future__ import annotations

from dataclasses import dataclass
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
        if up is None or gl.kind not in ("blob", "tree", "raw", "blame", "commit"):
            continue
        out.append((link, gl, up))
    return out


def readable(ctx: "LintContext", gl: GitHubLink, up: "Upstream") -> bool:
    """A blob/raw link at the upstream's own pinned commit with a safe path."""
    return (gl.kind in ("blob", "raw", "blame") and bool(gl.path) and not gl.hostile_path
            and gl.ref == up.commit)


# --------------------------------------------------------------------------- presence

PRESENT = "present"
ABSENT = "absent"                  # known absent: not in the pin's tree
RELEASE_ABSENT = "release-absent"  # under a wheel-mapped prefix, not in the pinned release
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Presence:
    state: str
    how: str = ""
    suggestions: tuple[str, ...] = ()


def _memo(ctx) -> dict:
    from verifier.lint.rules._names import memo

    return memo(ctx)


# `SourceLayer.presence(upstream, path)` -> `PathPresence.state` (verifier.sources.models)
_LAYER_STATES = {"present": PRESENT, "release": PRESENT, "absent": ABSENT,
                 "not-in-release": RELEASE_ABSENT, "unknown": UNKNOWN}


def _from_layer(value) -> Presence | None:
    """What `SourceLayer.presence(upstream, path)` says: present (at the pin, or in the
    pinned release), known absent (git tree, complete lock), not in the pinned release
    although a wheel map covers it, or unknown."""
    state = str(getattr(value, "state", getattr(value, "value", value))).lower()
    if state not in _LAYER_STATES:
        return None
    basis = str(getattr(value, "basis", "") or "")
    sugg = tuple(getattr(value, "suggestions", ()) or ())
    how = basis + (("; did you mean " + " or ".join(sugg) + "?") if sugg else "")
    return Presence(_LAYER_STATES[state], how, sugg)


def path_presence(ctx: "LintContext", up: "Upstream", path: str) -> Presence:
    """Is `path` in the upstream at its pin? The source layer knows (its git tree at the
    pin, a complete pins.lock, the pinned release's wheel maps); asked once per run."""
    memo = _memo(ctx)
    key = ("presence", up.name, path)
    if key not in memo:
        got = _from_layer(ctx.project.sources.presence(up.name, path))
        memo[key] = got if got is not None else Presence(UNKNOWN)
    return memo[key]


def file_lines(ctx: "LintContext", upstream: str, path: str, text: str) -> list[str]:
    """The lines of a served file (split once per run)."""
    from verifier.textlines import source_lines

    memo = _memo(ctx)
    key = ("lines", upstream, path)
    if key not in memo:
        memo[key] = source_lines(text)
    return memo[key]


def definitions_in(ctx: "LintContext", idx, path: str, start: int, end: int) -> list:
    """`idx.definitions_in`, with the file's definitions gathered once per run."""
    memo = _memo(ctx)
    key = ("defs", idx.upstream, path)
    if key not in memo:
        memo[key] = idx.definitions_in(path, 1, 1 << 30)
    return [s for s in memo[key] if start <= s.line <= end]


def short_sha(sha: str, *rivals: str) -> str:
    """`sha` cut to 12 hex digits, or in full where it shares those with a SHA it is
    compared with (a near-miss of the pin must not read like the pin)."""
    if any(r and r != sha and r[:12].lower() == sha[:12].lower() for r in rivals):
        return sha
    return sha[:12] + "…"
