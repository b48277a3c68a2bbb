"""The symbol index of the largest available tree, cold and warm, next to universal-ctags."""

from __future__ import annotations

import multiprocessing
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.bench.model import IndexBench
from verifier.cache import Store
from verifier.errors import AcquisitionError
from verifier.facts import treesitter as ts
from verifier.facts.cache import FactCache
from verifier.facts.parallel import extract_files
from verifier.facts.symbols import SOURCE_SUFFIXES, is_test_path, module_of, project_file
from verifier.sources.gitstore import GitRepo, is_local, local_path

if TYPE_CHECKING:
    from verifier.project import Project


def _source_filter(path: str) -> bool:
    return path.endswith(SOURCE_SUFFIXES) and not is_test_path(path)


def _pinned_tree(project: "Project", upstream: str) -> dict[str, str]:
    layer = project.sources
    paths = [p for p in layer.known_paths(upstream) if _source_filter(p)]
    return {sf.path: sf.blob for sf in layer.resolve_many([(upstream, p) for p in paths])
            if sf.status.usable and sf.blob}


def mirror_tree(git_dir: Path) -> tuple[str, dict[str, str]] | None:
    """HEAD of a local git repository and its source files (path -> blob), or None
    when it is no repository or has no HEAD."""
    try:
        repo = GitRepo(git_dir)
    except AcquisitionError:
        return None
    try:
        head = repo.head()
        if head is None:
            return None
        return head, {p: b for p, b in repo.tree(head).items() if _source_filter(p)}
    finally:
        repo.close()


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


def local_mirrors(project: "Project") -> dict[str, Path]:
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
    candidates: dict[str, tuple[str, dict[str, str], Path | None]] = {}
    for name in sorted(project.pins.upstream):
        files = _pinned_tree(project, name)
        if files:
            candidates[f"{name}@pin"] = (name, files, None)
    for name, path in local_mirrors(project).items():
        if name not in project.pins.upstream:
            continue
        mt = mirror_tree(path)
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
    with tempfile.TemporaryDirectory(prefix="bench-index-", dir=project.store.path("tmp")) as d:
        scratch = Path(d)
        cache = FactCache(Store(scratch / "cache", key=secrets.token_bytes(32)))
        t0 = time.perf_counter()
        records = extract_files(project, items, lambda p, b: data[p], n_jobs=jobs,
                                sizes={p: len(v) for p, v in data.items()}, cache=cache)
        out.ours_cold_s = round(time.perf_counter() - t0, 3)
        # index rows: the projection of the records (facts/symbols.py)
        out.ours_symbols = sum(len(project_file(r, module_of(r, project, upstream))[0])
                               for r in records if r)
        t0 = time.perf_counter()
        extract_files(project, items, lambda p, b: data[p], n_jobs=jobs, cache=cache)
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
    data = _PARSE_DATA[path]
    lang = ts.language_for(path, data)
    return ts.parse(lang, data).root_node.end_byte if lang else 0


def _parse_only(data: dict[str, bytes], jobs: int) -> float:
    """Wall time of tree-sitter parsing every file (no query, no symbols, no cache),
    in the same kind of fork pool, largest first: what extraction cannot go below."""
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
