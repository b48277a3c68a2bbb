"""`verifier bench`: the speed targets of the verifier, measured in one run.

Sections (each measured side by side, on the same files, in this run):

course     cold and warm wall time of `verifier lint` and `verifier check`
           (static) over every lesson, each as its own CLI process. The runs
           use a scratch cache inside the cache directory that shares the
           source data (blobs, wheels, git, source indexes) but starts with an
           empty fact cache: *cold* = sources present, fact/parse cache empty;
           *warm* = the same command again (median of `--repeat`). Runs are
           `--offline`: after a preparation run every source is in the cache,
           so the timing is the verifier's, not the network's. Cold and warm
           outputs are compared (they must be identical).
index      the symbol index of the largest available tree - every upstream's
           source files served at pinned identity, and, when a local mirror is
           configured, the mirror snapshot's HEAD tree (blobs read with
           `git cat-file --batch`) - built cold (empty fact cache, fork pool)
           and warm, next to universal-ctags (1 and 2 processes) on the same
           files written to a scratch directory; ratio = ours cold / ctags.
rss        peak resident set size of this process and of its children
           (`resource.getrusage`).
runtime    per upstream: interpreter start + import, per-check time
           (`verifier/runtime/bench.py`; needs the runtime environments).
clone      Drake acquisition through a blobless partial clone (depth 1, no
           checkout, then one fetch of the blobs of every Drake file the course
           cites - 12 files, 6 under `systems/sensors`)
           against a full depth-1 clone, both from the local Drake mirror;
           bytes of the two `.git` directories.

Targets (`TARGETS`) are evaluated from the numbers; a missed target is shown
with the measured value. Timings on a shared machine vary with its load: the
report records the load average and the CPU time next to each wall time.
"""

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
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from verifier.project import Project

GIB = 1 << 30
UPLOAD_PACK = ("git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true "
               "upload-pack")
SHARED = ("blobs", "wheels", "git", "index", "trees", "envs", "locks")


# --------------------------------------------------------------------------- models


class Machine(BaseModel):
    cpus: int
    cpu_model: str | None = None
    memory_gib: float | None = None
    kernel: str
    os: str | None = None
    python: str
    git: str | None = None
    ctags: str | None = None
    load_avg_start: tuple[float, float, float] | None = None
    load_avg_end: tuple[float, float, float] | None = None


class CliRun(BaseModel):
    command: str
    wall_s: float
    cpu_s: float            # user + system of the process (and its children)
    exit_code: int


class CourseBench(BaseModel):
    lessons: int
    claims: int | None = None
    cold: list[CliRun] = Field(default_factory=list)
    warm: list[CliRun] = Field(default_factory=list)     # medians per command
    warm_runs: int = 0
    cold_total_s: float = 0.0
    warm_total_s: float = 0.0
    warm_total_cpu_s: float = 0.0
    outputs_identical: bool | None = None
    bytecode_cache: bool | None = None    # Python could use cached .pyc files in these runs
    note: str | None = None


class IndexBench(BaseModel):
    tree: str
    files: int
    bytes: int
    candidates: dict[str, int] = Field(default_factory=dict)   # label -> bytes
    read_s: float | None = None           # git cat-file --batch (mirror trees)
    ours_cold_s: float | None = None
    ours_warm_s: float | None = None
    ours_jobs: int = 2
    ours_symbols: int | None = None
    parse_only_s: float | None = None     # tree-sitter parse alone, same pool: the floor
    ctags_1p_s: float | None = None
    ctags_2p_s: float | None = None
    ctags_tags: int | None = None
    ratio_cold_vs_ctags: float | None = None
    note: str | None = None


class CloneBench(BaseModel):
    mirror: str
    head: str | None = None
    cited_files: int = 0        # Drake files the course cites (permalinks and claims)
    blobs_wanted: int = 0       # ... of them present at the mirror's HEAD
    blobs_fetched: int = 0
    partial_bytes: int | None = None
    partial_s: float | None = None
    full_bytes: int | None = None
    full_s: float | None = None
    ratio: float | None = None
    note: str | None = None


class Target(BaseModel):
    name: str
    target: str
    measured: str
    met: bool | None        # None: not measured
    note: str | None = None


