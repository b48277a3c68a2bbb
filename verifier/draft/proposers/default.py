"""`default`: the sentence states a default value, read from the sentence:

- `X=V` (a span, or a keyword argument of a call span) in a sentence that says
  "default"/"默认";
- "`X` 默认(为|是) V", "`X` defaults to V", "`X` 的默认值为 V";
- "`X`（默认 V）", "`X` (default: V)";
- a table row under a header column saying "default"/"默认".

`X` must be a field/attribute of a container, or a parameter of a callable the
sentence (or the table's introduction, or a cited definition) names, with a default
at the pin; `V` must be a literal (a number with or without unit, a boolean):
identifiers, strings and expressions are not proposed (their spelling differs from
the source's without the meaning differing)."""

from __future__ import annotations

import re

from verifier.draft.context import DEFAULT_WORDS, TYPES
from verifier.draft.index import CALLABLES
from verifier.draft.proposers.base import Proposer, literal, proposal, with_constructors

_FIELDS = {"field", "attribute", "variable"}
# `X=V` as a condition ("`X=False` 时", "when `X=False`", "若 `X=False`") names a
# setting other than the default: the sentence's default is stated elsewhere
_COND_AFTER = re.compile(r"^`?\s*(?:时|的时候|之时|情况下|for\b|时候)")
_COND_BEFORE = re.compile(r"(?:当|如果|若|若是|假如|一旦|设为|设置为|改为|传入|传|\bif|\bwhen|\bwith|"
                          r"\bunless|\bpass(?:ing)?|\bset(?:ting)?)\s*`?$", re.I)


_LEAD = re.compile(r"(?:默认|缺省|默认值|defaults?(?: to| is)?|by default|default call)\s*(?:为|是|:|：)?"
                   r"\s*(?:调用|call(?:s|ing)?)?\s*$", re.I)


_TRAIL = re.compile(r"^\s*(?:即为|就是|是|为)?\s*(?:默认|缺省|is the default|are the defaults|by default)",
                    re.I)


def _default_leads(raw: str, span: str) -> bool:
    """The default word right before the call span, or right after it."""
    return any(_LEAD.search(raw[max(0, m.start() - 16):m.start()])
               or _TRAIL.match(raw[m.end():m.end() + 16])
               for m in re.finditer(re.escape("`" + span + "`"), raw))


def _conditional(raw: str, span: str) -> bool:
    """Every occurrence of the span `X=V` in the sentence reads as a condition."""
    hits = [m for m in re.finditer(re.escape("`" + span + "`"), raw)]
    return bool(hits) and all(_COND_AFTER.match(raw[m.end():m.end() + 8].lstrip())
                              or _COND_BEFORE.search(raw[max(0, m.start() - 12):m.start()].rstrip())
                              for m in hits)
_AFTER = re.compile(r"^[`*]*\s*[（(]?\s*(?:的默认值|默认值|默认|缺省值|缺省|defaults? to|by default is|"
                    r"has a default of|default:?)\s*(?:为|是|取|=|:|：|of)?\s*", re.I)


