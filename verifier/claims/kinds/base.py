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
Comparison helpers normalise values (`0.0` == `0.` == `0`, whitespace in text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

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


@dataclass
class CheckContext:
    project: "Project"
    upstream: "Upstream"
    used: list["SourceFile"] = field(default_factory=list)

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


# ------------------------------------------------------------------ comparison helpers
_NUM = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFlLuU]*$")


def normalize_value(v: Any) -> Any:
    """Numbers compare as numbers (0.0 == 0. == 0 == 0.0f); text with whitespace collapsed."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        s = " ".join(v.split())
        if _NUM.match(s):
            return float(s.rstrip("fFlLuU"))
        return re.sub(r"\s*([(),\[\]{}<>*&|+\-/:=])\s*", r"\1", s)
    if isinstance(v, (list, tuple)):
        return [normalize_value(x) for x in v]
    if isinstance(v, dict):
        return {k: normalize_value(x) for k, x in v.items()}
    return v


def same(a: Any, b: Any) -> bool:
    return normalize_value(a) == normalize_value(b)
