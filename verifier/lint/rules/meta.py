from __future__ import annotations

from verifier.lint.base import Rule


class SuppressionUnused(Rule):
    """A suppression (lint.toml `[[suppress]]` entry or inline
    `<!-- verifier: ignore NAME -->`) that silences no finding is reported, so
    suppressions do not outlive the text or the upstream API they were written for."""

    name = "suppression-unused"
    code = "VL108"
    severity = "warning"
    meta = True

    def check(self, ctx, doc, lesson):  # derived in run_lint
        return []


class SourceUnavailable(Rule):
    """What a rule could not check because the upstream files it needs are not
    available at pinned identity (or the course copy is partial) is never a pass: each
    item is an info finding on its own line saying what and why, and a warning once
    per lesson and upstream counts them with their lines (`--strict-unchecked` makes
    any unchecked item fail the run)."""

    name = "source-unavailable"
    code = "VL109"
    severity = "warning"
    meta = True

    def check(self, ctx, doc, lesson):  # derived in run_lint
        return []
