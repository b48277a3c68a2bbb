"""Run a batch of runtime checks of ONE upstream: one harness process, one forked
process per check (see harness.py).

The import cost of the upstream is paid once per batch (the harness imports it,
then forks a copy-on-write child per check); each check still runs in its own
process with its exceptions, output and time kept, and its mutations of
builtins and modules die with it.

Enforced here, in the verifier:
- results are accepted only as answers to a command: each command carries a
  fresh random nonce, made when the command is sent (after every process of the
  previous check has ended), and a `done` is accepted only for the check that
  was sent, with its nonce. Anything else on the channel is a forgery: the
  running check becomes `error`;
- the harness runs with an allow-listed environment, a scratch directory as
  working directory and HOME/TMPDIR, in its own session; it dies with the
  verifier (parent-death signal) and kills what its checks left behind
  (subreaper); after the batch, the verifier also kills the session and every
  process still carrying the batch's marker variable;
- the harness is started through `jail.py` where the machine allows (PID, mount,
  network and user namespaces, a read-only file system but for the scratch
  directory, a separate uid as root; `sandbox.py` plans it), so no check can see,
  signal or read the verifier, write into the project, the cache or the
  environment; what could not be had is reported (`BatchRun.isolation`);
- backstop timeouts: a check's `done` must arrive by 1.5 x timeout + grace +
  10 s (the harness itself kills a stuck check at 1.5 x timeout + grace); the
  whole batch by 300 s + the sum of the check timeouts; past either the
  harness is killed and the remaining checks are `error`;
- everything a batch returns is bounded and sanitised (`contain.Sanitizer`,
  `contain.bounded`): token-like strings redacted, machine paths replaced by
  placeholders, a value nested deeper than 64 levels or larger than the result
  limit refused, texts cut to their limits.
"""

from __future__ import annotations

import json
import math
import os
import secrets
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.runtime import sandbox
from verifier.runtime.contain import (MAX_MESSAGE, MAX_OUTPUT, Sanitizer, bounded_text,
                                       kill_marked, protect_self, scrubbed_env, value_problem)
from verifier.runtime.envs import EnvSpec

HARNESS = Path(__file__).with_name("harness.py")
IMPORT_ALLOWANCE = 300.0   # seconds allowed for interpreter start + imports
MEMORY_MB = 4096           # address space a check may add to the imported harness
MAX_LINE = 64 << 20        # bytes of one event line
KERNEL_CACHE = ".warp-cache"   # Warp's kernel cache, kept in the environment


@dataclass(frozen=True)
class CheckSpec:
    """One check to run: `name` is for messages (the claim's global id)."""

    name: str
    code: str
    setup: str | None = None
    timeout: float = 60.0


@dataclass
class CheckRun:
    """What happened to one check (before comparison with the expectation).

    `value` is the snippet's raw result (compare it, then pass it through the
    batch's sanitizer before keeping it); `message`, `stdout` and `stderr` are
    already sanitised."""

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
    warmup_s: float | None = None     # the verifier's warm-up inside the harness
    sanitizer: Sanitizer = field(default_factory=Sanitizer)
    isolation: dict | None = None     # what the sandbox achieved: {"have": [...], "missing": {...}}


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


def _read_text(path: Path, limit: int = 2000) -> str:
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - 4 * limit))
            return fh.read().decode("utf-8", "replace")[-limit:]
    except OSError:
        return ""


