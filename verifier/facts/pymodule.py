"""Module-level Python constructs that bind names without a plain definition
(called by `facts/python.py` once a module is walked):

- **lazy re-exports**: a module `__getattr__(name)` that serves names on first
  access (PEP 562). The names it serves are read from its tests of the parameter —
  `name == "X"`, `name in ("X", "Y")`, `name in _NAMES` or `_LAZY[name]` /
  `_LAZY.get(name)` over a module-level literal list, tuple, set or dict — and
  bound as `import` symbols with origin `lazy` (trait `lazy`); where the branch
  imports the name (`from ._impl import X`), that is its target, and an `Import`
  record says so (lint's module surface follows it like any re-export);
- **functional class forms**: `P = namedtuple("P", ["x", "y"], defaults=[0])`,
  `P = NamedTuple("P", [("x", int), ("y", float)])`: a class with its fields and its
  generated constructor, as the class form gives.

Anything computed (names built at run time) is not guessed: the runtime inspector
(`facts/introspect.py`) sees it, and the consistency suite lists it as a construct
the producers legitimately differ on.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from verifier.facts.model import POSITIONAL_OR_KEYWORD, Import, Param

if TYPE_CHECKING:
    from verifier.facts.python import _Walker


def _strings(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return out if len(out) == len(node.elts) else None
    if isinstance(node, ast.Dict):
        keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        return keys if len(keys) == len(node.keys) else None
    return None


def _module_literals(tree: ast.Module) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            out[st.targets[0].id] = st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value:
            out[st.target.id] = st.value
    return out


def lazy_exports(tree: ast.Module, w: "_Walker") -> None:
    fn = next((st for st in tree.body if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
               and st.name == "__getattr__"), None)
    if fn is None or not (fn.args.posonlyargs + fn.args.args):
        return
    param = (fn.args.posonlyargs + fn.args.args)[0].arg
    literals = _module_literals(tree)
    found: dict[str, tuple[int, tuple[str, str | None, int] | None]] = {}

    def names_of(test: ast.expr) -> list[tuple[str, int]]:
        out = []
        for node in ast.walk(test):
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and \
                    node.left.id == param and len(node.ops) == 1:
                c = node.comparators[0]
                if isinstance(node.ops[0], ast.Eq) and isinstance(c, ast.Constant) and \
                        isinstance(c.value, str):
                    out.append((c.value, node.lineno))
                elif isinstance(node.ops[0], ast.In):
                    vals = _strings(c) if not isinstance(c, ast.Name) else \
                        _strings(literals.get(c.id))
                    target = c if not isinstance(c, ast.Name) else literals.get(c.id)
                    out += [(v, getattr(target, "lineno", node.lineno)) for v in vals or ()]
        return out

    def visit(stmts: list[ast.stmt], current: list[tuple[str, int]]) -> None:
        for st in stmts:
            if isinstance(st, ast.If):
                here = names_of(st.test)
                visit(st.body, here or current)
                visit(st.orelse, current)
                continue
            if isinstance(st, ast.ImportFrom):
                for a in st.names:
                    bound = a.asname or a.name
                    for n, line in current or [(bound, st.lineno)]:
                        if n == bound and (n not in found or found[n][1] is None):
                            found[n] = (st.lineno, (st.module or "", a.name, st.level or 0))
            for node in ast.walk(st):
                if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                        isinstance(node.slice, ast.Name) and node.slice.id == param:
                    for v in _strings(literals.get(node.value.id)) or ():
                        found.setdefault(v, (getattr(literals[node.value.id], "lineno", st.lineno),
                                             None))
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                        node.func.attr == "get" and isinstance(node.func.value, ast.Name) and \
                        node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == param:
                    for v in _strings(literals.get(node.func.value.id)) or ():
                        found.setdefault(v, (getattr(literals[node.func.value.id], "lineno",
                                                     st.lineno), None))
            for inner in ("body", "orelse", "finalbody"):
                if not isinstance(st, ast.If) and isinstance(getattr(st, inner, None), list):
                    visit(getattr(st, inner), current)
            for n, line in current:
                found.setdefault(n, (line, None))

    visit(fn.body, [])
    top = {s.qual for s in w.syms if len(s.qual) == 1}
    for name, (line, target) in sorted(found.items(), key=lambda x: (x[1][0], x[0])):
        if not name.isidentifier() or (name,) in top:
            continue
        value = None
        if target is not None:
            mod, attr, level = target
            value = "." * level + (f"{mod}.{attr}" if mod else attr)
            w.imports.append(Import(name, mod, attr, level, line))
        w.add(name=name, kind="import", qual=(name,), start=line, end=line, value=value,
              origin="lazy", traits=("lazy",))


# --------------------------------------------------------------------------- functional forms


def functional_class(st: ast.Assign, w: "_Walker", scope: tuple[str, ...]) -> bool:
    """`P = namedtuple("P", "x y")` / `NamedTuple("P", [("x", int)])`: True when bound."""
    from verifier.facts.pyclass import full_name, import_map

    if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name) or \
            not isinstance(st.value, ast.Call) or len(st.value.args) < 2:
        return False
    call = st.value
    callee = full_name(call.func, import_map(w)).split(".")[-1]
    if callee not in ("namedtuple", "NamedTuple"):
        return False
    spec = call.args[1]
    fields: list[tuple[str, str | None]] = []
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        fields = [(n, None) for n in spec.value.replace(",", " ").split()]
    elif isinstance(spec, (ast.List, ast.Tuple)):
        for e in spec.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                fields.append((e.value, None))
            elif isinstance(e, ast.Tuple) and len(e.elts) == 2 and \
                    isinstance(e.elts[0], ast.Constant) and isinstance(e.elts[0].value, str):
                fields.append((e.elts[0].value, w.seg(e.elts[1])))
            else:
                return False
    else:
        return False
    if not all(n.isidentifier() for n, _ in fields):
        return False
    defaults: list[str | None] = []
    d = next((k.value for k in call.keywords if k.arg == "defaults"), None)
    if isinstance(d, (ast.List, ast.Tuple)):
        defaults = [w.seg(e) for e in d.elts]
    elif d is not None:
        return False
    pad = [None] * (len(fields) - len(defaults)) + defaults
    name = st.targets[0].id
    q = scope + (name,)
    end = getattr(st, "end_lineno", st.lineno) or st.lineno
    params = tuple(Param(n, dv, t, POSITIONAL_OR_KEYWORD, st.lineno)
                   for (n, t), dv in zip(fields, pad, strict=True))
    w.add(name=name, kind="class", qual=q, start=st.lineno, end=end, traits=("namedtuple",),
          value=callee)
    w.add(name="__init__", kind="method", qual=q + ("__init__",), start=st.lineno, end=end,
          params=params, origin="generated", sig_end=end, traits=("generated", "namedtuple"))
    for p in params:
        w.add(name=p.name, kind="field", qual=q + (p.name,), start=st.lineno, end=end,
              value=p.default, params=(p,))
    return True
