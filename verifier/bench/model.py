"""The benchmark report and its targets, evaluated from the numbers."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from verifier.basemodel import Model

GIB = 1 << 30


class Machine(Model):
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


class CliRun(Model):
    command: str
    wall_s: float
    cpu_s: float            # user + system of the process (and its children)
    exit_code: int
    rss_mib: float | None = None   # peak resident set size of the process (and its children)


class CourseBench(Model):
    lessons: int
    claims: int | None = None
    cold: list[CliRun] = Field(default_factory=list)
    warm: list[CliRun] = Field(default_factory=list)     # medians per command
    warm_runs: int = 0
    cold_total_s: float = 0.0
    warm_total_s: float = 0.0
    warm_total_cpu_s: float = 0.0
    outputs_identical: bool | None = None
    difference: str | None = None         # where a warm output first differed from the cold
    bytecode_cache: bool | None = None    # Python could use cached .pyc files in these runs
    # the start-up floor, in the same run: the interpreter alone, and per command a
    # process that only imports the modules the warm command loaded (medians)
    interpreter: CliRun | None = None
    imports: list[CliRun] = Field(default_factory=list)
    note: str | None = None


class ScalePoint(Model):
    """The course `scale` times over (`bench/scale.py`)."""

    scale: int
    lessons: int
    claims: int
    permalinks: int
    cold: list[CliRun] = Field(default_factory=list)
    warm: list[CliRun] = Field(default_factory=list)     # medians per command
    warm_runs: int = 0
    outputs_identical: bool | None = None
    difference: str | None = None                # where a warm output first differed
    verdicts: dict[str, int] = Field(default_factory=dict)   # lint rule:severity, claim:verdict
    verdicts_scale_with_n: bool | None = None    # every count is scale x the scale-1 count
    per_permalink_ms: float | None = None        # marginal warm lint CPU against scale 1
    per_claim_ms: float | None = None            # marginal warm check CPU against scale 1
    # the same warm `check` with the memo audit off (VERIFIER_MEMO_AUDIT=0), to show what
    # re-deriving 5 % of the memoised claim files costs; the targets use the audited runs
    warm_check_no_audit: CliRun | None = None
    per_claim_no_audit_ms: float | None = None

    def warm_cpu(self, command: str) -> float | None:
        return next((r.cpu_s for r in self.warm if r.command == command), None)

    def warm_total(self, what: str = "wall_s") -> float:
        return round(sum(getattr(r, what) for r in self.warm), 3)

    def peak_rss(self) -> float:
        return max((r.rss_mib or 0.0) for r in [*self.cold, *self.warm])


class LargeLesson(Model):
    """`verifier lint` on one very large lesson (`bench/scale.py:bench_large`)."""

    limit_mib: float                      # the per-lesson limit in force
    requested_mib: float
    under: CliRun | None = None           # a lesson just under the limit
    requested: CliRun | None = None       # the requested size (refused above the limit)
    refused: bool | None = None           # exit 2 with the size message
    message: str | None = None
    note: str | None = None


class IndexBench(Model):
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


class CloneBench(Model):
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


class Target(Model):
    name: str
    target: str
    measured: str
    met: bool | None        # None: not measured
    note: str | None = None


class BenchReport(Model):
    schema_version: int = 1
    machine: Machine
    course: CourseBench | None = None
    index: IndexBench | None = None
    runtime: dict[str, Any] | None = None
    clone: CloneBench | None = None
    scale: list[ScalePoint] = Field(default_factory=list)
    large: LargeLesson | None = None
    peak_rss_self_mib: float = 0.0
    peak_rss_children_mib: float = 0.0
    targets: list[Target] = Field(default_factory=list)



def evaluate(rep: BenchReport) -> list[Target]:
    t: list[Target] = []
    c = rep.course
    if c is not None and c.warm:
        t.append(Target(name="warm lint + check", target="< 1.0 s wall (two processes)",
                        measured=f"{c.warm_total_s:.2f} s wall ({c.warm_total_cpu_s:.2f} s CPU)",
                        met=c.warm_total_s < 1.0,
                        note=None if c.outputs_identical else
                        f"cold and warm outputs differ ({c.difference})"))
        v = next((r for r in c.warm if r.command == "verifier verify"), None)
        if v is not None:
            t.append(Target(name="warm verify --runtime none", target="< 1.0 s wall",
                            measured=f"{v.wall_s:.2f} s wall ({v.cpu_s:.2f} s CPU)",
                            met=v.wall_s < 1.0))
    else:
        t.append(Target(name="warm lint + check", target="< 1.0 s wall", measured="-", met=None))
    t.extend(_scale_targets(rep))
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
    big = rep.large
    if big is not None and big.requested is not None:
        r = big.requested
        if big.refused:
            t.append(Target(name=f"{big.requested_mib:g} MiB lesson",
                            target="< 10 s and < 500 MiB, or a refusal above a limit",
                            measured=f"refused in {r.wall_s:.2f} s, {r.rss_mib:.0f} MiB "
                                     f"(limit {big.limit_mib:g} MiB)",
                            met=True))
        else:
            t.append(Target(name=f"{big.requested_mib:g} MiB lesson",
                            target="< 10 s and < 500 MiB", measured=f"{r.wall_s:.2f} s wall, "
                            f"{r.cpu_s:.2f} s CPU, {r.rss_mib:.0f} MiB, exit {r.exit_code}",
                            met=r.wall_s < 10 and (r.rss_mib or 0) < 500))
        if big.under is not None:
            u = big.under
            t.append(Target(name="lesson just under the limit",
                            target="< 10 s and < 500 MiB",
                            measured=f"{u.wall_s:.2f} s wall, {u.cpu_s:.2f} s CPU, "
                                     f"{u.rss_mib:.0f} MiB", met=u.wall_s < 10
                            and (u.rss_mib or 0) < 500))
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


def _scale_targets(rep: BenchReport) -> list[Target]:
    t: list[Target] = []
    pts = {p.scale: p for p in rep.scale}
    if not pts:
        return [Target(name="--scale 10", target="warm lint + check < 3 s", measured="-",
                       met=None, note="run with --scale 10 --scale 50")]
    for p in rep.scale:
        if p.scale == 1:
            continue
        note = None if p.verdicts_scale_with_n else "the verdict mix did not scale with N"
        if p.difference:
            note = "; ".join(x for x in (note, f"cold and warm outputs differ ({p.difference})")
                             if x)
        if p.scale == 10:
            t.append(Target(name="--scale 10 warm lint + check", target="< 3 s wall",
                            measured=f"{p.warm_total():.2f} s wall "
                                     f"({p.warm_total('cpu_s'):.2f} s CPU)",
                            met=p.warm_total() < 3.0, note=note))
        if p.per_permalink_ms is not None:
            t.append(Target(name=f"--scale {p.scale} CPU per permalink", target="<= 0.3 ms",
                            measured=f"{p.per_permalink_ms:.3f} ms ({p.permalinks} permalinks)",
                            met=p.per_permalink_ms <= 0.3))
        if p.per_claim_ms is not None:
            t.append(Target(name=f"--scale {p.scale} CPU per claim", target="<= 0.1 ms",
                            measured=f"{p.per_claim_ms:.3f} ms ({p.claims} claims)",
                            met=p.per_claim_ms <= 0.1,
                            note=None if p.per_claim_no_audit_ms is None else
                            f"{p.per_claim_no_audit_ms:.3f} ms with the memo audit off"))
        if p.claims >= 20_000:
            t.append(Target(name=f"{p.claims} claims: peak RSS", target="< 400 MiB",
                            measured=f"{p.peak_rss():.0f} MiB", met=p.peak_rss() < 400))
    big = [p for p in rep.scale if p.scale > 1]
    if len(big) >= 2:
        lo, hi = big[0], big[-1]
        per = [(x, (x.warm_total("cpu_s") - pts[1].warm_total("cpu_s")) / (x.scale - 1))
               for x in (lo, hi)] if 1 in pts else []
        if per and per[0][1] > 0:
            ratio = per[1][1] / per[0][1]
            t.append(Target(name=f"linear to --scale {hi.scale}",
                            target=f"warm CPU per course copy at {hi.scale} within 25 % of "
                                   f"that at {lo.scale}",
                            measured=f"{per[1][1]:.3f} s vs {per[0][1]:.3f} s per copy "
                                     f"({ratio:.2f}x)", met=ratio <= 1.25))
    return t
