"""`verifier` command line: argparse + dispatch inside one error funnel.

Start-up is kept cheap (`verifier --help`, `verifier rules`): command modules import
only argparse and the standard library at module level, and only the invoked
command's options are built (a command's option choices may come from registries
that import the stages).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

from verifier import __version__
from verifier.cli.common import add_global, source_notices
from verifier.errors import VerifierError
from verifier.exitcodes import ExitCode
from verifier.registry import Registry

# Explicit registry: name -> module. Each module has HELP, add_arguments(p) and run(args).
COMMANDS: Registry[str] = Registry("command")
for _name, _module in [      # in the order of an author's and a CI's day (verifier --help)
    ("verify", "verify_cmd"),
    ("lint", "lint_cmd"),
    ("check", "check_cmd"),
    ("coverage", "coverage_cmd"),
    ("draft", "draft_cmd"),
    ("claims", "claims_cmd"),
    ("record", "record_cmd"),
    ("sync", "sync_cmd"),
    ("sources", "sources_cmd"),
    ("lock", "lock_cmd"),
    ("env", "env_cmd"),
    ("upgrade", "upgrade_cmd"),
    ("cache", "cache_cmd"),
    ("rules", "rules_cmd"),
    ("schema", "schema_cmd"),
    ("docs", "docs_cmd"),
    ("bench", "bench_cmd"),
]:
    COMMANDS.register(_name, f"verifier.cli.{_module}")

EPILOG = ("Exit codes: 0 clean, 1 findings (divergence, stale claim, claim error, lint error, "
          "source mismatch), 2 usage/config error, 3 internal error.")
_VALUE_GLOBALS = ("--pins", "--cache")


def command_module(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name])


def _invoked(argv: list[str]) -> str | None:
    """The command named in argv (skipping global options and their values)."""
    skip = False
    for tok in argv:
        if skip:
            skip = False
            continue
        if tok == "--":
            return None
        if tok in _VALUE_GLOBALS:
            skip = True
            continue
        if tok.startswith("-"):
            continue
        return tok if tok in COMMANDS else None
    return None


class _Parser(argparse.ArgumentParser):
    """No prefix matching of options (`--runtim none` is an error, not `--runtime`), and
    "did you mean" for a misspelt command."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        if "invalid choice" in message and "argument COMMAND" in message:
            from verifier.registry import choice_message

            bad = message.split("'", 2)[1] if "'" in message else message
            message = choice_message("command", bad, COMMANDS)
        super().error(message)


class _Help(argparse.HelpFormatter):
    """Help text wrapped to the terminal (at most 100 columns), defaults shown where an
    option's help does not say them."""

    def __init__(self, prog: str) -> None:
        import shutil

        super().__init__(prog, width=min(shutil.get_terminal_size((100, 24)).columns, 100),
                         max_help_position=30)


def _unknown_options(sub: argparse.ArgumentParser, name: str, extras: list[str]) -> str:
    """`unrecognized arguments` of a command, with "did you mean" from its own options
    and the command's hint for an option it does not take (e.g. verify --format)."""
    from verifier.registry import suggest

    options = [o for a in sub._actions for o in a.option_strings if o.startswith("--")]
    hints = getattr(command_module(name), "NOT_AN_OPTION", {})
    said = []
    after_option = False
    for tok in extras:
        flag = tok.split("=", 1)[0]
        if not flag.startswith("-"):
            if not after_option:     # else most likely the unknown option's value
                said.append(f"unexpected argument {tok!r}")
            after_option = False
            continue
        after_option = "=" not in tok
        if flag in hints:
            said.append(f"unknown option {flag}: {hints[flag]}")
            continue
        near = suggest(flag, options)
        said.append(f"unknown option {flag}" + (f" (did you mean {near}?)" if near else ""))
    return "; ".join(said) + f" (`verifier {name} --help` lists its options)"


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser. With `argv`, only the command it names gets its subparser and options
    (every command when it names none, e.g. `verifier --help`); `argv` None builds all."""
    parser = _Parser(prog="verifier", description="Keep source-level course text honest "
                     "against pinned upstream source.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"verifier {__version__}")
    add_global(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    wanted = None if argv is None else _invoked(argv)
    # the invoked command alone (no other command module is imported); all for --help
    for name in [wanted] if wanted else COMMANDS:
        mod = command_module(name)
        p = sub.add_parser(name, help=mod.HELP, description=getattr(mod, "DESCRIPTION",
                                                                         mod.HELP),
                           epilog=EPILOG)
        if argv is None or name == wanted:
            mod.add_arguments(p)
            add_global(p)
            p.set_defaults(_run=mod.run)
    parser.subparsers = sub.choices     # type: ignore[attr-defined]
    return parser


def crash_log(text: str, cache: Path | None = None) -> Path | None:
    """Append `text` to verifier-crash.log in the cache (`--cache DIR` when given), or
    in the temp directory when the cache is unusable. Returns the log's path."""
    import datetime as _dt
    import platform
    import tempfile

    from verifier.cache import default_cache_dir

    head = (f"--- {_dt.datetime.now(_dt.UTC).isoformat()} verifier {__version__} "
            f"python {platform.python_version()} argv {sys.argv!r}\n")
    for d in (cache or default_cache_dir(), Path(tempfile.gettempdir())):
        try:
            d.mkdir(parents=True, exist_ok=True)
            path = d / "verifier-crash.log"
            # appended, never through a planted link (the temp directory is shared)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as fh:
                fh.write(head + text.rstrip("\n") + "\n")
            return path
        except OSError:
            continue
    return None


