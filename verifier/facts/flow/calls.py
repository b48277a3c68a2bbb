"""Calls in a function body, in source order, and argument literals."""

from __future__ import annotations

from dataclasses import dataclass

from verifier.facts import treesitter as ts
from verifier.facts.names import short_name, strip_templates
from verifier.facts.flow.source import Node, Source, squash, text


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


def is_call(node: Node, lang: str) -> bool:
    return node.type == ("call" if lang == "python" else "call_expression")


def make_call(node: Node, lang: str) -> Call | None:
    fn = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if fn is None:
        return None
    arg_nodes = [c for c in (args.named_children if args is not None else [])
                 if c.type not in ("comment",)]
    wrapped = _wrapped(fn) if lang == "python" else None
    if wrapped is not None:
        # `named_scope(solver.solve)(m, d)`, `jax.jit(f)(x)`: the wrapper's result is
        # the wrapped function, so this call calls it (the wrapper call is its own Call)
        fn = wrapped
    callee = "".join(text(fn).split())
    return Call(node, callee, short_name(text(fn)), arg_nodes, node.start_point[0] + 1)


def _wrapped(fn: Node) -> Node | None:
    """The function a call-of-a-call wraps: `wrapper(f)(...)` with one positional
    argument that names a function (an identifier or attribute)."""
    if fn.type != "call":
        return None
    inner = fn.child_by_field_name("arguments")
    args = [c for c in (inner.named_children if inner is not None else []) if c.type != "comment"]
    if len(args) == 1 and args[0].type in ("identifier", "attribute"):
        return args[0]
    return None


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
