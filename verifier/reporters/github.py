"""GitHub Actions workflow-command annotations.

    ::error file=docs/x.md,line=12,endLine=12,title=VC104 enum diverged: id::message

Most important first (diverged, stale, claim error, lint error; then lint
warnings), capped at 10 errors + 10 warnings per step as GitHub shows no more,
with one `::notice` counting the rest. The full list goes to the Markdown step
summary (`write_step_summary`, used when $GITHUB_STEP_SUMMARY is set). Never
ANSI colour.
"""

from __future__ import annotations

import os
from pathlib import Path

from verifier.report import RunReport, claim_sort_key, finding_sort_key, VERDICT_ORDER
from verifier.reporters.rules import claim_message, claim_title, finding_rule
from verifier.results import Severity, Verdict

CAP = 10  # per level and step (GitHub drops the rest silently)


def escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(s: str) -> str:
    return escape_data(s).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: object) -> str:
    items = [f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None]
    head = f"::{level}" + (" " + ",".join(items) if items else "")
    return f"{head}::{escape_data(message)}"


def annotations(report: RunReport) -> tuple[list[tuple], list[tuple]]:
    """(errors, warnings) as (sort key, level, message, props), most important first."""
    errors, warnings = [], []
    for c in report.claims:
        if c.verdict in (Verdict.DIVERGED, Verdict.STALE, Verdict.ERROR):
            key = (VERDICT_ORDER[c.verdict], *claim_sort_key(c))
            line = c.line or 1
            errors.append((key, "error", claim_message(c),
                           {"file": c.lesson, "line": line, "endLine": line,
                            "title": claim_title(c)}))
    for f in report.findings:
        if f.severity is Severity.INFO:
            continue
        line = f.line or 1
        props = {"file": f.path, "line": line, "endLine": f.end_line or line,
                 "title": f"{finding_rule(f)} {f.rule}"}
        if f.severity is Severity.ERROR:
            errors.append(((3, *finding_sort_key(f)), "error", f.message, props))
        else:
            warnings.append(((0, *finding_sort_key(f)), "warning", f.message, props))
    errors.sort(key=lambda t: t[0])
    warnings.sort(key=lambda t: t[0])
    return errors, warnings


def render(report: RunReport, *, summary_path: str | None = None) -> str:
    summary_path = summary_path or os.environ.get("GITHUB_STEP_SUMMARY")
    errors, warnings = annotations(report)
    lines = [command(level, msg, **props) for _, level, msg, props in errors[:CAP]]
    lines += [command(level, msg, **props) for _, level, msg, props in warnings[:CAP]]
    more_e, more_w = max(0, len(errors) - CAP), max(0, len(warnings) - CAP)
    if more_e or more_w:
        where = "the job summary" if summary_path else "the SARIF/JSON record"
        lines.append(command("notice", f"{more_e} more error(s) and {more_w} more warning(s) "
                             f"not shown as annotations (GitHub shows {CAP} of each per step); "
                             f"see {where}", title="verifier: more findings"))
    return "\n".join(lines) + ("\n" if lines else "")


def write_step_summary(report: RunReport, path: str | None = None) -> str | None:
    """Append the full Markdown summary to $GITHUB_STEP_SUMMARY (or `path`); return the path."""
    from verifier.reporters.markdown import step_summary

    target = path or os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    with open(Path(target), "a", encoding="utf-8") as fh:
        fh.write(step_summary(report))
    return target
