"""Python facts with the standard `ast` module.

What is extracted (scopes: module -> classes -> nested classes):
- functions, classes, module/class variables (value text), imports (the bound
  name), `__all__` (literal list/tuple, `+=` and `.extend` literal parts);
- methods with parameters (`*args`/`**kwargs` keep their stars; the implicit
  first parameter `self`/`cls` of a method is dropped, staticmethods keep all);
- class fields: annotated class-level names, in order, with default text
  (dataclass fields); `self.<name> = ...` inside `__init__` as attributes;
- module-level `if`/`try` blocks are walked (TYPE_CHECKING, optional imports).
"""

from __future__ import annotations

import ast

from verifier.facts.model import FileFacts, Param, Sym, cached_facts

EXTRACTOR = __name__   # in-process memo key; persistent keys use code_version


def module_name(path: str) -> str:
    p = path[:-4] if path.endswith(".pyi") else path[:-3] if path.endswith(".py") else path
    parts = p.split("/")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class _Source:
    """Source text with its lines split once (`ast.get_source_segment` re-splits the
    whole file on every call, quadratic on 600 KB modules)."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.lines = src.splitlines(keepends=True)

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


def _seg(src: "_Source", node: ast.AST | None) -> str | None:
    return src.segment(node)


def _params(src: _Source, fn: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool) -> tuple[Param, ...]:
    a = fn.args
    positional = list(a.posonlyargs) + list(a.args)
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out = [Param(p.arg, _seg(src, d), _seg(src, p.annotation)) for p, d in zip(positional, defaults, strict=True)]
    if drop_first and out:
        out = out[1:]
    if a.vararg:
        out.append(Param("*" + a.vararg.arg, None, _seg(src, a.vararg.annotation)))
    for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(Param(p.arg, _seg(src, d), _seg(src, p.annotation)))
    if a.kwarg:
        out.append(Param("**" + a.kwarg.arg, None, _seg(src, a.kwarg.annotation)))
    return tuple(out)


def _decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> tuple[str, ...]:
    out = []
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        out.append(ast.unparse(target))
    return tuple(out)


def _literal_strings(node: ast.expr) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)):
        vals = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                vals.append(e.value)
            else:
                return None
        return vals
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_strings(node.left), _literal_strings(node.right)
        return None if left is None or right is None else left + right
    return None


class _Walker:
    def __init__(self, src: str, facts: FileFacts) -> None:
        self.src = _Source(src)
        self.f = facts

    def add(self, **kw) -> None:
        self.f.syms.append(Sym(**kw))

    def body(self, stmts: list[ast.stmt], scope: tuple[str, ...], in_class: bool) -> None:
        for st in stmts:
            self.stmt(st, scope, in_class)

    def stmt(self, st: ast.stmt, scope: tuple[str, ...], in_class: bool) -> None:
        end = getattr(st, "end_lineno", st.lineno) or st.lineno
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decos = _decorators(st)
            drop = in_class and "staticmethod" not in decos
            kind = "method" if in_class else "function"
            start = min([st.lineno] + [d.lineno for d in st.decorator_list])
            sig_end = max(st.lineno, (st.body[0].lineno - 1) if st.body else st.lineno)
            self.add(name=st.name, kind=kind, qual=scope + (st.name,), start=start, end=end,
                     params=_params(self.src, st, drop), decorators=decos, sig_end=sig_end)
            if in_class and st.name == "__init__":
                self.init_attrs(st, scope)
        elif isinstance(st, ast.ClassDef):
            decos = _decorators(st)
            start = min([st.lineno] + [d.lineno for d in st.decorator_list])
            self.add(name=st.name, kind="class", qual=scope + (st.name,), start=start, end=end,
                     decorators=decos, value=", ".join(ast.unparse(b) for b in st.bases) or None)
            self.body(st.body, scope + (st.name,), True)
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            self.add(name=st.target.id, kind="field" if in_class else "variable",
                     qual=scope + (st.target.id,), start=st.lineno, end=end,
                     value=_seg(self.src, st.value),
                     params=(Param(st.target.id, _seg(self.src, st.value),
                                   _seg(self.src, st.annotation)),))
        elif isinstance(st, ast.Assign):
            for t in st.targets:
                names = [t] if isinstance(t, ast.Name) else (
                    [e for e in t.elts if isinstance(e, ast.Name)] if isinstance(t, ast.Tuple) else [])
                for n in names:
                    self.add(name=n.id, kind="attribute" if in_class else "variable",
                             qual=scope + (n.id,), start=st.lineno, end=end,
                             value=_seg(self.src, st.value) if len(names) == 1 else None)
                    if n.id == "__all__" and not scope:
                        vals = _literal_strings(st.value)
                        if vals is not None:
                            self.f.exports = vals
                            self.f.exports_lines = (st.lineno, end)
        elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) \
                and st.target.id == "__all__" and not scope and self.f.exports is not None:
            vals = _literal_strings(st.value)
            if vals is not None:
                self.f.exports = self.f.exports + vals
                self.f.exports_lines = (self.f.exports_lines or (st.lineno, end))[0], end
        elif isinstance(st, (ast.Import, ast.ImportFrom)):
            for alias in st.names:
                if alias.name == "*":
                    continue
                bound = alias.asname or alias.name.split(".")[0]
                src_mod = ("." * getattr(st, "level", 0) + (getattr(st, "module", None) or "")) \
                    if isinstance(st, ast.ImportFrom) else alias.name
                target = f"{src_mod}.{alias.name}" if isinstance(st, ast.ImportFrom) else src_mod
                self.add(name=bound, kind="import", qual=scope + (bound,), start=st.lineno,
                         end=end, value=target)
        elif isinstance(st, ast.If) and not in_class:
            self.body(st.body, scope, in_class)
            self.body(st.orelse, scope, in_class)
        elif isinstance(st, ast.Try) and not in_class:
            self.body(st.body, scope, in_class)
            for h in st.handlers:
                self.body(h.body, scope, in_class)
            self.body(st.orelse, scope, in_class)
            self.body(st.finalbody, scope, in_class)
        elif isinstance(st, ast.Expr) and not scope and isinstance(st.value, ast.Call):
            # __all__.extend([...])
            c = st.value
            if (isinstance(c.func, ast.Attribute) and c.func.attr == "extend"
                    and isinstance(c.func.value, ast.Name) and c.func.value.id == "__all__"
                    and c.args and self.f.exports is not None):
                vals = _literal_strings(c.args[0])
                if vals is not None:
                    self.f.exports = self.f.exports + vals

    def init_attrs(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, scope: tuple[str, ...]) -> None:
        known = {s.qual for s in self.f.syms}
        for node in ast.walk(fn):
            targets: list[ast.expr] = []
            value = None
            if isinstance(node, ast.Assign):
                targets, value = list(node.targets), node.value
            elif isinstance(node, ast.AnnAssign):
                targets, value = [node.target], node.value
            for t in targets:
                if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                        and t.value.id == "self"):
                    q = scope + (t.attr,)
                    if q in known:
                        continue
                    known.add(q)
                    self.add(name=t.attr, kind="attribute", qual=q, start=node.lineno,
                             end=getattr(node, "end_lineno", node.lineno) or node.lineno,
                             value=_seg(self.src, value), origin="__init__")


def extract(path: str, data: bytes, blob: str | None = None) -> FileFacts:
    def build() -> FileFacts:
        src = data.decode("utf-8", errors="replace")
        facts = FileFacts(path=path, blob=blob, lang="python")
        try:
            tree = ast.parse(src, filename=path, type_comments=False)
        except SyntaxError as exc:
            facts.parse_errors = 1
            facts.syms = []
            _ = exc
            return facts
        _Walker(src, facts).body(tree.body, (), False)
        # class attributes declared later than __init__-assigned ones: keep source order
        facts.syms.sort(key=lambda s: (s.start, len(s.qual)))
        return facts

    return cached_facts(EXTRACTOR, path, blob, data, build)
