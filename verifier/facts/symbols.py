"""Symbol index of an upstream at its pin: what names exist, where — a
projection of the per-file fact records (`facts/model.FileFacts`), plus the
Python module name each file has in the pinned wheel's layout.

Built only from files the source layer serves at pinned identity (`pinned`) or
from the pinned release (`release`); every other source file the run knows of
is listed in `unavailable`, so a consumer can tell "no such name" (index
complete) from "could not look" (index partial).

Rows (`Symbol`) carry the record's kinds (function, method, constructor,
destructor, class, struct, union, enum, enumerator, field, variable, attribute,
typedef, macro, namespace, import, port, registered) plus three kinds of the
projection: `module` (a Python file), `parameter` (a callable's parameter name:
keyword arguments are API names too) and `keyword` (a pybind11 `py::arg("x")`,
parent = the class it is bound on). `parent` is the enclosing scope's simple
name (a Python module-level name's parent is its module), `qual` the record's
qualified name.

Python module names come from the pinned wheel's path map (`python/mujoco/x.py`
is module `mujoco.x`), else from the repository path; a pybind11 bindings file
`bindings/<pkg>/<dir>/<mod>_py[_part].cc` exports into module `<pkg>.<dir>.<mod>`.
Test files are skipped. The index is cached per (upstream, commit, served blobs,
code version).

The pinned release's public surface (`facts/release.py`: `.pyi` stubs of the
pinned wheel, introspection of the pinned runtime environment) is a second
index of the same rows with `evidence="release"`, built on first use
(`SymbolIndex.release_surface`): lint consults it only where the source gives
no answer.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from verifier.codeversion import code_version
from verifier.facts.projection import (CONTAINER_KINDS, INDEX_VERSION, SOURCE_SUFFIXES, Symbol,
                                       SymbolIndex, is_test_path,
                                       module_of, project_file, pybind_module, python_module)

if TYPE_CHECKING:
    from verifier.project import Project

__all__ = ["CONTAINER_KINDS", "INDEX_VERSION", "SOURCE_SUFFIXES", "Symbol", "SymbolIndex",
           "build_index", "is_test_path", "module_of", "project_file", "pybind_module",
           "python_module"]


def build_index(project: "Project", upstream: str) -> SymbolIndex:
    """The source index of `upstream`, with its release surface attached (built on
    first use: `SymbolIndex.release_surface`, `facts/release.py`)."""
    from verifier.facts.indexdb import INDEX_SUFFIX, dump_index, open_index

    up = project.pins.get(upstream)
    layer = project.sources
    paths = [p for p in layer.known_paths(upstream)
             if p.endswith(SOURCE_SUFFIXES) and not is_test_path(p)]
    # the index is named by what it is built from; most files are pinned blobs the
    # store holds, found without a SourceFile each (`present_pinned`)
    fast = layer.present_pinned(upstream, paths)
    rest = layer.resolve_many([(upstream, p) for p in paths if p not in fast], needed=False)
    served = {**fast, **{sf.path: sf.blob for sf in rest if sf.status.usable and sf.blob}}
    unavailable = sorted(sf.path for sf in rest if not sf.status.usable)
    release_paths = sorted(sf.path for sf in rest if sf.status.usable and sf.blob
                           and sf.status.value == "release")
    digest = hashlib.sha1(json.dumps([INDEX_VERSION, code_version(__name__), sorted(served.items()),
                                      unavailable, release_paths]).encode()).hexdigest()[:16]
    cache_path = project.store.path("symbols", f"{upstream}-{up.commit}-{digest}{INDEX_SUFFIX}")
    index = None
    try:  # speed: nothing loaded up front, rows read per question (facts/indexdb.py)
        cached = open_index(cache_path)
        if cached.version == INDEX_VERSION:
            index = cached
    except (OSError, ValueError):
        pass  # absent or corrupt: rebuilt and rewritten below
    if index is None:
        from verifier.facts.parallel import symbols_for_files

        # per-file records from the fact cache (by blob), misses extracted in a fork pool
        files = layer.resolve_many([(upstream, p) for p in paths], needed=False)
        symbols, stars = symbols_for_files(project, upstream,
                                           [sf for sf in files if sf.path in served])
        index = SymbolIndex(upstream=upstream, commit=up.commit, files=served,
                            unavailable=unavailable, symbols=symbols, star_imports=stars)
        project.store.write_bytes(cache_path, dump_index(index))

    def release() -> SymbolIndex | None:
        from verifier.facts.release import release_index

        return release_index(project, upstream)

    index.set_release(release)
    index.set_identity(f"{up.commit}-{digest}")
    return index
