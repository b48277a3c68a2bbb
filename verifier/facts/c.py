"""C facts (MuJoCo headers and engine sources) with tree-sitter-c.

Export macros (`MJAPI`, ...) are blanked to the same length before parsing
(`treesitter.blank_macros`), so `include/mujoco/mujoco.h` parses cleanly and
line numbers are unchanged. Headers that look like C++ go to `facts/cpp.py`
(see `facts.extract.facts_for`)."""

from __future__ import annotations

from verifier.facts import cfamily
from verifier.facts.model import FileFacts


def extract(path: str, data: bytes, blob: str | None = None) -> FileFacts:
    syms, _tree, errors = cfamily.extract("c", path, data, blob)
    return FileFacts(path=path, blob=blob, lang="c", syms=tuple(syms), parse_errors=errors)
