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
to an `ast` walk over the whole package, so a form it misses fails the suite.
"""

from __future__ import annotations

import hashlib
import re
import sys
from functools import cache
from pathlib import Path

PKG = Path(__file__).resolve().parent          # the `verifier` package directory
TOP = PKG.name
FORMAT = 1                                       # bump when the digest's inputs change

_TC_BLOCK = re.compile(r"^([ \t]*)if\s+(?:typing\.)?TYPE_CHECKING\s*:[^\n]*\n((?:\1[ \t]+[^\n]*\n|[ \t]*\n)*)",
                       re.M)
_STRINGS = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'')
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*(?:\\\n[^\n]*)*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]*)", re.M)


@cache
def _module_file(root: Path, dotted: str) -> Path | None:
    parts = dotted.split(".")
    if parts[0] != TOP:   # a module outside the package (a plugin kind): its own file only
        mod = sys.modules.get(dotted)
        f = getattr(mod, "__file__", None) if mod is not None and len(parts) > 1 else None
        return Path(f).resolve() if f and f.endswith(".py") and Path(f).is_file() else None
    base = root.joinpath(*parts[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    f = base.with_suffix(".py")
    return f if f.is_file() else None


def _package_of(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = [TOP, *rel.parts]
    if parts[-1] == "__init__":
        return ".".join(parts[:-1])
    return ".".join(parts[:-1])


def _resolve(root: Path, path: Path, target: str) -> str:
    """Absolute dotted name of a (possibly relative) `from` target."""
    level = len(target) - len(target.lstrip("."))
    if not level:
        return target
    if not path.is_relative_to(root):
        return ""            # relative import of a module outside the package: not followed
    pkg = _package_of(root, path).split(".")
    base = pkg[:len(pkg) - (level - 1)]
    rest = target[level:]
    return ".".join(base + ([rest] if rest else []))


def scan_imports(root: Path, path: Path, text: str) -> set[str]:
    """Dotted names of the `verifier` modules a file imports (outside TYPE_CHECKING)."""
    text = _STRINGS.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    text = _TC_BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    out: set[str] = set()
    for m in _FROM.finditer(text):
        base = _resolve(root, path, m.group(1))
        if base.split(".")[0] != TOP:
            continue
        out.add(base)
        names = m.group(2).replace("\\\n", " ").strip("() \n")
        for item in re.split(r"[,\n]", names):
            name = item.split("#")[0].strip().split(" as ")[0].strip()
            if name and name != "*" and _module_file(root, f"{base}.{name}") is not None:
                out.add(f"{base}.{name}")
    for m in _IMPORT.finditer(text):
        for item in m.group(1).split("#")[0].split(","):
            name = item.strip().split(" as ")[0].strip()
            if name.split(".")[0] == TOP:
                out.add(name)
    return out


def _with_parents(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


@cache
def _file_deps(root: Path, f: Path) -> tuple[frozenset[str], tuple[Path, ...]]:
    """A file's imports, and the data files it loads (once per process)."""
    text = f.read_text(encoding="utf-8")
    data = tuple(sorted(f.parent.rglob("*.scm"))) if ".scm" in text else ()
    return frozenset(scan_imports(root, f, text)), data


@cache
def closure(*modules: str, root: Path = PKG) -> tuple[str, ...]:
    """Package-relative paths of every file `modules` depend on, sorted."""
    seen: set[Path] = set()
    names: set[str] = set()
    todo = [m for mod in modules for m in _with_parents(mod)]
    while todo:
        name = todo.pop()
        if name in names:
            continue
        names.add(name)
        f = _module_file(root, name)
        if f is None or f in seen:
            continue
        seen.add(f)
        deps, data = _file_deps(root, f)
        for dep in deps:
            todo.extend(_with_parents(dep))
        seen.update(data)
    return tuple(sorted(p.relative_to(root).as_posix() if p.is_relative_to(root) else str(p)
                        for p in seen))


@cache
def _file_digest(f: Path) -> bytes:
    return hashlib.sha256(f.read_bytes()).digest()


@cache
def code_version(*modules: str, root: Path = PKG) -> str:
    """Digest of the import closure of `modules` (dotted names inside `verifier`)."""
    unknown = [m for m in modules if _module_file(root, m) is None]
    if unknown:
        raise ValueError(f"no source file for module {', '.join(unknown)}")
    h = hashlib.sha256(f"format={FORMAT}".encode())
    for rel in closure(*modules, root=root):
        h.update(rel.encode() + b"\0")
        h.update(_file_digest(root / rel))      # an absolute path stays absolute
    return h.hexdigest()[:24]


def clear() -> None:
    """Forget computed versions (tests that edit a copy of the package)."""
    _module_file.cache_clear()
    _file_deps.cache_clear()
    _file_digest.cache_clear()
    closure.cache_clear()
    code_version.cache_clear()
