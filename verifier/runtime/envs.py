"""One isolated Python environment per upstream, built from pins.toml.

    [upstream.drake]
    python = ">=3.12"                 # which interpreter may host the environment
    runtime = ["drake==1.57.0"]       # exactly what is installed into it

Environments live in the Store under ``envs/<upstream>-<hash>/`` where the hash
covers the requirements and the Python requirement (like pre-commit): changing a
pin makes a new directory, an unchanged pin reuses the old one.  They are built
with ``uv`` when it is on PATH, else ``python -m venv`` + pip.  The marker file
``.verifier-env.json`` is written LAST, so a half-built directory (interrupted
install) is never mistaken for a ready one; it is rebuilt instead.

Before use, the installed distribution versions are compared with the pins; a
difference is reported as ``env-mismatch``, never papered over. Its files are compared
with the digest recorded when it was built (`envdigest.py`): an environment changed
since (a snippet that edited `mujoco/__init__.py`) is ``tampered`` and rebuilt. Nothing
in it may change after the build: bytecode is compiled by the installer and never
written at import (``PYTHONDONTWRITEBYTECODE``).

Locks: ``env-<dir>`` (exclusive) while an environment is built; ``env-use-<dir>``,
shared by every batch running in it and exclusive for whatever removes or rebuilds it
(``env clean``, ``cache clean``, a rebuild), so a removal never pulls an environment
from under a running check and a check never starts in a half-removed one.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from verifier.errors import VerifierError
from verifier.runtime import envdigest

if TYPE_CHECKING:
    from verifier.cache import Store
    from verifier.pins import Upstream

MARKER = ".verifier-env.json"
ENV_SCHEMA = 2        # 2: environments carry a digest of their files (envdigest.py)
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)$")

# Import names that differ from the distribution name (the default is name with '-' -> '_').
IMPORT_NAMES = {"drake": "pydrake", "warp-lang": "warp", "pyyaml": "yaml"}
# What the runner imports up front, so the batch pays it once (pydrake's top-level
# package is nearly empty; its submodules are the import cost).
PRELOAD = {"drake": "pydrake.all"}
# The verifier's own warm-up, run once in the harness after the imports and before
# any check is forked from it, so that first-use costs are paid once per batch (never
# a claim's code; a failing warm-up only costs time). Warp initialises its runtime, its
# informational log (module-load timings, which differ from run to run and would make
# kept output irreproducible) turned down to warnings; Newton's first finalize builds
# and hashes the kernel modules every model needs.
WARMUP = {"warp-lang": "warp.config.log_level = getattr(warp, 'LOG_WARNING', "
                       "warp.config.log_level)\nwarp.init()",
          "newton": "_b = newton.ModelBuilder()\n_b.add_body()\n_b.finalize(device='cpu').state()"}


class RuntimeEnvError(VerifierError):
    """A runtime environment cannot be found, built or used."""

    exit_code = 1


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def import_name(dist: str) -> str:
    return IMPORT_NAMES.get(canonical(dist), canonical(dist).replace("-", "_"))


@dataclass(frozen=True)
class EnvSpec:
    """What one upstream's environment must contain."""

    upstream: str
    requirements: tuple[str, ...]
    python: str | None = None            # PEP 440 specifier, e.g. '>=3.12'

    @classmethod
    def from_upstream(cls, up: "Upstream") -> "EnvSpec":
        return cls(up.name, tuple(up.runtime), up.python)

    @property
    def pins(self) -> dict[str, str]:
        """distribution (canonical) -> pinned version, for `name==version` requirements."""
        out = {}
        for req in self.requirements:
            m = _PIN.match(req.strip())
            if m:
                out[canonical(m.group(1))] = m.group(2)
        return out

    @property
    def modules(self) -> list[str]:
        """Modules the runner imports up front (one per requirement)."""
        names = []
        for req in self.requirements:
            dist = re.split(r"[=<>!~\[;\s]", req.strip(), maxsplit=1)[0]
            names.append(PRELOAD.get(canonical(dist), import_name(dist)))
        return names

    @property
    def warmup(self) -> list[str]:
        """The verifier's warm-up code for this environment's packages (see WARMUP)."""
        dists = [canonical(re.split(r"[=<>!~\[;\s]", r.strip(), maxsplit=1)[0])
                 for r in self.requirements]
        return [WARMUP[d] for d in sorted(dists, key=lambda d: d != "warp-lang") if d in WARMUP]

    @property
    def key(self) -> str:
        payload = json.dumps({"requirements": sorted(r.strip() for r in self.requirements),
                              "python": self.python or "", "schema": ENV_SCHEMA},
                             sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    @property
    def dirname(self) -> str:
        return f"{self.upstream}-{self.key}"


@dataclass
class EnvInfo:
    spec: EnvSpec
    path: Path
    status: str                          # ready | missing | incomplete | tampered
    marker: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)   # why it is tampered

    @property
    def python(self) -> Path:
        return env_python(self.path)

    @property
    def installed(self) -> dict[str, str]:
        return dict(self.marker.get("installed", {}))