class DefaultProposer(Proposer):
    name = "default"

    def propose(self, s, env):
        out = []
        callables = [h for h in s.hits if h.best.kind in CALLABLES | {"class"}]
        if s.unit.row:
            out += self._row(s, env)
        if not s.says_default:
            return out
        # `X=V` spans and keyword arguments
        pairs = []
        for h in s.hits:
            if h.ref.value is not None and not _conditional(s.raw, h.ref.span):
                pairs.append((h.ref.name, h.ref.value, h.ref.span, h))
            # a call's keyword arguments state defaults only when the default word
            # leads into the call ("默认 `f(x=1)`"); `f(x=False)` 与默认…共享 passes x
            if h.ref.kwargs and _default_leads(s.raw, h.ref.span):
                for k, v in h.ref.kwargs:
                    pairs.append((k, v, h.ref.span, ("param-of", h)))
        for r in s.unresolved:
            if r.value is not None and len(r.parts) == 1 and not _conditional(s.raw, r.span):
                pairs.append((r.name, r.value, r.span, None))
        # "`X` 默认为 V"
        for h in s.hits:
            for m in re.finditer(re.escape("`" + h.ref.span + "`"), s.raw):
                tail = s.raw[m.end():m.end() + 40]
                a = _AFTER.match(tail)
                if a:
                    pairs.append((h.ref.name, tail[a.end():], h.ref.span, h))
        # a callable the sentence cites (`[add_site](...#L8191)`) takes parameters too
        for c in s.cited:
            if c.enclosing is not None and c.enclosing.kind in CALLABLES:
                from verifier.draft.context import Hit
                from verifier.draft.spans import Ref

                callables.append(Hit(Ref(c.enclosing.name, (c.enclosing.name,)), c.upstream,
                                     (c.enclosing,), "cited"))
        done = set()
        for name, value, span, where in pairs:
            ok, v = literal(value)
            if not ok or name in done:
                continue
            p = self._locate(name, v, span, where, callables, s, env)
            if p is not None:
                done.add(name)
                s.used.add(name)
                out.append(p)
        return out

    def _locate(self, name, v, span, where, callables, s, env):
        """A parameter with a default at the pin (of the call span, of a callable the
        sentence names, of the constructor of the field's class), else a field with an
        initializer; nothing when the pin has no default there to compare with."""
        if isinstance(where, tuple):          # a keyword argument of that call
            h = where[1]
            for d in with_constructors(env, h.upstream, h.defs):
                if d.kind in CALLABLES and name in d.defaulted:
                    return proposal(self.name, "default", h, env, d=d, expected=v,
                                    options={"param": name}, anchor=span)
            return None
        for h in callables:
            for d in with_constructors(env, h.upstream, h.defs):
                if name in d.defaulted:
                    return proposal(self.name, "default", h, env, d=d, expected=v,
                                    options={"param": name}, anchor=span)
        cited = {(c.upstream, c.path) for c in s.cited}
        if where is not None and where.best.container and (
                where.how in ("qualified", "module", "receiver")
                or (where.upstream, where.best.path) in cited):
            f = where.best
            ctor = self._constructor(env, where.upstream, f, name)
            if ctor is not None:
                return proposal(self.name, "default", where, env, d=ctor, expected=v,
                                options={"param": name}, anchor=span)
            if f.kind in _FIELDS and f.valued:
                return proposal(self.name, "default", where, env, expected=v, anchor=span)
        return None

    @staticmethod
    def _constructor(env, up, f, name):
        """The constructor of `f`'s class when it takes `name` with a default
        (`self.iterations = iterations` is set from `__init__(iterations=2)`)."""
        for d in env.indexes[up].by_path.get(f.path, []):
            # a constructor generated from the fields (dataclass, pydantic, attrs) takes
            # the field's own default: the field is the claim's locator
            if d.qual[:-1] == f.qual[:-1] and d.kind in ("constructor", "method") \
                    and d.name in ("__init__", f.qual[-2]) and name in d.defaulted \
                    and d.origin != "generated":
                return d
        return None

    def _row(self, s, env):
        """| `field` | V | ... | under a header with a default column."""
        header = s.unit.header
        col = next((i for i, h in enumerate(header) if DEFAULT_WORDS.search(h)), None)
        if col is None or col == 0 or col >= len(s.unit.cells):
            return []
        names = s.unit.cells[0][1]
        if len(names) != 1:
            return []
        ok, v = literal(s.unit.cells[col][0])
        if not ok:
            return []
        name = names[0]
        # the container: the table's introduction, or a permalink of the row
        owners = []
        for span in s.unit.context:
            from verifier.draft.spans import refs

            for r in refs(span):
                h = env.resolver.resolve(r)
                if h is not None:
                    owners.append(h)
        for c in s.cited:
            if c.enclosing is not None:
                owners.append(c)
        for o in owners:
            if hasattr(o, "defs"):
                up = o.upstream
                for d in o.defs:
                    owner = d.container if d.container and d.kind not in TYPES else d.name
                    for m in env.indexes[up].members(owner):
                        if m.name == name and m.kind in _FIELDS and m.valued:
                            s.used.add(name)
                            return [proposal(self.name, "default", up, env, d=m, expected=v,
                                             anchor=name)]
                    if name in d.defaulted:
                        s.used.add(name)
                        return [proposal(self.name, "default", up, env, d=d, expected=v,
                                         options={"param": name}, anchor=name)]
            else:
                e = o.enclosing
                for m in env.indexes[o.upstream].by_path.get(e.path, []):
                    if m.name == name and m.kind in _FIELDS and m.valued \
                            and m.qual[:-1] == e.qual:
                        s.used.add(name)
                        return [proposal(self.name, "default", o.upstream, env, d=m,
                                         expected=v, anchor=name)]
        return []
