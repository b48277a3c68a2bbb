"""Fact records of many files: fact cache first, then a fork pool.

    records_for_files(project, files)           -> [FileFacts | None]
    symbols_for_files(project, upstream, files) -> (index rows, star_imports)

For each served file (a `SourceFile` at pinned/release identity) the record
comes from the fact cache, keyed by (blob SHA, extractor version, path) — the
same entry the claim kinds read (`facts/extract.cached`), so a file is
extracted once ever, across runs, pins and consumers. The misses are extracted:

- inline when they are few or small (a pool costs ~30 ms to start);
- else in a `multiprocessing` pool started with *fork* (py-tree-sitter holds
  the GIL, so threads give nothing; 2 processes give ~1.8x here), `jobs`
  workers (default: CPUs, at most 2 unless `VERIFIER_JOBS` says otherwise),
  largest files first (the longest task does not start last), one file per
  task; each worker writes the cache entries of its files (atomic, so
  concurrent writers are safe) and streams the plain records back. Memory stays
  bounded: a worker holds one file and its tree at a time, reads the bytes
  itself from the blob cache, and is replaced after `MAX_TASKS` files.

Output order is the input order, so the index is deterministic whatever the
scheduling. Where fork is unavailable the pool is skipped (inline).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from verifier.codeversion import code_version
from verifier.facts.cache import FactCache, fact_cache
from verifier.facts.extract import FACTS, UnsupportedLanguage, extract_bytes
from verifier.facts.model import FileFacts
from verifier.facts.projection import module_of, project_file

if TYPE_CHECKING:
    from verifier.project import Project
    from verifier.sources.models import SourceFile

MAX_TASKS = 400
INLINE_FILES = 8             # at most this many misses: no pool
INLINE_BYTES = 1_000_000     # or at most this many bytes in total

_JOB: tuple | None = None   # (read, cache, version), inherited by forked workers


def jobs() -> int:
    env = os.environ.get("VERIFIER_JOBS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(2, os.cpu_count() or 1))


def extract_plain(path: str, data: bytes, blob: str) -> dict | None:
    """The plain record of one file; None for a language no extractor reads."""
    try:
        return extract_bytes(path, data, blob).to_plain()
    except UnsupportedLanguage:
        return None


def _work(item: tuple[int, str, str]) -> tuple[int, Any, bool]:
    """In a worker: extract one file and write its cache entry (the writes run in
    parallel too); returns the plain record and whether the entry was written."""
    i, path, blob = item
    read, fc, version = _JOB  # type: ignore[misc]
    data = read(path, blob)
    if data is None:
        return i, None, False
    value = extract_plain(path, data, blob)
    before = fc.stats.writes
    if value is not None:
        fc.put(FACTS, version, blob, value, {"path": path})
    return i, value, fc.stats.writes > before


def _use_pool(misses: list[tuple[int, str, str, int]], n_jobs: int) -> bool:
    if n_jobs < 2 or len(misses) <= INLINE_FILES:
        return False
    if sum(m[3] for m in misses) <= INLINE_BYTES:
        return False
    return "fork" in multiprocessing.get_all_start_methods()


def extract_files(project: "Project", items: list[tuple[str, str]],
                  read: Callable[[str, str], bytes | None], n_jobs: int | None = None,
                  sizes: dict[str, int] | None = None, cache: "FactCache | None" = None
                  ) -> list[FileFacts | None]:
    """Records of `items` ((path, blob) pairs), in item order: from the fact cache,
    misses extracted (pool or inline) and cached. `read(path, blob)` gives a file's
    bytes (None: skipped). `cache`: another fact cache (benchmarks)."""
    global _JOB
    fc = cache or fact_cache(project.store)
    fc.notify = fc.notify or project.notify      # forged or foreign entries reach the run's notes
    # the key `facts.extract.cached` uses too (`facts.extract.file_facts`: the code
    # version of the module its build is defined in, plus the model)
    version = code_version("verifier.facts.extract", "verifier.facts.model")
    plains: list[Any] = [None] * len(items)
    misses: list[tuple[int, str, str, int]] = []
    for i, (path, blob) in enumerate(items):
        hit = fc.get(FACTS, version, blob, {"path": path})
        if hit is not None:
            plains[i] = hit
            continue
        size = (sizes or {}).get(path)
        if size is None:
            bp = project.store.blob_path(blob)
            size = bp.stat().st_size if bp.exists() else 0
        misses.append((i, path, blob, size))
    n_jobs = n_jobs or jobs()
    misses.sort(key=lambda m: (-m[3], m[1]))          # largest first
    if misses and _use_pool(misses, n_jobs):
        _JOB = (read, fc, version)
        try:
            ctx = multiprocessing.get_context("fork")
            pool = ctx.Pool(n_jobs, maxtasksperchild=MAX_TASKS)
            try:
                for i, value, wrote in pool.imap_unordered(
                        _work, [(i, path, blob) for i, path, blob, _ in misses], chunksize=1):
                    plains[i] = value
                    fc.stats.writes += wrote
                # close + join, not terminate (the context manager's exit): terminate
                # waits on the task queue's lock that idle workers hold (~6 s here)
                pool.close()
                pool.join()
            finally:
                pool.terminate()
        finally:
            _JOB = None
    else:
        for i, path, blob, _ in misses:
            data = read(path, blob)
            if data is None:
                continue
            plains[i] = value = extract_plain(path, data, blob)
            if value is not None:
                fc.put(FACTS, version, blob, value, {"path": path})
    out: list[FileFacts | None] = []
    for p in plains:
        try:
            out.append(FileFacts.from_plain(p) if p is not None else None)
        except (ValueError, KeyError, TypeError):
            out.append(None)   # an entry of another shape: treated as unreadable
    return out


def records_for_files(project: "Project", files: list["SourceFile"],
                      n_jobs: int | None = None) -> list[FileFacts | None]:
    """Records of `files` (usable SourceFiles), in file order. Bytes are read through
    the source layer (`SourceLayer.read`), only for cache misses."""
    by_path = {sf.path: sf for sf in files}
    return extract_files(project, [(sf.path, sf.blob) for sf in files if sf.blob],
                         lambda path, blob: project.sources.read(by_path[path]), n_jobs)


def symbols_for_files(project: "Project", upstream: str, files: list["SourceFile"],
                      n_jobs: int | None = None) -> tuple[list, dict[str, list[str]]]:
    """(index rows, star_imports) of `files` (usable SourceFiles), in file order."""
    files = [sf for sf in files if sf.blob]
    symbols: list = []
    stars: dict[str, list[str]] = {}
    for sf, facts in zip(files, records_for_files(project, files, n_jobs), strict=True):
        if facts is None:
            continue
        mod = module_of(facts, project, upstream)
        rows, file_stars = project_file(facts, mod, evidence=(
            "release" if sf.status.value == "release" else "pinned"))
        symbols.extend(rows)
        if file_stars and mod:
            stars.setdefault(mod, []).extend(file_stars)
    return symbols, stars
