"""Values (defaults, arguments, labels) compared by meaning: numbers, strings,
booleans, sequences, sets and flag compositions, calls with keyword arguments."""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from typing import Any

from verifier.claims.compare.base import NO, YES, Match, _done, _notation, name_toks
from verifier.claims.compare.expressions import align, expression_text_equal, same_name
from verifier.claims.compare.numbers import _arith
from verifier.claims.notation import Mapping, Notation, Tracker

# ------------------------------------------------------------------ values

def _c_to_python(text: str) -> str:
    """A C/C++ value spelled so that Python's parser reads the same structure:
    numeric suffixes and digit separators dropped, `::`/`->` as `.`, brace
    initialisers as lists (`T{...}` as a call), `true`/`false` as booleans."""
    s = re.sub(r"(?<![\w.])(0[xX][0-9a-fA-F']+)[uUlL]+\b", r"\1", text)
    # possessive: the digits split between the two runs one way only (a run of 10,000
    # digits cost 18 s of backtracking with plain `*`)
    s = re.sub(r"(?<![\w.])(\d[\d']*+\.?[\d']*+(?:[eE][+-]?\d++)?|\.\d++(?:[eE][+-]?\d++)?)"
               r"[fFlLuU]+\b", r"\1", s)
    s = re.sub(r"(?<=\d)'(?=\d)", "", s)
    s = re.sub(r"(?<![\w.])0(\d+)\b", r"0o\1", s)
    s = s.replace("::", ".").replace("->", ".")
    s = re.sub(r"\btrue\b", "True", s)
    s = re.sub(r"\bfalse\b", "False", s)
    out, stack = [], []
    for i, ch in enumerate(s):
        if ch == "{":
            prev = s[:i].rstrip()[-1:] if s[:i].strip() else ""
            call = bool(prev) and (prev.isalnum() or prev in "_>")
            stack.append(")" if call else "]")
            out.append("(" if call else "[")
        elif ch == "}" and stack:
            out.append(stack.pop())
        else:
            out.append(ch)
    return "".join(out)


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _value(node: ast.AST, c_rules: bool) -> tuple | None:
    """A literal-ish value tree, or None for anything else."""
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return ("bool", v)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            f = Fraction(v) if isinstance(v, int) else Fraction(repr(v))
            return ("num", f, isinstance(v, int))
        if isinstance(v, str):
            return ("str", v)
        if v is None:
            return ("name", "None")
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand, c_rules)
        if inner is not None and inner[0] == "num":
            return ("num", -inner[1] if isinstance(node.op, ast.USub) else inner[1], inner[2])
        return None
    if isinstance(node, ast.BinOp):
        flags = _flags(node)
        if flags is not None:
            return ("set", tuple(_value(x, c_rules) for x in flags))
        a, b = _value(node.left, c_rules), _value(node.right, c_rules)
        ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
               ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>",
               ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^"}
        op = ops.get(type(node.op))
        if a is not None and b is not None and a[0] == b[0] == "num" and op:
            r = _arith(op, (a[1], a[2]), (b[1], b[2]), c_rules)
            if r is not None:
                return ("num", r[0], r[1])
        return None
    if isinstance(node, (ast.Name, ast.Attribute)):
        d = _dotted(node)
        return ("name", d) if d else None
    if isinstance(node, (ast.List, ast.Tuple)):
        items = tuple(_value(x, c_rules) for x in node.elts)
        return None if any(x is None for x in items) else ("seq", items)
    if isinstance(node, ast.Set):
        items = tuple(_value(x, c_rules) for x in node.elts)
        return None if any(x is None for x in items) else ("set", items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            return None
        pairs = tuple((_value(k, c_rules), _value(v, c_rules)) for k, v in zip(node.keys, node.values))
        return None if any(k is None or v is None for k, v in pairs) else ("map", pairs)
    if isinstance(node, ast.Call):
        func = _dotted(node.func)
        args = tuple(_value(x, c_rules) for x in node.args)
        kws = tuple((k.arg, _value(k.value, c_rules)) for k in node.keywords)
        if func is None or any(x is None for x in args) or any(k is None or v is None
                                                               for k, v in kws):
            return None
        return ("call", func, args, tuple(sorted(kws, key=lambda kv: kv[0])))
    return None


def _flags(node: ast.BinOp) -> list[ast.AST] | None:
    """`A | B | C` over names -> [A, B, C] (bitwise OR is order-free)."""
    if not isinstance(node.op, ast.BitOr):
        return None
    out: list[ast.AST] = []
    for side in (node.left, node.right):
        if isinstance(side, ast.BinOp) and isinstance(side.op, ast.BitOr):
            inner = _flags(side)
            if inner is None:
                return None
            out.extend(inner)
        elif isinstance(side, (ast.Name, ast.Attribute)):
            out.append(side)
        else:
            return None
    return out


def parse_value(v: Any, lang: str | None, *, c_rules: bool, claim_side: bool = False
                ) -> tuple | None:
    """A claim value (TOML) or a source value text as a value tree (None: not a
    literal structure). On the claim's side a string is kept with its text too
    (`("text", raw, parsed)`): `"rgb"` may mean the name rgb or the string's content."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, int):
        return ("num", Fraction(v), True)
    if isinstance(v, float):
        return ("num", Fraction(repr(v)), False) if v == v and abs(v) != float("inf") else None
    if isinstance(v, (list, tuple)):
        items = tuple(parse_value(x, lang, c_rules=c_rules, claim_side=claim_side) for x in v)
        return None if any(x is None for x in items) else ("seq", items)
    if isinstance(v, dict):
        return None
    if not isinstance(v, str):
        return None
    if claim_side:
        return ("text", v.strip(), parse_value(v, lang, c_rules=c_rules))
    text = v.strip()
    if not text:
        return ("str", "")
    if lang in ("c", "cpp") or lang is None:
        text = _c_to_python(text)
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return _value(tree.body, c_rules)


def _vals_equal(e: tuple, a: tuple, nt: Notation) -> Match:
    if e[0] == "text":
        if a[0] == "str" and e[1] == a[1]:
            return YES                            # the lesson wrote the string's content
        return _vals_equal(e[2], a, nt) if e[2] is not None else NO
    if e[0] == "name" and a[0] == "name":
        if e[1] == a[1]:
            return YES
        return align(name_toks(e[1]), name_toks(a[1]), nt)
    if e[0] != a[0]:
        return NO
    kind = e[0]
    if kind == "num":
        return YES if e[1] == a[1] else NO
    if kind in ("bool", "str"):
        return YES if e[1] == a[1] else NO
    if kind == "seq":
        if len(e[1]) != len(a[1]):
            return NO
        used: list[Mapping] = []
        for x, y in zip(e[1], a[1], strict=True):
            m = _vals_equal(x, y, nt)
            if not m:
                return NO
            used.extend(m.used)
        return Match(True, tuple(dict.fromkeys(used)))
    if kind == "set":
        return _set_equal(list(e[1]), list(a[1]), nt)
    if kind == "map":
        if len(e[1]) != len(a[1]):
            return NO
        used = []
        rest = list(a[1])
        for k, v in e[1]:
            hit = None
            for idx, (k2, v2) in enumerate(rest):
                mk = _vals_equal(k, k2, nt)
                mv = _vals_equal(v, v2, nt) if mk else NO
                if mk and mv:
                    hit = idx
                    used.extend(mk.used + mv.used)
                    break
            if hit is None:
                return NO
            rest.pop(hit)
        return Match(True, tuple(dict.fromkeys(used)))
    if kind == "call":
        f = YES if e[1] == a[1] else align(name_toks(e[1]), name_toks(a[1]), nt)
        if not f or len(e[2]) != len(a[2]) or [k for k, _ in e[3]] != [k for k, _ in a[3]]:
            return NO
        used = list(f.used)
        for x, y in list(zip(e[2], a[2], strict=True)) + [
                (x[1], y[1]) for x, y in zip(e[3], a[3], strict=True)]:
            m = _vals_equal(x, y, nt)
            if not m:
                return NO
            used.extend(m.used)
        return Match(True, tuple(dict.fromkeys(used)))
    return NO


def _set_equal(e: list[tuple], a: list[tuple], nt: Notation) -> Match:
    """Same elements, any order (duplicates ignored: sets and OR-compositions)."""
    e = list(dict.fromkeys(e))
    a = list(dict.fromkeys(a))
    used: list[Mapping] = []
    for x in e:
        hit = next((m for m in (_vals_equal(x, y, nt) for y in a) if m), None)
        if hit is None:
            return NO
        used.extend(hit.used)
    for y in a:
        if not any(_vals_equal(x, y, nt) for x in e):
            return NO
    return Match(True, tuple(dict.fromkeys(used)))


_WS_OPS = re.compile(r"\s*([(),\[\]{}<>*&|+\-/:=])\s*")


def squash_text(v: Any) -> str:
    return _WS_OPS.sub(r"\1", " ".join(str(v).split()))


def same_value(expected: Any, actual: Any, lang: str | None = None,
               tracker: Tracker | None = None) -> Match:
    """A value the lesson states against a value (text, or a plain value) the source has.

    Literal spellings first (whitespace-normalised text), then meaning: numbers,
    strings, booleans, containers and flag sets as described in the module
    docstring; anything else as an expression in the source's grammar."""
    if actual is None or expected is None:
        return YES if actual is None and expected is None else NO
    c_rules = lang in ("c", "cpp")
    if isinstance(expected, bool) and isinstance(actual, str):
        s = actual.strip()
        if s in ("True", "true", "False", "false"):
            return YES if (s in ("True", "true")) == expected else NO
    if not isinstance(expected, (list, tuple, dict)) and not isinstance(actual, (list, tuple, dict)):
        if squash_text(expected) == squash_text(actual):
            return YES
    nt = _notation(tracker)
    e = parse_value(expected, lang, c_rules=False, claim_side=True)
    a = parse_value(actual, lang, c_rules=c_rules)
    if e is not None and a is not None and (e[0] != "text" or e[2] is not None or a[0] == "str"):
        m = _vals_equal(e, a, nt)
        if m or e[0] != "text":
            return _done(m, tracker)
    if isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple)):
        if len(expected) != len(actual):
            return NO
        used: list[Mapping] = []
        for x, y in zip(expected, actual, strict=True):
            m = same_value(x, y, lang, None if tracker is None else Tracker(tracker.notation))
            if not m:
                return NO
            used.extend(m.used)
        return _done(Match(True, tuple(dict.fromkeys(used))), tracker)
    if isinstance(expected, str) and isinstance(actual, str) and lang in ("c", "cpp", "python"):
        return expression_text_equal(lang, expected, actual, tracker)
    if isinstance(expected, str) and isinstance(actual, str):
        return same_name(expected, actual, tracker) if re.fullmatch(r"[\w.:>-]+", expected.strip()) \
            and re.fullmatch(r"[\w.:>-]+", actual.strip()) else NO
    return NO


