"""Modern Python classes in the fact model (called by `facts/python.py` once a class
body is walked): what a class *generates* from its declarations.

- flavour (a class trait, `model.FLAVOURS`), from its decorators and bases as the
  file's imports name them (`@dataclass`, `@dataclasses.dataclass(kw_only=True)`,
  pydantic `BaseModel`, attrs `@attr.s` / `@define` / `@frozen`, `NamedTuple`,
  `TypedDict`, `Enum`/`IntEnum`/`StrEnum`/`Flag`/`IntFlag`), or from a class of the
  same file it derives from;
- fields in declaration order (base classes of the same file first), with the
  default each gets: `= X`, `field(default=X)`, `field(default_factory=F)` (`F()`),
  pydantic `Field(X)` / `Field(default_factory=F)` (`Field(...)`: required), attrs
  `attr.ib(default=X)`, `factory=F`, `Factory(F)`; `ClassVar` names are class
  attributes, `InitVar` names are init-only fields, `_: KW_ONLY` makes the fields
  after it keyword-only; pydantic private (`_x`) names and `model_config` are no
  fields, validators stay methods (trait `validator`);
- the generated constructor: an `__init__` method with origin `generated` whose
  parameters are what the runtime's `inspect.signature(cls)` gives (keyword-only
  fields after the others; pydantic: every field keyword-only, by alias, and
  `**extra_data` with `extra="allow"`; attrs: leading underscores stripped, `alias=`);
  a class written with its own `__init__` keeps it; a class with bases this file does
  not define gets the trait `open_bases` on the constructor (inherited fields are
  not known from this file);
- enum members (kind `enumerator`; `auto()` values computed as the runtime does for
  int and flag enums: largest value + 1, the next power of two; `StrEnum`: the
  lower-cased name); properties and cached properties (kind `attribute`, one symbol
  per property, `settable` when it has a setter); `__slots__` names (attributes,
  trait `slot`); `@overload`, `@staticmethod`, `@classmethod` traits.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from verifier.facts.model import (GENERATED_INIT, KEYWORD_ONLY, POSITIONAL_OR_KEYWORD,
                                  VAR_KEYWORD, Param, Sym)

if TYPE_CHECKING:
    from verifier.facts.python import _Walker

_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"}
_CLOSED_BASES = {"object", "Generic", "Protocol", "ABC", "NamedTuple", "TypedDict", "BaseModel",
                 "BaseSettings", *_ENUM_BASES}
_ATTRS_DECOS = {"s", "attrs", "attributes", "define", "mutable", "frozen", "dataclass"}
_PROPERTY = {"property", "cached_property", "abstractproperty", "computed_field"}
_VALIDATORS = {"field_validator", "model_validator", "validator", "root_validator",
               "field_serializer", "model_serializer"}


@dataclass
class ClassModel:
    """What the file knows of one class (kept by the walker for derived classes)."""

    flavour: str | None
    traits: tuple[str, ...] = ()
    fields: list[Param] = field(default_factory=list)   # constructor parameters, in order
    open_bases: bool = False


def import_map(w: "_Walker") -> dict[str, str]:
    """Bound name -> what it names, from the file's module-level imports so far."""
    out: dict[str, str] = {}
    for i in w.imports:
        if i.bound is None:
            continue
        mod = "." * i.level + i.module
        out[i.bound] = mod if i.name is None else (f"{mod}.{i.name}" if mod else i.name)
    return out


def full_name(node: ast.expr, imports: dict[str, str]) -> str:
    """`dataclass` -> `dataclasses.dataclass`, `dc.field` -> `dataclasses.field`."""
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Subscript):
        node = node.value
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - an unparsable decorator names nothing
        return ""
    head, _, rest = text.partition(".")
    target = imports.get(head)
    return (f"{target}.{rest}" if rest else target) if target else text


def _is(full: str, names: set[str], modules: tuple[str, ...]) -> bool:
    """`full` is one of `names` (last segment) from one of `modules`, or unbound."""
    parts = full.split(".")
    return parts[-1] in names and (len(parts) == 1 or parts[0].lstrip(".") in modules
                                   or any(full.startswith(m + ".") for m in modules))


