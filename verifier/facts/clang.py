"""libclang, used only where semantics matter: evaluated enum constants.

The file and the headers it includes are handed to clang as unsaved files under
a virtual root (`/verifier-src/<repo path>`), so clang sees exactly the pinned
bytes the source layer served and nothing from disk. The PyPI libclang wheel
ships no resource headers (`stddef.h`, `stdarg.h`): gcc's include directory is
passed with `-isystem` when gcc is installed. Without libclang (import or
library load failure) every function here returns None and callers fall back to
tree-sitter (`facts/consteval.py`)."""

from __future__ import annotations

import functools
import shutil
import subprocess
from dataclasses import dataclass

VROOT = "/verifier-src"


@functools.cache
def _cindex():
    try:
        import clang.cindex as ci

        ci.Index.create()
        return ci
    except Exception:  # noqa: BLE001 - missing wheel or shared library: degrade
        return None


def available() -> bool:
    return _cindex() is not None


@functools.cache
def gcc_include() -> str | None:
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc:
        return None
    try:
        out = subprocess.run([gcc, "-print-file-name=include"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out if out and out != "include" else None


@dataclass(frozen=True)
class EnumConstant:
    name: str
    value: int
    line: int
    enum: str | None


_CACHE: dict[tuple, dict[str, EnumConstant] | None] = {}


def enum_constants(path: str, files: dict[str, str], lang: str,
                   include_dirs: tuple[str, ...] = ("include",)) -> dict[str, EnumConstant] | None:
    """Evaluated enum constants declared in `path` (a key of `files`, repo path -> text),
    keyed by name (first wins) and by `<enum>::<name>`.

    `files` holds the main file and any headers it includes (repo paths);
    returns None when libclang is unavailable."""
    ci = _cindex()
    if ci is None:
        return None
    key = (path, lang, include_dirs, tuple(sorted((p, hash(t)) for p, t in files.items())))
    if key in _CACHE:
        return _CACHE[key]
    args = ["-x", "c++" if lang == "cpp" else "c"]
    if lang == "cpp":
        args.append("-std=c++20")
    for d in include_dirs:
        args += ["-I", f"{VROOT}/{d}"]
    args += ["-I", VROOT]
    inc = gcc_include()
    if inc:
        args += ["-isystem", inc]
    main = f"{VROOT}/{path}"
    unsaved = [(f"{VROOT}/{p}", t) for p, t in sorted(files.items())]
    try:
        tu = ci.Index.create().parse(
            main, args=args, unsaved_files=unsaved,
            options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES | ci.TranslationUnit.PARSE_INCOMPLETE)
    except ci.TranslationUnitLoadError:
        _CACHE[key] = None
        return None
    out: dict[str, EnumConstant] = {}

    def walk(cur, enum_name):
        for ch in cur.get_children():
            loc = ch.location
            if loc.file is None or loc.file.name != main:
                continue
            if ch.kind == ci.CursorKind.ENUM_DECL:
                walk(ch, ch.spelling or None)
            elif ch.kind == ci.CursorKind.ENUM_CONSTANT_DECL:
                c = EnumConstant(ch.spelling, ch.enum_value, loc.line, enum_name)
                out.setdefault(ch.spelling, c)
                if enum_name and enum_name.isidentifier():
                    out[f"{enum_name}::{ch.spelling}"] = c
            elif ch.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.CLASS_DECL,
                             ci.CursorKind.STRUCT_DECL, ci.CursorKind.TYPEDEF_DECL,
                             ci.CursorKind.LINKAGE_SPEC, ci.CursorKind.CLASS_TEMPLATE):
                walk(ch, enum_name)

    walk(tu.cursor, None)
    _CACHE[key] = out
    return out
