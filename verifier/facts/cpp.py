"""C++ facts (Drake) with tree-sitter-cpp, plus pybind11 bindings.

Besides C++ declarations (see `facts/cfamily.py`, which also finds the ports a
system declares by string), a bindings file (`bindings/pydrake/...`) yields the
Python names it exports, marked `origin="pybind11"` and placed at top level
under their Python names:
- classes from `py::class_<X>(m, "Name")`-like calls (any call whose first or
  second argument is a string literal and that starts a `.def` chain, e.g.
  `DefineTemplateClassWithDefault<...>(m, "Accelerometer", ...)`), or a variable
  holding one (`py::class_<X> cls(m, "Name")`, `auto cls = Define...(m, "Name")`);
- their `.def("name", ...)`, `.def_static`, `.def_readwrite`, `.def_property...`
  attributes, `__init__` from `.def(py::init<...>(), ...)`, enum values from
  `.value("A", ...)`, and module functions from `m.def("name", ...)`;
- keyword names: the `py::arg("x")` (`= default`) of each def become its
  parameters (`py::kw_only()` / `py::pos_only()` set their kinds).
"""

from __future__ import annotations

import tree_sitter

from verifier.facts import cfamily
from verifier.facts import treesitter as ts
from verifier.facts.model import (KEYWORD_ONLY, POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD, FileFacts,
                                  Param, Sym)

_DEFS = {"def", "def_static", "def_readwrite", "def_readonly", "def_property",
         "def_property_readonly", "def_property_static", "def_readonly_static",
         "def_readwrite_static", "value"}
_ARG = ("py::arg", "pybind11::arg")

string_arg = cfamily.string_arg


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
    name = string_arg(args, 0)
    if name is None:
        items = [c for c in args.named_children if c.type != "comment"]
        if ts.text(field) == "def" and items and "py::init" in ts.text(items[0]):
            name = "__init__"
        else:
            return None
    return ts.text(field), name, obj


def _arg_name(node: tree_sitter.Node) -> str | None:
    """`py::arg("x")` or `"x"_a` -> "x"."""
    if node.type == "call_expression":
        f = node.child_by_field_name("function")
        inner = node.child_by_field_name("arguments")
        if f is not None and ts.text(f).replace(" ", "") in _ARG and inner is not None:
            return string_arg(inner, 0)
    if node.type == "user_defined_literal" and ts.text(node).endswith('"_a'):
        t = ts.text(node)[:-2]
        return t[1:-1] if t.startswith('"') and len(t) > 2 and "\\" not in t else None
    return None


def keyword_params(args: tree_sitter.Node) -> tuple[Param, ...]:
    out: list[Param] = []
    kind = POSITIONAL_OR_KEYWORD
    for a in args.named_children:
        compact = ts.text(a).replace(" ", "")
        if compact in ("py::kw_only()", "pybind11::kw_only()"):
            kind = KEYWORD_ONLY
            continue
        if compact in ("py::pos_only()", "pybind11::pos_only()"):
            out = [Param(p.name, p.default, p.type, POSITIONAL_ONLY, p.line) for p in out]
            continue
        node, default = a, None
        if a.type == "assignment_expression":
            node = a.child_by_field_name("left")
            rv = a.child_by_field_name("right")
            default = ts.text(rv).strip() if rv is not None else None
        name = _arg_name(node) if node is not None else None
        if name is not None:
            out.append(Param(name, default, None, kind, a.start_point.row + 1))
    return tuple(out)


def _class_call(node: tree_sitter.Node | None) -> str | None:
    """The Python class name of `X(m, "Name", ...)` / a `(m, "Name")` argument list."""
    if node is None:
        return None
    args = node if node.type == "argument_list" else node.child_by_field_name("arguments") \
        if node.type == "call_expression" else None
    if args is None:
        return None
    return string_arg(args, 1) or string_arg(args, 0)


def pybind(tree: tree_sitter.Tree) -> list[Sym]:
    out: list[Sym] = []
    # variables holding a class object, by name: (declared at, block start, block end, class)
    var_class: dict[str, list[tuple[int, int, int, str]]] = {}

    def declare(decl: tree_sitter.Node, value: tree_sitter.Node | None) -> None:
        name = decl.child_by_field_name("declarator")
        cls = _class_call(value)
        if name is None or not cls:
            return
        block = decl.parent
        while block is not None and block.type not in ("compound_statement", "translation_unit"):
            block = block.parent
        lo, hi = (block.start_byte, block.end_byte) if block is not None else (0, 1 << 62)
        var_class.setdefault(ts.text(name), []).append((decl.start_byte, lo, hi, cls))

    def class_of(var: tree_sitter.Node) -> str | None:
        """The class the variable names where it is used: its nearest declaration
        before the use, in a block that encloses the use (Drake reuses `cls`)."""
        at = var.start_byte
        seen = [d for d in var_class.get(ts.text(var), ()) if d[0] < at and d[1] <= at < d[2]]
        return max(seen)[3] if seen else None

    caps = ts.captures("cpp", "cpp_calls", tree.root_node)
    calls = caps.get("call", [])
    # `auto cls = Define...(m, "Name", ...)`
    for call in calls:
        if call.parent is not None and call.parent.type == "init_declarator":
            declare(call.parent, call.parent.child_by_field_name("value"))
    # `py::class_<X> cls(m, "Name", ...)`
    for decl in caps.get("ctor", []):
        declare(decl, decl.child_by_field_name("value"))
    ranges: dict[str, tuple[int, int]] = {}
    def position(call: tree_sitter.Node) -> tuple[int, int]:
        # a chain's calls all start where the chain does: order by the `.def` itself
        fn = call.child_by_field_name("function")
        field = fn.child_by_field_name("field") if fn is not None and \
            fn.type == "field_expression" else None
        return ((field or call).start_byte, call.end_byte)

    for call in sorted(calls, key=position):
        got = _def_name(call)
        if got is None:
            continue
        method, name, obj = got
        root = obj   # walk down the chain to its root
        while root.type == "call_expression" and _def_name(root) is not None:
            root = _def_name(root)[2]
        owner: str | None = None
        if root.type == "call_expression":
            owner = _class_call(root)
        elif root.type == "identifier":
            owner = class_of(root)
            if owner is None and ts.text(root) == "m":
                owner = ""
        elif root.type == "pointer_expression":   # (*cls).def / &cls
            inner = root.child_by_field_name("argument")
            owner = class_of(inner) if inner is not None else None
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
        params = keyword_params(args) if args is not None and kind in (
            "constructor", "method", "function") else None
        # the .def's own lines: from the field name to the closing parenthesis
        fn = call.child_by_field_name("function")
        field = fn.child_by_field_name("field") if fn is not None else None
        if field is not None:
            start = field.start_point.row + 1
        out.append(Sym(name=name, kind=kind, qual=qual, start=start, end=end,
                       params=params, origin="pybind11"))
    for owner, (lo, hi) in ranges.items():
        out.append(Sym(name=owner, kind="class", qual=(owner,), start=lo, end=hi,
                       origin="pybind11"))
    return out


def extract(path: str, data: bytes, blob: str | None = None) -> FileFacts:
    syms, tree, errors = cfamily.extract("cpp", path, data, blob)
    if b"pybind11" in data or b"py::" in data:
        syms = syms + pybind(tree)
        syms.sort(key=lambda s: (s.start, len(s.qual)))
    return FileFacts(path=path, blob=blob, lang="cpp", syms=tuple(syms), parse_errors=errors)
