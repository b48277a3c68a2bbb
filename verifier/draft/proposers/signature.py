"""`signature`: the sentence names parameters of a callable it names.

- keyword arguments of a call span (`SensorIMU(model, sites=..., verbose=True)`:
  `sites`, `verbose`): each must be a parameter, in any order (`match = "names"`: a
  call's keywords assert no order). A keyword the signature lacks comes out `diverged`;
- code spans of the sentence that are parameter names of a callable span it names
  ("`mj_step` 的 `m` 和 `d`"): each is a parameter (`match = "names"`); in the order
  written (`match = "subset"`) when the sentence says they come in order.

Positional argument names of a call span are the lesson's own variable names
(`mj_differentiatePos(model, out_v, ...)` for `m, qvel, ...`): notation, never
proposed. A callable taking `**kwargs` accepts any keyword: those are not proposed.
- a bare `kw=value` span in a sentence whose context names one class: a keyword of its
  constructor, when it takes `kw` or has a parameter `kw` reads as a slip of
  (`with_limits` for `with_joint_limits`)."""

from __future__ import annotations

import re

from verifier.claims.compare.base import close_names
from verifier.draft.index import CALLABLES
from verifier.draft.proposers.base import Proposer, one_owner, proposal, with_constructors
from verifier.draft.reading import ORDER_HINT


def _position(raw: str, name: str) -> int:
    m = re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", raw)
    return m.start() if m else len(raw)


def _open_kwargs(params) -> bool:
    return any(p.startswith("**") for p in params or ())


def _near_param(kw: str, params) -> str | None:
    """A parameter `kw` reads as a slip of: close in spelling, or holding all of its words
    (`with_limits` for `with_joint_limits`)."""
    names = [p for p in params or () if not p.startswith("*")]
    close = close_names(kw, names, n=1)
    if close:
        return close[0]
    words = set(kw.split("_"))
    held = [p for p in names if len(words) > 1 and words < set(p.split("_"))]
    return held[0] if len(held) == 1 else None


class SignatureProposer(Proposer):
    name = "signature"

    def propose(self, s, env):
        out = self._bare_keywords(s, env)
        for h in s.hits:
            defs = [d for d in h.defs if d.kind in CALLABLES | {"class"}]
            if not defs or not one_owner(h):
                continue
            d = defs[0]
            kw = [k for k, _ in h.ref.kwargs]
            # keyword arguments are a Python calling convention: checked against Python
            # definitions or pybind11 bindings, never C/C++ declarations
            if kw and not any(x.lang == "python" or x.origin == "pybind11" for x in defs):
                continue
            d = next(x for x in defs if not kw or x.lang == "python" or x.origin == "pybind11")
            if kw and h.ref.call:
                if _open_kwargs(d.params) and not all(k in (d.params or ()) for k in kw):
                    continue
                p = proposal(self.name, "signature", h, env, d=d, expected=kw,
                             options={"match": "names"})
                p.says = [k for k in kw]
                p.reading = f"`{h.ref.name}` takes " + ", ".join(f"`{k}`" for k in kw)
                out.append(p)
                continue
            # other spans of the sentence that are its parameters
            named = [n for n in dict.fromkeys(
                x.ref.name for x in s.hits if x is not h) if d.params and n in d.params]
            named += [r.name for r in s.unresolved if len(r.parts) == 1 and d.params
                      and r.name in d.params and r.name not in named]
            if named and not h.ref.call:
                # in the order the sentence writes them (`hx/hy/hz`), whether resolved or not
                order = sorted(dict.fromkeys(named), key=lambda n: _position(s.raw, n))
                ordered = len(order) >= 2 and bool(ORDER_HINT.search(s.text))
                p = proposal(self.name, "signature", h, env, d=d, expected=order,
                             options={"match": "subset" if ordered else "names"})
                p.says = list(order)
                p.reading = f"`{h.ref.name}` takes " + ", ".join(f"`{n}`" for n in order) \
                    + (" in this order" if ordered else "")
                out.append(p)
                s.used.update(named)
        return out

    def _bare_keywords(self, s, env):
        """`with_joint_limits=False` alone, in a sentence whose context (its paragraph or
        section) names one class: a keyword of that class's constructor. Proposed when
        the constructor takes it, or lacks it but has a parameter it reads as a slip of
        (`with_limits` for `with_joint_limits`); any other name may be something else (an
        attribute, an XML setting) and is left alone."""
        from verifier.draft.context import Hit
        from verifier.draft.spans import Ref

        bare = [r for r in s.unresolved if r.value is not None and len(r.parts) == 1
                and not r.call and r.name not in s.used]
        if not bare or any(h.ref.call for h in s.hits):
            return []
        # the nearest class: the paragraph's last one, else the context's first
        here = env.resolver.containers(list(s.before))
        context = next((names for _, names in s.scope.levels if names), ())
        nearest = here[-1] if here else context[0] if context else None
        if nearest is None:
            return []
        ctors = []
        for up, idx in env.indexes.items():
            classes = [d for d in idx.lookup(nearest) if d.kind == "class"
                       and (d.lang == "python" or d.origin == "pybind11")]
            if len(classes) == 1:
                ctors += [(up, classes[0], c) for c in with_constructors(env, up, classes)
                          if c.kind in CALLABLES and c.params is not None]
        if len({(u, c.qual) for u, c, _ in ctors}) != 1 \
                or any(_open_kwargs(c.params) for _, _, c in ctors):
            return []
        up, cls, _ = ctors[0]
        out = []
        for r in bare:
            if not any(r.name in c.params for _, _, c in ctors) and \
                    not any(_near_param(r.name, c.params) for _, _, c in ctors):
                continue
            h = Hit(Ref(cls.name, (cls.name,)), up, (cls,), "context")
            p = proposal(self.name, "signature", h, env, d=cls, expected=[r.name],
                         options={"match": "names"}, anchor=r.span)
            p.says = [r.name]
            p.reading = f"`{cls.name}` takes the keyword `{r.name}`"
            s.used.add(r.name)
            out.append(p)
        return out
