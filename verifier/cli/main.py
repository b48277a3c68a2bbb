"""`verifier` command line: argparse + dispatch inside one error funnel."""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import sys
import traceback
from types import ModuleType

from verifier import __version__
from verifier.cli import cache_cmd, lock_cmd, sources_cmd, sync_cmd, upgrade_cmd, verify_cmd
from verifier.cli import check_cmd, claims_cmd, coverage_cmd, draft_cmd  # claims
from verifier.cli import env_cmd  # runtime environments
from verifier.cli import record_cmd, schema_cmd  # outputs
from verifier.cli import lint_cmd, rules_cmd  # lint
from verifier.cli import bench_cmd  # speed
from verifier.cli.common import add_global, err_console
from verifier.errors import VerifierError
from verifier.exitcodes import ExitCode

# Explicit registry: (name, module). Each module has HELP, add_arguments(p) and run(args).
COMMANDS: list[tuple[str, ModuleType]] = [
    ("verify", verify_cmd),
    ("sync", sync_cmd),
    ("sources", sources_cmd),
    ("lock", lock_cmd),
    ("cache", cache_cmd),
    ("lint", lint_cmd),
    ("rules", rules_cmd),
    ("upgrade", upgrade_cmd),
    ("record", record_cmd),
    ("schema", schema_cmd),
    ("env", env_cmd),
    ("check", check_cmd),
    ("coverage", coverage_cmd),
    ("draft", draft_cmd),
    ("claims", claims_cmd),
    ("bench", bench_cmd),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="verifier", description="Keep source-level course text honest against pinned "
        "upstream source.", epilog="Exit codes: 0 clean, 1 findings (divergence, stale claim, "
        "lint error), 2 usage/config error, 3 internal error.")
    parser.add_argument("--version", action="version", version=f"verifier {__version__}")
    add_global(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, mod in COMMANDS:
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        add_global(p)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def _crash_log(exc: BaseException) -> str | None:
    try:
        from verifier.cache import default_cache_dir

        d = default_cache_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = d / "verifier-crash.log"
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"--- {_dt.datetime.now(_dt.UTC).isoformat()} verifier {__version__} "
                     f"python {platform.python_version()} argv {sys.argv!r}\n")
            fh.write("".join(traceback.format_exception(exc)))
        return str(path)
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: usage errors exit 2, --help exits 0
        return int(exc.code or 0)
    if not getattr(args, "command", None):
        parser.print_help()
        return ExitCode.USAGE
    try:
        return int(args._run(args))
    except VerifierError as exc:
        err_console.print(f"[bold red]error:[/] {exc.render()}", markup=True, soft_wrap=True,
                          highlight=False)
        return exc.exit_code
    except KeyboardInterrupt:
        err_console.print("interrupted")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except Exception as exc:  # noqa: BLE001 - the funnel for bugs
        log = _crash_log(exc)
        err_console.print(f"[bold red]internal error:[/] {type(exc).__name__}: {exc}"
                          + (f" (traceback in {log})" if log else ""), markup=True,
                          soft_wrap=True, highlight=False)
        if os.environ.get("VERIFIER_DEBUG"):
            traceback.print_exc()
        return ExitCode.INTERNAL
