"""Drake through a blobless partial clone against a full depth-1 clone, from a local mirror."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.bench.common import dir_size
from verifier.bench.index import local_mirrors, mirror_tree
from verifier.bench.model import CloneBench
from verifier.claims.loader import claimed_files
from verifier.sources import needs
from verifier.sources.gitstore import LOCAL_UPLOAD_PACK, GitRepo

if TYPE_CHECKING:
    from verifier.project import Project


def bench_clone(project: "Project", mirror: Path | None = None) -> CloneBench:
    if mirror is None:
        mirror = local_mirrors(project).get("drake")
    if mirror is None or not mirror.exists():
        return CloneBench(mirror=str(mirror or ""), note="not measured: no local Drake mirror "
                          "(configure VERIFIER_MIRRORS=drake=/path/to/repo or --drake-mirror)")
    mt = mirror_tree(mirror)
    if mt is None:
        return CloneBench(mirror=str(mirror), note="not measured: mirror has no HEAD")
    head, _ = mt
    cited = sorted(p for _, p in needs.needed_files(project, "drake", claimed=claimed_files(project)))
    repo = GitRepo(mirror)
    try:
        at_head = repo.tree(head)
    finally:
        repo.close()
    blobs = sorted({at_head[p] for p in cited if p in at_head})
    out = CloneBench(mirror=str(mirror), head=head, cited_files=len(cited),
                     blobs_wanted=len(blobs))
    url = "file://" + str(mirror.resolve())
    genv = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    for k in ("GIT_DIR", "GIT_WORK_TREE"):
        genv.pop(k, None)
    with tempfile.TemporaryDirectory(prefix="bench-clone-", dir=project.store.path("tmp")) as d:
        a, b = Path(d) / "partial", Path(d) / "full"
        t0 = time.perf_counter()
        r = subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--depth", "1",
                            "--no-checkout", f"--upload-pack={LOCAL_UPLOAD_PACK}", url, str(a)],
                           capture_output=True, text=True, env=genv)
        if r.returncode != 0:
            out.note = f"partial clone failed: {r.stderr.strip()[-200:]}"
            return out
        subprocess.run(["git", "-C", str(a), "config", "remote.origin.uploadpack", LOCAL_UPLOAD_PACK],
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
        out.partial_bytes = dir_size(a / ".git")
        t0 = time.perf_counter()
        r = subprocess.run(["git", "clone", "-q", "--depth", "1", f"--upload-pack={LOCAL_UPLOAD_PACK}",
                            url, str(b)], capture_output=True, text=True, env=genv)
        out.full_s = round(time.perf_counter() - t0, 3)
        if r.returncode != 0:
            out.note = f"full clone failed: {r.stderr.strip()[-200:]}"
            return out
        out.full_bytes = dir_size(b / ".git")
    if out.partial_bytes and out.full_bytes:
        out.ratio = round(out.partial_bytes / out.full_bytes, 4)
    return out


# --------------------------------------------------------------------------- runtime
