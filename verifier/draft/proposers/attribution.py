"""`attribution`: the sentence attributes a member to a container.

- a qualified code span `C.m` (`SensorIMU.accelerometer`, `mjData.history`), or a
  receiver `v.m` whose variable is named after a container (`data.qpos`, `state.body_f`,
  `control.joint_f`: `verifier/draft/ownership.py`);
- prose: "`C` 的 `m`", "`C` 有/提供/包含 `m`", "`m` of `C`", "`C` has `m`";
- a table row under a header with an owner column ("所在对象", "owner"): each name of the
  first cell is a member of what the owner cell names (`| `flex_dim` | model |`).

The claim: `m` is a member of `C` (`members`, `match = "subset"`). Where `C` names several
containers (`State` in two modules), the one that has `m` is meant. Where none has it,
the claim is proposed only when the pin decides it (`ownership.decides`: every member
of `C` is listed, every base class is known and lacks `m`); it then comes out
`diverged` ("`m` is a member of B, not of C"). A name the pin declares by a string
literal (a port, a registered attribute) is never judged this way."""

from __future__ import annotations

import re

from verifier.draft.ownership import (anywhere, decides, direct, has_methods, owners,
                                      owners_of)
from verifier.draft.proposers.base import Proposer, one_owner, proposal
from verifier.draft.reading import (HAS_BETWEEN, NEG_BEFORE, OF_AFTER_BETWEEN, OF_BETWEEN,
                                    spans_at)
from verifier.draft.spans import refs
from verifier.facts.model import LITERAL_KINDS

_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TYPE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*$")


def of_option(c) -> dict:
    if c.lang == "c" or c.kind == "enum":
        return {}
    return {"of": "all"}


def member_claim(name, env, s, parts, m, anchor, says, call=False):
    """The membership proposal for `parts[:-1]` . `m`, or None when the pin cannot
    decide it or the grounding is ambiguous. A call on a C struct's receiver
    (`data.joint(name)`) is an API of the language binding, not a member of the struct."""
    how, cands = owners(env, parts, env.resolver.context_containers)
    if call:    # a call on a plain struct is its binding's API (`spec.compile()`)
        cands = [(u, c) for u, c in cands if has_methods(env, u, c)]
    if not cands:
        return None
    if any(d.kind in LITERAL_KINDS for idx in env.indexes.values() for d in idx.lookup(m)):
        return None
    have = [(u, c) for u, c in cands if direct(env, u, c, m)]
    if have:
        up, c = have[0]
    elif len({c.name.rstrip("_") for _, c in cands}) > 1:
        return None          # `model` ~ `mjModel` and `Model`: which one is meant is unclear
    else:
        if any(anywhere(env, u, c, m) for u, c in cands):
            return None              # a `self.x` outside `__init__`: not what `members` lists
        # a binding (pybind11) class mirrors its C++ class: the C++ declaration decides
        native = [(u, c) for u, c in cands if c.origin != "pybind11"] or cands
        if not all(decides(env, u, c, m) for u, c in native):
            return None
        up, c = native[0]
    p = proposal(name, "members", up, env, d=c, expected=[m],
                 options={"match": "subset", **of_option(c)}, anchor=anchor)
    p.says = [x for x in dict.fromkeys(says) if x]
    cname = env.symbol(up, c)
    p.reading = f"`{m}` is a member of `{cname}`"
    if not have:
        others = [o for o in owners_of(env, m) if o != c.name]
        if others:
            p.note = f"the pin has `{m}` in " + ", ".join(f"`{o}`" for o in others)
    return p


# a table column that says which object holds the row's fields ("所在对象", "owner")
_OWNER_HEADER = re.compile(r"^(?:所在(?:对象|结构体?|类)|所属(?:对象|结构体?|类)?|归属|容器|"
                           r"owner|owning (?:struct|class|object)|struct|container|lives in)$",
                           re.I)


def _owner_column(s) -> list:
    """A table row whose header names an owner column: `| `flex_dim`, `flex_vert` | model |`
    attributes each name of the first cell to the object the owner cell names (a type,
    or a variable named after one: `model`, `data`)."""
    if not s.unit.row or not s.unit.header:
        return []
    col = next((i for i, h in enumerate(s.unit.header)
                if i and _OWNER_HEADER.match(h.strip(" `*"))), None)
    if col is None or col >= len(s.unit.cells):
        return []
    owner = s.unit.cells[col][0].strip(" `*")
    if not _TYPE.match(owner):
        return []
    out = []
    for span in s.unit.cells[0][1]:
        for r in refs(span):
            if len(r.parts) == 1 and _ID.match(r.name) and not r.value and not r.call:
                out.append(((*owner.split("."), r.name), r.name, span, [span, owner], False))
    return out


class AttributionProposer(Proposer):
    name = "attribution"

    def propose(self, s, env):
        out = []
        items = []     # (parts, member, anchor, says)
        for span in s.unit.code:
            if s.absent(span):
                continue
            rs = refs(span)
            for i, r in enumerate(rs):
                # a slash list's later items abbreviate (`efc_type/id` is `efc_id`)
                if r.listed and i > 0:
                    continue
                if len(r.parts) >= 2 and _ID.match(r.parts[-1]) and not r.value:
                    items.append((r.parts, r.name, span, [span], r.call))
                if len(r.parts) >= 3 and r.parts[0][:1].islower() and not r.value:
                    # `data.opt.gravity`: the first link is a member of the receiver's type
                    items.append((r.parts[:2], r.parts[1], span, [span], False))
        sp = spans_at(s.raw)
        for a, b in zip(sp, sp[1:]):
            gap = s.raw[a.end:b.start]
            if NEG_BEFORE.search(s.raw[max(0, b.start - 24):b.start]):
                continue
            if (OF_BETWEEN.match(gap) or HAS_BETWEEN.match(gap)) and _TYPE.match(a.text) \
                    and _ID.match(b.text):
                items.append(((*a.text.split("."), b.text), b.text, b.text, [a.text, b.text],
                              False))
            elif OF_AFTER_BETWEEN.match(gap) and _ID.match(a.text) and _TYPE.match(b.text):
                items.append(((*b.text.split("."), a.text), a.text, a.text, [b.text, a.text],
                              False))
        # bare names its sentence or table binds to a container it names
        for h in s.hits:
            if h.how in ("scope:sentence", "scope:table") and h.best.container \
                    and len(h.ref.parts) == 1 and one_owner(h) and not s.absent(h.ref.span):
                c = h.best.container
                items.append(((c, h.ref.name), h.ref.name, h.ref.span,
                               [h.ref.span] + [x for _, names in s.scope.levels
                                               for x in names if x == c][:1], h.ref.call))
        items += _owner_column(s)
        seen = set()
        for parts, m, anchor, says, call in items:
            if (parts, m) in seen or m in s.used:
                continue
            seen.add((parts, m))
            p = member_claim(self.name, env, s, parts, m, anchor, says, call)
            if p is not None:
                out.append(p)
                s.used.add(m)
        return out
