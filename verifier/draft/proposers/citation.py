"""`symbol` on a permalink: the sentence cites lines of an available file and names
the definition enclosing the cited range (the link's label or the sentence's text
names it); the claim (its `path` and `symbol` pre-filled) breaks when that
definition is renamed or moved out of the file. A sentence that only cites a file
without naming what it cites gets nothing (a claim on it would check nothing the
sentence says). Proposed only when nothing else was proposed for the cited
definition."""

from __future__ import annotations

import re

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
            if not re.search(r"(?<![A-Za-z0-9_])" + re.escape(e.name) + r"(?![A-Za-z0-9_])",
                             s.text + " " + " ".join(env.resolver.labels.get(c.href, ()))):
                continue            # the sentence does not name what it cites
            p = proposal(self.name, "symbol", c.upstream, env, d=e, expected=True,
                                anchor=e.name if e.name in s.text else None,
                                note=f"the sentence cites {c.path}#L{c.start}"
                                     + (f"-L{c.end}" if c.end and c.end != c.start else ""))
            p.says = [e.name]
            p.reading = f"the cited lines define `{e.name}`"
            out.append(p)
        return out
