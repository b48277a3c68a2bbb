from __future__ import annotations

from verifier.lessons.model import NESTING
from verifier.lint.base import Rule
from verifier.results import Severity


class NestedTooDeep(Rule):
    """Content nested deeper than the Markdown parser's limit (block quotes and lists
    20 levels deep, link labels 20 brackets deep) is not parsed, so no rule can check
    it; it is reported on its first line instead of passing silently. Flatten the
    nesting."""

    name = "nested-too-deep"
    code = "VL110"
    severity = "warning"

    def check(self, ctx, doc, lesson):
        out = []
        for first, last in lesson.too_deep:
            where = f"line {first}" if first == last else f"lines {first}-{last}"
            out.append(self.finding(
                doc, first, f"{where}: content nested more than {NESTING} levels deep is not "
                "parsed, so it was not checked (nested too deeply to check); flatten it",
                severity=Severity.WARNING, end_line=last))
        return out
