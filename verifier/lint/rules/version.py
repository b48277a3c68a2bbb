from __future__ import annotations

import re

from verifier.lint.base import Rule

_HEX = re.compile(r"(?<![0-9A-Za-z])([0-9a-f]{7,40})(?![0-9A-Za-z])")
_VER = r"v?(\d+\.\d+(?:\.\d+)*)"
_GAP = r"[\s*_`:/（(]{0,6}"


class Version(Rule):
    """Version and commit mentions in the lesson text must agree with pins.toml: an
    upstream's name followed by a version (`MuJoCo 3.15.0`, `Drake v1.57.0`,
    `Newton **1.6.1**`, `Warp 1.18.0`) must equal its pinned version (a shorter
    `3.15` matches `3.15.0`), and a commit SHA (7-40 hex) must be a pinned commit,
    the one of the upstream the same sentence names."""

    name = "version"
    code = "VL105"

    def check(self, ctx, doc, lesson):
        pins = ctx.project.pins
        names = {up.name: up for up in pins.upstream.values()}
        alt = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
        mention = re.compile(rf"(?i)(?<![A-Za-z0-9-])({alt})(?![A-Za-z0-9-]){_GAP}{_VER}"
                             r"(?![\d.]*\d)")
        named = re.compile(rf"(?i)(?<![A-Za-z0-9-])({alt})(?![A-Za-z0-9-])")
        out = []
        for s in lesson.sentences:
            for m in mention.finditer(s.text):
                up = names[m.group(1).lower()]
                said = m.group(2)
                pinned = up.version.lstrip("v")
                if said == pinned or pinned.startswith(said + "."):
                    continue
                out.append(self.finding(doc, s.line, f"says {m.group(1)} {said}, but pins.toml "
                                        f"pins {up.name} {up.version}", upstream=up.name,
                                        target=m.group(0).strip(), said=said,
                                        pinned=up.version))
            mentioned = [names[n.group(1).lower()] for n in named.finditer(s.text)]
            for h in _HEX.finditer(s.text):
                sha = h.group(1)
                if not re.search(r"[a-f]", sha) or not re.search(r"\d", sha):
                    continue
                owners = [u for u in names.values()
                          if any(c.startswith(sha) for c in (u.commit, *u.also))]
                if not owners:
                    hint = (f" (the sentence names {', '.join(u.name for u in mentioned)}, "
                            f"pinned at {', '.join(u.commit[:12] + '…' for u in mentioned)})"
                            if mentioned else "")
                    out.append(self.finding(doc, s.line, f"commit {sha[:12]}… is not pinned "
                                            f"in pins.toml{hint}", target=sha,
                                            upstream=mentioned[0].name if mentioned else None))
                elif mentioned and not any(u in owners for u in mentioned):
                    out.append(self.finding(doc, s.line, f"commit {sha[:12]}… is the pin of "
                                            f"{owners[0].name}, but the sentence names "
                                            f"{', '.join(u.name for u in mentioned)}",
                                            target=sha, upstream=mentioned[0].name))
        return out
