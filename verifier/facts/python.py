"""Python facts with the standard `ast` module (also the `.pyi` stub producer:
`facts/release.py` runs stubs through this same extractor).

What is extracted (scopes: module -> classes -> nested classes; nothing inside a
function body is a symbol, but `self.x` assignments in methods are attributes):
- functions and methods with parameters: defaults, annotations and kinds
  (positional-only, keyword-only, `*args`, `**kwargs`; the stars are kept in the
  name); the implicit first parameter `self`/`cls` of a method is dropped,
  staticmethods keep all; decorators; docstrings;
- classes (bases as `value`, decorators, docstring);
- module/class variables with their value text, from plain, annotated and tuple
  assignments (`x, y = 1, 2`, `[a, *b] = ...`), `for`/`async for` targets and
  `with ... as x` targets; annotated class-level names are `field`s (dataclass
  fields, in order); a string literal right after an assignment is its docstring;
- `self.<name> = ...` in methods as attributes (origin `__init__` when assigned
  in `__init__`, else `self`), unless the class already names it;
- attribute names a function registers by string literal (`setattr(obj, "x", ..)`,
  `add_attribute("x", ..)`, `CustomAttribute(name="x", ..)`): kind `registered`,
  parent = the function (`LITERAL_KINDS`: out of member lists unless asked for);
- imports: the bound name (`import a.b` binds `a`), and module-level imports as
  `Import` records (relative level kept; star imports too) for lint's module
  surface; `__all__` (literal list/tuple, `+=`, `.extend`, `.append`);
- module-level and class-level `if`/`try`/`for`/`while`/`with`/`match` blocks are
  walked (TYPE_CHECKING, optional imports, platform branches).
- once a class body is walked, `facts/pyclass.py` rewrites its symbols with what the
  class generates (flavour, fields and defaults, the generated constructor, enum
  members, properties, slots, method traits); once the module is walked,
  `facts/pymodule.py` adds the names a module `__getattr__` serves lazily, and
  functional `namedtuple(...)` / `NamedTuple(...)` classes are read where assigned.

Lines are counted at "\\n" only (as git and `textlines.py` do): `str.splitlines`
would also split at form feeds and shift every later offset.
"""

from __future__ import annotations

import ast
import re

from verifier.facts import names, pyclass, pymodule
from verifier.facts.pyclass import literal_strings as _literal_strings
from verifier.facts.model import (KEYWORD_ONLY, POSITIONAL_ONLY, POSITIONAL_OR_KEYWORD,
                                  VAR_KEYWORD, VAR_POSITIONAL, FileFacts, Import, Param, Sym)

module_name = names.module_name   # kept here for callers that import it from this module


class _Source:
    """Source text with its lines split once (`ast.get_source_segment` re-splits the
    whole file on every call, quadratic on 600 KB modules). Split at "\\n" only, as
    the tokenizer numbers lines."""

    def __init__(self, src: str) -> None:
        self.src = src
        parts = src.split("\n")
        self.lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

    def segment(self, node: ast.AST | None) -> str | None:
        if node is None:
            return None
        try:
            l0, l1 = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            c0, c1 = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            return ast.unparse(node)
        if l1 is None or c1 is None or l1 >= len(self.lines):
            return ast.unparse(node)
        if l0 == l1:
            return self.lines[l0].encode()[c0:c1].decode("utf-8", errors="replace")
        first = self.lines[l0].encode()[c0:].decode("utf-8", errors="replace")
        last = self.lines[l1].encode()[:c1].decode("utf-8", errors="replace")
        return "".join([first, *self.lines[l0 + 1:l1], last])


def _decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[str, ...]:
    return tuple(ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in fn.decorator_list)


def target_names(t: ast.expr) -> list[ast.Name]:
    """Names an assignment target binds: `x`, `x, (y, *z)`, `[a, b]`."""
    if isinstance(t, ast.Name):
        return [t]
    if isinstance(t, ast.Starred):
        return target_names(t.value)
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in target_names(e)]
    return []


def _end(node: ast.AST) -> int:
    return getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]


def _doc(node: ast.AST) -> str | None:
    try:
        return ast.get_docstring(node, clean=True)  # type: ignore[arg-type]
    except TypeError:
        return None


