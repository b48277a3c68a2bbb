"""Name normalisation, in one place: how a written name (`ns::A<B<C>>::f()`,
`newton.sensors.SensorIMU`, `Accelerometer<T>::Accelerometer`) becomes the
parts the fact records are keyed by, and how Python paths become module names.

Every consumer (the extractors, the claim kinds, lint's resolver, flow
analysis) uses these, so "the lesson cites X" and "the claim checks X" split X
the same way.
"""

from __future__ import annotations

import re

_INNER = re.compile(r"<[^<>]*>")
# what the balanced scan stops at: an angle bracket, or `operator` not inside a longer name
# (`\w` is str.isalnum() or "_", per character)
_SCAN = re.compile(r"[<>]|(?<!\w)operator")
_OPERATOR = re.compile(r"operator\s*(<<=|>>=|<=>|<<|>>|<=|>=|<|>|\(\)|\[\]|[^\s(]*)")


def strip_templates(s: str) -> str:
    """`Accelerometer<T>::Calc` -> `Accelerometer::Calc`: balanced angle brackets
    removed at any depth (`A<B<C<D>>>` -> `A`); `operator<`, `operator<<` and the
    other operator names are kept intact."""
    if "<" not in s:
        return s
    if "operator" not in s:    # fast path: innermost `<...>` groups away until none is left
        prev = None
        while prev != s and "<" in s:
            prev, s = s, _INNER.sub("", s)
        if "<" not in s and ">" not in s:
            return s
    out: list[str] = []   # unbalanced or operator names: the balanced scan, chunk by chunk
    depth = 0
    i = 0
    while True:
        m = _SCAN.search(s, i)
        if m is None:
            if depth == 0:
                out.append(s[i:])
            break
        j = m.start()
        if depth == 0:
            out.append(s[i:j])
        tok = m.group()
        if tok == "<":
            depth += 1
            i = j + 1
        elif tok == ">":
            if depth > 0:
                depth -= 1
            else:
                out.append(">")
            i = j + 1
        else:                                   # an operator name, kept whole
            op = _OPERATOR.match(s, j)
            if depth == 0:
                out.append(op.group(0))
            i = op.end()
    return "".join(out)


def split_symbol(symbol: str) -> tuple[str, ...]:
    """A written name -> its parts: `ns::Class<T>::method()` / `Class.method` ->
    ('ns', 'Class', 'method'). Template arguments and a trailing call `(...)`
    are dropped; `::` and `.` both separate."""
    s = strip_templates(symbol.strip())
    m = re.search(r"\(.*\)$", s)
    if m and not s[:m.start()].rstrip().endswith("operator"):   # `operator()` is a name
        s = s[:m.start()]
    return tuple(p for p in (x.strip() for x in re.split(r"::|\.", s)) if p)


def short_name(callee: str) -> str:
    """Last component of a callee expression: `this->DeclareVectorInputPort` ->
    `DeclareVectorInputPort`, `self._mujoco.mj_step` -> `mj_step`, `x.template Eval<T>`
    -> `Eval`."""
    s = "".join(re.sub(r"\btemplate\s+", "", strip_templates(callee)).split())
    parts = re.split(r"->|::|\.", s)
    return (parts[-1] if parts else s) or s


def name_parts(text: str) -> tuple[str, ...]:
    """A C/C++ declarator name -> its scope parts: `ns::A<B>::f` -> ('ns', 'A', 'f').
    Only `::` separates (a C++ name has no `.`); template arguments are dropped."""
    return tuple(p for p in (x.strip() for x in strip_templates(text).split("::")) if p)


def module_name(path: str) -> str:
    """The Python module a repository path is, by its path alone:
    `newton/sensors.py` -> `newton.sensors`, `pkg/__init__.pyi` -> `pkg`. (Where a
    wheel maps the path elsewhere, `facts.symbols.python_module` knows better.)"""
    p = path[:-4] if path.endswith(".pyi") else path[:-3] if path.endswith(".py") else path
    parts = p.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve_relative(module: str, is_package: bool, rel: str) -> str:
    """An import's module as written (`..core`, `.`, `numpy`) -> absolute, for an
    import that sits in `module` (a package's `__init__` when `is_package`)."""
    dots = len(rel) - len(rel.lstrip("."))
    if dots == 0:
        return rel
    rest = rel[dots:]
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    if dots > 1:
        base = base[: max(0, len(base) - (dots - 1))]
    return ".".join([*base, rest] if rest else base)


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


def split_args(text: str, *, angles: bool = False) -> list[str]:
    """Top-level comma-separated arguments of a call written as text: brackets and
    quotes respected; `angles` also treats `<...>` as brackets (C++ template arguments,
    not comparisons)."""
    opening, closing = ("([{<", ")]}>") if angles else ("([{", ")]}")
    out, depth, cur, quote = [], 0, [], None
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out