def same_list(expected: list, actual: list, lang: str | None, tracker: Tracker | None, *,
              mode: str = "exact", names: bool = False) -> Match:
    """Ordered lists: `exact` (same items, same order), `prefix` (the first items),
    `subsequence` (these items in this relative order), `subset` (all present, any
    order), `set` (same items, any order)."""
    def eq(x, y) -> Match:
        if names:
            return same_name(str(x), str(y), None if tracker is None else Tracker(tracker.notation))
        return same_value(x, y, lang, None if tracker is None else Tracker(tracker.notation))

    used: list[Mapping] = []

    def take(m: Match) -> bool:
        if m:
            used.extend(m.used)
        return m.ok

    ok: bool
    if mode == "exact":
        ok = len(expected) == len(actual) and all(take(eq(x, y)) for x, y in zip(expected, actual))
    elif mode == "prefix":
        ok = len(actual) >= len(expected) and all(take(eq(x, y)) for x, y in zip(expected, actual))
    elif mode == "subsequence":
        it = iter(actual)
        ok = all(any(take(eq(x, y)) for y in it) for x in expected)
    elif mode in ("subset", "set"):
        ok = all(any(take(eq(x, y)) for y in actual) for x in expected)
        if ok and mode == "set":
            ok = all(any(eq(x, y) for x in expected) for y in actual)
    else:
        raise ValueError(mode)
    m = Match(ok, tuple(dict.fromkeys(used)) if ok else ())
    return _done(m, tracker)
