"""The ordered parameters of a function, method or constructor.

## What it checks
The ordered parameters of a callable, by name and optionally with defaults:

- C functions (header prototypes, source definitions; `(void)` is no parameter);
- C++ functions, methods and constructors — a class name (`Accelerometer`) means its
  constructors; out-of-line definitions (`Accelerometer<T>::Accelerometer`) work too;
- Python functions and methods — `self`/`cls` are dropped (not for `@staticmethod`),
  `*args`/`**kwargs` keep their stars; a class name means `__init__` — the one written,
  or the one generated from the fields of a dataclass, pydantic model, attrs class or
  `NamedTuple` (as `inspect.signature(cls)` gives it at run time: keyword-only fields
  last, pydantic fields keyword-only and by alias, attrs private names without their
  underscore); bases in other files of the upstream are followed through the file's
  imports (their files read at pinned identity), so inherited fields come first as at
  run time; a base no provider serves leaves the constructor open: `unavailable`
  unless `match = "subset"`;
- pybind11 `__init__`/`.def(...)` with `py::arg("x") = default`.

When there are overloads, the claim holds if one of them matches; the message lists the
others. Entries may also mark how arguments bind, as Python writes it: `"/"` after the
positional-only parameters, `"*"` before the keyword-only ones (`["x", "/", "y", "*", "z"]`),
or per parameter `{ name = "z", kind = "keyword_only" }`; and a declared type
(`{ name = "depth_image", type = "wp.array4d[wp.float32] | None" }`, whitespace ignored;
for C/C++ the type specifier only — `mjModel` for `const mjModel* m` —, since the fact
model records no qualifiers or declarators: a C/C++ `type` with `const`, `*`, `&` or `[]`
is the claim's `error`, never a divergence).

Names in `expected` may be written in the lesson's notation when the claim file or the
course declares it (`[notation]`, see docs/claims/README.md); the verdict names the
entries it needed.
The notation is not applied to a parameter callers may pass by name (Python, pybind11
`py::arg`): there the spelling is the API.

## Why it matters
Lessons show calls. A renamed or reordered parameter breaks code copied from the lesson.

## Example
```toml
[[claim]]
id = "imu-ctor"
fragment = "SensorIMU(model, sites=..., request_state_attributes=True)"
kind = "signature"
upstream = "newton"
path = "newton/_src/sensors/sensor_imu.py"
symbol = "SensorIMU"
expected = ["model", "sites", { name = "request_state_attributes", default = "True" }]
options = { match = "subset" }     # the lesson leaves out `verbose`
```

## Options
| option | meaning |
|---|---|
| `match` | `exact` (default): same parameters in the same order; `prefix`: the first parameters; `subset`: these parameters in this relative order, others may interleave; `names`: each of these is a parameter, in any order (the keywords a call passes) |

Entries of `expected` are names, `"/"` and `"*"` markers, or tables
`{ name = ..., default = ..., kind = ..., type = ..., at = ... }`; `at` is the parameter's
position counted from 1 (the markers not counted): the argument a call writes there binds
it (`mj_integratePos(model, q, v, dt)` puts `dt` fourth); a default is compared like the
`default` kind does (by meaning: `0.0` == `0.` == `0`, `1/30` == `1.0 / 30`, `true` ==
`True`, `0xFFFFFFFF` == `4294967295`). `kind` is one of `positional_only`,
`positional_or_keyword`, `keyword_only`, `var_positional`, `var_keyword`.

## Evidence
The declaration head: from the first line (decorators, `template <...>`) to the end of the
parameter list.

## Verdicts
`verified` (actual = the matching overload) / `diverged` (actual = the first overload, the
others in the message); `unavailable`; `error` when no callable has that name at the pin
(with "did you mean"), for a malformed `expected` or option, or for markers where the
parameter kinds are not known. An unknown option is an `error` (known: match).
"""

from __future__ import annotations

import re

from verifier.claims.compare import same_name
from verifier.claims.compare import same_value as compare_value
from verifier.claims.compare import squash_text
from verifier.claims.kinds._inherit import needs_bases, with_inherited
from verifier.claims.kinds._lookup import (check_options, file_facts, lookup, need, option,
                                           sym_desc, unresolved)
from verifier.claims.kinds.base import CheckContext, ClaimError, ClaimKind, Outcome
from verifier.facts.model import FileFacts, Param, Sym
from verifier.results import Verdict

_CALLABLE = {"function", "method", "constructor", "macro"}
_KINDS = ("positional_only", "positional_or_keyword", "keyword_only", "var_positional",
          "var_keyword")
MARKERS = ("/", "*")


