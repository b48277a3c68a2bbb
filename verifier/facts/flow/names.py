"""Qualified names: template arguments stripped, `::` and `.` both separate."""

from __future__ import annotations

import re


def strip_templates(s: str) -> str:
    """`Accelerometer<T>::Calc` -> `Accelerometer::Calc` (balanced angle brackets).

    `operator<`/`operator<<` etc. are kept intact."""
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(s):
        if s.startswith("operator", i):
            m = re.match(r"operator\s*(<<=|>>=|<=>|<<|>>|<=|>=|<|>|\(\)|\[\]|[^\s(]*)", s[i:])
            if m:
                if depth == 0:
                    out.append(m.group(0))
                i += len(m.group(0))
                continue
        c = s[i]
        if c == "<":
            depth += 1
        elif c == ">" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(c)
        i += 1
    return "".join(out)


def split_symbol(symbol: str) -> tuple[str, ...]:
    """`ns::Class<T>::method` / `Class.method` -> ('ns', 'Class', 'method')."""
    s = strip_templates(symbol.strip())
    s = re.sub(r"\(.*\)$", "", s)  # tolerate a trailing `()`
    parts = [p.strip() for p in re.split(r"::|\.", s)]
    return tuple(p for p in parts if p)


def short_name(callee: str) -> str:
    """Last component of a callee expression: `this->DeclareAbstractInputPort` ->
    `DeclareAbstractInputPort`, `self._mujoco.mj_step` -> `mj_step`,
    `x.template Eval<T>` -> `Eval`."""
    s = strip_templates(callee)
    s = re.sub(r"\btemplate\s+", "", s)
    s = "".join(s.split())
    parts = re.split(r"->|::|\.", s)
    last = parts[-1] if parts else s
    return last or s


def subject_key(s: str) -> str:
    """A condition or switch subject as a lookup key: whitespace removed, redundant outer
    parentheses stripped (`( mode )` -> `mode`)."""
    s = "".join(str(s).split())
    while s.startswith("(") and s.endswith(")") and _balanced(s[1:-1]):
        s = s[1:-1]
    return s


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0
