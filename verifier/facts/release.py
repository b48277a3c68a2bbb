"""The second producer: the pinned release's public surface, as fact records.

Where an upstream's source is unavailable at pinned identity (Drake's C++ and
pybind11 sources are in no wheel), or a name exists only at run time (a
package's `__getattr__` re-exports, compiled bindings such as `mujoco.MjModel`),
names can still be checked against what the pinned *release* ships:

- **stubs**: the `.pyi` files of the upstream's pinned wheels (the `wheel`
  entries of pins.toml, and the `runtime` requirement of the upstream's own
  distribution, e.g. `drake==1.57.0`, whose wheel ships generated
  `pydrake/**/*.pyi`), downloaded with the existing wheel machinery
  (`sources/wheel.WheelSource`) and run through the same Python extractor as
  source files (`facts/python.py`, producer `stub`);
- **introspection**: a small script (`facts/introspect.py`) run in the upstream's pinned
  runtime environment (built by `verifier env create`, found by `ready_env`,
  never built here) walks the public modules of the upstream's
  packages: `dir()` of each module (so `__dir__`/`__getattr__` re-exports
  count), classes with their methods, properties, attributes and enum values,
  and signatures where `inspect` can read them (producer `introspection`).
  Cached by the environment's requirements hash and the script's digest.

Both give `FileFacts` records, projected into a `SymbolIndex` whose rows carry
`evidence="release"`: weaker than `pinned` (the release was built from the pin,
but these bytes are not the pin's files) and never counted as pinned. Without a
ready environment the stubs still answer; `SymbolIndex.producers` says which
producers did.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.facts import python as pyfacts
from verifier.facts.model import (KEYWORD_ONLY, TRAITS, VAR_KEYWORD, VAR_POSITIONAL, FileFacts,
                                  Param, Sym)
from verifier.gitblob import blob_sha

if TYPE_CHECKING:
    from verifier.pins import Upstream, Wheel
    from verifier.project import Project

RELEASE_VERSION = 2
INTROSPECT_TIMEOUT = 900.0


@dataclass(frozen=True)
class EnvHandle:
    """A ready runtime environment of one upstream (`ready_env`)."""

    python: Path                       # its interpreter
    key: str                           # hash of its requirements (the env's identity)
    roots: tuple[str, ...]             # top-level packages to walk (`pydrake`, `mujoco`)
    env: dict[str, str] = field(default_factory=dict, repr=False)   # process environment
    label: str = ""
    paths: tuple[str, ...] = ()        # extra import paths (a tree outside the environment)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def release_wheels(up: "Upstream") -> list["Wheel"]:
    """The upstream's own pinned distributions: its `wheel` entries, plus each
    exact `runtime` pin of a distribution named like the upstream."""
    from verifier.pins import Wheel

    out = list(up.wheel)
    have = {_canonical(w.name) for w in out}
    for req in up.runtime:
        m = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)\s*", req)
        if m and _canonical(m.group(1)) == _canonical(up.name) and \
                _canonical(m.group(1)) not in have:
            out.append(Wheel(requirement=f"{m.group(1)}=={m.group(2)}"))
            have.add(_canonical(m.group(1)))
    return out


# --------------------------------------------------------------------------- stubs


def stub_records(project: "Project", upstream: str) -> tuple[list[FileFacts], dict[str, str],
                                                              list[str]]:
    """(records of every `.pyi` in the upstream's pinned wheels, producer labels, notes)."""
    from verifier.facts.extract import cached    # the parsers: only when a stub is read
    from verifier.sources.wheel import WheelSource, safe_member

    up = project.pins.get(upstream)
    records: list[FileFacts] = []
    labels: dict[str, str] = {}
    notes: list[str] = []
    for wheel in release_wheels(up):
        ws = WheelSource(project.store, wheel, offline=project.config.offline,
                         index_url=project.config.index_url)
        ws.files()
        if ws.error or not ws.archive_name:
            notes.append(f"{upstream}: stubs of {wheel.requirement} unavailable: "
                         f"{ws.error or 'no archive'}")
            continue
        archive = ws.dir / ws.archive_name
        if archive.suffix not in (".whl", ".zip"):
            continue
        found = 0
        try:
            with zipfile.ZipFile(archive) as zf:
                names = sorted(n for n in zf.namelist() if n.endswith(".pyi") and safe_member(n))
                for name in names:
                    data = zf.read(name)
                    blob = blob_sha(data)
                    records.append(cached(project.store, name, blob, lambda n=name, d=data, b=blob:
                                          pyfacts.extract(n, d, b, producer="stub")))
                    found += 1
        except (zipfile.BadZipFile, OSError) as exc:
            notes.append(f"{upstream}: {archive.name} unreadable: {exc}")
            continue
        if found:
            labels.setdefault("stub", "")
            labels["stub"] = "; ".join(x for x in (labels["stub"],
                                                  f"{wheel.requirement} ({found} .pyi)") if x)
    return records, labels, notes


# --------------------------------------------------------------------------- introspection

SCRIPT = Path(__file__).with_name("introspect.py")   # runs inside the environment

_KINDS = {"positional_only", "positional_or_keyword", VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD}


def script_digest() -> str:
    return hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:16]


