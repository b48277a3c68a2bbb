from __future__ import annotations

import ast
import sys

from verifier.lint.base import Rule
from verifier.lint.rules._judge import judge
from verifier.lint.shapes import ApiRef
from verifier.results import Severity

PY_LANGS = ("python", "py", "python3", "pycon")


def upstream_packages(ctx, upstreams) -> dict[str, str]:
    """Top-level import name -> upstream: packages the indexes define, the pinned
    wheels' top-level directories, and the `py<name>` binding convention (pydrake)."""
    out: dict[str, str] = {}
    for u in upstreams:
        up = ctx.upstream(u)
        out.setdefault(u, u)
        out.setdefault(f"py{u}", u)
        for w in up.wheel:
            for rule in w.map:
                top = rule.wheel.strip("/").split("/")[0]
                if top:
                    out.setdefault(top, u)
        for m in ctx.index(u).modules:
            out.setdefault(m.split(".")[0], u)
    return out


class CodeBlock(Rule):
    """Fenced ```python blocks must parse (Python's own parser), and what they import
    from a pinned upstream package (`from pydrake.systems.sensors import
    Accelerometer`, `import mujoco`) must exist in that package's API at the pin, as
    must attribute chains on an imported upstream module (`mujoco.mjtObj.mjOBJ_SENSOR`).
    Standard-library and third-party imports are not checked."""

    name = "codeblock"
    code = "VL106"

    def check(self, ctx, doc, lesson):
        out = []
        pkgs = None
        for block in lesson.code_blocks:
            if block.lang not in PY_LANGS:
                continue
            try:
                tree = ast.parse(block.text)
            except SyntaxError as exc:
                line = block.first_line + (exc.lineno or 1) - 1
                out.append(self.finding(doc, line, f"python block does not parse: {exc.msg} "
                                        f"(block line {exc.lineno})", target=block.lang,
                                        block_line=block.line))
                continue
            if pkgs is None:
                pkgs = upstream_packages(ctx, doc.upstreams)
            aliases: dict[str, tuple[str, ...]] = {}
            refs: list[tuple[int, ApiRef, str]] = []
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for a in node.names:
                        top = a.name.split(".")[0]
                        if top in pkgs and top not in sys.stdlib_module_names:
                            refs.append((node.lineno, _ref(a.name.split(".")), pkgs[top]))
                            aliases[a.asname or top] = tuple(
                                a.name.split(".") if a.asname else [top])
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    top = node.module.split(".")[0]
                    if top in pkgs and top not in sys.stdlib_module_names:
                        for a in node.names:
                            if a.name == "*":
                                continue
                            refs.append((node.lineno, _ref([*node.module.split("."), a.name]),
                                         pkgs[top]))
            inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and id(node) not in inner:
                    chain = _chain(node)
                    if chain and chain[0] in aliases and len(chain) >= 2:
                        full = [*aliases[chain[0]], *chain[1:]]
                        refs.append((node.lineno, _ref(full), pkgs[full[0]]))
            seen = set()
            for lineno, ref, up in refs:
                if (ref.dotted, lineno) in seen:
                    continue
                seen.add((ref.dotted, lineno))
                res = judge([ctx.index(up)], ref)
                line = block.first_line + lineno - 1
                if res.status == "unresolved":
                    out.append(self.finding(doc, line, f"`{ref.dotted}`: {res.how}",
                                            upstream=up, target=ref.dotted,
                                            suggestion=res.suggestion))
                elif res.status == "inconclusive":
                    out.append(self.unavailable(doc, line, up, ref.dotted, res.how))
                elif res.status != "resolved":   # e.g. not in the pinned release
                    out.append(self.finding(doc, line, f"`{ref.dotted}`: {res.how}",
                                            severity=Severity.WARNING, upstream=up,
                                            target=ref.dotted, status=res.status,
                                            suggestion=res.suggestion))
        return out


def _ref(segs) -> ApiRef:
    segs = tuple(segs)
    return ApiRef(raw=".".join(segs), segments=segs, calls=tuple(False for _ in segs))


def _chain(node: ast.Attribute) -> list[str] | None:
    """`a.b.c` of the outermost attribute node, or None when not a plain chain."""
    parts = []
    n = node
    while isinstance(n, ast.Attribute):
        parts.append(n.attr)
        n = n.value
    if not isinstance(n, ast.Name):
        return None
    parts.append(n.id)
    return list(reversed(parts))
