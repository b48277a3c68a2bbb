"""Turn TOML decode errors and pydantic validation errors into ConfigErrors
that name the file, the line and the key path."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from verifier.errors import ConfigError


MAX_DEPTH = 32      # arrays/tables nested deeper than this are refused (no file needs it)


def _too_deep(data: Any, limit: int = MAX_DEPTH) -> tuple[Any, ...] | None:
    """Key path of the first value nested more than `limit` levels deep (iterative)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, loc = stack.pop()
        if len(loc) > limit:
            return loc
        if isinstance(value, dict):
            stack.extend((v, (*loc, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*loc, i)) for i, v in enumerate(value))
    return None


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("file not found", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", file=str(path)) from None


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    text = read_text(path)
    return parse_toml(text, path), text


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """`text` (read from `path`) as TOML; ConfigError naming file and line otherwise."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"malformed TOML: arrays or tables nested too deeply (more than "
                          f"{MAX_DEPTH} levels are refused)", file=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        msg = getattr(exc, "msg", str(exc))
        if line is None:
            m = re.search(r"line (\d+)", str(exc))
            line = int(m.group(1)) if m else None
        if line is None and "end of document" in str(exc):
            line = text.count("\n") + (0 if text.endswith("\n") else 1)   # the last line
        raise ConfigError(f"malformed TOML: {msg}", file=str(path), line=line) from None
    loc = _too_deep(data)
    if loc is not None:
        keys = tuple(k for k in loc if not isinstance(k, int))
        raise ConfigError(f"values nested too deeply (more than {MAX_DEPTH} levels are refused)",
                          file=str(path), line=locate_key(text, keys[:2]) if keys else None,
                          key=".".join(str(k) for k in keys[:3]) or None)
    return data


def locate_key(text: str, loc: tuple[Any, ...]) -> int | None:
    """Best-effort line of a key path like ('upstream', 'mujoco', 'commit') in TOML text."""
    lines = text.splitlines()
    parts = [str(p) for p in loc if not isinstance(p, int)]
    # Longest table header that prefixes the path, then the key below it.
    for cut in range(len(parts), 0, -1):
        header = ".".join(parts[:cut])
        pat = re.compile(r"^\s*\[\[?\s*" + re.escape(header) + r"\s*\]\]?\s*(#.*)?$")
        for i, line in enumerate(lines):
            if pat.match(line):
                rest = parts[cut:]
                if not rest:
                    return i + 1
                key = re.compile(r"^\s*" + re.escape(rest[0]) + r"\s*=")
                for j in range(i + 1, len(lines)):
                    if lines[j].lstrip().startswith("["):
                        break
                    if key.match(lines[j]):
                        return j + 1
                return i + 1
    if parts:
        key = re.compile(r"^\s*" + re.escape(parts[-1]) + r"\s*=")
        for i, line in enumerate(lines):
            if key.match(line):
                return i + 1
    return None


class Located(ValueError):
    """A model validator's error about a key other than the one it runs on (a whole-file
    check such as "this course names an unknown upstream"): `loc` is the key path the
    message is about, so the error names its line."""

    def __init__(self, loc: tuple[str | int, ...], msg: str) -> None:
        super().__init__(msg)
        self.loc, self.msg = loc, msg


def validate[M: BaseModel](model: type[M], data: dict[str, Any], path: Path, text: str,
                           context: dict[str, Any] | None = None) -> M:
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err.get("loc", ()))
        msg = err.get("msg", "invalid value")
        cause = (err.get("ctx") or {}).get("error")
        if err.get("type") == "value_error" and isinstance(cause, ValueError):
            msg = str(cause)              # our own words, without pydantic's "Value error, "
            if isinstance(cause, Located):
                loc = (*loc, *cause.loc)
        keypath = ".".join(str(p) for p in loc) or None
        if err.get("type") == "extra_forbidden":
            msg = "unknown key"
        more = len(exc.errors()) - 1
        hint = f"{more} more problem(s) in this file" if more else None
        raise ConfigError(msg, file=str(path), line=locate_key(text, loc), key=keypath,
                          hint=hint) from None
