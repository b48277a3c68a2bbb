"""`verifier verify`: the main job over the whole course (what CI of a course runs)."""

from __future__ import annotations

import argparse

from verifier.cli.common import project_from, stdout_console
from verifier.cli.sync_cmd import resolve_with_progress, summary_table
from verifier.exitcodes import ExitCode
from verifier.sources.models import Status
from verifier.sources.needs import needed_files

HELP = "run every stage over the course: acquire sources, then report"


def add_arguments(p: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    project = project_from(args)
    con = stdout_console()
    files = resolve_with_progress(project, needed_files(project), getattr(args, "quiet", False))
    con.print(summary_table(files))
    code = ExitCode.OK
    if any(f.status is Status.MISMATCH for f in files):
        code = ExitCode.FINDINGS
    return code
