"""Shared CLI plumbing that every command module imports at start-up: global options,
validated choice options, the project. Kept light (argparse and the standard library
only), so `verifier --help` does not import pydantic, rich or the stages; printing
lives in `verifier.cli.output`, imported by commands when they run."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.registry import choice_message

if TYPE_CHECKING:
    from verifier.project import Project

TEXT = "text"  # the name of the human-readable format in every command


def path_arg(value: str) -> Path:
    """An argparse `type` for a path: the empty string (`--cache ''`, which Path() turns
    into the current directory) and a path holding NUL are refused."""
    if not value.strip():
        raise argparse.ArgumentTypeError("an empty path (it would mean the current directory); "
                                         "give a directory or file name")
    if "\0" in value:
        raise argparse.ArgumentTypeError(f"a path with a NUL character: {value!r}")
    return Path(value)


def text_path_arg(value: str) -> str:
    """`path_arg` for options kept as text (a trailing '/' keeps its meaning)."""
    path_arg(value)
    return value


def add_global(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("global options")
    g.add_argument("--pins", type=path_arg, default=argparse.SUPPRESS,
                   help="pins.toml to use (default: nearest pins.toml upward, or $VERIFIER_PINS)")
    g.add_argument("--offline", action="store_true", default=argparse.SUPPRESS,
                   help="never use the network; serve from cache, mirrors and local stores")
    g.add_argument("--cache", type=path_arg, default=argparse.SUPPRESS,
                   help="cache directory (default: $VERIFIER_CACHE, else "
                        "$XDG_CACHE_HOME/verifier, else ~/.cache/verifier)")
    g.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="no progress or notes on stderr")
    g.add_argument("--refresh", action="store_true", default=argparse.SUPPRESS,
                   help="contact the git remotes even when the cache holds every needed "
                        "file at pinned identity (they must still have the pinned commit)")
    g.add_argument("--strict", action="store_true", default=argparse.SUPPRESS,
                   help="exit 1 on any source identity warning (lock for another commit or "
                        "truncated, needed files without a pin blob, a commit the upstream "
                        "lacks, cache entries lost)")


_PROJECTS: "list[Project]" = []   # projects this invocation opened (for the sources summary)


def choice(what: str, names: Callable[[], Iterable[str]] | Iterable[str],
           aliases: dict[str, str] | None = None) -> Callable[[str], str]:
    """An argparse `type` that accepts one of `names` (a callable is asked only when
    the option is used, so registries load lazily) and refuses anything else with
    "did you mean"."""
    aliases = aliases or {}

    def convert(value: str) -> str:
        value = aliases.get(value, value)
        known = list(names() if callable(names) else names)
        if value not in known:
            raise argparse.ArgumentTypeError(choice_message(what, value, known))
        return value

    convert.__name__ = what  # argparse names the type in its messages
    return convert


def add_format(p: argparse.ArgumentParser, names: Iterable[str], default: str = TEXT,
               aliases: dict[str, str] | None = None, help_extra: str = "") -> None:
    names = list(names)
    p.add_argument("--format", default=default, type=choice("format", names, aliases),
                   metavar="FMT", help=f"output format: {', '.join(names)} (default {default})"
                   + help_extra)


def quiet(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "quiet", False))


def project_from(args: argparse.Namespace) -> "Project":
    from verifier.cli.output import note
    from verifier.project import load_project

    q = quiet(args)

    def notify(msg: str) -> None:
        if not q:
            note(msg)

    project = load_project(getattr(args, "pins", None), offline=getattr(args, "offline", None),
                           cache=getattr(args, "cache", None), notify=notify)
    if getattr(args, "refresh", False):
        project.config.refresh = True
    _PROJECTS[:] = [project]   # one project per command; a failed earlier one is dropped
    return project


_WARNED: list[bool] = []   # a `sources warning` was printed in this invocation


def print_source_notices(args: argparse.Namespace) -> None:
    """Print the source layer's notices (warnings always, the rest unless -q) on stderr
    now; a command calls it before its last line, so that line stays the last one."""
    if not _PROJECTS:   # a command that opened no project (rules, docs, --help) says nothing
        return
    from verifier.cli import output as o
    from verifier.sources.models import NOTIFIED_CODES

    while _PROJECTS:
        project = _PROJECTS.pop(0)
        layer = project._layer
        if layer is None:
            continue
        for n in layer.notices():
            if n.severity != "warning" and (quiet(args) or n.code in NOTIFIED_CODES):
                continue
            if n.severity == "warning":
                _WARNED.append(True)
            paths = ""
            if n.paths:
                shown = ", ".join(n.paths[:5])
                paths = f" ({shown}{f', … {len(n.paths) - 5} more' if len(n.paths) > 5 else ''})"
            o.err_line((f"sources {n.severity}:", "yellow" if n.severity == "warning" else "cyan"),
                       f" [{n.code}] {n.message}{paths}")


def source_notices(args: argparse.Namespace, code: int) -> int:
    """After a command: print the source layer's notices not printed yet, and turn the
    exit code into 1 under --strict when any was a warning."""
    print_source_notices(args)
    warned = bool(_WARNED)
    _WARNED.clear()
    if warned and getattr(args, "strict", False) and code == 0:
        return 1
    return code