def callables(facts: FileFacts, symbol: str, ctx: CheckContext | None = None) -> list[Sym]:
    """The callables `symbol` names; a class means its constructors (a Python class's
    `__init__`, written or generated from its fields by the fact model: dataclass,
    pydantic, attrs, NamedTuple; with `ctx`, bases in other files are followed:
    `_inherit.py`)."""
    found = lookup(facts, symbol)
    out = [s for s in found if s.kind in _CALLABLE and s.params is not None]
    for s in found:
        if s.kind not in ("class", "struct"):
            continue
        if facts.lang == "python":
            f = facts
            if ctx is not None and needs_bases(facts, s):
                f = with_inherited(facts, s, ctx)
                s = next((x for x in f.syms if x.qual == s.qual and x.kind == s.kind), s)
            out.extend(c for c in f.children(s) if c.name == "__init__" and c.params is not None)
        else:
            out.extend(c for c in facts.children(s)
                       if c.kind == "constructor" and c.params is not None)
    return out


def open_bases(s: Sym) -> bool:
    """A generated constructor of a class whose bases are not known from its file:
    inherited fields may come first."""
    return s.origin == "generated" and "open_bases" in s.traits


def _expected(claim) -> list[dict]:
    exp = claim.expected
    if not isinstance(exp, list):
        raise ClaimError("signature: `expected` must be a list of parameter names (with \"/\" "
                         "and \"*\" markers as in Python) or of {name = ..., default = ..., "
                         "kind = ...} tables")
    out = []
    for item in exp:
        if isinstance(item, str):
            out.append({"marker": item} if item in MARKERS else {"name": item})
        elif isinstance(item, dict) and isinstance(item.get("name"), str) and \
                set(item) <= {"name", "default", "kind", "type", "at"}:
            if "kind" in item and item["kind"] not in _KINDS:
                raise ClaimError(f"signature: parameter kind {item['kind']!r} is not one of "
                                 f"{', '.join(_KINDS)}")
            if "at" in item and (type(item["at"]) is not int or item["at"] < 1):
                raise ClaimError(f"signature: `at` of parameter {item['name']!r} must be a "
                                 f"position counted from 1, not {item['at']!r}")
            out.append(item)
        else:
            raise ClaimError(f"signature: bad parameter entry {item!r} (a name, \"/\", \"*\", "
                             "or a table with `name` and optional `default`, `kind`, `type`, "
                             "`at`)")
    if sum(1 for e in out if e.get("marker") == "/") > 1 or \
            sum(1 for e in out if e.get("marker") == "*") > 1:
        raise ClaimError("signature: at most one \"/\" and one \"*\" marker")
    return out


def wants_kinds(exp: list[dict]) -> bool:
    return any("marker" in e or "kind" in e for e in exp)


def with_markers(params: tuple[Param, ...]) -> list[Param | str]:
    """Parameters with Python's `/` and `*` markers where their kinds put them."""
    out: list[Param | str] = []
    kinds = [getattr(p, "kind", None) for p in params]
    last_po = max((i for i, k in enumerate(kinds) if k == "positional_only"), default=-1)
    star_done = False
    for i, p in enumerate(params):
        k = kinds[i]
        if k == "var_positional":
            star_done = True
        if k == "keyword_only" and not star_done:
            out.append("*")
            star_done = True
        out.append(p)
        if i == last_po:
            out.append("/")
    return out


def keyword_passable(facts: FileFacts, s: Sym, p: Param) -> bool:
    """Whether callers may pass `p` by name (then its spelling is API, not notation)."""
    kind = getattr(p, "kind", None)
    if kind in ("positional_only", "var_positional", "var_keyword"):
        return False
    return facts.lang == "python" or s.origin == "pybind11"


class _Cmp:
    """Parameter comparison for one callable, recording notation it needed."""

    def __init__(self, facts: FileFacts, s: Sym, ctx: CheckContext) -> None:
        self.facts, self.s, self.ctx = facts, s, ctx
        self.tracker = ctx.notation.probe()
        self.guarded: list[str] = []

    def item_ok(self, e: dict, p: Param | str) -> bool:
        if "marker" in e or isinstance(p, str):
            return e.get("marker") == p
        if e["name"] != p.name:
            nt = None if keyword_passable(self.facts, self.s, p) else self.tracker
            if not same_name(e["name"], p.name, nt):
                if nt is None and same_name(e["name"], p.name, self.ctx.notation.probe()):
                    self.guarded.append(f"`{e['name']}` for `{p.name}`")
                return False
        if "kind" in e and getattr(p, "kind", None) != e["kind"]:
            return False
        if "type" in e and (p.type is None or squash_text(e["type"]).replace(" ", "")
                            != squash_text(p.type).replace(" ", "")):
            return False
        if "default" in e:
            if p.default is None:
                return e["default"] is None
            return bool(compare_value(e["default"], p.default, self.facts.lang, self.tracker))
        return True


