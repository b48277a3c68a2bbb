"""Reporters: one module per output format, registered by the import list below.

A reporter module declares

    NAME = "sarif"        # its --format name (unique)
    SUFFIX = ".sarif"     # file suffix when written into a directory
    IN_VERIFY = True      # `verifier verify` writes it into --out
    def render(report: RunReport) -> str

and may define `render_files(report) -> {relative path: text}` (what it writes into
a directory, default `verification<SUFFIX>`) and `publish(report) -> [paths]` (what
it writes besides its text, e.g. the GitHub job summary). Everything else (the
--format choices and help of every command, which formats `verify` writes) is
derived from `REGISTRY`.
"""

from __future__ import annotations

from types import ModuleType

from verifier.errors import UsageError
from verifier.registry import Registry
from verifier.report import RunReport
from verifier.reporters import github, html, json_record, junit, markdown, sarif

REGISTRY: Registry[ModuleType] = Registry("format")
for _mod in (json_record, markdown, html, sarif, junit, github):
    REGISTRY.register(_mod.NAME, _mod)

FORMATS = tuple(REGISTRY)
SUFFIX = {name: mod.SUFFIX for name, mod in REGISTRY.items()}
VERIFY_FORMATS = tuple(name for name, mod in REGISTRY.items() if mod.IN_VERIFY)


def reporter(fmt: str) -> ModuleType:
    try:
        return REGISTRY[fmt]
    except KeyError:
        raise UsageError(REGISTRY.unknown(fmt)) from None


def render(report: RunReport, fmt: str) -> str:
    return reporter(fmt).render(report)


def render_files(report: RunReport, fmt: str) -> dict[str, str]:
    """relative path -> text, for writing `fmt` into a directory."""
    mod = reporter(fmt)
    files = getattr(mod, "render_files", None)
    return files(report) if files else {f"verification{mod.SUFFIX}": mod.render(report)}


__all__ = ["FORMATS", "REGISTRY", "SUFFIX", "VERIFY_FORMATS", "render", "render_files",
           "reporter"]
