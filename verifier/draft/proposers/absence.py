"""`absence`: the sentence says a container has no member of a name.

- "`C` 没有 `m`", "`C` 的 Python 绑定没有 `m`", "`C` has no `m`", "`C` does not provide
  `m`" (the container named right before the negation);
- "`C.m` 不存在", "`C.m` does not exist" (a qualified span said to be absent).

The claim: `symbol` `C.m` (or `M.m`) with `expected = false`, in the file that declares
`C` (the pybind11 binding when the sentence speaks of Python/bindings). It comes out
`diverged` when the name is there. A sentence whose negation scopes over something
else (a condition, "not only", a question) reads differently and gets nothing: only
these shapes are read. Where the sentence says the opposite ("`m` 已从 `M` 导出": the
module's exports hold it, `members`; "`C` 有 `m`": `attribution`), the membership is
proposed. "`m` 并未从 `M` 导出" is not judged: a module may import a name without
exporting it, and no kind checks "not in `__all__`"."""

from __future__ import annotations

import re

from verifier.draft.ownership import owners
from verifier.draft.proposers.base import Proposer, proposal
from verifier.draft.reading import (EXPORT_WORDS, NEG_BETWEEN, NEG_EXPORT_AFTER,
                                    POS_EXPORT_AFTER, spans_at)

_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TYPE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*$")
_PY = re.compile(r"python|pydrake|pybind|绑定|binding", re.I)
_ABSENT_AFTER = re.compile(r"^[`*]*\s*(?:不存在|已不存在|并不存在|已被?移除|已被?删除|does not exist|"
                           r"doesn't exist|no longer exists|was removed)", re.I)


class AbsenceProposer(Proposer):
    name = "absence"

    def propose(self, s, env):
        out = []
        sp = spans_at(s.raw)
        for a, b in zip(sp, sp[1:]):
            gap = s.raw[a.end:b.start]
            if NEG_BETWEEN.match(gap) and _TYPE.match(a.text) and _ID.match(b.text):
                p = self._absent(s, env, (*a.text.split("."), b.text), b.text,
                                 [a.text, b.text, gap.strip()])
                if p is not None:
                    out.append(p)
            # "`m` 已从 `M` 公开导出": the module's exports hold it (`members`); the
            # negative ("并未从 `M` 导出") is not judged: a module may import a name it
            # does not export, and no kind checks "not in `__all__`"
            tail = s.raw[b.end:b.end + 16]
            if _ID.match(a.text) and _TYPE.match(b.text) and "." in b.text \
                    and EXPORT_WORDS.search(tail) and POS_EXPORT_AFTER.match(gap) \
                    and not NEG_EXPORT_AFTER.match(gap):
                p = self._export(s, env, b.text, a.text, [a.text, b.text])
                if p is not None:
                    out.append(p)
        for x in sp:
            if "." in x.text and _TYPE.match(x.text) and _ABSENT_AFTER.match(s.raw[x.end:x.end + 16]):
                parts = tuple(x.text.split("."))
                p = self._absent(s, env, parts, parts[-1], [x.text])
                if p is not None:
                    out.append(p)
        return out

    def _absent(self, s, env, parts, m, says):
        how, cands = owners(env, parts, env.resolver.context_containers)
        if how != "qualified" or not cands:
            return None
        if _PY.search(s.text):
            cands = sorted(cands, key=lambda x: x[1].origin != "pybind11")
        if len({(u, c.path) for u, c in cands}) > 1 and not _PY.search(s.text) and \
                len({c.name for _, c in cands}) > 1:
            return None
        up, c = cands[0]
        p = proposal(self.name, "symbol", up, env, d=c, expected=False,
                     symbol=f"{env.symbol(up, c)}.{m}", anchor=m)
        p.says = [x for x in says if x]
        p.reading = f"`{env.symbol(up, c)}` has no `{m}`"
        s.used.add(m)
        return p

    def _export(self, s, env, module, m, says):
        found = env.resolver.module_path(tuple(module.split(".")))
        if found is None:
            return None
        up, path = found
        from verifier.facts.python import module_name

        mod = module_name(path)
        p = proposal(self.name, "members", up, env, expected=[m],
                     options={"match": "subset"}, anchor=m, symbol=mod)
        p.reading = f"`{module}` exports `{m}`"
        p.path = path
        p.says = [x for x in says if x]
        s.used.add(m)
        return p
