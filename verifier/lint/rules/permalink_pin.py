from __future__ import annotations

from verifier.lint.base import Rule
from verifier.lint.rules._links import short_sha, upstream_links


class PermalinkPin(Rule):
    """A GitHub blob/tree/raw/commit link into a pinned upstream must cite that
    upstream's pinned commit (or another commit pins.toml pins for it, `also`), as a
    full 40-hex SHA: a branch, tag or other commit makes the citation drift or
    disagree with the version the lesson claims."""

    name = "permalink-pin"
    code = "VL101"

    def check(self, ctx, doc, lesson):
        out = []
        for link, gl, up in upstream_links(ctx, lesson):
            allowed = {up.commit, *up.also}
            if gl.ref in allowed:
                continue
            if gl.ref and len(gl.ref) >= 7 and any(c.startswith(gl.ref) for c in allowed):
                msg = (f"link into {up.name} uses the abbreviated commit {gl.ref}; write the "
                       f"full pinned SHA {up.commit}")
            elif gl.is_sha:
                msg = (f"link into {up.name} cites commit {short_sha(gl.ref, *allowed)}, which "
                       f"pins.toml does not pin ({up.name} is pinned at "
                       f"{short_sha(up.commit, gl.ref)}, {up.version})")
            else:
                msg = (f"link into {up.name} cites {gl.ref!r}, not a pinned commit SHA "
                       f"({up.name} is pinned at {up.commit[:12]}…)")
            out.append(self.finding(doc, link.line, msg, upstream=up.name, target=link.href,
                                    ref=gl.ref))
        return out
