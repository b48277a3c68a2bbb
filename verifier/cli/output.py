"""Everything the CLI prints goes through here.

- Results go to stdout, notes, progress and errors to stderr (every command).
- User text (paths, TOML keys, messages, claim ids) is never parsed as Rich markup:
  it is printed as `Text`, with control characters shown escaped (`\\n`, `\\x1b`), so a
  `[/x]` or `[bold]` in a file name prints as itself and cannot crash the printer.
- A GitHub Actions runner reads any output line that starts with `::` (or `##[`) as
  a workflow command. Both streams are wrapped so such a line is printed with its
  first character percent-escaped (`%3A:error ...`): only `--format github` emits
  workflow commands, and it writes to stdout directly.
- Paths are printed relative to the current directory when below it or at most two
  `..` away (a course copy beside the project: `../shared/course/...`), else absolute,
  so terminals and editors can open them.
- Progress bars (rich) are shown on stderr only on a terminal and without `-q`; a note
  printed while a bar is live goes through the bar's own console (rich draws it above
  the bar), a stdout line on a terminal hides the bar while it is written. Off a
  terminal, a command that asks for it gets one stage line per step on stderr.
- One console per real stream: rich's redirection proxy (`sys.stderr` while a bar is
  live) and our guard are seen through, so the console of a stream is found by the
  stream itself, never by asking a console which file it wraps.
- Lines go through rich only on a terminal (colour); to anything else (CI logs, pipes,
  files) they are written as their plain text, which is what rich would print there
  without colour, so rich (0.1 s of start-up here) is imported only for a terminal or a
  table.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from verifier.pipeline import Progress
from verifier.visible import INVISIBLE

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

Part = str | tuple[str, str]      # user text, or (text, rich style)

# control characters, and the invisible ones of verifier/visible.py (bidi, zero-width,
# soft hyphen: a name must read as what it is)
_CTRL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029" + re.escape(INVISIBLE) + "]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}


def clean(value: object) -> str:
    """User text made safe to print on one line: control characters shown escaped."""
    s = "" if value is None else str(value)
    return _CTRL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}"
                                          if ord(m.group()) < 0x100
                                          else f"\\u{ord(m.group()):04x}"), s)


_COMMAND = re.compile(r"^([ \t]*)(::|##\[)")


def guard_line(line: str) -> str:
    """A line a workflow runner would execute, defused (`::x` -> `%3A:x`)."""
    return _COMMAND.sub(lambda m: m.group(1) + ("%3A:" if m.group(2) == "::" else "%23#["),
                        line, count=1)


def guard_text(text: str) -> str:
    return "".join(guard_line(ln) for ln in text.splitlines(keepends=True))


class GuardedStream:
    """A text stream that defuses workflow commands at the start of every line."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self._pending = ""  # text of the current line not yet written

    def write(self, text: str) -> int:
        data = self._pending + text
        *done, self._pending = data.split("\n")
        if done:
            self._stream.write("\n".join(guard_line(ln) for ln in done) + "\n")
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(guard_line(self._pending))
            self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", "utf-8")

    def __getattr__(self, name: str):
        if name.startswith("rich_"):    # never a proxy's unwrapping hook: we wrap real streams
            raise AttributeError(name)
        return getattr(self._stream, name)


def real_stream(stream: IO[str]) -> IO[str]:
    """The stream under our guard and under rich's redirection proxy (`FileProxy`, which
    replaces sys.stdout/sys.stderr while a live display redirects them)."""
    for _ in range(8):
        if isinstance(stream, GuardedStream):
            stream = stream._stream
        elif isinstance(getattr(type(stream), "rich_proxied_file", None), property):
            stream = stream.rich_proxied_file    # type: ignore[attr-defined]
        else:
            break
    return stream


def _console(stream: IO[str], stderr: bool) -> "Console":
    from rich.console import Console

    if stream.isatty():
        return Console(file=GuardedStream(stream), highlight=False, soft_wrap=True,
                       stderr=stderr)
    # logs (CI) are wide and never a terminal: no colour codes, no truncated columns
    return Console(file=GuardedStream(stream), highlight=False, soft_wrap=True,
                   force_terminal=False, width=160, stderr=stderr)


