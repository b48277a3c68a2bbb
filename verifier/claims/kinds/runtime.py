r"""A claim checked only by running code in the pinned environment.

## What it checks
Nothing statically. A claim of kind `runtime` carries only a `[claim.runtime]` table: a
Python snippet run in the upstream's pinned environment that assigns `result`, and the
`expected` value. Its static verdict is always `unavailable` with the message
"runtime-only claim"; `verifier check --runtime sample|all` runs the snippet and records the
outcome in the result's `runtime` field (see the runtime stage).

Any other kind may carry a `[claim.runtime]` table too; then the runtime check confirms
(or refutes) the static verdict.

## Why it matters
Some facts are only observable by running the pinned release (pydrake's Python surface,
values computed at import).

## Example
```toml
[[claim]]
id = "physics-runtime"
fragment = "`mjSTATE_PHYSICS`"
kind = "runtime"
upstream = "mujoco"
[claim.runtime]
code = "import mujoco\nresult = int(mujoco.mjtState.mjSTATE_PHYSICS)"
expected = 30
```

## Options
None. `[claim.runtime]` keys: `code` (required; assigns `result`), `expected` or
`expected_json` (exactly one; JSON text for expectations holding null, e.g.
`expected_json = '{"id": -1, "name": null}'`), `compare` (`"exact"`, the default: tables
must have the same keys; `"subset"`: only the keys `expected` names are compared, at every
level), `tolerance` (relative and absolute, for numbers; default 1e-9), `timeout` (seconds,
default 60), `needs_cuda` (skip without a GPU), `setup` (run before `code` in the same
namespace).

## Evidence
None from the source: the runtime result (status, value, expected) is the evidence, in the
claim's `runtime` field; its duration and output (sanitised: token-like strings redacted,
machine paths as placeholders) go to the run's `run.json`.

## Verdicts
`unavailable` statically; `error` when `[claim.runtime]` is missing.
With `--runtime sample|all`: confirmed → `verified`, refuted → `diverged`, error →
`error`, skipped → `unavailable`; a claim whose fragment left the lesson stays `stale`.
On any other kind, a refuted runtime check turns a static `verified` or `unavailable`
into `diverged` ([runtime.md](../runtime.md#outcomes)).
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
