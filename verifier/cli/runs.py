"""Running the pipeline from a command: progress on stderr, contained crashes reported
and logged (`verifier-crash.log` in the cache, or the temp directory)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from verifier.cli.common import project_from, quiet

if TYPE_CHECKING:
    from verifier.pipeline import Run, RunOptions
    from verifier.project import Project


def execute(args: argparse.Namespace, opts: "RunOptions", stages: bool = False,
            project: "Project | None" = None,
            before: "Callable[[Project], object] | None" = None) -> "tuple[Project, Run]":
    """`stages`: off a terminal, one stderr line per step (commands that run long);
    `project`: already opened by the command; `before(project)`: checks made once the
    project is loaded and before any work (the output directory a command will write
    into)."""
    from verifier import pipeline
    from verifier.cli.output import RichProgress

    project = project or project_from(args)
    if before is not None:
        before(project)
    result = pipeline.run(project, opts, RichProgress(quiet(args), stages=stages))
    report_crashes(args, result)
    return project, result


def report_crashes(args: argparse.Namespace, result: "Run") -> None:
    """One error line per contained crash (on stderr) and their tracebacks in the log."""
    if not result.crashes:
        return
    from verifier.cli.main import crash_log
    from verifier.cli.output import error

    log = crash_log("".join(f"{c.what} on {c.course}/{c.lesson}:\n{c.traceback}"
                            for c in result.crashes), getattr(args, "cache", None))
    for c in result.crashes:
        error(f"{c.what} raised {c.error} on {c.course}/{c.lesson}; the run went on"
              + (f" (traceback in {log})" if log else ""), "internal error:")
