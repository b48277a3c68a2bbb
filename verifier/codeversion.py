"""Code versions for cache keys: a digest of the code a cached value depends on.

`code_version("verifier.facts.symbols")` hashes every file of that module's import
closure inside the `verifier` package - module-level and function-local imports,
parent packages' `__init__.py` (they run on import) - plus the data files the
closure loads (a module whose text names `.scm` files brings every `*.scm` below its
directory). Imports under `if TYPE_CHECKING:` are not followed: they never run.

Nothing is hand-listed, so an edit anywhere a value's code reaches (the tree-sitter
plumbing under the symbol index, `textlines.py` under the `text` kind) changes the
key of every entry it could have changed, and nothing else.

Imports are found with a line scanner (an `ast` parse of the package costs ~0.14 s,
more than a warm check may spend); `tests/speed/test_codeversion.py` holds it equal
to an `ast` walk over the whole package, so a form it misses fails the suite. The
scan of the package's files (~50 ms for a command's closure here) is itself kept in
the fact cache (`attach`, called when a store's fact cache opens) by the digest of
every file of the package and of this module: one entry read instead of a scan, and
any edit anywhere in the package scans it again.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.facts.cache import FactCache

PKG = Path(__file__).resolve().parent          # the `verifier` package directory
TOP = PKG.name
FORMAT = 1                                       # bump when the digest's inputs change

# one pass: triple-quoted strings and `if TYPE_CHECKING:` blocks are matched (and
# skipped) so that text inside them is never taken for an import
_TOKENS = re.compile(
    r'(?P<str>"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\')'
    r"|(?P<tc>^(?P<ind>[ \t]*)if\s+(?:typing\.)?TYPE_CHECKING\s*:[^\n]*\n"
    r"(?:(?P=ind)[ \t]+[^\n]*\n|[ \t]*\n)*)"
    r"|^[ \t]*from[ \t]+(?P<base>\.*[\w.]*)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[^\n]*(?:\\\n[^\n]*)*)"
    r"|^[ \t]*import[ \t]+(?P<mods>[^\n]*)", re.M)


@cache
def _module_file(root: str, dotted: str) -> str | None:
    """The file of a module (absolute path string), or None."""
    parts = dotted.split(".")
    if parts[0] != TOP:   # a module outside the package (a plugin kind): its own file only
        mod = sys.modules.get(dotted)
        f = getattr(mod, "__file__", None) if mod is not None and len(parts) > 1 else None
        return os.path.realpath(f) if f and f.endswith(".py") and os.path.isfile(f) else None
    base = os.path.join(root, *parts[1:])
    if os.path.isfile(init := os.path.join(base, "__init__.py")):
        return init
    return base + ".py" if os.path.isfile(base + ".py") else None


def _resolve(root: Path | str, path: Path | str, target: str) -> str:
    """Absolute dotted name of a (possibly relative) `from` target."""
    level = len(target) - len(target.lstrip("."))
    if not level:
        return target
    root, path = str(root), str(path)
    if not path.startswith(root + os.sep):
        return ""            # relative import of a module outside the package: not followed
    rel = path[len(root) + 1:-3].split(os.sep)       # without ".py"
    pkg = [TOP, *rel[:-1]]                            # a module's package, or the package itself
    base = pkg[:len(pkg) - (level - 1)]
    rest = target[level:]
    return ".".join(base + ([rest] if rest else []))


def scan_imports(root: Path, path: Path, text: str) -> set[str]:
    """Dotted names of the `verifier` modules a file imports (outside TYPE_CHECKING)."""
    out: set[str] = set()
    for m in _TOKENS.finditer(text):
        if m.group("base") is not None:
            base = _resolve(root, path, m.group("base"))
            if base.split(".")[0] != TOP:
                continue
            out.add(base)
            names = m.group("names").replace("\\\n", " ").strip("() \n")
            for item in re.split(r"[,\n]", names):
                name = item.split("#")[0].strip().split(" as ")[0].strip()
                if name and name != "*" and _module_file(str(root), f"{base}.{name}") is not None:
                    out.add(f"{base}.{name}")
        elif m.group("mods") is not None:
            for item in m.group("mods").split("#")[0].split(","):
                name = item.strip().split(" as ")[0].strip()
                if name.split(".")[0] == TOP:
                    out.add(name)
    return out


def _with_parents(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _scan(root: str, f: str) -> tuple[list[str], bool]:
    """A file's imports (sorted) and whether it names `.scm` files."""
    with open(f, encoding="utf-8") as fh:
        text = fh.read()
    return sorted(scan_imports(root, f, text)), ".scm" in text


