"""The composite GitHub Action's step (scripts/action.sh, run by action.yml) run here
with a fake GITHUB_* environment on the CLI fixture project: a fork's pull request gets
`--runtime none`, annotations on the lesson lines, the step summary and the outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import lesson
from tests.conftest import REPO

BAD_PIN = "f" * 40


def _run(proj, tmp_path, event: dict, name: str = "pull_request", **extra):
    (tmp_path / "event.json").write_text(json.dumps(event), encoding="utf-8")
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name,
           "GITHUB_EVENT_PATH": str(tmp_path / "event.json"), "GITHUB_REPOSITORY": "o/course",
           "GITHUB_SHA": "a" * 40, "GITHUB_STEP_SUMMARY": str(summary),
           "GITHUB_OUTPUT": str(output), "GITHUB_ACTION_PATH": str(REPO),
           "GITHUB_WORKSPACE": str(proj.root), "VERIFIER_ACTION_INSTALL": "0",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **extra}
    got = subprocess.run(["bash", str(REPO / "scripts" / "action.sh")], cwd=proj.root, env=env,
                         capture_output=True, text=True, timeout=600)
    outputs = dict(ln.split("=", 1) for ln in output.read_text().splitlines()) \
        if output.exists() else {}
    return got, summary.read_text(encoding="utf-8") if summary.exists() else "", outputs


def _fork(repo: str) -> dict:
    return {"pull_request": {"head": {"repo": {"full_name": repo}}}}


def test_a_fork_pull_request_runs_without_runtime_checks(proj, tmp_path):
    proj.lesson("beta", "docs/intro.md", lesson(BAD_PIN))
    got, summary, outputs = _run(proj, tmp_path, _fork("someone/course"))
    assert got.returncode == 1, got.stdout + got.stderr
    assert "runtime checks off (--runtime none)" in got.stdout
    assert outputs == {"exit-code": "1", "runtime": "none",
                       "report": "verification/verification.html"}
    notes = [ln for ln in got.stdout.splitlines() if ln.startswith("::error ")]
    assert len(notes) == 1 and "line=3" in notes[0] and "VL101" in notes[0], got.stdout
    assert summary.startswith("<!-- verifier:summary -->")
    assert (proj.root / "verification" / "verification.html").is_file()
    assert "not run: runtime" in got.stdout


def test_the_repositorys_own_pull_request_and_a_bad_input(proj, tmp_path):
    got, _, outputs = _run(proj, tmp_path, _fork("o/course"), VERIFIER_ACTION_RUNTIME="auto")
    assert outputs.get("runtime") == "all", got.stdout + got.stderr
    assert got.returncode == 0, got.stdout + got.stderr
    bad, _, _ = _run(proj, tmp_path, _fork("o/course"), VERIFIER_ACTION_RUNTIME="sometimes")
    assert bad.returncode == 2 and "::error title=verifier action::runtime must be" in bad.stdout


def test_action_yml_runs_the_tested_script():
    yaml = pytest.importorskip("yaml", reason="PyYAML (comes with pre-commit) reads action.yml")
    doc = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert doc["runs"]["using"] == "composite"
    steps = {s.get("id"): s for s in doc["runs"]["steps"]}
    assert steps["verify"]["run"] == 'bash "$GITHUB_ACTION_PATH/scripts/action.sh"'
    assert steps["verify"]["env"]["VERIFIER_ACTION_RUNTIME"] == "${{ inputs.runtime }}"
    assert doc["inputs"]["runtime"]["default"] == "auto"
