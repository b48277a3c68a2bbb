"""`signature`: the sentence names parameters of a callable it names.

- keyword arguments of a call span (`SensorIMU(model, sites=..., verbose=True)`:
  `sites`, `verbose`): each must be a parameter, in any order (`match = "names"`: a
  call's keywords assert no order). A keyword the signature lacks comes out `diverged`;
- code spans of the sentence that are parameter names of a callable span it names
  ("`mj_step` 的 `m` 和 `d`"): each is a parameter (`match = "names"`); in the order
  written (`match = "subset"`) when the sentence says they come in order.

Positional argument names of a call span are the lesson's own variable names
(`mj_differentiatePos(model, out_v, ...)` for `m, qvel, ...`): notation, never
proposed. A callable taking `**kwargs` accepts any keyword: those are not proposed."""

from __future__ import annotations

import re

from verifier.draft.index import CALLABLES
from verifier.draft.proposers.base import Proposer, one_owner, proposal
from verifier.draft.reading import ORDER_HINT


def _position(raw: str, name: str) -> int:
    m = re.search(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])", raw)
    return m.start() if m else len(raw)


def _open_kwargs(params) -> bool:
    return any(p.startswith("**") for p in params or ())


class SignatureProposer(Proposer):
    name = "signature"

    def propose(self, s, env):
        out = []
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
