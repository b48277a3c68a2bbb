"""`symbol` on a permalink: the sentence cites lines of an available file; the
claim names the definition enclosing the cited range (its `path` and `symbol`
pre-filled), so it breaks when that definition is renamed or moved out of the
file. Proposed only when nothing else was proposed for the cited definition."""

from __future__ import annotations

from verifier.draft.proposers.base import Proposer, proposal


class CitationProposer(Proposer):
    name = "citation"

    def propose(self, s, env, taken=None):
        out = []
        seen = set()
        for c in s.cited:
            e = c.enclosing
            if e is None or (c.upstream, e.path, e.qual) in seen:
                continue
            seen.add((c.upstream, e.path, e.qual))
            if any(p[0] == c.upstream and p[1] == e.path for p in s.claimed):
                continue
            out.append(proposal(self.name, "symbol", c.upstream, env, d=e, expected=True,
                                anchor=e.name if e.name in s.text else None,
                                note=f"the sentence cites {c.path}#L{c.start}"
                                     + (f"-L{c.end}" if c.end and c.end != c.start else "")))
        return out
