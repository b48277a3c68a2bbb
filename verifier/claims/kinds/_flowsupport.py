"""Shared plumbing of the flow claim kinds (call_order, branch, cases, expression,
text): option checking, reading + parsing the pinned file, locating the function.

Source is read only through `ctx.source` (pinned/release identity, otherwise
`SourceUnavailable` -> verdict `unavailable`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from verifier.claims.compare import close_names
from verifier.claims.kinds.base import ClaimError, CheckContext
from verifier.facts import flow

if TYPE_CHECKING:
    from verifier.claims.model import Claim
    from verifier.sources.models import SourceFile


def check_options(claim: "Claim", allowed: dict[str, str], required: tuple[str, ...] = ()) -> None:
    """`allowed`: option -> short description (used in the error message)."""
    unknown = sorted(set(claim.options) - set(allowed))
    if unknown:
        known = ", ".join(f"{k} ({v})" for k, v in sorted(allowed.items()))
        raise ClaimError(f"unknown option(s) {', '.join(unknown)} for kind {claim.kind!r}; "
                         f"expected some of: {known}")
    missing = [k for k in required if k not in claim.options]
    if missing:
        raise ClaimError(f"kind {claim.kind!r} needs options.{missing[0]} "
                         f"({allowed[missing[0]]})")


def need(claim: "Claim", what: str) -> Any:
    v = getattr(claim, what)
    if v in (None, ""):
        raise ClaimError(f"kind {claim.kind!r} needs `{what}`")
    return v


def load(claim: "Claim", ctx: CheckContext) -> tuple[flow.Source, "SourceFile"]:
    path = need(claim, "path")
    text, sf = ctx.source(path)          # raises SourceUnavailable
    try:
        src = flow.parse_source(path, text, sf.blob)
    except ValueError as exc:
        raise ClaimError(str(exc)) from None
    return src, sf


def _overload(claim: "Claim") -> int | None:
    ov = claim.options.get("overload")
    if ov is None:
        return None
    if isinstance(ov, bool) or not isinstance(ov, int) or ov < 0:
        raise ClaimError(f"options.overload must be a non-negative integer, got {ov!r}")
    return ov


def function(claim: "Claim", src: flow.Source,
             produce: Callable[[flow.FunctionDef], Any] | None = None) -> flow.FunctionDef:
    """The one definition of `claim.symbol` in the file.

    Several definitions (overloads, constructors): `options.overload` picks one
    (0-based, source order); otherwise the single definition for which
    `produce` gives a non-empty result is used, or an error lists them."""
    symbol = need(claim, "symbol")
    defs = flow.find_functions(src, symbol)
    if not defs:
        fns = flow.functions(src)
        names = sorted({f.qual[-1] for f in fns})
        want = flow.split_symbol(symbol)
        last = want[-1] if want else symbol
        same = sorted({"::".join(f.qual) for f in fns if f.qual and f.qual[-1] == last})
        close = list(dict.fromkeys(same + close_names(last, names)))[:4]
        sample = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
        hint = (f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else
                (f" (it defines: {sample})" if names else " (no function definitions)"))
        raise ClaimError(f"no definition of `{symbol}` in {src.path} at the pin{hint}")
    ov = _overload(claim)
    if ov is not None:
        if ov >= len(defs):
            raise ClaimError(f"options.overload = {ov}, but `{symbol}` has {len(defs)} "
                             f"definition(s) in {src.path}")
        return defs[ov]
    if len(defs) == 1:
        return defs[0]
    if produce is not None:
        results = [(d, produce(d)) for d in defs]
        nonempty = [(d, r) for d, r in results if r]
        if len(nonempty) == 1:
            return nonempty[0][0]
        if nonempty and all(r == nonempty[0][1] for _, r in nonempty):
            return nonempty[0][0]
    where = ", ".join(f"lines {d.start}-{d.end}" for d in defs)
    raise ClaimError(f"`{symbol}` has {len(defs)} definitions in {src.path} ({where}); "
                     f"set options.overload = 0..{len(defs) - 1}")


def callee_filter(claim: "Claim"):
    """`options.callee`: regex that must fully match the callee's name or its
    whole expression (`DeclareAbstractInputPort` or `this->DeclareAbstractInputPort`)."""
    from verifier.claims.kinds._userregex import UserRegex

    pat = claim.options.get("callee")
    if pat is None:
        return lambda call: True
    rx = UserRegex(pat, "callee")     # under the claim's time budget
    return lambda call: bool(rx.fullmatch(call.name) or rx.fullmatch(call.callee))


def call_arg_node(call: flow.Call, arg: int | str, lang: str):
    """The expression node of positional argument `arg` (int) or of keyword argument
    `arg` (str: Python `name=...`), or None."""
    if isinstance(arg, int):
        positional = [a for a in call.args if a.type != "keyword_argument"] \
            if lang == "python" else call.args
        return positional[arg] if arg < len(positional) else None
    for a in call.args:
        if a.type == "keyword_argument":
            name = a.child_by_field_name("name")
            if name is not None and flow.text(name) == arg:
                return a.child_by_field_name("value")
    return None


def call_arg(call: flow.Call, arg: int | str, lang: str) -> str | None:
    """Positional argument `arg` (int) or keyword argument `arg` (str, Python) of a call."""
    if isinstance(arg, int):
        positional = [a for a in call.args if a.type != "keyword_argument"] \
            if lang == "python" else call.args
        return flow.literal_value(positional[arg]) if arg < len(positional) else None
    for a in call.args:
        if a.type == "keyword_argument":
            name = a.child_by_field_name("name")
            if name is not None and flow.text(name) == arg:
                return flow.literal_value(a)
    return None


def arg_option(claim: "Claim", key: str = "arg") -> int | str | None:
    arg = claim.options.get(key)
    if arg is None:
        return None
    if isinstance(arg, bool) or not isinstance(arg, (int, str)) or (isinstance(arg, int) and arg < 0):
        raise ClaimError(f"options.{key} must be a non-negative argument index or a keyword "
                         f"name, got {arg!r}")
    return arg


def str_list(claim: "Claim", value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, (str, int, float)) and
                                              not isinstance(x, bool) for x in value):
        raise ClaimError(f"{what} must be a list of strings, got {value!r}")
    return [str(x) for x in value]
