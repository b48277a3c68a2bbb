"""Shared CLI plumbing: global options, the project, consoles."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from verifier.project import Project, load_project
from verifier.sources.models import NOTIFIED_CODES

err_console = Console(stderr=True, highlight=False)


def add_global(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("global options")
    g.add_argument("--pins", type=Path, default=argparse.SUPPRESS,
                   help="pins.toml to use (default: nearest pins.toml upward, or $VERIFIER_PINS)")
    g.add_argument("--offline", action="store_true", default=argparse.SUPPRESS,
                   help="never use the network; serve from cache, mirrors and local stores")
    g.add_argument("--cache", type=Path, default=argparse.SUPPRESS,
                   help="cache directory (default: $VERIFIER_CACHE or $XDG_CACHE_HOME/verifier)")
    g.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress or notes on stderr")
    g.add_argument("--refresh", action="store_true", default=argparse.SUPPRESS,
                   help="contact the git remotes even when the cache holds every needed "
                        "file at pinned identity (they must still have the pinned commit)")
    g.add_argument("--strict", action="store_true", default=argparse.SUPPRESS,
                   help="exit 1 on any source identity warning (lock for another commit or "
                        "truncated, needed files without a pin blob, a commit the upstream "
                        "lacks, cache entries lost)")


_PROJECTS: list[Project] = []   # projects this invocation opened (for the sources summary)


def project_from(args: argparse.Namespace) -> Project:
    quiet = getattr(args, "quiet", False)

    def notify(msg: str) -> None:
        if not quiet:
            err_console.print(f"[yellow]note:[/] {escape(msg)}", markup=True, soft_wrap=True)

    project = load_project(getattr(args, "pins", None), offline=getattr(args, "offline", None),
                           cache=getattr(args, "cache", None), notify=notify)
    if getattr(args, "refresh", False):
        project.config.refresh = True
    _PROJECTS[:] = [project]   # one project per command; a failed earlier one is dropped
    return project


def source_notices(args: argparse.Namespace, code: int) -> int:
    """After a command: print the source layer's notices (warnings always, the rest unless
    -q) on stderr, and turn the exit code into 1 under --strict when any is a warning."""
    warned = False
    while _PROJECTS:
        project = _PROJECTS.pop(0)
        layer = project._layer
        if layer is None:
            continue
        quiet = getattr(args, "quiet", False)
        for n in layer.notices():
            if n.severity != "warning" and (quiet or n.code in NOTIFIED_CODES):
                continue
            warned |= n.severity == "warning"
            colour = "yellow" if n.severity == "warning" else "cyan"
            paths = ""
            if n.paths:
                shown = ", ".join(n.paths[:5])
                paths = f" ({shown}{f', … {len(n.paths) - 5} more' if len(n.paths) > 5 else ''})"
            err_console.print(f"[{colour}]sources {n.severity}:[/] "
                              + escape(f"[{n.code}] {n.message}{paths}"), markup=True,
                              soft_wrap=True, highlight=False)
    if warned and getattr(args, "strict", False) and code == 0:
        return 1
    return code


def stdout_console() -> Console:
    if sys.stdout.isatty():
        return Console(highlight=False, soft_wrap=True)
    # logs (CI) are wide and never a terminal: no colour codes, no truncated columns
    return Console(highlight=False, soft_wrap=True, force_terminal=False, width=160)
