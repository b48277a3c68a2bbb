from __future__ import annotations

import hashlib
import re

from verifier.textlines import source_lines
from verifier.lint.base import Rule
from verifier.lint.rules._links import readable, upstream_links
from verifier.lint.shapes import names_in_text
from verifier.results import Severity


def fingerprint(lines: list[str]) -> str:
    """sha256 of the cited lines, each with its whitespace collapsed and stripped,
    joined by newlines: reformatting does not change it, any token change does."""
    norm = "\n".join(" ".join(line.split()) for line in lines)
    return "sha256:" + hashlib.sha256(norm.encode("utf-8")).hexdigest()


class PermalinkAnchor(Rule):
    """For every pinned permalink with a line range into a file available at pinned
    identity, record a fingerprint of the cited lines (sha256 of the
    whitespace-normalised text; info finding) so a pin upgrade can tell moved code
    from changed code. When the link text, or a code span right before the link,
    names an identifier, the cited lines must define or use it (the finding says
    which); otherwise it is an error."""

    name = "permalink-anchor"
    code = "VL103"
    severity = "info / error"

    def check(self, ctx, doc, lesson):
        out = []
        for link, gl, up in upstream_links(ctx, lesson):
            if gl.start is None or not readable(ctx, gl, up):
                continue
            end = gl.end or gl.start
            if end < gl.start:
                continue  # permalink-target reports it
            sf, text = ctx.source(up.name, gl.path)
            if text is None:
                continue  # permalink-target reports the unavailable source
            lines = source_lines(text)
            if end > len(lines):
                continue  # permalink-target reports it
            cited = lines[gl.start - 1:end]
            fp = fingerprint(cited)
            names = []
            for ref in names_in_text(link.text):
                names.append(ref)
            if link.code_before:
                from verifier.lint.shapes import classify

                names.extend(classify(link.code_before))
            rng = f"L{gl.start}" + (f"-L{end}" if end != gl.start else "")
            seen, found, missing = set(), [], []
            defs = None
            for ref in names:
                name = ref.last
                if name in seen:
                    continue
                seen.add(name)
                if defs is None:
                    idx = ctx.index(up.name)
                    defs = idx.definitions_in(gl.path, gl.start, end)
                # C: `typedef enum mjtState_ {...} mjtState;` - the tag names it too
                spellings = [name, *([idx.aliases[name]] if name in idx.aliases else [])]
                d = [s for s in defs if s.name in spellings]
                if d:
                    found.append(f"`{name}` defined at L{d[0].line}")
                    continue
                pat = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, spellings))
                                 + r")(?![A-Za-z0-9_])")
                hits = [gl.start + i for i, ln in enumerate(cited) if pat.search(ln)]
                if hits:
                    found.append(f"`{name}` used at L{hits[0]}")
                    continue
                inner = [s for s in defs if s.parent in spellings]
                if inner:
                    found.append(f"cited lines define members of `{name}` "
                                 f"(`{inner[0].name}` at L{inner[0].line})")
                    continue
                missing.append(name)
            if not any(line.strip() for line in cited):
                missing_msg = (f"{gl.path}#{rng} cites only blank lines at {up.short}")
                out.append(self.finding(doc, link.line, missing_msg, upstream=up.name,
                                        target=link.href, fingerprint=fp, path=gl.path,
                                        start=gl.start, end=end, blob=sf.blob))
                continue
            data = {"path": gl.path, "start": gl.start, "end": end, "blob": sf.blob,
                    "status": sf.status.value, "names_found": found}
            if missing:
                msg = (f"link text names {', '.join(f'`{m}`' for m in missing)} but "
                       f"{gl.path}#{rng} neither defines nor uses it")
                out.append(self.finding(doc, link.line, msg, upstream=up.name, target=link.href,
                                        fingerprint=fp, **data, missing=missing))
            else:
                msg = f"{gl.path}#{rng} fingerprint {fp[:19]}…" + (
                    f"; {'; '.join(found)}" if found else "")
                out.append(self.finding(doc, link.line, msg, severity=Severity.INFO,
                                        upstream=up.name, target=link.href, fingerprint=fp,
                                        **data))
        return out
