"""Do the two Python producers agree? The static producer (`facts/python.py`,
`facts/pyclass.py`, `facts/pymodule.py`: the file's text) and the runtime inspector
(`facts/introspect.py` in the pinned environment, `facts/release.py` makes records of
it) describe the same constructs with the same words (`model.TRAITS`); this module
compares them construct by construct, like griffe holds its visitor and its inspector
to the same tests (tests/facts/test_producers.py runs it on a fixture package and on
the pinned newton and warp wheels).

A class is matched by where it is defined (the introspected class's `value` is
`module:qualname`); a module by its name. Each construct class gives (compared,
agreeing, examples of disagreement). What the runtime cannot see, or sees in another
form, is not compared but counted apart (`LEGITIMATE`), with the reason.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field

from verifier.facts.model import FileFacts, Sym

CONSTRUCTS = ("flavour", "fields", "field defaults", "constructor", "enum members",
              "properties", "class attributes", "slots", "methods", "overloads",
              "module exports", "lazy re-exports", "import aliases")

# construct classes where the producers legitimately differ: what is counted apart
LEGITIMATE = {
    "instance attributes": "`self.x = ...` in a method exists only on instances: the runtime "
                           "inspector reads classes, never instantiates them",
    "default text": "a default that is no literal (`wp.vec3(0.0)`, a constant's name) is "
                    "source text in one producer and a repr of the evaluated value in the "
                    "other: compared by presence only",
    "annotations": "types are source text statically and evaluated objects at run time "
                   "(never compared)",
    "computed names": "names a module's `__getattr__` or a class body computes (loops, "
                      "`globals()` updates, `setattr`) are seen at run time only",
    "decorated definitions": "a decorator may return another object than it was given "
                             "(warp's `@wp.struct` a callable Struct, `@wp.func` a Function): "
                             "the file declares a class or function, the runtime holds the "
                             "decorator's object",
    "callable aliases": "`evaluate = _impl` in a class body naming something imported: "
                        "whether it is a function (a method) is known at run time only",
    "framework members": "pydantic sets `model_config` (and `model_post_init` with private "
                         "attributes) on every model class, written or not: not compared",
    "inherited from another file": "a class whose base is defined in another file: its "
                                   "inherited fields are in the runtime's constructor, not "
                                   "in the file's",
}

_PYDANTIC_MADE = {"model_config", "model_post_init"}
_FIELD_TRAITS = {"kw_only", "initvar", "no_init", "factory", "not_required"}


@dataclass
class Tally:
    compared: int = 0
    agreed: int = 0
    examples: list[str] = field(default_factory=list)

    def add(self, ok: bool, what: str) -> None:
        self.compared += 1
        self.agreed += ok
        if not ok and len(self.examples) < 12:
            self.examples.append(what)


@dataclass
class Agreement:
    tallies: dict[str, Tally] = field(default_factory=lambda: {c: Tally() for c in CONSTRUCTS})
    apart: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    classes: int = 0
    modules: int = 0

    def rate(self, construct: str) -> float:
        t = self.tallies[construct]
        return 100.0 * t.agreed / t.compared if t.compared else 100.0

    def disagreements(self) -> list[str]:
        return [f"{c}: {e}" for c, t in self.tallies.items() for e in t.examples]

    def table(self) -> str:
        rows = ["| construct | compared | agree | % |", "|---|---:|---:|---:|"]
        for c, t in self.tallies.items():
            rows.append(f"| {c} | {t.compared} | {t.agreed} | {self.rate(c):.1f} |")
        for c, n in sorted(self.apart.items()):
            rows.append(f"| ({c}: counted apart) | {n} | — | — |")
        return "\n".join(rows)


def runtime_classes(records: list[FileFacts]) -> dict[str, tuple[FileFacts, Sym]]:
    """`module:qualname` -> the introspected class (its record and symbol)."""
    out: dict[str, tuple[FileFacts, Sym]] = {}
    for f in records:
        for s in f.syms:
            if s.kind == "class" and s.value and ":" in s.value and f.children(s):
                out.setdefault(s.value, (f, s))
    return out


def _literal(text: str | None):
    if text is None:
        return None
    try:
        return ("lit", ast.literal_eval(text))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ("text", text)


def same_default(static: str | None, runtime: str | None, apart: dict) -> bool:
    """Both absent, or equal literals, or the same factory; a non-literal on either side
    agrees on presence alone (counted apart as `default text`)."""
    if static is None or runtime is None:
        return static is None and runtime is None
    a, b = _literal(static), _literal(runtime)
    if a[0] == "lit" and b[0] == "lit":
        return a[1] == b[1] and type(a[1]) is type(b[1]) or a[1] == b[1] and \
            isinstance(a[1], (int, float)) and isinstance(b[1], (int, float))
    if static.endswith("()") and runtime.endswith("()"):
        return static[:-2].split(".")[-1] == runtime[:-2].split(".")[-1]
    apart["default text"] += 1
    return True


def _public(s: Sym) -> bool:
    return not s.name.startswith("_") or s.name == "__init__"


def compare_class(result: Agreement, where: str, sf: FileFacts, s: Sym,
                  rf: FileFacts, r: Sym) -> None:
    t = result.tallies
    result.classes += 1
    skip = _PYDANTIC_MADE if s.flavour == "pydantic" else set()
    kids = [k for k in sf.children(s) if _public(k) and k.name not in skip]
    rkids = [k for k in rf.children(r) if "inherited" not in k.traits and _public(k)
             and k.name not in skip]
    t["flavour"].add(s.flavour == r.flavour and ("flag" in s.traits) == ("flag" in r.traits),
                     f"{where}: {s.flavour} / {r.flavour}")
    if s.flavour and s.flavour != "enum":
        sf_ = [k for k in kids if k.kind == "field"]
        rf_ = [k for k in rkids if k.kind == "field"]
        t["fields"].add([k.name for k in sf_] == [k.name for k in rf_]
                        and [set(k.traits) & _FIELD_TRAITS for k in sf_]
                        == [set(k.traits) & _FIELD_TRAITS for k in rf_],
                        f"{where}: {[(k.name, *sorted(set(k.traits) & _FIELD_TRAITS)) for k in sf_]}"
                        f" / {[(k.name, *sorted(set(k.traits) & _FIELD_TRAITS)) for k in rf_]}")
        rd = {k.name: k.value for k in rf_}
        for k in sf_:
            if k.name in rd:
                t["field defaults"].add(same_default(k.value, rd[k.name], result.apart),
                                        f"{where}.{k.name}: {k.value!r} / {rd[k.name]!r}")
    si = [k for k in sf.children(s) if k.name == "__init__"]
    ri = [k for k in rf.children(r) if k.name == "__init__" and "inherited" not in k.traits]
    if si or ri:
        if si and "open_bases" in si[0].traits:
            result.apart["inherited from another file"] += 1
        else:
            t["constructor"].add(_same_params(si, ri, result.apart),
                                 f"{where}.__init__: {_params(si)} / {_params(ri)}")
    if s.flavour == "enum":
        se = [(k.name, k.value) for k in kids if k.kind == "enumerator"]
        re_ = [(k.name, k.value) for k in rkids if k.kind == "enumerator"]
        ok = [n for n, _ in se] == [n for n, _ in re_] and all(
            same_default(a, b, result.apart) for (_, a), (_, b) in zip(se, re_, strict=False))
        t["enum members"].add(ok, f"{where}: {se} / {re_}")
    props = {(k.name, "settable" in k.traits) for k in kids if {"property", "cached_property"}
             & set(k.traits)}
    rprops = {(k.name, "settable" in k.traits) for k in rkids if {"property", "cached_property"}
              & set(k.traits)}
    if props or rprops:
        t["properties"].add(props == rprops, f"{where}: {sorted(props)} / {sorted(rprops)}")
    slots = {k.name for k in kids if "slot" in k.traits}
    rslots = {k.name for k in rkids if "slot" in k.traits}
    if slots or rslots:
        t["slots"].add(slots == rslots, f"{where}: {sorted(slots)} / {sorted(rslots)}")
    cattrs = {k.name for k in kids if k.kind == "attribute" and k.origin is None
              and not {"property", "cached_property", "slot"} & set(k.traits)
              and s.flavour != "enum"}
    rattrs = {k.name for k in rkids if k.kind == "attribute"
              and not {"property", "cached_property", "slot"} & set(k.traits)
              and s.flavour != "enum"}
    result.apart["instance attributes"] += sum(1 for k in kids if k.origin in ("__init__", "self"))
    if cattrs or rattrs:
        t["class attributes"].add(cattrs <= rattrs | {k.name for k in rkids}
                                  and rattrs <= cattrs | {k.name for k in kids},
                                  f"{where}: {sorted(cattrs)} / {sorted(rattrs)}")
    meths = {(k.name, tuple(sorted({"staticmethod", "classmethod"} & set(k.traits))))
             for k in kids if k.kind == "method" and k.name != "__init__"
             and "overload" not in k.traits}
    rmeths = {(k.name, tuple(sorted({"staticmethod", "classmethod"} & set(k.traits))))
              for k in rkids if k.kind in ("method", "constructor") and k.name != "__init__"
              and "overload" not in k.traits}
    kinds = {k.name: k for k in kids}
    for name, traits in sorted(rmeths - meths):
        k = kinds.get(name)
        if k is not None and k.kind == "class":
            result.apart["decorated definitions"] += 1
            rmeths.discard((name, traits))
        elif k is not None and k.kind == "attribute" and (k.value or "").isidentifier():
            result.apart["callable aliases"] += 1
            rmeths.discard((name, traits))
    if meths or rmeths:
        t["methods"].add(meths == rmeths, f"{where}: {sorted(meths ^ rmeths)}")
    so = sorted(k.name for k in kids if "overload" in k.traits)
    ro = sorted(k.name for k in rkids if "overload" in k.traits)
    if so or ro:
        t["overloads"].add(so == ro, f"{where}: {so} / {ro}")


def _params(syms: list[Sym]) -> list:
    return [(p.name, p.kind, p.default) for p in (syms[0].params or ())] if syms else []


def _same_params(si: list[Sym], ri: list[Sym], apart: dict) -> bool:
    if not si or not ri:
        return False
    a, b = si[0].params or (), ri[0].params or ()
    if si[0].origin != "generated" and ri[0].origin == "generated":
        return False
    return len(a) == len(b) and all(
        x.name == y.name and (x.kind == y.kind or None in (x.kind, y.kind))
        and same_default(x.default, y.default, apart) for x, y in zip(a, b, strict=True))


def compare_module(result: Agreement, sf: FileFacts, rf: FileFacts) -> None:
    t = result.tallies
    result.modules += 1
    computed = sf.exports is None and any(x.name == "__all__" and len(x.qual) == 1
                                          for x in sf.syms)
    if computed:
        result.apart["computed names"] += 1     # `__all__ = [*other.__all__, ...]`
    elif sf.exports is not None or rf.exports is not None:
        t["module exports"].add(sf.exports == rf.exports, f"{sf.path}: {sf.exports} / {rf.exports}")
    rnames = {s.name: s for s in rf.syms if len(s.qual) == 1}
    for s in sf.syms:
        if len(s.qual) != 1 or not _public(s):
            continue
        if "lazy" in s.traits:
            r = rnames.get(s.name)
            t["lazy re-exports"].add(r is not None and "lazy" in r.traits,
                                     f"{sf.path}:{s.name}: {'absent' if r is None else r.traits}")
        elif s.kind == "import" and s.value and "." in s.value and not s.value.startswith("."):
            r = rnames.get(s.name)
            if r is not None and r.kind == "module":
                t["import aliases"].add((r.value or f"{rf.module}.{s.name}") == s.value
                                        or s.value.endswith("." + s.name) and r.value is None,
                                        f"{sf.path}:{s.name}: {s.value} / {r.value}")


def compare(static: list[FileFacts], runtime: list[FileFacts]) -> Agreement:
    """Agreement of the static records (module set by `FileFacts.module`) with the
    introspected ones, over every class and module both producers describe."""
    result = Agreement()
    classes = runtime_classes(runtime)
    modules = {f.module: f for f in runtime}
    for sf in static:
        mod = sf.module
        if mod in modules:
            compare_module(result, sf, modules[mod])
        for s in sf.syms:
            if s.kind != "class" or any(p.kind in ("function", "method") for p in
                                        _scopes(sf, s)):
                continue
            hit = classes.get(f"{mod}:{'.'.join(s.qual)}")
            if hit is not None:
                compare_class(result, f"{mod}:{'.'.join(s.qual)}", sf, s, *hit)
    return result


def _scopes(f: FileFacts, s: Sym) -> list[Sym]:
    return [o for o in f.syms if o.qual == s.qual[:len(o.qual)] and len(o.qual) < len(s.qual)]


