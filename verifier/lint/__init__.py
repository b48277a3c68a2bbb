"""`verifier lint`: check lessons against the pinned sources even where no claim
exists yet. Rules live in `verifier/lint/rules/` (one module per rule, registered
in `RULE_REGISTRY`); suppressions in `lint.toml` (see `verifier/lint/config.py`).

    run_lint(project, lessons) -> list[Finding]   # sorted by (course, path, line, rule)

A rule that raises is contained like a claim kind that raises: its lesson gets an
`error` finding naming the rule and the exception, the other rules and lessons run
on, and the crash (with its traceback) is appended to `crashes` for the caller
(the CLI exits 3 at the end and writes the crash log).
"""

from __future__ import annotations

import fnmatch
import os
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from verifier.safewrite import machine_failure
from verifier.lint.base import UNAVAILABLE, LintContext, Rule
from verifier.lint.config import LintConfig, load_lint_config
from verifier.results import Crash, Finding, Severity

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def all_rules() -> list[Rule]:
    """Every rule (the meta rules included), in code order. The rule modules are
    imported on first use: a lint whose lessons all come from the memo needs none."""
    from verifier.lint.rules import META, RULES

    return sorted([*RULES, *META], key=lambda r: r.code)


def __getattr__(name: str):
    if name == "ALL_RULES":
        return all_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rule_table() -> list[dict]:
    """code, name, severity and doc of every rule, in code order."""
    return [{"code": r.code, "name": r.name, "severity": r.severity, "doc": r.doc()}
            for r in all_rules()]


def _run_rule(rule: Rule, ctx: LintContext, doc: "LessonDoc", lesson,
              crashes: list[Crash] | None) -> list[Finding]:
    try:
        return list(rule.check(ctx, doc, lesson))
    except Exception as exc:  # noqa: BLE001 - a bug in a rule must not sink the whole run
        if os.environ.get("VERIFIER_DEBUG") or machine_failure(exc):
            raise                       # a full or unusable cache: exit 2 naming the file
        crash = Crash.of(exc, stage="lint", what=f"lint rule {rule.name} ({rule.code})",
                         course=doc.course, lesson=doc.path)
        if crashes is not None:
            crashes.append(crash)
        return [rule.finding(doc, 1, f"internal error in lint rule {rule.name}: {crash.error}; "
                             "its other findings on this lesson are missing (a bug in "
                             "verifier: see the crash log)", internal_error=True)]


SUSPECT = "suspect"    # the suspect stage's rule (verifier/suspect): its suppressions are its own


def _suspect_name(name: str) -> bool:
    return name == SUSPECT or name.startswith(SUSPECT + ":")


def _matches(f: Finding, name: str) -> bool:
    return name in (f.target, f.data.get("name"), f.data.get("reference"), f.rule, f.code)


def run_lint(project: "Project", lessons: "list[LessonDoc]",
             config: LintConfig | None = None, *, crashes: list[Crash] | None = None,
             tick: Callable[[], None] | None = None) -> list[Finding]:
    """Findings of every rule on every lesson; `tick()` after each lesson. A lesson
    whose inputs are unchanged since an earlier run is served from the lint memo
    (`verifier/lint/memo.py`)."""
    from verifier.lint.memo import Memo

    ctx = LintContext(project, config if config is not None else load_lint_config(project.root))
    memo = Memo.of(ctx)
    memo.expect(len(lessons))
    out: list[Finding] = []
    cfg_used = [False] * len(ctx.config.suppress)
    for doc in lessons:
        found, used = memo.lint(doc, lambda: _lint_lesson(ctx, doc, project.lesson(doc),
                                                          crashes))
        out.extend(found)
        for i in used:
            cfg_used[i] = True
        if tick is not None:
            tick()
    # the suspect stage's entries (verifier/suspect/config.py) are judged by that stage
    unused_cfg = [i for i, used in enumerate(cfg_used)
                  if not used and ctx.config.suppress[i].rule != SUSPECT]
    if unused_cfg and ctx.config.path is not None:
        from verifier.lint.rules.meta import SuppressionUnused

        unused_rule = SuppressionUnused()
        for i in unused_cfg:
            s = ctx.config.suppress[i]
            # only when a lesson it names was linted (else nothing could have matched)
            if not any(fnmatch.fnmatchcase(d.name, s.lesson) for d in lessons):
                continue
            out.append(Finding(rule=unused_rule.name, code=unused_rule.code,
                               severity=Severity.WARNING,
                               path=str(ctx.config.path.name), line=ctx.config.line_of(i) or 1,
                               message=f"lint.toml suppression of {', '.join(s.names)} for "
                                       f"{s.lesson} silences nothing", target=", ".join(s.names),
                               data={"lesson": s.lesson, "rule": s.rule}))
    return sorted(out, key=lambda f: (f.course or "", f.path, f.line, f.code, f.message))