def _records_from(data: dict, label: str) -> list[FileFacts]:
    out = []
    for m in data.get("modules", []):
        mod = m["module"]
        syms: list[Sym] = []

        def add(qual: tuple[str, ...], row: list) -> None:
            kind, ps, members = row[1], row[2], row[3]
            extra = row[4] if len(row) > 4 and isinstance(row[4], dict) else {}
            params = None if ps is None else tuple(
                Param(p[0], p[1], None, p[2] if p[2] in _KINDS else None) for p in ps)
            traits = tuple(t for t in extra.get("traits", ()) if t in TRAITS)
            value = extra.get("value") if isinstance(extra.get("value"), str) else None
            syms.append(Sym(name=qual[-1], kind=kind, qual=qual, start=0, end=0, params=params,
                            origin="generated" if "generated" in traits else "introspection",
                            value=value, traits=traits))
            for sub in members or ():
                add(qual + (sub[0],), sub)

        for row in m["names"]:
            add((row[0],), row)
        exports = m.get("all")
        out.append(FileFacts(path=mod, blob=None, lang="python", syms=tuple(syms), module=mod,
                             producer="introspection",
                             exports=tuple(exports) if isinstance(exports, list) else None))
    return out


def introspect(project: "Project", upstream: str, env: EnvHandle) -> tuple[list[FileFacts],
                                                                          list[str]]:
    """Records of the upstream's public modules as its runtime environment sees them
    (cached by env key + script digest); ([], notes) when the script fails."""
    from verifier.facts.cache import fact_cache

    fc = fact_cache(project.store)
    key = hashlib.sha1(f"{env.key}:{script_digest()}:{','.join(env.roots)}:"
                       f"{','.join(env.paths)}".encode()).hexdigest()
    version = f"introspect-{RELEASE_VERSION}-{script_digest()}"
    hit = fc.get("introspect", version, key, {"upstream": upstream, "roots": list(env.roots)})
    notes: list[str] = []
    if hit is None:
        tmp_root = project.store.path("tmp")
        tmp_root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="introspect-", dir=tmp_root) as d:
            out = Path(d) / "surface.json"
            try:
                res = subprocess.run([str(env.python), "-I", str(SCRIPT),
                                      json.dumps(list(env.roots)), str(out),
                                      json.dumps(list(env.paths))],
                                     capture_output=True, text=True, timeout=INTROSPECT_TIMEOUT,
                                     env=env.env or None, cwd=d)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return [], [f"{upstream}: introspection of {env.label or env.python} failed: {exc}"]
            if res.returncode != 0 or not out.exists():
                last = (res.stderr.strip().splitlines() or ["(no output)"])[-1]
                return [], [f"{upstream}: introspection of {env.label or env.python} failed: {last}"]
            hit = json.loads(out.read_text(encoding="utf-8"))
        fc.put("introspect", version, key, hit, {"upstream": upstream, "roots": list(env.roots)})
    for mod, err in sorted(hit.get("errors", {}).items()):
        notes.append(f"{upstream}: introspection could not import {mod}: {err}")
    return _records_from(hit, env.label), notes


