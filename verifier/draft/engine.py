"""Draft claims for the checkable sentences of a lesson that no claim covers."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from verifier.claims.sentences import locate
from verifier.claims.coverage import fragment_offset, parsed, split_lessons, unit_of, units
from verifier.claims.loader import LoadedClaim, load_claims
from verifier.draft import fragment as fragments
from verifier.draft.context import Resolver, Scope, Sentence, cited, distinctive
from verifier.draft.grounding import code_aliases
from verifier.draft.index import index_for
from verifier.draft.model import LessonDraft, Proposal, slug
from verifier.draft.proposers import PROPOSERS, Env
from verifier.claims.saysdraft import code_spans_near
from verifier.draft.settle import settle
from verifier.draft.spans import refs

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def draft_lessons(project: "Project", lessons: "list[LessonDoc]"
                  ) -> tuple[list[LessonDraft], list[tuple[str, str]]]:
    """(drafts per lesson, [(page, why not drafted)]) in lesson order."""
    keep, excluded = split_lessons(project, lessons)
    existing = load_claims(project, keep)
    out = []
    for ld in sorted(keep, key=lambda d: (d.course, d.path)):
        mine = [lc for lc in existing if (lc.course, lc.lesson) == (ld.course, ld.path)]
        out.append(draft_lesson(project, ld, mine))
    return out, sorted((ld.name, why) for ld, why in excluded)


def draft_lesson(project: "Project", lesson: "LessonDoc", claims: list[LoadedClaim],
                 *, others: bool = False) -> LessonDraft:
    """Proposals for the sentences no claim in `claims` covers. With `others` (the
    suspect stage), a covered sentence is drafted too, for the statements its claims do
    not check: a proposal about a name or a span one of the sentence's claims already
    checks is dropped (that claim diverges when its words are edited)."""
    text = lesson.text
    pins = project.pins
    ups = [u for u in lesson.upstreams if u in pins.upstream]
    default_up = next((lc.upstream for lc in claims if lc.upstream and not lc.claim.upstream),
                      ups[0] if ups else None)
    us = units(text, pins)
    covered: dict[int, list[LoadedClaim]] = {}
    for lc in claims:
        off = fragment_offset(lc.claim.fragment, text) if lc.claim.fragment else None
        u = unit_of(us, off) if off is not None else None
        if u is not None:
            covered.setdefault(id(u), []).append(lc)
    todo = [(i, u) for i, u in enumerate(us) if others or id(u) not in covered]
    result = LessonDraft(course=lesson.course, lesson=lesson.path, upstream=default_up,
                         candidates=len(us),
                         uncovered=sum(1 for u in us if id(u) not in covered), proposals=[])
    if not ups:
        result.skipped = [(u.line, "the lesson's course names no pinned upstream")
                          for _, u in todo]
        return result
    indexes = {u: index_for(project, u) for u in ups}
    model = parsed(text)
    resolver = Resolver(indexes, text, [c.text for c in model.code_spans],
                        code_aliases([(b.lang, b.text) for b in model.code_blocks]))
    for link in model.links:
        if not link.label_code and link.text.strip():
            resolver.labels.setdefault(link.href, []).append(link.text.strip())
    # the files the lesson's permalinks cite, and the types they declare (`mjdata.h`
    # declares `mjData_`): context too
    cites = [c for c in cited(project, indexes, tuple(dict.fromkeys(ln.href for ln in model.links)))
             if c.available]
    resolver.cited_paths = tuple(dict.fromkeys(c.path for c in cites))
    resolver.cited_types = _cited_types(indexes, cites)
    env = Env(project=project, indexes=indexes, resolver=resolver, default_upstream=ups[0])
    ids = {lc.claim.id for lc in claims}
    seen_keys: set[tuple] = set()
    paragraphs: dict[int, list] = {}      # block -> its sentences (not table rows), in order
    for u in us:
        if not u.row:
            paragraphs.setdefault(u.block, []).append(u)
    for ui, u in todo:
        s = _sentence(project, lesson, text, u, resolver, indexes, model.headings,
                      _prior(us, u, model.headings))
        if not u.row:
            mates = paragraphs[u.block]
            s.nearby = cited(project, indexes, tuple(dict.fromkeys(
                h for v in mates for h in v.links if h not in u.links)))
            s.before = tuple(c for v in mates if v.start < u.start for c in v.code)
        props: list[Proposal] = []
        for proposer in PROPOSERS:
            if getattr(proposer, "last", False) and props:
                continue
            for p in proposer.propose(s, env):
                s.claimed.add((p.upstream, p.path))
                if p.symbol:     # a name a claim already locates gets no `symbol` claim too
                    s.used.add(_last(p.symbol))
                props.append(p)
        if id(u) in covered:
            props = [p for p in props if not _checked(p, covered[id(u)])]
        kept = 0
        for p in props:
            frag = fragments.choose(text, u.start, u.end, p.anchor)
            if frag is None:
                continue
            p.fragment = frag
            p.line = locate(frag, text) or u.line
            p.sentence = " ".join(u.text.split())[:200]
            p.unit = ui
            settle(p, text, code_spans_near(model, p.line), project.store)
            if p.key() in seen_keys:
                continue
            seen_keys.add(p.key())
            p.id = _unique(ids, _base_id(p))
            result.proposals.append(p)
            kept += 1
        if not kept and id(u) not in covered:
            result.skipped.append((u.line, _why_not(s)))
        for note in dict.fromkeys(s.ambiguous):
            result.ambiguous.append((u.line, note))
    return result


def _checked(p: Proposal, claims: list[LoadedClaim]) -> bool:
    """Does a claim of the sentence already check what `p` reads (the same name, or one
    of the same words)?"""
    from verifier.claims.says import spans_of

    mine = {_last(p.symbol), _last(p.options.get("param"))} - {None}
    words = {_said(x) for x in p.says} - {""}
    for lc in claims:
        c = lc.claim
        theirs = {_last(c.symbol), _last((c.options or {}).get("param"))} - {None}
        if mine & theirs:
            return True
        said = {sp.text for sp in spans_of(c.says)}
        if any(w in t or t in w for w in words for t in said if t):
            return True
    return False


def _last(name) -> str | None:
    """`C::m`, `C.m`, `m()` -> `m`."""
    if not isinstance(name, str) or not name:
        return None
    return name.replace("::", ".").rstrip("()").split(".")[-1]


def _said(x) -> str:
    from verifier.claims.says import plain

    return plain(x if isinstance(x, str) else str(x.get("text", "")) if isinstance(x, dict)
                 else "")


def _cited_types(indexes, cites) -> tuple[str, ...]:
    out: list[str] = []
    for c in cites:
        for d in indexes[c.upstream].by_path.get(c.path, []):
            if d.kind in ("struct", "class") and d.owner_kind in (None, "namespace", "module"):
                out.append(d.name)
    return tuple(dict.fromkeys(out))


def scope_of(resolver: Resolver, u, spans: list[str], headings, prior: list[str] = ()
              ) -> Scope:
    """The containers the sentence's context names, nearest first: the sentence (a
    table row's cells), its table (header row, the sentence introducing the table),
    its section (the headings above it, innermost first), then the code spans of the
    section's text before it (`prior`, in lesson order; nearest first)."""
    levels = [("sentence", resolver.containers(spans) + resolver.words(_plain(u)))]
    if u.row:
        levels.append(("table", resolver.containers(u.context)
                       + resolver.words(" ".join(u.header))))
    above = [h for h in headings if h.line <= u.line]
    chain, level = [], 99
    for h in reversed(above):
        if h.level < level:
            chain.append(h)
            level = h.level
    if chain:
        levels.append(("section", tuple(dict.fromkeys(
            c for h in chain for c in resolver.words(h.text)))))
    if prior:
        levels.append(("paragraphs", tuple(dict.fromkeys(reversed(
            resolver.containers(list(prior)))))))
    return Scope([(n, c) for n, c in levels if c])