# the scans of a package's files, by root, from the fact cache (`attach`)
_TABLES: dict[str, dict[str, list]] = {}
TABLE = "code-imports"       # the fact cache's section for the scan table


def attach(fc: "FactCache", root: Path | str = PKG) -> None:
    """Take the scans of `root`'s files from the fact cache `fc` (scanning and storing
    them all when it has none for the package as it is now): an entry keyed by the
    digest of every `.py` file of the package and of this module."""
    r = str(root)
    if r in _TABLES or not fc.enabled:
        return
    files = sorted(glob.glob(os.path.join(r, "**", "*.py"), recursive=True))
    cut = len(r) + 1
    h = hashlib.sha256(f"format={FORMAT}".encode())
    for f in files:
        h.update(f[cut:].encode() + b"\0" + _file_digest(f))
    me = _file_digest(os.path.realpath(__file__))
    _TABLES[r] = fc.get_or_build(
        TABLE, me.hex()[:24], h.hexdigest(),
        lambda: {f[cut:]: list(_scan(r, f)) for f in files}, load=_table_of)


def _table_of(plain: dict) -> dict[str, list]:
    if not isinstance(plain, dict) or not all(
            isinstance(v, list) and len(v) == 2 and isinstance(v[1], bool)
            and all(isinstance(d, str) for d in v[0]) for v in plain.values()):
        raise ValueError("not an import table")
    return plain


@cache
def _file_deps(root: str, f: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """A file's imports, and the data files it loads (once per process)."""
    table = _TABLES.get(root)
    got = table.get(f[len(root) + 1:]) if table is not None and f.startswith(root + os.sep) \
        else None
    deps, scm = got if got is not None else _scan(root, f)
    data = ()
    if scm:
        data = tuple(sorted(glob.glob(os.path.join(os.path.dirname(f), "**", "*.scm"),
                                      recursive=True)))
    return frozenset(deps), data


@cache
def closure(*modules: str, root: Path = PKG) -> tuple[str, ...]:
    """Package-relative paths of every file `modules` depend on, sorted (files outside
    the package, of a plugin module, by absolute path)."""
    r = str(root)
    seen: set[str] = set()
    names: set[str] = set()
    todo = [m for mod in modules for m in _with_parents(mod)]
    while todo:
        name = todo.pop()
        if name in names:
            continue
        names.add(name)
        f = _module_file(r, name)
        if f is None or f in seen:
            continue
        seen.add(f)
        deps, data = _file_deps(r, f)
        todo.extend(d for dep in deps for d in _with_parents(dep) if d not in names)
        seen.update(data)
    cut = len(r) + 1
    return tuple(sorted(f[cut:].replace(os.sep, "/") if f.startswith(r + os.sep) else f
                        for f in seen))


@cache
def _file_digest(f: str) -> bytes:
    with open(f, "rb") as fh:
        return hashlib.sha256(fh.read()).digest()


@cache
def code_version(*modules: str, root: Path = PKG) -> str:
    """Digest of the import closure of `modules` (dotted names inside `verifier`)."""
    r = str(root)
    unknown = [m for m in modules if _module_file(r, m) is None]
    if unknown:
        raise ValueError(f"no source file for module {', '.join(unknown)}")
    h = hashlib.sha256(f"format={FORMAT}".encode())
    for rel in closure(*modules, root=root):
        h.update(rel.encode() + b"\0")
        h.update(_file_digest(os.path.join(r, rel)))      # an absolute path stays absolute
    return h.hexdigest()[:24]


def clear() -> None:
    """Forget computed versions (tests that edit a copy of the package)."""
    _TABLES.clear()
    _module_file.cache_clear()
    _file_deps.cache_clear()
    _file_digest.cache_clear()
    closure.cache_clear()
    code_version.cache_clear()
