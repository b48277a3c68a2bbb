"""C facts (MuJoCo headers and engine sources) with tree-sitter-c.

Export macros (`MJAPI`, ...) are blanked to the same length before parsing
(`treesitter.blank_macros`), so `include/mujoco/mujoco.h` parses cleanly and
line numbers are unchanged. Headers that look like C++ go to `facts/cpp.py`
(see `facts.source_facts`)."""

from __future__ import annotations

from verifier.facts import cfamily
from verifier.facts.model import FileFacts, cached_facts

EXTRACTOR = __name__   # in-process memo key; persistent keys use code_version


def extract(path: str, data: bytes, blob: str | None = None) -> FileFacts:
    return cached_facts(EXTRACTOR, path, blob, data,
                        lambda: cfamily.extract("c", path, data, blob)[0])
