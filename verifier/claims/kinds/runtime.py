"""runtime (VC111): a claim checked only by running code in the pinned environment.

What it checks
    Nothing statically: the claim carries only `[claim.runtime]` (a snippet
    assigning `result`, and its expectation). Its static verdict is always
    `unavailable` ("runtime-only claim"); `verifier check --runtime ...` (the
    runtime stage) decides it: confirmed -> verified, refuted -> diverged,
    error -> error, skipped -> unavailable. A claim whose fragment left the
    lesson stays `stale` whatever the runtime says. Any other kind may carry a
    `[claim.runtime]` table too: a refuted runtime check turns a static
    `verified` or `unavailable` into `diverged`.
Why it matters
    Some facts are only observable by running the upstream (pydrake's Python
    surface, evaluated constants of a built module).
Example
    kind = "runtime"; [claim.runtime] code = "import mujoco; result =
    int(mujoco.mjtState.mjSTATE_PHYSICS)"; expected = 30
Evidence used
    None statically; the runtime result records value, duration and output
    (sanitised: token-like strings redacted, machine paths as placeholders).
Options
    none. `[claim.runtime]` keys: `code` (required; assigns `result`),
    `expected` or `expected_json` (exactly one; `expected_json` is JSON text,
    for expectations holding null, e.g. `expected_json = '{"id": -1, "name":
    null}'`), `compare` ("exact", the default: tables must have the same keys;
    "subset": only the keys `expected` names are compared, at every level),
    `tolerance` (relative and absolute, for numbers; default 1e-9), `timeout`
    (seconds, default 60), `needs_cuda` (skip without a GPU), `setup` (run
    before `code` in the same namespace).
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
