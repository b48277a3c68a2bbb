"""What the documentation attached to a declaration says.

## What it checks
What the documentation attached to a declaration says, found through the fact model (the
declaration is looked up like `symbol` does; its doc comment or docstring is the one the
fact model attaches to it, never a search over the file):

- a C struct field (`mjModel.sensor_refid`; typedef names are followed) or enum constant
  (`mjCAMERA_FIXED`): the comment trailing it on its line, and a comment block right above;
- a C/C++ function, class or method: the `//`, `///` or `/* */` block right above it (above
  `template <...>` too);
- a Python module (no `symbol`), class, function or attribute (its attribute docstring);
- a parameter, with `options.param`: its entry in the function's doc (Doxygen `@param`,
  Google `Args:`, NumPy `Parameters`, Sphinx `:param:`).

`expected` is a phrase the doc must contain, a list of phrases (all must occur), or a table
`member = phrase(s)` for several members of `symbol` at once. Phrases are compared with
case, whitespace and inline markup (backticks, `**`, `:class:` roles) ignored.

## Why it matters
Lessons paraphrase the documented meaning of fields and parameters: units, shapes,
sentinel values. When the doc changes, the lesson's reading may no longer hold.

## Example
```toml
[[claim]]
id = "refid-global-frame"
fragment = "`refid=-1` 常表示世界参考"
kind = "doc"
path = "include/mujoco/mjmodel.h"
symbol = "mjModel.sensor_refid"
expected = "-1: global frame"

[[claim]]
id = "sensor-adr-dim"
fragment = "`sensordata[a:a+k]`"
kind = "doc"
path = "include/mujoco/mjmodel.h"
symbol = "mjModel"
expected = { sensor_dim = "number of scalar outputs", sensor_adr = "address in sensor array" }

[[claim]]
id = "ray-directions"
fragment = "world directions"
kind = "doc"
upstream = "newton"
path = "newton/_src/geometry/raycast.py"
symbol = "intersect_ray"
expected = "shape [ray_count, 3]"
options = { param = "ray_directions" }
```

## Options
| option | meaning |
|---|---|
| `param` | a parameter of the function `symbol`: check its entry in the doc |
| `match` | `all` (default: every phrase occurs), `any` (at least one), `none` (no phrase occurs: the doc does not say it), `order` (`expected` is `["angular", "linear"]` or `["linear", "angular"]`: which part of a 6-vector the doc puts first, as "(rot:lin)", "force:torque" or "ω ... on top of ... v" say it) |

## Evidence
The documentation lines and the declaration's head.

## Verdicts
`verified` / `diverged` (actual = the doc text, or a table of them; `null` when the
declaration has no documentation); `unavailable`; `error` when the declaration, the member
or the parameter does not exist at the pin (with "did you mean"), or `expected` is not a
phrase, list or table.
"""

from __future__ import annotations

from verifier.claims.kinds._docs import doc_of, normalize, param_doc
from verifier.claims.kinds._parts import PARTS, doc_order
from verifier.claims.kinds._lookup import (check_options, file_facts, lookup_through_typedefs,
                                           option, symbol_parts, sym_desc, unresolved)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.claims.compare import close_names
from verifier.results import Verdict


def _phrases(v, what: str) -> list[str]:
    if isinstance(v, str) and v.strip():
        return [v]
    if isinstance(v, list) and v and all(isinstance(x, str) and x.strip() for x in v):
        return list(v)
    raise ClaimError(f"doc: {what} must be a phrase or a list of phrases, got {v!r}")


def _holds(doc: str | None, phrases: list[str], mode: str) -> tuple[bool, list[str]]:
    """(holds, the phrases found)."""
    text = normalize(doc or "")
    found = [p for p in phrases if normalize(p) in text]
    if mode == "all":
        return len(found) == len(phrases), found
    if mode == "any":
        return bool(found), found
    return not found, found


class DocKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind


    name = "doc"
    code = "VC112"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"param", "match"})
        mode = option(claim, "match", "all", ("all", "any", "none", "order"))
        if mode == "order":
            return self._order(claim, ctx)
        param = claim.options.get("param")
        if param is not None and (not isinstance(param, str) or not param):
            raise ClaimError("options.param must be a parameter name")
        exp = claim.expected
        table = exp if isinstance(exp, dict) else None
        if table is not None:
            if not table or param is not None:
                raise ClaimError("doc: a table `expected` maps members of `symbol` to phrases "
                                 "(not with options.param)")
            wants = {str(k): _phrases(v, f"expected.{k}") for k, v in table.items()}
        else:
            wants = {"": _phrases(exp, "`expected`")}
        facts, sf = file_facts(claim, ctx)
        text, _ = ctx.source(claim.path)
        module_level = not claim.symbol or (facts.lang == "python"
                                            and not symbol_parts(facts, claim.symbol))
        results = []
        for member, phrases in wants.items():
            if module_level and not member:
                if facts.lang != "python":
                    raise ClaimError("doc: `symbol` names the declaration whose doc is checked "
                                     "(a module docstring only exists in Python)")
                if param is not None:
                    raise ClaimError("doc: options.param needs `symbol` (the function)")
                found = []
            else:
                name = (f"{claim.symbol}.{member}" if claim.symbol else member) if member \
                    else claim.symbol
                found = lookup_through_typedefs(facts, name)
                if not found:
                    raise unresolved(facts, name, "declaration")
                if param is not None:
                    with_param = [x for x in found
                                  if param in [p.name.lstrip("*") for p in (x.params or ())]]
                    if not with_param:
                        names = [p.name.lstrip("*") for x in found for p in (x.params or ())]
                        close = close_names(param, names)
                        raise ClaimError(
                            f"{sym_desc(found[0])} has no parameter `{param}` (options.param) at "
                            "the pin" + (f"; did you mean {', '.join(f'`{c}`' for c in close)}?"
                                         if close else f" (has: {', '.join(names) or 'none'})"))
                    found = with_param
            candidates = [None] if (module_level and not member) else found
            best = None
            for s in candidates:       # overloads: the first whose doc holds, else the first
                d = doc_of(facts, s, text, ctx.project.store)
                doc_text = d.text if d else None
                where = f"module {facts.path}" if s is None else sym_desc(s)
                if param is not None:
                    doc_text = param_doc(doc_text, param) if doc_text else None
                    where += f", parameter {param}"
                ok, hit = _holds(doc_text, phrases, mode)
                got = (member, s, d, doc_text, phrases, ok, hit, where)
                if best is None or ok:
                    best = got
                if ok:
                    break
            results.append(best)
        ok = all(r[5] for r in results)
        lines = [r[2].lines for r in results if r[2] is not None] or \
            [(r[1].start, r[1].end) for r in results if r[1] is not None]
        start = min(a for a, _ in lines) if lines else None
        end = max(b for _, b in lines) if lines else None
        if table is not None:
            actual = {m: dt for m, _, _, dt, _, _, _, _ in results}
        else:
            actual = results[0][3]
        problems = []
        for member, _, _, dt, phrases, good, hit, where in results:
            if good:
                continue
            if dt is None:
                problems.append(f"{where} has no documentation")
            elif mode == "none":
                problems.append(f"{where}: its doc says {', '.join(repr(h) for h in hit)}")
            else:
                miss = [p for p in phrases if p not in hit]
                problems.append(f"{where}: its doc does not say "
                                f"{', '.join(repr(p) for p in miss)}")
        msg = "; ".join(problems) if problems else \
            "; ".join(r[7] for r in results) + f" ({mode} of the phrases)"
        return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=actual,
                       evidence=ctx.evidence(sf, start, end), message=msg)

    def _order(self, claim, ctx: CheckContext) -> Outcome:
        """`match = "order"`: the part of a 6-vector the declaration's doc puts first."""
        exp = claim.expected
        if not (isinstance(exp, list) and sorted(exp) == sorted(PARTS)):
            raise ClaimError('doc: with match = "order", `expected` is ["angular", "linear"] '
                             'or ["linear", "angular"]')
        if not claim.symbol or claim.options.get("param") is not None:
            raise ClaimError('doc: match = "order" needs `symbol` (and no options.param)')
        facts, sf = file_facts(claim, ctx)
        text, _ = ctx.source(claim.path)
        found = lookup_through_typedefs(facts, claim.symbol)
        if not found:
            raise unresolved(facts, claim.symbol, "declaration")
        for s in found:
            d = doc_of(facts, s, text, ctx.project.store)
            got = doc_order(d.text if d else None)
            if got is None:
                continue
            lines = d.lines if d else (s.start, s.end)
            ok = list(got) == list(exp)
            return Outcome(Verdict.VERIFIED if ok else Verdict.DIVERGED, actual=list(got),
                           evidence=ctx.evidence(sf, *lines),
                           message=f"{sym_desc(s)}: its doc puts the {got[0]} part first"
                                   + ("" if ok else f", not the {exp[0]} part"))
        raise ClaimError(f"{sym_desc(found[0])}: its doc states no order of the angular and "
                         "linear parts (\"rot:lin\", \"... on top of ...\")")