def matches(exp: list[dict], params, mode: str, cmp: _Cmp) -> bool:
    ps = list(params)
    ok = cmp.item_ok
    plain = [p for p in ps if not isinstance(p, str)]
    if not all(e["at"] <= len(plain) and ok(e, plain[e["at"] - 1]) for e in exp if "at" in e):
        return False
    if mode == "exact":
        return len(ps) == len(exp) and all(ok(e, p) for e, p in zip(exp, ps, strict=True))
    if mode == "prefix":
        return len(ps) >= len(exp) and all(ok(e, p) for e, p in zip(exp, ps, strict=False))
    if mode == "names":     # each a parameter, any order (keyword arguments of a call)
        return all(any(ok(e, p) for p in ps) for e in exp)
    it = iter(ps)  # subset, in relative order
    return all(any(ok(e, p) for p in it) for e in exp)


def shown(exp: list[dict], params) -> list:
    with_defaults = any("default" in e for e in exp)
    with_kinds = any("kind" in e for e in exp)
    with_types = any("type" in e for e in exp)
    out: list = []
    for p in params:
        if isinstance(p, str):
            out.append(p)
            continue
        if not with_defaults and not with_kinds and not with_types:
            out.append(p.name)
            continue
        d: dict = {"name": p.name}
        if with_defaults and p.default is not None:
            d["default"] = p.default
        if with_kinds and getattr(p, "kind", None):
            d["kind"] = p.kind
        if with_types and p.type:
            d["type"] = p.type
        out.append(d if len(d) > 1 else p.name)
    return out


_DECLARATOR = re.compile(r"[*&\[\]]|\b(const|volatile|restrict)\b")


def _types_checkable(facts: FileFacts, exp: list[dict]) -> None:
    """The C/C++ fact model records a parameter's type specifier only (`mjModel` for
    `const mjModel* m`): a `type` with qualifiers or declarators cannot be compared
    against it, and must not come out `diverged` for that reason."""
    if facts.lang not in ("c", "cpp"):
        return
    for e in exp:
        t = e.get("type")
        if isinstance(t, str) and _DECLARATOR.search(t):
            raise ClaimError(f"`type` {t!r} of parameter `{e.get('name')}`: for C/C++ the "
                             "fact model records the type specifier only (e.g. `mjModel` for "
                             "`const mjModel* m`); give the bare type, without `const`, `*`, "
                             "`&` or `[]`")


def _bases(facts: FileFacts, init: Sym) -> str:
    owner = [s for s in facts.syms if s.qual == init.qual[:-1]]
    return (owner[0].value or "?") if owner else "?"


class SignatureKind(ClaimKind):
    __doc__ = __doc__  # the module docstring documents the kind

    name = "signature"
    code = "VC102"

    def check(self, claim, ctx: CheckContext) -> Outcome:
        check_options(claim, {"match"})
        need(claim, "path", "symbol")
        mode = option(claim, "match", "exact", ("exact", "prefix", "subset", "names"))
        exp = _expected(claim)
        facts, sf = file_facts(claim, ctx)
        cands = callables(facts, claim.symbol, ctx)
        if not cands:
            raise unresolved(facts, claim.symbol, "function/method/constructor",
                             _CALLABLE | {"class", "struct"})
        kinds = wants_kinds(exp)
        _types_checkable(facts, exp)

        def params_of(s: Sym):
            ps = s.params or ()
            if kinds:
                if any(getattr(p, "kind", None) is None for p in ps):
                    raise ClaimError(f"{sym_desc(s)}: parameter kinds (positional-only, "
                                     f"keyword-only) are not known for {facts.path}; leave out "
                                     "the \"/\" and \"*\" markers and `kind`")
                return with_markers(ps)
            return list(ps)

        guarded: list[str] = []
        for s in cands:
            cmp = _Cmp(facts, s, ctx)
            if open_bases(s) and mode != "subset":
                return Outcome(Verdict.UNAVAILABLE, actual=shown(exp, params_of(s)),
                               evidence=ctx.evidence(sf, *s.head),
                               message=f"{sym_desc(s)}: generated from the fields of a class "
                                       f"whose bases ({_bases(facts, s)}) are not in {facts.path}: inherited "
                                       "fields are not known here (match = \"subset\" can "
                                       "still be checked)")
            if matches(exp, params_of(s), mode, cmp):
                ctx.notation.record(cmp.tracker.used.values())
                return Outcome(Verdict.VERIFIED, actual=shown(exp, params_of(s)),
                               evidence=ctx.evidence(sf, *s.head),
                               message=f"{sym_desc(s)} at line {s.start}"
                                       + (f" (1 of {len(cands)} overloads)" if len(cands) > 1 else ""))
            guarded += cmp.guarded
        s = cands[0]
        others = "; ".join(f"line {c.start}: {shown(exp, params_of(c))}" for c in cands[1:])
        note = ""
        if guarded:
            note = ("; notation not applied to " + ", ".join(dict.fromkeys(guarded))
                    + ": callers pass these parameters by name, so their spelling is API")
        return Outcome(Verdict.DIVERGED, actual=shown(exp, params_of(s)),
                       evidence=ctx.evidence(sf, *s.head),
                       message=f"{sym_desc(s)} at line {s.start}"
                               + (f"; other overloads: {others}" if others else "") + note)
