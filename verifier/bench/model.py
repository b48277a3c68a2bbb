"""The benchmark report and its targets, evaluated from the numbers."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

GIB = 1 << 30


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
