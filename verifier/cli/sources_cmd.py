"""`verifier sources`: every needed upstream file with its blob, provider and status."""

from __future__ import annotations

import argparse
import json

from verifier.cli.common import TEXT, add_format, choice

HELP = "list upstream files the course needs, with blob, provider and identity status"
STATUSES = ("pinned", "release", "mismatch", "unavailable")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_format(p, [TEXT, "json"], aliases={"table": TEXT})
    p.add_argument("--upstream", help="only this upstream")
    p.add_argument("--all", action="store_true",
                   help="every path known for the upstream(s), not only the needed ones")
    p.add_argument("--status", action="append", type=choice("status", STATUSES),
                   help=f"only files with this status ({', '.join(STATUSES)}; repeatable)")


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import project_from, quiet
    from verifier.exitcodes import ExitCode
    from verifier.pipeline import acquire, check_upstream
    from verifier.claims.loader import claimed_files
    from verifier.sources.needs import needed_files

    project = project_from(args)
    check_upstream(project, args.upstream)
    if args.all:
        ups = [args.upstream] if args.upstream else sorted(project.pins.upstream)
        items = [(u, p) for u in ups for p in project.sources.known_paths(u)]
    else:
        items = needed_files(project, args.upstream, claimed=claimed_files(project))
    files = acquire(project, items, o.RichProgress(quiet(args) or args.format == "json"),
                    needed=not args.all)
    if args.status:
        files = [f for f in files if f.status.value in args.status]
    if args.format == "json":
        print(json.dumps([f.public() for f in files], indent=2, sort_keys=False))
        return ExitCode.OK
    colours = {"pinned": "green", "release": "cyan", "mismatch": "red", "unavailable": "yellow"}
    rows = [[f.upstream, f.path, o.text((f.status.value, colours[f.status.value])),
             (f.blob or "-")[:12],
             (f.provider or f.detail or "-") + (" (cached)" if f.cached else "")]
            for f in files]
    o.show(o.table(f"{o.plural(len(files), 'upstream file')}",
                   ["upstream", "path", "status", "blob", "provider"], rows))
    return ExitCode.OK
