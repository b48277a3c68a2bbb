"""`order`: what the sentence puts in order.

- **Parameters of a call span.** `mj_ray(model,data,pnt,vec,...)`,
  `FixValue(context, value)`: the positional arguments that are written with the
  callable's own parameter names are its parameters, in that relative order
  (`signature`, `match = "subset"`, the names in the order written). Names that are the
  lesson's own variables (`model` for `m`) are notation and are left out; keyword
  arguments say nothing about order. A call that gives every parameter positionally
  (`mj_integratePos(model, q, v, dt)`) also fixes where each named one stands (`at`):
  `dt` is the fourth parameter, even when it is the only name the call shares.
- **An ordered list of enumerators.** A sentence with an order word (依次/顺序/order/→)
  that lists at least three names which are all enumerators of one enum, written in
  full (`mjINT_EULER`) or by their suffix (`dist dir origin point` for
  `mjRAYDATA_DIST`, ...): the enum's members in that relative order (`members`,
  `match = "subsequence"`).
"""

from __future__ import annotations

import re

from verifier.draft.index import CALLABLES
from verifier.draft.proposers.base import Proposer, one_owner, proposal, with_constructors
from verifier.draft.reading import ORDER_HINT, enumerator_of, split_list

_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _positions(written: list[str], params: tuple[str, ...]) -> dict[str, int] | None:
    """name -> position (from 1) of each argument written with a parameter's name, when
    the call gives every parameter positionally (as many arguments as parameters, none
    by keyword, no `...`, no starred parameter): then the i-th argument binds the i-th
    parameter, whatever the other arguments are called."""
    if any(p.startswith("*") for p in params) or len(written) != len(params):
        return None
    if any("=" in a or a in ("...", "…") or not a for a in written):
        return None
    return {a: i for i, a in enumerate(written, 1) if _ID.match(a) and a in params}


class OrderProposer(Proposer):
    name = "order"

    def propose(self, s, env):
        out = []
        out += self._calls(s, env)
        if ORDER_HINT.search(s.text):
            out += self._enumerators(s, env)
        return out

    def _calls(self, s, env):
        out = []
        for h in s.hits:
            r = h.ref
            if not r.call or len(r.args) < 2 or not one_owner(h):
                continue
            written = [a.strip() for a in r.args]
            defs = [d for d in with_constructors(env, h.upstream, h.defs)
                    if d.kind in CALLABLES and d.params]
            if not defs:
                continue
            # the callable whose parameters the written names are (any overload)
            best, names = None, []
            for d in defs:
                params = [p for p in d.params if not p.startswith("*")]
                got = [a for a in written if _ID.match(a) and a in params]
                if len(got) > len(names):
                    best, names = d, got
            if best is None or not names or len(set(names)) != len(names):
                continue
            sym_def = h.best if h.best.kind in CALLABLES | {"class"} else best
            # every argument a parameter name: their relative order already fixes them
            at = _positions(written, best.params) if len(names) < len(written) else None
            expected = [{"name": n, "at": at[n]} for n in names] if at else names
            p = proposal(self.name, "signature", h, env, d=sym_def, expected=expected,
                         options={"match": "subset"})
            p.says = [{"text": ", ".join(names), "read": "names"}] if \
                ", ".join(names) in s.raw else list(names)
            if at:
                p.paraphrase = ("`at` is where the call writes each parameter's name (every "
                                "parameter given, positionally)")
                p.reading = f"`{r.name}` takes " + ", ".join(
                    f"`{n}` as parameter {at[n]}" for n in names)
            else:
                p.reading = (f"`{r.name}` takes {', '.join(f'`{n}`' for n in names)} in this "
                             "order" if len(names) > 1 else
                             f"`{r.name}` takes a parameter `{names[0]}`")
            out.append(p)
        return out

    def _enumerators(self, s, env):
        """Lists of enumerators in the sentence, written in order."""
        out = []
        lists = []
        # a code span holding a list (`dist dir origin point`), or the sentence's code
        # spans joined by list separators
        for span in s.unit.code:
            items = split_list(span)
            if len(items) >= 3 and all(_ID.match(x) for x in items):
                lists.append((items, span))
        spans = [c for c in s.unit.code if _ID.match(c.strip())]
        if len(spans) >= 3:
            lists.append((spans, None))
        for items, span in lists:
            got = self._one_enum(items, env)
            if got is None:
                continue
            up, enum, names = got
            p = proposal(self.name, "members", up, env, d=enum, expected=names,
                         options={"match": "subsequence"}, anchor=span or items[0])
            p.says = [{"text": span, "read": "names"}] if span else list(items)
            if names != items:
                p.paraphrase = ("the sentence names the enumerators by their suffixes; "
                                "`expected` spells them as the enum does")
            p.reading = (f"`{env.symbol(up, enum)}` lists "
                         + ", ".join(f"`{n}`" for n in names) + " in this order")
            s.used.update(items)
            out.append(p)
        return out

    @staticmethod
    def _one_enum(items, env):
        """(upstream, enum def, full names) when every item names an enumerator of one
        and the same enum (each item exactly one of its enumerators)."""
        for up, idx in env.indexes.items():
            owners: dict[tuple, list] = {}
            first = items[0]
            cands = [d for d in idx.lookup_kind("enumerator")
                     if (d.name == first or d.name.upper().endswith("_" + first.upper())
                          or first.upper().startswith(d.name.upper().split("_", 1)[-1] + "_"))]
            for d in cands:
                owners.setdefault((d.path, d.qual[:-1]), [])
            found = []
            for key in owners:
                members = [d for d in idx.by_path.get(key[0], [])
                           if d.kind == "enumerator" and d.qual[:-1] == key[1]]
                names = [d.name for d in members]
                mapped = [enumerator_of(x, names) for x in items]
                if all(len(m) == 1 for m in mapped) and len({m[0] for m in mapped}) == len(items):
                    enum = next((d for d in idx.by_path.get(key[0], [])
                                 if d.qual == key[1] and d.kind == "enum"), None)
                    if enum is not None:
                        found.append((enum, [m[0] for m in mapped]))
            if len(found) == 1:
                return up, found[0][0], found[0][1]
        return None
