"""Golden files for reporter output: compare, or rewrite with VERIFIER_UPDATE_SNAPSHOTS=1."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "reporters" / "golden"


def updating() -> bool:
    return os.environ.get("VERIFIER_UPDATE_SNAPSHOTS") == "1"


def assert_snapshot(path: Path, text: str) -> None:
    """`text` must equal the checked-in file (byte for byte)."""
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="")
        return
    assert path.exists(), (f"no golden file {path}; create it with "
                           "VERIFIER_UPDATE_SNAPSHOTS=1 and review it")
    want = path.read_text(encoding="utf-8")
    if want != text:
        import difflib

        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                            str(path), "rendered", n=2))
        raise AssertionError(f"{path.name} differs from the rendered output (if the change is "
                             f"intended: VERIFIER_UPDATE_SNAPSHOTS=1, then review the diff):\n"
                             + diff[:6000])


def golden(name: str) -> Path:
    return GOLDEN / name