def release_docs(project: "Project", upstream: str, env: EnvHandle,
                 targets: list[tuple[str, tuple[str, ...]]]) -> tuple[dict[str, str | None],
                                                                    list[str]]:
    """The docstrings of named objects of the release, as its runtime environment gives
    them (`introspect.py --docs`), keyed `module:qualified.name`; cached like the
    introspection (env key + script digest + the targets). ({}, notes) on failure."""
    from verifier.facts.cache import fact_cache

    wanted = sorted({(m, tuple(q)) for m, q in targets})
    if not wanted:
        return {}, []
    fc = fact_cache(project.store)
    key = hashlib.sha1(json.dumps([env.key, script_digest(), list(env.paths),
                                   [[m, *q] for m, q in wanted]]).encode()).hexdigest()
    version = f"introspect-docs-{RELEASE_VERSION}-{script_digest()}"
    hit = fc.get("introspect", version, key, {"upstream": upstream, "docs": len(wanted)})
    if hit is None:
        tmp_root = project.store.path("tmp")
        tmp_root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="introspect-", dir=tmp_root) as d:
            src, out = Path(d) / "targets.json", Path(d) / "docs.json"
            src.write_text(json.dumps([[m, *q] for m, q in wanted]), encoding="utf-8")
            try:
                res = subprocess.run([str(env.python), "-I", str(SCRIPT), "--docs", str(src),
                                      str(out), json.dumps(list(env.paths))],
                                     capture_output=True, text=True, timeout=INTROSPECT_TIMEOUT,
                                     env=env.env or None, cwd=d)
            except (OSError, subprocess.TimeoutExpired) as exc:
                return {}, [f"{upstream}: docstrings from {env.label or env.python}: {exc}"]
            if res.returncode != 0 or not out.exists():
                last = (res.stderr.strip().splitlines() or ["(no output)"])[-1]
                return {}, [f"{upstream}: docstrings from {env.label or env.python}: {last}"]
            hit = json.loads(out.read_text(encoding="utf-8"))
        fc.put("introspect", version, key, hit, {"upstream": upstream, "docs": len(wanted)})
    return {k: v if isinstance(v, str) else None for k, v in hit.items()}, []


# --------------------------------------------------------------------------- the environment

MARKER = ".verifier-env.json"   # written last by `verifier env create` (runtime/envs.py)


def ready_env(project: "Project", upstream: str) -> EnvHandle | None:
    """The upstream's pinned runtime environment, if `verifier env create` built it
    for exactly the current `runtime` pins (never built here). Found by its marker
    file, which the environment builder writes last (a half-built directory has
    none): same upstream, same requirements, same Python requirement, interpreter
    present. Read as data so that facts need not import the runtime stage; the
    packages to walk are the top-level packages of the upstream's own pinned wheels."""
    import json as _json

    up = project.pins.get(upstream)
    if not up.runtime:
        return None
    root = project.store.path("envs")
    if not root.is_dir():
        return None
    for d in sorted(root.glob(f"{upstream}-*")):
        try:
            marker = _json.loads((d / MARKER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        python = d / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
        if (isinstance(marker, dict) and marker.get("upstream") == upstream
                and marker.get("requirements") == list(up.runtime)
                and marker.get("python_requirement") == up.python and python.exists()
                and marker.get("key")):
            roots = top_packages(project, upstream)
            if not roots:
                return None
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("PYTHON", "VIRTUAL_ENV", "CONDA"))}
            env["WARP_CACHE_PATH"] = str(d / ".warp-cache")   # as the runtime runner does
            env["PYTHONDONTWRITEBYTECODE"] = "1"   # the environment never changes (its digest)
            env.setdefault("MPLBACKEND", "Agg")
            return EnvHandle(python=python, key=str(marker["key"]), roots=roots, env=env,
                             label=f"runtime env {d.name}")
    return None


def top_packages(project: "Project", upstream: str) -> tuple[str, ...]:
    """Top-level import packages of the upstream's own pinned wheels (`pydrake`,
    `mujoco`, `warp`): directories at the archive root holding an `__init__.py`.
    Kept in the fact cache by the archive's sha256 (its manifest's, checked when it
    was acquired): reading the member list of a large wheel cost 18-40 ms a run."""
    from verifier.codeversion import code_version
    from verifier.facts.cache import fact_cache
    from verifier.sources.wheel import WheelSource

    out: list[str] = []
    for wheel in release_wheels(project.pins.get(upstream)):
        ws = WheelSource(project.store, wheel, offline=project.config.offline,
                         index_url=project.config.index_url)
        ws.files()
        if not ws.archive_name or not ws.archive_name.endswith((".whl", ".zip")):
            continue
        archive = ws.dir / ws.archive_name
        try:      # an unreadable archive gives nothing and is not remembered
            out += fact_cache(project.store).get_or_build(
                TOPS, code_version(__name__), ws.archive_sha256,
                lambda: _archive_tops(archive), query=ws.archive_name, load=_tops_of)
        except (zipfile.BadZipFile, OSError):
            continue
    return tuple(dict.fromkeys(sorted(out)))