def env_python(path: Path) -> Path:
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def envs_root(store: "Store") -> Path:
    root = store.path("envs")
    root.mkdir(parents=True, exist_ok=True)
    return root


def env_path(store: "Store", spec: EnvSpec) -> Path:
    return envs_root(store) / spec.dirname


def use_lock(info_or_path: "EnvInfo | Path") -> str:
    """The name of the lock that running in / removing an environment takes."""
    path = info_or_path.path if isinstance(info_or_path, EnvInfo) else info_or_path
    return f"env-use-{path.name}"


def inspect_env(store: "Store", spec: EnvSpec, *, full: bool = False,
                reuse: bool = False) -> EnvInfo:
    """The environment's status; a ready one is checked against its digest (`full`:
    every file hashed, as `env list --check` does; `reuse`: not walked again when this
    process found it as built already - never so right before a batch)."""
    from verifier.runtime import envdigest

    path = env_path(store, spec)
    if not path.exists():
        return EnvInfo(spec, path, "missing")
    marker = store.read_json(path / MARKER)
    if not isinstance(marker, dict) or marker.get("key") != spec.key \
            or not env_python(path).exists():
        return EnvInfo(spec, path, "incomplete")
    problems = envdigest.check(path, full=full, reuse=reuse)
    if problems:
        return EnvInfo(spec, path, "tampered", marker, problems)
    return EnvInfo(spec, path, "ready", marker)


