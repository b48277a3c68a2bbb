"""A fourth engine is a pins.toml entry (README "Add an engine"): a new upstream,
pure Python, served whole by its wheel from a package index, and a course about it —
configured with pins.toml lines and `verifier lock --import` of the course's manifest
only, no code change — then `lint`, `draft` and `check` work on it as on the engines
pinned today.

The upstream is our own fixture package (tests/fixtures/engine/upstream: `gearbox`, a
dataclass options class, an enum, a NamedTuple, a simulator whose `build()` sets its
state, a lazy re-export), committed to a throwaway git repository (for the commit and
the blobs a course manifest would list) and built into a wheel on a local package
index (a directory of static files, PEP 503). GitHub is not reachable in tests, as on
a machine without it: the wheel serves every cited file, pinned by the imported lock."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers_upstream import make_git_repo, make_index, make_wheel

FIX = Path(__file__).resolve().parent / "fixtures" / "engine"
PINS = """schema = 1

[upstream.gearbox]
repo = "https://github.com/acme/gearbox"
commit = "{commit}"
version = "0.3.0"
languages = ["python"]

[[upstream.gearbox.wheel]]
requirement = "gearbox==0.3.0"
map = [{{ wheel = "gearbox/", repo = "gearbox/" }}]

[course.gearbox-atlas]
repo = "https://github.com/acme/gearbox-atlas"
commit = "{course_commit}"
path = "course/gearbox-atlas"
docs = "docs"
upstreams = ["gearbox"]
"""


@pytest.fixture
def cli(capsys):
    """`verifier ...` in-process: (exit code, stdout, stderr)."""
    from verifier.cli.main import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def engine(tmp_path, monkeypatch, cli):
    files = {p.relative_to(FIX / "upstream").as_posix(): p.read_text()
             for p in sorted((FIX / "upstream").rglob("*.py"))}
    repo = make_git_repo(tmp_path / "gearbox-src", files)
    whl = make_wheel(tmp_path / "dist", "gearbox", "0.3.0", files)
    monkeypatch.setenv("VERIFIER_INDEX_URL", make_index(tmp_path / "index", [whl]))
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    # no git remote is reachable here (GitHub is not): the wheel serves the files
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    root = tmp_path / "proj"
    course = root / "course" / "gearbox-atlas"
    shutil.copytree(FIX / "course" / "gearbox-atlas", course)
    for lesson in (course / "docs").glob("*.md"):
        lesson.write_text(lesson.read_text().replace("{COMMIT}", repo.head))
    # the course's blob manifest, as course repositories publish it (docs/sources.json)
    (course / "docs" / "sources.json").write_text(json.dumps({
        "upstream": "acme/gearbox", "commit": repo.head,
        "files": [{"path": p, "git_blob": repo.blob(p)} for p in sorted(files)]}))
    (root / "pins.toml").write_text(PINS.format(commit=repo.head, course_commit="0" * 40))
    monkeypatch.chdir(root)
    code, out, err = cli("lock", "--import", "course/gearbox-atlas/docs/sources.json")
    assert code == 0, err
    return root, repo


def test_a_fourth_engine_needs_only_pins_and_the_lock(engine, cli):
    root, repo = engine
    code, out, err = cli("sources", "--format", "json", "--all")
    assert code == 0, err
    rows = {r["path"]: r for r in json.loads(out) if r["upstream"] == "gearbox"}
    assert {"gearbox/options.py", "gearbox/sim.py"} <= set(rows)
    assert {r["status"] for r in rows.values()} == {"pinned"}, rows     # blob-identical
    assert {r["provider"] for r in rows.values()} <= {"wheel", "cache"}   # wheel, then cached

    code, out, err = cli("lint", "--format", "json")
    findings = json.loads(out)["findings"]
    assert [f for f in findings if f["severity"] == "error"] == [], findings
    assert code == 0, err

    lesson = "course/gearbox-atlas/docs/stepping.md"
    code, out, err = cli("draft", lesson, "--format", "json")
    assert code == 0, err
    drafted = json.loads(out)
    props = [p for d in drafted["lessons"] for p in d["proposals"]]
    (only,) = drafted["lessons"]
    print(f"candidates {only['candidates']}, drafted {only['drafted']} "
          f"(static {only['drafted_static']}); " +
          ", ".join(f"{p['kind']}:{p.get('symbol')}={p['expected']!r}" for p in props))
    kinds = {p["kind"] for p in props}
    assert {"default", "members", "signature"} <= kinds, kinds
    # the generated constructor and the attributes `build()` sets are grounded
    assert any(p["kind"] == "default" and p.get("symbol") == "SimOptions.substeps"
               and p["expected"] == 4 for p in props), props
    code, out, err = cli("draft", lesson, "--write")
    assert code == 0, err
    code, out, err = cli("check", "--format", "json", "--runtime", "none")
    results = json.loads(out)["claims"]
    assert results and {r["verdict"] for r in results} == {"verified"}, [
        (r["id"], r["verdict"], r["message"]) for r in results if r["verdict"] != "verified"]
    assert code == 0, err


def test_a_wrong_sentence_and_a_misspelt_name_are_caught(engine, cli):
    root, _ = engine
    lesson = root / "course/gearbox-atlas/docs/stepping.md"
    text = lesson.read_text()
    lesson.write_text(text.replace("| `substeps` | 4 |", "| `substeps` | 8 |")
                      .replace("`gb.Simulator` 的", "`gb.Simulater` 的"))
    code, out, err = cli("lint", "--format", "json")
    errors = [f for f in json.loads(out)["findings"] if f["severity"] == "error"]
    assert code == 1 and len(errors) == 1 and "Simulater" in errors[0]["message"], errors
    code, out, err = cli("draft", "course/gearbox-atlas/docs/stepping.md", "--write")
    assert code == 0, err
    code, out, err = cli("check", "--format", "json", "--runtime", "none")
    bad = [r for r in json.loads(out)["claims"] if r["verdict"] != "verified"]
    assert [(r["verdict"], r["expected"], r["actual"]) for r in bad] == [("diverged", 8, "4")], bad
