"""The batch runner contains every way a snippet can fail (no network: it runs the
checks with the interpreter running the tests, whose environment has no pins)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from verifier.runtime.envs import EnvSpec
from verifier.runtime.runner import CheckSpec, run_batch

PY = Path(sys.executable)
SPEC = EnvSpec("plain", ())


def run(*checks: CheckSpec, **kw):
    return run_batch(PY, SPEC, list(checks), env_dir=Path(sys.prefix), **kw)


def test_values_output_and_fresh_namespace():
    b = run(CheckSpec("one", "x = 41\nresult = {'x': x + 1, 'l': (1, 2.5), 'm': math.pi}"),
            CheckSpec("two", "result = 'x' in dir()"),
            CheckSpec("out", "import os, sys\nprint('py-out')\nprint('py-err', file=sys.stderr)\n"
                             "os.write(1, b'fd-out\\n')\nresult = None"))
    one, two, out = b.runs
    assert one.status == "ok" and one.value == {"x": 42, "l": [1, 2.5], "m": pytest.approx(3.14159265)}
    assert two.status == "ok" and two.value is False        # nothing leaks between checks
    assert out.status == "ok" and out.value is None
    assert "py-out" in out.stdout and "fd-out" in out.stdout and "py-err" in out.stderr
    assert one.duration_s is not None and one.duration_s < 1


def test_exception_is_captured_with_traceback_and_batch_goes_on():
    b = run(CheckSpec("boom", "def f():\n    return 1 / 0\nf()"), CheckSpec("after", "result = 7"))
    boom, after = b.runs
    assert boom.status == "error" and boom.message == "ZeroDivisionError: division by zero"
    assert '<check boom>", line 2' in boom.stderr
    assert after.status == "ok" and after.value == 7


def test_missing_result_and_unserialisable_result_and_exit():
    b = run(CheckSpec("noresult", "y = 1"), CheckSpec("obj", "result = object()"),
            CheckSpec("exit", "import sys; sys.exit(3)"), CheckSpec("ok", "result = [1]"))
    assert b.runs[0].status == "error" and "did not assign `result`" in b.runs[0].message
    assert b.runs[1].status == "error" and "not JSON-serialisable" in b.runs[1].message
    assert b.runs[2].status == "error" and "sys.exit(3)" in b.runs[2].message
    assert b.runs[3].value == [1]


def test_nan_and_inf_survive_the_channel():
    b = run(CheckSpec("nan", "result = [float('nan'), float('inf')]"))
    v = b.runs[0].value
    assert v[0] != v[0] and v[1] == float("inf")


def test_python_hang_is_interrupted_by_its_own_timeout():
    t0 = time.perf_counter()
    b = run(CheckSpec("spin", "while True:\n    pass", timeout=0.5),
            CheckSpec("sleep", "import time\ntime.sleep(30)", timeout=0.5),
            CheckSpec("after", "result = 1"))
    assert [r.status for r in b.runs] == ["error", "error", "ok"]
    assert b.runs[0].message == "timed out after 0.5s"
    assert b.runs[1].message == "timed out after 0.5s"
    assert time.perf_counter() - t0 < 15


def test_native_hang_is_killed_and_reported():
    # SIGALRM blocked: the in-process timer cannot fire, the parent must kill it.
    code = "import signal, time\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\ntime.sleep(60)"
    t0 = time.perf_counter()
    b = run(CheckSpec("before", "result = 0"), CheckSpec("stuck", code, timeout=0.5),
            CheckSpec("after", "result = 1"))
    assert time.perf_counter() - t0 < 20
    before, stuck, after = b.runs
    assert before.status == "ok"
    assert stuck.status == "error" and "timed out after 0.5s" in stuck.message
    assert "killed" in stuck.message
    assert after.status == "ok" and after.value == 1     # only the stuck check's process died


@pytest.mark.parametrize("code,signame", [
    ("import ctypes\nctypes.string_at(0)", "SIGSEGV"),
    ("import os\nos.abort()", "SIGABRT"),
])
def test_interpreter_crash_is_contained(code, signame):
    b = run(CheckSpec("fine", "result = 1"), CheckSpec("crash", code), CheckSpec("later", "result = 2"),
            CheckSpec("later2", "result = 3"))
    fine, crash, later, later2 = b.runs
    assert fine.status == "ok" and fine.value == 1
    assert crash.status == "error" and signame in crash.message and "crashed" in crash.message
    assert "Fatal Python error" in (crash.stderr or "")          # faulthandler's dump kept
    assert (later.status, later.value, later2.status, later2.value) == ("ok", 2, "ok", 3)
    assert b.note is None


def test_os_exit_is_reported_as_an_exit():
    b = run(CheckSpec("bye", "import os\nos._exit(5)"), CheckSpec("later", "result = 2"))
    assert b.runs[0].status == "error" and "exited with code 5" in b.runs[0].message
    assert b.runs[1].status == "ok" and b.runs[1].value == 2


def test_batch_timeout_stops_the_rest():
    b = run(CheckSpec("a", "import time\ntime.sleep(0.2)\nresult = 1", timeout=5),
            CheckSpec("b", "import time\ntime.sleep(10)\nresult = 2", timeout=30),
            CheckSpec("c", "result = 3"), batch_timeout=2.5)
    a, bb, c = b.runs
    assert a.status == "ok"
    assert bb.status == "error" and "batch timed out" in bb.message
    assert c.status == "error" and "not run" in c.message and "batch timed out" in c.message


def test_version_mismatch_runs_nothing():
    import pydantic
    spec = EnvSpec("plain", ("pydantic==0.0.1",))
    b = run_batch(PY, spec, [CheckSpec("x", "result = 1")], env_dir=Path(sys.prefix))
    assert b.runs[0].status == "env-mismatch"
    assert f"pydantic {pydantic.VERSION} installed, pinned 0.0.1" in b.runs[0].message
    assert b.installed == {"pydantic": pydantic.VERSION}


def test_import_failure_marks_every_check():
    spec = EnvSpec("plain", ("definitely-not-a-module-xyz",))
    b = run_batch(PY, spec, [CheckSpec("x", "result = 1"), CheckSpec("y", "result = 2")],
                  env_dir=Path(sys.prefix))
    assert all(r.status == "error" and "import definitely_not_a_module_xyz failed" in r.message
               for r in b.runs)


def test_upstream_modules_are_preloaded():
    spec = EnvSpec("plain", ("pydantic==" + __import__("pydantic").VERSION,))
    b = run_batch(PY, spec, [CheckSpec("x", "result = pydantic.VERSION")], env_dir=Path(sys.prefix))
    assert b.runs[0].status == "ok" and b.runs[0].value == __import__("pydantic").VERSION
    assert b.import_s is not None


def test_missing_interpreter_is_an_error_not_a_crash(tmp_path):
    b = run_batch(tmp_path / "nope" / "python", SPEC, [CheckSpec("x", "result = 1")])
    assert b.runs[0].status == "error" and "cannot start" in b.runs[0].message


def test_background_child_does_not_hold_the_batch(monkeypatch):
    # the harness's own cleanup, below the sandbox: with it the snippet's pid is a PID
    # namespace's (tests/reliability/test_runtime_isolation.py)
    monkeypatch.setenv("VERIFIER_SANDBOX", "0")
    code = ("import subprocess, sys\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'], "
            "close_fds=False)\n"
            "result = p.pid")
    t0 = time.perf_counter()
    b = run(CheckSpec("spawn", code), CheckSpec("after", "result = 1"))
    assert [r.status for r in b.runs] == ["ok", "ok"]
    assert time.perf_counter() - t0 < 15
    child = b.runs[0].value
    for _ in range(50):                       # the leftover child is ended with the batch
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"process {child} started by a snippet outlived its batch")


def test_version_comparison_ignores_trailing_zeros():
    import pydantic
    v = pydantic.VERSION
    padded = v + ".0" if v.count(".") < 3 else v
    b = run_batch(PY, EnvSpec("plain", (f"pydantic=={padded}",)), [CheckSpec("x", "result = 1")],
                  env_dir=Path(sys.prefix))
    assert b.runs[0].status == "ok"
