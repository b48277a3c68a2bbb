from __future__ import annotations

import re

from verifier.lint.base import Rule
from verifier.lint.rules._links import definitions_in, file_lines, readable, upstream_links
from verifier.lint.shapes import classify
from verifier.results import Severity

_NOT_DECLARATIONS = frozenset({"import", "parameter", "keyword"})
NEAR = 10      # lines between the cited range and the named declaration


class PermalinkRelevance(Rule):
    """A permalink with a line range into a file served at pinned identity, whose
    label names nothing, in a sentence (or table row) whose code spans name exactly
    symbol that the cited file declares (a sentence closing its paragraph with links
    only: the paragraph's names): when the cited lines do not mention it, lie outside
    its declaration, and declare a neighbour of it instead (same kind, same parent,
    at most 10 lines away), the range cites the wrong declaration: a warning saying
    where the named one is ("mujoco.h#L636-L638 cites `mj_objectAcceleration`; the
    sentence names `mj_objectVelocity`, which is at mujoco.h#L633-L634"). Names the
    file does not declare, several candidates, or a range far from the named
    declaration (a helper it calls may be meant) say nothing."""

    name = "permalink-relevance"
    code = "VL111"
    severity = "warning"

    def check(self, ctx, doc, lesson):
        out = []
        links = {(link.href, link.block): (link, gl, up)
                 for link, gl, up in upstream_links(ctx, lesson)}
        units: dict[int, list] = {}
        blocks: dict[int, set[str]] = {}
        lines = doc.text.split("\n")
        for s in lesson.sentences:
            raw = lines[s.line - 1] if 0 < s.line <= len(lines) else ""
            key = -s.line if raw.lstrip().startswith("|") else s.block * 100000 + s.start
            units.setdefault(key, []).append(s)
            blocks.setdefault(-s.line if key < 0 else s.block, set()).update(_names(s))
        for key, unit in units.items():
            names = set().union(*(_names(s) for s in unit))
            para = blocks.get(key if key < 0 else unit[0].block, set())
            seen = set()
            for s in unit:
                for href in s.links:
                    hit = links.get((href, s.block))
                    if hit is None or href in seen:
                        continue
                    seen.add(href)
                    f = self._judge(ctx, doc, names, para, *hit)
                    if f is not None:
                        out.append(f)
        return out

    def _judge(self, ctx, doc, names, para, link, gl, up):
        if (gl.start is None or link.label_code or not readable(ctx, gl, up)
                or up.name not in doc.upstreams):
            return None
        _, text = ctx.source(up.name, gl.path)
        if text is None:
            return None
        lines = file_lines(ctx, up.name, gl.path, text)
        start, end = gl.start, min(gl.end or gl.start, len(lines))
        if start > end:
            return None
        idx = ctx.index(up.name)
        # the sentence's names the cited file declares; a sentence that names none
        # (`[API 声明](…)、[实现](…)。` closing a paragraph): its paragraph's
        declared = _declared(idx, gl.path, names) or _declared(idx, gl.path, para)
        if len(declared) != 1:
            return None                  # nothing, or several candidates
        name, decl = next(iter(declared.items()))
        cited = "\n".join(lines[start - 1:end])
        if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", cited):
            return None                  # the range mentions it
        if any(d.line <= end and (d.end or d.line) >= start for d in decl):
            return None                  # the range lies in (or on) its declaration
        # the neighbouring declaration: the same kind under the same parent, a few
        # lines away (a range that cites a helper far off may be meant)
        here = [d for d in definitions_in(ctx, idx, gl.path, start, end)
                if d.kind not in _NOT_DECLARATIONS and d.name != name
                and any(d.kind == n.kind and d.parent == n.parent
                        and min(abs(d.line - n.line), abs(start - (n.end or n.line)),
                                abs(n.line - end)) <= NEAR for n in decl)]
        if not here:
            return None
        d0 = min(decl, key=lambda d: d.line)
        at = f"L{d0.line}" + (f"-L{d0.end}" if d0.end and d0.end > d0.line else "")
        cites = f"L{start}" + (f"-L{end}" if end > start else "")
        return self.finding(
            doc, link.line, f"{gl.path}#{cites} cites `{here[0].name}`; the sentence names "
            f"`{name}`, which is at {gl.path}#{at}", severity=Severity.WARNING,
            upstream=up.name, target=gl.path, name=name, cited=here[0].name,
            declared=at)


def _names(s) -> set[str]:
    return {ref.last for code in s.code for ref in classify(code)}


def _declared(idx, path: str, names) -> dict:
    out = {}
    for n in sorted(names):
        decl = [s for s in idx.lookup(n) if s.path == path
                and s.kind not in _NOT_DECLARATIONS and s.line]
        if decl:
            out[n] = decl
    return out
