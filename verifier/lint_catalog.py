"""The lint rules' codes, names, severities and docs, read from the rule modules'
source (Python's `ast`) without importing them.

`verifier rules` uses this so it starts in well under 150 ms: importing the rules
(or anything in `verifier.lint`) pulls in the lesson parser, pydantic and the symbol
index; that is also why this module is not inside the `verifier.lint` package. The registry stays the
single source of truth: `tests/test_registries.py` checks that this catalog equals
`verifier.lint.rule_table()`, which is built from the imported `RULE_REGISTRY`.
Convention it relies on (the same the registry needs): each rule is a class in a
module imported by `verifier/lint/rules/__init__.py`, with literal `name`, `code`
(and optionally `severity`, `meta`) class attributes and a docstring.
"""

from __future__ import annotations

import ast
from pathlib import Path

RULES_DIR = Path(__file__).resolve().parent / "lint" / "rules"
PACKAGE = "verifier.lint.rules"


def _modules() -> list[str]:
    tree = ast.parse((RULES_DIR / "__init__.py").read_text(encoding="utf-8"))
    return [alias.name for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module == PACKAGE
            for alias in node.names]


def _constants(cls: ast.ClassDef) -> dict[str, object]:
    out: dict[str, object] = {}
    for stmt in cls.body:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Constant)):
            out[stmt.targets[0].id] = stmt.value.value
    return out


def rule_catalog() -> list[dict]:
    """[{code, name, severity, doc}] of every registered rule, in code order."""
    rows = []
    for mod in _modules():
        tree = ast.parse((RULES_DIR / f"{mod}.py").read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            attrs = _constants(node)
            if not isinstance(attrs.get("name"), str) or not isinstance(attrs.get("code"), str):
                continue
            rows.append({"code": attrs["code"], "name": attrs["name"],
                         "severity": str(attrs.get("severity", "error")),
                         "doc": " ".join((ast.get_docstring(node) or "").split()),
                         "meta": bool(attrs.get("meta", False))})
    rows.sort(key=lambda r: (r["code"], r["name"]))   # code order, as rule_table()
    return [{k: v for k, v in r.items() if k != "meta"} for r in rows]
