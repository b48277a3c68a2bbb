"""Writing a record in a format: into a directory (`verification<SUFFIX>`, or the files
a reporter names, e.g. one Markdown record per lesson) or into one file, atomically and
with the user's umask, through the safe writer (`verifier.safewrite`): `out_area` is
refused inside or around the lessons, the claim files, the pins or the verifier's
sources, checked (`preflight`) before the run, and never written through a symbolic
link. Library code: it writes files, never stdout."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import UsageError
from verifier.report import RunDetails, RunReport
from verifier.reporters import render, render_files
from verifier.safewrite import Area, Protected, guard

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


def out_area(out: str | os.PathLike, protected: "list[Protected] | tuple[()]" = (),
             *, directory: bool = True, files: tuple[str, ...] = (),
             dirs: tuple[str, ...] = ()) -> Area:
    """The area records go to: `out` itself (a directory) or the directory of the file
    `out`; guarded against `protected` and checked now (`preflight`: writable, not full,
    none of `files` - or the file `out` - a directory, none of `dirs` a link)."""
    path = Path(out)
    if directory:
        area = Area.out(path, protected)
        area.preflight(files, dirs)
        return area
    guard(path, protected, "--out", around=False)      # one file: it alone must be free
    area = Area(path.parent if str(path.parent) else Path("."), "--out")
    area.preflight((path.name,))
    return area


def record_names(formats: "list[str] | tuple[str, ...]") -> tuple[str, ...]:
    """The files a directory of records holds for these formats (and run.json)."""
    from verifier.reporters import SUFFIX

    return (*(f"verification{SUFFIX[f]}" for f in formats if f not in ("markdown", "github")),
            DETAILS_FILE)


def _area(area: Area | Path) -> Area:
    return area if isinstance(area, Area) else Area.out(Path(area))


def _write(area: Area, path: Path, text: str) -> Path:
    """Write `text` unless the file already holds exactly these bytes (a warm run leaves
    an unchanged record alone: no rewrite, no fsync, the modification time kept)."""
    data = text.encode("utf-8")
    try:
        if (not path.is_symlink() and path.stat().st_size == len(data)
                and path.read_bytes() == data):
            return path
    except OSError:
        pass
    return area.write(path, data)


def write_into(directory: Area | Path, report: RunReport, fmt: str,
               renders: "Renders | None" = None) -> list[Path]:
    """`renders`: the report's memoised renderings (`verifier/rendermemo.py`), if any."""
    area = _area(directory)
    if area.root.exists() and not area.root.is_dir():
        raise UsageError(f"--out {area.root}: exists and is not a directory")
    files = renders.files(fmt) if renders is not None else render_files(report, fmt)
    return [_write(area, area.root / rel, text) for rel, text in sorted(files.items())]


def write_file(path: Path, report: RunReport, fmt: str, renders: "Renders | None" = None,
               area: Area | None = None) -> Path:
    path = Path(path)
    area = area or Area.out(path.parent if str(path.parent) else Path("."))
    return _write(area, path, renders.text(fmt) if renders is not None else render(report, fmt))


def write_details(directory: Area | Path, details: RunDetails) -> Path:
    """run.json: timings, snippet output and provider messages of this run."""
    area = _area(directory)
    text = json.dumps(details.model_dump(mode="json"), indent=2, sort_keys=True,
                      ensure_ascii=False) + "\n"
    return _write(area, area.root / DETAILS_FILE, text)