# "out"/"err" -> (the real stream it was made for, its console)
_CONSOLES: "dict[str, tuple[IO[str], Console]]" = {}


def _console_of(which: str) -> "Console":
    stream = real_stream(sys.stdout if which == "out" else sys.stderr)
    have = _CONSOLES.get(which)
    if have is None or have[0] is not stream:
        have = (stream, _console(stream, stderr=which == "err"))
        _CONSOLES[which] = have
    return have[1]


def out_console() -> "Console":
    return _console_of("out")


def err_console() -> "Console":
    return _console_of("err")


def text(*parts: Part) -> "Text":
    """Text from pieces: a plain str (user text: cleaned) or (str, style)."""
    from rich.text import Text

    t = Text()
    for p in parts:
        if isinstance(p, tuple):
            t.append(clean(p[0]), style=p[1])
        else:
            t.append(clean(p))
    return t


def plain(*parts: Part) -> str:
    """The text of `parts` without styles (user text cleaned), as `text` holds it."""
    return "".join(clean(p[0]) if isinstance(p, tuple) else clean(p) for p in parts)


def line(stream: IO[str], *parts: Part) -> None:
    """One line of `parts` on `stream` (stdout or stderr): through rich on a terminal,
    else its plain text (workflow commands defused either way)."""
    real = real_stream(stream)
    if real.isatty():
        stdout = real is real_stream(sys.stdout)
        _print(out_console() if stdout else err_console(), text(*parts), stdout=stdout)
    else:     # tabs expanded as rich does (tab size 8), before the line is defused
        real.write(guard_line(plain(*parts).expandtabs(8)) + "\n")


def _print(con: "Console", renderable, *, stdout: bool) -> None:
    """Print on a terminal console. A stderr line while a bar is live goes through the
    bar's console (the same object: rich draws it above the bar); a stdout line hides
    the bar while it is written (the bar lives on stderr, which rich cannot keep above
    another stream's text)."""
    live = _LIVE[0] if _LIVE else None
    if stdout and live is not None:
        live.pause()
        try:
            con.print(renderable, soft_wrap=True)
            con.file.flush()
        finally:
            live.resume()
    else:
        con.print(renderable, soft_wrap=True)


def say(*parts: Part) -> None:
    """One result line on stdout."""
    line(sys.stdout, *parts)


def err_line(*parts: Part) -> None:
    """One line on stderr; printing it never fails the command."""
    try:
        line(sys.stderr, *parts)
    except Exception:  # noqa: BLE001 - printing must never be what fails
        sys.stderr.write(guard_line(plain(*parts)) + "\n")


def _stderr(label: str, style: str, msg: str) -> None:
    err_line((label, style), " ", msg)


def note(msg: str) -> None:
    _stderr("note:", "yellow", msg)


def info(msg: str) -> None:
    """A line of information on stderr (e.g. 'wrote out/verification.json')."""
    err_line(msg)


def error(msg: str, label: str = "error:") -> None:
    _stderr(label, "bold red", msg)


def table(title: str, columns: Sequence[str], rows: Iterable[Sequence["str | Text"]],
          right: Iterable[str] = ()) -> "Table":
    """A table whose cells are user text (never markup); Text cells keep their styles."""
    from rich.table import Table
    from rich.text import Text

    right = set(right)
    t = Table(title=clean(title))
    for col in columns:
        t.add_column(clean(col), justify="right" if col in right else "left", overflow="fold")
    for row in rows:
        t.add_row(*(c if isinstance(c, Text) else Text(clean(c)) for c in row))
    return t


def show(renderable) -> None:
    """A table (or other rich renderable) on stdout."""
    con = out_console()
    live = _LIVE[0] if _LIVE else None
    if live is not None and real_stream(sys.stdout).isatty():
        live.pause()
        try:
            con.print(renderable)
        finally:
            live.resume()
    else:
        con.print(renderable)


UP_LEVELS = 2   # a path this many `..` away (a course copy beside the project) stays relative


