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

Output: {"modules": [{"module": name, "names": [[name, kind, params, members]]}],
"errors": {module: "ExcType: message"}}; `params` is a list of [name, default
repr, kind] (`*args`/`**kwargs` keep their stars) or null.

`python -I introspect.py --docs TARGETS_FILE OUT_JSON [EXTRA_PATHS_JSON]`: the
docstrings of the named objects only (TARGETS_FILE: a JSON list of [module,
name, member...]); output {"module:name.member": doc or null}.
"""

import importlib
import inspect
import json
import pkgutil
import sys
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
    ps = [[_STARS.get(p.kind.name, "") + p.name,
           None if p.default is p.empty else short_repr(p.default), p.kind.name.lower()]
          for p in sig.parameters.values()]
    return ps[1:] if drop_first and ps and not ps[0][0].startswith("*") else ps


def member(cls: type, name: str, depth: int) -> list:
    try:
        raw = inspect.getattr_static(cls, name)
    except Exception:  # noqa: BLE001
        raw = None
    try:
        val = getattr(cls, name)
    except Exception:  # noqa: BLE001
        val = raw
    sub, ps = None, None
    if isinstance(raw, property) or type(raw).__name__ in ("getset_descriptor",
                                                           "member_descriptor") \
            or (raw is not None and hasattr(raw, "fget") and hasattr(raw, "fset")):
        kind = "attribute"
    elif isinstance(val, type):
        kind = "class"
        if depth < 2 and id(val) not in seen_classes:
            seen_classes.add(id(val))
            sub = members(val, depth + 1)
    elif isinstance(val, cls):
        kind = "enumerator"      # pybind11 / Python enum values are instances of the class
    elif callable(val):
        kind = "constructor" if name == "__init__" else "method"
        static = isinstance(raw, (staticmethod, classmethod))
        ps = params(val, not static and inspect.isfunction(raw))
    else:
        kind = "attribute"
    return [name, kind, ps, sub]


def members(cls: type, depth: int) -> list:
    try:
        names = sorted(set(dir(cls)))
    except Exception:  # noqa: BLE001
        return []
    out = []
    for name in names:
        if name.startswith("_") and name != "__init__":
            continue
        try:
            out.append(member(cls, name, depth))
        except Exception:  # noqa: BLE001 - a member that cannot be read is still a name
            out.append([name, "attribute", None, None])
    return out


def binding(mod: object, modname: str, name: str, queue: list[str], done: set[str]) -> list:
    val = getattr(mod, name)
    if inspect.ismodule(val):
        sub = getattr(val, "__name__", "")
        if sub == f"{modname}.{name}" and sub not in done:
            queue.append(sub)
        return [name, "module", None, None]
    if inspect.isclass(val):
        m = None
        if id(val) not in seen_classes:
            seen_classes.add(id(val))
            m = members(val, 1)
        return [name, "class", None, m]
    if callable(val):
        return [name, "function", params(val, False), None]
    return [name, "variable", None, None]


def describe(mod: object, modname: str, queue: list[str], done: set[str]) -> list:
    try:
        names = sorted(set(dir(mod)))
    except Exception:  # noqa: BLE001
        names = []
    rows = []
    for name in names:
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
            result.append({"module": modname, "names": describe(mod, modname, queue, done)})
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
