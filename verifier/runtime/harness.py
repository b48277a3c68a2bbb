"""The program that runs INSIDE an upstream's environment (standard library only).

    python -I harness.py CONFIG.json EVENT_FD PARENT_PID     (0: started by jail.py)

It is a small server: it imports the upstream once, then runs each check in a
process FORKED from itself, one at a time, on the parent's command.

CONFIG.json: {"modules": [...], "pins": {dist: version}, "scratch": "...",
              "warmup": ["python code", ...], "memory_mb": 4096, "grace": 2.0}

Commands arrive on stdin, one JSON object a line, each with a fresh nonce that
the parent made when it sent the command:

    {"op": "run", "id": 0, "nonce": "...", "name": "...", "setup": "...",
     "code": "...", "timeout": 60.0}
    {"op": "end", "nonce": "..."}

Events leave on file descriptor EVENT_FD (never stdout, which the checks may use):

    {"event": "versions", "installed": {...}, "python": "3.12.1"}   before any import
    {"event": "mismatch", "problems": [...]}                        then nothing is run
    {"event": "imported", "import_s": 0.4, "modules": [...], "error": null, "warmup": [...]}
    {"event": "done", "id": 0, "nonce": "...", "status": "ok"|"error", "value": ...,
     "error": "...", "duration_s": 0.001, "stdout": "...", "stderr": "..."}
    {"event": "end", "nonce": "..."}

Why a check cannot forge another check's result, nor change what it sees:
- the check runs in a child forked BEFORE its command (and nonce) was read, and
  that child holds neither the command pipe nor the event channel;
- before the parent gets `done` for a check, every process the check left
  behind is killed: this server is a child subreaper, so orphans of a check are
  re-parented to it and found by walking /proc; the next command (with the next
  nonce) is only sent after that `done`;
- each check gets a copy-on-write image of the server taken after the imports:
  its changes to builtins, modules and the interpreter die with its process;
- this process is not dumpable (no /proc/<pid>/mem, fd or ptrace access for a
  non-root process of the same user).

Containment of each check's process: a fresh scratch directory as working
directory, HOME and TMPDIR; resource limits (address space, CPU time, file size,
open files, processes, no core files); stdout/stderr captured at the
file-descriptor level into files and kept bounded; a per-check timer that
interrupts Python code, and a hard kill at 1.5 x timeout + grace for code stuck
in native code. A crash (segfault, abort, os._exit) ends only that check.
"""

import builtins
import ctypes
import errno
import faulthandler
import importlib
import json
import math
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
import warnings

MAX_OUT = 20000          # characters of stdout/stderr kept per check (head and tail)
MAX_RESULT = 16 << 20    # bytes of one check's JSON result
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36


class CheckTimeout(BaseException):
    """Raised by the timer inside a check that runs past its timeout."""


def _prctl(option, value):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


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