class _Walker:
    """One `visit_<Node>` method per statement kind (griffe's visitor shape)."""

    def __init__(self, src: str, path: str) -> None:
        self.src = _Source(src)
        self.path = path
        self.syms: list[Sym] = []
        self.imports: list[Import] = []
        self.exports: list[str] | None = None
        self.exports_lines: tuple[int, int] | None = None
        self._next_doc: dict[int, str] = {}
        self.classes: dict[str, pyclass.ClassModel] = {}   # what derived classes inherit
        self.registers = _REGISTER_HINT.search(src) is not None

    def seg(self, node: ast.AST | None) -> str | None:
        return self.src.segment(node)

    def text(self, node: ast.stmt) -> str:
        """The source lines of a statement."""
        return "".join(self.src.lines[node.lineno - 1:_end(node)])

    def add(self, **kw) -> None:
        self.syms.append(Sym(**kw))

    # ---------------------------------------------------------------- blocks
    def body(self, stmts: list[ast.stmt], scope: tuple[str, ...], in_class: bool) -> None:
        for i, st in enumerate(stmts):
            nxt = stmts[i + 1] if i + 1 < len(stmts) else None
            if (isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant)
                    and isinstance(nxt.value.value, str)
                    and isinstance(st, (ast.Assign, ast.AnnAssign))):
                self._next_doc[id(st)] = _clean(nxt.value.value)
            visit = getattr(self, f"visit_{type(st).__name__}", None)
            if visit is not None:
                visit(st, scope, in_class)

    def blocks(self, st: ast.stmt, scope: tuple[str, ...], in_class: bool) -> None:
        """The statement lists of a compound statement, in order."""
        for name in ("body", "orelse", "finalbody"):
            self.body(getattr(st, name, None) or [], scope, in_class)
        for h in getattr(st, "handlers", None) or []:
            self.body(h.body, scope, in_class)
        for c in getattr(st, "cases", None) or []:
            self.body(c.body, scope, in_class)

    visit_If = visit_Try = visit_While = blocks
    visit_TryStar = blocks

    def visit_For(self, st: ast.For | ast.AsyncFor, scope, in_class) -> None:
        self.bind(st.target, st, scope, in_class, value=None)
        self.blocks(st, scope, in_class)

    visit_AsyncFor = visit_For

    def visit_With(self, st: ast.With | ast.AsyncWith, scope, in_class) -> None:
        for item in st.items:
            if item.optional_vars is not None:
                self.bind(item.optional_vars, st, scope, in_class, value=None)
        self.body(st.body, scope, in_class)

    visit_AsyncWith = visit_With

    def visit_Match(self, st, scope, in_class) -> None:
        self.blocks(st, scope, in_class)

    # ---------------------------------------------------------------- definitions
    def visit_FunctionDef(self, st: ast.FunctionDef | ast.AsyncFunctionDef, scope, in_class) -> None:
        decos = _decorators(st)
        drop = in_class and "staticmethod" not in decos
        start = min([st.lineno] + [d.lineno for d in st.decorator_list])
        sig_end = max(st.lineno, (st.body[0].lineno - 1) if st.body else st.lineno)
        self.add(name=st.name, kind="method" if in_class else "function", qual=scope + (st.name,),
                 start=start, end=_end(st), params=self.params(st, drop), decorators=decos,
                 sig_end=sig_end, doc=_doc(st), line=st.lineno if start != st.lineno else None)
        if self.registers and _REGISTER_HINT.search(self.text(st)):
            self.registered(st, scope + (st.name,))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, st: ast.ClassDef, scope, in_class) -> None:
        start = min([st.lineno] + [d.lineno for d in st.decorator_list])
        q = scope + (st.name,)
        at = len(self.syms)
        self.add(name=st.name, kind="class", qual=q, start=start, end=_end(st),
                 decorators=_decorators(st), doc=_doc(st),
                 line=st.lineno if start != st.lineno else None,
                 value=", ".join(ast.unparse(b) for b in st.bases) or None)
        self.body(st.body, q, True)
        self.classes[st.name] = pyclass.refine(self, st, q, at, self.classes)
        self.self_attrs(st, q)

    def params(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool) -> tuple[Param, ...]:
        a = fn.args
        positional = [(p, POSITIONAL_ONLY) for p in a.posonlyargs] + \
                     [(p, POSITIONAL_OR_KEYWORD) for p in a.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        out = [Param(p.arg, self.seg(d), self.seg(p.annotation), k, p.lineno)
               for (p, k), d in zip(positional, defaults, strict=True)]
        if drop_first and out:
            out = out[1:]
        if a.vararg:
            out.append(Param("*" + a.vararg.arg, None, self.seg(a.vararg.annotation),
                             VAR_POSITIONAL, a.vararg.lineno))
        for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
            out.append(Param(p.arg, self.seg(d), self.seg(p.annotation), KEYWORD_ONLY, p.lineno))
        if a.kwarg:
            out.append(Param("**" + a.kwarg.arg, None, self.seg(a.kwarg.annotation), VAR_KEYWORD,
                             a.kwarg.lineno))
        return tuple(out)

    # ---------------------------------------------------------------- assignments
    def bind(self, target: ast.expr, st: ast.stmt, scope, in_class, *, value: ast.expr | None,
             kind: str | None = None) -> list[str]:
        found = target_names(target)
        single = len(found) == 1 and isinstance(target, ast.Name)
        for n in found:
            self.add(name=n.id, kind=kind or ("attribute" if in_class else "variable"),
                     qual=scope + (n.id,), start=st.lineno, end=_end(st),
                     value=self.seg(value) if single and value is not None else None,
                     doc=self._next_doc.get(id(st)))
        return [n.id for n in found]

    def visit_Assign(self, st: ast.Assign, scope, in_class) -> None:
        if isinstance(st.value, ast.Call) and not in_class and \
                pymodule.functional_class(st, self, scope):
            return
        for t in st.targets:
            bound = self.bind(t, st, scope, in_class, value=st.value)
            if "__all__" in bound and not scope:
                vals = _literal_strings(st.value)
                if vals is not None:
                    self.exports, self.exports_lines = vals, (st.lineno, _end(st))

    def visit_AnnAssign(self, st: ast.AnnAssign, scope, in_class) -> None:
        if not isinstance(st.target, ast.Name):
            return
        name = st.target.id
        self.add(name=name, kind="field" if in_class else "variable", qual=scope + (name,),
                 start=st.lineno, end=_end(st), value=self.seg(st.value),
                 params=(Param(name, self.seg(st.value), self.seg(st.annotation)),),
                 doc=self._next_doc.get(id(st)))
        if name == "__all__" and not scope:
            vals = _literal_strings(st.value)
            if vals is not None:
                self.exports, self.exports_lines = vals, (st.lineno, _end(st))

    def visit_AugAssign(self, st: ast.AugAssign, scope, in_class) -> None:
        if (isinstance(st.target, ast.Name) and st.target.id == "__all__" and not scope
                and self.exports is not None):
            vals = _literal_strings(st.value)
            if vals is not None:
                self.extend_exports(vals, st)

    def visit_TypeAlias(self, st, scope, in_class) -> None:
        name = st.name.id
        self.add(name=name, kind="typedef", qual=scope + (name,), start=st.lineno, end=_end(st),
                 value=self.seg(st.value))

    def visit_Expr(self, st: ast.Expr, scope, in_class) -> None:
        # __all__.extend([...]) / __all__.append("x")
        c = st.value
        if (scope or self.exports is None or not isinstance(c, ast.Call) or not c.args
                or not isinstance(c.func, ast.Attribute) or not isinstance(c.func.value, ast.Name)
                or c.func.value.id != "__all__"):
            return
        if c.func.attr == "extend":
            vals = _literal_strings(c.args[0])
        elif c.func.attr == "append" and isinstance(c.args[0], ast.Constant) \
                and isinstance(c.args[0].value, str):
            vals = [c.args[0].value]
        else:
            return
        if vals is not None:
            self.extend_exports(vals, st)

    def extend_exports(self, vals: list[str], st: ast.stmt) -> None:
        assert self.exports is not None
        self.exports = self.exports + vals
        self.exports_lines = ((self.exports_lines or (st.lineno, _end(st)))[0],
                              max(_end(st), (self.exports_lines or (0, 0))[1]))

    # ---------------------------------------------------------------- imports
    def visit_Import(self, st: ast.Import, scope, in_class) -> None:
        for alias in st.names:
            bound = alias.asname or alias.name.split(".")[0]
            self.add(name=bound, kind="import", qual=scope + (bound,), start=st.lineno,
                     end=_end(st), value=alias.name)
            if not scope:
                # `import a.b` binds `a` (the package); `import a.b as c` binds the module
                self.imports.append(Import(bound, alias.name if alias.asname else bound, None, 0,
                                           st.lineno))

    def visit_ImportFrom(self, st: ast.ImportFrom, scope, in_class) -> None:
        level = st.level or 0
        mod = st.module or ""
        src_mod = "." * level + mod
        for alias in st.names:
            if alias.name == "*":
                if not scope:
                    self.imports.append(Import(None, mod, "*", level, st.lineno))
                continue
            bound = alias.asname or alias.name
            self.add(name=bound, kind="import", qual=scope + (bound,), start=st.lineno,
                     end=_end(st), value=f"{src_mod}.{alias.name}")
            if not scope:
                self.imports.append(Import(bound, mod, alias.name, level, st.lineno))

    # ---------------------------------------------------------------- names by string
    def registered(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, qual: tuple[str, ...]) -> None:
        """Attribute names a function registers by string literal: `setattr(obj, "x",
        ...)`, `add_attribute("x", ...)` / `register_attribute("x", ...)`, and
        `...Attribute(name="x", ...)` (directly or through a local alias such as
        `ca = type(builder).CustomAttribute`). Kind `registered`, parent = the function."""
        ctors: set[str] = set()
        calls: list[ast.Call] = []
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                calls.append(node)
            elif isinstance(node, ast.Assign) and _callee(node.value).endswith("Attribute"):
                ctors.update(n.id for t in node.targets for n in target_names(t))
        for node in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            callee = _callee(node.func)
            name = None
            if callee == "setattr" and len(node.args) >= 2:
                name = _str(node.args[1])
            elif callee in _REGISTER_CALLS and node.args:
                name = _str(node.args[0])
            elif callee.endswith("Attribute") or callee in ctors:
                kw = {k.arg: k.value for k in node.keywords if k.arg}
                name = _str(kw.get("name")) or (_str(node.args[0]) if node.args else None)
            if name and name.isidentifier():
                self.add(name=name, kind="registered", qual=qual + (name,), start=node.lineno,
                         end=_end(node), value=callee, origin="literal")

    # ---------------------------------------------------------------- self.x
    def self_attrs(self, cls: ast.ClassDef, scope: tuple[str, ...]) -> None:
        """`self.<name> = ...` in the class's methods: `__init__` first, then the
        others in source order; a name the class already has is not repeated."""
        known = {s.qual for s in self.syms}
        methods = [st for st in cls.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))]
        methods.sort(key=lambda m: m.name != "__init__")
        for fn in methods:
            decos = _decorators(fn)
            if "staticmethod" in decos or "classmethod" in decos:
                continue
            first = (fn.args.posonlyargs + fn.args.args)[:1]
            if not first:
                continue
            me = first[0].arg
            if f"{me}." not in self.text(fn):
                continue   # no `me.x` in its text: nothing to walk
            origin = "__init__" if fn.name == "__init__" else "self"
            for node in _statements(fn.body):
                targets: list[ast.expr] = []
                value = None
                if isinstance(node, ast.Assign):
                    targets, value = list(node.targets), node.value
                elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                    targets, value = [node.target], node.value
                for t in _flatten(targets):
                    if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                            and t.value.id == me):
                        q = scope + (t.attr,)
                        if q in known:
                            continue
                        known.add(q)
                        self.add(name=t.attr, kind="attribute", qual=q, start=node.lineno,
                                 end=_end(node), value=self.seg(value) if len(targets) == 1
                                 and t is targets[0] else None, origin=origin)


