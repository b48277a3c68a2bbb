"""The release surface's introspection script (`facts/release.py` runs it).

Runs INSIDE an upstream's pinned runtime environment, as a file, in isolated
mode: `python -I introspect.py ROOTS_JSON OUT_JSON [EXTRA_PATHS_JSON]`. It must
not import `verifier` (it is not installed there): standard library only.

For each root package (`pydrake`, `mujoco`, `newton`) it walks the public
modules (names without a leading `_`; tests (`*_test`, `test_*`), examples and
tutorials skipped),
importing each; for every public name of a module (`dir()`, so a module's
`__dir__` / `__getattr__` re-exports count): its kind (module, class, function,
variable) and, for classes, their public members (methods, properties and
attributes, enum values, nested classes one level down) with signatures where
`inspect` can read them. A class is described once, where it is first met.

Output: {"modules": [{"module": name, "names": [[name, kind, params, members, extra]],
"all": [...]}], "errors": {module: "ExcType: message"}}; `params` is a list of [name,
default repr, kind] (`*args`/`**kwargs` keep their stars) or null; `extra` holds
`traits` (the words of `facts/model.TRAITS`: a class's flavour, `property`,
`generated`, `lazy`, `inherited`, ...) and `value` (a field's default, an enum
member's value, where a class or function is defined as `module:qualname`, the module
an alias binds).

The same constructs as the static producer (`facts/pyclass.py`), read the way the
runtime knows them: a class's own fields from `__dataclass_fields__`,
`__pydantic_fields__`, `__attrs_attrs__`, `_fields` or `__annotations__` (own members
first, in definition order), its constructor from `inspect.signature(cls)` when it is
generated, enum members from `__members__`, properties, cached properties, slots,
static and class methods, `typing.get_overloads`; module names from `dir()` and
`__all__` (lazy names a module's `__dir__` omits), a name not in the module's
namespace before it is read is `lazy`.

`python -I introspect.py --docs TARGETS_FILE OUT_JSON [EXTRA_PATHS_JSON]`: the
docstrings of the named objects only (TARGETS_FILE: a JSON list of [module,
name, member...]); output {"module:name.member": doc or null}.
"""

import enum
import functools
import importlib
import inspect
import json
import pkgutil
import sys
import typing
import warnings

SKIP = {"tests", "test", "testing", "examples", "example", "tutorials", "benchmarks",
        "benchmark", "conftest", "__main__"}
_STARS = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}

seen_classes: set[int] = set()


def short_repr(v: object) -> str:
    try:
        r = repr(v)
    except Exception:  # noqa: BLE001 - any repr failure
        r = "<?>"
    return r if len(r) <= 200 else r[:197] + "..."


def params(obj: object, drop_first: bool) -> list | None:
    try:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError, RuntimeError):
        return None
    return _param_rows(sig, drop_first)


def _param_rows(sig: inspect.Signature, drop_first: bool) -> list:
    ps = [[_STARS.get(p.kind.name, "") + p.name,
           None if p.default is p.empty else short_repr(p.default), p.kind.name.lower()]
          for p in sig.parameters.values()]
    return ps[1:] if drop_first and ps and not ps[0][0].startswith("*") else ps


def _defined(obj: object) -> str | None:
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{mod}:{qual}" if isinstance(mod, str) and isinstance(qual, str) else None


# --------------------------------------------------------------------------- flavours


def flavour(cls: type) -> tuple[str | None, list[str]]:
    """The class's flavour and class traits, as `facts/pyclass.py` names them."""
    own = vars(cls)
    if isinstance(cls, enum.EnumMeta):
        return "enum", (["flag"] if issubclass(cls, enum.Flag) else [])
    if "__dataclass_params__" in own:
        p = own["__dataclass_params__"]
        traits = [t for t in ("kw_only", "frozen") if getattr(p, t, False)]
        if "__slots__" in own:
            traits.append("slots")
        if not getattr(p, "init", True):
            traits.append("no_init")
        return "dataclass", traits
    if "__attrs_attrs__" in own:
        return "attrs", (["slots"] if "__slots__" in own else [])
    if isinstance(getattr(cls, "__pydantic_fields__", None), dict) and \
            any(b.__name__ == "BaseModel" for b in cls.__mro__):
        return "pydantic", []
    if issubclass(cls, tuple) and "_fields" in own:
        return "namedtuple", []
    if typing.is_typeddict(cls):
        return "typeddict", []
    return None, (["slots"] if "__slots__" in own else [])


