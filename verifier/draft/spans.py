"""What a code span names: API references read from the lesson's own text.

A span is one of
  name / dotted path        `mj_step`, `newton.sensors`, `data.qpos`, `Accelerometer::CalcOutput`
  slash list                `qpos/qvel`, `ContactModel.kPoint / kHydroelastic` (later items
                            share the first one's prefix)
  call                      `mj_step(m, d)`, `SensorIMU(model, sites=..., verbose=True)`,
                            chained `CollisionFilterDeclaration().ExcludeBetween(...)`
  assignment                `time_step=0.001`, `mjSTATE_PHYSICS = 30`
Anything else (statements, formulas, XML) names nothing the drafter uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.claims.coverage import is_maths
from verifier.facts.names import split_args

_ID = r"[A-Za-z_~][A-Za-z0-9_]*"
_PATH = rf"{_ID}(?:<[^<>()]*>)?(?:\s*(?:\.|::|->)\s*{_ID}(?:<[^<>()]*>)?)*"
_NAME_RE = re.compile(rf"^\s*({_PATH})\s*$")
_SLASH_RE = re.compile(rf"^\s*({_PATH})((?:\s*/\s*{_ID})+)\s*$")
_ASSIGN_RE = re.compile(rf"^\s*({_PATH})\s*=(?!=)\s*(.+?)\s*$")
_CALL_HEAD = re.compile(rf"({_PATH})\s*\(")
_KW = re.compile(rf"^\s*({_ID})\s*=(?!=)\s*(.*?)\s*$")


@dataclass(frozen=True)
class Ref:
    """One name a code span refers to."""

    span: str                          # the code span's text
    parts: tuple[str, ...]             # `data.qpos` -> ("data", "qpos"); templates dropped
    call: bool = False                 # written as a call
    args: tuple[str, ...] = ()         # positional argument texts, as written
    kwargs: tuple[tuple[str, str], ...] = ()   # keyword arguments (name, value text)
    value: str | None = None           # `name=value` spans: the value text
    listed: bool = False               # one item of a slash list

    @property
    def name(self) -> str:
        return self.parts[-1]


def split_path(path: str) -> tuple[str, ...]:
    s = re.sub(r"<[^<>()]*>", "", path)
    s = re.sub(r"<[^<>()]*>", "", s)
    return tuple(p for p in re.split(r"\s*(?:\.|::|->)\s*", s) if p)


def _close(text: str, i: int) -> int:
    """Index of the bracket closing the one at text[i], or -1."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def refs(span: str) -> list[Ref]:
    s = span.strip()
    if not s or is_maths(s) or len(s) > 160:
        return []
    s = re.sub(r"(?<=\w)\[[^\[\]]*\]$", "", s)     # `actuator_force[aid]`
    items = split_args(s, angles=True)
    if len(items) > 1 and all(_ASSIGN_RE.match(i) and "(" not in i for i in items):
        return [r for i in items for r in refs_one(span, i)]   # `nu=3, nout=2`
    return refs_one(span, s)


def refs_one(span: str, s: str) -> list[Ref]:
    m = _NAME_RE.match(s)
    if m:
        parts = split_path(m.group(1))
        return [Ref(span, parts)] if parts else []
    m = _SLASH_RE.match(s)
    if m:
        first = split_path(m.group(1))
        rest = [x.strip() for x in m.group(2).split("/") if x.strip()]
        if not first:
            return []
        out = [Ref(span, first, listed=True)]
        out += [Ref(span, first[:-1] + (r,), listed=True) for r in rest]
        return out
    m = _ASSIGN_RE.match(s)
    if m and "(" not in m.group(1):
        parts = split_path(m.group(1))
        value = m.group(2)
        if _CALL_HEAD.match(value):         # `aid = model.actuator(name)`: the call counts
            return _calls(span, value)
        if parts and not re.search(r"[;{}()]|\s(?:and|or)\s", value):
            return [Ref(span, parts, value=value)]
        return []
    return _calls(span, s)


def _calls(span: str, s: str) -> list[Ref]:
    """Every call head in a call expression (`A().b(x)` -> A(), A.b(x))."""
    out: list[Ref] = []
    pos = 0
    prev: tuple[str, ...] | None = None
    if not _CALL_HEAD.match(s):
        return []
    while pos < len(s):
        m = _CALL_HEAD.search(s, pos)
        if m is None:
            break
        head = split_path(m.group(1))
        open_at = m.end() - 1
        close = _close(s, open_at)
        if close < 0:
            return []
        chained = prev is not None and s[pos:m.start()].strip() in (".", "->", "::") \
            and m.group(1)[:1] not in ".:"
        if chained and prev is not None and len(head) == 1:
            head = prev + head
        args = split_args(s[open_at + 1:close], angles=True)
        pos_args, kw = [], []
        for a in args:
            k = _KW.match(a)
            if k and not a.lstrip().startswith(("=", "'", '"')):
                kw.append((k.group(1), k.group(2)))
            else:
                pos_args.append(a)
        if head:
            out.append(Ref(span, head, call=True, args=tuple(pos_args), kwargs=tuple(kw)))
        # calls nested in the arguments
        for a in args:
            inner = a.split("=", 1)[1] if _KW.match(a) else a
            if _CALL_HEAD.match(inner.strip()):
                out.extend(r for r in _calls(span, inner.strip()))
        prev = head
        pos = close + 1
        rest = s[pos:].lstrip()
        if not rest.startswith((".", "->", "::")):
            break
    return out
