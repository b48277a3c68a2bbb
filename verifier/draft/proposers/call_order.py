"""`call_order`: the sentence says a function calls others, in an order ("`A` 调用
`B` 再 `C`", "B → C", "then"), or just that it calls them ("calls", "调用").

The function is the definition enclosing a cited range, or a callable the sentence
names whose body is available; the callees are the other code spans of the
sentence, in the order written, that the body calls (`match = "subsequence"`). A
sentence's order is checked only when it uses order words; otherwise each callee
gets its own claim.

Plain words of a sequence count too (`kinematics→com_pos→...→transmission`, "先重置
parameters，再重置 State"): a word names the callee it equals, or the one callee of the
body whose name ends with it (`State` -> `SetDefaultState`), case-insensitively; a word
that names no callee, or two, is left out."""

from __future__ import annotations

import re

from verifier.draft.index import CALLABLES
from verifier.draft.proposers.base import Proposer, proposal
from verifier.draft.reading import mask_code

# a sequence in the prose: `a→b→c`, "先 a ... 再 b", "first a, then b", "a 先于 b"
_ARROWS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*(?:→|->)\s*[A-Za-z_][A-Za-z0-9_]*)+")
_FIRST_THEN = re.compile(r"先[^。；;]{0,40}?(?:再|然后|随后|之后|后)[^。；;]{0,40}|"
                         r"\bfirst\b[^.;]{0,60}?\bthen\b[^.;]{0,40}|先于", re.I)


def _seq_words(raw: str) -> list[str]:
    """ASCII words of the sentence's explicit sequences, in order."""
    plain = mask_code(raw)
    out: list[str] = []
    for m in _ARROWS.finditer(plain):
        out += re.split(r"\s*(?:→|->)\s*", m.group(0))
    for m in _FIRST_THEN.finditer(plain):
        out += re.findall(r"[A-Za-z_][A-Za-z0-9_]*", m.group(0))
    return out


def _map_word(word: str, calls: list[str]) -> str | None:
    w = word.lower()
    exact = [c for c in dict.fromkeys(calls) if c.lower() == w]
    if exact:
        return exact[0]
    tail = [c for c in dict.fromkeys(calls) if len(w) >= 4 and c.lower().endswith(w)]
    return tail[0] if len(tail) == 1 else None
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
        words = _seq_words(s.raw) if s.says_order else []
        for up, d, h in callers:
            calls = _calls(env, up, d)
            if not calls:
                continue
            listed = [n for n in dict.fromkeys(names) if n != d.name and n in calls]
            mapped = [m for m in (_map_word(w, calls) for w in words) if m and m != d.name]
            if len(dict.fromkeys(mapped)) >= 2 and len(dict.fromkeys(mapped)) > len(listed):
                listed = list(dict.fromkeys(mapped))
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
            said = {m: w for w in words for m in [_map_word(w, calls)] if m}
            for p in out:
                p.says = [said.get(n, n) for n in p.expected]
                p.reading = (f"`{d.name}` calls " + ", then ".join(f"`{n}`" for n in p.expected))
                if any(said.get(n, n) != n for n in p.expected):
                    p.paraphrase = ("the sentence names the calls in words (`State` for "
                                    "`SetDefaultState`); `expected` spells the callees")
            s.used.update(listed)
            return out
        return []