class _Channel:
    """Lines from the harness's event pipe, with deadlines."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""
        self.eof = False
        self.overflow = False

    def next(self, deadline: float) -> dict | str | None:
        """The next event (dict), a line that is not one (str), or None at the deadline/EOF."""
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line, self.buf = self.buf[:nl], self.buf[nl + 1:]
                if not line.strip():
                    continue
                try:
                    ev = json.loads(line.decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    return line[:200].decode("utf-8", "replace")
                return ev if isinstance(ev, dict) else line[:200].decode("utf-8", "replace")
            if self.eof:
                return None
            wait = deadline - time.perf_counter()
            if wait <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], min(wait, 1.0))
            if not ready:
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                self.eof = True
                continue
            self.buf += chunk
            if len(self.buf) > MAX_LINE and b"\n" not in self.buf:
                self.buf = b""
                self.overflow = True
                return "(an event line longer than the limit was dropped)"


def _end(proc: subprocess.Popen, marker: str) -> None:
    """Stop the harness (it kills what its checks left), then its session and the marked."""
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        try:
            proc.terminate()            # the harness's handler kills its descendants
            proc.wait(timeout=3)
        except (OSError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    kill_marked(marker)


def _kernel_cache(kept: Path, scratch: Path, *, seed: bool) -> None:
    """Warp's kernel cache: a batch works on a copy in its scratch directory, seeded
    from the environment's; afterwards the entries it added (one directory per
    compiled module, named by its content hash) are kept for later batches. Entries
    already kept are never replaced by a batch."""
    src, dst = (kept, scratch) if seed else (scratch, kept)
    if not src.is_dir():
        return
    try:
        for version in sorted(p for p in src.iterdir() if p.is_dir() and not p.is_symlink()):
            for entry in sorted(version.iterdir()):
                target = dst / version.name / entry.name
                if entry.is_symlink() or target.exists() or entry.name.startswith("."):
                    continue
                tmp = dst / version.name / f".{entry.name}.{secrets.token_hex(4)}"
                if entry.is_dir():
                    shutil.copytree(entry, tmp, symlinks=True)
                else:
                    tmp.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(entry, tmp)
                os.replace(tmp, target)
    except OSError:
        pass            # only a cost: kernels compile again


def run_batch(python: Path, spec: EnvSpec, checks: list[CheckSpec], *,
              batch_timeout: float | None = None, env_dir: Path | None = None,
              hard_grace: float = 2.0, paths: dict[str, str] | None = None,
              memory_mb: int | None = None, hide: tuple[str, ...] = ()) -> BatchRun:
    """Run `checks` with the environment's `python`. Never raises for check failures.

    `paths` maps machine paths to the placeholders that replace them in kept output
    (the scratch directory and the environment are always replaced); `hide`: more
    directories the sandbox hides from the checks (the cache it runs from)."""
    t_begin = time.perf_counter()
    if batch_timeout is None:
        batch_timeout = IMPORT_ALLOWANCE + sum(c.timeout for c in checks)
    env_dir = env_dir or python.parent.parent
    runs: dict[int, CheckRun] = {}
    try:
        scratch = Path(tempfile.mkdtemp(prefix="verifier-rt-"))
    except OSError as exc:
        msg = f"cannot make a scratch directory for the checks: {exc}"
        return BatchRun(runs=[CheckRun("error", message=msg) for _ in checks], note=msg)
    marker = secrets.token_hex(16)
    labels = {str(env_dir): "<env>", str(HARNESS.parent.parent): "<verifier>",
              **(paths or {})}
    san = Sanitizer(labels, scratch=scratch)
    out = BatchRun(runs=[], sanitizer=san)
    try:
        try:
            for sub in ("home", "tmp", "work", "checks"):
                (scratch / sub).mkdir()
            _kernel_cache(env_dir / KERNEL_CACHE, scratch / "warp-cache", seed=True)
            # the harness runs from the scratch directory: the verifier's own files (maybe
            # under the home directory the sandbox hides) are not needed by a check
            shutil.copyfile(HARNESS, scratch / HARNESS.name)
            config = {"modules": spec.modules, "pins": spec.pins, "warmup": spec.warmup,
                      "scratch": str(scratch / "checks"), "grace": hard_grace,
                      "memory_mb": MEMORY_MB if memory_mb is None else memory_mb}
            config_file = scratch / "config.json"
            config_file.write_text(json.dumps(config), encoding="utf-8")
        except OSError as exc:
            msg = san.text(f"cannot prepare the scratch directory {scratch}: {exc}")
            out.runs = [CheckRun("error", message=msg) for _ in checks]
            out.note = msg
            return out
        _drive(python, env_dir, checks, runs, out, scratch, config_file, marker, t_begin,
               batch_timeout, hard_grace, san, hide)
        _kernel_cache(env_dir / KERNEL_CACHE, scratch / "warp-cache", seed=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out.runs = [runs[i] for i in range(len(checks))]
    out.wall_s = round(time.perf_counter() - t_begin, 4)
    return out


def _drive(python: Path, env_dir: Path, checks: list[CheckSpec], runs: dict[int, CheckRun],
           out: BatchRun, scratch: Path, config_file: Path, marker: str, t_begin: float,
           batch_timeout: float, hard_grace: float, san: Sanitizer,
           hide: tuple[str, ...] = ()) -> None:
    proc_err = scratch / "harness.err"
    rfd, wfd = os.pipe()
    protect_self()      # nothing running as this user may read this process's memory
    harness = [str(python), "-I", str(scratch / HARNESS.name), str(config_file), str(wfd)]
    plan = sandbox.plan(scratch, env_dir, python, wfd, hide)
    argv = (sandbox.command(python, plan, scratch, [*harness, "0"]) if plan is not None
            else [*harness, str(os.getpid())])
    if plan is None:
        out.isolation = {"have": [], "missing": {"sandbox": sandbox.disabled_reason()}}
    with open(scratch / "harness.out", "wb") as fo, open(proc_err, "wb") as fe:
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=fo, stderr=fe, pass_fds=(wfd,),
                cwd=scratch / "work", env=scrubbed_env(scratch, env_dir, marker),
                start_new_session=True)
        except OSError as exc:
            os.close(rfd)
            os.close(wfd)
            msg = san.text(f"cannot start {python}: {exc}")
            for i in range(len(checks)):
                runs[i] = CheckRun("error", message=msg)
            return
    os.close(wfd)
    chan = _Channel(rfd)
    batch_deadline = t_begin + batch_timeout
    end_reason: str | None = None
    t_last: float | None = None

    def stopped(what: str) -> str:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        rc = proc.poll()
        if rc is None:
            return f"the harness {what}"
        how = f"killed by {_signal_name(-rc)}" if rc < 0 else f"exited with code {rc}"
        tail = " | ".join(_read_text(proc_err).strip().splitlines()[-3:])
        return f"the harness {how}" + (f": {tail}" if tail else "")

    try:
        # ---- before any check: versions, then imports (nothing of a claim has run yet)
        imported = False
        while not imported:
            ev = chan.next(min(batch_deadline, t_begin + IMPORT_ALLOWANCE))
            if ev is None:
                if chan.eof:
                    end_reason = stopped("stopped") + " before running checks"
                else:
                    end_reason = f"the harness did not import within {IMPORT_ALLOWANCE:g}s"
                return
            if not isinstance(ev, dict):
                continue                  # the harness's own start-up noise cannot forge anything
            kind = ev.get("event")
            if kind == "sandbox" and out.isolation is None:     # before any claim's code
                out.isolation = {"have": [str(h) for h in ev.get("have") or []][:20],
                                 "missing": {str(k): str(v)[:200] for k, v in
                                             dict(ev.get("missing") or {}).items()}}
            elif kind == "versions":
                out.installed = ev.get("installed", {})
                out.python = ev.get("python")
            elif kind == "mismatch":
                msg = "installed versions differ from the pins: " + "; ".join(ev.get("problems", []))
                for i in range(len(checks)):
                    runs[i] = CheckRun("env-mismatch", message=san.text(msg))
                return
            elif kind == "imported":
                out.import_s = ev.get("import_s")
                warm = ev.get("warmup") or []
                out.warmup_s = round(sum(w.get("s") or 0 for w in warm), 4) if warm else None
                if ev.get("error"):
                    end_reason = ev["error"]
                    return
                imported = True
        # ---- one check at a time, each answer bound to its command's nonce
        t_first = time.perf_counter()
        for i, check in enumerate(checks):
            nonce = secrets.token_hex(16)
            cmd = {"op": "run", "id": i, "nonce": nonce, "name": check.name,
                   "setup": check.setup, "code": check.code, "timeout": check.timeout}
            started = time.perf_counter()
            try:
                proc.stdin.write((json.dumps(cmd) + "\n").encode("utf-8"))
                proc.stdin.flush()
            except OSError:
                end_reason = stopped("stopped taking commands")
                return
            forged: list[str] = []           # the first few lines that were not the answer
            n_forged = 0
            check_deadline = started + check.timeout * 1.5 + hard_grace + 10
            while True:
                deadline = min(batch_deadline, check_deadline)
                ev = chan.next(deadline)
                if ev is None:
                    now = time.perf_counter()
                    if chan.eof:
                        reason = stopped("stopped")
                        runs[i] = CheckRun("error", message=san.text(
                            f"{reason} during this check"), duration_s=round(now - started, 4))
                        end_reason = f"{reason} during check {check.name}"
                    elif now >= batch_deadline:
                        end_reason = f"the batch timed out after {batch_timeout:g}s"
                        runs[i] = CheckRun("error", message=end_reason,
                                           duration_s=round(now - started, 4))
                    else:
                        end_reason = (f"the harness did not answer for check {check.name} "
                                      f"within {check_deadline - started:g}s; it was killed")
                        runs[i] = CheckRun("error", message=f"timed out after {check.timeout:g}s "
                                           "(the harness did not answer; it was killed)",
                                           duration_s=round(now - started, 4))
                    return
                if (isinstance(ev, dict) and ev.get("event") == "done" and ev.get("id") == i
                        and isinstance(ev.get("nonce"), str)
                        and secrets.compare_digest(ev["nonce"], nonce)):
                    break
                n_forged += 1
                if len(forged) < 3:
                    forged.append(_describe(ev))
            value = ev.get("value")
            problem = value_problem(value)
            run = CheckRun("ok" if ev.get("status") == "ok" and problem is None else "error",
                           value=None if problem else _decode_floats(value),
                           message=san.text(bounded_text(problem or ev.get("error"),
                                                         MAX_MESSAGE)),
                           duration_s=ev.get("duration_s")
                           if isinstance(ev.get("duration_s"), (int, float)) else None,
                           stdout=san.text(bounded_text(ev.get("stdout"), MAX_OUTPUT)) or None,
                           stderr=san.text(bounded_text(ev.get("stderr"), MAX_OUTPUT)) or None)
            if forged:
                run = CheckRun("error", message=san.text(
                    f"something other than the harness wrote to the result channel during "
                    f"this check ({n_forged} line(s), e.g. {forged[0]}); its result is not "
                    "trusted"), duration_s=run.duration_s, stdout=run.stdout, stderr=run.stderr)
            runs[i] = run
            if ev.get("fatal"):
                end_reason = f"processes started by check {check.name} could not all be ended"
                return
        out.checks_s = round(time.perf_counter() - t_first, 4) if checks else None
        nonce = secrets.token_hex(16)
        try:
            proc.stdin.write((json.dumps({"op": "end", "nonce": nonce}) + "\n").encode())
            proc.stdin.flush()
        except OSError:
            return
        t_last = time.perf_counter()
        while True:
            ev = chan.next(t_last + 10)
            if ev is None or (isinstance(ev, dict) and ev.get("event") == "end"
                              and ev.get("nonce") == nonce):
                break
    finally:
        _end(proc, marker)
        sandbox.release(plan)
        os.close(rfd)
        if t_last is not None:
            out.exit_s = round(time.perf_counter() - t_last, 4)
        for i in range(len(checks)):
            if i not in runs:
                runs[i] = CheckRun("error", message=san.text(
                    f"not run: {end_reason or 'no result'}"))
        out.note = san.text(end_reason)


def _describe(ev: dict | str) -> str:
    if isinstance(ev, dict):
        what = {k: ev.get(k) for k in ("event", "id") if k in ev}
        return json.dumps(what)[:120]
    return repr(ev[:80])


# --------------------------------------------------------------------------- comparison
def compare(value: Any, expected: Any, tolerance: float = 1e-9, where: str = "",
            subset: bool = False) -> str | None:
    """None when `value` matches `expected`; else a short description of the first difference.

    Numbers compare within `tolerance` (relative and absolute); bools, strings and
    None exactly; lists elementwise (same length); dicts by key: the same keys, or
    with `subset` only the keys `expected` names (at every level)."""
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
            diff = compare(v, e, tolerance, f"{where}[{i}]", subset)
            if diff:
                return diff
        return None
    if isinstance(expected, dict) and isinstance(value, dict):
        if subset:
            missing = sorted(set(expected) - set(value))
            if missing:
                return f"key(s) {missing} missing{at} (has {sorted(value)})"
        elif set(value) != set(expected):
            return f"keys {sorted(value)} != {sorted(expected)}{at}"
        for k in sorted(expected):
            diff = compare(value[k], expected[k], tolerance, f"{where}.{k}" if where else k,
                           subset)
            if diff:
                return diff
        return None
    if type(value) is type(expected) and value == expected:
        return None
    return f"{_short(value)} != {_short(expected)}{at}"


def _short(v: Any, limit: int = 80) -> str:
    text = json.dumps(v) if not isinstance(v, float) else repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."
