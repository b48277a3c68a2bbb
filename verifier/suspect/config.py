"""The suspect stage's switch and suppressions (lint.toml; see `verifier/suspect`).

    [suspect]
    enabled = false          # default true

`[[suppress]]` entries of lint.toml with `rule = "suspect"` silence a lesson's suspects
whose target (the drafted claim's symbol) is one of `names` (`"suspect"` silences all
of them); inline, `<!-- verifier: ignore suspect -->` silences the suspects of its block
(the block it is written in, or the next one when it stands on its own line), and
`ignore suspect:NAME` those whose target is NAME (or ends with `.NAME`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verifier.results import Finding, Severity

if TYPE_CHECKING:
    from pathlib import Path

    from verifier.lint.config import LintConfig
    from verifier.project import LessonDoc, Project

RULE = "suspect"


@dataclass
class SuspectConfig:
    enabled: bool = True
    lint: "LintConfig | None" = None
    entries: list[int] = field(default_factory=list)   # indices of suspect [[suppress]]

    def unused(self, used: set[int], lessons: "list[LessonDoc]") -> list[Finding]:
        """lint.toml suspect suppressions that silenced nothing on the lessons judged."""
        import fnmatch

        if self.lint is None or self.lint.path is None:
            return []
        out = []
        for i in self.entries:
            s = self.lint.suppress[i]
            if i in used or not any(fnmatch.fnmatchcase(d.name, s.lesson) for d in lessons):
                continue
            out.append(Finding(rule="suppression-unused", code="VL108", severity=Severity.WARNING,
                               path=self.lint.path.name, line=self.lint.line_of(i) or 1,
                               message=f"lint.toml suspect suppression of {', '.join(s.names)} "
                                       f"for {s.lesson} silences nothing",
                               target=", ".join(s.names),
                               data={"lesson": s.lesson, "rule": s.rule}))
        return out


def load_config(root: "Path") -> SuspectConfig:
    from verifier.lint.config import load_lint_config

    lint = load_lint_config(root)
    return SuspectConfig(enabled=lint.suspect.enabled, lint=lint,
                         entries=[i for i, s in enumerate(lint.suppress) if s.rule == RULE])


def _names_match(target: str | None, names) -> bool:
    t = target or ""
    return any(n == RULE or n == t or t.endswith("." + n) for n in names)


def suppress(project: "Project", lesson: "LessonDoc", found: list[Finding],
             cfg: SuspectConfig) -> tuple[list[Finding], set[int]]:
    """(the suspects no suppression silences plus unused inline suspect suppressions,
    the lint.toml entries used)."""
    if not found and not _inline(project, lesson):
        return [], set()
    model = project.lesson(lesson)
    inline = [(s, [n.split(":", 1)[1] if ":" in n else RULE for n in s.names
                   if n == RULE or n.startswith(RULE + ":")])
              for s in model.suppressions]
    inline = [(s, names) for s, names in inline if names]
    used_inline = [False] * len(inline)
    used_cfg: set[int] = set()
    kept = []
    for f in found:
        hit = False
        for i, (s, names) in enumerate(inline):
            first, last = model.block_lines[s.block]
            if first <= f.line <= last and _names_match(f.target, names):
                used_inline[i] = hit = True
        if cfg.lint is not None:
            for i in cfg.entries:
                s = cfg.lint.suppress[i]
                if s.applies(lesson.name, RULE) and _names_match(f.target, s.names):
                    used_cfg.add(i)
                    hit = True
        if not hit:
            kept.append(f)
    for i, (s, _) in enumerate(inline):
        if not used_inline[i]:
            kept.append(Finding(rule="suppression-unused", code="VL108",
                                severity=Severity.WARNING, path=lesson.path,
                                course=lesson.course, line=s.line,
                                message="inline suppression `verifier: ignore "
                                        f"{' '.join(s.names)}` silences no suspect",
                                target=" ".join(s.names)))
    return kept, used_cfg


def _inline(project: "Project", lesson: "LessonDoc") -> bool:
    return "verifier: ignore" in lesson.text and "suspect" in lesson.text
