"""`members`: the sentence lists several members of one struct, class, enum or
module (`qpos/qvel`, `ContactModel.kPoint / kHydroelastic`, `id_A`, `p_WCa`,
`nhat_BA_W` of the cited struct): they are all members (`match = "subset"`).
When it also says how many there are ("exactly three", "只有 4 个"), a second
claim checks the count."""

from __future__ import annotations

import re

from verifier.draft.index import CONTAINERS
from verifier.draft.proposers.base import Proposer, proposal
from verifier.facts.python import module_name

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4,
          "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_COUNT = re.compile(r"(?:exactly|only|just|只有|仅有|仅|只|恰好|正好|一共|共有|共)\s*[^\d\s，。,.]{0,4}?\s*"
                    r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|[一两二三四五六七八九十])"
                    r"(?![\d.])", re.I)


def _selection(container, kinds: set[str]) -> str | None:
    """The members kind's `of` option that selects the listed names' kind."""
    if container.kind in ("struct", "union") and kinds <= {"field"}:
        return None
    if container.kind == "enum" and kinds <= {"enumerator"}:
        return None
    if kinds <= {"method", "constructor", "function"}:
        return "methods"
    if kinds <= {"field", "attribute"}:
        return "fields"
    return "all"


def _container_def(env, up, d):
    """The definition of the container of member `d` (same file)."""
    idx = env.indexes[up]
    for c in idx.by_path.get(d.path, []):
        if c.qual == d.qual[:-1] and c.kind in CONTAINERS:
            return c
    return None


class MembersProposer(Proposer):
    name = "members"

    def propose(self, s, env):
        groups: dict[tuple, list] = {}
        for h in s.hits:
            for d in h.defs:
                if d.container and d.owner_kind in CONTAINERS - {"namespace"}:
                    groups.setdefault((h.upstream, d.path, d.qual[:-1]), []).append((h, d))
        # modules: names re-exported/defined by a module span of the sentence
        best = None
        for key, items in groups.items():
            names = list(dict.fromkeys(h.ref.name for h, _ in items))
            if len(names) >= 2 and (best is None or len(names) > len(best[1])):
                best = (key, names, items)
        out = []
        if best is not None:
            (up, path, owner), names, items = best
            c = _container_def(env, up, items[0][1])
            if c is not None:
                sym = env.symbol(up, c)
                opts = {"match": "subset"}
                of = _selection(c, {d.kind for _, d in items})
                if of:
                    opts["of"] = of
                p = proposal(self.name, "members", up, env, d=c, expected=names,
                             options=opts, anchor=items[0][0].ref.span)
                hows = {h.how for h, _ in items}
                p.grounding = next((x for x in ("qualified", "receiver", "scope:sentence",
                                                "scope:table") if x in hows), sorted(hows)[0])
                p.says = list(dict.fromkeys(h.ref.span for h, _ in items))
                p.reading = f"`{sym}` has " + ", ".join(f"`{n}`" for n in names)
                out.append(p)
                s.used.update(names)
                m = _COUNT.search(s.text)
                if m and s.says_exactly:
                    n = int(m.group(1)) if m.group(1).isdigit() else _WORDS[m.group(1).lower()]
                    if n == len(names):
                        out.append(proposal(self.name, "members", up, env, d=c, expected=n,
                                            options={**opts, "match": "count"},
                                            anchor=items[0][0].ref.span,
                                            note=f"the sentence says {sym} has exactly {n}"))
        mod = self._module(s, env)
        if mod:
            out.extend(mod)
        return out

    def _module(self, s, env):
        """`newton.sensors` exports exactly A, B, C: members of the module."""
        from verifier.draft.spans import refs

        out = []
        for span in s.unit.code:
            for r in refs(span):
                if len(r.parts) < 2 or r.call:
                    continue
                found = env.resolver.module_path(r.parts)
                if not found:
                    continue
                up, path = found
                idx = env.indexes[up]
                # what the members kind compares: `__all__`, else public non-import names
                top = set(idx.exports.get(path, ())) or {
                    d.name for d in idx.by_path.get(path, [])
                    if len(d.qual) == 1 and d.kind != "import" and not d.name.startswith("_")}
                names = [h.ref.name for h in s.hits if h.ref.name in top]
                plain = re.findall(r"\b[A-Z][A-Za-z0-9_]+\b", s.text)
                listed = list(dict.fromkeys([n for n in names] +
                                            [n for n in plain if n in top]))
                if len(listed) < 2:
                    continue
                mod = module_name(path)     # the file's own module name (the kind's form)
                out.append(_with_path(proposal(self.name, "members", up, env, expected=listed,
                                               options={"match": "subset"}, anchor=span,
                                               symbol=mod), path))
                m = _COUNT.search(s.text)
                if m and s.says_exactly:
                    n = int(m.group(1)) if m.group(1).isdigit() else _WORDS[m.group(1).lower()]
                    if n == len(listed):
                        out.append(_with_path(proposal(
                            self.name, "members", up, env, expected=n,
                            options={"match": "count"}, anchor=span, symbol=mod,
                            note=f"the sentence says {mod} has exactly {n}"), path))
                s.used.update(listed)
                s.used.add(r.name)
                return out
        return out


def _with_path(p, path):
    p.path = path
    return p
