"""Environment building, caching, health checks and env-mismatch, with a tiny real
package from PyPI (skipped, with the reason, only when PyPI cannot be reached)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

import verifier.runtime as rt
from verifier.cache import Store
from verifier.claims.model import Claim
from verifier.cli.main import main
from verifier.config import UserConfig
from verifier.pins import Pins, Upstream
from verifier.results import ClaimResult, Verdict
from verifier.runtime.envs import (MARKER, EnvSpec, RuntimeEnvError, create_env, find_python,
                                   health_check, inspect_env)
from verifier.runtime.runner import CheckSpec, run_batch

TINY = EnvSpec("tiny", ("iniconfig==2.0.0",), ">=3.12")


def pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
        return True
    except OSError:
        return False


def build(store: Store, spec: EnvSpec = TINY, **kw):
    try:
        return create_env(store, spec, **kw)
    except RuntimeEnvError as exc:
        if not pypi_reachable():
            pytest.skip(f"cannot build a runtime environment without PyPI: {exc.message[:200]}")
        raise


def installers() -> list:
    out = ["pip"]
    out.append("uv" if shutil.which("uv") else pytest.param(
        "uv", marks=pytest.mark.skip(reason="uv is not on PATH (venv + pip is tested)")))
    return out


def tamper(info, requirement: str) -> None:
    if info.marker.get("tool") == "uv":
        cmd = [shutil.which("uv"), "pip", "install", "-q", "--python", str(info.python), requirement]
    else:
        cmd = [str(info.python), "-m", "pip", "install", "-q", requirement]
    subprocess.run(cmd, check=True, capture_output=True)


@pytest.mark.runtime
@pytest.mark.parametrize("installer", installers())
def test_build_reuse_mismatch_and_rebuild(tmp_path, monkeypatch, installer):
    monkeypatch.setenv("VERIFIER_RUNTIME_INSTALLER", installer)
    store = Store(tmp_path / "cache")
    assert inspect_env(store, TINY).status == "missing"
    info = build(store)
    assert info.status == "ready"
    assert info.path == store.root / "envs" / f"tiny-{TINY.key}"
    marker = json.loads((info.path / MARKER).read_text())
    assert marker["installed"] == {"iniconfig": "2.0.0"} and marker["key"] == TINY.key
    assert health_check(info)["ok"]

    # reused, not rebuilt
    stamp = (info.path / MARKER).stat().st_mtime_ns
    again = create_env(store, TINY)
    assert again.path == info.path and (info.path / MARKER).stat().st_mtime_ns == stamp

    b = run_batch(info.python, TINY, [CheckSpec("v", "result = iniconfig.__name__")],
                  env_dir=info.path)
    assert b.runs[0].status == "ok" and b.runs[0].value == "iniconfig"

    # someone changes the environment behind our back: a different version of the package
    assert info.marker["tool"] == ("uv" if installer == "uv" else "venv+pip")
    tamper(info, "iniconfig==2.1.0")
    h = health_check(info)
    assert not h["ok"] and h["problems"] == ["iniconfig 2.1.0 installed, pinned 2.0.0"]
    up = Upstream(name="tiny", repo="https://github.com/o/tiny", commit="b" * 40, version="2",
                  python=">=3.12", runtime=["iniconfig==2.0.0"])
    project = SimpleNamespace(pins=Pins(upstream={"tiny": up}), store=store,
                              config=UserConfig(), notify=None)
    claim = Claim(id="x", fragment="fragment", kind="runtime",
                  runtime={"code": "result = 1", "expected": 1})
    res = ClaimResult(id="c/l/x", lesson="docs/l.md", line=1, upstream="tiny", kind="runtime",
                      verdict=Verdict.UNAVAILABLE)
    lc = SimpleNamespace(claim=claim, gid="c/l/x", upstream="tiny", problem=None)
    # ... which its digest notices (F4-12): it is `tampered`, rebuilt before anything
    # runs in it, and the check runs in the pinned environment again
    seen = inspect_env(store, TINY)
    assert seen.status == "tampered" and any("iniconfig" in p for p in seen.problems)
    notes: list[str] = []
    project.notify = notes.append
    (out,), rec = rt.confirm(project, [(lc, res)], mode="all")
    assert out.runtime.status == "confirmed", out.runtime
    assert any("modified after it was built" in n and "rebuilding" in n for n in notes)
    assert health_check(inspect_env(store, TINY))["ok"]

    # an interrupted build (no marker) is never reused: it is rebuilt from the pins
    (info.path / MARKER).unlink()
    assert inspect_env(store, TINY).status == "incomplete"
    rebuilt = build(store)
    assert rebuilt.status == "ready" and health_check(rebuilt)["ok"]


@pytest.mark.runtime
def test_requirements_change_the_directory(tmp_path):
    other = EnvSpec("tiny", ("iniconfig==2.1.0",), ">=3.12")
    assert other.key != TINY.key
    assert EnvSpec("tiny", ("iniconfig==2.0.0",), ">=3.13").key != TINY.key


def test_no_matching_python_is_a_clear_error():
    with pytest.raises(RuntimeEnvError, match=r"no Python interpreter satisfying '>=9\.0' for "
                                              r"the demo runtime environment"):
        find_python(">=9.0", "demo")


def test_forced_python_is_checked(monkeypatch, tmp_path):
    monkeypatch.setenv("VERIFIER_RUNTIME_PYTHON", "/nonexistent/python3")
    with pytest.raises(RuntimeEnvError, match="VERIFIER_RUNTIME_PYTHON"):
        find_python(">=3.12", "demo")


def test_bad_installer_choice(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_RUNTIME_INSTALLER", "conda")
    with pytest.raises(RuntimeEnvError, match="must be 'uv' or 'pip'"):
        create_env(Store(tmp_path / "c"), TINY)


def test_offline_never_builds(tmp_path):
    with pytest.raises(RuntimeEnvError, match="offline"):
        create_env(Store(tmp_path / "c"), TINY, offline=True)


def test_env_cli_list_and_clean(tmp_path, capsys):
    cache = tmp_path / "cache"
    assert main(["env", "list", "--format", "json", "--cache", str(cache)]) == 0
    data = json.loads(capsys.readouterr().out)
    ups = {e["upstream"]: e for e in data["environments"]}
    from verifier.pins import load_pins
    pins = load_pins(Path(__file__).resolve().parents[2] / "pins.toml")
    assert set(ups) == {n for n, u in pins.upstream.items() if u.runtime}
    for name, e in ups.items():
        assert e["requirements"] == pins.upstream[name].runtime
        assert e["python_requirement"] == pins.upstream[name].python
    assert all(e["status"] == "missing" for e in ups.values())
    stale = Path(cache) / "envs" / "mujoco-0000000000000000"
    stale.mkdir(parents=True)
    assert main(["env", "list", "--format", "json", "--cache", str(cache)]) == 0
    assert json.loads(capsys.readouterr().out)["stale"][0]["path"] == str(stale)
    assert main(["env", "clean", "--stale", "--cache", str(cache)]) == 0
    assert not stale.exists()
    assert main(["env", "create", "nosuch", "--cache", str(cache)]) == 2
    assert "unknown upstream nosuch" in capsys.readouterr().err