def _factory(f: object) -> str:
    return f"{getattr(f, '__qualname__', None) or short_repr(f)}()"


def fields(cls: type, kind: str | None) -> list:
    """[[name, kind, default, traits]] of the class's own fields, in order."""
    ann = vars(cls).get("__annotations__", {}) or {}
    out = []
    if kind == "dataclass":
        import dataclasses

        for f in vars(cls)["__dataclass_fields__"].values():
            if f.name not in ann:
                continue          # inherited
            ftype = getattr(f, "_field_type", None)
            ftype = getattr(ftype, "name", str(ftype))
            traits = []
            if ftype == "_FIELD_CLASSVAR":
                out.append([f.name, "attribute", None, ["classvar"]])
                continue
            if ftype == "_FIELD_INITVAR":
                traits.append("initvar")
            if getattr(f, "kw_only", False) is True:
                traits.append("kw_only")
            if not f.init:
                traits.append("no_init")
            default = None
            if f.default is not dataclasses.MISSING:
                default = short_repr(f.default)
            elif f.default_factory is not dataclasses.MISSING:
                traits.append("factory")
                default = _factory(f.default_factory)
            out.append([f.name, "field", default, sorted(traits)])
    elif kind == "pydantic":
        for name, fi in getattr(cls, "__pydantic_fields__", {}).items():
            if name not in ann:
                continue
            traits, default = [], None
            if getattr(fi, "default_factory", None) is not None:
                traits.append("factory")
                default = _factory(fi.default_factory)
            elif not fi.is_required():
                default = short_repr(fi.default)
            out.append([name, "field", default, traits])
    elif kind == "attrs":
        for a in vars(cls)["__attrs_attrs__"]:
            if getattr(a, "inherited", False):
                continue
            traits, default = [], None
            d = a.default
            if type(d).__name__ == "Factory":
                traits.append("factory")
                default = _factory(d.factory)
            elif repr(d) != "NOTHING":
                default = short_repr(d)
            if a.kw_only:
                traits.append("kw_only")
            if not a.init:
                traits.append("no_init")
            out.append([a.name, "field", default, sorted(traits)])
    elif kind == "namedtuple":
        defaults = getattr(cls, "_field_defaults", {})
        for name in cls._fields:
            out.append([name, "field", short_repr(defaults[name]) if name in defaults else None,
                        []])
    elif kind == "typeddict":
        optional = getattr(cls, "__optional_keys__", frozenset())
        for name in ann:
            out.append([name, "field", None, ["not_required"] if name in optional else []])
    return out


def constructor(cls: type, kind: str | None) -> list | None:
    """The `__init__` row: written in the class, or generated from its fields."""
    own = vars(cls).get("__init__")
    code = getattr(own, "__code__", None)
    # written in this class's body: a real file, and named as the class's own method
    # (typing puts its own `__init__` on a Protocol; dataclasses and attrs compile theirs)
    written = code is not None and not code.co_filename.startswith("<") and \
        getattr(own, "__qualname__", "") == f"{cls.__qualname__}.__init__"
    if kind in ("dataclass", "pydantic", "attrs", "namedtuple") and not written:
        if kind == "dataclass" and not vars(cls)["__dataclass_params__"].init:
            return None
        try:
            sig = inspect.signature(cls)
        except (TypeError, ValueError, RuntimeError):
            return None
        return ["__init__", "method", _param_rows(sig, False), None,
                {"traits": ["generated", kind]}]
    if own is not None and written:
        return ["__init__", "method", params(own, True), None, {}]
    return None


# --------------------------------------------------------------------------- members


