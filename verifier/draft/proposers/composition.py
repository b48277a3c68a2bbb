"""`composition`: the sentence says which constants a flag constant is made of.

A table row under a composition column (组成/包含/composition/contains/consists; not a
negated one such as 尚未包含 or "not included") whose first cell names a constant
(`mjSTATE_PHYSICS`, or its suffix `PHYSICS` when one enumerator of the pin has it) and
whose composition cell lists names that each name exactly one enumerator of the same
enum, by their full name or their suffix (`qpos/qvel/act/history`,
`PHYSICS + time + plugin_state`): `enum` with `compare = "composition"` (bits: a
nested or a flat listing both match). A list with an item that names no single
enumerator (`两种外力`, `mocap` for two) gets nothing."""

from __future__ import annotations

import re

from verifier.draft.proposers.base import Proposer, proposal
from verifier.draft.reading import enumerator_of, split_list

_COMPOSED = re.compile(r"组成|包含|包括|composition|contains|consists|members", re.I)
_NEGATED = re.compile(r"未|不|无|没有|缺|\bnot\b|\bexclud|\bmissing|\bwithout", re.I)
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CompositionProposer(Proposer):
    name = "composition"

    def propose(self, s, env):
        u = s.unit
        if not u.row or not u.header:
            return []
        col = next((i for i, h in enumerate(u.header) if i > 0 and _COMPOSED.search(h)
                    and not _NEGATED.search(h)), None)
        if col is None or col >= len(u.cells):
            return []
        head_text, head_code = u.cells[0]
        first = head_code[0].strip() if len(head_code) == 1 else head_text.strip()
        if not _ID.match(first):
            return []
        items = split_list(u.cells[col][0])
        if len(items) < 2 or not all(_ID.match(x) for x in items):
            return []
        fits = []
        for up, const, names in self._enums_of(first, env):
            mapped = [enumerator_of(x, names) for x in items]
            if all(len(m) == 1 for m in mapped):
                fits.append((up, const, mapped))
        if len(fits) > 1:     # two enums read the row: the one its lesson names or cites
            named = set(env.resolver.context_containers) | set(env.resolver.cited_types) \
                | set(env.resolver.cited_paths)
            fits = [f for f in fits if f[1].container in named or f[1].path in named]
        if len(fits) != 1:
            return []
        (up, const, mapped), = fits
        expected = [m[0] for m in mapped]
        if const.name in expected or len(set(expected)) != len(expected):
            return []
        p = proposal(self.name, "enum", up, env, d=const, expected=expected,
                     options={"compare": "composition"}, anchor=first)
        p.says = [first, {"text": u.cells[col][0].strip(), "read": "names"}]
        p.reading = f"`{const.name}` = " + " | ".join(f"`{n}`" for n in expected)
        p.paraphrase = ("the sentence names the parts by their suffixes; `expected` spells them "
                        "as the enum does")
        s.used.add(first)
        return [p]

    @staticmethod
    def _enums_of(word, env):
        """(upstream, the enumerator `word` names, every enumerator name of its enum) for
        each enum of the pins with exactly one enumerator named so."""
        by_enum: dict = {}
        for up, idx in env.indexes.items():
            for d in idx.lookup_kind("enumerator"):
                if d.name == word or d.name.upper().endswith("_" + word.upper()):
                    by_enum.setdefault((up, d.path, d.qual[:-1]), []).append(d)
        out = []
        for (up, path, owner), ds in by_enum.items():
            if len(ds) != 1:
                continue
            idx = env.indexes[up]
            names = [x.name for x in idx.by_path.get(path, []) if x.kind == "enumerator"
                     and x.qual[:-1] == owner]
            out.append((up, ds[0], names))
        return out
