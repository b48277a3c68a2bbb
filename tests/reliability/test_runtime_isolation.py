"""Class: a runtime snippet that reaches the verifier or what later checks use (F4-2: read
GITHUB_TOKEN from the verifier's /proc/<pid>/environ and passed it, encoded, into the
records; F4-3: planted a claim file in the project; F4-6: SIGSTOPped the verifier;
F4-12: appended code to the cached environment so that a later run's correct check
diverged, while `env list --check` said `ready`; F4-1: RLIMIT_NPROC meant nothing as
root; and values and messages that come back unbounded).

Mechanisms: `runtime/jail.py` (PID, mount, network and user namespaces; a read-only file
system but the scratch directory; the home, /tmp, the cache hidden; a separate uid as
root), `contain.protect_self` (the verifier is not dumpable), `runtime/envdigest.py` (an
environment that changed since it was built is `tampered`: rebuilt, never used),
`contain.value_problem` / `kept_value` / `bounded_text` (bounded results). Where the
machine cannot give the sandbox, the run says so once (`sandbox.note`)."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from verifier.runtime import envdigest, sandbox
from verifier.runtime.envs import EnvSpec
from verifier.runtime.runner import CheckSpec, run_batch

PY = Path(sys.executable)
PLAIN = EnvSpec("plain", ())
TOKEN = "ghp_" + "Q7" * 18


def run(*checks, **kw):
    return run_batch(PY, PLAIN, list(checks), env_dir=Path(sys.prefix), **kw)


@pytest.fixture(scope="module")
def isolation():
    """What the sandbox achieves on this machine (a skip naming what is missing when it
    cannot isolate: the tests below are about the sandbox)."""
    b = run(CheckSpec("probe", "result = 1"))
    iso = b.isolation or {}
    have = " ".join(iso.get("have", []))
    if "pid" not in have or "read-only" not in have:
        pytest.skip(f"this machine gives no runtime sandbox: {iso.get('missing')}")
    return iso


def test_a_snippet_cannot_read_the_verifiers_environment_or_cwd_f4_2(isolation, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    me = os.getpid()
    code = f"""
import os, glob, base64
found = []
for p in [f"/proc/{me}/environ", f"/proc/{me}/cwd", f"/proc/{me}/cmdline"] + glob.glob("/proc/*/environ"):
    try:
        data = open(p, "rb").read() if not p.endswith("cwd") else os.readlink(p).encode()
        if b"ghp_" in data or b"{os.getcwd()}".lower() in data.lower():
            found.append(base64.b64encode(data).decode()[::-1])
    except OSError as e:
        pass
