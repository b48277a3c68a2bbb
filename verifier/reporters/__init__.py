"""Reporters: one module per output format, each `render(report) -> str`.

    render(report, "json")      the JSON verification record (sorted keys, stable order)
    render(report, "markdown")  per-lesson verification records, concatenated
    render(report, "html")      one self-contained HTML page (no network)
    render(report, "sarif")     SARIF 2.1.0 for code scanning
    render(report, "junit")     JUnit XML for CI test widgets
    render(report, "github")    GitHub Actions workflow-command annotations
"""

from __future__ import annotations

from types import ModuleType

from verifier.errors import UsageError
from verifier.report import RunReport
from verifier.reporters import github, html, json_record, junit, markdown, sarif

REPORTERS: dict[str, ModuleType] = {
    "json": json_record,
    "markdown": markdown,
    "html": html,
    "sarif": sarif,
    "junit": junit,
    "github": github,
}

# File suffix used when a format is written into a directory.
SUFFIX = {"json": ".json", "markdown": ".md", "html": ".html", "sarif": ".sarif",
          "junit": ".xml", "github": ".txt"}
FORMATS = tuple(REPORTERS)


def render(report: RunReport, fmt: str) -> str:
    try:
        mod = REPORTERS[fmt]
    except KeyError:
        raise UsageError(f"unknown output format {fmt!r} (expected one of: "
                         f"{', '.join(FORMATS)})") from None
    return mod.render(report)


__all__ = ["FORMATS", "REPORTERS", "SUFFIX", "render"]
