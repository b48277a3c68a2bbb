"""`size`: the sentence gives an array's size (MuJoCo's `mjModel`/`mjData` arrays).

A table row under a size column (尺寸/大小/长度/维度/size/shape/length) — or with a cell
that opens with sizes the pin declares as fields (`nv，广义力`, `nbody×6，...`) — whose
first cell names fields (`qpos` / `qvel`) and whose size cell gives one size per field
(`nq / nv`) or one for all (`nv`), each a size name or a product (`nbody × 6`): the field's
documentation at the pin states its shape (`(nq x 1)`), so the claim is the `doc` kind
with the leading dimension as written (`(nq x`), or the whole shape when the sentence
gives both (`(nbody x 6)`). In prose, "`xmat/ximat` 为展平的 3×3 矩阵" (a field span, then a
small matrix) gives each field's row length (`x 9)`). Only fields whose doc comment states
a shape are proposed."""

from __future__ import annotations

import re

from verifier.draft.proposers.base import Proposer, one_owner, proposal
from verifier.draft.spans import Ref

_DIM_WORDS = re.compile(r"尺寸|大小|长度|维度|维数|\bsize\b|\bshape\b|\blength\b|\bdims?\b", re.I)
_SIZE = re.compile(r"^\s*([a-z][a-z0-9_]*)(?:\s*[×x*]\s*([a-z0-9_]+))?\s*$")
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LEADING = re.compile(r"^\s*(n[a-z][a-z0-9_]*(?:\s*[×x*]\s*[a-z0-9_]+)?(?:\s*/\s*n[a-z][a-z0-9_]*"
                      r"(?:\s*[×x*]\s*[a-z0-9_]+)?)*)\s*(?:[，,;；]|$)")


class SizeProposer(Proposer):
    name = "size"

    @staticmethod
    def _declared(m, env) -> bool:
        """The size names are declared by the pin (`nv`, `nbody` are fields of a model)."""
        words = re.findall(r"n[a-z][a-z0-9_]*", m.group(1))
        return bool(words) and all(any(d.kind == "field" for idx in env.indexes.values()
                                       for d in idx.lookup(w)) for w in words)

    def propose(self, s, env):
        u = s.unit
        if not u.row:
            return self._prose(s, env)
        if not u.header:
            return []
        names = [c.strip() for c in u.cells[0][1] if _ID.match(c.strip())]
        if not names:
            return []
        col = next((i for i, h in enumerate(u.header) if _DIM_WORDS.search(h)), None)
        if col is not None and 0 < col < len(u.cells) and not u.cells[col][1]:
            cell = u.cells[col][0]
        else:
            # a cell that opens with a size the pin declares ("nv，广义力", "nbody×6，...")
            cell = next((m.group(1) for t, code in u.cells[1:] if not code
                         for m in [_LEADING.match(t)] if m and self._declared(m, env)), None)
            if cell is None:
                return []
        sizes = [x.strip() for x in re.split(r"\s*/\s*|\s*,\s*(?=n)", cell)]
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
            p.paraphrase = (f"the sentence's size {size} is the shape the field's doc "
                            f"comment states, `{phrase}`")
            p.reading = f"`{name}` has {size} rows" if not m.group(2) else \
                f"`{name}` is {m.group(1)} × {m.group(2)}"
            s.used.add(name)
            out.append(p)
        return out

    def _prose(self, s, env):
        """"`xmat/ximat` 为展平的 3×3 矩阵": each field of the span has a row of that many
        numbers (its doc comment's shape `(nbody x 9)`)."""
        out = []
        for m in _MATRIX.finditer(s.raw):
            a, b = int(m.group("a")), int(m.group("b"))
            for name in re.split(r"\s*/\s*", m.group("names")):
                name = name.strip()
                if not _ID.match(name) or name in s.used:
                    continue
                h = env.resolver.resolve(Ref(name, (name,)), s.scope)
                if h is None or not one_owner(h) or h.best.kind != "field" or not h.best.sized:
                    continue
                phrase = f" x {a * b})"
                p = proposal(self.name, "doc", h, env, d=h.best, expected=phrase, anchor=name)
                p.says = [m.group("names"), m.group("dims")]
                p.paraphrase = (f"a {a}×{b} matrix per row is the `x {a * b})` of the shape "
                                "the field's doc comment states")
                p.reading = f"`{name}` holds a {a}×{b} matrix ({a * b} numbers) per row"
                s.used.add(name)
                out.append(p)
        return out


# "`xmat/ximat` 为展平的 3×3 矩阵", "`cam_xmat` is a 3x3 rotation matrix"
_MATRIX = re.compile(r"`(?P<names>[A-Za-z_]\w*(?:/[A-Za-z_]\w*)*)`\s*(?:是|为|存|保存|存放|给出|"
                     r"is|are|holds?|stores?)?\s*(?:一个|一|a|an|the)?\s*(?:展平的?|扁平的?|按行主序的?|"
                     r"flattened|row-major)?\s*(?P<dims>(?P<a>[1-9])\s*[×x]\s*(?P<b>[1-9]))\s*"
                     r"(?:的)?\s*(?:旋转)?(?:矩阵|rotation matrix|matrix|matrices)", re.I)
