"""`scripts/check-architecture`: passes on the tree, fails on a back-edge, a cycle
(module-level or function-local), an oversized module, an unplaced module and a stale
allowance."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check-architecture"

CONFIG = """
max_lines = 20
stages = [
  { name = "base",  modules = ["pkg", "pkg.base"] },
  { name = "facts", modules = ["pkg.facts.*"] },
  { name = "cli",   modules = ["pkg.cli"] },
]
allow = [%s]
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_the_tree_passes():
    r = run()
    assert r.returncode == 0, r.stdout + r.stderr


def _tree(tmp_path: Path, files: dict[str, str], allow: str = "") -> list[str]:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", "base.py": "X = 1\n", "facts/__init__.py": "",
                      "facts/a.py": "from pkg.base import X\n", "cli.py": "import pkg.facts.a\n",
                      **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    (tmp_path / "arch.toml").write_text(CONFIG % allow)
    r = run("--root", str(root), "--config", str(tmp_path / "arch.toml"))
    assert r.returncode in (0, 1), r.stderr
    return r.stdout.splitlines()


def test_a_clean_fixture_passes(tmp_path):
    assert _tree(tmp_path, {}) == []


@pytest.mark.parametrize("text", [
    "from pkg.cli import main\n",
    "def f():\n    from pkg import cli\n",
    "import pkg.facts.a\n",
])
def test_back_edge_fails(tmp_path, text):
    out = _tree(tmp_path, {"base.py": "X = 1\n" + text})
    assert any("back-edge: pkg.base (base) imports" in ln for ln in out), out


def test_type_checking_import_is_not_a_back_edge(tmp_path):
    text = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.cli import main\n"
    assert _tree(tmp_path, {"base.py": "X = 1\n" + text}) == []


@pytest.mark.parametrize("where", ["module", "function"])
def test_cycle_fails(tmp_path, where):
    imp = "from pkg.facts import a\n" if where == "module" else \
        "def g():\n    from pkg.facts import a\n"
    out = _tree(tmp_path, {"facts/b.py": imp, "facts/a.py": "def f():\n    from . import b\n"})
    assert "import cycle: pkg.facts.a -> pkg.facts.b -> pkg.facts.a" in out, out


def test_allowed_cycle_passes_and_a_stale_allowance_fails(tmp_path):
    cyc = {"facts/b.py": "from pkg.facts import a\n", "facts/a.py": "from . import b\n"}
    allow = '{ kind = "cycle", modules = ["pkg.facts.b", "pkg.facts.a"] }'
    assert _tree(tmp_path, cyc, allow) == []
    out = _tree(tmp_path / "2", {}, allow)
    assert len(out) == 1 and "matches nothing" in out[0]


def test_allowed_oversized_module_passes(tmp_path):
    allow = '{ kind = "size", modules = ["pkg.facts.big"] }'
    assert _tree(tmp_path, {"facts/big.py": "x = 1\n" * 21}, allow) == []


def test_oversized_and_unplaced_modules_fail(tmp_path):
    out = _tree(tmp_path, {"facts/big.py": "x = 1\n" * 21, "other.py": ""})
    assert any("facts/big.py: 21 lines (more than 20)" in ln for ln in out), out
    assert any("module pkg.other is in no stage" in ln for ln in out), out
