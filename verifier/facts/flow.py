"""Control-flow facts inside one function of C, C++ or Python source.

Used by the claim kinds call_order, branch, cases, expression and text. One
tree-sitter parse per file; every result is a pure function of the file's bytes
(plus the claim's options), so parses are memoised by blob SHA and a persistent
cache can key on the blob too.

- `parse_source(path, data, blob)` -> `Source`
- `find_functions(src, symbol)` -> definitions whose qualified name ends with
  `symbol` (`mj_step2`, `Accelerometer<T>::Accelerometer`, `Accelerometer::CalcOutput`,
  `SolverMuJoCo.step`); template arguments are ignored, `::` and `.` both separate.
- `calls_in(src, node)` -> every call in source order.
- `reachable_calls(src, fn, bindings)` -> calls on some possible path under the
  bindings (if / else if / else / switch with fall-through and default / ternary /
  `&&` `||` short-circuit / loops / Python match), plus the undecidable conditions.
- `switches(src, fn)` -> each switch/match with its labels, default and the calls
  each label reaches.
- `targets(src, fn, target)` -> expressions assigned to a variable, or returned.
- `canonical(src.lang, node)` / `canonical_text(lang, text)` -> a whitespace- and
  redundant-parenthesis-insensitive form of an expression for comparison.

Line numbers are 1-based and inclusive.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import tree_sitter

from verifier.facts import treesitter as ts

Node = tree_sitter.Node

# ------------------------------------------------------------------ parsing


@dataclass(eq=False)
class Source:
    path: str
    lang: str             # c | cpp | python
    data: bytes
    tree: tree_sitter.Tree
    blob: str | None = None
    _functions: list | None = field(default=None, repr=False)

    @property
    def root(self) -> Node:
        return self.tree.root_node


_PARSED: OrderedDict[tuple[str, str, str], Source] = OrderedDict()
_PARSED_MAX = 64


def parse_source(path: str, data: bytes | str, blob: str | None = None,
                 lang: str | None = None) -> Source:
    """Parse a file; memoised by (path's grammar, blob) when the blob is given."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    lang = lang or ts.language_for(path, data)
    if lang is None:
        raise ValueError(f"no grammar for {path} (expected .c/.h/.cc/.cpp/.hpp/.py)")
    key = (lang, blob or "", path if blob is None else "")
    if blob is not None and key in _PARSED:
        _PARSED.move_to_end(key)
        return _PARSED[key]
    src = Source(path=path, lang=lang, data=data, tree=ts.parse(lang, data), blob=blob)
    if blob is not None:
        _PARSED[key] = src
        while len(_PARSED) > _PARSED_MAX:
            _PARSED.popitem(last=False)
    return src


def text(node: Node | None) -> str:
    return ts.text(node) if node is not None else ""


def squash(s: str) -> str:
    """Whitespace collapsed to single spaces."""
    return " ".join(s.split())


def lines_of(node: Node) -> tuple[int, int]:
    return node.start_point[0] + 1, node.end_point[0] + 1


# ------------------------------------------------------------------ names

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


# ------------------------------------------------------------------ functions


@dataclass(eq=False)
class FunctionDef:
    qual: tuple[str, ...]       # scope path + name, templates stripped
    node: Node                  # the whole definition (incl. decorators / template<>)
    body: Node
    start: int
    end: int

    @property
    def name(self) -> str:
        return "::".join(self.qual)


_SCOPES_C = {"namespace_definition", "class_specifier", "struct_specifier", "union_specifier"}


def _declarator_name(decl: Node) -> Node | None:
    """Unwrap pointer/reference/parenthesised declarators to the function's name node."""
    node: Node | None = decl
    for _ in range(20):
        if node is None:
            return None
        if node.type == "function_declarator":
            return node.child_by_field_name("declarator")
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children
                          if c.type.endswith("declarator")), None)
        node = inner
    return None


def _qual_parts(node: Node) -> list[str]:
    if node.type == "qualified_identifier":
        out: list[str] = []
        scope = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        if scope is not None:
            out += _qual_parts(scope)
        if name is not None:
            out += _qual_parts(name)
        return out
    if node.type in ("template_type", "template_function", "template_method"):
        name = node.child_by_field_name("name")
        return [strip_templates(text(name or node))]
    return [p for p in split_symbol("".join(text(node).split()))] or [text(node)]