def _kw(call: ast.expr, name: str) -> ast.expr | None:
    if isinstance(call, ast.Call):
        for k in call.keywords:
            if k.arg == name:
                return k.value
    return None


def _true(node: ast.expr | None) -> bool | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, bool) else None


def literal_strings(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)):
        vals = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                vals.append(e.value)
            else:
                return None
        return vals
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal_strings(node.left), literal_strings(node.right)
        return None if left is None or right is None else left + right
    return None


# --------------------------------------------------------------------------- flavour


def flavour_of(cls: ast.ClassDef, imports: dict[str, str], known: dict[str, ClassModel]
               ) -> tuple[str | None, list[str], dict, list[ClassModel], bool]:
    """(flavour, class traits, decorator options, same-file base models, open bases)."""
    traits: list[str] = []
    opts: dict = {}
    flavour = None
    for d in cls.decorator_list:
        full = full_name(d, imports)
        parts = full.split(".")
        if parts[-1] == "dataclass" and parts[0] not in ("attr", "attrs"):
            flavour = "dataclass"
        elif parts[0] in ("attr", "attrs") and parts[-1] in _ATTRS_DECOS or \
                len(parts) == 1 and parts[0] in ("define", "frozen", "mutable") and \
                imports.get(parts[0], "").split(".")[0] in ("attr", "attrs"):
            flavour = "attrs"
            opts["auto_attribs"] = (True if parts[-1] == "dataclass" else
                                    None if parts[-1] in ("define", "frozen", "mutable") else
                                    bool(_true(_kw(d, "auto_attribs"))))
            if parts[-1] == "frozen":
                traits.append("frozen")
        else:
            continue
        for opt in ("kw_only", "frozen", "slots"):
            if _true(_kw(d, opt)):
                traits.append(opt)
        if _true(_kw(d, "init")) is False:
            traits.append("no_init")
    bases: list[ClassModel] = []
    open_bases = False
    for b in cls.bases:
        full = full_name(b, imports)
        last = full.split(".")[-1]
        simple = ast.unparse(b.value if isinstance(b, ast.Subscript) else b)
        if simple in known:
            bases.append(known[simple])
            # a subclass declares fields of its own only where the flavour is inherited
            # (a model's, an enum's, a TypedDict's); a dataclass, attrs class or
            # NamedTuple subclass without its own decorator keeps its base's constructor
            if flavour is None and known[simple].flavour in ("pydantic", "enum", "typeddict"):
                flavour = known[simple].flavour
                traits += [t for t in known[simple].traits if t == "flag"]
            open_bases = open_bases or known[simple].open_bases
        elif _is(full, {"NamedTuple"}, ("typing", "typing_extensions")):
            flavour = "namedtuple"
        elif _is(full, {"TypedDict"}, ("typing", "typing_extensions")):
            flavour = "typeddict"
        elif _is(full, {"BaseModel", "BaseSettings"}, ("pydantic", "pydantic_settings")):
            flavour = "pydantic"
        elif _is(full, _ENUM_BASES, ("enum",)):
            flavour = "enum"
            if last in ("Flag", "IntFlag"):
                traits.append("flag")
            if last == "StrEnum":
                opts["str_enum"] = True
        elif last not in _CLOSED_BASES:
            open_bases = True
    if flavour == "typeddict" and any(k.arg == "total" and _true(k.value) is False
                                      for k in cls.keywords):
        opts["total"] = False
    return flavour, list(dict.fromkeys(traits)), opts, bases, open_bases


# --------------------------------------------------------------------------- fields


