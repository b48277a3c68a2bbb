"""C and C++ facts with tree-sitter: the definitions query (`queries/<lang>_defs.scm`)
finds candidate nodes; one `visit_<capture>` method per capture names them and
works out their scope.

Scopes: namespaces, classes/structs/unions, enums (an enumerator's scope is its
enum; lookups treat enums and namespaces as transparent). Templates, `extern "C"`
blocks and preprocessor conditionals are transparent. Nothing inside a function
body is a symbol (but see `ports`). Out-of-line definitions
(`Accelerometer<T>::Accelerometer`) are placed under their qualified name,
template arguments dropped (`names.name_parts`).

Doc comments: the `//`, `///`, `/* */`, `/** */` comment lines right above a
declaration (no blank line between, not a trailing comment of the line before,
not a `//-----` rule), else a comment on the same line after it (`int nq;  //
number of ...`, `mjOBJ_BODY = 1,  // body`, `///< ...`), else for a struct/enum a
comment right after its opening brace on the same line (MuJoCo's
`typedef enum mjtObj_ {  // type of object`).

Ports (C++): a `Declare...Port("name", ...)` call in a method or constructor body
(`DeclareVectorInputPort`, `DeclareAbstractOutputPort`, `DeclareStateOutputPort`,
...) declares a port of that class: kind `port`, qual = class qual + name, value =
the declaring call's name, origin `literal`.
"""

from __future__ import annotations

import re

import tree_sitter

from verifier.facts import treesitter as ts
from verifier.facts.model import POSITIONAL_OR_KEYWORD, VAR_POSITIONAL, Param, Sym
from verifier.facts.names import name_parts, short_name

_WRAPPERS = {"pointer_declarator", "reference_declarator", "array_declarator",
             "init_declarator", "parenthesized_declarator", "attributed_declarator",
             "abstract_pointer_declarator", "abstract_reference_declarator"}
_NAME_TYPES = {"identifier", "field_identifier", "type_identifier", "qualified_identifier",
               "destructor_name", "operator_name", "template_function", "namespace_identifier",
               "primitive_type"}
_CLASSLIKE = {"class_specifier": "class", "struct_specifier": "struct",
              "union_specifier": "union"}
# a declaration's doc comment sits above the outermost node that starts it
_ANCHORS = {"template_declaration", "type_definition", "declaration", "field_declaration"}
_PORT_CALL = re.compile(r"^Declare\w*Port$")


def lines(node: tree_sitter.Node) -> tuple[int, int]:
    return node.start_point.row + 1, node.end_point.row + 1


def unwrap(decl: tree_sitter.Node | None) -> tree_sitter.Node | None:
    """Innermost declarator: through pointers, references, arrays, init declarators."""
    while decl is not None and decl.type in _WRAPPERS:
        inner = decl.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in decl.named_children if c.type not in ("type_qualifier",)), None)
            if inner is None or inner == decl:
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
            out.append(Param("...", kind=VAR_POSITIONAL))
            continue
        if p.type not in ("parameter_declaration", "optional_parameter_declaration",
                          "optional_type_parameter_declaration"):
            continue
        decl = p.child_by_field_name("declarator")
        name = declarator_name(decl)
        typ = p.child_by_field_name("type")
        if not name and typ is not None and ts.text(typ) == "void" and len(plist.named_children) == 1:
            return ()
        default = p.child_by_field_name("default_value")
        typetext = ts.text(typ) if typ is not None else None
        out.append(Param(name[-1] if name else "", _default_text(default), typetext,
                         POSITIONAL_OR_KEYWORD, p.start_point.row + 1))
    return tuple(out)


# --------------------------------------------------------------------------- doc comments