class BenchReport(BaseModel):
    schema_version: int = 1
    machine: Machine
    course: CourseBench | None = None
    index: IndexBench | None = None
    runtime: dict[str, Any] | None = None
    clone: CloneBench | None = None
    peak_rss_self_mib: float = 0.0
    peak_rss_children_mib: float = 0.0
    targets: list[Target] = Field(default_factory=list)


# --------------------------------------------------------------------------- helpers


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
                   load_avg_start=_load())


def _load() -> tuple[float, float, float] | None:
    try:
        return tuple(round(x, 2) for x in os.getloadavg())  # type: ignore[return-value]
    except OSError:
        return None


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _du(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_size
    return total


@contextlib.contextmanager
def scratch_cache(store_root: Path):
    """A cache root inside `store_root/tmp` sharing the source data of the real
    cache (symlinks), with its own empty `facts/`, `symbols/` and `tmp/`."""
    root = Path(tempfile.mkdtemp(prefix="bench-", dir=store_root / "tmp"))
    try:
        for sub in SHARED:
            (store_root / sub).mkdir(parents=True, exist_ok=True)
            (root / sub).symlink_to(store_root / sub, target_is_directory=True)
        yield root
    finally:
        for sub in SHARED:
            with contextlib.suppress(OSError):
                (root / sub).unlink()
        shutil.rmtree(root, ignore_errors=True)


def _cli(args: list[str], env: dict[str, str] | None = None) -> tuple[CliRun, bytes]:
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


# --------------------------------------------------------------------------- course


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
    cmds = [["lint", "--format", "json"], ["check", "--format", "json"]]
    out = CourseBench(lessons=len(lessons), warm_runs=repeat)
    with scratch_cache(project.store.root) as root:
        env, out.bytecode_cache = bytecode_env(root / "pycache" if bytecode else None)
        base = ["--cache", str(root), *extra]
        # preparation (not timed): sources into the shared cache (network allowed
        # unless configured offline), then an empty fact cache
        for c in cmds:
            prep = [a for a in base if a != "--offline"] if not project.config.offline else base
            _cli([c[0], *prep, *c[1:]], env)
        for sub in ("facts", "symbols"):
            shutil.rmtree(root / sub, ignore_errors=True)
        cold_out = []
        for c in cmds:
            run, stdout = _cli([c[0], *base, *c[1:]], env)
            out.cold.append(run)
            cold_out.append(stdout)
        warm: dict[str, list[CliRun]] = {}
        same = True
        for _ in range(repeat):
            for c, prev in zip(cmds, cold_out, strict=True):
                run, stdout = _cli([c[0], *base, *c[1:]], env)
                warm.setdefault(run.command, []).append(run)
                same = same and stdout == prev
        out.outputs_identical = same
        for name, runs in warm.items():
            out.warm.append(CliRun(command=name,
                                   wall_s=round(statistics.median(r.wall_s for r in runs), 3),
                                   cpu_s=round(statistics.median(r.cpu_s for r in runs), 3),
                                   exit_code=runs[-1].exit_code))
        with contextlib.suppress(Exception):
            import json

            out.claims = len(json.loads(cold_out[1]).get("claims", []))
    out.cold_total_s = round(sum(r.wall_s for r in out.cold), 3)
    out.warm_total_s = round(sum(r.wall_s for r in out.warm), 3)
    out.warm_total_cpu_s = round(sum(r.cpu_s for r in out.warm), 3)
    return out


# --------------------------------------------------------------------------- index


def _source_filter(path: str) -> bool:
    from verifier.facts.symbols import SOURCE_SUFFIXES, _is_test

    return path.endswith(SOURCE_SUFFIXES) and not _is_test(path)


def _pinned_tree(project: "Project", upstream: str) -> dict[str, str]:
    layer = project.sources
    paths = [p for p in layer.known_paths(upstream) if _source_filter(p)]
    return {sf.path: sf.blob for sf in layer.resolve_many([(upstream, p) for p in paths])
            if sf.status.usable and sf.blob}


def _mirror_tree(git_dir: Path) -> tuple[str, dict[str, str]] | None:
    env = {**os.environ, "GIT_DIR": str(git_dir)}
    head = subprocess.run(["git", "-c", f"safe.directory={git_dir}", "rev-parse", "HEAD"],
                          capture_output=True, text=True, env=env)
    if head.returncode != 0:
        return None
    sha = head.stdout.strip()
    ls = subprocess.run(["git", "-c", f"safe.directory={git_dir}", "ls-tree", "-r", "-z",
                         "--full-tree", sha], capture_output=True, env=env)
    files = {}
    for entry in ls.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        mode, kind, oid = meta.split()
        p = path.decode("utf-8", "replace")
        if kind == b"blob" and mode != b"120000" and _source_filter(p):
            files[p] = oid.decode()
    return sha, files


def cat_file_batch(git_dir: Path, blobs: list[str]) -> dict[str, bytes]:
    """Blob bytes straight from a git object store, one `git cat-file --batch`."""
    proc = subprocess.run(["git", "-c", f"safe.directory={git_dir}", "cat-file", "--batch"],
                          input="".join(f"{b}\n" for b in blobs).encode(), capture_output=True,
                          env={**os.environ, "GIT_DIR": str(git_dir)})
    out: dict[str, bytes] = {}
    buf, pos = proc.stdout, 0
    while pos < len(buf):
        nl = buf.index(b"\n", pos)
        head = buf[pos:nl].split()
        pos = nl + 1
        if len(head) < 3 or head[1] == b"missing":
            continue
        size = int(head[2])
        out[head[0].decode()] = buf[pos:pos + size]
        pos += size + 1
    return out


def _local_mirrors(project: "Project") -> dict[str, Path]:
    from verifier.sources.gitstore import is_local, local_path

    out = {}
    for name, wheres in sorted(project.config.mirrors.items()):
        for w in wheres:
            if is_local(w) and local_path(w).exists():
                out[name] = local_path(w)
                break
    return out


def _ctags(files: list[Path], procs: int, cwd: Path) -> tuple[float, int]:
    """Wall time of universal-ctags over `files` split into `procs` concurrent
    processes (file lists and tag output in files, so no pipe serialises them)."""
    ctags = shutil.which("ctags")
    assert ctags
    parts = [files[i::procs] for i in range(procs)]
    lists, outs = [], []
    for i, part in enumerate(parts):
        lst, out = cwd.parent / f"ctags-{procs}-{i}.list", cwd.parent / f"ctags-{procs}-{i}.tags"
        lst.write_text("\n".join(str(f) for f in part) + "\n")
        lists.append(lst)
        outs.append(out)
    t0 = time.perf_counter()
    ps = [subprocess.Popen([ctags, "-f", str(out), "--sort=no", "--fields=+n", "--kinds-C=+p",
                            "--kinds-C++=+p", "-L", str(lst)], cwd=cwd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
          for lst, out in zip(lists, outs, strict=True)]
    for p in ps:
        p.wait()
    wall = time.perf_counter() - t0
    tags = 0
    for out in outs:
        with open(out, "rb") as fh:
            tags += sum(1 for ln in fh if ln.strip() and not ln.startswith(b"!_"))
    return wall, tags


def bench_index(project: "Project", tree: str | None = None, jobs: int = 2) -> IndexBench:
    from verifier.cache import Store
    from verifier.facts.cache import FactCache
    from verifier.facts.parallel import extract_files

    candidates: dict[str, tuple[str, dict[str, str], Path | None]] = {}
    for name in sorted(project.pins.upstream):
        files = _pinned_tree(project, name)
        if files:
            candidates[f"{name}@pin"] = (name, files, None)
    for name, path in _local_mirrors(project).items():
        if name not in project.pins.upstream:
            continue
        mt = _mirror_tree(path)
        if mt:
            candidates[f"{name}@mirror-{mt[0][:7]}"] = (name, mt[1], path)

    def size_of(label: str) -> int:
        up, files, git_dir = candidates[label]
        if git_dir is None:
            return sum(_blob_size(project, b) for b in files.values())
        return _mirror_bytes(git_dir, list(files.values()))

    sizes = {label: size_of(label) for label in candidates}
    if not sizes:
        return IndexBench(tree="none", files=0, bytes=0, note="no source tree available")
    label = tree if tree in candidates else max(sizes, key=lambda k: (sizes[k], k))
    upstream, files, git_dir = candidates[label]
    out = IndexBench(tree=label, files=len(files), bytes=sizes[label], candidates=sizes,
                     ours_jobs=jobs)
    if tree and tree not in candidates:
        out.note = f"tree {tree!r} not available; used the largest"
    # the bytes, once
    t0 = time.perf_counter()
    if git_dir is not None:
        by_blob = cat_file_batch(git_dir, sorted(set(files.values())))
        out.read_s = round(time.perf_counter() - t0, 3)
    else:
        by_blob = {b: project.store.get_blob(b) or b"" for b in set(files.values())}
    data = {p: by_blob.get(b, b"") for p, b in files.items()}
    items = sorted(files.items())
    with tempfile.TemporaryDirectory(prefix="bench-index-", dir=project.store.root / "tmp") as d:
        scratch = Path(d)
        cache = FactCache(Store(scratch / "cache"))
        t0 = time.perf_counter()
        rows = extract_files(project, upstream, items, lambda p, b: data[p], n_jobs=jobs,
                             sizes={p: len(v) for p, v in data.items()}, cache=cache)
        out.ours_cold_s = round(time.perf_counter() - t0, 3)
        out.ours_symbols = sum(len(r[0]) for r in rows if r)
        t0 = time.perf_counter()
        extract_files(project, upstream, items, lambda p, b: data[p], n_jobs=jobs, cache=cache)
        out.ours_warm_s = round(time.perf_counter() - t0, 3)
        out.parse_only_s = round(_parse_only(data, jobs), 3)
        if shutil.which("ctags") is None:
            out.note = "ctags not installed (Debian package universal-ctags)"
            return out
        src = scratch / "tree"
        rels = []
        for p, v in data.items():
            f = src / p
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes(v)
            rels.append(Path(p))
        best1 = min(_ctags(rels, 1, src)[0] for _ in range(2))
        runs2 = [_ctags(rels, 2, src) for _ in range(2)]
        out.ctags_1p_s = round(best1, 3)
        out.ctags_2p_s = round(min(r[0] for r in runs2), 3)
        out.ctags_tags = runs2[0][1]
        out.ratio_cold_vs_ctags = round(out.ours_cold_s / out.ctags_2p_s, 2) if out.ctags_2p_s else None
    return out


_PARSE_DATA: dict[str, bytes] = {}


def _parse_one(path: str) -> int:
    from verifier.facts import treesitter as ts

    data = _PARSE_DATA[path]
    lang = ts.language_for(path, data)
    return ts.parse(lang, data).root_node.end_byte if lang else 0


def _parse_only(data: dict[str, bytes], jobs: int) -> float:
    """Wall time of tree-sitter parsing every file (no query, no symbols, no cache),
    in the same kind of fork pool, largest first: what extraction cannot go below."""
    import multiprocessing

    global _PARSE_DATA
    order = sorted(data, key=lambda p: (-len(data[p]), p))
    _PARSE_DATA = data
    try:
        t0 = time.perf_counter()
        if jobs > 1:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                list(pool.imap_unordered(_parse_one, order, chunksize=1))
        else:
            for p in order:
                _parse_one(p)
        return time.perf_counter() - t0
    finally:
        _PARSE_DATA = {}


def _blob_size(project: "Project", blob: str) -> int:
    p = project.store.blob_path(blob)
    return p.stat().st_size if p.exists() else 0


def _mirror_bytes(git_dir: Path, blobs: list[str]) -> int:
    proc = subprocess.run(["git", "-c", f"safe.directory={git_dir}", "cat-file",
                           "--batch-check=%(objectsize)"],
                          input="".join(f"{b}\n" for b in blobs).encode(), capture_output=True,
                          env={**os.environ, "GIT_DIR": str(git_dir)})
    return sum(int(x) for x in proc.stdout.split() if x.isdigit())


# --------------------------------------------------------------------------- clone


def bench_clone(project: "Project", mirror: Path | None = None) -> CloneBench:
    from verifier.sources.needs import needed_files

    if mirror is None:
        mirror = _local_mirrors(project).get("drake")
    if mirror is None or not mirror.exists():
        return CloneBench(mirror=str(mirror or ""), note="not measured: no local Drake mirror "
                          "(configure VERIFIER_MIRRORS=drake=/path/to/repo or --drake-mirror)")
    mt = _mirror_tree(mirror)
    if mt is None:
        return CloneBench(mirror=str(mirror), note="not measured: mirror has no HEAD")
    head, _ = mt
    env = {**os.environ, "GIT_DIR": str(mirror)}
    cited = sorted(p for _, p in needed_files(project, "drake"))
    ls = subprocess.run(["git", "-c", f"safe.directory={mirror}", "ls-tree", "-r", head, "--",
                         *cited], capture_output=True, text=True, env=env).stdout
    at_head = {ln.split("\t", 1)[1]: ln.split()[2] for ln in ls.splitlines() if "\t" in ln}
    blobs = sorted({at_head[p] for p in cited if p in at_head})
    out = CloneBench(mirror=str(mirror), head=head, cited_files=len(cited),
                     blobs_wanted=len(blobs))
    url = "file://" + str(mirror.resolve())
    genv = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    for k in ("GIT_DIR", "GIT_WORK_TREE"):
        genv.pop(k, None)
    with tempfile.TemporaryDirectory(prefix="bench-clone-", dir=project.store.root / "tmp") as d:
        a, b = Path(d) / "partial", Path(d) / "full"
        t0 = time.perf_counter()
        r = subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--depth", "1",
                            "--no-checkout", f"--upload-pack={UPLOAD_PACK}", url, str(a)],
                           capture_output=True, text=True, env=genv)
        if r.returncode != 0:
            out.note = f"partial clone failed: {r.stderr.strip()[-200:]}"
            return out
        subprocess.run(["git", "-C", str(a), "config", "remote.origin.uploadpack", UPLOAD_PACK],
                       check=True, env=genv)
        if blobs:
            # what git's own lazy fetch runs, for all cited blobs in one round trip
            f = subprocess.run(["git", "-C", str(a), "-c", "fetch.negotiationAlgorithm=noop",
                                "fetch", "-q", "origin", "--no-tags", "--no-write-fetch-head",
                                "--recurse-submodules=no", "--filter=blob:none", "--stdin"],
                               input="".join(f"{x}\n" for x in blobs), capture_output=True,
                               text=True, env=genv)
            if f.returncode != 0:
                out.note = f"blob fetch failed: {f.stderr.strip()[-200:]}"
        out.partial_s = round(time.perf_counter() - t0, 3)
        chk = subprocess.run(["git", "-C", str(a), "cat-file", "--batch-check"],
                             input="".join(f"{x}\n" for x in blobs), capture_output=True,
                             text=True, env={**genv, "GIT_NO_LAZY_FETCH": "1"})
        out.blobs_fetched = sum(1 for ln in chk.stdout.splitlines() if " blob " in ln)
        out.partial_bytes = _du(a / ".git")
        t0 = time.perf_counter()
        r = subprocess.run(["git", "clone", "-q", "--depth", "1", f"--upload-pack={UPLOAD_PACK}",
                            url, str(b)], capture_output=True, text=True, env=genv)
        out.full_s = round(time.perf_counter() - t0, 3)
        if r.returncode != 0:
            out.note = f"full clone failed: {r.stderr.strip()[-200:]}"
            return out
        out.full_bytes = _du(b / ".git")
    if out.partial_bytes and out.full_bytes:
        out.ratio = round(out.partial_bytes / out.full_bytes, 4)
    return out