def _plain(u) -> str:
    plain = u.text
    for c in u.code:
        plain = plain.replace(c, " ")
    return plain


def _sentence(project, lesson, text, u, resolver, indexes, headings=(), prior=()) -> Sentence:
    s = Sentence(unit=u, lesson=lesson, raw=text[u.start:u.end])
    s.cited = cited(project, indexes, u.links)
    cited_paths = {(c.upstream, c.path) for c in s.cited}
    seen = set()
    # link labels that are identifiers name the cited code too (`[mj_xfrcAccumulate](...)`)
    labels = [lab for href in u.links for lab in resolver.labels.get(href, ())
              if _IDENT.fullmatch(lab) and distinctive(lab.split(".")[-1])]
    s.scope = scope_of(resolver, u, [*u.code, *labels], headings, prior)
    for span in [*u.code, *labels]:
        for r in refs(span):
            key = (r.parts, r.call, r.value)
            if key in seen:
                continue
            seen.add(key)
            h = resolver.resolve(r, s.scope)
            if h is None:
                s.unresolved.append(r)
                continue
            if cited_paths:   # prefer a definition in a file the sentence cites
                defs = sorted(h.defs, key=lambda d: (h.upstream, d.path) not in cited_paths)
                h = type(h)(h.ref, h.upstream, tuple(defs), h.how)
            s.hits.append(h)
    return s


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")


def _base_id(p: Proposal) -> str:
    if p.symbol:
        name = p.symbol.replace("::", ".").split(".")[-1]
    elif p.anchor:
        name = p.anchor
    else:
        name = f"line-{p.line}"
    tail = {"symbol": "" if p.expected is not False else "absent", "runtime": "runtime"}
    suffix = tail.get(p.kind, p.kind.replace("_", "-"))
    if p.kind == "members" and p.options.get("match") == "count":
        suffix = "count"
    if p.kind == "default" and p.options.get("param"):
        name = p.options["param"]
    return slug(f"{name}-{suffix}" if suffix else name)


def _unique(ids: set[str], base: str) -> str:
    cand, n = base, 2
    while cand in ids:
        cand = f"{base}-{n}"
        n += 1
    ids.add(cand)
    return cand


def _why_not(s: Sentence) -> str:
    if s.cited and not any(c.available for c in s.cited):
        return "cites only files not available at pinned identity"
    if s.unit.code and not s.hits:
        return "names nothing the available pinned source defines"
    return "states nothing a proposal module can check"



def _prior(units, u, headings) -> list[str]:
    """Code spans of the sentences of `u`'s section (from its innermost heading; none
    before the first heading) that come before `u`."""
    top = max((h.line for h in headings if h.line <= u.line), default=None)
    if top is None:
        return []
    return [c for v in units if top <= v.line < u.line for c in v.code]