def clean_comment(text: str) -> str | None:
    """Comment text without its markers (`//`, `///`, `//!`, `///<`, `/* */`, leading
    `*`); None for an empty comment or a rule (`//-----`, `/*****/`)."""
    t = text.strip()
    if t.startswith("//"):
        body = [_LINE_MARK.sub("", t, count=1)]
    elif t.startswith("/*"):
        inner = _CLOSE_MARK.sub("", _OPEN_MARK.sub("", t, count=1), count=1)
        body = [_STAR_MARK.sub("", ln, count=1) if ln.strip().startswith("*") else ln.strip()
                for ln in inner.split("\n")]
    else:
        return None
    out = "\n".join(ln.rstrip() for ln in body).strip()
    if not out or not _WORDY.search(out):
        return None
    return out


# compiled once (re's cache lookup per call cost 3 % of a cold C++ extraction)
_LINE_MARK = re.compile(r"^//[/!]?<?\s?")
_OPEN_MARK = re.compile(r"^/\*[*!]?<?")
_CLOSE_MARK = re.compile(r"\*+/$")
_STAR_MARK = re.compile(r"^\s*\*+ ?")
_WORDY = re.compile(r"[A-Za-z0-9]")


def _prev_non_comment(node: tree_sitter.Node) -> tree_sitter.Node | None:
    p = node.prev_sibling
    while p is not None and p.type == "comment":
        p = p.prev_sibling
    return p


def leading_doc(node: tree_sitter.Node, rows: frozenset[int] | None = None) -> str | None:
    """The comment block right above `node` (see the module docstring); `rows`: the
    rows that may hold a comment (a quick no)."""
    anchor = node
    while anchor.parent is not None and (
            anchor.parent.type == "template_declaration"
            or (anchor.parent.type in _ANCHORS
                and anchor.parent.start_point.row == anchor.start_point.row)):
        anchor = anchor.parent
    if rows is not None and anchor.start_point.row - 1 not in rows \
            and anchor.start_point.row not in rows:
        return None
    chain: list[tree_sitter.Node] = []
    row = anchor.start_point.row
    p = anchor.prev_sibling
    while p is not None and p.type == "comment" and (
            p.end_point.row == row - 1 or (not chain and p.end_point.row == row)):
        chain.insert(0, p)
        row = p.start_point.row
        p = p.prev_sibling
    if chain:
        before = _prev_non_comment(chain[0])
        if before is not None and before.end_point.row == chain[0].start_point.row:
            chain = chain[1:]   # the first one trails the declaration before it
    docs = [d for d in (clean_comment(ts.text(c)) for c in chain) if d]
    return "\n".join(docs) or None


def trailing_doc(node: tree_sitter.Node, rows: frozenset[int] | None = None) -> str | None:
    """A comment on the same line after `node` (skipping a `,` or `;`)."""
    row = node.end_point.row
    if rows is not None and row not in rows:
        return None
    n = node.next_sibling
    while n is not None and n.type in (",", ";") and n.start_point.row == row:
        n = n.next_sibling
    if n is not None and n.type == "comment" and n.start_point.row == row:
        return clean_comment(ts.text(n))
    return None


def brace_doc(node: tree_sitter.Node) -> str | None:
    """For `struct S {  // doc` / `enum E {  // doc`: the comment after the brace."""
    body = node.child_by_field_name("body")
    if body is None or body.child_count < 2:
        return None
    first, second = body.children[0], body.children[1]
    if second.type == "comment" and second.start_point.row == first.start_point.row:
        return clean_comment(ts.text(second))
    return None


def doc_of(node: tree_sitter.Node, rows: frozenset[int] | None = None) -> str | None:
    return leading_doc(node, rows) or trailing_doc(node, rows)


# --------------------------------------------------------------------------- the visitor