def _scope_of(node: Node, lang: str) -> list[str]:
    parts: list[str] = []
    p = node.parent
    while p is not None:
        if lang == "python":
            if p.type in ("class_definition", "function_definition"):
                n = p.child_by_field_name("name")
                if n is not None:
                    parts.append(text(n))
        elif p.type in _SCOPES_C:
            n = p.child_by_field_name("name")
            if n is not None:
                parts.extend(reversed(_qual_parts(n)))
        p = p.parent
    return list(reversed(parts))


def _outer(node: Node, lang: str) -> Node:
    """Include decorators (Python) or the `template <...>` header (C++)."""
    p = node.parent
    if lang == "python" and p is not None and p.type == "decorated_definition":
        return p
    if lang == "cpp":
        while p is not None and p.type == "template_declaration":
            node, p = p, p.parent
    return node


def functions(src: Source) -> list[FunctionDef]:
    """Every function definition in the file, in source order (memoised per parse)."""
    if src._functions is None:
        src._functions = _functions(src)
    return list(src._functions)


def _functions(src: Source) -> list[FunctionDef]:
    out: list[FunctionDef] = []
    if src.lang == "python":
        for _, caps in ts.matches("python", "flow_functions_python", src.root):
            fn, name, body = caps["function"][0], caps["name"][0], caps["body"][0]
            qual = tuple(_scope_of(fn, "python") + [text(name)])
            outer = _outer(fn, "python")
            out.append(FunctionDef(qual, outer, body, *lines_of(outer)))
    else:
        for _, caps in ts.matches(src.lang, "flow_functions_c", src.root):
            fn, decl, body = caps["function"][0], caps["declarator"][0], caps["body"][0]
            name = _declarator_name(decl)
            if name is None:
                continue
            qual = tuple(_scope_of(fn, src.lang) + _qual_parts(name))
            outer = _outer(fn, src.lang)
            out.append(FunctionDef(qual, outer, body, *lines_of(outer)))
    out.sort(key=lambda f: f.node.start_byte)
    return out


def find_functions(src: Source, symbol: str) -> list[FunctionDef]:
    """Definitions whose qualified name ends with the symbol's components."""
    want = split_symbol(symbol)
    if not want:
        return []
    return [f for f in functions(src) if f.qual[-len(want):] == want]


# ------------------------------------------------------------------ calls


@dataclass(eq=False)
class Call:
    node: Node
    callee: str                 # callee expression, whitespace removed
    name: str                   # last component (`DeclareAbstractInputPort`)
    args: list[Node]
    line: int

    def matches(self, name: str) -> bool:
        n = "".join(name.split())
        return n in (self.name, self.callee, strip_templates(self.callee))


def _is_call(node: Node, lang: str) -> bool:
    return node.type == ("call" if lang == "python" else "call_expression")


def make_call(node: Node, lang: str) -> Call | None:
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if fn is None:
        return None
    callee = "".join(text(fn).split())
    arg_nodes = [c for c in (args.named_children if args is not None else [])
                 if c.type not in ("comment",)]
    return Call(node, callee, short_name(text(fn)), arg_nodes, node.start_point[0] + 1)


def calls_in(src: Source, node: Node) -> list[Call]:
    """Every call under `node` in source order (outer call before its arguments)."""
    qname = "flow_calls_python" if src.lang == "python" else "flow_calls_c"
    found: list[Call] = []
    for _, caps in ts.matches(src.lang, qname, node):
        call = make_call(caps["call"][0], src.lang)
        if call is not None:
            found.append(call)
    found.sort(key=lambda c: (c.node.start_byte, -c.node.end_byte))
    return found


def literal_value(node: Node) -> str:
    """Argument text for reporting: string literals unquoted (adjacent C strings
    joined), everything else whitespace-collapsed source text."""
    t = node.type
    if t in ("string_literal", "raw_string_literal"):
        parts = [text(c) for c in node.named_children
                 if c.type in ("string_content", "escape_sequence", "raw_string_content")]
        return "".join(parts)
    if t == "concatenated_string":
        return "".join(literal_value(c) for c in node.named_children
                       if c.type in ("string_literal", "raw_string_literal", "string"))
    if t == "string":  # python
        parts = [text(c) for c in node.named_children
                 if c.type in ("string_content", "escape_sequence")]
        return "".join(parts)
    if t == "keyword_argument":
        value = node.child_by_field_name("value")
        return literal_value(value) if value is not None else squash(text(node))
    return squash(text(node))