# a function worth walking for names registered by string (cheap text test first)
_REGISTER_HINT = re.compile(r"setattr\(|add_attribute\(|register_attribute\(|Attribute\s*(\(|$)",
                            re.M)
_REGISTER_CALLS = {"add_attribute", "register_attribute"}


def _callee(node: ast.expr) -> str:
    """The last name of a callee (or of an expression naming one): `a.b.f` -> `f`."""
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _str(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _statements(stmts: list[ast.stmt]):
    """Every statement in a body, nested blocks (and nested functions) included, in
    order: assignments are statements, so the expressions need not be walked."""
    for st in stmts:
        yield st
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(st, name, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for h in getattr(st, "handlers", None) or []:
            yield from _statements(h.body)
        for c in getattr(st, "cases", None) or []:
            yield from _statements(c.body)


def _flatten(targets: list[ast.expr]) -> list[ast.expr]:
    out: list[ast.expr] = []
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            out.extend(_flatten(list(t.elts)))
        elif isinstance(t, ast.Starred):
            out.extend(_flatten([t.value]))
        else:
            out.append(t)
    return out


def _clean(doc: str) -> str:
    import inspect

    return inspect.cleandoc(doc)


def extract(path: str, data: bytes, blob: str | None = None, *,
            producer: str = "source", bases: dict | None = None) -> FileFacts:
    """The record of one Python file (or `.pyi` stub). `bases`: what classes of other
    files that this file's classes derive from generate (name as bound here ->
    `pyclass.ClassModel`; `claims/kinds/_inherit.py` reads them from their files)."""
    src = data.decode("utf-8", errors="replace")
    module = names.module_name(path)
    try:
        tree = ast.parse(src, filename=path, type_comments=False)
    except (SyntaxError, ValueError):
        return FileFacts(path=path, blob=blob, lang="python", parse_errors=1, module=module,
                         producer=producer)
    w = _Walker(src, path)
    w.classes.update(bases or {})
    w.body(tree.body, (), False)
    if "__getattr__" in src:
        pymodule.lazy_exports(tree, w)
    # attributes from methods come after the class body: keep source order
    syms = sorted(w.syms, key=lambda s: (s.start, len(s.qual)))
    return FileFacts(path=path, blob=blob, lang="python", syms=tuple(syms),
                     exports=tuple(w.exports) if w.exports is not None else None,
                     exports_lines=w.exports_lines, module=module, imports=tuple(w.imports),
                     producer=producer, doc=_doc(tree))
