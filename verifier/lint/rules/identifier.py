from __future__ import annotations

from verifier.lint.base import Rule
from verifier.lint.rules._judge import judge
from verifier.lint.rules._names import lesson_scope
from verifier.lint.shapes import classify
from verifier.results import Severity


def other_indexes(ctx, exclude) -> list:
    """Indexes of the pinned upstreams a lesson does not declare (evidence of
    existence only: `mj_step` in a Newton lesson is MuJoCo's)."""
    return [ctx.index(u) for u in sorted(ctx.project.pins.upstream) if u not in exclude]


class Identifier(Rule):
    """Inline code shaped like an API name (`mj_resetDataKeyframe`, `sensor_adr`,
    `SensorTiledCamera.ClearData`, `plant.get_x()`, `data.sensor(name).data`,
    `newton.intersect_ray`, `mjv_defaultCamera/Option`) must resolve in the symbol
    index of the lesson's upstream(s) at the pin (C functions/macros/enums/fields,
    C++ classes/methods, Python modules/classes/functions/attributes and what the
    pinned wheel exports); a name the sentence attributes to another pinned upstream
    (or found in one) is looked up there. Not upstream identifiers: formula
    variables, MJCF attributes, paths, numbers, plain words, product and file-format
    words (verifier/lint/shapes.py); names of the host languages and of the other
    libraries the lesson uses (its imports, the libraries it links, a library named
    right before the name: "MuJoCo-Warp 的 `x`"); environment variables; names the
    lesson's own code or its linked example files define, or that its sentence
    gives to its example; names the lesson says do not exist ("没有 `X`", "there
    is no `X`"). A name that is conclusively absent is an error; one that cannot be
    looked up because its sources are unavailable is reported once per lesson and
    upstream as source-unavailable (a near-miss "did you mean" never makes it an
    error); a name the pinned release's surface lacks while its source is
    unavailable is a warning on its line."""

    name = "identifier"
    code = "VL104"

    def check(self, ctx, doc, lesson):
        if not doc.upstreams:
            return []
        scope = lesson_scope(ctx, doc, lesson)
        own = [ctx.index(u) for u in doc.upstreams]
        others = None
        out = []
        for i, span in enumerate(lesson.code_spans):
            for ref in classify(span.text):
                root = None if ref.leading_dot else ref.segments[0]
                if ref.dotted in scope.local or (root in scope.local and (
                        len(ref.segments) == 1 or root in ("self", "cls"))):
                    continue
                if len(ref.segments) == 1 and ref.last in scope.env_vars:
                    continue
                if root and scope.external_root(root):
                    continue
                indexes = list(own)
                named = scope.root_upstream(root) if root else None
                owner = scope.owner(scope.spans[i].before) if i < len(scope.spans) else None
                if owner and owner[0] == "external" and named is None:
                    continue   # "MuJoCo-Warp 3.12.0 `contact_force_fn`": not this upstream's
                attributed = named or (owner[1] if owner else None)
                if attributed and attributed not in doc.upstreams:
                    indexes = [ctx.index(attributed), *own]
                if others is None:
                    others = other_indexes(ctx, doc.upstreams)
                j = judge(indexes, ref, scope.local,
                          fallback=[x for x in others if x.upstream != attributed])
                if j.status == "resolved":
                    continue
                if scope.negated(i) or root in ("self", "cls") or (
                        len(ref.segments) == 1 and scope.about_example(i)):
                    continue   # said not to exist; the lesson's own object or example
                up = attributed if attributed and attributed not in doc.upstreams else (
                    j.upstream or _partial(own) or doc.upstreams[0])
                if j.status == "unresolved":
                    sev = Severity.ERROR if attributed in (None, *doc.upstreams) \
                        else Severity.WARNING
                    how = j.how if sev is Severity.ERROR else (
                        f"{j.how} ({attributed}, which the sentence names, is not an "
                        f"upstream of this lesson)")
                    out.append(self.finding(
                        doc, span.line, f"`{span.text}`: {how}", severity=sev,
                        upstream=",".join(doc.upstreams) if sev is Severity.ERROR else up,
                        target=span.text, name=ref.last, reference=ref.dotted,
                        suggestion=j.suggestion))
                elif j.status == "inconclusive":
                    out.append(self.unavailable(doc, span.line, up, ref.dotted, j.how,
                                                span=span.text, name=ref.last,
                                                suggestion=j.suggestion))
                else:   # e.g. not in the pinned release (its surface lacks it)
                    out.append(self.finding(
                        doc, span.line, f"`{span.text}`: {j.how}", severity=Severity.WARNING,
                        upstream=up, target=span.text, name=ref.last, reference=ref.dotted,
                        status=j.status, suggestion=j.suggestion))
        return out


def _partial(indexes) -> str | None:
    return next((i.upstream for i in indexes if not i.complete), None)
