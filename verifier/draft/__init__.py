"""`verifier draft`: propose claims for lesson sentences no claim covers.

Pipeline (data flows one way): lesson -> checkable sentences (the coverage notion,
`verifier/claims/coverage.py`) -> code spans and permalinks resolved against an
index of the fact model at the pin (`index.py`, `grounding.py`, `context.py`) ->
proposal modules, one per kind of assertion, registered in `proposers/__init__.py` ->
a unique verbatim fragment per draft (`fragment.py`) -> claim files (`write.py`).
The suspect stage (`verifier/suspect`) checks the same drafts in memory.

The names below are imported on first use, so that a module of the package (the
index's cache key, the model) can be used without loading every proposer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DRAFT", "LessonDraft", "Proposal", "draft_lesson", "draft_lessons"]


def __getattr__(name: str) -> Any:
    if name in ("draft_lesson", "draft_lessons"):
        from verifier.draft import engine

        return getattr(engine, name)
    if name in ("DRAFT", "LessonDraft", "Proposal"):
        from verifier.draft import model

        return getattr(model, name)
    if name in ("write", "measure"):
        import importlib

        return importlib.import_module(f"verifier.draft.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