# ------------------------------------------------------------------ expressions

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


def canonical(node: Node) -> str:
    """Token sequence with full structural parenthesisation: `a*(b-c)` and
    `(a * (b - c))` agree, `a*b-c` differs; comments and whitespace are ignored."""
    out: list[str] = []
    _tokens(node, out)
    return " ".join(out)


def canonical_text(lang: str, expr: str) -> str | None:
    """Canonical form of an expression written as text, or None if it does not parse."""
    if lang == "python":
        wrapper = f"__v = ({expr})\n"
    else:
        wrapper = f"void __f(void) {{ __v = ({expr}); }}\n"
    tree = ts.parse(lang, wrapper.encode("utf-8"))
    if tree.root_node.has_error:
        return None
    found: list[Node] = []

    def walk(n: Node) -> None:
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
    return canonical(found[0]) if found else None


def same_expression(lang: str, node: Node, expected: str) -> bool:
    want = canonical_text(lang, expected)
    if want is None:
        return "".join(text(node).split()) == "".join(expected.split())
    return canonical(node) == want


# ------------------------------------------------------------------ targets (expression kind)


@dataclass(eq=False)
class Target:
    node: Node          # the expression
    stmt: Node          # the statement holding it (evidence lines)
    how: str            # 'init' | 'assign' | 'return' | 'arg'


def _stmt_of(node: Node) -> Node:
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
                    out.append(Target(val, _stmt_of(n), "init"))
        elif t == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            op = n.child_by_field_name("operator")
            op_text = text(op) if op is not None else "="
            if left is not None and right is not None and op_text == "=" \
                    and _norm_lvalue(text(left)) == want:
                out.append(Target(right, _stmt_of(n), "assign"))
        elif t == "assignment":  # python (also annotated `x: T = v`)
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is not None and right is not None and _norm_lvalue(text(left)) == want:
                out.append(Target(right, _stmt_of(n), "assign"))
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


# ------------------------------------------------------------------ constants & bindings

_CONST_NAME = re.compile(r"^(?:[A-Z][A-Z0-9_]*|k[A-Z0-9]\w*|[a-z]{1,6}[A-Z][A-Z0-9]*_[A-Za-z0-9_]+)$")
_NULLS = frozenset({"None", "NULL", "nullptr"})
_INT = re.compile(r"^[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*$")


@dataclass(frozen=True)
class Name:
    """An enum constant / named constant, compared by its last component."""
    full: str

    @property
    def last(self) -> str:
        return split_symbol(self.full)[-1] if split_symbol(self.full) else self.full


Value = bool | int | Name | None


def parse_int(s: str) -> int | None:
    s = s.strip().replace("'", "")
    if not _INT.match(s):
        return None
    s = s.rstrip("uUlL")
    sign = -1 if s.startswith("-") else 1
    s = s.lstrip("+-")
    try:
        return sign * int(s, 0) if not re.match(r"^0\d", s) else sign * int(s, 8)
    except ValueError:
        return None


def binding_value(v: Any) -> Value:
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, str):
        s = v.strip()
        if s in ("true", "True"):
            return True
        if s in ("false", "False"):
            return False
        i = parse_int(s)
        if i is not None:
            return i
        return Name("".join(s.split()))
    return None


def values_equal(a: Value, b: Value) -> bool | None:
    if a is None or b is None:
        return None
    if isinstance(a, Name) and isinstance(b, Name):
        if a.full == b.full or a.last == b.last:
            return True
        if (a.last in _NULLS) != (b.last in _NULLS):
            return None  # a null pointer vs an enum-like name: unknown
        return False  # distinct enum constants are assumed distinct
    if isinstance(a, Name) or isinstance(b, Name):
        return None
    return int(a) == int(b)


def truthy(v: Value) -> bool | None:
    if isinstance(v, Name) and v.last in _NULLS:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v != 0
    return None


# ------------------------------------------------------------------ reachability


@dataclass
class Reach:
    calls: list[Call] = field(default_factory=list)          # possibly reached, source order
    undecided: list[tuple[int, str]] = field(default_factory=list)  # (line, condition text)
    decided: list[tuple[int, str, bool]] = field(default_factory=list)
    followed: list[str] = field(default_factory=list)        # callees walked into (follow > 0)