# --------------------------------------------------------------------------- Python
def _py_version(exe: str) -> Version | None:
    try:
        out = subprocess.run([exe, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    try:
        return Version(out.stdout.strip())
    except InvalidVersion:
        return None


def _pyenv_root() -> Path | None:
    env = os.environ.get("PYENV_ROOT")
    if env:
        return Path(env)
    exe = shutil.which("pyenv")
    if exe:
        try:
            out = subprocess.run([exe, "root"], capture_output=True, text=True, timeout=20)
            if out.returncode == 0 and out.stdout.strip():
                return Path(out.stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    default = Path.home() / ".pyenv"
    return default if default.is_dir() else None


def python_candidates() -> list[str]:
    """Interpreters to consider, in order: $VERIFIER_RUNTIME_PYTHON, the interpreter
    running verifier, pyenv versions (oldest first), then python3.X / python3 on PATH."""
    cands: list[str] = []
    forced = os.environ.get("VERIFIER_RUNTIME_PYTHON")
    if forced:
        cands.append(forced)
    base = getattr(sys, "_base_executable", None) or sys.executable
    if base:
        cands.append(base)
    root = _pyenv_root()
    if root:
        found = glob.glob(str(root / "versions" / "*" / "bin" / "python3"))

        def vkey(p: str) -> tuple:
            name = Path(p).parent.parent.name
            try:
                return (0, Version(name))
            except InvalidVersion:
                return (1, Version("0"))
        cands.extend(sorted(found, key=vkey))
    for name in ("python3.12", "python3.13", "python3.14", "python3", "python"):
        exe = shutil.which(name)
        if exe:
            cands.append(exe)
    seen: dict[str, None] = {}
    for c in cands:
        seen.setdefault(c, None)
    return list(seen)


def find_python(spec: str | None, upstream: str = "") -> tuple[str, Version]:
    """An interpreter satisfying `spec` (e.g. '>=3.12'), or a clear error."""
    try:
        wanted = SpecifierSet(spec or "")
    except InvalidSpecifier:
        raise RuntimeEnvError(f"invalid Python requirement {spec!r}",
                              key=f"upstream.{upstream}.python") from None
    tried = []
    forced = os.environ.get("VERIFIER_RUNTIME_PYTHON")
    for exe in python_candidates():
        v = _py_version(exe)
        tried.append(f"{exe} ({v or 'not runnable'})")
        if v is not None and wanted.contains(v, prereleases=True):
            return exe, v
        if forced and exe == forced:
            raise RuntimeEnvError(f"VERIFIER_RUNTIME_PYTHON={forced} is Python {v}, which "
                                  f"does not satisfy {spec!r} required by {upstream}")
    raise RuntimeEnvError(
        f"no Python interpreter satisfying {spec!r} for the {upstream} runtime environment "
        f"(tried: {'; '.join(tried) or 'none found'})",
        hint="install one (e.g. `pyenv install 3.12`) or set VERIFIER_RUNTIME_PYTHON")


# --------------------------------------------------------------------------- build
def _run(cmd: list[str], log: list[str], timeout: float, env: dict | None = None) -> None:
    log.append("$ " + " ".join(cmd))
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise RuntimeEnvError(f"timed out after {timeout:.0f}s: {' '.join(cmd)}") from None
    except OSError as exc:
        raise RuntimeEnvError(f"cannot run {cmd[0]}: {exc}") from None
    log.append(out.stdout[-4000:] + out.stderr[-4000:])
    if out.returncode != 0:
        tail = "\n".join((out.stderr or out.stdout).strip().splitlines()[-6:])
        raise RuntimeEnvError(f"`{' '.join(cmd[:4])} ...` failed (exit {out.returncode}): {tail}")


def _clean_env() -> dict[str, str]:
    env = dict(os.environ)
    for var in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "CONDA_PREFIX"):
        env.pop(var, None)
    env["PYTHONNOUSERSITE"] = "1"
    return env


def installed_versions(python: Path, dists: list[str], timeout: float = 60) -> dict[str, str | None]:
    """Versions of `dists` installed in the environment of `python` (no package import)."""
    code = ("import json, sys\nfrom importlib import metadata\nout = {}\n"
            "for d in sys.argv[1:]:\n    try:\n        out[d] = metadata.version(d)\n"
            "    except metadata.PackageNotFoundError:\n        out[d] = None\n"
            "print(json.dumps(out))")
    try:
        res = subprocess.run([str(python), "-I", "-c", code, *dists], capture_output=True,
                             text=True, timeout=timeout, env=_clean_env())
    except (OSError, subprocess.SubprocessError) as exc:
        raise RuntimeEnvError(f"cannot run {python}: {exc}") from None
    if res.returncode != 0:
        raise RuntimeEnvError(f"{python} failed to report versions: {res.stderr.strip()[-300:]}")
    return json.loads(res.stdout)


def mismatches(spec: EnvSpec, installed: dict[str, str | None]) -> list[str]:
    """Human-readable differences between the pins and what is installed."""
    out = []
    for dist, want in sorted(spec.pins.items()):
        have = installed.get(dist)
        if have is None:
            out.append(f"{dist} is not installed (pinned {want})")
        elif have != want:
            try:
                same = Version(have) == Version(want)
            except InvalidVersion:
                same = False
            if not same:
                out.append(f"{dist} {have} installed, pinned {want}")
    return out


def health_check(info: EnvInfo, timeout: float = 300) -> dict:
    """Import every module of the environment and compare versions with the pins.

    Returns {"ok": bool, "installed": {...}, "problems": [...], "import_s": float}."""
    installed = installed_versions(info.python, sorted(info.spec.pins))
    problems = mismatches(info.spec, installed)
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    t0 = time.perf_counter()
    try:
        res = subprocess.run([str(info.python), "-I", "-c", code, *info.spec.modules],
                             capture_output=True, text=True, timeout=timeout,
                             env=runner_env(info.path))
        if res.returncode != 0:
            last = (res.stderr.strip().splitlines() or ["(no output)"])[-1]
            problems.append(f"import failed: {last}")
    except subprocess.TimeoutExpired:
        problems.append(f"import timed out after {timeout:.0f}s")
    return {"ok": not problems, "installed": installed, "problems": problems,
            "import_s": round(time.perf_counter() - t0, 3)}


def runner_env(path: Path) -> dict[str, str]:
    """Environment variables for processes running inside an upstream environment."""
    env = _clean_env()
    env["WARP_CACHE_PATH"] = str(path / ".warp-cache")   # keep Warp's kernel cache in the env
    env["PYTHONDONTWRITEBYTECODE"] = "1"                 # the env's files never change
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _uv() -> str | None:
    """uv when on PATH (or forced), None for venv + pip. $VERIFIER_RUNTIME_INSTALLER=uv|pip."""
    choice = os.environ.get("VERIFIER_RUNTIME_INSTALLER", "").strip().lower()
    if choice == "pip":
        return None
    uv = shutil.which("uv")
    if choice == "uv" and not uv:
        raise RuntimeEnvError("VERIFIER_RUNTIME_INSTALLER=uv but uv is not on PATH")
    if choice not in ("", "uv", "pip"):
        raise RuntimeEnvError(f"VERIFIER_RUNTIME_INSTALLER must be 'uv' or 'pip', got {choice!r}")
    return uv


def create_env(store: "Store", spec: EnvSpec, *, index_url: str | None = None,
               offline: bool = False, force: bool = False, timeout: float = 1800,
               notify=None, build: bool = True) -> EnvInfo:
    """Build (or reuse) the environment of `spec`. Safe against concurrent runs.
    `build=False`: only check that it is ready (RuntimeEnvError if not), taking no lock -
    for a caller that holds the environment's use lock already."""
    if not build:
        info = inspect_env(store, spec)
        if info.status != "ready":
            raise RuntimeEnvError(f"the {spec.upstream} environment is {info.status}"
                                  + (f" ({'; '.join(info.problems)})" if info.problems else ""))
        return info
    with store.lock(f"env-{spec.dirname}"):
        info = inspect_env(store, spec, reuse=True)
        if info.status == "ready" and not force:
            return info
        if info.status == "tampered" and notify:
            notify(f"the {spec.upstream} runtime environment was modified after it was built "
                   f"({'; '.join(info.problems)}); rebuilding it, nothing runs in it as it is")
        with store.lock(use_lock(info)):        # no batch runs in it while it is rebuilt
            return _build(store, spec, info, index_url=index_url, offline=offline,
                          timeout=timeout, notify=notify)


def _build(store: "Store", spec: EnvSpec, info: EnvInfo, *, index_url: str | None,
           offline: bool, timeout: float, notify) -> EnvInfo:
    if not spec.requirements:
        raise RuntimeEnvError(f"upstream {spec.upstream} has no `runtime` requirements",
                              key=f"upstream.{spec.upstream}.runtime")
    if offline:
        state = ("was modified after it was built (" + "; ".join(info.problems) + ")"
                 if info.status == "tampered" else "is not built")
        raise RuntimeEnvError(f"the {spec.upstream} runtime environment {state} and offline "
                              "mode forbids installing it",
                              hint="run `verifier env create` while online")
    if info.path.exists():
        shutil.rmtree(info.path, ignore_errors=True)
    exe, version = find_python(spec.python, spec.upstream)
    if notify:
        notify(f"building the {spec.upstream} runtime environment "
               f"({', '.join(spec.requirements)}; Python {version}) in {info.path}")
    log: list[str] = []
    t0 = time.perf_counter()
    uv = _uv()
    env = _clean_env()
    try:
        if uv:
            tool = "uv"
            _run([uv, "venv", "--quiet", "--python", exe, str(info.path)], log, timeout, env)
            cmd = [uv, "pip", "install", "--quiet", "--compile-bytecode", "--python",
                   str(env_python(info.path))]
            if index_url:
                cmd += ["--index-url", index_url]
            _run(cmd + list(spec.requirements), log, timeout, env)
        else:
            tool = "venv+pip"
            _run([exe, "-m", "venv", str(info.path)], log, timeout, env)
            cmd = [str(env_python(info.path)), "-m", "pip", "install", "--quiet",
                   "--no-input", "--disable-pip-version-check"]
            if index_url:
                cmd += ["--index-url", index_url]
            _run(cmd + list(spec.requirements), log, timeout, env)
        installed = installed_versions(env_python(info.path), sorted(spec.pins))
        problems = mismatches(spec, installed)
        if problems:
            raise RuntimeEnvError(f"the {spec.upstream} environment did not install the "
                                  f"pins: {'; '.join(problems)}")
    except BaseException:
        shutil.rmtree(info.path, ignore_errors=True)
        raise
    marker = {"schema": ENV_SCHEMA, "key": spec.key, "upstream": spec.upstream,
              "requirements": list(spec.requirements), "python_requirement": spec.python,
              "python": str(version), "base_python": exe, "tool": tool,
              "installed": installed,
              "build_s": round(time.perf_counter() - t0, 1)}
    envdigest.record(info.path)                     # what later batches must find
    store.write_json(info.path / MARKER, marker)   # written last: the env is complete
    return inspect_env(store, spec)


def list_envs(store: "Store", specs: list[EnvSpec], *, full: bool = False,
              ) -> tuple[list[EnvInfo], list[Path]]:
    """The environments of `specs` and any other (stale) directories under envs/."""
    infos = [inspect_env(store, s, full=full) for s in specs]
    known = {i.path.name for i in infos}
    stale = sorted(p for p in envs_root(store).iterdir() if p.is_dir() and p.name not in known)
    return infos, stale


def remove_env(path: Path, store: "Store | None" = None) -> None:
    """Remove an environment; with `store`, only once no batch runs in it (its use lock,
    exclusive: a CacheError naming the running check's process past the lock timeout)."""
    with store.lock(use_lock(path)) if store is not None else contextlib.nullcontext():
        # Remove the marker first so a half-removed directory is never taken as ready.
        try:
            (path / MARKER).unlink()
        except OSError:
            pass
        shutil.rmtree(path, ignore_errors=True)
