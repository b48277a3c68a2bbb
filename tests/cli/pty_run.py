"""Run a command under a pseudo-terminal, the way people run the verifier: stdin, stdout
and stderr on the terminal (or stdout to a file while stderr stays on it), a window of
a given size, the output read as the terminal receives it."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]")


@dataclass
class Tty:
    code: int
    raw: str            # what the terminal received (escape sequences included)
    stdout_file: str    # stdout when it went to a file, else ""

    @property
    def text(self) -> str:
        """The output without escape sequences, lines as printed (\\r\\n -> \\n)."""
        t = ANSI.sub("", self.raw).replace("\r\n", "\n")
        return "\n".join(seg.rsplit("\r", 1)[-1] for seg in t.split("\n"))

    @property
    def lines(self) -> list[str]:
        return [ln for ln in self.text.splitlines() if ln.strip()]


def verifier_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "verifier", *args]


def run_tty(argv: list[str], *, cols: int = 80, rows: int = 24, cwd: Path | None = None,
            env: dict[str, str] | None = None, stdout_to: Path | None = None,
            timeout: float = 600) -> Tty:
    """Run `argv` with a pseudo-terminal of `cols` x `rows` as its terminal (stdout into
    `stdout_to` instead, when given). `env` is added to the current environment, whose
    colour and size variables are removed first (a value None removes a variable)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    full = {k: v for k, v in os.environ.items()
            if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES", "TERM", "CI",
                         "GITHUB_ACTIONS", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    full["TERM"] = "xterm-256color"
    for k, v in (env or {}).items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    out_fh = open(stdout_to, "wb") if stdout_to else None
    try:
        proc = subprocess.Popen(argv, stdin=slave, stdout=out_fh or slave, stderr=slave,
                                cwd=cwd, env=full, start_new_session=True, close_fds=True)
    finally:
        os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                proc.kill()
                raise TimeoutError(f"{argv} still running after {timeout} s")
            r, _, _ = select.select([master], [], [], min(left, 1.0))
            if master in r:
                try:
                    data = os.read(master, 65536)
                except OSError as exc:     # EIO: every writer closed the terminal
                    if exc.errno != errno.EIO:
                        raise
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        os.close(master)
        if out_fh:
            out_fh.close()
    return Tty(code, b"".join(chunks).decode("utf-8", "replace"),
               stdout_to.read_text(encoding="utf-8") if stdout_to else "")
