"""runtime (VC111): a claim checked only by running code in the pinned environment.

What it checks
    Nothing statically: the claim carries only `[claim.runtime]` (a snippet
    assigning `result`, and its `expected` value). Its static verdict is always
    `unavailable` ("runtime-only claim"); `verifier check --runtime ...` (the
    runtime stage) decides it.
Why it matters
    Some facts are only observable by running the upstream (pydrake's Python
    surface, evaluated constants of a built module).
Example
    kind = "runtime"; [claim.runtime] code = "import mujoco; result =
    int(mujoco.mjtState.mjSTATE_PHYSICS)"; expected = 30
Evidence used
    None statically; the runtime result records value, duration and output.
Options
    none.
"""

from __future__ import annotations

from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.results import Verdict


class RuntimeKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "runtime"
    code = "VC111"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        if claim.runtime is None:
            raise ClaimError("kind 'runtime' needs a [claim.runtime] table with `code` and "
                             "`expected`")
        return Outcome(Verdict.UNAVAILABLE, message="runtime-only claim")
