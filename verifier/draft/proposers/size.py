"""`size`: the sentence gives an array's size (MuJoCo's `mjModel`/`mjData` arrays).

A table row under a size column (尺寸/大小/长度/维度/size/shape/length) whose first cell
names fields (`qpos` / `qvel`) and whose size cell gives one size per field (`nq / nv`)
or one for all (`nv`), each a size name or a product (`nbody × 6`): the field's
documentation at the pin states its shape (`(nq x 1)`), so the claim is the `doc` kind
with the leading dimension as written (`(nq x`), or the whole shape when the sentence
gives both (`(nbody x 6)`). Only fields whose doc comment states a shape are proposed."""

from __future__ import annotations

import re

from verifier.draft.proposers.base import Proposer, one_owner, proposal
from verifier.draft.spans import Ref

_DIM_WORDS = re.compile(r"尺寸|大小|长度|维度|维数|\bsize\b|\bshape\b|\blength\b|\bdims?\b", re.I)
_SIZE = re.compile(r"^\s*([a-z][a-z0-9_]*)(?:\s*[×x*]\s*([a-z0-9_]+))?\s*$")
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class SizeProposer(Proposer):
    name = "size"

    def propose(self, s, env):
        u = s.unit
        if not u.row or not u.header:
            return []
        col = next((i for i, h in enumerate(u.header) if _DIM_WORDS.search(h)), None)
        if col is None or col == 0 or col >= len(u.cells):
            return []
        names = [c.strip() for c in u.cells[0][1] if _ID.match(c.strip())]
        if not names or u.cells[col][1]:
            return []
        sizes = [x.strip() for x in u.cells[col][0].split("/")]
        if len(sizes) == 1:
            sizes = sizes * len(names)
        if len(sizes) != len(names) or not all(_SIZE.match(x) for x in sizes):
            return []
        out = []
        for name, size in zip(names, sizes):
            h = env.resolver.resolve(Ref(name, (name,)), s.scope)
            if h is None or not one_owner(h):
                continue
            d = h.best
            if d.kind != "field" or not d.sized:
                continue
            m = _SIZE.match(size)
            phrase = f"({m.group(1)} x {m.group(2)})" if m.group(2) else f"({m.group(1)} x"
            p = proposal(self.name, "doc", h, env, d=d, expected=phrase, anchor=name)
            p.says = [name, size]
            p.reading = f"`{name}` has {size} rows" if not m.group(2) else \
                f"`{name}` is {m.group(1)} × {m.group(2)}"
            s.used.add(name)
            out.append(p)
        return out
