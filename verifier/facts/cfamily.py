"""C and C++ facts with tree-sitter: the definitions query (`queries/<lang>_defs.scm`)
finds candidate nodes; this module names them and works out their scope.

Scopes: namespaces, classes/structs/unions, enums (an enumerator's scope is its
enum; lookups treat enums and namespaces as transparent). Templates, `extern "C"`
blocks and preprocessor conditionals are transparent. Nothing inside a function
body is a symbol. Out-of-line definitions (`Accelerometer<T>::Accelerometer`) are
placed under their qualified name, template arguments dropped.
"""

from __future__ import annotations

import re

import tree_sitter

from verifier.facts import treesitter as ts
from verifier.facts.model import FileFacts, Param, Sym

_WRAPPERS = {"pointer_declarator", "reference_declarator", "array_declarator",
             "init_declarator", "parenthesized_declarator", "attributed_declarator",
             "abstract_pointer_declarator", "abstract_reference_declarator"}
_NAME_TYPES = {"identifier", "field_identifier", "type_identifier", "qualified_identifier",
               "destructor_name", "operator_name", "template_function", "namespace_identifier",
               "primitive_type"}
_CLASSLIKE = {"class_specifier": "class", "struct_specifier": "struct",
              "union_specifier": "union"}


def strip_templates(s: str) -> str:
    prev = None
    while prev != s:
        prev = s
        s = re.sub(r"<[^<>]*>", "", s)
    return s


def name_parts(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in strip_templates(text).split("::") if p.strip())


def lines(node: tree_sitter.Node) -> tuple[int, int]:
    return node.start_point.row + 1, node.end_point.row + 1


def unwrap(decl: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """Innermost declarator: through pointers, references, arrays, init declarators."""
    while decl is not None and decl.type in _WRAPPERS:
        inner = decl.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in decl.named_children if c.type not in ("type_qualifier",)), None)
            if inner is None or inner is decl:
                return None
        decl = inner
    return decl