def rel(path: str | os.PathLike | None) -> str:
    """A path the user can open: relative to the current directory when below it or near
    it (`../shared/course/...`, as written: symlinks on the way are kept), else absolute."""
    if path is None:
        return "-"
    p = Path(path)
    try:
        absolute = p.resolve()
        cwd = Path.cwd().resolve()
    except OSError:
        return str(p)
    try:
        return absolute.relative_to(cwd).as_posix()
    except ValueError:
        pass
    for target, shown in _links_near(str(cwd)):    # ../shared -> /work/shared, as written
        if absolute.is_relative_to(target):
            return (Path(shown) / absolute.relative_to(target)).as_posix()
    try:
        near = os.path.relpath(os.path.abspath(p), os.getcwd())
    except ValueError:          # another drive
        return str(absolute)
    parts = Path(near).parts
    if parts.count("..") <= UP_LEVELS and ".." not in parts[parts.count(".."):]:
        return Path(near).as_posix()
    return str(absolute)


@lru_cache(maxsize=4)
def _links_near(cwd: str) -> tuple[tuple[Path, str], ...]:
    """Symbolic links to directories in the current directory and the UP_LEVELS above it
    (a course copy beside the project: `../shared` -> /work/shared): (target, how the
    user reaches it), so a resolved path under one is shown the way the user reaches it."""
    out = []
    here = Path(cwd)
    for up in range(UP_LEVELS + 1):
        base = here.parents[up - 1] if up else here
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for ent in entries:
            try:
                if ent.is_symlink() and ent.is_dir():
                    target = Path(ent.path).resolve()
                    if not here.is_relative_to(target):   # not a link back to us
                        out.append((target, "/".join([".."] * up + [ent.name])))
            except OSError:
                continue
    return tuple(out)


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


_LIVE: "list[RichProgress]" = []     # the progress whose bar is on screen (at most one)


class RichProgress(Progress):
    """Progress bars on stderr when it is a terminal (not with -q). Off a terminal,
    `stages=True` prints one line per step instead (what a CI log needs to tell a slow
    step from a hung one); commands whose steps take a fraction of a second leave it off."""

    def __init__(self, quiet: bool = False, stages: bool = False) -> None:
        self.enabled = not quiet and real_stream(sys.stderr).isatty()
        self.stages = stages and not quiet and not self.enabled
        self._prog = None
        self._task = None

    def begin(self, what: str, total: int | None = None) -> None:
        if self.stages:
            info(f"… {what}" + (f" ({total:,})" if total else ""))
        if not self.enabled:
            return
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress as _P,
                                   ProgressColumn, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn)
        from rich.text import Text

        class Done(ProgressColumn):      # unknown total: the count done so far, if any
            def render(self, task) -> Text:
                return Text(f"{int(task.completed):,} done" if task.completed else "")

        self.end()
        cols = [SpinnerColumn(), TextColumn("{task.description}", markup=False)]
        cols += [BarColumn(), MofNCompleteColumn()] if total else [Done()]
        cols.append(TimeElapsedColumn())
        # stdout is never redirected into the bar's console (results would land on
        # stderr); stderr is, so a library's stray write is drawn above the bar
        self._prog = _P(*cols, console=err_console(), transient=True,
                        redirect_stdout=False, redirect_stderr=True)
        self._prog.start()
        self._task = self._prog.add_task(clean(what), total=total)
        _LIVE[:] = [self]

    def advance(self, n: int = 1) -> None:
        if self._prog is not None:
            self._prog.advance(self._task, n)

    def pause(self) -> None:
        """Take the bar off the screen (it comes back with `resume`)."""
        if self._prog is not None:
            self._prog.stop()

    def resume(self) -> None:
        if self._prog is not None:
            self._prog.start()

    def end(self) -> None:
        if self._prog is not None:
            self._prog.stop()
            self._prog = None
        if _LIVE and _LIVE[0] is self:
            _LIVE.clear()


def end_progress() -> None:
    """Take any live bar off the screen (the command ends, possibly by an exception)."""
    for p in list(_LIVE):
        p.end()