def _default(w: "_Walker", value: ast.expr | None, flavour: str, imports: dict[str, str]
             ) -> tuple[bool, str | None, set[str], dict]:
    """(is a field declaration, its default text or None when required, field traits,
    options such as alias) of a field's right-hand side."""
    traits: set[str] = set()
    opts: dict = {}
    if value is None:
        return True, None, traits, opts
    if isinstance(value, ast.Call):
        full = full_name(value.func, imports)
        last = full.split(".")[-1]
        spec = None
        if flavour == "dataclass" and _is(full, {"field"}, ("dataclasses", "pydantic")):
            spec = ("default", "default_factory")
        elif flavour == "pydantic" and _is(full, {"Field"}, ("pydantic",)):
            spec = ("default", "default_factory")
            if value.args and not (isinstance(value.args[0], ast.Constant)
                                   and value.args[0].value is Ellipsis):
                return True, w.seg(value.args[0]), traits, _alias(value, opts)
        elif flavour == "attrs" and last in ("ib", "attrib", "field") and \
                full.split(".")[0] in ("attr", "attrs", "ib", "attrib", "field"):
            spec = ("default", "factory")
        if spec is not None:
            _alias(value, opts)
            if _true(_kw(value, "init")) is False:
                traits.add("no_init")
            kw = _true(_kw(value, "kw_only"))
            if kw is not None:
                opts["kw_only"] = kw
            d = _kw(value, spec[0])
            if d is not None:
                if isinstance(d, ast.Call) and full_name(d.func, imports).split(".")[-1] \
                        == "Factory" and d.args:
                    traits.add("factory")
                    return True, (w.seg(d.args[0]) or "") + "()", traits, opts
                if isinstance(d, ast.Constant) and d.value is Ellipsis and flavour == "pydantic":
                    return True, None, traits, opts
                return True, w.seg(d), traits, opts
            f = _kw(value, spec[1])
            if f is not None:
                traits.add("factory")
                return True, (w.seg(f) or "") + "()", traits, opts
            return True, None, traits, opts
    return True, w.seg(value), traits, opts


def _alias(call: ast.Call, opts: dict) -> dict:
    a = _kw(call, "alias")
    if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.isidentifier():
        opts["alias"] = a.value
    return opts


def _ann_head(w: "_Walker", ann: ast.expr, imports: dict[str, str]) -> str:
    return full_name(ann, imports).split(".")[-1]


def refine(w: "_Walker", cls: ast.ClassDef, q: tuple[str, ...], at: int,
           known: dict[str, ClassModel]) -> ClassModel:
    """Rewrite the symbols of class `q` (its own symbol is `w.syms[at]`, its members
    follow) with what the class generates; returns its model for classes derived from
    it in the same file."""
    imports = import_map(w)
    flavour, ctraits, opts, bases, open_bases = flavour_of(cls, imports, known)
    model = ClassModel(flavour, tuple(ctraits), open_bases=open_bases)
    _methods(w, q, _own(w, q, at), imports)
    own = _own(w, q, at)
    _function_aliases(w, cls, own)
    by_line: dict[int, int] = {}
    for i, s in own.items():
        by_line.setdefault(s.start, i)
    if flavour == "enum":
        _enum(w, cls, by_line, opts, model)
    elif flavour is not None:
        _fields(w, cls, q, own, by_line, flavour, ctraits, opts, bases, imports, model)
    _slots(w, cls, q, own, model)
    traits = tuple(dict.fromkeys(([flavour] if flavour else []) + list(model.traits)))
    w.syms[at] = replace(w.syms[at], traits=traits)
    return model


def _own(w: "_Walker", q: tuple[str, ...], at: int) -> dict[int, Sym]:
    return {i: s for i, s in enumerate(w.syms) if i > at and s.qual[:-1] == q}