def member(cls: type, name: str, depth: int, inherited: bool = False) -> list:
    try:
        raw = inspect.getattr_static(cls, name)
    except Exception:  # noqa: BLE001
        raw = None
    try:
        val = getattr(cls, name)
    except Exception:  # noqa: BLE001
        val = raw
    sub, ps, extra = None, None, {}
    traits: list[str] = ["inherited"] if inherited else []
    if isinstance(raw, property):
        kind = "attribute"
        traits.append("property")
        if raw.fset is not None:
            traits.append("settable")
    elif isinstance(raw, functools.cached_property):
        kind = "attribute"
        traits.append("cached_property")
    elif type(raw).__name__ == "member_descriptor":
        kind = "attribute"
        traits.append("slot")
    elif type(raw).__name__ == "getset_descriptor" \
            or (raw is not None and hasattr(raw, "fget") and hasattr(raw, "fset")):
        kind = "attribute"
    elif isinstance(val, type):
        kind = "class"
        if depth < 2 and id(val) not in seen_classes:
            seen_classes.add(id(val))
            sub = members(val, depth + 1)
            extra = class_extra(val)
    elif isinstance(val, cls):
        kind = "enumerator"      # pybind11 / Python enum values are instances of the class
        if isinstance(val, enum.Enum):
            extra["value"] = short_repr(val.value)
    elif callable(val):
        kind = "constructor" if name == "__init__" else "method"
        static = isinstance(raw, (staticmethod, classmethod))
        if isinstance(raw, staticmethod):
            traits.append("staticmethod")
        elif isinstance(raw, classmethod):
            traits.append("classmethod")
        ps = params(val, not static and inspect.isfunction(raw))
    else:
        kind = "attribute"
    if traits:
        extra["traits"] = extra.get("traits", []) + traits
    return [name, kind, ps, sub, extra]


def _overloads(cls: type, name: str) -> list:
    raw = vars(cls).get(name)
    fn = getattr(raw, "__func__", raw)
    try:
        found = typing.get_overloads(fn) if callable(fn) else []
    except Exception:  # noqa: BLE001
        found = []
    drop = not isinstance(raw, staticmethod)
    rows = []
    for o in found:
        try:
            ps = _param_rows(inspect.signature(o), drop)
        except (TypeError, ValueError):
            ps = None
        rows.append([name, "method", ps, None, {"traits": ["overload"]}])
    return rows


def members(cls: type, depth: int) -> list:
    """Own members first, in definition order (fields, the constructor, enum members,
    then the rest of the class body), then inherited public names (trait `inherited`)."""
    try:
        names = sorted(set(dir(cls)))
    except Exception:  # noqa: BLE001
        return []
    kind, _ = flavour(cls)
    out: list = []
    done: set[str] = set()
    for name, fkind, default, traits in fields(cls, kind):
        extra = {"traits": traits} if traits else {}
        if default is not None:
            extra["value"] = default
        out.append([name, fkind, None, None, extra])
        done.add(name)
    ctor = constructor(cls, kind)
    if ctor is not None:
        out.append(ctor)
    done.add("__init__")
    if kind == "enum":
        for name, m in cls.__members__.items():
            out.append([name, "enumerator", None, None, {"value": short_repr(m.value)}])
            done.add(name)
    for name in list(vars(cls)):
        if name in done or name.startswith("_"):
            continue
        done.add(name)
        try:
            out += _overloads(cls, name)
            out.append(member(cls, name, depth))
        except Exception:  # noqa: BLE001 - a member that cannot be read is still a name
            out.append([name, "attribute", None, None, {}])
    for name in names:
        if name in done or name.startswith("_"):
            continue
        try:
            out.append(member(cls, name, depth, inherited=True))
        except Exception:  # noqa: BLE001
            out.append([name, "attribute", None, None, {"traits": ["inherited"]}])
    return out


def class_extra(cls: type) -> dict:
    kind, traits = flavour(cls)
    extra: dict = {"value": _defined(cls)}
    if kind or traits:
        extra["traits"] = ([kind] if kind else []) + traits
    return extra