result = found
"""
    b = run(CheckSpec("leak", code))
    r = b.runs[0]
    assert r.status == "ok" and r.value == [], r
    kept = json.dumps([r.value, r.message, r.stdout, r.stderr])
    for enc in (TOKEN, TOKEN[::-1], base64.b64encode(TOKEN.encode()).decode()):
        assert enc not in kept


def test_a_snippet_cannot_signal_the_verifier_f4_6(isolation):
    me = os.getpid()
    # a watchdog outside: should the sandbox fail, the test process is woken up again
    guard = subprocess.Popen(["sh", "-c", f"sleep 8; kill -CONT {me}"])
    try:
        b = run(CheckSpec("stop", f"import os, signal\ntry:\n    os.kill({me}, signal.SIGSTOP)\n"
                                  "    result = 'sent'\nexcept OSError as e:\n"
                                  "    result = type(e).__name__"),
                CheckSpec("all", "import os, signal\ntry:\n    os.kill(-1, signal.SIGSTOP)\n"
                                 "except OSError:\n    pass\nresult = os.getppid()"))
    finally:
        guard.kill()
        guard.wait()
    assert b.runs[0].value == "ProcessLookupError", b.runs[0]
    assert b.runs[1].status == "ok"         # kill(-1): only its own PID namespace


def test_a_snippet_cannot_write_into_the_project_the_cache_or_the_environment_f4_3(
        isolation, tmp_path):
    project = Path(__file__).resolve().parents[2]
    targets = [project / "claims" / "planted.toml", project / "pins.toml",
               Path(sys.prefix) / "planted.pth", Path.home() / "planted-by-a-check"]
    code = ("import os\nout = []\nfor p in %r:\n    try:\n        open(p, 'a').write('x')\n"
            "        out.append('WROTE ' + p)\n    except OSError as e:\n"
            "        out.append(e.errno)\nresult = out" % [str(t) for t in targets])
    before = (project / "pins.toml").read_bytes()
    b = run(CheckSpec("write", code))
    assert not any(str(v).startswith("WROTE") for v in b.runs[0].value), b.runs[0].value
    assert (project / "pins.toml").read_bytes() == before
    assert not (project / "claims" / "planted.toml").exists()


def test_the_process_limit_holds_as_root_too_f4_1(isolation):
    code = ("import os, time\nn = 0\nfor i in range(150):\n    try:\n        pid = os.fork()\n"
            "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n"
            "        os._exit(0)\n    n += 1\nresult = n")
    b = run(CheckSpec("forks", code, timeout=30))
    assert b.runs[0].status == "ok" and b.runs[0].value < 150, b.runs[0]


def _fake_env(store, spec: EnvSpec, body: str) -> Path:
    """An environment as `create_env` leaves it, without pip: a venv holding the package
    `fakepkg` 1.0, its digest and marker."""
    from verifier.runtime.envs import ENV_SCHEMA, MARKER, env_path

    path = env_path(store, spec)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    site = next(path.glob("lib/python3*/site-packages"))
    (site / "fakepkg").mkdir()
    (site / "fakepkg" / "__init__.py").write_text(body)
    meta = site / "fakepkg-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: fakepkg\nVersion: 1.0\n")
    envdigest.record(path)
    store.write_json(path / MARKER, {"schema": ENV_SCHEMA, "key": spec.key,
                                     "upstream": spec.upstream,
                                     "requirements": list(spec.requirements),
                                     "installed": {"fakepkg": "1.0"}})
    return path


def _confirm(project, code, expected):
    from verifier import runtime as rt
    from verifier.claims.model import Claim
    from verifier.results import ClaimResult, Verdict

    claim = Claim(id="x", fragment="fragment", kind="runtime",
                  runtime={"code": code, "expected": expected})
    res = ClaimResult(id="c/l/x", lesson="docs/l.md", line=1, upstream="fake", kind="runtime",
                      verdict=Verdict.UNAVAILABLE)
    lc = SimpleNamespace(claim=claim, gid="c/l/x", upstream="fake", problem=None)
    (out,), _ = rt.confirm(project, [(lc, res)], mode="all")
    return out


@pytest.mark.parametrize("sandboxed", [True, False])
def test_a_snippet_that_edits_the_environment_never_changes_a_later_verdict_f4_12(
        tmp_path, monkeypatch, sandboxed):
    from verifier.cache import Store
    from verifier.cli.main import main
    from verifier.config import UserConfig
    from verifier.pins import Pins, Upstream

    if not sandboxed:
        monkeypatch.setenv("VERIFIER_SANDBOX", "0")
    store = Store(tmp_path / "cache")
    up = Upstream(name="fake", repo="https://github.com/o/fake", commit="c" * 40, version="1",
                  runtime=["fakepkg==1.0"])
    spec = EnvSpec.from_upstream(up)
    env = _fake_env(store, spec, "value = 42\n")
    notes: list[str] = []
    project = SimpleNamespace(pins=Pins(upstream={"fake": up}), store=store,
                              config=UserConfig(offline=True), notify=notes.append)
    hostile = ("import fakepkg\ntry:\n    open(fakepkg.__file__, 'a').write('\\nvalue = 0\\n')\n"
               "except OSError:\n    pass\nresult = 1")
    assert _confirm(project, hostile, 1).runtime.status == "confirmed"
    after = _confirm(project, "import fakepkg\nresult = fakepkg.value", 42)
    if sandboxed:
        assert after.runtime.status == "confirmed"              # the write never happened
        assert "value = 0" not in next(env.glob("lib/*/site-packages/fakepkg/__init__.py")
                                       ).read_text()
    else:                                  # it did: noticed, never a wrong `refuted`
        assert after.runtime.status in ("error", "skipped"), after.runtime
        assert "modified" in (after.runtime.message or "") or "tampered" in (
            after.runtime.message or ""), after.runtime.message
        assert after.verdict.value != "diverged"
        assert envdigest.check(env) != []
        pins = tmp_path / "pins.toml"
        pins.write_text(f'[upstream.fake]\nrepo = "{up.repo}"\ncommit = "{up.commit}"\n'
                        'version = "1"\nruntime = ["fakepkg==1.0"]\n')
        assert main(["env", "list", "--check", "--pins", str(pins), "--cache",
                     str(store.root), "-q"]) == 1                # `env list --check` notices


def test_without_a_sandbox_the_run_says_so_once(tmp_path, monkeypatch):
    from verifier import runtime as rt
    from verifier.cache import Store
    from verifier.config import UserConfig
    from verifier.pins import Pins, Upstream
    from verifier.runtime.envs import EnvInfo

    monkeypatch.setenv("VERIFIER_SANDBOX", "0")
    ups = {n: Upstream(name=n, repo=f"https://github.com/o/{n}", commit="a" * 40, version="1",
                       runtime=["x==1"]) for n in ("alpha", "beta")}
    monkeypatch.setattr(rt, "create_env", lambda store, spec, **kw: EnvInfo(
        spec, Path(sys.prefix), "ready", {"key": spec.key}))
    notes: list[str] = []
    project = SimpleNamespace(pins=Pins(upstream=ups), store=Store(tmp_path / "c"),
                              config=UserConfig(), notify=notes.append)
    from verifier.claims.model import Claim
    from verifier.results import ClaimResult, Verdict
    pairs = []
    for n in ("alpha", "beta"):
        claim = Claim(id=n, fragment="fragment", kind="runtime",
                      runtime={"code": "result = 1", "expected": 1})
        res = ClaimResult(id=f"c/l/{n}", lesson="docs/l.md", line=1, upstream=n, kind="runtime",
                          verdict=Verdict.UNAVAILABLE)
        pairs.append((SimpleNamespace(claim=claim, gid=f"c/l/{n}", upstream=n, problem=None), res))
    rt.confirm(project, pairs, mode="all")
    said = [n for n in notes if "runtime isolation is incomplete" in n]
    assert len(said) == 1 and "VERIFIER_SANDBOX=0" in said[0] and "--runtime none" in said[0]


def test_values_messages_and_output_that_come_back_are_bounded():
    from verifier.runtime.contain import MAX_KEPT, MAX_MESSAGE, kept_value

    b = run(CheckSpec("big", "result = 'v' * (2 << 20)"),
            CheckSpec("msg", "raise ValueError('m' * 1_000_000)"),
            CheckSpec("deep", "x = []\nfor _ in range(200):\n    x = [x]\nresult = x"))
    big, msg, deep = b.runs
    assert big.status == "ok" and len(json.dumps(kept_value(big.value))) < MAX_KEPT
    assert msg.status == "error" and len(msg.message) < MAX_MESSAGE + 200
    assert deep.status == "error" and "nested too deeply" in deep.message


DRIVER = """
import sys
from pathlib import Path
from verifier.runtime.envs import EnvSpec
from verifier.runtime.runner import CheckSpec, run_batch
run_batch(Path(sys.executable), EnvSpec("plain", ()),
          [CheckSpec("spin", "open(%r, 'w').close()\\nwhile True:\\n    pass", timeout=60)],
          env_dir=Path(sys.prefix))