def _fields(w, cls, q, own, by_line, flavour, ctraits, opts, bases, imports, model) -> None:
    kw_all = "kw_only" in ctraits
    after_marker = False
    params: list[tuple[Param, bool]] = []          # (parameter, keyword-only)
    for b in bases:
        params += [(p, p.kind == KEYWORD_ONLY) for p in b.fields]
    auto = opts.get("auto_attribs")
    if flavour == "attrs" and auto is None:
        # `@define`: annotated names are fields unless some `field()` is unannotated
        auto = not any(isinstance(st, ast.Assign) and isinstance(st.value, ast.Call)
                       and full_name(st.value.func, imports).split(".")[-1] in ("ib", "attrib", "field")
                       for st in cls.body)
    for st in cls.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            name, ann, value = st.target.id, st.annotation, st.value
        elif flavour == "attrs" and not auto and isinstance(st, ast.Assign) and \
                len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) and \
                isinstance(st.value, ast.Call) and \
                full_name(st.value.func, imports).split(".")[-1] in ("ib", "attrib", "field"):
            name, ann, value = st.targets[0].id, None, st.value
        else:
            continue
        i = by_line.get(st.lineno)
        if i is None or w.syms[i].name != name:
            i = next((j for j, s in own.items() if s.name == name and s.start == st.lineno), None)
        head = _ann_head(w, ann, imports) if ann is not None else ""
        if head == "ClassVar":
            if i is not None:
                w.syms[i] = replace(w.syms[i], kind="attribute", traits=("classvar",))
            continue
        if head == "KW_ONLY" and flavour == "dataclass":
            after_marker = True
            if i is not None:
                w.syms[i] = replace(w.syms[i], kind="attribute", traits=("kw_only",))
            continue
        if flavour == "attrs" and ann is not None and not auto and isinstance(st, ast.AnnAssign):
            continue
        if flavour == "pydantic" and (name.startswith("_") or name == "model_config"):
            if i is not None:
                w.syms[i] = replace(w.syms[i], kind="attribute")
            continue
        ok, default, ftraits, fopts = _default(w, value, flavour, imports)
        if not ok:
            continue
        if head == "InitVar":
            ftraits.add("initvar")
        if flavour == "typeddict" and (opts.get("total") is False and head != "Required"
                                       or head == "NotRequired"):
            ftraits.add("not_required")
        kw = (fopts["kw_only"] if "kw_only" in fopts else (kw_all or after_marker))
        if flavour == "pydantic":
            kw = True
        if kw and flavour in ("dataclass", "attrs"):
            ftraits.add("kw_only")
        pname = fopts.get("alias") or (name.lstrip("_") if flavour == "attrs" else name)
        p = Param(pname, default, w.seg(ann) if ann is not None else None,
                  KEYWORD_ONLY if kw else POSITIONAL_OR_KEYWORD, st.lineno)
        if i is not None:
            w.syms[i] = replace(w.syms[i], kind="field", value=default,
                                params=(replace(p, name=name),), traits=tuple(sorted(ftraits)))
        if "no_init" not in ftraits:
            params = [x for x in params if x[0].name != pname] + [(p, kw)]
    model.fields = [p for p, _ in params]
    if flavour not in GENERATED_INIT or "no_init" in ctraits:
        return
    if any(s.name == "__init__" for s in own.values()) or \
            (flavour == "namedtuple" and any(s.name == "__new__" for s in own.values())):
        return
    ordered = [p for p, kw in params if not kw] + [p for p, kw in params if kw]
    if flavour == "pydantic" and _extra_allowed(cls):
        ordered.append(Param("**extra_data", None, "Any", VAR_KEYWORD, None))
    last = max([cls.lineno] + [p.line or 0 for p in ordered])
    start = min([cls.lineno] + [d.lineno for d in cls.decorator_list])
    traits = ["generated", flavour] + (["open_bases"] if model.open_bases else [])
    w.add(name="__init__", kind="method", qual=q + ("__init__",), start=start, end=last,
          params=tuple(ordered), origin="generated", sig_end=last, traits=tuple(traits),
          line=cls.lineno)


def _extra_allowed(cls: ast.ClassDef) -> bool:
    for st in cls.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if any(isinstance(t, ast.Name) and t.id == "model_config" for t in targets):
                extra = _kw(st.value, "extra") if st.value is not None else None
                if isinstance(st.value, ast.Dict):
                    for k, v in zip(st.value.keys, st.value.values, strict=True):
                        if isinstance(k, ast.Constant) and k.value == "extra":
                            extra = v
                return isinstance(extra, ast.Constant) and extra.value == "allow"
    return False


# --------------------------------------------------------------------------- enums


def _enum(w, cls, by_line, opts, model) -> None:
    values: list = []
    flag = "flag" in model.traits
    ignore: set[str] = set()
    for st in cls.body:
        if isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_ignore_"
                                              for t in st.targets):
            ignore = set(literal_strings(st.value) or [])
    for st in cls.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            name, value = st.targets[0].id, st.value
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name) and st.value:
            name, value = st.target.id, st.value
        else:
            continue
        if name.startswith("_") and name.endswith("_") or name.startswith("__") or name in ignore:
            continue
        if isinstance(value, (ast.Lambda,)):
            continue
        i = by_line.get(st.lineno)
        if i is None or w.syms[i].name != name:
            continue
        text, traits = w.seg(value), ()
        if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "auto" \
                and not value.args:
            traits = ("auto",)
            text = _auto(name, values, flag, opts.get("str_enum", False)) or text
        try:
            values.append(ast.literal_eval(text) if text is not None else None)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            values.append(None)
        w.syms[i] = replace(w.syms[i], kind="enumerator", value=text, traits=traits)


