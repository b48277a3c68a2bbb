"""The registries of claim kinds, lint rules and output formats are the single source of
truth: everything else (CLI choices, verify's formats, rule and kind codes in reports,
the generated docs, `verifier rules`) is derived from them, and these tests fail when
a module is not registered, a code is taken twice, docs are missing or stale, or a
format lacks its suffix."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import verifier.lint.rules  # noqa: F401 - registers every rule, as a run does (the module alone)
from tests.conftest import REPO
from verifier.claims.kinds import REGISTRY as KINDS
from verifier.claims.kinds.base import ClaimKind
from verifier.docgen import doc_problems, is_builtin, stale_docs
from verifier.lint.base import RULE_REGISTRY, Rule
from verifier.registry import Registry, RegistryError
from verifier.reporters import FORMATS, REGISTRY as REPORTERS, SUFFIX, VERIFY_FORMATS

PKG = REPO / "verifier"


def _modules(folder: Path) -> set[str]:
    return {p.stem for p in folder.glob("*.py") if not p.stem.startswith("_")}


def _imported(init: Path, package: str) -> set[str]:
    text = init.read_text()
    return set(re.findall(rf"^from {re.escape(package)} import (\w+)", text, re.M)) | {
        name.strip() for line in re.findall(rf"^from {re.escape(package)} import ([\w, ]+)$",
                                            text, re.M) for name in line.split(",")}


# ------------------------------------------------------------------- the registry helper

def test_registry_refuses_a_second_name_or_code():
    r: Registry[int] = Registry("thing")
    r.register("a", 1, "X101")
    with pytest.raises(RegistryError, match="registered twice"):
        r.register("a", 2, "X102")
    with pytest.raises(RegistryError, match="code X101 is already taken by 'a'"):
        r.register("b", 3, "X101")
    assert r.pop("a") == 1 and "a" not in r and r.by_code("X101") is None
    r.register("b", 3, "X101")  # free again
    assert "did you mean 'b'?" in r.unknown("bb")


def test_a_kind_with_a_taken_code_is_refused():
    with pytest.raises(RegistryError, match="VC101 is already taken by 'symbol'"):
        class _Dup(ClaimKind):
            name = "test-dup-code"
            code = "VC101"
    assert "test-dup-code" not in KINDS


def test_a_rule_with_a_taken_code_is_refused():
    with pytest.raises(RegistryError, match="VL101 is already taken by 'permalink-pin'"):
        class _Dup(Rule):
            name = "test-dup-rule"
            code = "VL101"
    assert "test-dup-rule" not in RULE_REGISTRY


# ------------------------------------------------------------------- claim kinds

def test_every_kind_module_is_registered():
    mods = _modules(PKG / "claims" / "kinds") - {"base"}
    assert mods <= _imported(PKG / "claims" / "kinds" / "__init__.py", "verifier.claims.kinds"), (
        "import every kind module in verifier/claims/kinds/__init__.py")
    registered = {KINDS[n].__module__.rsplit(".", 1)[-1] for n in KINDS if is_builtin(KINDS[n])}
    assert mods == registered, "every module under claims/kinds/ defines a registered kind"


def test_kind_codes_are_unique_and_sequential():
    codes = sorted(KINDS[n].code for n in KINDS if is_builtin(KINDS[n]))
    assert all(re.fullmatch(r"VC1\d\d", c) for c in codes)
    assert codes == [f"VC{101 + i}" for i in range(len(codes))], "take the next free code"


def test_every_kind_has_its_doc_headings():
    problems = [p for n in KINDS if is_builtin(KINDS[n]) for p in doc_problems(KINDS[n])]
    assert problems == []


def test_the_doc_check_catches_a_missing_heading():
    class _Undocumented(ClaimKind):
        """Summary.

        ## What it checks
        Something.
        """
        name = "test-undocumented"
        code = "VC998"

    try:
        problems = doc_problems(_Undocumented)
    finally:
        KINDS.pop("test-undocumented")
    assert any("'## Why it matters'" in p for p in problems)
    assert any("```toml" in p for p in problems)


# ------------------------------------------------------------------- lint rules

def test_every_rule_module_is_registered():
    mods = _modules(PKG / "lint" / "rules")
    assert mods <= _imported(PKG / "lint" / "rules" / "__init__.py", "verifier.lint.rules")
    registered = {RULE_REGISTRY[n].__module__.rsplit(".", 1)[-1] for n in RULE_REGISTRY}
    assert mods == registered


def test_rule_codes_are_unique_and_sequential_and_documented():
    from verifier.lint import rule_table

    rows = rule_table()
    codes = [r["code"] for r in rows]
    assert sorted(codes) == [f"VL{101 + i}" for i in range(len(codes))]
    for r in rows:
        assert len(r["doc"]) > 40, f"{r['code']} {r['name']} needs a docstring"
        assert r["severity"] in ("error", "warning", "info", "info / error"), r


def test_the_rule_catalog_equals_the_registry():
    """`verifier rules` reads the rules from source (fast start); it must say the same."""
    from verifier.lint import rule_table
    from verifier.lint_catalog import rule_catalog

    assert rule_catalog() == rule_table()


def test_meta_rules_are_flagged():
    from verifier.lint import ALL_RULES

    assert [r.code for r in ALL_RULES] == sorted(r.code for r in ALL_RULES)
    assert {r.name for r in ALL_RULES if r.meta} == {"suppression-unused", "source-unavailable"}


# ------------------------------------------------------------------- output formats

def test_every_reporter_module_is_registered_with_a_suffix():
    from verifier.reporters import reporter

    mods = _modules(PKG / "reporters") - {"rules", "html_markup"}   # helpers of the reporters
    assert mods == {REPORTERS[n].module for n in REPORTERS}
    for name in REPORTERS:
        mod = reporter(name)   # imports it and checks its constants against its row
        assert mod.NAME == name
        assert re.fullmatch(r"\.[a-z]+", mod.SUFFIX), (name, "needs SUFFIX = '.ext'")
        assert isinstance(mod.IN_VERIFY, bool) and callable(mod.render)
    assert set(SUFFIX) == set(FORMATS) and set(VERIFY_FORMATS) <= set(FORMATS)


def test_a_reporter_whose_constants_differ_from_its_row_is_refused(monkeypatch):
    import verifier.reporters as reporters
    from verifier.registry import RegistryError

    row = reporters.REGISTRY["junit"]
    monkeypatch.setitem(reporters.REGISTRY._entries, "junit", row._replace(suffix=".junit"))
    with pytest.raises(RegistryError, match="SUFFIX"):
        reporters.reporter("junit")


def test_parsing_options_imports_no_reporter():
    code = ("import sys; from verifier.cli.main import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.startswith('verifier.reporters.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_cli_format_choices_come_from_the_registry():
    from verifier.cli import check_cmd, lint_cmd

    for mod in (check_cmd, lint_cmd):
        assert mod.formats() == ["text", "json", *(f for f in FORMATS if f != "json")]


def test_runtime_modes_are_the_sampling_modes():
    from verifier.pipeline import RUNTIME_MODES
    from verifier.runtime.sampling import MODES

    assert RUNTIME_MODES == MODES


# ------------------------------------------------------------------- generated docs

def test_generated_docs_are_current():
    stale = [p.relative_to(REPO).as_posix() for p in stale_docs(REPO)]
    assert stale == [], "regenerate with: verifier docs --write"


def test_docs_check_command_reports_stale_files(tmp_path, capsys):
    import shutil

    from verifier.cli.main import main

    shutil.copytree(REPO / "docs", tmp_path / "docs")
    (tmp_path / "docs" / "claims" / "enum.md").write_text("# hand-edited\n")
    assert main(["docs", "--check", "--root", str(tmp_path)]) == 1
    assert "docs/claims/enum.md" in capsys.readouterr().out
    assert main(["docs", "--write", "--root", str(tmp_path)]) == 0
    assert main(["docs", "--check", "--root", str(tmp_path)]) == 0


# ------------------------------------------------------------------- start-up

def test_help_and_rules_import_no_heavy_module():
    """`verifier --help` and `verifier rules` start fast: no pydantic, rich or stage."""
    code = ("import sys\nfrom verifier.cli.main import main\n"
            "for argv in (['--help'], ['rules'], ['rules', '--format', 'json']):\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('pydantic', 'rich', 'markdown_it', 'git', 'tree_sitter') or m in "
            "('verifier.project', 'verifier.lint', 'verifier.report'))\n"
            "print('HEAVY', heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True).stdout
    assert out.strip().splitlines()[-1] == "HEAVY []"


def test_rules_json_is_the_catalog():
    out = subprocess.run([sys.executable, "-m", "verifier", "rules", "--format", "json"],
                         capture_output=True, text=True, cwd=REPO, check=True).stdout
    from verifier.lint import rule_table

    assert json.loads(out) == rule_table()


def test_every_command_module_is_light_at_import():
    from verifier.cli.main import COMMANDS

    code = ("import sys, importlib\n"
            f"for m in {sorted(COMMANDS.values())!r}:\n    importlib.import_module(m)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'rich')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True).stdout
    assert out.strip() == "[]"
    for mod in COMMANDS.values():
        m = importlib.import_module(mod)
        assert m.HELP and callable(m.add_arguments) and callable(m.run), mod