# --------------------------------------------------------------------------- runtime


def bench_runtime(project: "Project", repeat: int = 1) -> dict[str, Any]:
    try:
        from verifier.claims.loader import load_claims
        from verifier.runtime.bench import bench as rt_bench
    except ImportError as exc:
        return {"skipped": f"runtime stage not installed ({exc})"}
    try:
        loaded = load_claims(project)
        with_runtime = sum(1 for lc in loaded if lc.claim.runtime is not None)
        if not with_runtime:
            return {"skipped": f"not measured: no claim has a runtime check (0 of "
                               f"{len(loaded)} claims has [claim.runtime])"}
        out = rt_bench(project, None, max(1, repeat))
        out["claims_with_runtime"] = with_runtime
        return out
    except Exception as exc:  # noqa: BLE001 - reported as not measured, with the reason
        msg = exc.render() if hasattr(exc, "render") else f"{type(exc).__name__}: {exc}"
        return {"skipped": f"not measured: {msg}"}


# --------------------------------------------------------------------------- targets


def evaluate(rep: BenchReport) -> list[Target]:
    t: list[Target] = []
    c = rep.course
    if c is not None and c.warm:
        t.append(Target(name="warm lint + check", target="< 1.5 s wall",
                        measured=f"{c.warm_total_s:.2f} s wall ({c.warm_total_cpu_s:.2f} s CPU)",
                        met=c.warm_total_s < 1.5,
                        note=None if c.outputs_identical else "cold and warm outputs differ"))
    else:
        t.append(Target(name="warm lint + check", target="< 1.5 s wall", measured="-", met=None))
    ix = rep.index
    if ix is not None and ix.ratio_cold_vs_ctags is not None:
        t.append(Target(name="cold index vs ctags", target="<= 3x ctags (2 processes each)",
                        measured=f"{ix.ratio_cold_vs_ctags:.1f}x ({ix.ours_cold_s:.2f} s vs "
                                 f"{ix.ctags_2p_s:.2f} s, {ix.tree})",
                        met=ix.ratio_cold_vs_ctags <= 3.0))
    else:
        t.append(Target(name="cold index vs ctags", target="<= 3x ctags", measured="-", met=None,
                        note=ix.note if ix else None))
    rt = rep.runtime or {}
    ups = rt.get("upstreams") or []
    if ups:
        worst = max(ups, key=lambda u: u.get("per_check_s", 0))
        t.append(Target(name="runtime per check", target="one import per upstream, < 50 ms/check",
                        measured=", ".join(f"{u['upstream']} {1000 * u['per_check_s']:.0f} ms "
                                           f"(import {u['import_s']:.1f} s)" for u in ups),
                        met=worst.get("per_check_s", 0) < 0.05))
    else:
        t.append(Target(name="runtime per check", target="< 50 ms/check", measured="-", met=None,
                        note=rt.get("skipped")))
    peak = max(rep.peak_rss_self_mib, rep.peak_rss_children_mib)
    t.append(Target(name="peak RSS", target="< 1 GiB", measured=f"{peak:.0f} MiB",
                    met=peak * (1 << 20) < GIB))
    cl = rep.clone
    if cl is not None and cl.ratio is not None:
        t.append(Target(name="Drake partial clone", target="< 5 % of a full depth-1 clone",
                        measured=f"{100 * cl.ratio:.1f} % ({cl.partial_bytes / 1e6:.2f} MB vs "
                                 f"{cl.full_bytes / 1e6:.1f} MB)",
                        met=cl.ratio < 0.05 and cl.blobs_fetched == cl.blobs_wanted,
                        note=None if cl.blobs_fetched == cl.blobs_wanted else
                        f"only {cl.blobs_fetched}/{cl.blobs_wanted} blobs arrived"))
    else:
        t.append(Target(name="Drake partial clone", target="< 5 %", measured="-", met=None,
                        note=cl.note if cl else None))
    return t


def run_bench(project: "Project", *, sections: set[str], repeat: int = 3,
              tree: str | None = None, jobs: int = 2, drake_mirror: Path | None = None,
              runtime_repeat: int = 1, bytecode: bool = False) -> BenchReport:
    rep = BenchReport(machine=machine())
    if "course" in sections:
        rep.course = bench_course(project, repeat, bytecode)
    if "index" in sections:
        rep.index = bench_index(project, tree, jobs)
    if "runtime" in sections:
        rep.runtime = bench_runtime(project, runtime_repeat)
    if "clone" in sections:
        rep.clone = bench_clone(project, drake_mirror)
    rep.peak_rss_self_mib = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    rep.peak_rss_children_mib = round(
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    rep.machine.load_avg_end = _load()
    rep.targets = evaluate(rep)
    return rep
