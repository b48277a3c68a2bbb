from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifier.lint.base import Rule
from verifier.lint.closed import declaration, typo_of
from verifier.lint.rules._judge import Judgement, closed_family_miss, judge
from verifier.lint.rules._links import readable, upstream_links
from verifier.lint.rules._names import lesson_scope, memo
from verifier.lint.shapes import classify
from verifier.results import Severity


_LITERAL = re.compile(r"\"([A-Za-z_][A-Za-z0-9_]*)\"")


def other_indexes(ctx, exclude, named) -> list:
    """Indexes of the pinned upstreams a lesson does not declare but names (evidence
    of existence only: `mj_step` in a Newton lesson that speaks of MuJoCo)."""
    return [ctx.index(u) for u in sorted(ctx.project.pins.upstream)
            if u not in exclude and u in named]


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
    is no `X`"). A name that is conclusively absent is an error, and so is a near
    slip (one letter dropped, added, changed or swapped, a plural) of a name a closed
    world declares: a part of the upstream the pinned release serves whole (a wheel
    map rule whose files are all served: MuJoCo's `include/mujoco/`, Newton, Warp,
    MJX), the pinned release's listing of its compiled modules (pydrake's stubs and
    environment), or any file served at pinned identity — with "did you mean" and the
    declaration's permalink. So is a bare name shaped like the fields of a C struct a
    served header defines (`jnt_qveladr`: its prefix is that of at least four of
    `mjModel`'s fields) that no served file writes, not even in a comment. One that
    cannot be decided because its sources are unavailable is an info finding on its
    line, counted in the lesson's source-unavailable summary; a name the pinned
    release's surface lacks while its source is unavailable is a warning on its line."""

    name = "identifier"
    code = "VL104"

    def check(self, ctx, doc, lesson):
        out = []
        for d in self.decisions(ctx, doc, lesson):
            j, span, ref, up = d.judgement, d.span, d.ref, d.upstream
            if j is None or j.status == "resolved":
                continue
            if j.status == "unresolved":
                foreign = d.attributed not in (None, *doc.upstreams)
                how = j.how if not foreign else (
                    f"{j.how} ({d.attributed}, which the sentence names, is not an upstream of "
                    "this lesson)")
                ups = list(dict.fromkeys(u for u in (d.attributed, up, *doc.upstreams)
                                         if u in ctx.project.pins.upstream))
                slip = typo_of(ctx, ref.last, ups,
                               ref.segments[-2] if len(ref.segments) >= 2 else None)
                if slip is not None and slip.meant != j.suggestion:
                    # a writing slip of a declared name says more than a similar name
                    base = how.split("; did you mean")[0]
                    j = Judgement(j.status, f"{base}; did you mean `{slip.meant}`?",
                                  j.upstream, slip.meant, j.reading)
                    how = j.how
                if j.suggestion and "https://" not in how:
                    at = declaration(ctx, ups, j.suggestion)
                    how += f" (`{j.suggestion}`: {at})" if at else ""
                out.append(self.finding(
                    doc, span.line, f"`{span.text}`: {how}",
                    severity=Severity.WARNING if foreign else Severity.ERROR,
                    upstream=up if foreign else ",".join(doc.upstreams), target=span.text,
                    name=ref.last, reference=ref.dotted, suggestion=j.suggestion))
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

    def decisions(self, ctx, doc, lesson) -> list["Decision"]:
        """What the rule decides for every API reference in the lesson's code spans:
        skipped (and why) or judged in which indexes."""
        if not doc.upstreams:
            return []
        scope = lesson_scope(ctx, doc, lesson)
        own = [ctx.index(u) for u in doc.upstreams]
        store = memo(ctx)
        others = None
        out = []
        for i, span in enumerate(lesson.code_spans):
            for ref in classify(span.text):
                why = self._skip(scope, i, ref)
                if why:
                    out.append(Decision(i, span, ref, skipped=why))
                    continue
                root = None if ref.leading_dot else ref.segments[0]
                named = scope.root_upstream(root) if root else None
                owner = scope.owner(scope.spans[i].before) if i < len(scope.spans) else None
                if owner and owner[0] == "external" and named is None:
                    # "MuJoCo-Warp 3.12.0 `contact_force_fn`": not this upstream's
                    out.append(Decision(i, span, ref, skipped=f"named after {owner[1]}"))
                    continue
                attributed = named or (owner[1] if owner else None)
                indexes = list(own)
                if attributed and attributed not in doc.upstreams:
                    indexes = [ctx.index(attributed), *own]
                j = judge(indexes, ref, scope.local, memo=store)
                if j.status != "resolved" and scope.mentioned - set(doc.upstreams):
                    if others is None:
                        others = other_indexes(ctx, doc.upstreams, scope.mentioned)
                    fb = [x for x in others if x.upstream != attributed]
                    if fb:
                        j2 = judge(indexes, ref, scope.local, fallback=fb, memo=store)
                        j = j2 if j2.status == "resolved" else j
                if j.status != "resolved":
                    where = self._quoted(ctx, doc, lesson, scope.spans[i].block, ref.dotted)
                    if where:
                        j = Judgement("resolved", f"written verbatim in the cited lines at {where} "
                                      "(the lesson quotes the source)", reading=ref)
                if j.status != "resolved":
                    where = self._literal(ctx, doc, lesson, ref.last)
                    if where:
                        j = Judgement("resolved", f"declared as a string literal at {where} "
                                      "(a port, keyword or registered name)", reading=ref)
                if j.status != "resolved" and (scope.negated(i) or scope.not_upstream(i)
                                               or root in ("self", "cls") or (
                        len(ref.segments) == 1 and scope.about_example(i))):
                    out.append(Decision(i, span, ref, skipped="the lesson says it does not "
                                        "exist, or it is the lesson's own object or example"))
                    continue
                if j.status not in ("resolved", "unresolved"):
                    j = _closed_world(ctx, doc, ref, attributed, j)
                if j.status not in ("resolved", "unresolved"):
                    j = _field_family(ctx, indexes, ref, j)
                up = attributed if attributed and attributed not in doc.upstreams else (
                    j.upstream or _partial(own) or doc.upstreams[0])
                out.append(Decision(i, span, ref, judgement=j, upstream=up,
                                    attributed=attributed, indexes=tuple(indexes)))
        return out

    @staticmethod
    def _quoted(ctx, doc, lesson, block: int, dotted: str) -> str | None:
        """Where the lines cited by a permalink of the span's own paragraph write the
        name verbatim (a docstring's example, a comment, code): the lesson quotes them."""
        if block < 0 or not dotted:
            return None
        store = memo(ctx)
        pat = re.compile(r"(?<![\w.])" + re.escape(dotted) + r"(?![\w])")
        for link, gl, up in upstream_links(ctx, lesson):
            if (link.block != block or gl.start is None or up.name not in doc.upstreams
                    or not readable(ctx, gl, up)):
                continue
            fkey = ("lines", up.name, gl.path)
            if fkey not in store:
                _, text = ctx.source(up.name, gl.path)
                store[fkey] = (text or "").splitlines()
            lines = store[fkey]
            end = min(gl.end or gl.start, len(lines))
            for n in range(gl.start, end + 1):
                if pat.search(lines[n - 1]):
                    return f"{gl.path}:{n}"
        return None

    @staticmethod
    def _literal(ctx, doc, lesson, name: str) -> str | None:
        """Where a served file the lesson cites declares `name` as a string literal
        (`DeclareVectorOutputPort("name", ...)`, `py::arg("name")`)."""
        store = memo(ctx)
        key = ("cited", doc.course, doc.path, hash(doc.text))
        if key not in store:
            store[key] = sorted({(up.name, gl.path) for _, gl, up in upstream_links(ctx, lesson)
                                 if up.name in doc.upstreams and readable(ctx, gl, up)})
        for upstream, path in store[key]:
            fkey = ("literals", upstream, path)
            if fkey not in store:
                _, text = ctx.source(upstream, path)
                found: dict[str, int] = {}
                for m in _LITERAL.finditer(text or ""):
                    found.setdefault(m.group(1), m.start())
                store[fkey] = (found, text)
            found, text = store[fkey]
            if name in found:
                return f"{path}:{text.count(chr(10), 0, found[name]) + 1}"
        return None

    @staticmethod
    def _skip(scope, i, ref) -> str | None:
        root = None if ref.leading_dot else ref.segments[0]
        if ref.dotted in scope.local or (root in scope.local and (
                len(ref.segments) == 1 or root in ("self", "cls"))):
            return "defined in the lesson's own code"
        if len(ref.segments) == 1 and ref.last in scope.env_vars:
            return "an environment variable"
        if root and scope.external_root(root):
            return f"`{root}` is another library's"
        return None


@dataclass(frozen=True)
class Decision:
    index: int                      # lesson.code_spans[index]
    span: object
    ref: object
    skipped: str | None = None
    judgement: Judgement | None = None
    upstream: str | None = None
    attributed: str | None = None
    indexes: tuple = field(default=(), repr=False)


def _closed_world(ctx, doc, ref, attributed, j: Judgement) -> Judgement:
    """A name no index holds that is a near slip of a name a closed world of its
    upstream declares (`verifier/lint/closed.py`): absent at the pin."""
    ups = [attributed] if attributed and attributed in ctx.project.pins.upstream else []
    ups += [u for u in doc.upstreams if u not in ups]
    container = ref.segments[-2] if len(ref.segments) >= 2 else None
    slip = typo_of(ctx, ref.last, ups, container)
    if slip is None:
        return j
    at = f" ({slip.where}: {slip.permalink})" if slip.permalink else f" ({slip.where})"
    return Judgement("unresolved", f"`{ref.last}` is not declared in {slip.world.label}; "
                     f"did you mean `{slip.meant}`{at}?", slip.world.upstream,
                     slip.meant, ref)


_WORDS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _field_family(ctx, indexes, ref, j: Judgement) -> Judgement:
    """A bare name shaped like the fields of a C struct a served header defines
    (`_judge.closed_family_miss`) that no served file of its upstream writes, even in a
    comment or a string: absent at the pin."""
    miss = closed_family_miss(indexes, ref)
    if miss is None:
        return j
    store = memo(ctx)
    for idx in indexes:
        key = ("words", idx.upstream)
        if key not in store:
            words: set[str] = set()
            for path in sorted(idx.files):
                _, text = ctx.source(idx.upstream, path)
                words.update(_WORDS.findall(text or ""))
            store[key] = words
        if ref.last in store[key]:
            return j
    return Judgement("unresolved", f"{miss}; no served file writes `{ref.last}`",
                     indexes[0].upstream, j.suggestion, ref)


def _partial(indexes) -> str | None:
    return next((i.upstream for i in indexes if not i.complete), None)
