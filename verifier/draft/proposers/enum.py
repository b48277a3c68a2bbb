"""`enum`: the sentence gives the value of an enum constant or object-like macro
(`sxSTEP_EXPLICIT = 0`, "`mjNSTATE` 是 5", "`mjSTATE_PHYSICS` 数值为 30", "`X` is
6"), or its composition (`X` 由 `A`|`B` 组成, `X = A | B`) when every part is a
constant of the same enum."""

from __future__ import annotations

import re

from verifier.draft.proposers.base import Proposer, proposal

_VALUE_KINDS = {"enumerator", "macro"}
_IS = re.compile(r"^[`*]*\s*[（(]?\s*(?:的值|的数值|数值|值)?\s*(?:为|是|等于|=|==|is|equals)\s*`?"
                 r"([-+−]?(?:0[xX][0-9a-fA-F]+|\d+))(?![\w.])", re.I)
_COMPOSED = re.compile(r"^[`*]*\s*(?:由|是|为|=|==|equals|is)\s*", re.I)


class EnumProposer(Proposer):
    name = "enum"

    def propose(self, s, env):
        out = []
        for h in s.hits:
            d = h.best
            if d.kind not in _VALUE_KINDS or h.ref.name in s.used:
                continue
            value = None
            if h.ref.value is not None:
                value = h.ref.value.strip()
                if "|" in value:
                    p = self._composition(h, value.split("|"), s, env)
                    if p:
                        out.append(p)
                    continue
            else:
                for m in re.finditer(re.escape("`" + h.ref.span + "`"), s.raw):
                    a = _IS.match(s.raw[m.end():m.end() + 30])
                    if a:
                        value = a.group(1)
                        break
                    c = _COMPOSED.match(s.raw[m.end():m.end() + 12])
                    if c:
                        rest = s.raw[m.end() + c.end():m.end() + c.end() + 200]
                        parts = re.match(r"^`?([A-Za-z_]\w*(?:`?\s*\|\s*`?[A-Za-z_]\w*)+)", rest)
                        if parts:
                            p = self._composition(h, re.split(r"`?\s*\|\s*`?", parts.group(1)),
                                                  s, env)
                            if p:
                                out.append(p)
                            break
            if value is None:
                continue
            raw_value = value
            value = value.replace("−", "-")
            if not re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|\d+)", value):
                continue
            v = int(value, 0) if not value.lower().startswith("0x") else value
            p = proposal(self.name, "enum", h, env, expected=v)
            p.says = [h.ref.span, raw_value]
            p.reading = f"`{h.ref.name}` is {raw_value}"
            out.append(p)
            s.used.add(h.ref.name)
        return out

    def _composition(self, h, names, s, env):
        names = [n.strip().strip("`") for n in names if n.strip()]
        idx = env.indexes[h.upstream]
        if len(names) < 2 or not all(any(d.kind in _VALUE_KINDS and d.path == h.best.path
                                         for d in idx.lookup(n)) for n in names):
            return None
        s.used.add(h.ref.name)
        p = proposal(self.name, "enum", h, env, expected=names,
                     options={"compare": "composition"})
        p.says = [h.ref.span] + names
        p.reading = f"`{h.ref.name}` = " + " | ".join(f"`{n}`" for n in names)
        return p