"""


def test_a_killed_verifier_leaves_nothing_of_a_sandboxed_batch_behind(isolation, tmp_path):

    tmp = tmp_path / "t"
    tmp.mkdir()
    driver = subprocess.Popen([sys.executable, "-c", DRIVER % "started"],
                              cwd=Path(__file__).parents[2], env={**os.environ, "TMPDIR": str(tmp)})
    try:
        for _ in range(400):
            if list(tmp.glob("verifier-rt-*/checks/*/started")):
                break
            time.sleep(0.05)
        else:
            pytest.fail("the check never started")
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=10)
        for _ in range(100):
            left = [p for p in Path("/proc").iterdir() if p.name.isdigit()
                    and str(tmp) in _cmdline(p)]
            if not left and not list(tmp.glob("verifier-rt-*")):
                break
            time.sleep(0.1)
        assert not left, "processes of the batch outlived the killed verifier"
        assert not list(tmp.glob("verifier-rt-*")), "its scratch directory is left"
    finally:
        if driver.poll() is None:
            driver.kill()



def _cmdline(p: Path) -> str:
    try:
        return (p / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_the_plan_hides_the_home_the_cache_and_keeps_the_environment(tmp_path):
    plan = sandbox.plan(tmp_path, Path(sys.prefix), PY, 9, (str(tmp_path / "cache"),))
    if plan is None:
        pytest.skip(sandbox.disabled_reason())
    assert os.path.realpath(os.path.expanduser("~")) in plan["hide"]
    assert "/tmp" in plan["hide"] and os.path.realpath(tmp_path / "cache") in plan["hide"]
    assert os.path.realpath(sys.prefix) in plan["keep"]
    assert (plan["uid"] is not None) == (os.geteuid() == 0)