def _lint_lesson(ctx: LintContext, doc: "LessonDoc", lesson, crashes: list[Crash] | None
                 ) -> tuple[list[Finding], list[int], bool]:
    """One lesson: its findings after suppressions and folding, the lint.toml
    suppressions they used (indices), and whether a rule crashed."""
    from verifier.lint.resolve import near_budget
    from verifier.lint.rules import RULES
    from verifier.lint.rules.meta import SourceUnavailable, SuppressionUnused

    unused_rule, unavailable_rule = SuppressionUnused(), SourceUnavailable()
    raw: list[Finding] = []
    with near_budget():              # "did you mean" searches: a bounded number per lesson
        for rule in RULES:
            raw.extend(_run_rule(rule, ctx, doc, lesson, crashes))
    crashed = any(f.data.get("internal_error") for f in raw)
    # suppressions: inline (block-scoped) and lint.toml (lesson-scoped)
    inline_used = [False] * len(lesson.suppressions)
    cfg_used: set[int] = set()
    kept: list[Finding] = []
    for f in raw:
        if f.severity is Severity.INFO:
            kept.append(f)
            continue
        rule = f.data.get("origin", f.rule)
        hit = False
        for i, s in enumerate(lesson.suppressions):
            first, last = lesson.block_lines[s.block]
            if first <= f.line <= last and any(_matches(f, n) for n in s.names):
                inline_used[i] = hit = True
        for i, s in enumerate(ctx.config.suppress):
            if s.applies(doc.name, rule) and any(_matches(f, n) for n in s.names):
                cfg_used.add(i)
                hit = True
        if not hit:
            kept.append(f)
    out = [f for f in kept if f.rule != UNAVAILABLE]
    out.extend(_fold_unavailable(doc, [f for f in kept if f.rule == UNAVAILABLE],
                                 unavailable_rule))
    for i, s in enumerate(lesson.suppressions):
        if not inline_used[i] and not all(_suspect_name(n) for n in s.names):
            out.append(unused_rule.finding(doc, s.line, "inline suppression `verifier: ignore "
                                           f"{' '.join(s.names)}` silences nothing",
                                           severity=Severity.WARNING, target=" ".join(s.names)))
    return out, sorted(cfg_used), crashed


def _fold_unavailable(doc: "LessonDoc", items: list[Finding], rule) -> list[Finding]:
    """Every unchecked item on its own line (info: `X` could not be decided, and why),
    and one source-unavailable summary per lesson and upstream counting them."""
    groups: dict[str | None, list[Finding]] = defaultdict(list)
    for f in items:
        groups[f.upstream].append(f)
    out = []
    for f in items:
        origin = f.data.get("origin", "?")
        out.append(rule.finding(doc, f.line, f"unchecked ({origin}): `{f.target}`: {f.message}",
                                severity=Severity.INFO, upstream=f.upstream, target=f.target,
                                origin=origin, item=True,
                                **{k: v for k, v in f.data.items() if k != "origin"}))
    for up, fs in sorted(groups.items(), key=lambda kv: kv[0] or ""):
        by_origin: dict[str, list[Finding]] = defaultdict(list)
        for f in fs:
            by_origin[f.data.get("origin", "?")].append(f)
        parts = []
        details = {}
        for origin, group in sorted(by_origin.items()):
            lines = sorted({f.line for f in group})
            shown = ", ".join(map(str, lines[:8])) + (", …" if len(lines) > 8 else "")
            parts.append(f"{origin}: {len(group)} unchecked (line{'s' if len(lines) > 1 else ''} "
                         f"{shown})")
            details[origin] = [{"line": f.line, "target": f.target, "why": f.message}
                               for f in sorted(group, key=lambda x: x.line)]
        what = "course copy" if up == doc.course else f"{up} at its pin"
        msg = (f"could not check everything against {what}: sources unavailable; "
               + "; ".join(parts) + " (each item is an info finding on its line)")
        out.append(rule.finding(doc, min(f.line for f in fs), msg, severity=Severity.WARNING,
                                upstream=up, target=up, unchecked=details,
                                count=len(fs)))
    return out


__all__ = ["run_lint", "rule_table", "all_rules", "ALL_RULES"]
