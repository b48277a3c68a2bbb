"""Everything the CLI prints goes through here.

- Results go to stdout, notes, progress and errors to stderr (every command).
- User text (paths, TOML keys, messages, claim ids) is never parsed as Rich markup:
  it is printed as `Text`, with control characters shown escaped (`\\n`, `\\x1b`), so a
  `[/x]` or `[bold]` in a file name prints as itself and cannot crash the printer.
- A GitHub Actions runner reads any output line that starts with `::` (or `##[`) as
  a workflow command. Both streams are wrapped so such a line is printed with its
  first character percent-escaped (`%3A:error ...`): only `--format github` emits
  workflow commands, and it writes to stdout directly.
- Paths are printed relative to the current directory when below it, else absolute,
  so terminals and editors can open them.
- Progress bars (rich) are shown on stderr only on a terminal and without `-q`.
- Lines go through rich only on a terminal (colour); to anything else (CI logs, pipes,
  files) they are written as their plain text, which is what rich would print there
  without colour, so rich (0.1 s of start-up here) is imported only for a terminal or a
  table.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from verifier.pipeline import Progress

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

Part = str | tuple[str, str]      # user text, or (text, rich style)

# control characters, and the invisible format characters that make a name or path
# look like another (zero-width, soft hyphen, bidirectional controls, BOM)
_CTRL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e"
                   r"\u2060-\u2064\u2066-\u2069\ufeff]")
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
        return getattr(self._stream, name)


def _console(stream: IO[str], stderr: bool) -> "Console":
    from rich.console import Console

    tty = stream.isatty()
    if tty:
        return Console(file=GuardedStream(stream), highlight=False, soft_wrap=True,
                       stderr=stderr)
    # logs (CI) are wide and never a terminal: no colour codes, no truncated columns
    return Console(file=GuardedStream(stream), highlight=False, soft_wrap=True,
                   force_terminal=False, width=160, stderr=stderr)


_out: "Console | None" = None
_err: "Console | None" = None


def out_console() -> "Console":
    global _out
    if _out is None or _out.file._stream is not sys.stdout:  # type: ignore[attr-defined]
        _out = _console(sys.stdout, stderr=False)
    return _out


def err_console() -> "Console":
    global _err
    if _err is None or _err.file._stream is not sys.stderr:  # type: ignore[attr-defined]
        _err = _console(sys.stderr, stderr=True)
    return _err


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
    if stream.isatty():
        con = out_console() if stream is sys.stdout else err_console()
        con.print(text(*parts), soft_wrap=True)
    else:     # tabs expanded as rich does (tab size 8), before the line is defused
        stream.write(guard_line(plain(*parts).expandtabs(8)) + "\n")


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
    out_console().print(renderable)


def rel(path: str | os.PathLike | None) -> str:
    """A path the user can open: relative to the current directory when below it."""
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
        return str(absolute)


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


class RichProgress(Progress):
    """Progress bars on stderr; silent when stderr is no terminal or with -q."""

    def __init__(self, quiet: bool = False) -> None:
        self.enabled = not quiet and sys.stderr.isatty()
        self._prog = None
        self._task = None

    def begin(self, what: str, total: int | None = None) -> None:
        if not self.enabled:
            return
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress as _P, SpinnerColumn,
                                   TextColumn, TimeElapsedColumn)

        self.end()
        cols = [SpinnerColumn(), TextColumn("{task.description}")]
        if total:
            cols += [BarColumn(), MofNCompleteColumn()]
        cols.append(TimeElapsedColumn())
        self._prog = _P(*cols, console=err_console(), transient=True)
        self._prog.start()
        self._task = self._prog.add_task(clean(what), total=total)

    def advance(self, n: int = 1) -> None:
        if self._prog is not None:
            self._prog.advance(self._task, n)

    def end(self) -> None:
        if self._prog is not None:
            self._prog.stop()
            self._prog = None
