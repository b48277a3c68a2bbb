"""What every section needs: the machine, CLI runs with their CPU time, a scratch cache."""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from verifier.bench.model import CliRun, Machine
from verifier.cache import SOURCE_SECTIONS, Store, dir_size

__all__ = ["cli_run", "dir_size", "load_avg", "machine", "scratch_cache"]



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


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime



@contextlib.contextmanager
def scratch_cache(store: "Store"):
    """A cache root inside the store's tmp/ sharing its source data (symlinks to the
    `SOURCE_SECTIONS`), with its own empty fact cache, symbol indexes and tmp/."""
    root = Path(tempfile.mkdtemp(prefix="bench-", dir=store.path("tmp")))
    try:
        for sub in SOURCE_SECTIONS:
            store.path(sub).mkdir(parents=True, exist_ok=True)
            (root / sub).symlink_to(store.path(sub), target_is_directory=True)
        yield root
    finally:
        for sub in SOURCE_SECTIONS:
            with contextlib.suppress(OSError):
                (root / sub).unlink()
        shutil.rmtree(root, ignore_errors=True)


def cli_run(args: list[str], env: dict[str, str] | None = None) -> tuple[CliRun, bytes]:
    cmd = [sys.executable, "-m", "verifier", *args]
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True,
                          env={**(env if env is not None else os.environ), "PYTHONHASHSEED": "0"})
    wall = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0
    if proc.returncode not in (0, 1):
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(f"`verifier {' '.join(args[:1])}` exited {proc.returncode}: "
                           f"{err[-1] if err else ''}")
    return CliRun(command=f"verifier {args[0]}", wall_s=round(wall, 3), cpu_s=round(cpu, 3),
                  exit_code=proc.returncode), proc.stdout


