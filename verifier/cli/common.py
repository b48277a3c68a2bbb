"""Shared CLI plumbing: global options, the project, consoles."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from verifier.project import Project, load_project

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


def project_from(args: argparse.Namespace) -> Project:
    quiet = getattr(args, "quiet", False)

    def notify(msg: str) -> None:
        if not quiet:
            err_console.print(f"[yellow]note:[/] {msg}", markup=True, soft_wrap=True)

    return load_project(getattr(args, "pins", None), offline=getattr(args, "offline", None),
                        cache=getattr(args, "cache", None), notify=notify)


def stdout_console() -> Console:
    if sys.stdout.isatty():
        return Console(highlight=False, soft_wrap=True)
    # logs (CI) are wide and never a terminal: no colour codes, no truncated columns
    return Console(highlight=False, soft_wrap=True, force_terminal=False, width=160)
