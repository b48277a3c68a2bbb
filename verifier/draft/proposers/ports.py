"""`ports`: the sentence lists the ports a system declares, in order.

A sentence or table row naming a class (`Accelerometer`) and a list of at least two
items (`body poses、spatial velocities、spatial accelerations`) that each name exactly
one port the class declares by a string literal (`DeclareAbstractInputPort("body_poses",
...)`; an item names a port when it equals the port's name with spaces for underscores,
or its last words: `spatial velocities` for `body_spatial_velocities`): the function
that declares them calls the port declarations in that order (`call_order` on the
`Declare...Port` calls' first argument, `match = "subsequence"`)."""

from __future__ import annotations

import re

from verifier.draft.proposers.base import Proposer, proposal
from verifier.draft.reading import mask_code

_ITEM_SEP = re.compile(r"\s*(?:、|，|,|；|;|和|与|及|\band\b)\s*")


def _key(word: str) -> str:
    return re.sub(r"[\s-]+", "_", word.strip().lower())


class PortsProposer(Proposer):
    name = "ports"

    def propose(self, s, env):
        out = []
        classes = [h for h in s.hits if h.best.kind in ("class", "struct")]
        if not classes:
            return []
        texts = [t for t, _ in s.unit.cells[1:]] if s.unit.row else [mask_code(s.raw)]
        for h in classes:
            idx = env.indexes[h.upstream]
            for c in h.defs:
                ports = [d for d in idx.lookup_kind("port") if d.qual[:-1] == c.qual]
                if len(ports) < 2:
                    continue
                for text in texts:
                    got = self._read(text, ports)
                    if got is None:
                        continue
                    items, names = got
                    fn = self._declarer(idx, ports, names)
                    if fn is None:
                        continue
                    p = proposal(self.name, "call_order", h.upstream, env, d=fn,
                                 expected=names,
                                 options={"callee": r"^Declare\w*Port$", "arg": 0,
                                          "match": "subsequence"},
                                 anchor=h.ref.span)
                    p.says = [{"text": "、".join(items), "read": "names"}] \
                        if "、".join(items) in s.raw else list(items)
                    p.paraphrase = ("the sentence names the ports in words; `expected` "
                                    "spells them as the declarations do")
                    p.reading = (f"`{c.name}` declares the ports "
                                 + ", ".join(f"`{n}`" for n in names) + " in this order")
                    out.append(p)
                    return out
        return out

    @staticmethod
    def _read(text, ports):
        """(items as written, port names) when the text holds a list whose every item
        names one port."""
        for chunk in re.split(r"[|；;。：:]", text):
            items = [x for x in _ITEM_SEP.split(chunk.strip()) if x.strip()]
            if len(items) < 2:
                continue
            # the list's ends run into the prose: "输入依次是 spatial velocities"
            head = re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:[ -][A-Za-z_][A-Za-z0-9_]*)*$",
                              items[0].strip())
            tail = re.findall(r"^[A-Za-z_][A-Za-z0-9_]*(?:[ -][A-Za-z_][A-Za-z0-9_]*)*",
                              items[-1].strip())
            if not head or not tail:
                continue
            items = [head[0], *items[1:-1], tail[0]]
            names = []
            for it in items:
                k = _key(it)
                hit = [p.name for p in ports if p.name == k or p.name.endswith("_" + k)]
                if len(hit) != 1:
                    break
                names.append(hit[0])
            else:
                if len(set(names)) == len(names):
                    return [x.strip() for x in items], names
        return None

    @staticmethod
    def _declarer(idx, ports, names):
        """The function whose body declares every listed port (same file, lines inside)."""
        lines = [p for p in ports if p.name in names]
        path = lines[0].path
        if any(p.path != path for p in lines):
            return None
        fns = [d for d in idx.by_path.get(path, []) if d.kind in ("constructor", "function", "method")
               and all(d.start <= p.start <= d.end for p in lines)]
        fns.sort(key=lambda d: d.end - d.start)
        return fns[0] if fns else None
