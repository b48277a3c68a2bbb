"""`verifier sync`: acquire every needed upstream file at pinned identity into the cache."""

from __future__ import annotations

import argparse

HELP = "acquire every upstream file the course needs, at pinned identity, into the cache"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--upstream", help="only this upstream")
    # --strict (a global option) also means here: exit 1 unless every needed file is pinned


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli import render
    from verifier.cli.common import project_from, quiet
    from verifier.exitcodes import ExitCode
    from verifier.pipeline import acquire, check_upstream
    from verifier.sources.models import Status
    from verifier.claims.loader import claimed_files
    from verifier.sources.needs import needed_files

    project = project_from(args)
    check_upstream(project, args.upstream)
    items = needed_files(project, args.upstream, claimed=claimed_files(project))
    files = acquire(project, items, o.RichProgress(quiet(args), stages=True))
    render.sources_table(files)
    for f in files:
        if f.status is Status.MISMATCH:
            o.say(("mismatch", "red"), f" {f.upstream}:{f.path}: {f.detail}")
    # cache repairs, lost entries and identity warnings: the sources summary after the
    # command (cli.common.source_notices) says "repaired" only for what was re-acquired
    not_pinned = sum(1 for f in files if f.status is not Status.PINNED)
    strict = getattr(args, "strict", False)
    o.say(f"{o.plural(len(files), 'file')} needed, {o.plural(not_pinned, 'file')} not pinned"
          + ("; exit 1 (--strict)" if strict and not_pinned else ""))
    if strict and not_pinned:
        return ExitCode.FINDINGS
    return ExitCode.OK
