"""Human-readable counts and the final line of `check`, `lint` and `verify`.

The final line states what was judged and why the exit code is what it is (the
line people quote from CI logs), e.g.

    checked 375 claims about 12 lessons: 300 verified (20 from release files), 5 diverged,
    60 unavailable, 10 error; exit 1 (5 claims diverged; 10 claims error)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.cli.output import plural
from verifier.results import Verdict

if TYPE_CHECKING:
    from verifier.report import RunReport


def claim_counts(report: "RunReport") -> str:
    s = report.summary
    weak = sum(1 for c in report.claims if c.verdict is Verdict.VERIFIED
               and c.evidence is not None and c.evidence.status == "release")
    parts = []
    for v in Verdict:
        n = s.verdicts.get(v.value, 0)
        if n:
            parts.append(f"{n:,} {v.value}" + (f" ({weak:,} from release files)"
                                               if v is Verdict.VERIFIED and weak else ""))
    d = s.drafts
    if d.get("total"):
        parts.append(f"{d['total']:,} unreviewed draft{'s' if d['total'] != 1 else ''} ("
                     + ", ".join(f"{d[v.value]:,} {v.value}" for v in Verdict if d.get(v.value))
                     + "; `verifier claims accept ID` accepts one)")
    return ", ".join(parts) or "none"


def unchecked(report: "RunReport") -> int:
    return sum(int(f.data.get("count", 0)) for f in report.findings
               if f.rule == "source-unavailable")


def lint_counts(report: "RunReport", *, info: bool = True, info_hidden: bool = False) -> str:
    s = report.summary.findings
    parts = [plural(s.get("error", 0), "error"), plural(s.get("warning", 0), "warning")]
    if info:
        n = s.get("info", 0)
        parts.append(f"{n:,} info" + (" (--info shows them)" if info_hidden and n else ""))
    n = unchecked(report)
    if n:
        parts.append(f"{plural(n, 'item')} unchecked for want of sources")
    return ", ".join(parts)


def source_counts(report: "RunReport") -> str:
    s = report.summary.sources
    return ", ".join(f"{n:,} {k}" for k, n in sorted(s.items())) or "none"


def exit_reason(report: "RunReport") -> str:
    s = report.summary
    return f"exit {s.exit_code} (" + ("; ".join(s.reasons) if s.reasons else "clean") + ")"


def lessons_phrase(report: "RunReport") -> str:
    return plural(report.summary.lessons, "lesson")


def suspect_counts(report: "RunReport") -> str:
    """", N suspect sentences" when the suspect stage found any (verifier/suspect)."""
    n = sum(1 for f in report.findings if f.rule == "suspect")
    return f", {plural(n, 'suspect sentence')}" if n else ""


def check_line(report: "RunReport") -> str:
    return (f"checked {plural(report.summary.claims, 'claim')} about {lessons_phrase(report)}: "
            f"{claim_counts(report)}{suspect_counts(report)}; {exit_reason(report)}")


def lint_line(report: "RunReport", info_hidden: bool = False) -> str:
    return (f"linted {lessons_phrase(report)}: {lint_counts(report, info_hidden=info_hidden)}; "
            f"{exit_reason(report)}")


def verify_line(report: "RunReport", out: str | None = None, html: str | None = None) -> str:
    """`out`: where the records are; `html`: the report to open first."""
    rt = report.runtime
    parts = [f"{plural(report.summary.claims, 'claim')} ({claim_counts(report)})"
             + suspect_counts(report),
             f"lint {lint_counts(report, info=False)}",
             f"{plural(len(report.sources), 'source file')} ({source_counts(report)})",
             f"runtime {plural(rt.ran, 'check')} ran"]
    where = (f"; records in {out}" if out else "") + (f"; open {html}" if html else "")
    return f"judged {lessons_phrase(report)}: " + ", ".join(parts) + f"{where}; " \
        f"{exit_reason(report)}"
