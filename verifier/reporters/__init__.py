"""Reporters: one module per output format, registered by the table below.

A reporter module declares

    NAME = "sarif"        # its --format name (unique)
    SUFFIX = ".sarif"     # file suffix when written into a directory
    IN_VERIFY = True      # `verifier verify` writes it into --out
    def render(report: RunReport) -> str

and may define `render_files(report) -> {relative path: text}` (what it writes into
a directory, default `verification<SUFFIX>`), `publish(report) -> [paths]` (what
it writes besides its text, e.g. the GitHub job summary) and `READS_ENVIRONMENT = True`
when its text depends on more than the report (then `verifier/rendermemo.py` never keeps
it). Everything else (the
--format choices and help of every command, which formats `verify` writes) is
derived from `REGISTRY`.

The table repeats each module's NAME, SUFFIX and IN_VERIFY so that parsing options
imports no reporter (importing them all costs ~0.2 s, most of a one-lesson lint);
a module is imported when its format is used, and a module whose constants differ
from its table row is refused then (`RegistryError`; tests/test_registries.py
imports every one).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

from verifier.errors import UsageError
from verifier.registry import Registry, RegistryError
from verifier.visible import escape

if TYPE_CHECKING:
    from verifier.report import RunReport


class Format(NamedTuple):
    name: str
    module: str       # verifier.reporters.<module>
    suffix: str
    in_verify: bool


#            --format     module          SUFFIX     IN_VERIFY
_TABLE = (Format("json", "json_record", ".json", True),
          Format("markdown", "markdown", ".md", True),
          Format("html", "html", ".html", True),
          Format("sarif", "sarif", ".sarif", True),
          Format("junit", "junit", ".xml", True),
          Format("github", "github", ".txt", False))

REGISTRY: Registry[Format] = Registry("format")
for _row in _TABLE:
    REGISTRY.register(_row.name, _row)

FORMATS = tuple(REGISTRY)
SUFFIX = {name: row.suffix for name, row in REGISTRY.items()}
VERIFY_FORMATS = tuple(name for name, row in REGISTRY.items() if row.in_verify)


def reporter(fmt: str) -> ModuleType:
    """The reporter module of `fmt`, imported on first use and checked against its row."""
    try:
        row = REGISTRY[fmt]
    except KeyError:
        raise UsageError(REGISTRY.unknown(fmt)) from None
    mod = importlib.import_module(f"{__name__}.{row.module}")
    got = (getattr(mod, "NAME", None), getattr(mod, "SUFFIX", None),
           getattr(mod, "IN_VERIFY", None))
    if got != (row.name, row.suffix, row.in_verify):
        raise RegistryError(f"reporter {mod.__name__} declares NAME, SUFFIX, IN_VERIFY = {got}, "
                            f"its registration says {(row.name, row.suffix, row.in_verify)}")
    return mod


def render(report: "RunReport", fmt: str) -> str:
    """The text of `fmt`; invisible characters (bidi, zero-width, soft hyphen) shown as
    `\\uXXXX` in every format (`verifier/visible.py`: in JSON an escape of the same value)."""
    return escape(reporter(fmt).render(report))


def render_files(report: "RunReport", fmt: str) -> dict[str, str]:
    """relative path -> text, for writing `fmt` into a directory (escaped as `render`)."""
    mod = reporter(fmt)
    files = getattr(mod, "render_files", None)
    got = files(report) if files else {f"verification{mod.SUFFIX}": mod.render(report)}
    return {escape(rel): escape(text) for rel, text in got.items()}


__all__ = ["FORMATS", "REGISTRY", "SUFFIX", "VERIFY_FORMATS", "Format", "render",
           "render_files", "reporter"]