_PREPROC_COND = {"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else",
                 "preproc_elifdef"}


class _Flow:
    """Three-valued evaluation of conditions under bindings and a walk of the body
    that records every call on a possible path.

    Exits of a statement: 'normal', 'break', 'continue', 'return', 'goto'."""

    def __init__(self, src: Source, bindings: dict[str, Any],
                 constants: list[str] | None = None) -> None:
        self.src = src
        self.lang = src.lang
        self.bindings = {self.key(k): binding_value(v) for k, v in (bindings or {}).items()}
        self.constants = {"".join(c.split()) for c in (constants or [])}
        for v in self.bindings.values():
            if isinstance(v, Name):
                self.constants.add(v.full)
        self.reach = Reach()
        self._seen: set[int] = set()

    # ---------------------------------------------------------------- helpers
    @staticmethod
    def key(s: str) -> str:
        s = "".join(str(s).split())
        while s.startswith("(") and s.endswith(")") and _balanced(s[1:-1]):
            s = s[1:-1]
        return s

    def strip(self, node: Node) -> Node:
        for _ in range(50):
            if node.type == "parenthesized_expression":
                inner = [c for c in node.named_children if c.type != "comment"]
                if len(inner) != 1:
                    return node
                node = inner[0]
            elif node.type == "cast_expression":
                val = node.child_by_field_name("value")
                if val is None:
                    return node
                node = val
            elif node.type == "condition_clause":
                val = node.child_by_field_name("value")
                if val is None:
                    return node
                node = val
            else:
                return node
        return node

    def bound(self, node: Node) -> tuple[bool, Value]:
        n = self.strip(node)
        k = self.key(text(n))
        if k in self.bindings:
            return True, self.bindings[k]
        k2 = self.key(text(node))
        if k2 in self.bindings:
            return True, self.bindings[k2]
        return False, None

    def constant(self, node: Node) -> Value:
        n = self.strip(node)
        t = n.type
        s = "".join(text(n).split())
        if t in ("true",) or s in ("true", "True") and t in ("true", "identifier"):
            return True
        if t in ("false",) or s in ("false", "False") and t in ("false", "identifier"):
            return False
        if t in ("none", "null", "nullptr") or (t == "identifier" and s in _NULLS):
            return Name(s)
        if t in ("number_literal", "integer"):
            return parse_int(s)
        if t in ("unary_expression", "unary_operator") and s.startswith("-"):
            return parse_int(s)
        if t in ("identifier", "qualified_identifier", "attribute", "field_expression",
                 "scoped_identifier", "dotted_name"):
            if s in self.constants:
                return Name(s)
            last = split_symbol(s)[-1] if split_symbol(s) else s
            if _CONST_NAME.match(last) and t != "field_expression":
                return Name(s)
            if t == "attribute" and _CONST_NAME.match(last):
                return Name(s)
        return None

    def value(self, node: Node) -> Value:
        ok, v = self.bound(node)
        if ok:
            return v
        return self.constant(node)

    # ---------------------------------------------------------------- conditions
    def cond(self, node: Node | None) -> bool | None:
        if node is None:
            return None
        ok, v = self.bound(node)
        if ok:
            return truthy(v)
        n = self.strip(node)
        t = n.type
        if t in ("binary_expression", "boolean_operator"):
            op = n.child_by_field_name("operator")
            ops = text(op) if op is not None else ""
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if ops in ("&&", "and", "||", "or"):
                a = self.cond(left)
                if ops in ("&&", "and"):
                    if a is False:
                        return False
                    b = self.cond(right)
                    if b is False:
                        return False
                    return True if (a is True and b is True) else None
                if a is True:
                    return True
                b = self.cond(right)
                if b is True:
                    return True
                return False if (a is False and b is False) else None
            if ops in ("==", "!="):
                eq = values_equal(self.value(left), self.value(right)) \
                    if left is not None and right is not None else None
                if eq is None:
                    return None
                return eq if ops == "==" else not eq
            return None
        if t == "comparison_operator":  # python: a == b / a != b / a is b (no chains)
            operands = [c for c in n.named_children if c.type != "comment"]
            ops = [text(c) for c in n.children if not c.is_named]
            ops_joined = " ".join(ops)
            if len(operands) == 2 and ops_joined in ("==", "!=", "is", "is not"):
                eq = values_equal(self.value(operands[0]), self.value(operands[1]))
                if eq is None:
                    return None
                return eq if ops_joined in ("==", "is") else not eq
            return None
        if t == "unary_expression":
            op = n.child_by_field_name("operator")
            arg = n.child_by_field_name("argument")
            if op is not None and text(op) == "!":
                r = self.cond(arg)
                return None if r is None else not r
            return truthy(self.constant(n))
        if t == "not_operator":
            r = self.cond(n.child_by_field_name("argument"))
            return None if r is None else not r
        c = self.constant(n)
        if isinstance(c, (bool, int)):
            return truthy(c)
        return None

    def decide(self, node: Node | None) -> bool | None:
        if node is None:
            return None
        r = self.cond(node)
        line = node.start_point[0] + 1
        if r is None:
            self.reach.undecided.append((line, squash(text(node))))
        else:
            self.reach.decided.append((line, squash(text(node)), r))
        return r

    # ---------------------------------------------------------------- expressions
    def record(self, call: Call) -> None:
        if call.node.id in self._seen:
            return
        self._seen.add(call.node.id)
        self.reach.calls.append(call)

    def expr(self, node: Node | None) -> None:
        """Record the calls an expression may make (ternaries and && / || short-circuit)."""
        if node is None or node.type == "comment":
            return
        t = node.type
        if _is_call(node, self.lang):
            c = make_call(node, self.lang)
            if c is not None:
                self.record(c)
        if t == "conditional_expression":
            if self.lang == "python":
                parts = [c for c in node.named_children if c.type != "comment"]
                if len(parts) == 3:
                    body, cond, alt = parts
                    self.expr(cond)
                    r = self.decide(cond)
                    if r is not False:
                        self.expr(body)
                    if r is not True:
                        self.expr(alt)
                    return
            else:
                cond = node.child_by_field_name("condition")
                cons = node.child_by_field_name("consequence")
                alt = node.child_by_field_name("alternative")
                self.expr(cond)
                r = self.decide(cond)
                if r is not False:
                    self.expr(cons)
                if r is not True:
                    self.expr(alt)
                return
        if t in ("binary_expression", "boolean_operator"):
            op = node.child_by_field_name("operator")
            ops = text(op) if op is not None else ""
            if ops in ("&&", "and", "||", "or"):
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                self.expr(left)
                a = self.cond(left)
                if (ops in ("&&", "and") and a is False) or (ops in ("||", "or") and a is True):
                    return
                self.expr(right)
                return
        for c in node.children:
            self.expr(c)

    # ---------------------------------------------------------------- statements
    def seq(self, stmts: list[Node]) -> set[str]:
        exits: set[str] = set()
        reachable = True
        for s in stmts:
            if s.type == "comment":
                continue
            if not reachable:
                if _has_label(s):  # holds a goto target: reachable again (conservatively)
                    reachable = True
                else:
                    continue
            e = self.stmt(s)
            exits |= e - {"normal"}
            if "normal" not in e:
                reachable = False
        if reachable:
            exits.add("normal")
        return exits

    def block(self, node: Node | None) -> set[str]:
        if node is None:
            return {"normal"}
        if node.type in ("compound_statement", "block", "declaration_list"):
            return self.seq(list(node.named_children))
        return self.stmt(node)

    def stmt(self, node: Node) -> set[str]:
        t = node.type
        py = self.lang == "python"
        if t in ("compound_statement", "block"):
            return self.seq(list(node.named_children))
        if t == "if_statement":
            return self.if_(node)
        if t == "switch_statement":
            return self.switch(node)
        if t == "match_statement":
            return self.match(node)
        if t in ("while_statement", "for_statement", "for_range_loop", "do_statement"):
            return self.loop(node)
        if t == "return_statement" or t == "raise_statement" or t == "throw_statement":
            for c in node.named_children:
                self.expr(c)
            return {"return"}
        if t == "break_statement":
            return {"break"}
        if t == "continue_statement":
            return {"continue"}
        if t == "goto_statement":
            return {"goto"}
        if t == "labeled_statement":
            kids = [c for c in node.named_children if c.type not in ("statement_identifier",)]
            return self.seq(kids)
        if t == "try_statement":
            exits: set[str] = set()
            for c in node.named_children:
                if c.type in ("compound_statement", "block"):
                    exits |= self.block(c)
                elif c.type in ("catch_clause", "except_clause", "else_clause", "finally_clause",
                                "except_group_clause"):
                    body = c.child_by_field_name("body")
                    if body is None:
                        body = next((k for k in c.named_children
                                     if k.type in ("compound_statement", "block")), None)
                    exits |= self.block(body)
            return exits or {"normal"}
        if py and t == "with_statement":
            for c in node.named_children:
                if c.type == "with_clause":
                    self.expr(c)
            return self.block(node.child_by_field_name("body"))
        if t in _PREPROC_COND:
            return self.preproc(node)
        if t in ("function_definition", "class_definition", "decorated_definition"):
            # nested definitions: conservatively, anything inside may run
            for c in calls_in(self.src, node):
                self.record(c)
            return {"normal"}
        # expression statements, declarations and anything else
        self.expr(node)
        return {"normal"}

    def preproc(self, node: Node) -> set[str]:
        """`#if` / `#ifdef` / `#elif` / `#else` inside a body: each part may be compiled."""
        cond = node.child_by_field_name("condition") or node.child_by_field_name("name")
        alt = node.child_by_field_name("alternative")
        stmts = [c for c in node.named_children
                 if c is not None and c.type != "comment"
                 and not (cond is not None and c.id == cond.id)
                 and not (alt is not None and c.id == alt.id)]
        if cond is not None and node.type != "preproc_else":
            self.reach.undecided.append((node.start_point[0] + 1,
                                         squash(text(node).split("\n", 1)[0])))
        exits = self.seq(stmts)
        exits |= self.preproc(alt) if alt is not None else {"normal"}
        return exits

    def if_(self, node: Node) -> set[str]:
        cond = node.child_by_field_name("condition")
        self.expr(cond)
        r = self.decide(cond)
        exits: set[str] = set()
        if r is not False:
            exits |= self.block(node.child_by_field_name("consequence"))
        if r is True:
            return exits
        if self.lang == "python":
            alts = [c for c in node.children if c.type in ("elif_clause", "else_clause")]
            for alt in alts:
                if alt.type == "elif_clause":
                    c = alt.child_by_field_name("condition")
                    self.expr(c)
                    r2 = self.decide(c)
                    if r2 is not False:
                        exits |= self.block(alt.child_by_field_name("consequence"))
                    if r2 is True:
                        return exits
                else:
                    exits |= self.block(alt.child_by_field_name("body"))
                    return exits
            exits.add("normal")
            return exits
        alt = node.child_by_field_name("alternative")
        if alt is None:
            exits.add("normal")
            return exits
        if alt.type == "else_clause":
            inner = [c for c in alt.named_children if c.type != "comment"]
            exits |= self.block(inner[0]) if inner else {"normal"}
        else:
            exits |= self.block(alt)
        return exits

    def loop(self, node: Node) -> set[str]:
        t = node.type
        body = node.child_by_field_name("body")
        if t == "do_statement":
            e = self.block(body)
            self.expr(node.child_by_field_name("condition"))
        else:
            for f in ("initializer", "left", "right", "update"):
                self.expr(node.child_by_field_name(f))
            cond = node.child_by_field_name("condition")
            self.expr(cond)
            if t == "while_statement" and cond is not None and self.decide(cond) is False:
                e = set()
            else:
                e = self.block(body)
        exits = (e - {"break", "continue", "normal"}) | {"normal"}
        alt = node.child_by_field_name("alternative")  # python for/while ... else
        if alt is not None:
            exits |= self.block(alt.child_by_field_name("body"))
        return exits

    # ---------------------------------------------------------------- switch / match
    def switch_arms(self, node: Node) -> list[tuple[list[Node], bool, list[Node], Node]]:
        """(label nodes, is_default, statements, case node) per case of a C/C++ switch."""
        body = node.child_by_field_name("body")
        arms: list[tuple[list[Node], bool, list[Node], Node]] = []
        if body is None:
            return arms
        for c in body.named_children:
            if c.type == "case_statement":
                val = c.child_by_field_name("value")
                is_default = val is None and any(k.type == "default" for k in c.children)
                stmts = [k for k in c.named_children
                         if k is not val and k.type != "comment"
                         and not (val is not None and k.id == val.id)]
                arms.append(([val] if val is not None else [], is_default, stmts, c))
            elif c.type != "comment" and arms:
                arms[-1][2].append(c)
        return arms

    def run_from(self, arms: list[tuple[list[Node], bool, list[Node], Node]], i: int) -> set[str]:
        stmts: list[Node] = []
        for arm in arms[i:]:
            stmts.extend(arm[2])
        return self.seq(stmts)

    def switch(self, node: Node) -> set[str]:
        cond = node.child_by_field_name("condition")
        self.expr(cond)
        v = self.value(cond) if cond is not None else None
        arms = self.switch_arms(node)
        entries: list[int] = []
        certain = False
        if v is None:
            entries = list(range(len(arms)))
            if cond is not None:
                self.reach.undecided.append((cond.start_point[0] + 1, squash(text(cond))))
        else:
            for i, (labels, is_default, _, _) in enumerate(arms):
                if is_default:
                    continue
                eq = values_equal(v, self.constant(labels[0])) if labels else None
                if eq is True:
                    entries.append(i)
                    certain = True
                    break
                if eq is None:
                    entries.append(i)
            if not certain:
                entries += [i for i, a in enumerate(arms) if a[1]]
            if cond is not None:
                self.reach.decided.append((cond.start_point[0] + 1, squash(text(cond)), certain))
        exits: set[str] = set()
        for i in entries:
            e = self.run_from(arms, i)
            exits |= e
        has_default = any(a[1] for a in arms)
        if not certain and not has_default:
            exits.add("normal")
        if "break" in exits:
            exits.discard("break")
            exits.add("normal")
        return exits

    def match_arms(self, node: Node) -> list[tuple[list[Node], bool, Node | None, Node]]:
        """(pattern nodes, is_wildcard, guard, case node) per case of a Python match."""
        body = node.child_by_field_name("body")
        arms = []
        for c in (body.named_children if body is not None else []):
            if c.type != "case_clause":
                continue
            pats = [k for k in c.named_children if k.type == "case_pattern"]
            guard = c.child_by_field_name("guard")
            flat: list[Node] = []
            for p in pats:
                inner = [k for k in p.named_children if k.type != "comment"]
                if len(inner) == 1 and inner[0].type == "union_pattern":
                    flat.extend(k for k in inner[0].named_children if k.type != "comment")
                else:
                    flat.append(p)
            wildcard = guard is None and any(text(p).strip() == "_" for p in flat) or \
                (guard is None and len(flat) == 1 and re.fullmatch(r"[a-z_]\w*", text(flat[0]).strip())
                 is not None and "." not in text(flat[0]))
            arms.append((flat, wildcard, guard, c))
        return arms

    def _pattern_value(self, p: Node) -> Value:
        s = "".join(text(p).split())
        i = parse_int(s)
        if i is not None:
            return i
        if s in ("True", "False"):
            return s == "True"
        if "." in s or _CONST_NAME.match(s):
            return Name(s)
        return None

    def match(self, node: Node) -> set[str]:
        subj = node.child_by_field_name("subject")
        self.expr(subj)
        v = self.value(subj) if subj is not None else None
        if v is None and subj is not None:
            self.reach.undecided.append((subj.start_point[0] + 1, squash(text(subj))))
        exits: set[str] = set()
        certain = False
        for pats, wildcard, guard, case in self.match_arms(node):
            cons = case.child_by_field_name("consequence")
            if wildcard:
                exits |= self.block(cons)
                certain = True
                break
            if v is None:
                eq: bool | None = None
            else:
                results = [values_equal(v, self._pattern_value(p)) for p in pats]
                eq = True if True in results else (False if all(r is False for r in results)
                                                   else None)
            if guard is not None:
                self.expr(guard)
                g = self.decide(guard)
                if g is False:
                    eq = False
                elif g is None and eq is True:
                    eq = None
            if eq is False:
                continue
            exits |= self.block(cons)
            if eq is True:
                certain = True
                break
        if not certain:
            exits.add("normal")
        return exits