class _Extractor:
    def __init__(self, lang: str, path: str, data: bytes, blob: str | None) -> None:
        self.lang = lang
        self.path = path
        self.blob = blob
        self.tree = ts.parse(lang, data)
        self.syms: list[Sym] = []
        self.seen: set[tuple[str, tuple[str, ...], int]] = set()
        self.functions: dict[tuple[int, int], Sym] = {}   # function_definition span -> its Sym
        self._scopes: dict[tuple[int, int, str], tuple[str, ...] | None] = {}
        # rows that may hold a comment: doc comments are looked for only next to these
        rows = {i for i, ln in enumerate(data.split(b"\n")) if b"//" in ln or b"*/" in ln}
        self.comment_rows = frozenset(rows)

    # ------------------------------------------------------------------ scope
    def tag_name(self, node: tree_sitter.Node) -> str | None:
        """Name of a class/struct/union/enum specifier, or of its typedef/field."""
        parts = self.tag_parts(node)
        return parts[-1] if parts else None

    def tag_parts(self, node: tree_sitter.Node) -> tuple[str, ...]:
        """The specifier's name as written: `Meshcat::Impl` for an out-of-line
        definition of a nested class (its scope is `Meshcat`, not the namespace)."""
        n = node.child_by_field_name("name")
        if n is not None:
            return tuple(name_parts(ts.text(n)))
        name = self._tag_from_declarator(node)
        return (name,) if name else ()

    def _tag_from_declarator(self, node: tree_sitter.Node) -> str | None:
        parent = node.parent
        if parent is not None and parent.type in ("type_definition", "field_declaration"):
            for d in parent.children_by_field_name("declarator"):
                parts = declarator_name(d)
                if parts:
                    return parts[-1]
        return None

    def scope(self, node: tree_sitter.Node) -> tuple[str, ...] | None:
        """Enclosing scope names (outermost first); None inside a function body."""
        return self._scope_of(node.parent)

    def _scope_of(self, p: tree_sitter.Node | None) -> tuple[str, ...] | None:
        """The scope a node inside `p` is in (memoised per ancestor: a file's
        declarations share their few enclosing scopes)."""
        chain: list[tree_sitter.Node] = []
        base: tuple[str, ...] | None = ()
        while p is not None:
            key = (p.start_byte, p.end_byte, p.type)
            if key in self._scopes:
                base = self._scopes[key]
                break
            chain.append(p)
            p = p.parent
        for q in reversed(chain):
            key = (q.start_byte, q.end_byte, q.type)
            if base is not None:
                t = q.type
                if t in ("compound_statement", "lambda_expression"):
                    base = None
                elif t == "namespace_definition":
                    n = q.child_by_field_name("name")
                    if n is not None:
                        base = base + name_parts(ts.text(n))
                elif t in _CLASSLIKE or t == "enum_specifier":
                    base = base + self.tag_parts(q)
            self._scopes[key] = base
        return base

    def add(self, sym: Sym) -> Sym | None:
        key = (sym.kind, sym.qual, sym.start)
        if key in self.seen or not sym.name:
            return None
        self.seen.add(key)
        self.syms.append(sym)
        return sym

    # ------------------------------------------------------------------ visits
    def function(self, node: tree_sitter.Node, decl: tree_sitter.Node | None,
                 scope: tuple[str, ...], in_class: bool) -> bool:
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
        line = fd.start_point.row + 1
        # a declaration's range is the declaration, a definition's the whole definition
        sym = self.add(Sym(name=name, kind=kind, qual=qual, start=start, end=end,
                           params=params_of(fd), sig_end=lines(fd)[1], doc=doc_of(node, self.comment_rows),
                           line=line if line != start else None))
        if sym is not None and node.type == "function_definition":
            self.functions[(node.start_byte, node.end_byte)] = sym
        return True

    def visit_function(self, node, scope, in_class) -> None:
        self.function(node, node.child_by_field_name("declarator"), scope, in_class)

    def visit_declaration(self, node, scope, in_class, cap: str = "declaration") -> None:
        start, end = lines(node)
        decls = node.children_by_field_name("declarator")
        for decl in decls:
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
            self.add(Sym(name=parts[-1], kind=kind, qual=scope + parts, start=start, end=end,
                         value=value, doc=doc_of(node, self.comment_rows),
                         params=(Param(parts[-1], value, ts.text(typ) if typ else None),)))

    def visit_field(self, node, scope, in_class) -> None:
        self.visit_declaration(node, scope, in_class, cap="field")

    def visit_classlike(self, node, scope, in_class, kind: str) -> None:
        parts = self.tag_parts(node)
        name = parts[-1] if parts else None
        if name:
            start, end = lines(node)
            # value: the base classes as written (`LeafSystem<T>, Base`), as for Python
            bases = next((c for c in node.named_children if c.type == "base_class_clause"), None)
            value = ", ".join(ts.text(c) for c in bases.named_children
                              if c.type != "access_specifier") if bases is not None else None
            n = node.child_by_field_name("name")
            line = n.start_point.row + 1 if n is not None else start
            self.add(Sym(name=name, kind=kind, qual=scope + parts, start=start, end=end,
                         doc=leading_doc(node, self.comment_rows) or brace_doc(node), value=value or None,
                         line=line if line != start else None))

    def visit_class(self, node, scope, in_class) -> None:
        self.visit_classlike(node, scope, in_class, "class")

    def visit_struct(self, node, scope, in_class) -> None:
        self.visit_classlike(node, scope, in_class, "struct")

    def visit_union(self, node, scope, in_class) -> None:
        self.visit_classlike(node, scope, in_class, "union")

    def visit_enum(self, node, scope, in_class) -> None:
        self.visit_classlike(node, scope, in_class, "enum")

    def visit_enumerator(self, node, scope, in_class) -> None:
        n = node.child_by_field_name("name")
        if n is None:
            return
        v = node.child_by_field_name("value")
        start, end = lines(node)
        self.add(Sym(name=ts.text(n), kind="enumerator", qual=scope + (ts.text(n),),
                     start=start, end=end, value=ts.text(v).strip() if v else None,
                     doc=doc_of(node, self.comment_rows)))

    def visit_typedef(self, node, scope, in_class) -> None:
        start, end = lines(node)
        if node.type == "alias_declaration":
            n = node.child_by_field_name("name")
            t = node.child_by_field_name("type")
            if n is not None:
                self.add(Sym(name=ts.text(n), kind="typedef", qual=scope + (ts.text(n),),
                             start=start, end=end, value=ts.text(t) if t else None,
                             doc=doc_of(node, self.comment_rows)))
            return
        typ = node.child_by_field_name("type")
        target, tag, doc = None, False, None
        if typ is not None:
            if typ.type in ("struct_specifier", "enum_specifier", "union_specifier",
                            "class_specifier"):
                n = typ.child_by_field_name("name")
                target = name_parts(ts.text(n))[-1] if n is not None else None
                tag = True
                doc = leading_doc(node, self.comment_rows) or brace_doc(typ)
            else:
                target = ts.text(typ)
        for d in node.children_by_field_name("declarator"):
            parts = declarator_name(d)
            if parts and target and parts[-1] != target:
                # origin "tag": the typedef names a struct/enum/union tag (`mjData` -> `mjData_`)
                self.add(Sym(name=parts[-1], kind="typedef", qual=scope + parts[-1:],
                             start=start, end=end, value=target, doc=doc or doc_of(node, self.comment_rows),
                             origin="tag" if tag else None))

    def visit_namespace(self, node, scope, in_class) -> None:
        n = node.child_by_field_name("name")
        if n is None:
            return
        start, end = lines(node)
        parts = name_parts(ts.text(n))
        for i in range(len(parts)):
            self.add(Sym(name=parts[i], kind="namespace", qual=scope + parts[:i + 1],
                         start=start, end=end))

    def visit_macro(self, node, scope, in_class) -> None:
        n = node.child_by_field_name("name")
        if n is None:
            return
        v = node.child_by_field_name("value")
        ps = node.child_by_field_name("parameters")
        params = tuple(Param(ts.text(c)) for c in ps.named_children) if ps is not None else None
        start = lines(node)[0]
        end = lines(v)[1] if v is not None else start
        vtext = ts.text(v) if v is not None else ""
        inline = re.search(r"//(.*)$|/\*(.*?)\*/\s*$", vtext, flags=re.S)
        doc = leading_doc(node, self.comment_rows) or (clean_comment(inline.group(0)) if inline else None)
        self.add(Sym(name=ts.text(n), kind="macro", qual=(ts.text(n),), start=start, end=end,
                     value=macro_value(vtext) if v is not None else None, params=params,
                     doc=doc))

    # ------------------------------------------------------------------ ports
    def ports(self, data: bytes) -> None:
        if self.lang != "cpp" or b"Declare" not in data or b"Port" not in data:
            return
        calls = ts.captures("cpp", "cpp_port_calls", self.tree.root_node).get("call", [])
        for call in sorted(calls, key=lambda c: (c.start_byte, c.end_byte)):
            fn = call.child_by_field_name("function")
            args = call.child_by_field_name("arguments")
            if fn is None or args is None:
                continue
            callee = short_name(ts.text(fn))
            if not _PORT_CALL.match(callee):
                continue
            name = string_arg(args, 0)
            owner = self.enclosing_method(call)
            if name is None or owner is None:
                continue
            start, end = lines(call)
            self.add(Sym(name=name, kind="port", qual=owner.qual[:-1] + (name,), start=start,
                         end=end, value=callee, origin="literal"))

    def enclosing_method(self, node: tree_sitter.Node) -> Sym | None:
        p = node.parent
        while p is not None:
            if p.type == "function_definition":
                sym = self.functions.get((p.start_byte, p.end_byte))
                if sym is not None and sym.kind in ("constructor", "method", "destructor"):
                    return sym
                if sym is not None:
                    return None
            p = p.parent
        return None

    # ------------------------------------------------------------------ run
    def run(self, data: bytes) -> list[Sym]:
        caps = ts.captures(self.lang, f"{self.lang}_defs", self.tree.root_node)
        nodes: dict[tuple[int, int, str], tuple[str, tree_sitter.Node]] = {}
        for cap, ns in caps.items():
            for n in ns:
                nodes.setdefault((n.start_byte, -n.end_byte, n.type), (cap, n))
        # outer before inner so that scopes (namespaces, classes) precede members
        for key in sorted(nodes):
            cap, n = nodes[key]
            scope = self.scope(n)
            if scope is None:
                continue
            in_class = bool(n.parent is not None and n.parent.type == "field_declaration_list")
            if n.parent is not None and n.parent.type == "template_declaration":
                gp = n.parent.parent
                in_class = bool(gp is not None and gp.type == "field_declaration_list")
            getattr(self, f"visit_{cap}")(n, scope, in_class)
        self.ports(data)
        self.syms.sort(key=lambda s: (s.start, len(s.qual)))
        return self.syms


def string_arg(args: tree_sitter.Node, index: int) -> str | None:
    """The `index`-th argument when it is one plain string literal (`"name"`)."""
    items = [c for c in args.named_children if c.type != "comment"]
    if len(items) <= index or items[index].type != "string_literal":
        return None
    t = ts.text(items[index])
    if not (t.startswith('"') and t.endswith('"')) or "\\" in t or len(t) < 3:
        return None
    return t[1:-1]


def count_errors(root: tree_sitter.Node) -> int:
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


def extract(lang: str, path: str, data: bytes,
            blob: str | None) -> tuple[list[Sym], tree_sitter.Tree, int]:
    """(symbols, tree, parse errors) of a C or C++ file."""
    ex = _Extractor(lang, path, data, blob)
    syms = ex.run(data)
    return syms, ex.tree, count_errors(ex.tree.root_node)
