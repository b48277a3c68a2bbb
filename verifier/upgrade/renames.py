"""Cited files that are gone at the new version: renamed or deleted.

With one repository holding both commits, git's own rename detection decides
(`git diff -M --name-status`). Otherwise (e.g. wheel-served files) a file is
looked for among the new version's files: the same blob at another path, else
the most similar file of the same extension (difflib ratio over lines, at least
50% like git's default)."""

from __future__ import annotations

import os
import subprocess
from difflib import SequenceMatcher
from pathlib import PurePosixPath

from verifier.errors import AcquisitionError
from verifier.gitblob import blob_sha
from verifier.upgrade.fingerprint import split_lines

THRESHOLD = 0.5
MAX_CANDIDATES = 400


def git_renames(git_dir: str, old: str, new: str, timeout: float = 120) -> dict[str, tuple[str | None, int | None]]:
    """old path -> (new path, similarity %) for renames, (None, None) for deletions."""
    cmd = ["git", "--git-dir", git_dir, "-c", f"safe.directory={git_dir}", "diff",
           "--name-status", "-z", "-M", "--diff-filter=DR", "--no-color", old, new]
    try:
        proc = subprocess.run(cmd, capture_output=True, timeout=timeout,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    except subprocess.TimeoutExpired:
        raise AcquisitionError(f"git diff --name-status {old[:7]} {new[:7]} timed out") from None
    if proc.returncode != 0:
        raise AcquisitionError(f"git diff {old[:7]} {new[:7]} failed: "
                               f"{proc.stderr.decode(errors='replace').strip()[-200:]}")
    parts = proc.stdout.decode("utf-8", errors="replace").split("\0")
    out: dict[str, tuple[str | None, int | None]] = {}
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i]
        if status.startswith("R"):
            out[parts[i + 1]] = (parts[i + 2], int(status[1:] or 100))
            i += 3
        else:
            out[parts[i + 1]] = (None, None)
            i += 2
    return out


def _ratio(a: list[str], b: list[str]) -> float:
    sm = SequenceMatcher(None, a, b, autojunk=False)
    if sm.real_quick_ratio() < THRESHOLD or sm.quick_ratio() < THRESHOLD:
        return 0.0
    return sm.ratio()


def similar_file(old_path: str, old_data: bytes, candidates: dict[str, str],
                 read) -> tuple[str, int, str] | None:
    """(new path, similarity %, method) of the best rename candidate, or None.

    candidates: new path -> blob (files that are new at the new version);
    read(path) -> bytes | None."""
    blob = blob_sha(old_data)
    same = sorted(p for p, b in candidates.items() if b == blob)
    if same:
        base = PurePosixPath(old_path).name
        best = next((p for p in same if PurePosixPath(p).name == base), same[0])
        return best, 100, "same-blob"
    suffix = PurePosixPath(old_path).suffix
    base = PurePosixPath(old_path).name
    pool = sorted(p for p in candidates if PurePosixPath(p).suffix == suffix)
    pool.sort(key=lambda p: (PurePosixPath(p).name != base, p))
    old_lines = split_lines(old_data.decode("utf-8", errors="replace"))
    best: tuple[float, str] | None = None
    for p in pool[:MAX_CANDIDATES]:
        data = read(p)
        if data is None:
            continue
        r = _ratio(old_lines, split_lines(data.decode("utf-8", errors="replace")))
        if r >= THRESHOLD and (best is None or r > best[0]):
            best = (r, p)
    if best is None:
        return None
    return best[1], int(best[0] * 100), "similarity"
