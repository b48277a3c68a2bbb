"""`call_order`: the sentence says a function calls others, in an order ("`A` 调用
`B` 再 `C`", "B → C", "then"), or just that it calls them ("calls", "调用").

The function is the definition enclosing a cited range, or a callable the sentence
names whose body is available; the callees are the other code spans of the
sentence, in the order written, that the body calls (`match = "subsequence"`). A
sentence's order is checked only when it uses order words; otherwise each callee
gets its own claim."""

from __future__ import annotations

from verifier.draft.index import CALLABLES
from verifier.draft.proposers.base import Proposer, proposal
from verifier.codeversion import code_version
from verifier.facts import flow
from verifier.facts.cache import fact_cache

_BODIES = (".c", ".cc", ".cpp", ".cxx", ".py", ".h", ".hpp")


def _calls(env, up: str, d) -> list[str] | None:
    """Short callee names of `d`'s body in source order, or None without a body
    (cached by blob in the fact cache)."""
    sf = env.project.sources.resolve(up, d.path)
    if not sf.status.usable or not sf.blob:
        return None
    sym = env.symbol(up, d)

    def build():
        text = env.project.sources.read(sf)
        if text is None:
            return ("none",)
        try:
            src = flow.parse_source(d.path, text, sf.blob)
        except ValueError:
            return ("none",)
        fns = [f for f in flow.find_functions(src, sym) if f.start <= d.start <= f.end
               or d.start <= f.start <= d.end]
        if len(fns) != 1:
            return ("none",)
        return ("calls", tuple(c.name for c in flow.calls_in(src, fns[0].body)))

    got = fact_cache(env.project.store).get_or_build(
        "draftcalls", code_version(__name__), sf.blob, build,
        {"path": d.path, "symbol": sym, "start": d.start})
    return list(got[1]) if got[0] == "calls" else None


class CallOrderProposer(Proposer):
    name = "call_order"

    def propose(self, s, env):
        if not (s.says_order or s.says_calls):
            return []
        callers = []
        for c in s.cited:
            if c.enclosing is not None and c.enclosing.kind in CALLABLES:
                callers.append((c.upstream, c.enclosing, None))
        for h in s.hits:
            for d in h.defs:        # every definition: the header's prototype has no body
                if d.kind in CALLABLES and d.path.endswith(_BODIES):
                    callers.append((h.upstream, d, h))
        names = [h.ref.name for h in s.hits] + [r.name for r in s.unresolved]
        for up, d, h in callers:
            calls = _calls(env, up, d)
            if not calls:
                continue
            listed = [n for n in dict.fromkeys(names) if n != d.name and n in calls]
            if not listed:
                continue
            anchor = h.ref.span if h is not None else listed[0]
            if s.says_order and len(listed) >= 2:
                out = [proposal(self.name, "call_order", up, env, d=d, expected=listed,
                                options={"match": "subsequence"}, anchor=anchor)]
            else:
                out = [proposal(self.name, "call_order", up, env, d=d, expected=[n],
                                options={"match": "subsequence"}, anchor=n)
                       for n in listed[:3]]
            s.used.update(listed)
            return out
        return []
