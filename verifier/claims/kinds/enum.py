"""The value of an enum constant (or object-like macro), or its composition as a set of
other constants.

## What it checks
The integer value of an enum constant or object-like macro (`expected = 30`, or a string
such as `"0x1e"`), or — with `options.compare = "composition"` — that the constant is the
bitwise OR of the constants listed in `expected`.

Composition compares **bits**: `mjSTATE_FULLPHYSICS`, written
`mjSTATE_TIME | mjSTATE_PHYSICS | mjSTATE_PLUGIN`, matches both that list and the flat list
`[TIME, QPOS, QVEL, ACT, HISTORY, PLUGIN]`. `actual` shows the names as written. When a
value cannot be evaluated, the names are compared as written (as a set).

## How values are obtained
1. **libclang** (when installed): the header and the headers it includes — each read
   through the source layer at pinned identity and handed to clang as in-memory files,
   never from disk — with gcc's include directory passed via `-isystem` (the PyPI
   libclang wheel lacks `stddef.h`). Headers that are not available at the pin are left
   out; clang then degrades but still evaluates constants of the file itself.
2. **tree-sitter** + a small evaluator: integers (hex, octal, binary, suffixes), char
   literals, `| & ^ << >> + - * / % ~`, parentheses, other enumerators/macros of the same
   file, implicit values (previous + 1). Casts, `sizeof`, calls: "cannot evaluate".

When both run and disagree the verdict is `error` (never a silent pick). The message says
which extractor decided.

## Why it matters
Lessons explain flags and sizes; a renumbered enum silently breaks code copied from a
lesson.

## Example
```toml
[[claim]]
id = "mjstate-physics"
fragment = "`mjSTATE_PHYSICS`"
kind = "enum"
upstream = "mujoco"
path = "include/mujoco/mjtype.h"
symbol = "mjSTATE_PHYSICS"
expected = ["mjSTATE_QPOS", "mjSTATE_QVEL", "mjSTATE_ACT", "mjSTATE_HISTORY"]
options = { compare = "composition" }
```

## Options
| option | meaning |
|---|---|
| `compare` | `value` (default; `expected` an integer) or `composition` (`expected` a list of names) |

## Evidence
The constant's line(s).

## Verdicts
`verified` / `diverged` (actual = the value, or the written names); `unavailable`;
`error` when the constant does not exist at the pin (with "did you mean"), the value
cannot be evaluated statically or the extractors disagree. An unknown option is an `error` (known: compare).
"""

from __future__ import annotations

import posixpath
import re

from verifier.claims.kinds._lookup import (check_options, file_facts, lookup, need, option,
                                           sym_desc, unresolved)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.facts import clang
from verifier.facts.consteval import Evaluator, evaluate
from verifier.results import Verdict

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def _includes(ctx: CheckContext, path: str, text: str, limit: int = 40) -> dict[str, str]:
    """The file and the headers it (transitively) includes that the source layer
    serves at pinned identity; others are left out (clang then degrades)."""
    files = {path: text}
    todo = [(path, text)]
    while todo and len(files) < limit:
        cur, body = todo.pop()
        for name in _INCLUDE.findall(body):
            for cand in (posixpath.normpath(posixpath.join(posixpath.dirname(cur), name)),
                         f"include/{name}", name):
                if cand in files or cand.startswith(".."):
                    continue
                sf = ctx.project.sources.resolve(ctx.upstream.name, cand, needed=False)  # a probe
                if sf.status.usable:
                    t, _ = ctx.source(cand)
                    files[cand] = t
                    todo.append((cand, t))
                    break
    return files


def constant_values(claim, ctx: CheckContext):
    """(facts, sf, sym, value, how) for the claim's constant."""
    facts, sf = file_facts(claim, ctx)
    cands = lookup(facts, claim.symbol, {"enumerator", "macro"})
    if not cands:
        return facts, sf, None, None, None, None
    s = cands[0]
    ev = Evaluator(facts)
    values = {"tree-sitter": ev.value_of(s)}
    clang_map = None
    if s.kind == "enumerator" and facts.lang in ("c", "cpp") and clang.available():
        text, _ = ctx.source(claim.path)
        clang_map = clang.enum_constants(claim.path, _includes(ctx, claim.path, text), facts.lang)
        got = _clang_lookup(clang_map, s.name, s.qual[:-1])
        if got is not None:
            values["libclang"] = got
    return facts, sf, s, values, ev, clang_map


def _clang_lookup(clang_map, name: str, scope: tuple[str, ...]) -> int | None:
    if not clang_map:
        return None
    c = clang_map.get(f"{scope[-1]}::{name}") if scope else None
    c = c or clang_map.get(name)
    return c.value if c is not None else None


def _decide(values: dict) -> tuple[int | None, str]:
    got = {k: v for k, v in values.items() if v is not None}
    if "libclang" in got and "tree-sitter" in got and got["libclang"] != got["tree-sitter"]:
        raise ClaimError(f"extractors disagree: libclang says {got['libclang']}, tree-sitter "
                         f"says {got['tree-sitter']}")
    if "libclang" in got:
        return got["libclang"], "libclang" + (" (tree-sitter agrees)" if "tree-sitter" in got else "")
    if "tree-sitter" in got:
        return got["tree-sitter"], "tree-sitter evaluation (libclang not used)"
    return None, ""


class EnumKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "enum"
    code = "VC104"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"compare"})
        need(claim, "path", "symbol")
        compare = option(claim, "compare", "value", ("value", "composition"))
        if claim.expected is None:
            raise ClaimError("kind 'enum' needs `expected`: an integer, or a list of constant "
                             "names with options.compare = \"composition\"")
        facts, sf, s, values, ev, clang_map = constant_values(claim, ctx)
        if s is None:
            raise unresolved(facts, claim.symbol, "enum constant or macro", {"enumerator", "macro"})
        value, how = _decide(values)
        evid = ctx.evidence(sf, s.start, s.end)

        def val(name: str) -> int | None:
            got = _clang_lookup(clang_map, name, s.qual[:-1])
            return got if got is not None else ev.resolve(name, s.qual[:-1])

        if compare == "value":
            exp = claim.expected
            if isinstance(exp, str):
                exp = evaluate(exp, val)
            if not isinstance(exp, int) or isinstance(exp, bool):
                raise ClaimError(f"enum: `expected` must be an integer, got {claim.expected!r}")
            if value is None:
                raise ClaimError(f"cannot evaluate {s.name} = {s.value!r} statically")
            verdict = Verdict.VERIFIED if value == exp else Verdict.DIVERGED
            return Outcome(verdict, actual=value, evidence=evid,
                           message=f"{sym_desc(s)} = {s.value or '(implicit)'} -> {value} [{how}]")
        # composition
        if not (isinstance(claim.expected, list) and all(isinstance(x, str) for x in claim.expected)):
            raise ClaimError("enum composition: `expected` must be a list of constant names")
        written = ev.names_in(s)
        parts = {n: val(n) for n in claim.expected}
        unknown = [n for n, v in parts.items() if v is None]
        if value is not None and not unknown:
            combined = 0
            for v in parts.values():
                combined |= v
            ok = combined == value
            msg = (f"{s.name} = {s.value} = {value}; OR of expected = {combined} [{how}]")
        else:
            ok = sorted(written) == sorted(claim.expected)
            msg = (f"{s.name} = {s.value}; compared as written (cannot evaluate"
                   f"{' ' + ', '.join(unknown) if unknown else ''})")
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=written,
                       evidence=evid, message=msg)
