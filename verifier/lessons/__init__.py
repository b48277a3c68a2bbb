"""Lesson model (see `model.py`): Markdown lessons parsed with exact line numbers."""

from verifier.lessons.model import (CodeBlock, CodeSpan, Heading, Lesson, Link, MathSpan,
                                    Sentence, Suppression, parse_lesson)

__all__ = ["CodeBlock", "CodeSpan", "Heading", "Lesson", "Link", "MathSpan", "Sentence",
           "Suppression", "parse_lesson"]
