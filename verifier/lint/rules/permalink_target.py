from __future__ import annotations

from verifier.textlines import source_lines
from verifier.lint.base import Rule
from verifier.lint.rules._links import readable, upstream_links


class PermalinkTarget(Rule):
    """A pinned permalink must name a path that exists at the pin, and its `#Lx` /
    `#Lx-Ly` fragment must satisfy x <= y and lie inside the file. Paths and line
    counts are read only at pinned identity; when the file is unavailable the rule
    says so (one source-unavailable finding per lesson and upstream), never passes."""

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
                known = ctx.project.sources.known_paths(up.name)
                if not any(p.startswith(gl.path.rstrip("/") + "/") for p in known):
                    out.append(self.unavailable(doc, link.line, up.name, gl.path,
                                                "directory not among the paths known at the pin"))
                continue
            if not readable(ctx, gl, up):
                continue
            sf, text = ctx.source(up.name, gl.path)
            if sf.expected_blob is None and sf.detail.startswith("no such path"):
                out.append(self.finding(doc, link.line, f"{gl.path} does not exist at "
                                        f"{up.name} {up.short} ({sf.detail})",
                                        upstream=up.name, target=link.href))
                continue
            if text is None:
                out.append(self.unavailable(doc, link.line, up.name, gl.path,
                                            f"{sf.status.value}: {sf.reason}",
                                            fragment=gl.fragment))
                continue
            if gl.start is None:
                continue
            n = len(source_lines(text))
            end = gl.end or gl.start
            if end > n:
                out.append(self.finding(doc, link.line, f"#{gl.fragment} lies past the end of "
                                        f"{gl.path}, which has {n} lines at {up.short}",
                                        upstream=up.name, target=link.href, lines=n))
        return out
