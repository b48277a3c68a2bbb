"""Function definitions of a file and their qualified names."""

from __future__ import annotations

from dataclasses import dataclass

from verifier.facts import treesitter as ts
from verifier.facts.names import split_symbol, strip_templates
from verifier.facts.flow.source import Node, Source, lines_of, text


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
    if src.functions_memo is None:
        src.functions_memo = _functions(src)
    return list(src.functions_memo)


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