TOPS = "release-tops"      # the fact cache's section for a wheel's top-level packages


def _archive_tops(archive: Path) -> list[str]:
    with zipfile.ZipFile(archive) as zf:
        return [parts[0] for parts in (n.split("/") for n in zf.namelist())
                if len(parts) == 2 and parts[1] in ("__init__.py", "__init__.pyi")
                and parts[0].isidentifier()]


def _tops_of(plain: list) -> list[str]:
    if not isinstance(plain, list) or not all(isinstance(x, str) and x.isidentifier()
                                              for x in plain):
        raise ValueError("not a list of package names")
    return plain


# --------------------------------------------------------------------------- the index


def _release_key(project: "Project", upstream: str, env: EnvHandle | None) -> str | None:
    """What an assembled release index depends on: the code, the pinned wheels' archives
    (by their manifests' sha256), the environment and the script. None when a wheel
    is not available (nothing is cached then)."""
    from verifier.codeversion import code_version
    from verifier.sources.wheel import WheelSource

    parts: list = [RELEASE_VERSION, code_version(__name__), upstream]
    for wheel in release_wheels(project.pins.get(upstream)):
        ws = WheelSource(project.store, wheel, offline=project.config.offline,
                         index_url=project.config.index_url)
        ws.files()
        if not ws.archive_name or not ws.archive_sha256:
            return None
        parts.append([wheel.requirement, ws.archive_name, ws.archive_sha256])
    parts.append([env.key, script_digest(), list(env.roots), list(env.paths)] if env else None)
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:20]


def release_identity(project: "Project", upstream: str) -> str | None:
    """What the release surface of `upstream` is built from (`_release_key` with the
    upstream's ready environment), or None when it cannot be cached."""
    return _release_key(project, upstream, ready_env(project, upstream))


def release_index(project: "Project", upstream: str,
                  env: EnvHandle | None | str = "auto") -> "SymbolIndex | None":
    """The pinned release's public surface of `upstream` as an index (rows with
    evidence `release`), or None when neither producer has anything. `env`: the
    environment to introspect; "auto" finds the upstream's ready one (`ready_env`).
    The assembled index is cached (symbols section) by `_release_key`."""
    from verifier.facts.indexdb import INDEX_SUFFIX, dump_index, open_index

    if env == "auto":
        env = ready_env(project, upstream)
    assert not isinstance(env, str)
    key = _release_key(project, upstream, env)
    path = project.store.path("symbols", f"release-{upstream}-{key}{INDEX_SUFFIX}") if key else None
    if path is not None:
        try:
            return open_index(path)
        except (OSError, ValueError):
            pass   # absent or corrupt: built and written below
    index = _build_release_index(project, upstream, env)
    if path is not None and index is not None:
        project.store.write_bytes(path, dump_index(index))
    return index


def _build_release_index(project: "Project", upstream: str,
                         env: EnvHandle | None) -> "SymbolIndex | None":
    from verifier.facts.projection import SymbolIndex, project_file

    up = project.pins.get(upstream)
    records, producers, notes = stub_records(project, upstream)
    if env is not None:
        more, inotes = introspect(project, upstream, env)
        notes += inotes
        if more:
            records += more
            producers["introspection"] = env.label or str(env.python)
    else:
        notes.append(f"{upstream}: no ready runtime environment (`verifier env create "
                     f"{upstream}`): the release surface has no introspection")
    if not records:
        return None
    symbols, stars = [], {}
    for facts in records:
        mod = facts.module or facts.path
        rows, file_stars = project_file(facts, mod, evidence="release")
        symbols.extend(rows)
        if file_stars:
            stars.setdefault(mod, []).extend(file_stars)
    files = {f.path: f.blob or "" for f in records}
    return SymbolIndex(upstream=upstream, commit=up.commit, files=files, symbols=symbols,
                       star_imports=stars, evidence="release", producers=producers,
                       notes=notes)
