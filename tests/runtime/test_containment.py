"""Hostile runtime snippets (trials 5.3, 6.6-6.15 of the reliability trial): a check
cannot forge another check's result, cannot change what another check sees, and is
contained (environment, working directory, limits, leftover processes, output).

Runs with the interpreter running the tests as the "environment" (no upstream)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from verifier.runtime.contain import REDACTED, Sanitizer, scrubbed_env
from verifier.runtime.envs import EnvSpec
from verifier.runtime.runner import CheckSpec, run_batch

PY = Path(sys.executable)
SPEC = EnvSpec("plain", ())


def run(*checks: CheckSpec, **kw):
    return run_batch(PY, SPEC, list(checks), env_dir=Path(sys.prefix), **kw)


def _gone(pid: int, wait: float = 5.0) -> bool:
    end = time.time() + wait
    while time.time() < end:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[-1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


# Forged events for every id, in the old and the new protocol, with the value pi.
FORGE = textwrap.dedent('''
    import json, os, sys, math
    lines = []
    for i in range(4):
        for ev in ({"event": "done", "id": i, "status": "ok", "value": math.pi, "error": None,
                    "duration_s": 0.0, "stdout": "", "stderr": ""},
                   {"event": "start", "id": i, "stdout": "", "stderr": ""}):
            lines.append(json.dumps(ev))
    lines.append(json.dumps({"event": "end"}))
    data = ("\\n".join(lines) + "\\n").encode()

    def ppid(pid):
        with open("/proc/%d/stat" % pid) as fh:
            return int(fh.read().rsplit(")", 1)[-1].split()[1])

    hits = 0
    mine = {os.fstat(f).st_ino for f in (1, 2)}   # not the test runner's own output
    try:                                   # the old harness gave its channel in argv
        os.write(int(sys.argv[2]), data); hits += 1
    except Exception:
        pass
    harness = os.getppid()
    for pid in (harness, ppid(harness)):   # every pipe of the harness and of the verifier
        try:
            fds = os.listdir("/proc/%d/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            path = "/proc/%d/fd/%s" % (pid, fd)
            try:
                if not os.readlink(path).startswith("pipe:") or fd in ("0", "1", "2"):
                    continue
                w = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                if os.fstat(w).st_ino not in mine:
                    os.write(w, data); hits += 1
                os.close(w)
            except OSError:
                pass
    ''')


def test_forged_events_cannot_decide_another_check_6_13_6_14():
    hostile = FORGE + "\nos._exit(0)\n"
    b = run(CheckSpec("fine", "result = 1"), CheckSpec("hostile", hostile),
            CheckSpec("victim", "result = 0"), CheckSpec("last", "result = 2"))
    fine, bad, victim, last = b.runs
    assert (fine.status, fine.value) == ("ok", 1)
    assert bad.status == "error"
    assert (victim.status, victim.value) == ("ok", 0)       # the real result, never pi
    assert (last.status, last.value) == ("ok", 2)


def test_a_check_that_writes_the_channel_and_ends_normally_is_not_trusted():
    b = run(CheckSpec("hostile", FORGE + "\nresult = hits\n"), CheckSpec("victim", "result = 0"))
    bad, victim = b.runs
    if bad.status == "ok":                  # no channel was reachable (not root, not dumpable)
        assert bad.value == 0
    else:
        assert "result channel" in bad.message and "not trusted" in bad.message
    assert (victim.status, victim.value) == ("ok", 0)


def test_commands_injected_into_the_harness_never_confirm_another_check():
    inject = textwrap.dedent('''
        import json, os
        cmd = {"op": "run", "id": 1, "nonce": "0" * 32, "name": "x", "setup": None,
               "code": "result = 3.14159", "timeout": 5}
        try:
            w = os.open("/proc/%d/fd/0" % os.getppid(), os.O_WRONLY | os.O_NONBLOCK)
            os.write(w, (json.dumps(cmd) + "\\n").encode()); os.close(w)
        except OSError:
            pass
        result = 1
        ''')
    b = run(CheckSpec("hostile", inject), CheckSpec("victim", "result = 0"))
    victim = b.runs[1]
    assert victim.value != 3.14159
    assert victim.status == "error" or victim.value == 0


def test_replacing_exec_cannot_set_another_checks_result_6_15():
    code = textwrap.dedent('''
        import builtins
        real = builtins.exec
        def fake(src, ns=None, *a):
            real(src, ns, *a)
            if isinstance(ns, dict):
                ns["result"] = 3.14159
        builtins.exec = fake
        result = 1
        ''')
    b = run(CheckSpec("hostile", code), CheckSpec("victim", "result = 0"))
    assert (b.runs[1].status, b.runs[1].value) == ("ok", 0)


def test_mutations_of_modules_and_builtins_die_with_the_check_6_12():
    code = "import builtins, json\nmath.pi = 3.0\nbuiltins.len = lambda x: 0\njson.dumps = None\nresult = 1"
    b = run(CheckSpec("mutate", code),
            CheckSpec("victim", "import json\nresult = [math.pi, len([1, 2]), json.dumps(1)]"))
    assert b.runs[1].status == "ok"
    assert b.runs[1].value == [pytest.approx(3.141592653589793), 2, "1"]


def test_environment_is_an_allow_list_6_8(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_FAKEPARENTTOKEN0123456789abcdefABCD")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("SOME_PLAIN_SETTING", "kept-out")
    code = "import os\nresult = sorted(os.environ)\nprint(dict(os.environ))"
    b = run(CheckSpec("env", code))
    names = set(b.runs[0].value)
    assert not names & {"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "SOME_PLAIN_SETTING"}
    assert {"PATH", "HOME", "TMPDIR"} <= names
    assert "ghp_FAKE" not in b.runs[0].stdout and "wJalrXUtn" not in b.runs[0].stdout
    assert "<scratch>" in b.runs[0].stdout                    # HOME, TMPDIR: scratch, normalised


# the harness's own containment, below the sandbox (VERIFIER_SANDBOX=0): with it a
# snippet's pids are those of its PID namespace and the test's files are hidden from it
# (tests/reliability/test_runtime_isolation.py checks the sandbox itself)
def test_secrets_read_from_elsewhere_are_redacted_in_everything_kept(monkeypatch):
    monkeypatch.setenv("VERIFIER_SANDBOX", "0")
    secret = "ghp_FAKEPARENTTOKEN0123456789abcdefABCD"
    monkeypatch.setenv("GITHUB_TOKEN", secret)
    monkeypatch.setenv("MY_SERVICE_PASSWORD", "hunter2-but-longer")
    code = textwrap.dedent('''
        import os, sys
        def ppid(pid):
            with open("/proc/%d/stat" % pid) as fh:
                return int(fh.read().rsplit(")", 1)[-1].split()[1])
        verifier = ppid(os.getppid())
        env = open("/proc/%d/environ" % verifier, "rb").read().decode()   # the verifier's own
        print(env.replace("\\0", "\\n"))
        print("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY", file=sys.stderr)
        print("Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123", file=sys.stderr)
        print("id AKIAIOSFODNN7EXAMPLE and github_pat_11ABCDEFG0123456789_abcdefghijklmnop")
        result = {"env": env[:4000], "token": "x" + os.environ.get("GITHUB_TOKEN", "")}
        raise RuntimeError("leak " + env[:300])
        ''')
    b = run(CheckSpec("leak", code))
    r = b.runs[0]
    san = b.sanitizer
    kept = json.dumps([r.stdout, r.stderr, r.message, san.value(r.value)])
    for needle in (secret, "hunter2-but-longer", "wJalrXUtn", "abcdefghijklmnopqrstuvwxyz0123",
                   "AKIAIOSFODNN7EXAMPLE", "github_pat_11"):
        assert needle not in kept, needle
    assert REDACTED in r.stdout and REDACTED in r.stderr


def test_sanitizer_patterns():
    san = Sanitizer({"/srv/cache": "<cache>"}, environ={"DEPLOY_KEY": "s3cr3t-value-xyz"})
    text = ("GITHUB_TOKEN=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
            "token gho_bbbbbbbbbbbbbbbbbbbbbbbbbbbb\n"
            '{"API_KEY": "zzzzzzzz"}\nkey s3cr3t-value-xyz\n'
            "read /srv/cache/blobs/ab and /srv/cache2/x\n"
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n"
            "plain text, mj_step and 3.14 stay")
    out = san.text(text)
    assert "ghp_" not in out and "gho_" not in out and "zzzzzzzz" not in out
    assert "s3cr3t" not in out and "MIIE" not in out
    assert "GITHUB_TOKEN=[redacted]" in out
    assert "<cache>/blobs/ab" in out and "/srv/cache2/x" in out
    assert out.endswith("plain text, mj_step and 3.14 stay")


def test_scratch_working_directory_not_the_project_6_9(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = "import os\nopen('escaped.txt', 'w').write('x')\nresult = os.getcwd()"
    b = run(CheckSpec("write", code), CheckSpec("next", "import os\nresult = os.listdir('.')"))
    assert not (tmp_path / "escaped.txt").exists()
    assert b.sanitizer.value(b.runs[0].value) == "<scratch>"
    assert "escaped.txt" not in b.runs[1].value                 # each check its own directory
    assert not Path(b.runs[0].value).exists()                  # scratch removed afterwards


def test_resource_limits_6_6():
    code = textwrap.dedent('''
        import resource
        result = {n: resource.getrlimit(getattr(resource, n))[0]
                  for n in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")}
        ''')
    b = run(CheckSpec("limits", code, timeout=10),
            CheckSpec("big", "x = bytearray(16 * 1024 ** 3)\nresult = len(x)"),
            CheckSpec("after", "result = 1"))
    lim = b.runs[0].value
    inf = -1
    assert lim["RLIMIT_AS"] != inf and lim["RLIMIT_AS"] < 64 << 30
    assert 0 < lim["RLIMIT_CPU"] <= 40
    assert lim["RLIMIT_FSIZE"] == 256 << 20 and lim["RLIMIT_CORE"] == 0
    assert 0 < lim["RLIMIT_NOFILE"] <= 4096
    assert b.runs[1].status == "error" and "MemoryError" in b.runs[1].message
    assert b.runs[2].value == 1


# the harness's own containment, below the sandbox (VERIFIER_SANDBOX=0): with it a
# snippet's pids are those of its PID namespace and the test's files are hidden from it
# (tests/reliability/test_runtime_isolation.py checks the sandbox itself)
def test_new_session_children_and_daemons_do_not_outlive_the_batch_6_11(monkeypatch):
    monkeypatch.setenv("VERIFIER_SANDBOX", "0")
    code = textwrap.dedent('''
        import os, subprocess
        p = subprocess.Popen(["sleep", "32"], start_new_session=True)
        r, w = os.pipe()
        if os.fork() == 0:                 # a double-forked daemon in its own session
            os.setsid()
            if os.fork() == 0:
                os.write(w, str(os.getpid()).encode()); os.close(w)
                import time
                time.sleep(33)
            os._exit(0)
        os.close(w)
        daemon = int(os.read(r, 32))
        result = [p.pid, daemon]
        ''')
    b = run(CheckSpec("spawn", code), CheckSpec("after", "result = 1"))
    assert b.runs[0].status == "ok", b.runs[0].message
    for pid in b.runs[0].value:
        assert _gone(pid, 1.0), f"process {pid} outlived its check"
    assert b.runs[1].value == 1


def test_output_is_bounded_6_7():
    b = run(CheckSpec("flood", "import os\nos.write(1, b'x' * (50 << 20))\nresult = 1"))
    r = b.runs[0]
    assert r.status == "ok" and len(r.stdout) < 25000 and "bytes in all" in r.stdout


def test_machine_paths_are_normalised():
    code = "import sys, os\nprint(sys.prefix, os.environ['HOME'])\nraise ValueError(sys.prefix)"
    b = run(CheckSpec("paths", code), paths={str(Path(__file__).parent): "<tests>"})
    r = b.runs[0]
    assert sys.prefix not in r.stdout and "<env> <scratch>/home" in r.stdout
    assert r.message == "ValueError: <env>"


def test_scrubbed_env_keeps_only_the_allow_list(tmp_path):
    env = scrubbed_env(tmp_path, tmp_path / "env", "m", base={
        "PATH": "/bin", "LC_ALL": "C", "GITHUB_TOKEN": "x", "HOME": "/root", "FOO": "1",
        "VERIFIER_RUNTIME_PASS_ENV": "FOO"})
    assert env["PATH"] == "/bin" and env["LC_ALL"] == "C" and env["FOO"] == "1"
    assert "GITHUB_TOKEN" not in env and env["HOME"] == str(tmp_path / "home")
    assert env["WARP_CACHE_PATH"].startswith(str(tmp_path))


DRIVER = textwrap.dedent('''
    import sys
    from pathlib import Path
    from verifier.runtime.envs import EnvSpec
    from verifier.runtime.runner import CheckSpec, run_batch
    code = """
    import os, signal, time
    open(%r, "w").write("%%d %%d" %% (os.getpid(), os.getppid()))
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        pass
    """
    run_batch(Path(sys.executable), EnvSpec("plain", ()), [CheckSpec("spin", code, timeout=40)],
              env_dir=Path(sys.prefix))
    ''')


# the harness's own containment, below the sandbox (VERIFIER_SANDBOX=0): with it a
# snippet's pids are those of its PID namespace and the test's files are hidden from it
# (tests/reliability/test_runtime_isolation.py checks the sandbox itself)
def test_a_killed_verifier_leaves_no_harness_behind_5_3(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_SANDBOX", "0")
    pids = tmp_path / "pids"
    driver = subprocess.Popen([sys.executable, "-c", DRIVER % str(pids)],
                              cwd=Path(__file__).parents[2],
                              env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        for _ in range(300):
            if pids.exists() and pids.read_text().strip():
                break
            time.sleep(0.05)
        check_pid, harness_pid = map(int, pids.read_text().split())
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=10)
        assert _gone(harness_pid), "the harness outlived the killed verifier"
        assert _gone(check_pid), "the check's process outlived the killed verifier"
        for _ in range(50):                       # and its scratch directory is removed
            if not any(tmp_path.glob("verifier-rt-*")):
                break
            time.sleep(0.1)
        assert not any(tmp_path.glob("verifier-rt-*"))
    finally:
        if driver.poll() is None:
            driver.kill()
