"""What every section needs: the machine, CLI runs with their CPU time, a scratch cache."""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from verifier.bench.model import CliRun, Machine
from verifier.cache import SOURCE_SECTIONS, Store, dir_size

__all__ = ["cli_run", "cli_run_raw", "median_run", "dir_size", "load_avg", "machine", "py_run",
           "scratch_cache"]



def _cmd_out(cmd: list[str]) -> str | None:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def machine() -> Machine:
    model = mem = osname = None
    with contextlib.suppress(OSError):
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                model = ln.split(":", 1)[1].strip()
                break
    with contextlib.suppress(OSError, ValueError):
        for ln in Path("/proc/meminfo").read_text().splitlines():
            if ln.startswith("MemTotal:"):
                mem = round(int(ln.split()[1]) / (1 << 20), 1)
    with contextlib.suppress(OSError):
        for ln in Path("/etc/os-release").read_text().splitlines():
            if ln.startswith("PRETTY_NAME="):
                osname = ln.split("=", 1)[1].strip('"')
    ctags = shutil.which("ctags")
    return Machine(cpus=os.cpu_count() or 1, cpu_model=model, memory_gib=mem,
                   kernel=platform.release(), os=osname, python=platform.python_version(),
                   git=_cmd_out(["git", "--version"]),
                   ctags=(_cmd_out([ctags, "--version"]) or "").splitlines()[0] if ctags else None,
                   load_avg_start=load_avg())


def load_avg() -> tuple[float, float, float] | None:
    try:
        return tuple(round(x, 2) for x in os.getloadavg())  # type: ignore[return-value]
    except OSError:
        return None



@contextlib.contextmanager
def scratch_cache(store: "Store"):
    """A cache root inside the store's tmp/ sharing its source data (symlinks to the
    `SOURCE_SECTIONS`), with its own empty fact cache, symbol indexes and tmp/."""
    from verifier.cache import README

    root = Path(tempfile.mkdtemp(prefix="bench-", dir=store.path("tmp")))
    try:
        (root / "README").write_text(README)     # a cache, not a foreign directory
        for sub in SOURCE_SECTIONS:
            store.path(sub).mkdir(parents=True, exist_ok=True)
            (root / sub).symlink_to(store.path(sub), target_is_directory=True)
        yield root
    finally:
        for sub in SOURCE_SECTIONS:
            with contextlib.suppress(OSError):
                (root / sub).unlink()
        shutil.rmtree(root, ignore_errors=True)


def first_difference(command: str, cold: bytes, warm: bytes) -> str | None:
    """Where a warm output first differs from the cold one (for the record), or None."""
    if cold == warm:
        return None
    a, b = cold.decode(errors="replace").splitlines(), warm.decode(errors="replace").splitlines()
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    got = lambda lines: repr(lines[i][:160]) if i < len(lines) else "end of output"  # noqa: E731
    return f"{command}: output line {i + 1} differs: cold {got(a)}, warm {got(b)}"


def cli_run(args: list[str], env: dict[str, str] | None = None) -> tuple[CliRun, bytes]:
    """Run `verifier ARGS` as its own process: wall and CPU time, and its peak RSS
    (`os.wait4` reports the process's own; pool workers it forks are counted in
    `RUSAGE_CHILDREN` CPU, not in this RSS). RuntimeError unless it exits 0 or 1."""
    run, stdout, stderr = cli_run_raw(args, env)
    if run.exit_code not in (0, 1):
        lines = stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"`verifier {' '.join(args[:1])}` exited {run.exit_code}: "
                           f"{lines[-1] if lines else ''}")
    return run, stdout


# Runs the command and reports its own peak RSS, wall and CPU time (its pool workers'
# CPU included). A process's
# `ru_maxrss` keeps the high-water mark of the process that exec'ed it, so a
# command started straight from the bench would report the bench's size: this
# small launcher (python -S, a few MiB) is what starts it.
_LAUNCHER = """\
import os, sys, time
t0 = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(sys.argv[1], "w") as f:
    f.write(f"{ru.ru_maxrss} {wall} {ru.ru_utime + ru.ru_stime}")
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def cli_run_raw(args: list[str], env: dict[str, str] | None = None
                ) -> tuple[CliRun, bytes, bytes]:
    """`cli_run` for any exit code, with stderr."""
    return py_run(["-m", "verifier", *args], env, f"verifier {args[0]}")


def py_run(argv: list[str], env: dict[str, str] | None, label: str
           ) -> tuple[CliRun, bytes, bytes]:
    """`python ARGV` (this interpreter) as its own process, measured like a command."""
    cmd = [sys.executable, *argv]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "usage"
        proc = subprocess.run([sys.executable, "-S", "-c", _LAUNCHER, str(report), *cmd],
                              capture_output=True, stdin=subprocess.DEVNULL,
                              env={**(env if env is not None else os.environ),
                                   "PYTHONHASHSEED": "0"})
        try:
            rss_kib, wall, cpu = report.read_text().split()
        except (OSError, ValueError):
            raise RuntimeError(f"`{label}` could not be started: "
                               f"{proc.stderr.decode(errors='replace').strip()[-300:]}") from None
    return CliRun(command=label, wall_s=round(float(wall), 3),
                  cpu_s=round(float(cpu), 3), exit_code=proc.returncode,
                  rss_mib=round(int(rss_kib) / 1024, 1)), proc.stdout, proc.stderr


def median_run(runs: list[CliRun]) -> CliRun:
    """The median wall and CPU time of repeated runs of one command, the largest RSS."""
    return CliRun(command=runs[0].command,
                  wall_s=round(statistics.median(r.wall_s for r in runs), 3),
                  cpu_s=round(statistics.median(r.cpu_s for r in runs), 3),
                  exit_code=runs[-1].exit_code,
                  rss_mib=max((r.rss_mib or 0.0) for r in runs) or None)
