"""The contract every claim kind implements.

A kind is a class in its own module `verifier/claims/kinds/<name>.py`:

    class EnumKind(ClaimKind):
        name = "enum"
        code = "VC104"
        def check(self, claim, ctx) -> Outcome: ...

Subclassing registers it (`REGISTRY`, which refuses a second kind with the same
name or code); `verifier/claims/kinds/__init__.py` imports every kind module
explicitly so the registry is complete and greppable.

The module docstring is the kind's documentation page (`docs/claims/<name>.md`
is generated from it by `verifier docs --write`): a one-paragraph summary, then
the sections `DOC_HEADINGS` as `## Heading` lines, with one TOML example.

`check` reads source ONLY through `ctx.source(path)`, which returns the file's
text when it is at pinned identity (or `release`), and otherwise raises
`SourceUnavailable` - the checker turns that into verdict `unavailable`.
Kinds compare through `verifier/claims/compare.py` (values and expressions by
meaning, names through the claim's notation table, `ctx.notation`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from verifier.claims.notation import Tracker
from verifier.registry import Registry
from verifier.results import Evidence, Verdict

if TYPE_CHECKING:
    from verifier.claims.model import Claim
    from verifier.pins import Upstream
    from verifier.project import Project
    from verifier.sources.models import SourceFile


class SourceUnavailable(Exception):
    def __init__(self, sf: "SourceFile") -> None:
        self.sf = sf
        super().__init__(f"{sf.upstream}:{sf.path} is {sf.status.value} ({sf.detail})")


class ClaimError(Exception):
    """The claim itself is wrong (bad locator, missing option): verdict `error`."""


@dataclass
class Outcome:
    verdict: Verdict
    actual: Any = None
    evidence: Evidence | None = None
    message: str | None = None
    # negative claims: (name, close names) for a name the claim says is absent while
    # near-miss names exist; the checker turns it into `error` unless the lesson
    # sentence names it (then the lesson really means that exact name)
    near_miss: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass
class CheckContext:
    project: "Project"
    upstream: "Upstream"
    used: list["SourceFile"] = field(default_factory=list)
    # the claim's notation table and the entries its comparisons needed
    notation: Tracker = field(default_factory=Tracker)

    def source(self, path: str) -> tuple[str, "SourceFile"]:
        sf, text = self.project.sources.text(self.upstream.name, path)
        self.used.append(sf)
        if text is None:
            raise SourceUnavailable(sf)
        return text, sf

    def evidence(self, sf: "SourceFile", start: int | None, end: int | None) -> Evidence:
        return Evidence(path=sf.path, lines=(start, end) if start else None, blob=sf.blob,
                        permalink=self.upstream.permalink(sf.path, start, end),
                        status=sf.status.value, provider=sf.provider)


REGISTRY: Registry[type["ClaimKind"]] = Registry("claim kind")

# The sections of a kind's documentation page, in order (see the module docstring).
DOC_HEADINGS = ("What it checks", "Why it matters", "Example", "Options", "Evidence",
                "Verdicts")


class ClaimKind:
    name: ClassVar[str]
    code: ClassVar[str]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if getattr(cls, "name", None):
            REGISTRY.register(cls.name, cls, getattr(cls, "code", None))

    def check(self, claim: "Claim", ctx: CheckContext) -> Outcome:  # pragma: no cover
        raise NotImplementedError
