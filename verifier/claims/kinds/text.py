"""A regular expression inside a function or a whole file.

## What it checks
Whether a regular expression (Python `re` syntax, searched, not anchored) occurs in the
pinned file, or only inside the definition of `symbol` when one is given (all same-named
definitions unless `options.overload` picks one). `expected = true` means it must occur,
`false` that it must not. Comments count: this is the escape hatch for facts no structured
kind captures.

## Why it matters
Some lesson sentences state facts only text can check, e.g. that the source still carries a
`TODO` for a code path.

## Example
```toml
[[claim]]
id = "cpu-readback-todo"
fragment = "TODO: handle use_mujoco_cpu"
kind = "text"
upstream = "newton"
path = "newton/_src/solvers/mujoco/solver_mujoco.py"
expected = true
[claim.options]
pattern = 'TODO: handle use_mujoco_cpu'
```

## Options
| option | meaning |
|---|---|
| `pattern` | the regular expression (required) |
| `flags` | any of `i` (ignore case), `m` (multiline), `s` (dot matches newline), `x` (verbose) |
| `overload` | 0-based index among same-named definitions |

## Evidence
The lines of the first match, or the searched scope when there is none, at the pinned blob.

## Verdicts
`verified` / `diverged` (`actual` = whether it matched); `unavailable`; `error` for a bad
pattern, flags or locator.

## Time limit
The pattern is compiled and searched with the `regex` package (its `re`-compatible mode)
under the time budget every user pattern shares (`verifier/claims/kinds/_userregex.py`,
`TIME_LIMIT` seconds per claim); a pattern that backtracks past it (a catastrophic pattern
such as `(a|aa)+$` on a long run of a's) makes the claim `error`, naming the pattern,
instead of hanging the run.
"""

from __future__ import annotations

from verifier.textlines import source_lines
from verifier.claims.kinds import _flowsupport as fs
from verifier.claims.kinds.base import ClaimError, ClaimKind, Outcome
from verifier.claims.kinds._userregex import TIME_LIMIT, Budget, UserRegex
from verifier.facts import flow
from verifier.results import Verdict

OPTIONS = {"pattern": "regular expression", "flags": "i, m, s, x", "overload": "0-based definition index"}
_FLAGS = "imsx"


class TextKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind
    name = "text"
    code = "VC110"

    def check(self, claim, ctx) -> Outcome:
        fs.check_options(claim, OPTIONS, required=("pattern",))
        if not isinstance(claim.expected, bool):
            raise ClaimError(f"expected must be true (pattern must occur) or false (must not), "
                             f"got {claim.expected!r}")
        pattern, flags = claim.options["pattern"], claim.options.get("flags", "")
        if not isinstance(flags, str) or any(f not in _FLAGS for f in flags):
            raise ClaimError(f"options.flags must be letters from 'imsx', got {flags!r}")
        rx = UserRegex(pattern, "pattern", flags=flags, budget=Budget(TIME_LIMIT))

        path = fs.need(claim, "path")
        text, sf = ctx.source(path)
        data = text.encode("utf-8")
        if claim.symbol:
            src = flow.parse_source(path, data, sf.blob)
            if claim.options.get("overload") is not None:
                scopes = [fs.function(claim, src)]
            else:
                scopes = flow.find_functions(src, claim.symbol)
                if not scopes:
                    fs.function(claim, src)  # raises the 'no definition' error
            ranges = [(f.node.start_byte, f.node.end_byte, f.start, f.end) for f in scopes]
        else:
            ranges = [(0, len(data), 1, max(1, len(source_lines(text))))]
        hit = None
        for start_b, end_b, _, _ in ranges:
            chunk = data[start_b:end_b].decode("utf-8", errors="replace")
            m = rx.search(chunk)        # ClaimError past the claim's time budget
            if m:
                before = data[:start_b].count(b"\n") + chunk[:m.start()].count("\n") + 1
                hit = (before, before + m.group(0).count("\n"))
                break
        found = hit is not None
        lines = hit if hit else (ranges[0][2], ranges[-1][3])
        ok = found == claim.expected
        scope = f"`{claim.symbol}`" if claim.symbol else path
        msg = None if ok else (f"pattern {'not found' if not found else 'found'} in {scope}")
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=found,
                       evidence=ctx.evidence(sf, lines[0], lines[1]), message=msg)
