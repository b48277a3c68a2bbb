"""What every lint rule shares: the rule contract, its registry and the per-run context.

A rule is a `Rule` subclass in its own module `verifier/lint/rules/<name>.py` with a
stable `name`, a unique `code` (VL1xx) and a docstring (one paragraph: what it
checks, shown by `verifier rules` and in the rules table of `docs/lint.md`).
Subclassing registers it in `RULE_REGISTRY` (a second rule with the same name or code
is refused); `verifier/lint/rules/__init__.py` imports every rule module explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from verifier.lessons import Lesson
from verifier.registry import Registry
from verifier.results import Finding, Severity

if TYPE_CHECKING:
    from verifier.courses import CourseCheckout
    from verifier.facts.symbols import SymbolIndex
    from verifier.lint.config import LintConfig
    from verifier.pins import Upstream
    from verifier.project import LessonDoc, Project
    from verifier.sources.models import SourceFile

UNAVAILABLE = "source-unavailable"


@dataclass
class LintContext:
    project: "Project"
    config: "LintConfig"
    _indexes: dict[str, "SymbolIndex"] = field(default_factory=dict)
    _texts: dict[tuple[str, str], tuple["SourceFile", str | None]] = field(default_factory=dict)
    recorder: Any = None          # lint/memo.py: what the current lesson's rules asked for

    def index(self, upstream: str) -> "SymbolIndex":
        rec = self.recorder
        if upstream not in self._indexes:
            from verifier.facts.symbols import build_index

            if rec is not None:
                rec.paused += 1       # building reads every file: its identity is recorded
            try:
                self._indexes[upstream] = build_index(self.project, upstream)
            finally:
                if rec is not None:
                    rec.paused -= 1
        if rec is not None and not rec.paused:
            rec.indexes.add(upstream)
        return self._indexes[upstream]

    def source(self, upstream: str, path: str) -> tuple["SourceFile", str | None]:
        key = (upstream, path)
        if key not in self._texts:
            self._texts[key] = self.project.sources.text(upstream, path)
        return self._texts[key]

    def upstream(self, name: str) -> "Upstream":
        return self.project.pins.get(name)

    def course_checkout(self, course: str) -> "CourseCheckout | None":
        """Where the course's files come from in this run (`full_tree`, `has(path)`)."""
        return self.project.known_checkout(course)

    def course_partial(self, course: str) -> bool:
        """The course directory may lack files of the repository: never when the course
        was acquired at its pinned commit (full tree known); else when pins.toml or
        lint.toml declares the local copy partial."""
        co = self.course_checkout(course)
        if co is not None and co.full_tree:
            return False
        c = self.config.course.get(course)
        return bool((co is not None and co.partial) or (c and c.partial))


RULE_REGISTRY: Registry[type["Rule"]] = Registry("lint rule")


class Rule:
    """Subclasses set `name`, `code`, a docstring (one paragraph: `verifier rules`),
    and implement `check`. `severity` documents what the rule reports (a finding may
    carry another); `meta` rules do not read lessons: `run_lint` derives their
    findings from the other rules' (suppression-unused, source-unavailable)."""

    name: ClassVar[str]
    code: ClassVar[str]
    severity: ClassVar[str] = "error"
    meta: ClassVar[bool] = False

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if getattr(cls, "name", None):
            RULE_REGISTRY.register(cls.name, cls, getattr(cls, "code", None))

    def check(self, ctx: LintContext, doc: "LessonDoc", lesson: Lesson) -> list[Finding]:
        raise NotImplementedError  # pragma: no cover

    @classmethod
    def doc(cls) -> str:
        return " ".join((cls.__doc__ or "").split())

    def finding(self, doc: "LessonDoc", line: int, message: str, *,
                severity: Severity = Severity.ERROR, upstream: str | None = None,
                target: str | None = None, fingerprint: str | None = None,
                end_line: int | None = None, **data: Any) -> Finding:
        return Finding(rule=self.name, code=self.code, severity=severity, path=doc.path,
                       course=doc.course, line=line, message=message, upstream=upstream,
                       target=target, fingerprint=fingerprint, end_line=end_line,
                       data=data)

    def unavailable(self, doc: "LessonDoc", line: int, upstream: str, item: str,
                    why: str, **data: Any) -> Finding:
        """Something this rule could not check because its source is unavailable at
        pinned identity. run_lint folds these into one `source-unavailable` finding per
        lesson and upstream."""
        return Finding(rule=UNAVAILABLE, code="", severity=Severity.WARNING, path=doc.path,
                       course=doc.course, line=line, message=why, upstream=upstream,
                       target=item, data={"origin": self.name, **data})