def binding(mod: object, modname: str, name: str, queue: list[str], done: set[str]) -> list:
    lazy = name not in vars(mod)
    val = getattr(mod, name)
    extra: dict = {"traits": ["lazy"]} if lazy else {}
    if inspect.ismodule(val):
        sub = getattr(val, "__name__", "")
        if sub == f"{modname}.{name}" and sub not in done:
            queue.append(sub)
        if isinstance(sub, str) and sub != f"{modname}.{name}":
            extra["value"] = sub          # `import a.b as c`: the module bound
        return [name, "module", None, None, extra]
    if inspect.isclass(val):
        m = None
        if id(val) not in seen_classes:
            seen_classes.add(id(val))
            m = members(val, 1)
        e = class_extra(val)
        e["traits"] = e.get("traits", []) + extra.get("traits", [])
        return [name, "class", None, m, e]
    if callable(val):
        return [name, "function", params(val, False), None,
                {**extra, "value": _defined(val)} if _defined(val) else extra]
    return [name, "variable", None, None, extra]


def describe(mod: object, modname: str, queue: list[str], done: set[str]) -> list:
    try:
        names = set(dir(mod))
    except Exception:  # noqa: BLE001
        names = set()
    exported = getattr(mod, "__all__", None)
    if isinstance(exported, (list, tuple)):
        names |= {n for n in exported if isinstance(n, str)}   # lazy names `__dir__` omits
    rows = []
    for name in sorted(names):
        if name.startswith("_"):
            continue
        try:
            rows.append(binding(mod, modname, name, queue, done))
        except Exception:  # noqa: BLE001 - a lazy attribute that fails to load: skipped
            continue
    return rows


def skipped(modname: str) -> bool:
    parts = modname.split(".")
    return any(p in SKIP or (i and p.startswith("_")) or p.endswith("_test")
               or p.startswith("test_") for i, p in enumerate(parts))


def walk(roots: list[str]) -> dict:
    result, errors, done = [], {}, set()
    for root in roots:
        queue = [root]
        while queue:
            modname = queue.pop(0)
            if modname in done or skipped(modname):
                continue
            done.add(modname)
            try:
                mod = importlib.import_module(modname)
            except BaseException as exc:  # noqa: BLE001 - SystemExit from a module, too
                errors[modname] = f"{type(exc).__name__}: {str(exc)[:200]}"
                continue
            entry = {"module": modname, "names": describe(mod, modname, queue, done)}
            exported = getattr(mod, "__all__", None)
            if isinstance(exported, (list, tuple)) and all(isinstance(n, str) for n in exported):
                entry["all"] = list(exported)
            result.append(entry)
            path = getattr(mod, "__path__", None)
            if path:
                try:
                    subs = sorted(m.name for m in pkgutil.iter_modules(path))
                except Exception:  # noqa: BLE001
                    subs = []
                queue.extend(f"{modname}.{s}" for s in subs if f"{modname}.{s}" not in done)
    return {"modules": result, "errors": errors}


def docs_of(targets: list) -> dict:
    """The docstring (`inspect.getdoc`, at most 8,000 characters) of each target."""
    out = {}
    for target in targets:
        mod, qual = target[0], list(target[1:])
        try:
            obj = importlib.import_module(mod)
            for name in qual:
                obj = getattr(obj, name)
            doc = inspect.getdoc(obj)
        except BaseException:  # noqa: BLE001 - an object that cannot be reached has no doc
            doc = None
        out[mod + ":" + ".".join(qual)] = None if doc is None else doc[:8000]
    return out


def main(argv: list[str]) -> int:
    warnings.simplefilter("ignore")
    if argv[1] == "--docs":
        if len(argv) > 4:
            sys.path[:0] = json.loads(argv[4])
        with open(argv[2], encoding="utf-8") as fh:
            data = docs_of(json.load(fh))
        with open(argv[3], "w", encoding="utf-8") as fh:
            json.dump(data, fh, sort_keys=True)
        return 0
    roots, out_path = json.loads(argv[1]), argv[2]
    if len(argv) > 3:
        sys.path[:0] = json.loads(argv[3])
    data = walk(roots)
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