def function_declarator(decl: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """The function_declarator of a declarator chain (the outermost one), if any."""
    while decl is not None:
        if decl.type == "function_declarator":
            # `int (*f)(int)` is a pointer to function: a variable, not a function
            inner = decl.child_by_field_name("declarator")
            if inner is not None and inner.type == "parenthesized_declarator":
                return None
            return decl
        if decl.type in _WRAPPERS:
            inner = decl.child_by_field_name("declarator")
            if inner is None:
                inner = next((c for c in decl.named_children if c.type.endswith("declarator")
                              or c.type in _NAME_TYPES), None)
            decl = inner
            continue
        return None
    return None


def declarator_name(decl: tree_sitter.Node | None) -> tuple[str, ...]:
    d = unwrap(decl)
    if d is None:
        return ()
    if d.type == "function_declarator":
        return declarator_name(d.child_by_field_name("declarator"))
    if d.type in _NAME_TYPES:
        return name_parts(ts.text(d))
    if d.type == "structured_binding_declarator":
        return ()
    return ()


def macro_value(text: str) -> str | None:
    """A `#define` body without comments and line continuations."""
    t = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    t = re.sub(r"//.*", "", t)
    t = " ".join(t.replace("\\\n", " ").split())
    return t or None


def _default_text(node: tree_sitter.Node | None) -> str | None:
    if node is None:
        return None
    t = ts.text(node).strip()
    if node.type == "initializer_list" and t.startswith("{") and t.endswith("}"):
        t = t[1:-1].strip()
    return t


def params_of(fd: tree_sitter.Node) -> tuple[Param, ...]:
    plist = fd.child_by_field_name("parameters")
    if plist is None:
        return ()
    out = []
    for p in plist.named_children:
        if p.type == "comment":
            continue
        if p.type == "variadic_parameter_declaration" or ts.text(p).strip() == "...":
            out.append(Param("..."))
            continue
        if p.type not in ("parameter_declaration", "optional_parameter_declaration",
                          "variadic_parameter_declaration", "optional_type_parameter_declaration"):
            continue
        decl = p.child_by_field_name("declarator")
        name = declarator_name(decl)
        typ = p.child_by_field_name("type")
        if not name and typ is not None and ts.text(typ) == "void" and len(plist.named_children) == 1:
            return ()
        default = p.child_by_field_name("default_value")
        typetext = ts.text(typ) if typ is not None else None
        out.append(Param(name[-1] if name else "", _default_text(default), typetext))
    return tuple(out)


class _Extractor:
    def __init__(self, lang: str, path: str, data: bytes, blob: str | None) -> None:
        self.lang = lang
        self.facts = FileFacts(path=path, blob=blob, lang=lang)
        self.tree = ts.parse(lang, data)
        self.seen: set[tuple[str, tuple[str, ...], int]] = set()

    # ------------------------------------------------------------------ scope
    def tag_name(self, node: tree_sitter.Node) -> str | None:
        """Name of a class/struct/union/enum specifier, or of its typedef/field."""
        n = node.child_by_field_name("name")
        if n is not None:
            parts = name_parts(ts.text(n))
            return parts[-1] if parts else None
        parent = node.parent
        if parent is not None and parent.type == "type_definition":
            for d in parent.children_by_field_name("declarator"):
                parts = declarator_name(d)
                if parts:
                    return parts[-1]
        if parent is not None and parent.type == "field_declaration":
            for d in parent.children_by_field_name("declarator"):
                parts = declarator_name(d)
                if parts:
                    return parts[-1]
        return None

    def scope(self, node: tree_sitter.Node) -> tuple[str, ...] | None:
        """Enclosing scope names (outermost first); None inside a function body."""
        out: list[str] = []
        p = node.parent
        while p is not None:
            t = p.type
            if t in ("compound_statement", "lambda_expression"):
                return None
            if t == "namespace_definition":
                n = p.child_by_field_name("name")
                if n is not None:
                    out[0:0] = name_parts(ts.text(n))
            elif t in _CLASSLIKE or t == "enum_specifier":
                name = self.tag_name(p)
                if name:
                    out.insert(0, name)
            p = p.parent
        return tuple(out)

    def scope_kind(self, scope: tuple[str, ...]) -> str | None:
        for s in self.facts.syms:
            if s.qual == scope:
                return s.kind
        return None

    def add(self, sym: Sym) -> None:
        key = (sym.kind, sym.qual, sym.start)
        if key in self.seen or not sym.name:
            return
        self.seen.add(key)
        self.facts.syms.append(sym)

    # ------------------------------------------------------------------ nodes
    def function(self, node: tree_sitter.Node, decl: tree_sitter.Node, scope: tuple[str, ...],
                 in_class: bool) -> bool:
        fd = function_declarator(decl)
        if fd is None:
            return False
        parts = declarator_name(fd)
        if not parts:
            return False
        qual = scope + parts
        name = parts[-1]
        owner = qual[-2] if len(qual) >= 2 else None
        if owner is not None and name == owner and (in_class or len(parts) > 1):
            kind = "constructor"
        elif name.startswith("~"):
            kind = "destructor"
        elif in_class or len(parts) > 1:
            kind = "method"
        else:
            kind = "function"
        start, end = lines(node)
        # a declaration's range is the declaration, a definition's the whole definition
        self.add(Sym(name=name, kind=kind, qual=qual, start=start, end=end,
                     params=params_of(fd), sig_end=lines(fd)[1]))
        return True

    def handle(self, cap: str, node: tree_sitter.Node) -> None:
        scope = self.scope(node)
        if scope is None:
            return
        in_class = bool(node.parent is not None and node.parent.type == "field_declaration_list")
        if node.parent is not None and node.parent.type == "template_declaration":
            gp = node.parent.parent
            in_class = bool(gp is not None and gp.type == "field_declaration_list")
        start, end = lines(node)
        if cap == "function":
            decl = node.child_by_field_name("declarator")
            self.function(node, decl, scope, in_class)
        elif cap in ("declaration", "field"):
            for decl in node.children_by_field_name("declarator"):
                if self.function(node, decl, scope, in_class):
                    continue
                parts = declarator_name(decl)
                if not parts:
                    continue
                value = None
                if decl.type == "init_declarator":
                    value = _default_text(decl.child_by_field_name("value"))
                dv = node.child_by_field_name("default_value")
                if dv is not None:
                    value = _default_text(dv)
                typ = node.child_by_field_name("type")
                kind = "field" if (cap == "field" or in_class) else "variable"
                self.add(Sym(name=parts[-1], kind=kind, qual=scope + parts, start=start,
                             end=end, value=value,
                             params=(Param(parts[-1], value, ts.text(typ) if typ else None),)))
        elif cap in ("class", "struct", "union"):
            name = self.tag_name(node)
            if name:
                self.add(Sym(name=name, kind=cap, qual=scope + (name,), start=start, end=end))
        elif cap == "enum":
            name = self.tag_name(node)
            if name:
                self.add(Sym(name=name, kind="enum", qual=scope + (name,), start=start, end=end))
        elif cap == "enumerator":
            n = node.child_by_field_name("name")
            if n is not None:
                v = node.child_by_field_name("value")
                self.add(Sym(name=ts.text(n), kind="enumerator", qual=scope + (ts.text(n),),
                             start=start, end=end, value=ts.text(v).strip() if v else None))
        elif cap == "typedef":
            if node.type == "alias_declaration":
                n = node.child_by_field_name("name")
                t = node.child_by_field_name("type")
                if n is not None:
                    self.add(Sym(name=ts.text(n), kind="typedef", qual=scope + (ts.text(n),),
                                 start=start, end=end, value=ts.text(t) if t else None))
                return
            typ = node.child_by_field_name("type")
            target = None
            if typ is not None:
                if typ.type in ("struct_specifier", "enum_specifier", "union_specifier",
                                "class_specifier"):
                    n = typ.child_by_field_name("name")
                    target = name_parts(ts.text(n))[-1] if n is not None else None
                else:
                    target = ts.text(typ)
            for d in node.children_by_field_name("declarator"):
                parts = declarator_name(d)
                if parts and target and parts[-1] != target:
                    self.add(Sym(name=parts[-1], kind="typedef", qual=scope + parts[-1:],
                                 start=start, end=end, value=target))
        elif cap == "namespace":
            n = node.child_by_field_name("name")
            if n is not None:
                parts = name_parts(ts.text(n))
                for i in range(len(parts)):
                    self.add(Sym(name=parts[i], kind="namespace", qual=scope + parts[:i + 1],
                                 start=start, end=end))
        elif cap == "macro":
            n = node.child_by_field_name("name")
            v = node.child_by_field_name("value")
            ps = node.child_by_field_name("parameters")
            params = None
            if ps is not None:
                params = tuple(Param(ts.text(c)) for c in ps.named_children)
            if n is not None:
                end = lines(v)[1] if v is not None else start
                self.add(Sym(name=ts.text(n), kind="macro", qual=(ts.text(n),), start=start,
                             end=end, value=macro_value(ts.text(v)) if v else None,
                             params=params))

    def run(self) -> FileFacts:
        caps = ts.captures(self.lang, f"{self.lang}_defs", self.tree.root_node)
        nodes: dict[tuple[int, int, str], tuple[str, tree_sitter.Node]] = {}
        for cap, ns in caps.items():
            for n in ns:
                nodes.setdefault((n.start_byte, -n.end_byte, n.type), (cap, n))
        # outer before inner so that scopes (namespaces, classes) precede members
        for key in sorted(nodes):
            cap, n = nodes[key]
            self.handle(cap, n)
        self.facts.parse_errors = _count_errors(self.tree.root_node)
        self.facts.syms.sort(key=lambda s: (s.start, len(s.qual)))
        return self.facts


def _count_errors(root: tree_sitter.Node) -> int:
    if not root.has_error:
        return 0
    count = 0
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            count += 1
            continue
        if n.has_error:
            stack.extend(n.children)
    return count


def extract(lang: str, path: str, data: bytes, blob: str | None) -> tuple[FileFacts, tree_sitter.Tree]:
    ex = _Extractor(lang, path, data, blob)
    return ex.run(), ex.tree