def _has_label(node: Node) -> bool:
    if node.type == "labeled_statement":
        return True
    return any(_has_label(c) for c in node.named_children
               if c.type not in ("function_definition", "lambda_expression"))


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


def reachable_calls(src: Source, fn: FunctionDef, bindings: dict[str, Any] | None = None,
                    constants: list[str] | None = None, follow: int = 0) -> Reach:
    """Calls on some possible path through `fn` under `bindings`.

    With `follow` = N > 0, calls to functions defined in the same file are walked
    into, N levels deep, under the same bindings (every same-named definition is
    walked: overloads and methods of other classes included, so "may reach" stays
    conservative). Calls found there are added after `fn`'s own calls."""
    flow = _Flow(src, bindings or {}, constants)
    flow.block(fn.body)
    flow.reach.calls.sort(key=lambda c: (c.node.start_byte, -c.node.end_byte))
    if follow <= 0:
        return flow.reach
    by_name: dict[str, list[FunctionDef]] = {}
    for f in functions(src):
        by_name.setdefault(f.qual[-1], []).append(f)
    seen = {fn.node.id}
    level = list(flow.reach.calls)
    for _ in range(follow):
        nxt: list[Call] = []
        for call in level:
            for target in by_name.get(call.name, []):
                if target.node.id in seen:
                    continue
                seen.add(target.node.id)
                sub = _Flow(src, bindings or {}, constants)
                sub.block(target.body)
                sub.reach.calls.sort(key=lambda c: (c.node.start_byte, -c.node.end_byte))
                flow.reach.followed.append(f"{target.name} (L{target.start})")
                flow.reach.undecided.extend(sub.reach.undecided)
                for c in sub.reach.calls:
                    flow.record(c)
                nxt.extend(sub.reach.calls)
        level = nxt
    return flow.reach


