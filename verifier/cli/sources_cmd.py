"""`verifier sources`: every needed upstream file with its blob, provider and status."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from verifier.claims.loader import claimed_files
from verifier.cli.common import project_from, stdout_console
from verifier.cli.sync_cmd import resolve_with_progress
from verifier.exitcodes import ExitCode
from verifier.sources.needs import needed_files

HELP = "list upstream files the course needs, with blob, provider and identity status"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--upstream", help="only this upstream")
    p.add_argument("--all", action="store_true",
                   help="every path known for the upstream(s), not only the needed ones")
    p.add_argument("--status", action="append",
                   choices=["pinned", "release", "mismatch", "unavailable"],
                   help="only files with this status (repeatable)")


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    if args.all:
        ups = [args.upstream] if args.upstream else sorted(project.pins.upstream)
        items = [(u, p) for u in ups for p in project.sources.known_paths(u)]
    else:
        items = needed_files(project, args.upstream, claimed=claimed_files(project))
    files = resolve_with_progress(project, items, getattr(args, "quiet", False)
                                  or args.format == "json", needed=not args.all)
    if args.status:
        files = [f for f in files if f.status.value in args.status]
    if args.format == "json":
        print(json.dumps([f.public() for f in files], indent=2, sort_keys=False))
        return ExitCode.OK
    t = Table(title=f"{len(files)} upstream files")
    for col in ("upstream", "path", "status", "blob", "provider"):
        t.add_column(col, overflow="fold")
    colours = {"pinned": "green", "release": "cyan", "mismatch": "red", "unavailable": "yellow"}
    for f in files:
        c = colours[f.status.value]
        t.add_row(f.upstream, f.path, f"[{c}]{f.status.value}[/]", (f.blob or "-")[:12],
                  (f.provider or f.detail or "-") + (" (cached)" if f.cached else ""))
    stdout_console().print(t)
    return ExitCode.OK
