"""`verifier bench`: measure the speed targets (see verifier/bench/, docs/bench.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.cli.common import TEXT, add_format, choice, project_from

if TYPE_CHECKING:
    from verifier.bench import BenchReport

HELP = "benchmark: cold/warm lint+check, symbol index vs ctags, RSS, runtime, partial clone"
SECTIONS = ("course", "index", "runtime", "clone", "scale", "large")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", action="append", type=choice("section", SECTIONS), metavar="SECTION",
                   help=f"run only these sections ({', '.join(SECTIONS)}); repeatable")
    p.add_argument("--skip", action="append", type=choice("section", SECTIONS), metavar="SECTION",
                   help="skip a section; repeatable")
    p.add_argument("--repeat", type=int, default=3, help="warm runs of lint/check (median)")
    p.add_argument("--tree", help="symbol-index tree to use (default: the largest available; "
                   "labels are shown in the report)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes for the cold index")
    p.add_argument("--drake-mirror", type=Path, default=None,
                   help="local Drake git repository for the clone measurement "
                        "(default: the configured drake mirror)")
    p.add_argument("--runtime-repeat", type=int, default=1, help="runtime batches per upstream")
    p.add_argument("--upstream", action="append", default=None, metavar="NAME",
                   help="runtime section: only this upstream; repeatable")
    p.add_argument("--bytecode", action="store_true",
                   help="let the lint/check runs cache .pyc files (in the scratch cache) even "
                        "if PYTHONDONTWRITEBYTECODE is set, as an installed verifier would")
    p.add_argument("--scale", action="append", type=int, default=None, metavar="N",
                   help="also build the course N times over and measure it (section scale; "
                        "repeatable: --scale 10 --scale 50)")
    p.add_argument("--large-mb", type=float, default=50.0, metavar="MIB",
                   help="size of the lesson of the large section (default 50)")
    add_format(p, [TEXT, "json"], aliases={"rich": TEXT})


def run(args: argparse.Namespace) -> int:
    from verifier.bench import run_bench
    from verifier.errors import UsageError
    from verifier.exitcodes import ExitCode

    if args.repeat < 1 or args.jobs < 1 or args.runtime_repeat < 1:
        raise UsageError("--repeat, --jobs and --runtime-repeat must be at least 1")
    if any(n < 1 or n > 1000 for n in args.scale or ()):
        raise UsageError("--scale must be between 1 and 1000")
    if args.large_mb <= 0:
        raise UsageError("--large-mb must be positive")
    sections = set(args.only or SECTIONS) - set(args.skip or ())
    if args.scale:
        sections |= {"scale"} - set(args.skip or ())
    else:
        sections.discard("scale")
    from verifier.cli.common import quiet
    from verifier.cli.output import RichProgress

    project = project_from(args)
    rep = run_bench(project, sections=sections, repeat=args.repeat, tree=args.tree,
                    jobs=args.jobs, drake_mirror=args.drake_mirror,
                    runtime_repeat=args.runtime_repeat, bytecode=args.bytecode,
                    upstreams=args.upstream, scales=args.scale, large_mb=args.large_mb,
                    progress=RichProgress(quiet(args) or args.format == "json"))
    if args.format == "json":
        print(json.dumps(rep.model_dump(mode="json"), indent=2, sort_keys=True))
    else:
        render(rep)
    return ExitCode.OK


def _s(v: float | None, unit: str = " s") -> str:
    return "-" if v is None else f"{v:.3f}{unit}"


def render(rep: BenchReport) -> None:
    from rich.markup import escape
    from rich.table import Table

    from verifier.cli.output import out_console

    con = out_console()
    m = rep.machine
    con.print(f"[bold]machine[/] {m.cpus} CPUs ({m.cpu_model or '?'}), {m.memory_gib} GiB, "
              f"{m.os or '?'}, kernel {m.kernel}, Python {m.python}, {m.git or 'git ?'}, "
              f"{m.ctags or 'ctags not installed'}; load average {m.load_avg_start} -> "
              f"{m.load_avg_end}")
    c = rep.course
    if c is not None:
        t = Table(title=f"course: {c.lessons} lessons, {c.claims} claims "
                  f"(warm = median of {c.warm_runs})")
        for col in ("command", "cold wall", "cold CPU", "warm wall", "warm CPU"):
            t.add_column(col, justify="left" if col == "command" else "right")
        warm = {r.command: r for r in c.warm}
        for r in c.cold:
            w = warm.get(r.command)
            t.add_row(r.command, _s(r.wall_s), _s(r.cpu_s), _s(w.wall_s if w else None),
                      _s(w.cpu_s if w else None))
        t.add_row("total", _s(c.cold_total_s), "", _s(c.warm_total_s), _s(c.warm_total_cpu_s))
        con.print(t)
        if c.imports:
            work = {r.command: r.cpu_s for r in c.warm}
            con.print("start-up floor (CPU, median): interpreter "
                      f"{_s(c.interpreter.cpu_s if c.interpreter else None)}; "
                      + "; ".join(f"{escape(f.command)} {_s(f.cpu_s)} (the warm command "
                                  f"{_s(work.get(f.command.removeprefix('imports of ')))})"
                                  for f in c.imports))
        con.print(f"cold and warm outputs identical: {c.outputs_identical}; Python bytecode "
                  f"cache: {'on' if c.bytecode_cache else 'off (PYTHONDONTWRITEBYTECODE)'}"
                  + (f"; {c.difference}" if c.difference else ""))
    ix = rep.index
    if ix is not None:
        t = Table(title=f"symbol index: {ix.tree} ({ix.files} files, {ix.bytes / 1e6:.1f} MB)")
        t.add_column("what")
        t.add_column("wall", justify="right")
        t.add_column("symbols/tags", justify="right")
        if ix.read_s is not None:
            t.add_row("git cat-file --batch (read all blobs)", _s(ix.read_s), "")
        t.add_row(f"verifier cold ({ix.ours_jobs} processes, empty fact cache)",
                  _s(ix.ours_cold_s), str(ix.ours_symbols or "-"))
        t.add_row("verifier warm (fact cache)", _s(ix.ours_warm_s), "")
        t.add_row(f"tree-sitter parse only ({ix.ours_jobs} processes; the floor)",
                  _s(ix.parse_only_s), "")
        t.add_row("universal-ctags, 1 process", _s(ix.ctags_1p_s), str(ix.ctags_tags or "-"))
        t.add_row("universal-ctags, 2 processes", _s(ix.ctags_2p_s), str(ix.ctags_tags or "-"))
        t.add_row("ratio verifier cold / ctags (2 processes)",
                  "-" if ix.ratio_cold_vs_ctags is None else f"{ix.ratio_cold_vs_ctags:.2f}x", "")
        con.print(t)
        if ix.note:
            con.print(f"index: {escape(ix.note)}")
        con.print("trees available: " + ", ".join(f"{k} {v / 1e6:.1f} MB"
                                                  for k, v in sorted(ix.candidates.items())))
    rt = rep.runtime
    if rt is not None:
        if rt.get("upstreams"):
            t = Table(title="runtime checks (warm environments)")
            for col in ("upstream", "checks", "start+import", "import", "per check (marginal)",
                        "per check median / max"):
                t.add_column(col, justify="left" if col == "upstream" else "right")
            for u in rt["upstreams"]:
                t.add_row(u["upstream"], str(u["checks"]), _s(u["startup_s"]), _s(u["import_s"]),
                          f"{1000 * u['per_check_s']:.1f} ms",
                          f"{u['check_ms_median']:.1f} / {u['check_ms_max']:.1f} ms")
            con.print(t)
        else:
            con.print(f"runtime: {escape(str(rt.get('skipped', 'no runtime checks')))}")
    cl = rep.clone
    if cl is not None:
        if cl.ratio is not None:
            con.print(f"[bold]Drake clone[/] from {cl.mirror} @ {(cl.head or '')[:7]}: partial "
                      f"(blob:none, depth 1, {cl.blobs_fetched}/{cl.blobs_wanted} cited blobs) "
                      f"{cl.partial_bytes / 1e6:.2f} MB in {_s(cl.partial_s)}; full depth-1 "
                      f"{cl.full_bytes / 1e6:.1f} MB in {_s(cl.full_s)}; ratio "
                      f"{100 * cl.ratio:.2f} %")
        if cl.note:
            con.print(f"clone: {escape(cl.note)}")
    if rep.scale:
        t = Table(title="scaled course (warm = median; CPU includes pool workers; RSS = the "
                        "process)")
        for col in ("scale", "lessons", "permalinks", "claims", "command", "cold wall",
                    "cold CPU", "warm wall", "warm CPU", "peak RSS"):
            t.add_column(col, justify="left" if col == "command" else "right")
        for pt in rep.scale:
            warm = {r.command: r for r in pt.warm}
            for i, r in enumerate(pt.cold):
                w = warm.get(r.command)
                t.add_row(*(str(x) for x in (pt.scale, pt.lessons, pt.permalinks, pt.claims))
                          if i == 0 else ("", "", "", ""), r.command, _s(r.wall_s), _s(r.cpu_s),
                          _s(w.wall_s if w else None), _s(w.cpu_s if w else None),
                          _s(max(r.rss_mib or 0, (w.rss_mib or 0) if w else 0), " MiB"))
        con.print(t)
        for pt in rep.scale[1:]:
            con.print(f"scale {pt.scale}: marginal warm CPU {_s(pt.per_permalink_ms, ' ms')} per "
                      f"permalink, {_s(pt.per_claim_ms, ' ms')} per claim "
                      f"({_s(pt.per_claim_no_audit_ms, ' ms')} with the memo audit off); verdict mix "
                      f"{'scales with N' if pt.verdicts_scale_with_n else 'DIFFERS'}; cold and "
                      f"warm outputs identical: {pt.outputs_identical}"
                      + (f" ({pt.difference})" if pt.difference else ""))
    big = rep.large
    if big is not None:
        for label, r in (("requested", big.requested), (f"under the {big.limit_mib:g} MiB limit",
                                                         big.under)):
            if r is not None:
                con.print(f"large lesson ({label}): {escape(r.command)} {_s(r.wall_s)} wall, "
                          f"{_s(r.cpu_s)} CPU, {_s(r.rss_mib, ' MiB')}, exit {r.exit_code}")
        if big.message:
            con.print(f"  refusal: {escape(big.message)}")
    con.print(f"peak RSS: self {rep.peak_rss_self_mib:.0f} MiB, children "
              f"{rep.peak_rss_children_mib:.0f} MiB")
    t = Table(title="targets")
    for col in ("target", "goal", "measured", "met"):
        t.add_column(col)
    for tg in rep.targets:
        met = {True: "[green]yes[/]", False: "[red]no[/]", None: "not measured"}[tg.met]
        t.add_row(tg.name, tg.target, escape(tg.measured + (f" ({tg.note})" if tg.note else "")),
                  met)
    con.print(t)
