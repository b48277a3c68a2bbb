"""A whitespace- and redundant-parenthesis-insensitive form of an expression (to tell
distinct expressions apart), and the expressions assigned to a variable or returned
(the expression kind; claims compare them in `verifier/claims/compare.py`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.facts.flow.functions import FunctionDef
from verifier.facts.flow.source import Node, Source, text

_WRAP = {"binary_expression", "unary_expression", "conditional_expression", "boolean_operator",
         "comparison_operator", "not_operator", "binary_operator", "unary_operator",
         "pointer_expression", "assignment_expression", "cast_expression", "update_expression",
         "sizeof_expression"}
_PAREN = {"parenthesized_expression"}


def _tokens(node: Node, out: list[str]) -> None:
    if node.type == "comment":
        return
    if node.type in _PAREN:
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) == 1:
            _tokens(inner[0], out)
            return
    if node.child_count == 0 or node.type in ("string_literal", "string", "number_literal",
                                               "char_literal", "integer", "float"):
        out.append("".join(text(node).split()) if node.type not in ("string_literal", "string")
                   else text(node))
        return
    wrap = node.type in _WRAP
    if wrap:
        out.append("(")
    for c in node.children:
        _tokens(c, out)
    if wrap:
        out.append(")")


def canonical_expression(node: Node) -> str:
    """Token sequence with full structural parenthesisation: `a*(b-c)` and
    `(a * (b - c))` agree, `a*b-c` differs; comments and whitespace are ignored."""
    out: list[str] = []
    _tokens(node, out)
    return " ".join(out)


@dataclass(eq=False)
class Target:
    node: Node          # the expression
    stmt: Node          # the statement holding it (evidence lines)
    how: str            # 'init' | 'assign' | 'return' | 'arg'


def statement_of(node: Node) -> Node:
    p = node
    while p.parent is not None and not (p.type.endswith("statement") or p.type == "declaration"):
        p = p.parent
    return p if p.parent is not None else node


def _norm_lvalue(s: str) -> str:
    s = "".join(s.split())
    s = re.sub(r"^[*&]+", "", s)
    return s


def targets(src: Source, fn: FunctionDef, target: str) -> list[Target]:
    """Expressions assigned to `target` (declaration initialiser or `=`), or returned
    when target is 'return', in source order."""
    want = _norm_lvalue(target)
    out: list[Target] = []

    def walk(n: Node) -> None:
        t = n.type
        if want == "return" and t == "return_statement":
            vals = [c for c in n.named_children if c.type != "comment"]
            if vals:
                out.append(Target(vals[0], n, "return"))
        elif t == "init_declarator":
            decl = n.child_by_field_name("declarator")
            val = n.child_by_field_name("value")
            if decl is not None and val is not None:
                name = _declarator_name_plain(decl)
                if name == want:
                    if val.type in ("argument_list", "initializer_list"):
                        inner = [c for c in val.named_children if c.type != "comment"]
                        val = inner[0] if len(inner) == 1 else val
                    out.append(Target(val, statement_of(n), "init"))
        elif t == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            op = n.child_by_field_name("operator")
            op_text = text(op) if op is not None else "="
            if left is not None and right is not None and op_text == "=" \
                    and _norm_lvalue(text(left)) == want:
                out.append(Target(right, statement_of(n), "assign"))
        elif t == "assignment":  # python (also annotated `x: T = v`)
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and right is not None and _norm_lvalue(text(left)) == want:
                out.append(Target(right, statement_of(n), "assign"))
        for c in n.children:
            walk(c)

    walk(fn.body)
    return out


def _declarator_name_plain(decl: Node) -> str:
    node: Node | None = decl
    for _ in range(20):
        if node is None:
            return ""
        if node.type in ("identifier", "field_identifier", "qualified_identifier"):
            return "".join(text(node).split())
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children
                          if c.type.endswith("declarator") or c.type == "identifier"), None)
        node = inner
    return ""
