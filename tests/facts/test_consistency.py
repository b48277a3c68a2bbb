"""One fact model, every consumer: on real pinned code, every name the claim kinds
can locate is resolvable by lint's resolver, and every name lint's index holds is
locatable by the claim kinds. Any disagreement fails the test.

Files: every file the lint index of each upstream holds, i.e. every source file
the course can get at pinned identity (the pinned wheels; with the local
snapshots configured as mirrors, the snapshot blobs that are unchanged at the
pin too).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import pytest

from verifier.claims.kinds._lookup import lookup
from verifier.facts.extract import cached, extract_bytes
from verifier.facts.model import LITERAL_KINDS
from verifier.facts.symbols import build_index, module_of, python_module
from verifier.lint.resolve import Resolver
from verifier.lint.shapes import ApiRef

pytestmark = [pytest.mark.wheels]

_PARAM_ROWS = {"parameter", "keyword"}


def _ref(segs) -> ApiRef:
    segs = tuple(segs)
    return ApiRef(raw=".".join(segs), segments=segs, calls=tuple(False for _ in segs))


def _claim_facts(project, upstream, sf):
    """The record as the claim kinds see it (`_lookup.file_facts`)."""
    data = project.sources.read(sf)
    facts = cached(project.store, sf.path, sf.blob, lambda: extract_bytes(sf.path, data, sf.blob))
    if facts.lang == "python":
        mod = python_module(project, upstream, sf.path)
        if mod and mod != facts.module:
            facts = replace(facts, module=mod)
    return facts


def _lesson_ref(facts, sym, module):
    """How a lesson would name the symbol: `module.name` for a Python (or pybind11)
    module-level name, `Container.member` for members, the bare name otherwise."""
    if len(sym.qual) == 1 and module and (facts.lang == "python" or sym.origin == "pybind11"):
        return _ref([*module.split("."), sym.name])
    return _ref(sym.qual)


def disagreements(project, upstream) -> tuple[list[str], int, int]:
    """(problems, files checked, names checked) for one upstream's index."""
    idx = build_index(project, upstream)
    resolver = Resolver([idx], release=[])
    rows_by_path = defaultdict(list)
    for r in idx.symbols:
        rows_by_path[r.path].append(r)
    problems: list[str] = []
    names = 0
    files = [sf for sf in project.sources.resolve_many([(upstream, p) for p in idx.files])
             if sf.status.usable]
    for sf in files:
        facts = _claim_facts(project, upstream, sf)
        module = module_of(facts, project, upstream)
        rows = rows_by_path.get(sf.path, [])
        row_keys = {(r.qual, r.kind) for r in rows}
        sep = "." if facts.lang == "python" else "::"
        where = f"{upstream}:{sf.path}"
        # claims -> lint
        for s in facts.syms:
            names += 1
            written = sep.join(s.qual)
            if s not in lookup(facts, written, {s.kind}):
                problems.append(f"{where}:{s.start}: the claim kinds cannot locate {s.kind} "
                                f"{written!r}")
            if (s.qual, s.kind) not in row_keys:
                problems.append(f"{where}:{s.start}: {s.kind} {written!r} has no index row")
            res = resolver.resolve(_lesson_ref(facts, s, module))
            if res.status != "resolved":
                problems.append(f"{where}:{s.start}: lint cannot resolve {s.kind} {written!r}: "
                                f"{res.how}")
            for p in s.params or ():
                pname = p.name.lstrip("*")
                if s.kind not in ("function", "method", "constructor", "macro") or \
                        not pname.isidentifier() or pname in ("self", "cls"):
                    continue
                names += 1
                if resolver.resolve(_ref([pname])).status != "resolved":
                    problems.append(f"{where}:{s.start}: lint cannot resolve parameter {pname!r} "
                                    f"of {written!r}")
        # lint -> claims
        for r in rows:
            if r.kind == "module":
                if facts.lang != "python":
                    problems.append(f"{where}: a module row for a {facts.lang} file")
                continue
            if r.kind == "import" and "." in r.name:
                problems.append(f"{where}:{r.line}: bogus import binding {r.name!r}")
            if r.kind in _PARAM_ROWS:
                owner = [s for s in lookup(facts, sep.join(r.qual[:-1]))
                         if s.qual == r.qual[:-1] and s.params]
                if not any(p.name.lstrip("*") == r.name for s in owner for p in s.params):
                    problems.append(f"{where}:{r.line}: {r.kind} {r.name!r} of "
                                    f"{sep.join(r.qual[:-1])!r}: the claim kinds know no such "
                                    f"parameter")
                continue
            kinds = {r.kind} if r.kind in LITERAL_KINDS else None
            found = [s for s in lookup(facts, sep.join(r.qual), kinds) if s.kind == r.kind]
            if not found:
                problems.append(f"{where}:{r.line}: the claim kinds cannot locate the index's "
                                f"{r.kind} {sep.join(r.qual)!r}")
    return problems, len(files), names


def _check(project, upstreams):
    report = []
    total = 0
    for up in upstreams:
        problems, nfiles, nnames = disagreements(project, up)
        total += nfiles
        report += problems
        print(f"{up}: {nfiles} files, {nnames} names, {len(problems)} disagreements")
    assert total, "no file available at pinned identity"
    assert report == [], "\n".join(report[:40]) + (f"\n… {len(report) - 40} more"
                                                   if len(report) > 40 else "")


def test_claims_and_lint_agree_on_the_pinned_wheels(real_project):
    _check(real_project, ["mujoco", "newton", "warp"])


@pytest.mark.mirror
def test_claims_and_lint_agree_on_the_snapshot_blobs(mirrors):
    import os

    from tests.conftest import PINS
    from verifier.project import load_project

    os.environ["VERIFIER_PROVIDERS"] = "mirror,wheel,objects"
    try:
        project = load_project(PINS)
    finally:
        del os.environ["VERIFIER_PROVIDERS"]
    _check(project, [u for u in ("mujoco", "drake", "newton") if u in mirrors])
