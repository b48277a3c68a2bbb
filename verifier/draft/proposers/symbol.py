"""`symbol`: a code span naming an API the sentence uses exists at the pin; a name
the sentence says is absent (`没有 X`, "has no X") does not exist in the container
the sentence names."""

from __future__ import annotations

import re

from verifier.draft.context import TYPES
from verifier.draft.proposers.base import Proposer, proposal
from verifier.facts.model import LITERAL_KINDS

_PY = re.compile(r"python|pydrake|pybind|绑定|binding", re.I)


class SymbolProposer(Proposer):
    name = "symbol"

    def propose(self, s, env):
        out = []
        seen = set()
        for h in s.hits:
            d = h.best
            key = (h.upstream, d.path, d.qual)
            if h.ref.name in s.used or key in seen or d.kind == "module":
                continue
            if s.absent(h.ref.span):
                continue            # said to be absent, but defined: scope unclear, no claim
            seen.add(key)
            # a name declared by a string literal (a port) counts only when its kind is named
            opts = {"kinds": [d.kind]} if d.kind in LITERAL_KINDS else None
            p = proposal(self.name, "symbol", h, env, expected=True, options=opts)
            p.says = [h.ref.span]
            p.reading = f"`{h.ref.span}` exists"
            out.append(p)
        # absent names: only where the sentence names the container to look in
        containers = [h for h in s.hits if h.best.kind in TYPES]
        for r in s.unresolved:
            if len(r.parts) != 1 or not s.absent(r.span) or not containers or r.name in s.used:
                continue
            h = containers[0]
            defs = list(h.defs)
            if _PY.search(s.text):
                defs.sort(key=lambda d: d.origin != "pybind11")
            d = defs[0]
            p = proposal(self.name, "symbol", h, env, d=d, expected=False,
                         symbol=f"{env.symbol(h.upstream, d)}.{r.name}", anchor=r.span,
                         note=f"the sentence says {d.name} has no {r.name}")
            p.says = [h.ref.span, r.span]
            p.reading = f"`{d.name}` has no `{r.name}`"
            out.append(p)
        return out
