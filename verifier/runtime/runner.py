"""Run a batch of runtime checks of ONE upstream in ONE subprocess.

The import cost of the upstream is paid once per batch; each check still runs
in a fresh namespace with its exceptions, output and time kept (see harness.py).

Containment, enforced here in the parent:
- per-check timeout: the harness interrupts Python code itself; a check stuck in
  native code is killed by the parent at 1.5 x timeout + 2 s;
- batch timeout: when the whole batch runs past it, the process is killed;
- crash: when the interpreter dies (segfault, abort, os._exit, kill), the check
  that was running is `error` with the signal / exit code and its captured
  stderr (faulthandler's dump), and every remaining check of the batch is
  `error` with that reason. Other batches (upstreams) are unaffected.
"""

from __future__ import annotations

import json
import math
import os
import select
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.runtime.envs import EnvSpec, runner_env

HARNESS = Path(__file__).with_name("harness.py")
IMPORT_ALLOWANCE = 300.0   # seconds allowed for interpreter start + imports


@dataclass(frozen=True)
class CheckSpec:
    """One check to run: `name` is for messages (the claim's global id)."""

    name: str
    code: str
    setup: str | None = None
    timeout: float = 60.0


@dataclass
class CheckRun:
    """What happened to one check (before comparison with the expectation)."""

    status: str                       # ok | error | env-mismatch
    value: Any = None
    message: str | None = None
    duration_s: float | None = None
    stdout: str | None = None
    stderr: str | None = None


@dataclass
class BatchRun:
    runs: list[CheckRun]
    import_s: float | None = None
    wall_s: float = 0.0
    installed: dict[str, str | None] = field(default_factory=dict)
    python: str | None = None
    note: str | None = None           # why the batch ended early, if it did
    checks_s: float | None = None     # from the first check's start to the last check's end
    exit_s: float | None = None       # from the harness's last event to the process's exit


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def _decode_floats(v: Any) -> Any:
    if isinstance(v, dict):
        if set(v) == {"__float__"}:
            return float(v["__float__"])
        return {k: _decode_floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_decode_floats(x) for x in v]
    return v


