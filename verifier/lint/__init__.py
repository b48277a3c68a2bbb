"""`verifier lint`: check lessons against the pinned sources even where no claim
exists yet. Rules live in `verifier/lint/rules/` (one module per rule, codes
VL101..VL110); suppressions in `lint.toml` (see `verifier/lint/config.py`).

    run_lint(project, lessons) -> list[Finding]   # sorted by (course, path, line, rule)
"""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from typing import TYPE_CHECKING

from verifier.lessons import parse_lesson
from verifier.lint.base import UNAVAILABLE, LintContext
from verifier.lint.config import LintConfig, load_lint_config
from verifier.lint.rules import META, RULES
from verifier.results import Finding, Severity

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project

ALL_RULES = sorted([*RULES, *META], key=lambda r: r.code)


def rule_table() -> list[dict]:
    return [{"code": r.code, "name": r.name, "doc": r.doc()} for r in ALL_RULES]


def _matches(f: Finding, name: str) -> bool:
    return name in (f.target, f.data.get("name"), f.data.get("reference"), f.rule, f.code)


def run_lint(project: "Project", lessons: "list[LessonDoc]",
             config: LintConfig | None = None) -> list[Finding]:
    ctx = LintContext(project, config if config is not None else load_lint_config(project.root))
    by_code = {r.code: r for r in ALL_RULES}
    out: list[Finding] = []
    cfg_used = [False] * len(ctx.config.suppress)
    for doc in lessons:
        lesson = parse_lesson(doc.text)
        raw: list[Finding] = []
        for rule in RULES:
            raw.extend(rule.check(ctx, doc, lesson))
        # suppressions: inline (block-scoped) and lint.toml (lesson-scoped)
        inline_used = [False] * len(lesson.suppressions)
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
                    cfg_used[i] = hit = True
            if not hit:
                kept.append(f)
        out.extend(f for f in kept if f.rule != UNAVAILABLE)
        out.extend(_fold_unavailable(doc, [f for f in kept if f.rule == UNAVAILABLE],
                                     by_code["VL109"]))
        meta = by_code["VL108"]
        for i, s in enumerate(lesson.suppressions):
            if not inline_used[i]:
                out.append(meta.finding(doc, s.line, "inline suppression `verifier: ignore "
                                        f"{' '.join(s.names)}` silences nothing",
                                        severity=Severity.WARNING, target=" ".join(s.names)))
    unused_cfg = [i for i, used in enumerate(cfg_used) if not used]
    if unused_cfg and ctx.config.path is not None:
        meta = by_code["VL108"]
        for i in unused_cfg:
            s = ctx.config.suppress[i]
            # only when a lesson it names was linted (else nothing could have matched)
            if not any(fnmatch.fnmatchcase(d.name, s.lesson) for d in lessons):
                continue
            out.append(Finding(rule=meta.name, code=meta.code, severity=Severity.WARNING,
                               path=str(ctx.config.path.name), line=ctx.config.line_of(i) or 1,
                               message=f"lint.toml suppression of {', '.join(s.names)} for "
                                       f"{s.lesson} silences nothing", target=", ".join(s.names),
                               data={"lesson": s.lesson, "rule": s.rule}))
    return sorted(out, key=lambda f: (f.course or "", f.path, f.line, f.code, f.message))


def _fold_unavailable(doc: "LessonDoc", items: list[Finding], rule) -> list[Finding]:
    """One source-unavailable finding per lesson and upstream."""
    groups: dict[str | None, list[Finding]] = defaultdict(list)
    for f in items:
        groups[f.upstream].append(f)
    out = []
    for up, fs in sorted(groups.items(), key=lambda kv: kv[0] or ""):
        by_origin: dict[str, list[Finding]] = defaultdict(list)
        for f in fs:
            by_origin[f.data.get("origin", "?")].append(f)
        parts = []
        details = {}
        for origin, group in sorted(by_origin.items()):
            targets = sorted(dict.fromkeys(f.target or "" for f in group))
            parts.append(f"{origin}: {len(group)} unchecked ({len(targets)} distinct: "
                         + ", ".join(targets[:6]) + (", …" if len(targets) > 6 else "") + ")")
            details[origin] = [{"line": f.line, "target": f.target, "why": f.message}
                               for f in sorted(group, key=lambda x: x.line)]
        what = "course copy" if up == doc.course else f"{up} at its pin"
        msg = (f"could not check everything against {what}: sources unavailable; "
               + "; ".join(parts))
        out.append(rule.finding(doc, min(f.line for f in fs), msg, severity=Severity.WARNING,
                                upstream=up, target=up, unchecked=details,
                                count=len(fs)))
    return out


__all__ = ["run_lint", "rule_table", "ALL_RULES"]