def _auto(name: str, values: list, flag: bool, str_enum: bool) -> str | None:
    """The value `auto()` takes at run time (None when it cannot be known statically)."""
    if str_enum:
        return repr(name.lower())
    if any(not isinstance(v, int) or isinstance(v, bool) for v in values):
        return None
    if not values:
        return "1"
    top = max(values)
    if flag:
        return str(2 ** top.bit_length()) if top >= 0 else None
    return str(top + 1)


# --------------------------------------------------------------------------- members


def _methods(w, q, own, imports) -> None:
    """Properties (one attribute each), overloads, static and class methods."""
    seen: dict[str, int] = {}
    drop: list[int] = []
    for i, s in sorted(own.items()):
        if s.kind != "method":
            continue
        lasts = [full_name_text(d, imports).split(".")[-1] for d in s.decorators]
        # `@x.setter`, or `@Base.x.setter` (a property of a base class given a setter)
        accessor = next((d.split(".")[-1] for d in s.decorators
                         if (d.startswith(f"{s.name}.") or f".{s.name}." in d)
                         and d.split(".")[-1] in ("setter", "deleter", "getter")), None)
        if accessor and s.name not in seen and not s.decorators[0].startswith(f"{s.name}."):
            w.syms[i] = replace(w.syms[i], kind="attribute", params=None,
                                traits=("property",) + (("settable",) if accessor == "setter"
                                                        else ()))
            seen[s.name] = i
            continue
        if accessor and s.name in seen:
            j = seen[s.name]
            extra = ("settable",) if accessor == "setter" else ()
            w.syms[j] = replace(w.syms[j], end=max(w.syms[j].end, s.end),
                                traits=tuple(dict.fromkeys(w.syms[j].traits + extra)))
            drop.append(i)
            continue
        prop = next((x for x in lasts if x in _PROPERTY), None)
        if prop is not None:
            kind = "cached_property" if prop == "cached_property" else "property"
            w.syms[i] = replace(w.syms[i], kind="attribute", params=None, traits=(kind,))
            seen[s.name] = i
            continue
        traits = [t for t in ("overload", "staticmethod", "classmethod") if t in lasts]
        if any(x in _VALIDATORS for x in lasts):
            traits.append("validator")
        if traits:
            w.syms[i] = replace(w.syms[i], traits=tuple(traits))
    for i in sorted(drop, reverse=True):
        del w.syms[i]


def _function_aliases(w, cls, own) -> None:
    """`evaluate = _evaluate_impl` in a class body, naming a function of the module: a
    method at run time (a function in the class namespace), not a data attribute."""
    funcs = {s.name for s in w.syms if len(s.qual) == 1 and s.kind == "function"}
    if not funcs:
        return
    for st in cls.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                isinstance(st.targets[0], ast.Name) and isinstance(st.value, ast.Name) and \
                st.value.id in funcs:
            for i, s in own.items():
                if s.name == st.targets[0].id and s.start == st.lineno and s.kind == "attribute":
                    w.syms[i] = replace(s, kind="method")


def full_name_text(text: str, imports: dict[str, str]) -> str:
    head, _, rest = text.partition(".")
    target = imports.get(head)
    return (f"{target}.{rest}" if rest else target) if target else text


def _slots(w, cls, q, own, model) -> None:
    names = {s.name for s in own.values()}
    for st in cls.body:
        if not (isinstance(st, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                   for t in st.targets)):
            continue
        v = st.value
        slots = [v.value] if isinstance(v, ast.Constant) and isinstance(v.value, str) else \
            (literal_strings(v) or [])
        for name in slots:
            if name.isidentifier() and name not in names and name not in ("__dict__",
                                                                          "__weakref__"):
                names.add(name)
                w.add(name=name, kind="attribute", qual=q + (name,), start=st.lineno,
                      end=getattr(st, "end_lineno", st.lineno) or st.lineno, traits=("slot",))
        model.traits = tuple(dict.fromkeys(model.traits + ("slots",)))

