"""Cold and warm `verifier lint`, `verifier check` and `verifier verify --runtime none` over
every lesson, each its own process."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.bench.common import cli_run, first_difference, median_run, py_run, scratch_cache
from verifier.bench.model import CliRun, CourseBench

if TYPE_CHECKING:
    from verifier.project import Project


def bytecode_env(pycache: Path | None) -> tuple[dict[str, str], bool]:
    """Environment for the CLI runs, and whether Python may cache bytecode there.
    With `pycache`, bytecode is cached under it even if PYTHONDONTWRITEBYTECODE
    is set (as an installed verifier would have its .pyc files)."""
    env = dict(os.environ)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env, not env.get("PYTHONDONTWRITEBYTECODE")


def bench_course(project: "Project", repeat: int = 3, bytecode: bool = False) -> CourseBench:
    lessons = project.lessons()
    extra = ["--offline", "-q"]
    if project.pins.path is not None:
        extra += ["--pins", str(project.pins.path)]
    out = CourseBench(lessons=len(lessons), warm_runs=repeat)
    with scratch_cache(project.store) as root:
        cmds = [["lint", "--format", "json"], ["check", "--format", "json"],
                ["verify", "--runtime", "none", "--out", str(root / "records")]]
        env, out.bytecode_cache = bytecode_env(root / "pycache" if bytecode else None)
        # the scratch cache's signing key lives in the environment, not in a key file
        # that would outlive the scratch directory
        env["VERIFIER_CACHE_KEY"] = secrets.token_hex(16)
        base = ["--cache", str(root), *extra]
        # preparation (not timed): sources into the shared cache (network allowed
        # unless configured offline), then an empty fact cache
        for c in cmds:
            prep = [a for a in base if a != "--offline"] if not project.config.offline else base
            cli_run([c[0], *prep, *c[1:]], env)
        for sub in ("facts", "symbols"):
            shutil.rmtree(root / sub, ignore_errors=True)
        cold_out = []
        for c in cmds:
            run, stdout = cli_run([c[0], *base, *c[1:]], env)
            out.cold.append(run)
            cold_out.append(stdout)
        warm: dict[str, list[CliRun]] = {}
        same = True
        for _ in range(repeat):
            for c, prev in zip(cmds, cold_out, strict=True):
                run, stdout = cli_run([c[0], *base, *c[1:]], env)
                warm.setdefault(run.command, []).append(run)
                diff = first_difference(run.command, prev, stdout)
                if diff and out.difference is None:
                    out.difference = diff
                same = same and diff is None
        out.outputs_identical = same
        out.warm = [median_run(runs) for runs in warm.values()]
        out.interpreter, out.imports = import_floor([[c[0], *base, *c[1:]] for c in cmds], env,
                                                    repeat, root)
        with contextlib.suppress(Exception):
            out.claims = len(json.loads(cold_out[1]).get("claims", []))
    pair = ("verifier lint", "verifier check")      # the two CI commands; verify on its own
    out.cold_total_s = round(sum(r.wall_s for r in out.cold if r.command in pair), 3)
    out.warm_total_s = round(sum(r.wall_s for r in out.warm if r.command in pair), 3)
    out.warm_total_cpu_s = round(sum(r.cpu_s for r in out.warm if r.command in pair), 3)
    return out


# the floor process: import every module named in a file, in that order
_IMPORT_ALL = ("import importlib, sys\n"
               "for name in open(sys.argv[1], encoding='utf-8').read().split():\n"
               "    try:\n        importlib.import_module(name)\n"
               "    except Exception:\n        pass\n")


def loaded_modules(stderr: bytes) -> list[str]:
    """The modules a process imported, in the order `-X importtime` reports them."""
    out = []
    for ln in stderr.decode(errors="replace").splitlines():
        if ln.startswith("import time:") and ln.count("|") == 2:
            name = ln.rsplit("|", 1)[1].strip()
            if name and name != "imported package" and not name.endswith("__main__"):
                out.append(name)
    return list(dict.fromkeys(out))


def import_floor(commands: list[list[str]], env: dict[str, str], repeat: int, root: Path
                 ) -> tuple[CliRun, list[CliRun]]:
    """The start-up floor of each (warm) command on this machine: the interpreter alone,
    and a process that imports exactly the modules the command loads and does nothing
    else (medians of `repeat`). A warm command's time above its floor is its work."""
    interp = median_run([py_run(["-c", "pass"], env, "python -c pass")[0]
                         for _ in range(max(repeat, 1))])
    floors = []
    for args in commands:
        _, _, err = py_run(["-X", "importtime", "-m", "verifier", *args], env,
                           f"verifier {args[0]}")
        listing = root / f"modules-{args[0]}.txt"
        listing.write_text("\n".join(loaded_modules(err)) + "\n", encoding="utf-8")
        floors.append(median_run([py_run(["-c", _IMPORT_ALL, str(listing)], env,
                                         f"imports of verifier {args[0]}")[0]
                                  for _ in range(max(repeat, 1))]))
    return interp, floors


# --------------------------------------------------------------------------- index
