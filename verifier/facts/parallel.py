"""Symbol extraction over many files: fact cache first, then a fork pool.

    symbols_for_files(project, upstream, files) -> (symbols, star_imports)

For each served file (a `SourceFile` at pinned/release identity) the per-file
symbols come from the fact cache, keyed by (blob SHA, extractor version,
{path, python module}) - so a file is extracted once ever, across runs and
across pins. The misses are extracted:

- inline when they are few or small (a pool costs ~30 ms to start);
- else in a `multiprocessing` pool started with *fork* (py-tree-sitter holds
  the GIL, so threads give nothing; 2 processes give ~1.8x here), `jobs`
  workers (default: CPUs, at most 2 unless `VERIFIER_JOBS` says otherwise),
  largest files first (the longest task does not start last), one file per
  task; each worker writes the cache entries of its files (atomic, so
  concurrent writers are safe) and streams the rows back. Memory stays bounded:
  a worker holds one file and its tree at a time, reads the bytes itself from
  the blob cache (nothing large crosses the pipe but the symbol rows), and is
  replaced after `MAX_TASKS` files.

Output order is the input order, so the index is deterministic whatever the
scheduling. Where fork is unavailable the pool is skipped (inline).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from verifier.codeversion import code_version
from verifier.facts.cache import FactCache, bulk_load, fact_cache

if TYPE_CHECKING:
    from verifier.project import Project
    from verifier.sources.models import SourceFile

EXTRACTOR = "symbols"
MAX_TASKS = 400
INLINE_FILES = 8             # at most this many misses: no pool
INLINE_BYTES = 1_000_000     # or at most this many bytes in total

Row = tuple  # Symbol fields in model order

_JOB: tuple | None = None   # (project, upstream, read, cache, version), inherited by forked workers


def jobs() -> int:
    env = os.environ.get("VERIFIER_JOBS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(2, os.cpu_count() or 1))


def _fields() -> list[str]:
    from verifier.facts.symbols import Symbol

    return list(Symbol.model_fields)


def _query(project: "Project", upstream: str, path: str) -> dict:
    from verifier.facts.symbols import pybind_module, python_module

    mod = python_module(project, upstream, path) if path.endswith((".py", ".pyi")) else None
    return {"path": path, "module": mod, "pybind": pybind_module(path)}


def extract_rows(project: "Project", upstream: str, path: str,
                 data: bytes) -> tuple[list[Row], list[tuple[str, list[str]]]]:
    """Symbols of one file as plain rows, plus the star imports it adds."""
    from verifier.facts.symbols import extract

    stars: dict[str, list[str]] = {}
    fields = _fields()
    rows = [tuple(getattr(s, f) for f in fields) for s in extract(project, upstream, path, data,
                                                                   stars)]
    return rows, sorted(stars.items())


def _work(item: tuple[int, str, str, Any]) -> tuple[int, Any, bool]:
    """In a worker: extract one file and write its cache entry (the writes run in
    parallel too); returns the rows and whether the entry was written."""
    i, path, blob, query = item
    project, upstream, read, fc, version = _JOB  # type: ignore[misc]
    data = read(path, blob)
    if data is None:
        return i, None, False
    value = extract_rows(project, upstream, path, data)
    before = fc.stats.writes
    fc.put(EXTRACTOR, version, blob, value, query)
    return i, value, fc.stats.writes > before


def _use_pool(misses: list[tuple[int, str, str, int]], n_jobs: int) -> bool:
    if n_jobs < 2 or len(misses) <= INLINE_FILES:
        return False
    if sum(m[3] for m in misses) <= INLINE_BYTES:
        return False
    return "fork" in multiprocessing.get_all_start_methods()


def extract_files(project: "Project", upstream: str, items: list[tuple[str, str]],
                  read: Callable[[str, str], bytes | None], n_jobs: int | None = None,
                  sizes: dict[str, int] | None = None, cache: "FactCache | None" = None
                  ) -> list[Any]:
    """Per-file symbol rows of `items` ((path, blob) pairs), in item order: from the
    fact cache, misses extracted (pool or inline) and cached. `read(path, blob)`
    gives a file's bytes (None: skipped). `cache`: another fact cache (benchmarks)."""
    global _JOB
    fc = cache or fact_cache(project.store)
    fc.notify = fc.notify or project.notify      # forged or foreign entries reach the run's notes
    version = code_version(__name__)   # extract_rows and everything it imports
    results: list[Any] = [None] * len(items)
    queries = [_query(project, upstream, path) for path, _ in items]
    misses: list[tuple[int, str, str, int]] = []
    for i, (path, blob) in enumerate(items):
        hit = fc.get(EXTRACTOR, version, blob, queries[i])
        if hit is not None:
            results[i] = hit
            continue
        size = (sizes or {}).get(path)
        if size is None:
            bp = project.store.blob_path(blob)
            size = bp.stat().st_size if bp.exists() else 0
        misses.append((i, path, blob, size))
    n_jobs = n_jobs or jobs()
    if not misses:
        return results
    misses.sort(key=lambda m: (-m[3], m[1]))          # largest first
    if _use_pool(misses, n_jobs):
        _JOB = (project, upstream, read, fc, version)
        try:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(n_jobs, maxtasksperchild=MAX_TASKS) as pool:
                for i, value, wrote in pool.imap_unordered(
                        _work, [(i, path, blob, queries[i]) for i, path, blob, _ in misses],
                        chunksize=1):
                    results[i] = value
                    fc.stats.writes += wrote
        finally:
            _JOB = None
    else:
        for i, path, blob, _ in misses:
            data = read(path, blob)
            if data is None:
                continue
            results[i] = value = extract_rows(project, upstream, path, data)
            fc.put(EXTRACTOR, version, blob, value, queries[i])
    return results


def symbols_for_files(project: "Project", upstream: str, files: list["SourceFile"],
                      n_jobs: int | None = None) -> tuple[list, dict[str, list[str]]]:
    """(symbols, star_imports) of `files` (usable SourceFiles), in file order. Bytes are
    read through the source layer (`SourceLayer.read`), only for cache misses."""
    from verifier.facts.symbols import Symbol

    files = [sf for sf in files if sf.blob]
    by_path = {sf.path: sf for sf in files}
    results = extract_files(project, upstream, [(sf.path, sf.blob) for sf in files],
                            lambda path, blob: project.sources.read(by_path[path]), n_jobs)
    fields = _fields()
    dicts: list[dict] = []
    stars: dict[str, list[str]] = {}
    for value in results:
        if value is None:
            continue
        rows, file_stars = value
        dicts.extend(dict(zip(fields, r, strict=True)) for r in rows)
        for mod, srcs in file_stars:
            stars.setdefault(mod, []).extend(srcs)
    with bulk_load():   # one validation pass for all rows: ~2x faster than one per symbol
        symbols = _symbol_list_adapter(Symbol).validate_python(dicts)
    return symbols, stars


@cache
def _symbol_list_adapter(symbol_cls):
    from pydantic import TypeAdapter

    return TypeAdapter(list[symbol_cls])