def read_bounded(path, limit=MAX_OUT):
    """Text of a capture file: all of it, or its head and tail with the size between."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size <= 4 * limit:
                data = fh.read(4 * limit)
                text = data.decode("utf-8", "replace")
                if len(text) <= limit:
                    return text
                head, tail = text[:limit // 2], text[-(limit // 2):]
            else:
                head = fh.read(2 * limit).decode("utf-8", "replace")[:limit // 2]
                fh.seek(size - 2 * limit)
                tail = fh.read().decode("utf-8", "replace")[-(limit // 2):]
    except OSError:
        return ""
    return "%s\n[... %d bytes in all; middle left out ...]\n%s" % (head, size, tail)


# --------------------------------------------------------------------------- processes
def _children_map():
    kids = {}
    try:
        names = os.listdir("/proc")
    except OSError:          # no /proc (not Linux): only the process group is killed
        return kids
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as fh:
                stat = fh.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2:
            kids.setdefault(int(fields[1]), []).append(int(name))
    return kids


def descendants(root):
    kids = _children_map()
    out, todo = [], list(kids.get(root, ()))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, ()))
    return out


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(rounds=50):
    """Kill every process below this one (it is their subreaper). True when none is left."""
    me = os.getpid()
    for _ in range(rounds):
        found = descendants(me)
        live = []
        for pid in found:
            try:
                with open("/proc/%d/stat" % pid, "rb") as fh:
                    state = fh.read().decode("ascii", "replace").rsplit(")", 1)[-1].split()[0]
            except OSError:
                continue
            if state != "Z":
                live.append(pid)
        if not live:
            reap()
            if not descendants(me):
                return True
            time.sleep(0.01)
            continue
        for pid in live:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.005)
        reap()
    return False


def _describe_exit(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "signal %d" % sig
        return "killed by %s" % name
    return "exited with code %d" % os.WEXITSTATUS(status)


# --------------------------------------------------------------------------- the check's process
def _limits(timeout, memory_mb):
    def lower(res, soft, hard=None):
        try:
            cur_soft, cur_hard = resource.getrlimit(res)
            hard = soft if hard is None else hard
            if cur_hard != resource.RLIM_INFINITY:
                hard = min(hard, cur_hard)
                soft = min(soft, hard)
            resource.setrlimit(res, (soft, hard))
        except (ValueError, OSError):
            pass
    cpu = int(math.ceil(timeout * 1.5)) + 2
    lower(resource.RLIMIT_CPU, cpu, cpu + 5)
    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_FSIZE, 256 << 20)
    lower(resource.RLIMIT_NOFILE, 4096)
    if memory_mb:
        try:
            with open("/proc/self/statm") as fh:
                size = int(fh.read().split()[0]) * resource.getpagesize()
        except (OSError, ValueError):
            size = 0
        lower(resource.RLIMIT_AS, size + (memory_mb << 20))
    try:     # processes are counted per user: allow this many more than exist now
        uid = os.getuid()
        mine = 0
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.stat("/proc/" + name).st_uid == uid:
                        mine += 1
                except OSError:
                    pass
        lower(resource.RLIMIT_NPROC, mine + 64)
    except OSError:
        pass


def child_main(task_r, res_w, preload, memory_mb):
    """Runs in the forked check process; never returns."""
    code = 1
    try:
        data = b""
        while True:
            chunk = os.read(task_r, 1 << 16)
            if not chunk:
                break
            data += chunk
        os.close(task_r)
        if not data:          # the server is ending: nothing to run
            os._exit(0)
        task = json.loads(data.decode("utf-8"))
        work = task["dir"]
        for sub in ("home", "tmp"):
            os.makedirs(os.path.join(work, sub), exist_ok=True)
        os.chdir(work)
        os.environ["HOME"] = os.path.join(work, "home")
        os.environ["TMPDIR"] = os.path.join(work, "tmp")
        tempfile.tempdir = None
        sys.argv = ["<check %s>" % task["name"]]
        _limits(float(task["timeout"]), memory_mb)
        out_fd = os.open(os.path.join(work, "stdout"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err_fd = os.open(os.path.join(work, "stderr"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.close(out_fd)
        os.close(err_fd)
        result = run_check(task, preload)
        try:
            text = json.dumps(result, allow_nan=False)
        except (TypeError, ValueError) as exc:
            text = json.dumps({"status": "error", "value": None,
                               "error": "result cannot be sent: %s" % exc,
                               "duration_s": result.get("duration_s")})
        sys.stdout.flush()
        sys.stderr.flush()
        payload = text.encode("utf-8")
        view = memoryview(payload)
        while view:
            n = os.write(res_w, view)
            view = view[n:]
        os.close(res_w)
        code = 0
    except BaseException:  # noqa: BLE001 - the server reports a missing result
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    os._exit(code)


def run_check(task, preload):
    def on_alarm(signum, frame):
        raise CheckTimeout()

    signal.signal(signal.SIGALRM, on_alarm)
    ns = {"__name__": "__verifier_check__", "__builtins__": builtins}
    ns.update(preload)
    status, value, err = "ok", None, None
    timeout = float(task.get("timeout") or 60)
    start = time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            if task.get("setup"):
                exec(compile(task["setup"], "<setup of %s>" % task["name"], "exec"), ns)
            exec(compile(task["code"], "<check %s>" % task["name"], "exec"), ns)
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
        sys.stderr.write("".join(tb[:1] + tb[2:]))      # drop the harness's own frame
    return {"status": status, "value": value, "error": err,
            "duration_s": round(time.perf_counter() - start, 6)}


# --------------------------------------------------------------------------- the server
class Server:
    def __init__(self, config, chan, preload):
        self.config = config
        self.chan = chan
        self.preload = preload
        self.idle = None           # (pid, task_w, res_r) of the forked, waiting child
        self.memory_mb = int(config.get("memory_mb") or 0)
        self.grace = float(config.get("grace", 2.0))

    def emit(self, obj):
        self.chan.write(json.dumps(obj, allow_nan=False) + "\n")
        self.chan.flush()

    def fork_idle(self):
        task_r, task_w = os.pipe()
        res_r, res_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)   # fork of a threaded process
            pid = os.fork()
        if pid == 0:
            try:
                _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                os.setsid()
                keep = {task_r, res_w, 1, 2}
                for fd in (task_w, res_r, self.chan.fileno()):
                    if fd not in keep:
                        os.close(fd)
                devnull = os.open(os.devnull, os.O_RDONLY)
                os.dup2(devnull, 0)
                os.close(devnull)
                self.chan = None
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
            except BaseException:  # noqa: BLE001
                os._exit(1)
            child_main(task_r, res_w, self.preload, self.memory_mb)
        os.close(task_r)
        os.close(res_w)
        self.idle = (pid, task_w, res_r)

    def run(self, cmd):
        pid, task_w, res_r = self.idle
        self.idle = None
        cid, timeout = cmd["id"], float(cmd.get("timeout") or 60)
        work = tempfile.mkdtemp(prefix="c%d-" % cid, dir=self.config["scratch"])
        task = {"name": cmd.get("name", str(cid)), "setup": cmd.get("setup"),
                "code": cmd["code"], "timeout": timeout, "dir": work}
        data = json.dumps(task).encode("utf-8")
        start = time.perf_counter()
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(task_w, view):]
        except OSError:
            pass
        os.close(task_w)
        hard = start + timeout * 1.5 + self.grace
        buf, status, too_big, killed, eof = b"", None, False, False, False
        os.set_blocking(res_r, False)
        try:
            pidfd = os.pidfd_open(pid)      # readable when the check's process ends
        except (AttributeError, OSError):
            pidfd = None
        while True:
            if status is None:
                got, st = os.waitpid(pid, os.WNOHANG)
                if got:
                    status = st
            try:
                while not eof:
                    chunk = os.read(res_r, 1 << 16)
                    if not chunk:
                        eof = True
                    elif len(buf) < MAX_RESULT:
                        buf += chunk
                    else:
                        too_big = True
            except BlockingIOError:
                pass
            if status is not None:
                break
            now = time.perf_counter()
            if now >= hard and not killed:
                killed = True
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            watch = ([] if eof else [res_r]) + ([pidfd] if pidfd is not None else [])
            wait = max(0.0, min(0.05 if pidfd is None else 0.5, hard - now)) if not killed else 0.05
            if watch:
                select.select(watch, [], [], wait)
            else:
                time.sleep(min(wait, 0.01))
        os.close(res_r)
        if pidfd is not None:
            os.close(pidfd)
        duration = time.perf_counter() - start
        clean = kill_descendants()
        stdout = read_bounded(os.path.join(work, "stdout"))
        stderr = read_bounded(os.path.join(work, "stderr"))
        result = None
        if buf and not too_big and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            try:
                result = json.loads(buf.decode("utf-8"))
                if not isinstance(result, dict) or result.get("status") not in ("ok", "error"):
                    result = None
            except ValueError:
                result = None
        if killed:
            result = {"status": "error", "value": None,
                      "error": "timed out after %gs (stuck outside Python code; the check's "
                               "process was killed)" % timeout}
        elif result is None:
            why = ("its result was larger than %d MB" % (MAX_RESULT >> 20) if too_big else
                   "without a result" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
                   else "")
            how = _describe_exit(status)
            result = {"status": "error", "value": None,
                      "error": "the check's process crashed (%s)%s" % (
                          how, (" " + why) if why else "")}
        result.setdefault("duration_s", round(duration, 6))
        if result.get("duration_s") is None:
            result["duration_s"] = round(duration, 6)
        shutil.rmtree(work, ignore_errors=True)
        event = {"event": "done", "id": cid, "nonce": cmd.get("nonce"),
                 "status": result["status"], "value": result.get("value"),
                 "error": result.get("error"), "duration_s": result["duration_s"],
                 "stdout": stdout, "stderr": stderr}
        if not clean:
            event["status"] = "error"
            event["error"] = "processes the check started could not all be ended"
            event["fatal"] = True
        return event

    def serve(self):
        lines = sys.stdin.buffer
        while True:
            if self.idle is None:
                self.fork_idle()
            raw = lines.readline()
            if not raw:
                break
            try:
                cmd = json.loads(raw.decode("utf-8"))
            except ValueError:
                continue
            if not isinstance(cmd, dict):
                continue
            if cmd.get("op") == "end":
                self.emit({"event": "end", "nonce": cmd.get("nonce")})
                break
            if cmd.get("op") == "run":
                event = self.run(cmd)
                self.emit(event)
                if event.get("fatal"):
                    break
        self.shutdown()

    def shutdown(self):
        if self.idle is not None:
            pid, task_w, res_r = self.idle
            for fd in (task_w, res_r):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.idle = None
        kill_descendants()


def main(argv):
    config_path, fd, parent = argv[1], int(argv[2]), int(argv[3])
    os.set_inheritable(fd, False)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)     # the verifier died: clean up and go
    if parent and os.getppid() != parent:       # 0: started by jail.py, which checked
        return 0
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)

    scratch = []

    def on_term(signum, frame):
        kill_descendants(rounds=10)
        if scratch and parent and os.getppid() != parent:   # the verifier is gone
            shutil.rmtree(scratch[0], ignore_errors=True)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    chan = os.fdopen(fd, "w", buffering=1, encoding="utf-8")

    def emit(obj):
        chan.write(json.dumps(obj, allow_nan=False) + "\n")
        chan.flush()

    with open(config_path, encoding="utf-8") as fh:
        config = json.load(fh)
    scratch.append(os.path.dirname(config["scratch"]))

    from importlib import metadata
    installed = {}
    for dist in config.get("pins", {}):
        try:
            installed[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            installed[dist] = None
    emit({"event": "versions", "installed": installed,
          "python": "%d.%d.%d" % sys.version_info[:3]})
    problems = []
    for dist, want in sorted(config.get("pins", {}).items()):
        have = installed.get(dist)
        if not _same_version(have, want):
            problems.append("%s %s installed, pinned %s" % (dist, have or "not", want)
                            if have else "%s is not installed (pinned %s)" % (dist, want))
    if problems:
        emit({"event": "mismatch", "problems": problems})
        return 0

    faulthandler.enable(all_threads=False)   # a segfault dumps the Python stack to stderr
    preload = {"math": math}
    t0 = time.perf_counter()
    error = None
    for mod in config.get("modules", []):
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
    import_s = round(time.perf_counter() - t0, 4)
    warm = []
    if error is None:
        for code in config.get("warmup", []):   # the verifier's own code, never a claim's
            w0 = time.perf_counter()
            try:
                exec(compile(code, "<warm-up>", "exec"), dict(preload))
                warm.append({"s": round(time.perf_counter() - w0, 4), "error": None})
            except BaseException as exc:  # noqa: BLE001 - a failed warm-up only costs time
                warm.append({"s": round(time.perf_counter() - w0, 4),
                             "error": "%s: %s" % (type(exc).__name__, exc)})
    emit({"event": "imported", "import_s": import_s,
          "modules": sorted(preload), "error": error, "warmup": warm})
    if error is not None:
        return 0
    Server(config, chan, preload).serve()
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    # Every result is already on the channel: skip interpreter teardown, which costs
    # seconds for some upstreams (Warp unloading its kernel modules at exit).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
