"""`type`: the sentence names the element type of a field or parameter.

- a table row: the first cell names the field(s)/parameter(s) (code spans, or plain
  identifiers), another cell holds a type word (`vec3`, `vec3f`, `transform`, `uint32`,
  `float32`, `int32`, `mjtNum`, ...);
- prose: "`x` 是/为/均为 ... vec3", "`x` is a `wp.vec3` array": the type word in the
  same clause as the name, no other name between them.

The name must be grounded (a field/attribute of a container its context names:
`verifier/draft/grounding.py`; or a parameter of the callables of the containers the
lesson names, when every one of them declares that parameter with the same type) and its declaration at
the pin must state a type of the same kind (a Warp element type: vector, matrix,
quaternion, transform; a scalar: integer or float; a MuJoCo `mjt` type): only then can
the pin decide, and the claim (`type`, `match =
"mentions"`, `expected` = the sentence's type word) comes out `verified` or
`diverged`. A name with no declared type, or one whose declared type is of another
family, gets nothing (the sentence's word may describe something else)."""

from __future__ import annotations

import re

from verifier.draft.proposers.base import Proposer, one_owner, proposal
from verifier.draft.reading import TYPE_WORD, families, mask_code, spans_at, type_family
from verifier.draft.spans import Ref

_FIELDS = {"field", "attribute", "variable"}
# families one element type may be mistaken for another in (a Warp vector for a
# transform, an int32 for a uint32): decidable against each other
_GROUPS = {"vec": "warp", "mat": "warp", "quat": "warp", "transform": "warp",
           "spatial": "warp", "int": "scalar", "float": "scalar", "mjt": "mjt"}


def group(fam: str) -> set[str]:
    return {_GROUPS.get(fam, fam)}
_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LIST_ONLY = re.compile(r"^\s*(?:、|，|,|/|和|与|及|以及|\band\b|\bor\b|或)\s*$", re.I)
_CLAUSE_END = re.compile(r"[。；;！!？?]|，(?=\s*(?:而|但|且|其|它|各|分别|单位))")


def _type_words(text: str) -> list[str]:
    return [m.group(1) for m in TYPE_WORD.finditer(text)]


class TypeProposer(Proposer):
    name = "type"

    def propose(self, s, env):
        pairs = []      # (name, type word, says)
        u = s.unit
        if u.row and len(u.cells) >= 2:
            first_text, first_code = u.cells[0]
            names = [c for c in first_code if _ID.match(c.strip())] or [
                w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", first_text)
                if "_" in w and _ID.match(w)]
            words = []
            for text, code in u.cells[1:]:
                found = _type_words(mask_code(text)) + [c for c in code if type_family(c)]
                if found:
                    words = found
                    break
            if len(set(words)) == 1:
                for n in names:
                    pairs.append((n, words[0], [n, words[0]]))
        else:
            pairs += self._prose(s.raw)
        out = []
        done = set()
        for name, word, says in pairs:
            if name in done:
                continue
            fam = type_family(word)
            if fam is None:
                continue
            h = env.resolver.resolve(Ref(name, (name,)), s.scope)
            p = self._claim(s, env, h, name, word, fam, says) if h is not None else \
                self._param(s, env, name, word, fam, says)
            if p is not None:
                done.add(name)
                out.append(p)
        return out

    @staticmethod
    def _prose(raw: str) -> list[tuple[str, str, list[str]]]:
        """"`a` 和 `b` 均为 `(N,)` 的 vec3": names joined by list words, then one type word
        in the rest of their clause (before the next name)."""
        out = []
        sp = spans_at(raw)
        i = 0
        while i < len(sp):
            if not _ID.match(sp[i].text) or type_family(sp[i].text):
                i += 1
                continue
            group = [sp[i]]
            j = i + 1
            while j < len(sp) and _ID.match(sp[j].text) and not type_family(sp[j].text) \
                    and LIST_ONLY.match(raw[sp[j - 1].end:sp[j].start]):
                group.append(sp[j])
                j += 1
            # the rest of the clause: up to the next name span or the clause's end
            k = j
            while k < len(sp) and not (_ID.match(sp[k].text) and not type_family(sp[k].text)):
                k += 1
            stop = sp[k].start if k < len(sp) else len(raw)
            seg = raw[group[-1].end:stop]
            end = _CLAUSE_END.search(seg)
            seg = seg[:end.start()] if end else seg
            words = _type_words(mask_code(seg)) + [x.text for x in sp[j:k]
                                                    if type_family(x.text)
                                                    and x.start < group[-1].end + len(seg)]
            if len(set(words)) == 1 and len(seg) <= 48:
                out += [(g.text, words[0], [g.text, words[0]]) for g in group]
            i = j
        return out

    def _param(self, s, env, name, word, fam, says):
        """`name` as a parameter of the callables of the containers the lesson names
        (`color_image` of `SensorTiledCamera.update` and `RenderContext.render`): when
        every such parameter declares the same type, the sentence's reading is decided
        whichever callable it means; when they differ, nothing is proposed."""
        named = set(env.resolver.context_containers)
        cands = []
        for up, idx in env.indexes.items():
            for d in idx.by_kind.get("method", []) + idx.by_kind.get("function", []):
                if d.params and name in d.params and (d.container in named or d.name in named):
                    t = d.ptypes[d.params.index(name)] if len(d.ptypes) == len(d.params) else None
                    cands.append((up, d, t))
        types = {" ".join((t or "").split()) for _, _, t in cands}
        if not cands or len(types) != 1 or not next(iter(types)):
            return None
        up, d, t = cands[0]
        if not group(fam) & set().union(*(group(f) for f in families(t))):
            return None
        p = proposal(self.name, "type", up, env, d=d, expected=word.replace("wp.", ""),
                     options={"param": name}, anchor=name)
        if len(cands) > 1:
            p.note = ("the same parameter of " + ", ".join(f"`{env.symbol(u, x)}`"
                                                          for u, x, _ in cands)
                      + f" declares `{t}`")
        p.says = [x for x in says if x]
        p.reading = f"`{name}` holds `{word}`"
        s.used.add(name)
        return p

    def _claim(self, s, env, h, name, word, fam, says):
        d = h.best
        if not one_owner(h):
            return None           # two owners: not guessed
        if d.kind in _FIELDS and d.ftype and group(fam) & set().union(
                *(group(f) for f in families(d.ftype))):
            p = proposal(self.name, "type", h, env, d=d, expected=word.replace("wp.", ""),
                         anchor=name)
        else:
            return None
        p.says = [x for x in says if x]
        p.reading = f"`{name}` holds `{word}`"
        s.used.add(name)
        return p
