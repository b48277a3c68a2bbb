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
           outputs are compared (they must be identical). The start-up floor
           is measured in the same run: `python -c pass`, and per command a
           process that imports exactly the modules the command loaded (read
           from one `-X importtime` run) and does nothing else; a warm
           command's CPU above its floor is its work.
index      the symbol index of the largest available tree - every upstream's
           source files served at pinned identity, and, when a local mirror is
           configured, the mirror snapshot's HEAD tree (blobs read with
           `git cat-file --batch`) - built cold (empty fact cache, fork pool)
           and warm, next to universal-ctags (1 and 2 processes) on the same
           files written to a scratch directory; ratio = ours cold / ctags.
rss        peak resident set size of this process and of its children
           (`resource.getrusage`).
runtime    per upstream: interpreter start + import, per-check time
           (`bench/runtime.py`; needs the runtime environments).
scale      `--scale N`: the course N times over (`bench/scale.py`), cold and warm
           lint and check with peak RSS per process, marginal CPU per permalink
           and per claim against scale 1, the verdict mix checked to scale by N.
large      `verifier lint` on one lesson of `--large-mb` MiB (refused above the
           per-lesson limit) and on one just under the limit.
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

import resource
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.bench.clone import bench_clone
from verifier.bench.common import cli_run, load_avg, machine
from verifier.bench.course import bench_course, bytecode_env, loaded_modules
from verifier.bench.index import bench_index, cat_file_batch, mirror_tree
from verifier.bench.model import (BenchReport, CliRun, CloneBench, CourseBench, IndexBench, Machine,
                                  Target, evaluate)
from verifier.bench.runtime import bench_runtime
from verifier.bench.scale import bench_large, bench_scale, build_scaled_course

if TYPE_CHECKING:
    from verifier.project import Project

__all__ = ["BenchReport", "CliRun", "CloneBench", "CourseBench", "IndexBench", "Machine", "Target",
           "bench_clone", "bench_course", "bench_index", "bench_large", "bench_runtime",
           "bench_scale", "build_scaled_course", "bytecode_env",
           "cat_file_batch", "cli_run", "evaluate", "loaded_modules", "machine", "mirror_tree",
           "run_bench"]


def run_bench(project: "Project", *, sections: set[str], repeat: int = 3,
              tree: str | None = None, jobs: int = 2, drake_mirror: Path | None = None,
              runtime_repeat: int = 1, bytecode: bool = False,
              upstreams: list[str] | None = None, progress=None,
              scales: list[int] | None = None, large_mb: float = 50.0) -> BenchReport:
    """`progress`: a `verifier.pipeline.Progress` told which section runs (the CLI shows it)."""
    from verifier.pipeline import Progress

    progress = progress or Progress()
    rep = BenchReport(machine=machine())
    steps = [("course", "course: cold and warm lint + check",
              lambda: bench_course(project, repeat, bytecode)),
             ("index", "index: symbol index vs universal-ctags",
              lambda: bench_index(project, tree, jobs)),
             ("runtime", "runtime: checks per upstream",
              lambda: bench_runtime(project, runtime_repeat, upstreams)),
             ("clone", "clone: Drake partial vs full clone",
              lambda: bench_clone(project, drake_mirror)),
             ("scale", f"scale: the course x {', '.join(map(str, scales or []))}",
              lambda: bench_scale(project, scales or [], repeat, bytecode, progress)),
             ("large", f"large: a {large_mb:g} MiB lesson",
              lambda: bench_large(project, large_mb, bytecode, progress))]
    for name, what, step in steps:
        if name in sections:
            progress.begin(f"bench {what}")
            try:
                setattr(rep, name, step())
            finally:
                progress.end()
    rep.peak_rss_self_mib = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    rep.peak_rss_children_mib = round(
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    rep.machine.load_avg_end = load_avg()
    rep.targets = evaluate(rep)
    return rep
