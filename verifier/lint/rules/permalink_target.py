from __future__ import annotations

from verifier.lint.base import Rule
from verifier.lint.rules._links import (ABSENT, RELEASE_ABSENT, file_lines, path_presence,
                                        readable, upstream_links)
from verifier.results import Severity


class PermalinkTarget(Rule):
    """A pinned permalink must name a path that exists at the pin, and its `#Lx` /
    `#Lx-Ly` fragment must satisfy x <= y and lie inside the file. Paths and line
    counts are read only at pinned identity. A path known absent (not in the pin's
    git tree) is an error on its line; a path under a prefix the pinned release's
    wheel maps (pins.toml `map`) that the release lacks is a warning on its line ("not
    in the pinned release; probably absent at the pin"); a file that is simply
    unavailable is counted in the lesson's source-unavailable finding, never passed."""

    name = "permalink-target"
    code = "VL102"

    def check(self, ctx, doc, lesson):
        out = []
        for link, gl, up in upstream_links(ctx, lesson):
            if gl.kind not in ("blob", "raw", "tree") or not gl.path:
                continue
            if gl.hostile_path:
                out.append(self.finding(doc, link.line, f"unsafe path {gl.path!r} in link",
                                        upstream=up.name, target=link.href))
                continue
            if gl.fragment and gl.fragment.startswith("L") and gl.start is None:
                out.append(self.finding(doc, link.line, f"malformed line fragment "
                                        f"#{gl.fragment} (expected #Lx or #Lx-Ly)",
                                        upstream=up.name, target=link.href))
            if gl.start is not None and (gl.start < 1 or (gl.end is not None
                                                          and gl.end < gl.start)):
                out.append(self.finding(doc, link.line, f"line range #{gl.fragment} is "
                                        f"reversed or empty (x must be <= y, both >= 1)",
                                        upstream=up.name, target=link.href))
                continue
            if gl.ref != up.commit:
                if gl.ref in up.also:
                    out.append(self.unavailable(doc, link.line, up.name, gl.path,
                                                f"cites also-pinned commit {gl.ref[:12]}…; "
                                                "only the main pin is served"))
                continue  # permalink-pin reports it
            if gl.kind == "tree":
                out.extend(self._directory(ctx, doc, link, gl, up))
                continue
            if not readable(ctx, gl, up):
                continue
            sf, text = ctx.source(up.name, gl.path)
            if text is None:
                where = path_presence(ctx, up, gl.path)
                if where.state == ABSENT or (sf.expected_blob is None
                                             and sf.detail.startswith("no such path")):
                    out.append(self.finding(doc, link.line, f"{gl.path} does not exist at "
                                            f"{up.name} {up.short} ({where.how or sf.detail})",
                                            upstream=up.name, target=link.href, path=gl.path,
                                            suggestions=where.suggestions))
                elif where.state == RELEASE_ABSENT:
                    out.append(self.finding(
                        doc, link.line, f"{gl.path} is not in the pinned release; probably "
                        f"absent at {up.name} {up.short} ({where.how})",
                        severity=Severity.WARNING, upstream=up.name, target=link.href,
                        path=gl.path, presence=where.state, suggestions=where.suggestions))
                else:
                    out.append(self.unavailable(doc, link.line, up.name, gl.path,
                                                f"{sf.status.value}: {sf.reason or sf.detail}",
                                                fragment=gl.fragment))
                continue
            if gl.start is None:
                continue
            n = len(file_lines(ctx, up.name, gl.path, text))
            end = gl.end or gl.start
            if end > n:
                out.append(self.finding(doc, link.line, f"#{gl.fragment} lies past the end of "
                                        f"{gl.path}, which has {n} lines at {up.short}",
                                        upstream=up.name, target=link.href, lines=n))
        return out

    def _directory(self, ctx, doc, link, gl, up):
        """A `tree/` link: some path at the pin must lie under it."""
        prefix = gl.path.rstrip("/") + "/"
        known = ctx.project.sources.known_paths(up.name)
        if any(p.startswith(prefix) for p in known):
            return []
        tree, _, _ = ctx.project.sources.pin_tree(up.name)
        if tree is not None:
            return [self.finding(doc, link.line, f"directory {gl.path} does not exist at "
                                 f"{up.name} {up.short}", upstream=up.name, target=link.href,
                                 path=gl.path)]
        return [self.unavailable(doc, link.line, up.name, gl.path,
                                 "directory not among the paths known at the pin")]
