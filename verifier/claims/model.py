"""Claim files: `claims/<course-repo>/<lesson-stem>.toml`.

    lesson = "docs/state-and-time.md"     # the lesson's path in its course repository
    upstream = "mujoco"                    # default upstream of the claims below
    [notation]                             # optional: the lesson's notation (notation.py)
    g_W = "gravity_vector"

    [[claim]]
    id = "mjstate-physics"                 # unique in the file; global id <course>/<stem>/<id>
    fragment = "mjSTATE_PHYSICS"           # verbatim (≤ ~60 chars) locating the sentence
    kind = "enum"                          # a registered claim kind
    path = "include/mujoco/mjtype.h"       # locator: repo path ...
    symbol = "mjSTATE_PHYSICS"             # ... and symbol (kind-specific form)
    expected = ["mjSTATE_QPOS", "mjSTATE_QVEL", "mjSTATE_ACT", "mjSTATE_HISTORY"]
    says = ["mjSTATE_PHYSICS"]             # the sentence's words that carry it (says.py)
    paraphrase = "why"                     # ... or why `expected` cannot be read from them
    note = "optional free text"
    review = "draft"                       # only on drafts (`verifier draft`); a person
                                           # accepts one by deleting this line
    [claim.options]                        # kind-specific options (see each kind's doc)
    compare = "set"
    [claim.runtime]                        # optional runtime check (runtime stage)
    code = "result = int(mujoco.mjtState.mjSTATE_PHYSICS)"
    expected = 30
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from verifier.basemodel import Record
from verifier.repopath import canonical
from verifier.tomlerrors import json_value


class RuntimeCheck(Record):
    """A small Python snippet run in the upstream's pinned environment.

    The snippet assigns its observed value to `result` (JSON-serialisable);
    it is compared with `expected` (floats within `tolerance`). TOML has no
    null: `expected_json` gives the expectation as JSON text instead (`null`
    allowed). `compare = "subset"` compares only the keys `expected` names."""

    code: str
    expected: Any = None
    expected_json: str | None = Field(default=None, description="the expectation as JSON text")
    compare: Literal["exact", "subset"] = "exact"
    tolerance: float = Field(default=1e-9, ge=0)
    timeout: float = Field(default=60.0, gt=0, description="seconds for this check")
    needs_cuda: bool = False
    setup: str | None = Field(default=None, description="imports/setup run before `code`")

    @model_validator(mode="before")
    @classmethod
    def _expectation(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        has = "expected" in data
        has_json = data.get("expected_json") is not None
        if not has and not has_json:
            raise ValueError("`expected` (or `expected_json`, JSON text that may hold null) "
                             "is required")
        if has_json:
            text = data["expected_json"]
            if not isinstance(text, str):
                raise ValueError("`expected_json` must be a string of JSON text")
            try:
                value = json_value(text, allow_nan=True)
            except ValueError as exc:
                raise ValueError(f"`expected_json` is not valid JSON: {exc}") from None
            if has and data["expected"] != value:    # (a dumped model carries both, equal)
                raise ValueError("give `expected` or `expected_json`, not both")
            data = {**data, "expected": value}
        return data


class SaysSpan(Record):
    """One span of a claim's sentence with the reader that reads it
    (verifier/claims/says.py); a bare string in `says` has its reader inferred."""

    text: str = Field(min_length=1, max_length=200)
    read: Literal["number", "name", "names", "polarity", "literal"] | None = None

    @model_validator(mode="after")
    def _reads(self) -> "SaysSpan":
        from verifier.claims.says import plain, read_as

        if not plain(self.text):
            raise ValueError("`text` must hold the words of the sentence")
        if self.read is not None and read_as(self.read, self.text) is None:
            raise ValueError(f"{self.text!r} does not read as a {self.read}")
        return self


class Claim(Record):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    fragment: str = Field(min_length=3, max_length=120)
    kind: str
    upstream: str | None = None          # defaults to the file's `upstream`
    path: str | None = None
    symbol: str | None = None
    expected: Any = None
    options: dict[str, Any] = Field(default_factory=dict)
    runtime: RuntimeCheck | None = None
    note: str | None = None
    # "draft": proposed by `verifier draft`, not reviewed by a person yet (check reports
    # it apart and never counts it as reviewed; see docs/claims/README.md)
    review: Literal["draft"] | None = None
    # the literal spans of the sentence that carry the claim's assertion (verifier/claims/
    # says.py): `expected` is derived from them at every check; or why it cannot be
    says: list[str | SaysSpan] | None = Field(default=None, max_length=64)
    paraphrase: str | None = Field(default=None, min_length=3, max_length=2000)

    @field_validator("says")
    @classmethod
    def _spans(cls, v: list | None) -> list | None:
        if v is None:
            return v
        from verifier.claims.says import plain

        for entry in v:
            if isinstance(entry, str) and (not plain(entry) or len(entry) > 200):
                raise ValueError("each span must hold 1-200 characters of the sentence")
        return v

    @field_validator("fragment")
    @classmethod
    def _words(cls, v: str) -> str:
        # "   " would bind to an arbitrary line and verify: a fragment locates a sentence
        if len("".join(v.split())) < 3:
            raise ValueError("must hold at least 3 non-space characters of the lesson sentence")
        return v

    @field_validator("path")
    @classmethod
    def _safe(cls, v: str | None) -> str | None:
        # one spelling per file: `./x`, `a//b`, `%2F`, '／', NUL, '\\', '..' are refused
        # with the canonical form (verifier/repopath.py)
        return None if v is None else canonical(v)


class ClaimFile(Record):
    lesson: str
    upstream: str | None = None
    claim: list[Claim] = Field(default_factory=list)
    # lesson name = "source name", receivers = ["self."] (verifier/claims/notation.py);
    # checked by the loader, which reports its lines
    notation: dict[str, Any] | None = None