def _cache_of(args: argparse.Namespace | None) -> Path | None:
    return getattr(args, "cache", None) if args is not None else None


def _print_error(label: str, msg: str) -> None:
    try:
        from verifier.cli.output import error

        error(msg, label)
    except Exception:  # noqa: BLE001 - the funnel itself must not fail
        sys.stderr.write(f"{label} {msg}\n")


def _tolerant_streams() -> None:
    """Text the terminal's encoding cannot show (Chinese lesson paths and messages under
    `PYTHONIOENCODING=ascii` or a legacy locale) is printed escaped (`\\u4e2d`), never
    a crash of the command."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            with contextlib.suppress(Exception):
                stream.reconfigure(errors="backslashreplace")


def _run(args: argparse.Namespace) -> int:
    """The command, with any progress bar off the screen when it ends (also by an
    exception: the error funnel's line must not be drawn under a bar)."""
    try:
        return int(args._run(args))
    finally:
        out = sys.modules.get("verifier.cli.output")   # loaded only if something printed
        if out is not None:
            out.end_progress()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # pydantic plugins installed beside the verifier (observability hooks) would be
    # discovered by scanning every distribution's entry points and then run inside each
    # validation of the verifier's own models; records must not depend on them. A user
    # who sets the variable decides.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    _tolerant_streams()
    parser = build_parser(argv)
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:   # said by the command's own parser: its usage and its options
            name = getattr(args, "command", None)
            sub = parser.subparsers.get(name) if name else None   # type: ignore[attr-defined]
            if sub is None:
                parser.error(f"unrecognized arguments: {' '.join(extras)}")
            sub.error(_unknown_options(sub, name, extras))
    except SystemExit as exc:  # argparse: usage errors exit 2, --help exits 0
        return int(exc.code or 0)
    if not getattr(args, "command", None):
        parser.print_help()
        return ExitCode.USAGE
    try:
        return source_notices(args, _run(args))
    except VerifierError as exc:
        _print_error("error:", exc.render())
        return exc.exit_code
    except KeyboardInterrupt:
        _print_error("interrupted", "")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return ExitCode.OK
    except OSError as exc:
        if exc.errno not in _MACHINE:
            return _crash(exc, args)
        # the machine refused a write that no safe-writer area saw first (a full disk in a
        # library's own file): a usage/environment error naming the file, not a bug
        from verifier.safewrite import reason

        _print_error("error:", f"{exc.filename or 'a file'}: {reason(exc)}")
        return ExitCode.USAGE
    except Exception as exc:  # noqa: BLE001 - the funnel for bugs
        if type(exc).__name__ == "OperationalError" and "disk is full" in str(exc):
            _print_error("error:", f"no space left on device ({exc}); free some space or "
                         "use --cache on a disk with room")
            return ExitCode.USAGE
        return _crash(exc, args)


_MACHINE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM,
                      errno.EFBIG, errno.EIO, errno.ENAMETOOLONG})


def _crash(exc: BaseException, args: argparse.Namespace | None) -> int:
    """A bug: logged with its traceback, exit 3."""
    import traceback

    log = crash_log("".join(traceback.format_exception(exc)), _cache_of(args))
    _print_error("internal error:", f"{type(exc).__name__}: {exc}"
                 + (f" (traceback in {log})" if log else ""))
    if os.environ.get("VERIFIER_DEBUG"):
        traceback.print_exc()
    return ExitCode.INTERNAL
