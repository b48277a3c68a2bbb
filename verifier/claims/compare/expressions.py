"""Expressions compared structurally (tree-sitter, the file's grammar), with constant
sub-expressions folded and names aligned through the claim's notation."""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from typing import Any

from verifier.claims.compare.base import MAX_CELLS, NO, SEPS, YES, Match, _done, _notation, name_toks
from verifier.claims.compare.numbers import _arith, number_value
from verifier.claims.notation import Notation, Tracker

# ------------------------------------------------------------------ expression tokens
# A token is (kind, value): ("name", "x"), ("num", Fraction), ("str", "text"),
# ("op", "+"), ("(", "(") / (")", ")") for structural grouping.

_WRAP = {"binary_expression", "unary_expression", "conditional_expression", "boolean_operator",
         "comparison_operator", "not_operator", "binary_operator", "unary_operator",
         "pointer_expression", "assignment_expression", "cast_expression", "update_expression",
         "sizeof_expression"}
_NAMES = {"identifier", "field_identifier", "type_identifier", "namespace_identifier",
          "this", "self", "primitive_type", "true", "false", "none", "null", "nullptr"}
_NUMS = {"number_literal", "integer", "float"}
_STRS = {"string_literal", "string", "raw_string_literal", "char_literal"}


def _node_text(node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


def _const(node, c_rules: bool) -> tuple[Fraction, bool] | None:
    """Value of a constant arithmetic subtree (numbers, + - * / % and parentheses)."""
    t = node.type
    kids = [c for c in node.children if c.type != "comment"]
    if t in _NUMS:
        return number_value(_node_text(node))
    if t == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        return _const(inner[0], c_rules) if len(inner) == 1 else None
    if t in ("unary_expression", "unary_operator") and len(kids) == 2:
        op = _node_text(kids[0])
        v = _const(kids[1], c_rules)
        if v is None or op not in ("-", "+"):
            return None
        return (-v[0], v[1]) if op == "-" else v
    if t in ("binary_expression", "binary_operator") and len(kids) == 3:
        a, b = _const(kids[0], c_rules), _const(kids[2], c_rules)
        if a is None or b is None:
            return None
        return _arith(_node_text(kids[1]), a, b, c_rules)
    return None


def _string_value(node, lang: str) -> str:
    raw = _node_text(node)
    if lang == "python":
        try:
            v = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            return raw
        return v if isinstance(v, str) else raw
    m = re.fullmatch(r'(?:u8|u|U|L)?"(.*)"', raw, re.S)
    return m.group(1) if m else raw


MAX_DEPTH = 200     # syntax nested deeper than this is compared as text (claims are untrusted)


def too_deep(node, limit: int = MAX_DEPTH) -> bool:
    """Whether the syntax tree below `node` is nested more than `limit` levels (iterative:
    the walks below recurse once per level)."""
    stack = [(node, 0)]
    while stack:
        n, d = stack.pop()
        if d > limit:
            return True
        stack.extend((c, d + 1) for c in n.children)
    return False


def expr_tokens(node, lang: str, *, fold: bool, c_rules: bool) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if too_deep(node):       # one token: its text without whitespace, never a RecursionError
        return [("op", "".join(_node_text(node).split()))]

    def walk(n) -> None:
        t = n.type
        if t == "comment":
            return
        if fold and t not in _NUMS:
            v = _const(n, c_rules)
            if v is not None:
                out.append(("num", v[0]))
                return
        if t == "parenthesized_expression":
            inner = [c for c in n.named_children if c.type != "comment"]
            if len(inner) == 1:
                walk(inner[0])
                return
        if t in _NUMS:
            v = number_value(_node_text(n))
            out.append(("num", v[0]) if v is not None else ("op", "".join(_node_text(n).split())))
            return
        if t in _STRS:
            out.append(("str", _string_value(n, lang)))
            return
        if n.child_count == 0:
            s = "".join(_node_text(n).split())
            if t in _NAMES or re.fullmatch(r"[^\W\d]\w*", s):
                out.append(("name", s))
            else:
                out.append(("op", s))
            return
        wrap = t in _WRAP
        if wrap:
            out.append(("(", "("))
        for c in n.children:
            walk(c)
        if wrap:
            out.append((")", ")"))

    walk(node)
    return out


def parse_expression(lang: str, expr: str):
    """The tree-sitter node of an expression written as text, or None if it does not parse."""
    from verifier.facts import treesitter as ts

    if lang == "python":
        wrapper = f"__v = ({expr})\n"
    else:
        wrapper = f"void __f(void) {{ __v = ({expr}); }}\n"
    tree = ts.parse(lang, wrapper.encode("utf-8"))
    if tree.root_node.has_error or too_deep(tree.root_node):
        return None
    found = []

    def walk(n) -> None:
        if found:
            return
        if n.type in ("assignment_expression", "assignment"):
            right = n.child_by_field_name("right")
            if right is not None:
                found.append(right)
                return
        for c in n.children:
            walk(c)

    walk(tree.root_node)
    if not found:
        return None
    node = found[0]
    while node.type == "parenthesized_expression":   # the wrapper's own parentheses
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            break
        node = inner[0]
    return node


# ------------------------------------------------------------------ alignment

def align(lesson: list[tuple[str, Any]], source: list[tuple[str, Any]], nt: Notation) -> Match:
    """Token sequences equal, allowing the notation's renames (lesson name tokens ->
    source name tokens) and receivers left out in front of a name. Among matches,
    the one needing the fewest notation entries is chosen (none when literal)."""
    if lesson == source:
        return YES
    if not nt:
        return NO
    n, m = len(lesson), len(source)
    if (n + 1) * (m + 1) > MAX_CELLS:
        return NO
    names = [(tuple(("name", t) if t not in SEPS else ("op", t) for t in mp.lesson_tokens),
              tuple(("name", t) if t not in SEPS else ("op", t) for t in mp.source_tokens), mp)
             for mp in nt.names]
    recv = [(tuple(("name", t) if t not in SEPS else ("op", t) for t in r.source_tokens), r)
            for r in nt.receivers]
    INF = None
    best: list[list[tuple | None]] = [[INF] * (m + 1) for _ in range(n + 1)]
    best[n][m] = ()
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            cands = []
            if i < n and j < m and lesson[i] == source[j] and best[i + 1][j + 1] is not None:
                cands.append(best[i + 1][j + 1])
            for key, val, mp in names:
                k, v = len(key), len(val)
                if tuple(lesson[i:i + k]) == key and tuple(source[j:j + v]) == val \
                        and best[i + k][j + v] is not None \
                        and (i == 0 or lesson[i - 1][1] not in SEPS):
                    cands.append((mp,) + best[i + k][j + v])
            if i < n and lesson[i][0] == "name" and (i == 0 or lesson[i - 1][1] not in SEPS):
                for rt, r in recv:
                    k = len(rt)
                    if tuple(source[j:j + k]) == rt and j + k < m and source[j + k][0] == "name" \
                            and (j == 0 or source[j - 1][1] not in SEPS) \
                            and tuple(lesson[i:i + k]) != rt and best[i][j + k] is not None:
                        cands.append((r,) + best[i][j + k])
            if cands:
                best[i][j] = min(cands, key=len)
    got = best[0][0]
    if got is None:
        return NO
    return Match(True, tuple(dict.fromkeys(got)), "notation")
def same_name(expected: str, actual: str, tracker: Tracker | None = None) -> Match:
    """Two names (`gravity_vector`, `Class.method`, `ns::f`), whitespace ignored,
    through the notation table."""
    e, a = "".join(str(expected).split()), "".join(str(actual).split())
    if e == a:
        return YES
    return _done(align(name_toks(e), name_toks(a), _notation(tracker)), tracker)


def same_expression(lang: str, node, expected: str, tracker: Tracker | None = None, *,
                    actual_c_rules: bool | None = None) -> Match:
    """A source expression node against the lesson's expression text."""
    want = parse_expression(lang, expected)
    if want is None:
        e, a = "".join(expected.split()), "".join(_node_text(node).split())
        return YES if e == a else same_name(expected, _node_text(node), tracker) \
            if re.fullmatch(r"[\w.:>-]+", e) else NO
    c_rules = lang in ("c", "cpp") if actual_c_rules is None else actual_c_rules
    nt = _notation(tracker)
    lit = align(expr_tokens(want, lang, fold=False, c_rules=False),
                expr_tokens(node, lang, fold=False, c_rules=c_rules), nt)
    if lit.ok:
        return _done(lit, tracker)
    folded = align(expr_tokens(want, lang, fold=True, c_rules=False),
                   expr_tokens(node, lang, fold=True, c_rules=c_rules), nt)
    return _done(folded, tracker)


def expression_text_equal(lang: str, expected: str, actual: str,
                          tracker: Tracker | None = None) -> Match:
    """Two expressions given as text (the source one parsed with the source's rules)."""
    node = parse_expression(lang, actual)
    if node is None:
        e, a = "".join(expected.split()), "".join(actual.split())
        return YES if e == a else NO
    return same_expression(lang, node, expected, tracker)
