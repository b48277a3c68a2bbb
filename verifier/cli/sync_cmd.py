"""`verifier sync`: acquire every needed upstream file at pinned identity into the cache."""

from __future__ import annotations

import argparse
from collections import Counter

from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from verifier.claims.loader import claimed_files
from verifier.cli.common import err_console, project_from, stdout_console
from verifier.exitcodes import ExitCode
from verifier.sources.models import SourceFile, Status
from verifier.sources.needs import needed_files

HELP = "acquire every upstream file the course needs, at pinned identity, into the cache"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--upstream", help="only this upstream")
    # --strict (a global option) also means here: exit 1 unless every needed file is pinned


def resolve_with_progress(project, items: list[tuple[str, str]], quiet: bool = False,
                          needed: bool = True) -> list[SourceFile]:
    """`needed=False` when `items` are not what lessons and claims need (`sources --all`):
    their missing pin blobs are then no identity warning."""
    layer = project.sources
    out: list[SourceFile] = []
    by_up: dict[str, list[str]] = {}
    for u, p in items:
        by_up.setdefault(u, []).append(p)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=err_console, transient=True, disable=quiet) as prog:
        for u, paths in by_up.items():
            task = prog.add_task(f"sources {u}", total=len(paths))
            layer.prefetch(u, paths)
            for p in paths:
                out.append(layer.resolve(u, p, needed=needed))
                prog.advance(task)
    layer.save_index()
    return out


def summary_table(files: list[SourceFile]) -> Table:
    t = Table(title="sources at pinned identity")
    t.add_column("upstream")
    for s in Status:
        t.add_column(s.value, justify="right")
    t.add_column("providers")
    ups = sorted({f.upstream for f in files})
    for u in ups:
        mine = [f for f in files if f.upstream == u]
        c = Counter(f.status for f in mine)
        provs = Counter((f.provider or "-").split(":", 1)[0] + (" (cached)" if f.cached else "")
                        for f in mine if f.status.usable)
        t.add_row(u, *[str(c.get(s, 0)) for s in Status],
                  ", ".join(f"{k} {v}" for k, v in sorted(provs.items())))
    return t


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    items = needed_files(project, args.upstream, claimed=claimed_files(project))
    files = resolve_with_progress(project, items, getattr(args, "quiet", False))
    con = stdout_console()
    con.print(summary_table(files))
    for f in files:
        if f.status is Status.MISMATCH:
            con.print(f"[red]mismatch[/] {escape(f'{f.upstream}:{f.path}: {f.detail}')}")
    # cache repairs, lost entries and identity warnings: the sources summary after the
    # command (cli.common.source_notices) says "repaired" only for what was re-acquired
    if getattr(args, "strict", False) and any(f.status is not Status.PINNED for f in files):
        return ExitCode.FINDINGS
    return ExitCode.OK
