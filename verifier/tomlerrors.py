"""The one bounded reader of every TOML and JSON input (pins.toml, pins.lock, the user's
config, claim files, notation tables, claims.lock, lint.toml, coverage.toml, course
manifests), and the errors that name file, line and key.

Untrusted input (claim files and lessons from pull requests, a course's sources.json)
is read through `read_text` / `read_toml` / `read_json` only, with limits:

- the file must be a regular file (a FIFO or a device such as /dev/zero is refused
  without blocking on it) of at most `MAX_BYTES`, in UTF-8 (a bad byte is named by its
  line);
- arrays and tables nest at most `MAX_DEPTH` levels;
- an integer has at most `MAX_INT_DIGITS` digits and fits in 64 bits (TOML's own range:
  a 5,000-digit integer used to raise Python's int-conversion limit inside every
  reader);
- JSON has no NaN or Infinity.

Every violation is a `ConfigError` (exit 2) naming the file and, where it can be found,
the line; never a traceback."""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from verifier.errors import ConfigError


MAX_DEPTH = 32      # arrays/tables nested deeper than this are refused (no file needs it)
MAX_BYTES = 32 << 20          # one TOML/JSON input (the largest shipped file is ~0.1 MiB)
MAX_INT_DIGITS = 20           # digits of one integer (2**64 has 20)
INT_LIMIT = 1 << 64           # |integer| below this: TOML's 64-bit range, unsigned too
_LONG_DIGITS = re.compile(r"(?<![\w.\"'])[+-]?[0-9][0-9_]{%d,}" % MAX_INT_DIGITS)


def _too_deep(data: Any, limit: int = MAX_DEPTH) -> tuple[Any, ...] | None:
    """Key path of the first value nested more than `limit` levels deep (iterative)."""
    return _first_bad(data, limit)[0]


def _first_bad(data: Any, limit: int = MAX_DEPTH) -> tuple[tuple[Any, ...] | None, str | None]:
    """(key path, problem) of the first value nested too deeply or holding an integer out
    of range; (None, None) when there is none. Iterative: no recursion on hostile input."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, loc = stack.pop()
        if len(loc) > limit:
            return loc, (f"values nested too deeply (more than {MAX_DEPTH} levels are "
                         "refused)")
        if isinstance(value, dict):
            stack.extend((v, (*loc, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*loc, i)) for i, v in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= INT_LIMIT:
            return loc, (f"integer out of range (more than 64 bits; at most "
                         f"{MAX_INT_DIGITS} digits are read)")
    return None, None


def _size_error(path: Path, size: int, limit: int) -> ConfigError:
    return ConfigError(f"file is {size / (1 << 20):.1f} MiB, above the limit of "
                       f"{limit / (1 << 20):g} MiB for a TOML or JSON input; refusing to parse it",
                       file=str(path))


def read_text(path: Path, *, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `limit` bytes; ConfigError otherwise
    (naming the line of an undecodable byte). A FIFO or device is refused without
    waiting on it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ConfigError("file not found", file=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a directory" if stat.S_ISDIR(st.st_mode) else \
                "a FIFO" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
            raise ConfigError(f"cannot read: {what} (expected a regular file)", file=str(path))
        if st.st_size > limit:
            raise _size_error(path, st.st_size, limit)
        os.set_blocking(fd, True)
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:          # it grew while being read
            raise _size_error(path, len(data), limit)
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ConfigError(f"not UTF-8: byte 0x{data[exc.start]:02x} cannot be decoded "
                          f"({exc.reason})", file=str(path), line=line) from None


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    text = read_text(path)
    return parse_toml(text, path), text


def _last_line(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def _bounds(text: str, path: Path) -> None:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise _size_error(path, size, MAX_BYTES)


def _refuse(data: Any, text: str, path: Path) -> None:
    loc, problem = _first_bad(data)
    if loc is None:
        return
    keys = tuple(k for k in loc if not isinstance(k, int))
    line = None
    for cut in range(min(len(keys), 2 if "nested" in (problem or "") else len(keys)), 0, -1):
        line = locate_key(text, keys[:cut])      # the key, else the nearest table above it
        if line is not None:
            break
    raise ConfigError(problem or "invalid value", file=str(path), line=line,
                      key=".".join(str(k) for k in keys[:3]) or None)


def _long_int_line(text: str) -> int | None:
    m = _LONG_DIGITS.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """`text` (read from `path`) as TOML, within the limits; ConfigError naming file and
    line otherwise."""
    _bounds(text, path)
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
            line = _last_line(text)   # the last line
        raise ConfigError(f"malformed TOML: {msg}", file=str(path), line=line) from None
    except (ValueError, OverflowError, MemoryError):
        # int() refusing a number thousands of digits long (Python's conversion limit)
        raise ConfigError(f"integer out of range (more than 64 bits; at most {MAX_INT_DIGITS} "
                          "digits are read)", file=str(path), line=_long_int_line(text)) from None
    _refuse(data, text, path)
    return data


def read_json(path: Path) -> tuple[Any, str]:
    text = read_text(path)
    return parse_json(text, path), text


def _json_int(s: str) -> int:
    if len(s.lstrip("-")) > MAX_INT_DIGITS:
        raise _JsonLimit(f"integer {s[:12]}... has {len(s.lstrip('-'))} digits "
                         f"(at most {MAX_INT_DIGITS} are read)")
    return int(s)


def _json_float(s: str) -> float:
    value = float(s)
    if value in (float("inf"), float("-inf")):
        raise _JsonLimit(f"number {s[:12]} is out of range")
    return value


def _json_constant(s: str) -> Any:
    raise _JsonLimit(f"{s} is not JSON")


class _JsonLimit(ValueError):
    pass


def json_value(text: str, *, allow_nan: bool = False) -> Any:
    """`text` as JSON within the limits (depth, integer digits; NaN/Infinity only with
    `allow_nan`), also for JSON held inside another input (a claim's `expected_json`);
    ValueError naming the problem."""
    try:
        data = json.loads(text, parse_int=_json_int,
                          parse_float=float if allow_nan else _json_float,
                          parse_constant=float if allow_nan else _json_constant)
    except RecursionError:
        raise ValueError(f"arrays or objects nested too deeply (more than {MAX_DEPTH} levels "
                         "are refused)") from None
    except (OverflowError, MemoryError) as exc:
        raise ValueError(str(exc)) from None
    loc, problem = _first_bad(data)
    if loc is not None:
        raise ValueError(f"{problem} at {'.'.join(str(k) for k in loc[:6]) or 'the top'}")
    return data


def parse_json(text: str, path: Path) -> Any:
    """`text` (read from `path`) as JSON, within the limits; ConfigError naming file and
    line otherwise."""
    _bounds(text, path)
    try:
        return json_value(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"malformed JSON: {exc.msg}", file=str(path), line=exc.lineno) from None
    except _JsonLimit as exc:
        raise ConfigError(f"malformed JSON: {exc}", file=str(path),
                          line=_long_int_line(text)) from None
    except ValueError as exc:
        raise ConfigError(f"malformed JSON: {exc}", file=str(path)) from None


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
