"""The fourth-engine example (examples/gymnasium, docs/engines.md): Gymnasium 1.3.0
configured by its own pins.toml only, served by its pinned wheel from PyPI (into the
session cache), four lessons written for it. Lint raises no error, the drafter proposes
claims beyond existence for at least 40 % of the checkable sentences, and the drafted
claims check `verified` (the lessons are correct at the pin; the one drafting mistake
docs/engines.md records is a member count, outside the signature/default claims the
fact model's generated constructors and fields decide)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "gymnasium"

pytestmark = [pytest.mark.wheels]


@pytest.fixture
def gym(tmp_path, monkeypatch, capsys):
    from verifier.cli.main import main

    root = tmp_path / "gymnasium"
    shutil.copytree(EXAMPLE, root)
    monkeypatch.chdir(root)
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel,objects")   # no git remote here

    def run(*argv):
        code = main(["--pins", "pins.toml", *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_the_gymnasium_example(gym):
    code, out, err = gym("sources", "--format", "json")
    if code != 0 or not out.strip():
        pytest.skip(f"gymnasium==1.3.0 could not be downloaded: {err[-300:]}")
    rows = json.loads(out)
    assert rows and {r["status"] for r in rows} == {"pinned"}, rows
    code, out, err = gym("lint", "--format", "json")
    assert [f for f in json.loads(out)["findings"] if f["severity"] == "error"] == []
    assert code == 0, err
    lessons = sorted(str(p) for p in Path("course/docs").glob("*.md"))
    code, out, err = gym("draft", *lessons, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    checkable = sum(d["candidates"] for d in doc["lessons"])
    beyond = 0
    for d in doc["lessons"]:
        units: dict = {}
        for p in d["proposals"]:
            units.setdefault(p.get("unit", p.get("line")), set()).add(p["kind"])
        beyond += sum(1 for kinds in units.values() if kinds - {"symbol", "runtime"})
    print(f"{beyond} of {checkable} checkable sentences drafted beyond existence")
    assert checkable >= 50 and beyond / checkable >= 0.40, (beyond, checkable)
    code, out, err = gym("draft", *lessons, "--write")
    assert code == 0, err
    code, out, err = gym("check", "--format", "json", "--runtime", "none")
    claims = json.loads(out)["claims"]
    static = [c for c in claims if c["kind"] != "runtime"]
    bad = [(c["id"], c["kind"], c["verdict"], c["message"]) for c in static
           if c["verdict"] != "verified"]
    assert [b for b in bad if b[1] in ("signature", "default")] == []
    assert len(static) >= 50 and len(bad) <= 0.05 * len(static), bad
