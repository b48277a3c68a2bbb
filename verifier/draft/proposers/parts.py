"""`parts`: which part of a 6-vector comes first (angular or linear).

"`SpatialVelocity` 的六项是角速度在前、线速度在后", "`mj_objectVelocity` 输出 … 先角速度后
线速度", "前三项为力矩", "`[ω; v]`", "rot:lin", "torque on top of force": the sentence
orders the angular part (角速度, 力矩, rotational, ω, τ) and the linear part (线速度, 力,
translational, v, f) of a spatial vector. The named declaration (a code span of the
sentence, or the definition a permalink of it cites) must have a doc comment that
states such an order itself ("(rot:lin)", "force:torque", "ω … on top of … v"); the
claim is the `doc` kind with `match = "order"` and the order the sentence gives."""

from __future__ import annotations

import re

from verifier.claims.kinds._parts import ANGULAR, LINEAR
from verifier.draft.proposers.base import Proposer, one_owner, proposal

# component words only: not an operation ("先旋转后平移" orders a transform's steps), not a
# single letter or character that starts other words (`v` of `validate`, 线 of 线程)
_ANG = r"(?:角速度|角加速度|角动量|力矩|扭矩|angular|rotational|torque|ω|τ|𝛕)"
_LIN = r"(?:线速度|线加速度|力(?![矩学量气度])|linear|translational|force)"
_TERM = rf"(?<![A-Za-z])(?P<t>{_ANG}|{_LIN})(?![A-Za-z])"
_READINGS = [
    # "角速度在前", "力矩分量在前" / "线速度在后"
    (re.compile(_TERM + r"(?:速度|分量|部分|项)?\s*(?:在前|排在前|放在前|居前)"), 0),
    (re.compile(_TERM + r"(?:速度|分量|部分|项)?\s*(?:在后|排在后|放在后|居后)"), 1),
    # "先角速度后线速度", "前三项为力矩" / "后三项是线速度"
    (re.compile(r"先\s*" + _TERM), 0),
    (re.compile(r"前\s*(?:三|3)\s*(?:项|个|维|个分量|个元素)?\s*(?:是|为)\s*" + _TERM), 0),
    (re.compile(r"后\s*(?:三|3)\s*(?:项|个|维|个分量|个元素)?\s*(?:是|为)\s*" + _TERM), 1),
    # "angular first", "torque on top of force"
    (re.compile(_TERM + r"\s+(?:part\s+|velocity\s+|components?\s+)?(?:first|on top)\b",
                re.I), 0),
]
# "[ω; v]", "[τ; f]", "(rot:lin)"
_PAIR = re.compile(r"[\[(]\s*(?P<a>ω|τ|𝛕|v|f)[\w]*\s*[;,]\s*(?P<b>ω|τ|𝛕|v|f)[\w]*\s*[\])]")
_COMPACT = re.compile(r"\b(?P<a>rot|lin)\s*:\s*(?P<b>rot|lin)\b")


_ANG_WORD = re.compile(_ANG, re.I)


def _part(term: str) -> str:
    return ANGULAR if _ANG_WORD.fullmatch(term) else LINEAR


def _other(part: str) -> str:
    return LINEAR if part == ANGULAR else ANGULAR


def stated_order(text: str) -> tuple[str, str] | None:
    """(first, second) as the sentence orders the two parts, or None (none stated, or
    two statements that disagree)."""
    firsts = set()
    for pat, pos in _READINGS:
        for m in pat.finditer(text):
            p = _part(m.group("t"))
            firsts.add(p if pos == 0 else _other(p))
    for pat in (_PAIR, _COMPACT):
        for m in pat.finditer(text):
            a, b = m.group("a"), m.group("b")
            a = ANGULAR if a in ("ω", "τ", "𝛕", "rot") else LINEAR
            b = ANGULAR if b in ("ω", "τ", "𝛕", "rot") else LINEAR
            if a != b:
                firsts.add(a)
    if len(firsts) != 1:
        return None
    first = firsts.pop()
    return first, _other(first)


class PartsProposer(Proposer):
    name = "parts"

    def propose(self, s, env):
        order = stated_order(s.text)
        if order is None:
            return []
        named = [(h, h.best) for h in s.hits if one_owner(h) and h.best.parts_ordered]
        if not named:
            from verifier.draft.context import Hit
            from verifier.draft.spans import Ref

            named = [(Hit(Ref(c.enclosing.name, (c.enclosing.name,)), c.upstream,
                          (c.enclosing,), "cited"), c.enclosing)
                     for c in s.cited if c.enclosing is not None and c.enclosing.parts_ordered]
        if len({(h.upstream, d.path, d.qual) for h, d in named}) != 1:
            return []
        h, d = named[0]
        p = proposal(self.name, "doc", h, env, d=d, expected=list(order),
                     options={"match": "order"}, anchor=h.ref.span)
        p.says = [h.ref.span]
        p.paraphrase = (f"the sentence puts the {order[0]} part first in its own words; "
                        "`expected` names the parts")
        p.reading = f"`{h.ref.name}` puts the {order[0]} part first"
        return [p]
