"""Old line -> new line maps between two versions of one file.

Two sources, same shape:
- `from_git_diff`: the hunks of `git diff -U0` between the two blobs (used when
  one repository holds both versions);
- `from_alignment`: a difflib sequence alignment of the whitespace-normalised
  lines (used otherwise, e.g. wheel-served files).

Only lines outside every hunk / inside equal blocks are mapped; a line that was
edited or deleted maps to nothing. `estimate` places an unmapped line next to
its nearest mapped neighbour (a suggestion, never a relocation)."""

from __future__ import annotations

import bisect
import re
import subprocess
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from verifier.errors import AcquisitionError
from verifier.upgrade.fingerprint import normalise_line

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass
class LineMap:
    method: str                       # git-diff | alignment
    n_old: int
    n_new: int
    mapping: dict[int, int] = field(default_factory=dict)
    _keys: list[int] | None = None

    def get(self, line: int) -> int | None:
        return self.mapping.get(line)

    def estimate(self, line: int) -> int:
        """Where an unmapped old line would sit in the new file (clamped)."""
        if line in self.mapping:
            return self.mapping[line]
        if self._keys is None:
            self._keys = sorted(self.mapping)
        keys = self._keys
        i = bisect.bisect_left(keys, line)
        if i > 0:
            p = keys[i - 1]
            guess = self.mapping[p] + (line - p)
        elif i < len(keys):
            q = keys[i]
            guess = self.mapping[q] - (q - line)
        else:
            guess = line
        return max(1, min(guess, max(self.n_new, 1)))


def parse_hunks(diff: str) -> list[tuple[int, int, int, int]]:
    out = []
    for line in diff.splitlines():
        m = _HUNK.match(line)
        if m:
            a, b, c, d = m.groups()
            out.append((int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d)))
    return out


def from_hunks(hunks: list[tuple[int, int, int, int]], n_old: int, n_new: int) -> LineMap:
    """Map every old line outside the hunks (`-U0` hunk headers, in order)."""
    lm = LineMap("git-diff", n_old, n_new)
    o = n = 1
    for a, b, c, d in hunks:
        o_stop = a if b > 0 else a + 1        # first old line not in the unchanged run
        while o < o_stop:
            lm.mapping[o] = n
            o += 1
            n += 1
        o = a + b if b > 0 else a + 1
        n = c + d if d > 0 else c + 1
    while o <= n_old:
        lm.mapping[o] = n
        o += 1
        n += 1
    return lm


def git_diff(git_dir: str, old_blob: str, new_blob: str, timeout: float = 60) -> str:
    cmd = ["git", "--git-dir", git_dir, "-c", f"safe.directory={git_dir}", "diff", "-U0",
           "--no-color", "--no-ext-diff", "--no-textconv", old_blob, new_blob]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              errors="replace", env={"GIT_TERMINAL_PROMPT": "0",
                                                     "PATH": _path()})
    except subprocess.TimeoutExpired:
        raise AcquisitionError(f"git diff {old_blob[:7]} {new_blob[:7]} timed out") from None
    if proc.returncode not in (0, 1):
        raise AcquisitionError(f"git diff {old_blob[:7]} {new_blob[:7]} failed: "
                               f"{proc.stderr.strip()[-200:]}")
    return proc.stdout


def _path() -> str:
    import os

    return os.environ.get("PATH", "/usr/bin:/bin")


def from_git_diff(git_dir: str, old_blob: str, new_blob: str, n_old: int, n_new: int) -> LineMap:
    return from_hunks(parse_hunks(git_diff(git_dir, old_blob, new_blob)), n_old, n_new)


def from_alignment(old_lines: list[str], new_lines: list[str]) -> LineMap:
    a = [normalise_line(x) for x in old_lines]
    b = [normalise_line(x) for x in new_lines]
    lm = LineMap("alignment", len(a), len(b))
    sm = SequenceMatcher(None, a, b, autojunk=False)
    for i, j, size in sm.get_matching_blocks():
        for k in range(size):
            lm.mapping[i + k + 1] = j + k + 1
    return lm
