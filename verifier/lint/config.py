"""Lint configuration: `lint.toml` next to pins.toml (optional).

    schema = 1

    [course.mujoco-atlas]
    partial = true        # this course directory holds only some of the repo's files:
                          # a relative link to a missing file is reported as
                          # unverifiable (source-unavailable), not as dead, unless a
                          # file with a near-identical name exists (then it is dead)

    [[suppress]]
    lesson = "drake-atlas/docs/inertial-force-sensing.md"   # <course>/<path>, glob allowed
    rule = "identifier"                                      # optional: any rule if absent
    names = ["ForceTorqueSensor"]                            # finding targets to silence
    reason = "named as an API that does not exist"           # required: why

Inline, in a lesson: `<!-- verifier: ignore NAME [NAME...] -->` silences findings
whose target is NAME in the same block (paragraph, table row group, list item),
or, written on a line of its own, in the block right after it.
A suppression that silences nothing is itself reported (`suppression-unused`).

Suppressions of the suspect stage of `check` (`rule = "suspect"`, inline
`ignore suspect` / `ignore suspect:NAME`) and its switch (`[suspect] enabled = false`)
live here too; the suspect stage applies and reports them (verifier/suspect/config.py).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

from pydantic import Field

from verifier.basemodel import Record
from verifier.tomlerrors import read_toml, validate



class CourseLint(Record):
    partial: bool = Field(default=False, description="the course directory is a partial copy")


class Suppress(Record):
    lesson: str = Field(description="<course>/<path> of the lesson; glob patterns allowed")
    rule: str | None = None
    names: list[str] = Field(min_length=1)
    reason: str = Field(min_length=3)

    def applies(self, lesson_name: str, rule: str) -> bool:
        return fnmatch.fnmatchcase(lesson_name, self.lesson) and self.rule in (None, rule)


class SuspectSettings(Record):
    """`[suspect]`: the suspect stage of `check` (verifier/suspect)."""

    enabled: bool = Field(default=True, description="report suspects in uncovered sentences")


class LintConfig(Record):
    schema_: int = Field(default=1, alias="schema")
    course: dict[str, CourseLint] = Field(default_factory=dict)
    suspect: SuspectSettings = Field(default_factory=SuspectSettings)
    suppress: list[Suppress] = Field(default_factory=list)
    path: Path | None = Field(default=None, exclude=True)
    text: str = Field(default="", exclude=True, repr=False)

    def line_of(self, i: int) -> int | None:
        """Line of the i-th [[suppress]] table in lint.toml."""
        n = -1
        for no, line in enumerate(self.text.splitlines(), 1):
            if line.strip().startswith("[[suppress]]"):
                n += 1
                if n == i:
                    return no
        return None


def load_lint_config(root: Path) -> LintConfig:
    path = root / "lint.toml"
    if not path.exists():
        return LintConfig()
    data, text = read_toml(path)
    cfg = validate(LintConfig, data, path, text)
    return cfg.model_copy(update={"path": path, "text": text})
