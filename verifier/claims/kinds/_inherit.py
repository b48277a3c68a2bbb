"""Classes whose bases are in other files of the upstream: what they inherit.

The fact model is built one file at a time, so a dataclass deriving from a dataclass of
another module has a generated constructor marked `open_bases` (its inherited fields
are not known from its own file), and a model deriving from a project base model
(`class Options(BaseOptions)`, `BaseOptions(BaseModel)` elsewhere) has no flavour at
all. For the claim about such a class, `signature` and `default` follow its bases
through the file's imports (re-exports of packages followed, up to a few steps) to the
files that define them, read at pinned identity like any other (the claim's evidence
lists them), and extract the class's file again with what those bases generate
(`facts/python.extract(..., bases=...)`). A base no provider serves, or that cannot be
found, leaves the class as it was: open, never guessed."""

from __future__ import annotations

from verifier.claims.kinds.base import CheckContext, SourceUnavailable
from verifier.facts import names
from verifier.facts import python as pyfacts
from verifier.facts.model import FileFacts, Sym
from verifier.facts.pyclass import ClassModel

_DEPTH = 4


def needs_bases(facts: FileFacts, cls: Sym) -> bool:
    """The class derives from names this file imports, and its constructor is not
    known from the file alone."""
    if facts.lang != "python" or cls.kind != "class" or not cls.value:
        return False
    init = [c for c in facts.children(cls) if c.name == "__init__"]
    if init and not (init[0].origin == "generated" and "open_bases" in init[0].traits):
        return False
    bound = {i.bound for i in facts.imports if i.bound}
    return any(b.split(".")[0].split("[")[0] in bound for b in _bases(cls))


def _bases(cls: Sym) -> list[str]:
    return [b.strip() for b in (cls.value or "").split(",") if b.strip() and "=" not in b]


def _module_paths(ctx: CheckContext, module: str) -> list[str]:
    rel = module.replace(".", "/")
    out = []
    for member in (f"{rel}.py", f"{rel}/__init__.py"):
        for w in ctx.upstream.wheel:
            hit = w.to_repo(member)
            if hit:
                out.append(hit)
        out.append(member)
    return list(dict.fromkeys(out))


def _read(ctx: CheckContext, module: str) -> tuple[FileFacts, str, str] | None:
    from verifier.facts.extract import cached, facts_for

    for path in _module_paths(ctx, module):
        if ctx.project.sources.presence(ctx.upstream.name, path).state.value in (
                "absent", "not-in-release"):
            continue
        try:
            text, sf = ctx.source(path)
        except SourceUnavailable:
            continue
        facts = cached(ctx.project.store, path, sf.blob, lambda p=path, t=text, b=sf.blob:
                       facts_for(p, t, b))
        return facts, text, module
    return None


def _target(facts: FileFacts, module: str, name: str) -> tuple[str, str] | None:
    """(module, class name) that `name` (as bound in `facts`) refers to."""
    head, _, rest = name.partition(".")
    is_pkg = facts.path.endswith(("__init__.py", "__init__.pyi"))
    for imp in facts.imports:
        if imp.bound != head:
            continue
        src = names.resolve_relative(module, is_pkg, "." * imp.level + imp.module)
        if imp.name is None:                      # `import pkg.mod as m` ... `m.Base`
            parts = rest.rsplit(".", 1)
            return (f"{src}.{parts[0]}" if len(parts) == 2 else src), parts[-1]
        if rest:                                  # `from pkg import mod` ... `mod.Base`
            parts = rest.rsplit(".", 1)
            sub = f"{src}.{imp.name}" + (f".{parts[0]}" if len(parts) == 2 else "")
            return sub, parts[-1]
        return src, imp.name
    return None


def _model(ctx: CheckContext, module: str, name: str, depth: int) -> ClassModel | None:
    """What class `name` of `module` generates, following re-exports and its own bases."""
    got = _read(ctx, module)
    if got is None:
        return None
    facts, text, mod = got
    cls = next((s for s in facts.syms if s.qual == (name,) and s.kind == "class"), None)
    if cls is None:
        if depth >= _DEPTH:
            return None
        nxt = _target(facts, mod, name)          # a re-export: `from ._impl import Base`
        return _model(ctx, *nxt, depth + 1) if nxt else None
    if depth < _DEPTH and needs_bases(facts, cls):
        facts = _with_bases(ctx, facts, text, mod, cls, depth + 1)
        cls = next(s for s in facts.syms if s.qual == (name,) and s.kind == "class")
    init = next((c for c in facts.children(cls) if c.name == "__init__"), None)
    fields = list(init.params or ()) if init is not None and init.origin == "generated" else []
    fields = [p for p in fields if not p.name.startswith("*")]
    open_ = init is not None and "open_bases" in init.traits
    if init is None and any(b.split(".")[0] not in ("object", "Generic", "Protocol", "ABC")
                            for b in _bases(cls)) and cls.flavour is None:
        open_ = needs_bases(facts, cls)
    return ClassModel(cls.flavour, tuple(t for t in cls.traits if t == "flag"), fields=fields,
                      open_bases=open_)


def _with_bases(ctx: CheckContext, facts: FileFacts, text: str, module: str, cls: Sym,
                depth: int) -> FileFacts:
    seeds: dict[str, ClassModel] = {}
    for b in _bases(cls):
        simple = b.split("[")[0]
        tgt = _target(facts, module, simple)
        if tgt is None:
            continue
        m = _model(ctx, *tgt, depth)
        if m is not None:
            seeds[simple] = m
    if not seeds:
        return facts
    return pyfacts.extract(facts.path, text.encode("utf-8"), facts.blob, producer=facts.producer,
                           bases=seeds)


def with_inherited(facts: FileFacts, cls: Sym, ctx: CheckContext) -> FileFacts:
    """`facts` again, with class `cls`'s bases from other files known (or as it was)."""
    if not needs_bases(facts, cls):
        return facts
    text, _ = ctx.source(facts.path)
    module = facts.module or names.module_name(facts.path)
    out = _with_bases(ctx, facts, text, module, cls, 1)
    if out is not facts and facts.module and out.module != facts.module:
        from dataclasses import replace

        out = replace(out, module=facts.module)
    return out
