"""The program that runs INSIDE an upstream's environment (standard library only).

    python -I harness.py BATCH.json FD

BATCH.json: {"modules": [...], "pins": {dist: version}, "capture_dir": "...",
             "checks": [{"id": 0, "name": "...", "setup": "...", "code": "...",
                         "timeout": 60.0}]}

Events are written as JSON lines to file descriptor FD (never stdout, which the
checks may use):

    {"event": "versions", "installed": {...}}          before anything is imported
    {"event": "mismatch", "problems": [...]}           then exit 0: nothing was run
    {"event": "imported", "import_s": 0.4, "error": null}
    {"event": "start", "id": 0, "stdout": path, "stderr": path}
    {"event": "done", "id": 0, "status": "ok"|"error", "value": ..., "error": "...",
     "duration_s": 0.001, "stdout": "...", "stderr": "..."}
    {"event": "end"}

Each check runs in a fresh namespace holding only the pre-imported modules;
its exceptions are caught and reported; its stdout/stderr are captured at the
file-descriptor level (so output of C code is kept too); a per-check timer
interrupts Python code that runs too long. A crash (segfault, abort) ends the
process: the parent sees a 'start' without 'done' and reports it.
"""

import builtins
import faulthandler
import importlib
import json
import math
import os
import signal
import sys
import time
import traceback

MAX_OUT = 20000


class CheckTimeout(BaseException):
    """Raised by the timer inside a check that runs past its timeout."""


def jsonable(v, depth=0):
    if depth > 50:
        raise TypeError("result nested too deeply")
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, (list, tuple)):
        return [jsonable(x, depth + 1) for x in v]
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                k = str(k)
            out[k] = jsonable(x, depth + 1)
        return out
    if hasattr(v, "tolist"):            # numpy arrays and scalars, warp arrays via numpy()
        return jsonable(v.tolist(), depth + 1)
    if hasattr(v, "item"):
        return jsonable(v.item(), depth + 1)
    if hasattr(v, "numpy"):
        return jsonable(v.numpy(), depth + 1)
    # int-like enums (pybind11 enums, IntEnum) are numbers
    if hasattr(v, "__index__"):
        return int(v.__index__())
    if hasattr(v, "__float__"):
        return float(v)
    raise TypeError("result of type %s is not JSON-serialisable" % type(v).__name__)


def _float_safe(v):
    """JSON text cannot hold NaN/inf portably: encode them as tagged strings."""
    if isinstance(v, float) and not math.isfinite(v):
        return {"__float__": repr(v)}
    if isinstance(v, list):
        return [_float_safe(x) for x in v]
    if isinstance(v, dict):
        return {k: _float_safe(x) for k, x in v.items()}
    return v


def _same_version(have, want):
    """'1.18' == '1.18.0'; otherwise exact (local labels and pre-releases differ)."""
    if have is None:
        return False
    if have == want:
        return True

    def release(v):
        parts = v.split(".")
        if not all(p.isdigit() for p in parts):
            return None
        nums = [int(p) for p in parts]
        while nums and nums[-1] == 0:
            nums.pop()
        return nums
    a, b = release(have), release(want)
    return a is not None and a == b


def _read(path):
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return ""
    text = data.decode("utf-8", "replace")
    if len(text) > MAX_OUT:
        text = text[:MAX_OUT] + "\n[... %d more characters]" % (len(text) - MAX_OUT)
    return text


def main(argv):
    batch_path, fd = argv[1], int(argv[2])
    os.set_inheritable(fd, False)      # processes a snippet starts must not hold the channel
    chan = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def emit(obj):
        chan.write(json.dumps(obj, allow_nan=False) + "\n")
        chan.flush()

    with open(batch_path, encoding="utf-8") as fh:
        batch = json.load(fh)

    from importlib import metadata
    installed = {}
    for dist in batch.get("pins", {}):
        try:
            installed[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            installed[dist] = None
    emit({"event": "versions", "installed": installed,
          "python": "%d.%d.%d" % sys.version_info[:3]})
    problems = []
    for dist, want in sorted(batch.get("pins", {}).items()):
        have = installed.get(dist)
        if not _same_version(have, want):
            problems.append("%s %s installed, pinned %s" % (dist, have or "not", want)
                            if have else "%s is not installed (pinned %s)" % (dist, want))
    if problems:
        emit({"event": "mismatch", "problems": problems})
        emit({"event": "end"})
        return 0

    faulthandler.enable(all_threads=False)   # a segfault dumps the Python stack to stderr
    preload = {"math": math}
    t0 = time.perf_counter()
    error = None
    for mod in batch.get("modules", []):
        try:
            importlib.import_module(mod)
            top = mod.split(".")[0]
            preload[top] = sys.modules[top]
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            error = "import %s failed: %s: %s" % (mod, type(exc).__name__, exc)
            break
    if error is None:
        try:
            import numpy
            preload["np"] = numpy
        except ImportError:
            pass
    if "warp" in preload:
        preload["wp"] = preload["warp"]
    emit({"event": "imported", "import_s": round(time.perf_counter() - t0, 4),
          "modules": sorted(preload), "error": error})
    if error is not None:
        emit({"event": "end"})
        return 0

    def on_alarm(signum, frame):
        raise CheckTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    cap = batch["capture_dir"]
    for check in batch["checks"]:
        cid = check["id"]
        out_path = os.path.join(cap, "check-%d.out" % cid)
        err_path = os.path.join(cap, "check-%d.err" % cid)
        emit({"event": "start", "id": cid, "stdout": out_path, "stderr": err_path})
        sys.stdout.flush()
        sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        ns = {"__name__": "__verifier_check__", "__builtins__": builtins}
        ns.update(preload)
        status, value, err = "ok", None, None
        timeout = float(check.get("timeout") or 60)
        start = time.perf_counter()
        try:
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                if check.get("setup"):
                    exec(compile(check["setup"], "<setup of %s>" % check["name"], "exec"), ns)
                exec(compile(check["code"], "<check %s>" % check["name"], "exec"), ns)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if "result" not in ns:
                status, err = "error", "the snippet did not assign `result`"
            else:
                value = _float_safe(jsonable(ns["result"]))
        except CheckTimeout:
            status, err = "error", "timed out after %gs" % timeout
        except SystemExit as exc:
            status, err = "error", "the snippet called sys.exit(%r)" % (exc.code,)
        except BaseException as exc:  # noqa: BLE001 - the snippet's failure is the result
            status = "error"
            err = "%s: %s" % (type(exc).__name__, exc)
            tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
            # drop the harness's own frame
            sys.stderr.write("".join(tb[:1] + tb[2:]))
        duration = time.perf_counter() - start
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in (out_fd, err_fd, saved[0], saved[1]):
            os.close(f)
        emit({"event": "done", "id": cid, "status": status, "value": value, "error": err,
              "duration_s": round(duration, 6), "stdout": _read(out_path),
              "stderr": _read(err_path)})
    emit({"event": "end"})
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    # Every result is already on the channel: skip interpreter teardown, which costs
    # seconds for some upstreams (Warp unloading its kernel modules at exit).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
