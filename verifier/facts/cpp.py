"""C++ facts (Drake) with tree-sitter-cpp, plus pybind11 bindings.

Besides C++ declarations (see `facts/cfamily.py`), a bindings file
(`bindings/pydrake/...`) yields the Python names it exports, marked
`origin="pybind11"` and placed at top level under their Python names:
classes from `py::class_<X>(m, "Name")`-like calls (any call whose first or
second argument is a string literal and that starts a `.def` chain, e.g.
`DefineTemplateClassWithDefault<...>(m, "Accelerometer", ...)`, or a
`py::class_<X> cls(m, "Name")` variable), their `.def("name", ...)`,
`.def_static`, `.def_readwrite`, `.def_property...` attributes, `__init__`
from `.def(py::init<...>(), py::arg("x") = default, ...)`, enum values from
`.value("A", ...)`, and module functions from `m.def("name", ...)`.
"""

from __future__ import annotations

import tree_sitter

from verifier.facts import cfamily
from verifier.facts import treesitter as ts
from verifier.facts.model import FileFacts, Param, Sym, cached_facts

EXTRACTOR = __name__   # in-process memo key; persistent keys use code_version

_DEFS = {"def", "def_static", "def_readwrite", "def_readonly", "def_property",
         "def_property_readonly", "def_property_static", "def_readonly_static",
         "def_readwrite_static", "value"}


def _string_arg(args: tree_sitter.Node, index: int) -> str | None:
    items = [c for c in args.named_children if c.type != "comment"]
    if len(items) > index and items[index].type in ("string_literal", "raw_string_literal"):
        return ts.text(items[index]).strip('"')
    return None


def _def_name(call: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """For `<obj>.def("name", ...)`: (method, name, obj)."""
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None or fn.type != "field_expression":
        return None
    field = fn.child_by_field_name("field")
    obj = fn.child_by_field_name("argument")
    if field is None or obj is None or ts.text(field) not in _DEFS:
        return None
    name = _string_arg(args, 0)
    if name is None:
        items = [c for c in args.named_children if c.type != "comment"]
        if ts.text(field) == "def" and items and "py::init" in ts.text(items[0]):
            name = "__init__"
        else:
            return None
    return ts.text(field), name, obj


def _init_params(args: tree_sitter.Node) -> tuple[Param, ...]:
    out = []
    for a in args.named_children:
        node, default = a, None
        if a.type == "assignment_expression":
            node = a.child_by_field_name("left")
            rv = a.child_by_field_name("right")
            default = ts.text(rv).strip() if rv is not None else None
        if node is not None and node.type == "call_expression":
            f = node.child_by_field_name("function")
            inner = node.child_by_field_name("arguments")
            if f is not None and ts.text(f).replace(" ", "") in ("py::arg", "pybind11::arg") \
                    and inner is not None:
                n = _string_arg(inner, 0)
                if n is not None:
                    out.append(Param(n, default))
    return tuple(out)


def _pybind(tree: tree_sitter.Tree, facts: FileFacts) -> None:
    var_class: dict[str, str] = {}
    # `py::class_<X> cls(m, "Name", ...)`
    for cap, nodes in ts.captures("cpp", "cpp_defs", tree.root_node).items():
        if cap != "declaration":
            continue
        for n in nodes:
            for d in n.children_by_field_name("declarator"):
                if d.type == "init_declarator":
                    val = d.child_by_field_name("value")
                    name = d.child_by_field_name("declarator")
                    if val is not None and val.type == "argument_list" and name is not None:
                        cls = _string_arg(val, 1) or _string_arg(val, 0)
                        if cls:
                            var_class[ts.text(name)] = cls
    ranges: dict[str, tuple[int, int]] = {}
    calls = ts.captures("cpp", "cpp_pybind", tree.root_node).get("call", [])
    for call in sorted(calls, key=lambda c: c.start_byte):
        got = _def_name(call)
        if got is None:
            continue
        method, name, obj = got
        # walk down the chain to its root
        root = obj
        while root.type == "call_expression" and _def_name(root) is not None:
            root = _def_name(root)[2]
        owner: str | None = None
        if root.type == "call_expression":
            args = root.child_by_field_name("arguments")
            if args is not None:
                owner = _string_arg(args, 1) or _string_arg(args, 0)
        elif root.type == "identifier":
            owner = var_class.get(ts.text(root))
            if owner is None and ts.text(root) == "m":
                owner = ""
        if owner is None:
            continue
        start, end = cfamily.lines(call)
        if owner:
            rs, _ = cfamily.lines(root)
            lo, hi = ranges.get(owner, (rs, end))
            ranges[owner] = (min(lo, rs), max(hi, end))
        qual = ((owner,) if owner else ()) + (name,)
        kind = {"value": "enumerator"}.get(method, "constructor" if name == "__init__" else
                                          "attribute" if "readwrite" in method or "readonly" in
                                          method or "property" in method else
                                          "method" if owner else "function")
        args = call.child_by_field_name("arguments")
        params = _init_params(args) if args is not None and kind in (
            "constructor", "method", "function") else None
        # the .def's own lines: from the field name to the closing parenthesis
        fn = call.child_by_field_name("function")
        field = fn.child_by_field_name("field") if fn is not None else None
        if field is not None:
            start = field.start_point.row + 1
        facts.syms.append(Sym(name=name, kind=kind, qual=qual, start=start, end=end,
                              params=params, origin="pybind11"))
    for owner, (lo, hi) in ranges.items():
        facts.syms.append(Sym(name=owner, kind="class", qual=(owner,), start=lo, end=hi,
                              origin="pybind11"))


def extract(path: str, data: bytes, blob: str | None = None) -> FileFacts:
    def build() -> FileFacts:
        facts, tree = cfamily.extract("cpp", path, data, blob)
        if b"pybind11" in data or b"py::" in data:
            _pybind(tree, facts)
            facts.syms.sort(key=lambda s: (s.start, len(s.qual)))
        return facts

    return cached_facts(EXTRACTOR, path, blob, data, build)
