"""Writing a record in a format: into a directory (`verification<SUFFIX>`, or the files
a reporter names, e.g. one Markdown record per lesson) or into one file, atomically and
with the user's umask. Library code: it writes files, never stdout."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import UsageError
from verifier.fileio import atomic_write
from verifier.report import RunDetails, RunReport
from verifier.reporters import render, render_files

if TYPE_CHECKING:
    from verifier.rendermemo import Renders

DETAILS_FILE = "run.json"


def is_directory(out: str | os.PathLike) -> bool:
    """`--out` names a directory when it is one, or when its text ends with '/'."""
    raw = os.fspath(out)
    p = Path(raw)
    if p.exists() and not p.is_dir() and raw.endswith(("/", os.sep)):
        raise UsageError(f"--out {raw}: exists and is not a directory")
    return p.is_dir() or raw.endswith(("/", os.sep))


def _write(path: Path, text: str) -> Path:
    """Write `text` unless the file already holds exactly these bytes (a warm run leaves
    an unchanged record alone: no rewrite, no fsync, the modification time kept)."""
    data = text.encode("utf-8")
    try:
        if (not path.is_symlink() and path.stat().st_size == len(data)
                and path.read_bytes() == data):
            return path
    except OSError:
        pass
    atomic_write(path, data)
    return path


def write_into(directory: Path, report: RunReport, fmt: str,
               renders: "Renders | None" = None) -> list[Path]:
    """`renders`: the report's memoised renderings (`verifier/rendermemo.py`), if any."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--out {directory}: exists and is not a directory")
    files = renders.files(fmt) if renders is not None else render_files(report, fmt)
    return [_write(directory / rel, text) for rel, text in sorted(files.items())]


def write_file(path: Path, report: RunReport, fmt: str, renders: "Renders | None" = None) -> Path:
    return _write(Path(path), renders.text(fmt) if renders is not None else render(report, fmt))


def write_details(directory: Path, details: RunDetails) -> Path:
    """run.json: timings, snippet output and provider messages of this run."""
    text = json.dumps(details.model_dump(mode="json"), indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"
    return _write(Path(directory) / DETAILS_FILE, text)
