"""`verifier draft`: propose claims for lesson sentences no claim covers.

Pipeline (data flows one way): lesson -> checkable sentences (the coverage notion,
`verifier/claims/coverage.py`) -> code spans and permalinks resolved against an
index of the fact model at the pin (`index.py`, `context.py`) -> proposal modules,
one per kind of proposal, registered in `proposers/__init__.py` -> a unique
verbatim fragment per draft (`fragment.py`) -> claim files (`write.py`).
"""

from verifier.draft.engine import draft_lesson, draft_lessons
from verifier.draft.model import DRAFT, LessonDraft, Proposal

__all__ = ["DRAFT", "LessonDraft", "Proposal", "draft_lesson", "draft_lessons"]