# ------------------------------------------------------------------ switches (cases kind)


@dataclass
class Arm:
    labels: list[str]            # source text of the case labels (empty for default)
    default: bool
    calls: list[str]             # callee names reached from this entry (fall-through)
    text: str                    # this arm's own statements, whitespace-collapsed
    line: int


@dataclass
class Switch:
    subject: str                 # switch expression text, whitespace-collapsed
    subject_key: str             # with casts and parentheses stripped, no spaces
    node: Node
    arms: list[Arm]

    @property
    def labels(self) -> list[str]:
        return [lab for a in self.arms for lab in a.labels]

    @property
    def default_arm(self) -> Arm | None:
        return next((a for a in self.arms if a.default), None)


def switches(src: Source, fn: FunctionDef) -> list[Switch]:
    out: list[Switch] = []
    kind = "match_statement" if src.lang == "python" else "switch_statement"

    def walk(n: Node) -> None:
        if n.type == kind:
            out.append(_switch(src, n))
        for c in n.children:
            walk(c)

    walk(fn.body)
    return out


def _switch(src: Source, node: Node) -> Switch:
    base = _Flow(src, {})
    if src.lang == "python":
        subj = node.child_by_field_name("subject")
        arms: list[Arm] = []
        for pats, wildcard, guard, case in base.match_arms(node):
            cons = case.child_by_field_name("consequence")
            f = _Flow(src, {})
            f.block(cons)
            labels = [] if wildcard else [squash(text(p)) for p in pats]
            arms.append(Arm(labels, wildcard, _names(f.reach.calls), squash(text(cons)),
                            case.start_point[0] + 1))
        return Switch(squash(text(subj)), base.key(text(base.strip(subj))) if subj else "",
                      node, arms)
    cond = node.child_by_field_name("condition")
    raw = base.switch_arms(node)
    arms = []
    for i, (labels, is_default, stmts, case) in enumerate(raw):
        f = _Flow(src, {})
        f.run_from(raw, i)
        own = " ".join(squash(text(s)) for s in stmts if s.type != "break_statement")
        arms.append(Arm([squash(text(lab)) for lab in labels], is_default,
                        _names(sorted(f.reach.calls, key=lambda c: c.node.start_byte)),
                        own, case.start_point[0] + 1))
    key = base.key(text(base.strip(cond))) if cond is not None else ""
    shown = base.strip(cond) if cond is not None else None
    if cond is not None and cond.type in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in cond.named_children if c.type != "comment"]
        shown = inner[0] if len(inner) == 1 else cond
    return Switch(squash(text(shown)) if shown is not None else "", key, node, arms)


def _names(calls: list[Call]) -> list[str]:
    return list(dict.fromkeys(c.name for c in calls))