def _read_text(path: str | None, limit: int = 20000) -> str:
    if not path:
        return ""
    try:
        text = Path(path).read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""
    return text[-limit:]


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_batch(python: Path, spec: EnvSpec, checks: list[CheckSpec], *,
              batch_timeout: float | None = None, env_dir: Path | None = None,
              hard_grace: float = 2.0) -> BatchRun:
    """Run `checks` with the environment's `python`. Never raises for check failures."""
    t_begin = time.perf_counter()
    if batch_timeout is None:
        batch_timeout = IMPORT_ALLOWANCE + sum(c.timeout for c in checks)
    runs: dict[int, CheckRun] = {}
    out = BatchRun(runs=[])
    with tempfile.TemporaryDirectory(prefix="verifier-rt-") as tmp:
        batch = {"modules": spec.modules, "pins": spec.pins, "capture_dir": tmp,
                 "checks": [{"id": i, "name": c.name, "code": c.code, "setup": c.setup,
                             "timeout": c.timeout} for i, c in enumerate(checks)]}
        batch_file = Path(tmp) / "batch.json"
        batch_file.write_text(json.dumps(batch), encoding="utf-8")
        proc_out, proc_err = Path(tmp) / "proc.out", Path(tmp) / "proc.err"
        rfd, wfd = os.pipe()
        with open(proc_out, "wb") as fo, open(proc_err, "wb") as fe:
            try:
                proc = subprocess.Popen(
                    [str(python), "-I", str(HARNESS), str(batch_file), str(wfd)],
                    stdin=subprocess.DEVNULL, stdout=fo, stderr=fe, pass_fds=(wfd,),
                    env=runner_env(env_dir or python.parent.parent), start_new_session=True)
            except OSError as exc:
                os.close(rfd)
                os.close(wfd)
                msg = f"cannot start {python}: {exc}"
                out.runs = [CheckRun("error", message=msg) for _ in checks]
                return out
        os.close(wfd)
        reader = os.fdopen(rfd, "r", encoding="utf-8")
        current: tuple[int, float, dict] | None = None   # (id, started, event)
        ended = False
        t_first: float | None = None
        t_last: float | None = None
        end_reason: str | None = None
        buf = ""
        try:
            while True:
                now = time.perf_counter()
                deadline = t_begin + batch_timeout
                if current is not None:
                    cid, started, _ = current
                    deadline = min(deadline, started + checks[cid].timeout * 1.5 + hard_grace)
                wait = max(0.0, deadline - now)
                ready, _, _ = select.select([reader], [], [], min(wait, 1.0))
                if not ready:
                    now = time.perf_counter()
                    if now >= deadline:
                        _kill(proc)
                        if current is not None and now >= current[1] + checks[current[0]].timeout * 1.5 + hard_grace:
                            cid = current[0]
                            runs[cid] = CheckRun(
                                "error", message=f"timed out after {checks[cid].timeout:g}s "
                                "(stuck outside Python code; the interpreter was killed)",
                                duration_s=round(now - current[1], 4),
                                stdout=_read_text(current[2].get("stdout")),
                                stderr=_read_text(current[2].get("stderr")))
                            end_reason = (f"the interpreter was killed after check "
                                          f"{checks[cid].name} timed out")
                        else:
                            end_reason = f"the batch timed out after {batch_timeout:g}s"
                            if current is not None:
                                cid = current[0]
                                runs[cid] = CheckRun(
                                    "error", message=end_reason, duration_s=round(
                                        now - current[1], 4),
                                    stdout=_read_text(current[2].get("stdout")),
                                    stderr=_read_text(current[2].get("stderr")))
                        break
                    continue
                chunk = os.read(reader.fileno(), 65536).decode("utf-8", "replace")
                if not chunk:          # EOF: the process closed the channel (exited)
                    break
                buf += chunk
                while "\n" in buf:
                    line, buf = buf.split("\n", 1)
                    if not line.strip():
                        continue
                    ev = json.loads(line)
                    kind = ev.get("event")
                    if kind == "versions":
                        out.installed = ev.get("installed", {})
                        out.python = ev.get("python")
                    elif kind == "mismatch":
                        msg = "installed versions differ from the pins: " + "; ".join(
                            ev.get("problems", []))
                        for i in range(len(checks)):
                            runs[i] = CheckRun("env-mismatch", message=msg)
                    elif kind == "imported":
                        out.import_s = ev.get("import_s")
                        if ev.get("error"):
                            end_reason = ev["error"]
                    elif kind == "start":
                        current = (ev["id"], time.perf_counter(), ev)
                        if t_first is None:
                            t_first = current[1]
                    elif kind == "done":
                        runs[ev["id"]] = CheckRun(
                            "ok" if ev["status"] == "ok" else "error",
                            value=_decode_floats(ev.get("value")), message=ev.get("error"),
                            duration_s=ev.get("duration_s"), stdout=ev.get("stdout") or None,
                            stderr=ev.get("stderr") or None)
                        current = None
                    elif kind == "end":
                        ended = True
                        t_last = time.perf_counter()
                if ended:      # every result is in; don't wait for EOF (a child may hold it)
                    break
        finally:
            reader.close()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
            _kill(proc)     # also ends any process a snippet left behind in the session
        rc = proc.returncode
        if t_last is not None:
            out.exit_s = round(time.perf_counter() - t_last, 4)
            if t_first is not None:
                out.checks_s = round(t_last - t_first, 4)
        if not ended and end_reason is None:
            how = (f"killed by {_signal_name(-rc)}" if rc is not None and rc < 0
                   else f"exited with code {rc}")
            if current is not None:
                cid = current[0]
                err = _read_text(current[2].get("stderr"))
                runs[cid] = CheckRun("error", message=f"the interpreter crashed during this "
                                     f"check ({how})", duration_s=round(
                                         time.perf_counter() - current[1], 4),
                                     stdout=_read_text(current[2].get("stdout")) or None,
                                     stderr=err or None)
                end_reason = f"the interpreter crashed ({how}) during check {checks[cid].name}"
            else:
                tail = _read_text(str(proc_err), 2000).strip().splitlines()[-3:]
                end_reason = f"the interpreter {how} before running checks" + (
                    f": {' | '.join(tail)}" if tail else "")
        for i in range(len(checks)):
            if i not in runs:
                runs[i] = CheckRun("error", message=f"not run: {end_reason or 'no result'}")
        out.note = end_reason
    out.runs = [runs[i] for i in range(len(checks))]
    out.wall_s = round(time.perf_counter() - t_begin, 4)
    return out


# --------------------------------------------------------------------------- comparison
def compare(value: Any, expected: Any, tolerance: float = 1e-9, where: str = "") -> str | None:
    """None when `value` matches `expected`; else a short description of the first difference.

    Numbers compare within `tolerance` (relative and absolute); bools, strings and
    None exactly; lists elementwise (same length); dicts by key."""
    at = f" at {where}" if where else ""
    if isinstance(expected, bool) or isinstance(value, bool):
        if isinstance(expected, bool) and isinstance(value, bool) and value == expected:
            return None
        return f"{_short(value)} != {_short(expected)}{at}"
    if isinstance(expected, (int, float)) and isinstance(value, (int, float)):
        if math.isnan(expected) and math.isnan(value):
            return None
        if math.isclose(value, expected, rel_tol=tolerance, abs_tol=tolerance):
            return None
        return f"{_short(value)} != {_short(expected)}{at} (tolerance {tolerance:g})"
    if isinstance(expected, (list, tuple)) and isinstance(value, (list, tuple)):
        if len(value) != len(expected):
            return f"length {len(value)} != {len(expected)}{at}"
        for i, (v, e) in enumerate(zip(value, expected)):
            diff = compare(v, e, tolerance, f"{where}[{i}]")
            if diff:
                return diff
        return None
    if isinstance(expected, dict) and isinstance(value, dict):
        if set(value) != set(expected):
            return f"keys {sorted(value)} != {sorted(expected)}{at}"
        for k in sorted(expected):
            diff = compare(value[k], expected[k], tolerance, f"{where}.{k}" if where else k)
            if diff:
                return diff
        return None
    if type(value) is type(expected) and value == expected:
        return None
    return f"{_short(value)} != {_short(expected)}{at}"


def _short(v: Any, limit: int = 80) -> str:
    text = json.dumps(v) if not isinstance(v, float) else repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."
