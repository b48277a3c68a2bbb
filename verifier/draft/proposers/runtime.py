"""`runtime` skeleton: a numeric or behavioural statement nothing static can check
("reads +9.81", "returns -1", "writes no output"). The draft describes the
situation (the sentence), takes `expected` from the sentence, and is marked as
needing a person: its `code` raises until someone writes the check. Proposed only
for a sentence that got no other proposal."""

from __future__ import annotations

import json
import re

from verifier.draft.proposers.base import Proposer, literal

# what code does, observably (not advice such as 不能/不要/should)
_BEHAVIOUR = re.compile(r"返回|读到|读出|读取为|写入|不写|写回|输出|抛出|抛错|报错|得到|变为|等于|为零|"
                        r"清零|置零|保留|覆盖|跳过|拒绝|退出|触发|重置|不变|不会改变|不再|"
                        r"returns?|reads?|writes?|outputs?|raises?|throws?|yields?|becomes?|"
                        r"equals?|resets?|skips?|rejects?|keeps?|overwrites?", re.I)
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?(?![\w.])")
_NEGATIVE = re.compile(r"不写|不输出|不返回|没有输出|no output|writes nothing|nothing", re.I)


def _expected(s) -> object | None:
    plain = s.text
    for c in s.unit.code:
        plain = plain.replace(c, " ")
    plain = re.sub(r"\$[^$]*\$", " ", plain)
    for m in _NUMBER.finditer(plain):
        ok, v = literal(m.group(0))
        if ok:
            return v
    if _NEGATIVE.search(plain):
        return False
    if _BEHAVIOUR.search(plain) and (s.unit.code or s.cited):
        return True      # a behaviour about named/cited code: `result` = "it is observed"
    return None


class RuntimeProposer(Proposer):
    name = "runtime"
    last = True          # only for sentences nothing else drafted

    def propose(self, s, env):
        if "number" not in s.unit.reasons and not _BEHAVIOUR.search(s.text):
            return []
        expected = _expected(s)
        if expected is None:
            return []
        up = s.hits[0].upstream if s.hits else env.default_upstream
        situation = " ".join(s.text.split())
        code = ("# TODO(draft): reproduce the situation of the sentence (and its boundary\n"
                "# cases) in the pinned environment and assign the observed value to `result`\n"
                "# (for a behaviour: True when the behaviour the sentence states is observed).\n"
                f"# Sentence: {situation[:300]}\n"
                "raise NotImplementedError('runtime draft: a person must write this check')")
        from verifier.draft.model import Proposal

        return [Proposal(kind="runtime", upstream=up, expected=expected,
                         runtime={"code": code, "expected": expected},
                         note="runtime skeleton: needs a person to write `code` "
                              f"(expected {json.dumps(expected)} is read from the sentence)",
                         anchor=s.unit.code[0] if s.unit.code else None,
                         proposer=self.name, person=True)]
