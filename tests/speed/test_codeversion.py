"""Cache keys follow the code: `code_version` is the import closure's digest, and its
line scanner agrees with a real parse of every module of the package."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from verifier import codeversion
from verifier.codeversion import PKG, closure, code_version, scan_imports


def _ast_imports(root: Path, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "verifier")
        elif isinstance(node, ast.ImportFrom):
            base = codeversion._resolve(root, path, "." * node.level + (node.module or ""))
            if base.split(".")[0] != "verifier":
                continue
            out.add(base)
            for a in node.names:
                if codeversion._module_file(str(root), f"{base}.{a.name}") is not None:
                    out.add(f"{base}.{a.name}")
    return out


@pytest.mark.parametrize("path", sorted(PKG.rglob("*.py")), ids=lambda p: str(p.relative_to(PKG)))
def test_scanner_finds_exactly_the_imports_a_parse_finds(path):
    assert scan_imports(PKG, path, path.read_text(encoding="utf-8")) == _ast_imports(PKG, path)


def test_scanner_forms():
    f = PKG / "facts" / "flow" / "reach.py"
    text = ('"""from verifier.lint import x (a docstring)"""\n'
            "from . import calls\nfrom ..cache import FactCache\n"
            "from verifier.facts import (\n    treesitter,  # comment\n    model as m,\n)\n"
            "import verifier.textlines as tl, os\n"
            "if TYPE_CHECKING:\n    from verifier.project import Project\n\n"
            "def f():\n    from verifier.claims import memo\n")
    got = scan_imports(PKG, f, text)
    assert got == {"verifier.facts.flow", "verifier.facts.flow.calls", "verifier.facts.cache",
                   "verifier.facts", "verifier.facts.treesitter", "verifier.facts.model",
                   "verifier.textlines", "verifier.claims", "verifier.claims.memo"}


def test_closure_reaches_what_the_old_hand_lists_missed():
    sym = closure("verifier.facts.symbols")
    assert {"facts/treesitter.py", "facts/parallel.py", "facts/__init__.py",
            "__init__.py"} <= set(sym)
    assert any(p.endswith("_defs.scm") for p in sym)    # the queries the extractors load
    assert "textlines.py" in closure("verifier.claims.kinds.text")
    assert "project.py" not in closure("verifier.facts.flow")     # TYPE_CHECKING only


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "verifier"
    shutil.copytree(PKG, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _edit(path: Path) -> None:
    path.write_text(path.read_text() + "\n# an edit\n")


def test_editing_treesitter_changes_the_symbol_index_key(tmp_path):
    root = _copy(tmp_path)
    before = code_version("verifier.facts.symbols", root=root)
    assert before == code_version("verifier.facts.symbols", root=PKG)
    flow_before = code_version("verifier.facts.flow", root=root)
    _edit(root / "facts" / "treesitter.py")
    codeversion.clear()
    assert code_version("verifier.facts.symbols", root=root) != before
    assert code_version("verifier.facts.flow", root=root) != flow_before
    codeversion.clear()


def test_editing_textlines_changes_the_text_kind_key_and_not_unrelated_ones(tmp_path):
    root = _copy(tmp_path)
    text = code_version("verifier.claims.kinds.text", root=root)
    flow = code_version("verifier.facts.flow", root=root)
    _edit(root / "textlines.py")
    codeversion.clear()
    assert code_version("verifier.claims.kinds.text", root=root) != text
    assert code_version("verifier.facts.flow", root=root) == flow
    codeversion.clear()


def test_editing_a_query_file_changes_the_key(tmp_path):
    root = _copy(tmp_path)
    v = code_version("verifier.facts.symbols", root=root)
    q = sorted((root / "facts" / "queries").glob("*_defs.scm"))[0]
    _edit(q)
    codeversion.clear()
    assert code_version("verifier.facts.symbols", root=root) != v
    codeversion.clear()


def test_unknown_module_is_refused():
    with pytest.raises(ValueError):
        code_version("verifier.nope")


def test_the_import_scans_are_kept_and_follow_the_package(tmp_path, monkeypatch):
    """`attach`: the package's import scans come from the fact cache (no file scanned
    on a hit, the same closure and version as scanning), and an edit anywhere in the
    package scans it again, so a new import is followed."""
    from verifier.cache import Store
    from verifier.facts.cache import FactCache

    root = _copy(tmp_path)
    fc = FactCache(Store(tmp_path / "cache"))
    codeversion.clear()
    scanned = code_version("verifier.facts.symbols", root=root)
    codeversion.clear()
    codeversion.attach(fc, root)                  # a miss: everything scanned and stored
    assert fc.stats.writes == 1
    assert code_version("verifier.facts.symbols", root=root) == scanned
    codeversion.clear()

    def no_scan(*a, **k):
        raise AssertionError("a file was scanned although its scan is kept")

    monkeypatch.setattr(codeversion, "scan_imports", no_scan)
    codeversion.attach(fc, root)                  # a hit
    assert fc.stats.hits == 1
    assert code_version("verifier.facts.symbols", root=root) == scanned
    assert "report_builder.py" not in closure("verifier.facts.symbols", root=root)
    monkeypatch.undo()
    sym = root / "facts" / "symbols.py"
    sym.write_text(sym.read_text() + "\n\ndef _later():\n    from verifier import report_builder\n")
    codeversion.clear()
    codeversion.attach(fc, root)                  # the package changed: scanned again
    assert fc.stats.writes == 2
    assert "report_builder.py" in closure("verifier.facts.symbols", root=root)
    assert code_version("verifier.facts.symbols", root=root) != scanned
    codeversion.clear()


def test_an_unreadable_package_does_not_stop_the_fact_cache(tmp_path, monkeypatch):
    """`attach` failing (a package file that cannot be read) leaves the scans to be
    done as needed; the fact cache still opens."""
    from verifier.cache import Store
    from verifier.facts.cache import fact_cache

    def unreadable(*a, **k):
        raise PermissionError("a package file cannot be read")

    monkeypatch.setattr(codeversion, "attach", unreadable)
    fc = fact_cache(Store(tmp_path / "cache"))
    assert fc.enabled and code_version("verifier.facts.symbols")
