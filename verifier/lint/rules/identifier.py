from __future__ import annotations

import ast

from verifier.lint.base import Rule
from verifier.lint.resolve import Resolver
from verifier.lint.shapes import classify


def local_names(lesson) -> set[str]:
    """Names the lesson's own Python blocks define (functions, classes, parameters,
    assigned variables): lesson-local, not upstream API. Imports are not local: an
    imported name is the upstream's."""
    out: set[str] = set()
    for block in lesson.code_blocks:
        if block.lang not in ("python", "py", "python3"):
            continue
        try:
            tree = ast.parse(block.text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.arg):
                out.add(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return out


def lesson_resolver(ctx, doc, lesson) -> Resolver:
    return Resolver([ctx.index(u) for u in doc.upstreams], local_names(lesson))


class Identifier(Rule):
    """Inline code shaped like an API name (`mj_resetDataKeyframe`, `sensor_adr`,
    `SensorTiledCamera.ClearData`, `plant.get_x()`, `data.sensor(name).data`,
    `newton.intersect_ray`) must resolve in the symbol index of the lesson's
    upstream(s) at the pin (C functions/macros/enums/fields, C++ classes/methods,
    Python modules/classes/functions/attributes and what the pinned wheel exports).
    Formula variables, MJCF attributes, paths, numbers and plain words are not API
    names (see verifier/lint/shapes.py). Names the lesson's own code defines are
    local. A name that cannot be looked up because its sources are unavailable is
    reported once per lesson and upstream as source-unavailable, never passed."""

    name = "identifier"
    code = "VL104"

    def check(self, ctx, doc, lesson):
        if not doc.upstreams:
            return []
        resolver = lesson_resolver(ctx, doc, lesson)
        partial = [i.upstream for i in resolver.indexes if not i.complete]
        out = []
        for span in lesson.code_spans:
            for ref in classify(span.text):
                res = resolver.resolve(ref)
                if res.status == "resolved":
                    continue
                if res.status == "unresolved":
                    out.append(self.finding(
                        doc, span.line, f"`{span.text}`: {res.how}",
                        upstream=",".join(doc.upstreams), target=span.text, name=ref.last,
                        reference=ref.dotted, suggestion=res.suggestion))
                else:
                    up = partial[0] if partial else doc.upstreams[0]
                    out.append(self.unavailable(doc, span.line, up, ref.dotted, res.how,
                                                span=span.text, name=ref.last))
        return out
