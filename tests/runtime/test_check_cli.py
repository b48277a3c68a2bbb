"""`verifier check --runtime ...` end to end on a fixture project (stand-in environment:
the interpreter running the tests, so no network): the JSON interface of the issue."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pydantic
import pytest

import verifier.runtime as rt
from verifier.cli.main import main
from verifier.runtime.envs import EnvInfo

LESSON = """# Demo lesson

The encoder maps minus one tenth of a radian to minus a quarter turn.
Its default gain is exactly two.
"""

CLAIMS = """lesson = "docs/demo.md"
upstream = "alpha"

[[claim]]
id = "quarter-turn"
fragment = "minus a quarter turn"
kind = "runtime"

[claim.runtime]
code = '''
import math
result = (2 * math.pi / 4) * math.floor(4 * -0.1 / (2 * math.pi))
'''
expected = -1.5707963267948966

[[claim]]
id = "gain-two"
fragment = "default gain is exactly two"
kind = "runtime"

[claim.runtime]
setup = "gain = lambda: 2.5"
code = "result = gain()"
expected = 2
"""


@pytest.fixture
def project_dir(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / "course" / "docs").mkdir(parents=True)
    (root / "course" / "docs" / "demo.md").write_text(LESSON, encoding="utf-8")
    (root / "claims" / "course").mkdir(parents=True)
    (root / "claims" / "course" / "demo.toml").write_text(CLAIMS, encoding="utf-8")
    (root / "pins.toml").write_text(f"""schema = 1

[upstream.alpha]
repo = "https://github.com/o/alpha"
commit = "{'c' * 40}"
version = "1.0.0"
runtime = ["pydantic=={pydantic.VERSION}"]

[course.course]
path = "course"
upstreams = ["alpha"]
""", encoding="utf-8")

    def create_env(store, spec, **kw):
        return EnvInfo(spec, Path(sys.prefix), "ready", {"key": spec.key})
    monkeypatch.setattr(rt, "create_env", create_env)
    return root


def test_check_runtime_all_json(project_dir, capsys):
    code = main(["check", "--pins", str(project_dir / "pins.toml"), "--cache",
                 str(project_dir / "cache"), "--runtime", "all", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    claims = {c["id"].rsplit("/", 1)[-1]: c for c in doc["claims"]}
    q, g = claims["quarter-turn"], claims["gain-two"]
    assert q["runtime"]["status"] == "confirmed" and q["verdict"] == "verified"
    assert q["runtime"]["expected"] == pytest.approx(-1.5707963267948966)
    assert isinstance(q["runtime"]["duration_s"], float)
    assert g["runtime"]["status"] == "refuted" and g["verdict"] == "diverged"
    assert g["runtime"]["value"] == 2.5 and g["runtime"]["expected"] == 2
    assert doc["runtime"]["mode"] == "all" and doc["runtime"]["sampled"] == 2
    assert code == 1                      # a refuted claim is a finding


def test_check_runtime_sample_records_choice(project_dir, capsys):
    main(["check", "--pins", str(project_dir / "pins.toml"), "--cache",
          str(project_dir / "cache"), "--runtime", "sample", "--sample", "1", "--seed", "3",
          "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    statuses = sorted(c["runtime"]["status"] for c in doc["claims"])
    assert statuses.count("skipped") == 1 and len(statuses) == 2
    rec = doc["runtime"]
    assert rec["sample"] == {"count": 1} and rec["seed"] == 3
    assert [e["sampled"] for e in rec["checks"]].count(True) == 1


def test_check_without_runtime_leaves_runtime_out(project_dir, capsys):
    main(["check", "--pins", str(project_dir / "pins.toml"), "--cache",
          str(project_dir / "cache"), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert all(c["runtime"] is None and c["verdict"] == "unavailable" for c in doc["claims"])


def test_stale_runtime_only_claim_stays_stale_under_runtime_all_issue_16(project_dir, capsys):
    lesson = project_dir / "course" / "docs" / "demo.md"
    lesson.write_text(LESSON.replace("minus a quarter turn", "a reworded ending"), encoding="utf-8")
    code = main(["check", "--pins", str(project_dir / "pins.toml"), "--cache",
                 str(project_dir / "cache"), "--runtime", "all", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    q = {c["id"].rsplit("/", 1)[-1]: c for c in doc["claims"]}["quarter-turn"]
    assert q["runtime"]["status"] == "confirmed"
    assert q["verdict"] == "stale" and code == 1


@pytest.mark.parametrize("target", ["pins.toml", "claims/course/demo.toml", "pins.lock",
                                    "config.toml"])
def test_deeply_nested_toml_is_a_clear_error_1_20_2_28(project_dir, capsys, monkeypatch, target):
    f = project_dir / target
    deep = "x = " + "[" * 5000 + "]" * 5000 + "\n"
    if target == "config.toml":
        monkeypatch.setenv("VERIFIER_CONFIG", str(f))
        f.write_text(deep, encoding="utf-8")
    elif target == "pins.lock":
        f.write_text("schema = 1\n" + deep, encoding="utf-8")
    else:
        f.write_text(f.read_text(encoding="utf-8") + "\n" + deep, encoding="utf-8")
    code = main(["check", "--pins", str(project_dir / "pins.toml"), "--cache",
                 str(project_dir / "cache"), "--format", "json"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f.name in err and "nested too deeply" in err


def test_check_text_lists_the_diverged_claim_and_counts_the_verified(project_dir, capsys):
    code = main(["check", "--pins", str(project_dir / "pins.toml"), "--cache",
                 str(project_dir / "cache"), "--runtime", "all"])
    out = capsys.readouterr().out
    assert code == 1 and "gain-two" in out and "quarter-turn" not in out
    assert "1 verified claim not listed (--all lists them)" in out
