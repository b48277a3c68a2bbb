"""GitHub: workflow-command annotations and a step summary fit for a pull request.

    ::error file=docs/x.md,line=12,endLine=12,title=VC104 enum diverged: id::message

Annotations: most important first (diverged, stale, claim error, lint error; then lint
warnings), capped at 10 errors + 10 warnings per step as GitHub shows no more, with one
`::notice` counting the rest. Never ANSI colour.

The step summary (`step_summary`, appended to $GITHUB_STEP_SUMMARY by
`write_step_summary`) is compact Markdown: a headline with the exit code and what
failed, then one section per lesson that needs attention -- failures first, counts,
links to the lesson line and the cited source -- and one folded table of the lessons
with nothing failing. It starts with the marker `MARKER`, so a workflow can post it as a
pull-request comment and update that comment in place (docs/ci.md), and stays under
GitHub's comment size limit.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from verifier.report import VERDICT_ORDER, RunReport, claim_sort_key, finding_sort_key
from verifier.reporters.rules import claim_message, claim_rule, claim_title, finding_rule
from verifier.results import Severity, Verdict

NAME = "github"
SUFFIX = ".txt"
IN_VERIFY = False  # annotations go to the log: verify prints them on GitHub Actions
# its text depends on the environment (GITHUB_STEP_SUMMARY and the job's variables), not
# only on the report: never kept by the render memo (verifier/rendermemo.py)
READS_ENVIRONMENT = True

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
        if c.verdict.failing:
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
    d = report.summary.drafts
    if d.get("total"):      # drafts never pass silently: one line counting the unreviewed
        lines.append(command("warning", f"{d['total']} draft claim(s) are unreviewed "
                             f"({d.get('verified', 0)} verify; not counted as verified); "
                             "review each, then `verifier claims accept ID`",
                             title="verifier: unreviewed drafts"))
    more_e, more_w = max(0, len(errors) - CAP), max(0, len(warnings) - CAP)
    if more_e or more_w:
        where = "the job summary" if summary_path else "the SARIF/JSON record"
        lines.append(command("notice", f"{more_e} more error(s) and {more_w} more warning(s) "
                             f"not shown as annotations (GitHub shows {CAP} of each per step); "
                             f"see {where}", title="verifier: more findings"))
    return "\n".join(lines) + ("\n" if lines else "")


MARKER = "<!-- verifier:summary -->"
ROWS_PER_LESSON = 20
MAX_CHARS = 60_000   # GitHub refuses comments over 65,536 characters


def _lesson_url(report: RunReport, course: str | None, path: str, line: int | None,
                env: Mapping[str, str]) -> str | None:
    """The lesson line: in the repository this workflow runs for when that is the course
    (a course's own CI: the commit under test), else in the course repository at its
    pinned commit."""
    c = next((c for c in report.pins.courses if c.name == course), None)
    if c is None:
        return None
    anchor = f"#L{line}" if line else ""
    here, sha = env.get("GITHUB_REPOSITORY", ""), env.get("GITHUB_SHA", "")
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    if here and sha and c.git and c.git.rstrip("/").removesuffix(".git").lower().endswith(
            "/" + here.lower()):
        return f"{server}/{here}/blob/{sha}/{path}{anchor}"
    if c.git and c.commit and c.git.startswith(("https://", "http://")):
        return f"{c.git.rstrip('/').removesuffix('.git')}/blob/{c.commit}/{path}{anchor}"
    return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 or word.endswith("s") else "s")


def _counts(claims, findings) -> str:
    vc = Counter(c.verdict for c in claims)
    sc = Counter(f.severity for f in findings)
    parts = [f"{vc[v]} {v.value}" for v in (Verdict.DIVERGED, Verdict.STALE, Verdict.ERROR)
             if vc[v]]
    parts += [_plural(sc[s], f"lint {s.value}") for s in (Severity.ERROR, Severity.WARNING)
              if sc[s]]
    parts += [f"{vc[v]} {v.value}" for v in (Verdict.VERIFIED, Verdict.UNAVAILABLE) if vc[v]]
    return " · ".join(parts) or "nothing checked"


def _rows(report: RunReport, claims, findings, env) -> list[list[str]]:
    from verifier.reporters.markdown import cell, code

    rows = []
    for c in sorted((c for c in claims if c.verdict.failing),
                    key=lambda c: (VERDICT_ORDER[c.verdict], claim_sort_key(c))):
        url = _lesson_url(report, c.course, c.lesson, c.line, env)
        line = str(c.line) if c.line else "gone"
        src = (f" ([source]({c.evidence.permalink}))" if c.evidence and c.evidence.permalink
               and c.verdict is not Verdict.ERROR else "")
        rows.append([f"**{c.verdict.value}**", f"[{line}]({url})" if url else line,
                     f"{code(claim_rule(c) + ' ' + c.kind)} {code(c.id.rsplit('/', 1)[-1])}",
                     cell(_short(claim_message(c, with_link=False), 300)) + src])
    for f in sorted((f for f in findings if f.severity is not Severity.INFO),
                    key=lambda f: (f.severity is not Severity.ERROR, finding_sort_key(f))):
        url = _lesson_url(report, f.course, f.path, f.line, env)
        rows.append([f"lint {f.severity.value}", f"[{f.line}]({url})" if url else str(f.line),
                     code(f"{finding_rule(f)} {f.rule}"), cell(_short(f.message, 300))])
    return rows


def _fit(items: list[str], limit: int) -> list[str]:
    """The leading items whose total length stays within `limit`."""
    out, n = [], 0
    for it in items:
        n += len(it) + 2
        if n > limit:
            break
        out.append(it)
    return out


def _short(s: str, n: int) -> str:
    s = " ".join((s or "").split())
    return s if len(s) <= n else s[: n - 1] + "…"


def step_summary(report: RunReport, env: Mapping[str, str] | None = None) -> str:
    """Compact Markdown for the job summary and a pull-request comment (see the module
    docstring)."""
    from verifier.reporters.markdown import code, table

    env = os.environ if env is None else env
    s = report.summary
    failing = {v: s.verdicts.get(v.value, 0) for v in Verdict if v.failing}
    lint_err = s.findings.get("error", 0)
    bad = [f"{n} {v.value}" for v, n in failing.items() if n]
    bad += [_plural(lint_err, "lint error")] if lint_err else []
    head = (f"## verifier: exit code {s.exit_code}"
            + (f" — {', '.join(bad)}" if bad else " — nothing failing"))
    totals = ", ".join(f"{n} {v}" for v, n in s.verdicts.items() if n) or "none"
    if s.drafts.get("total"):     # drafts apart: unreviewed, never counted as verified
        totals += (f"; {s.drafts['total']} unreviewed draft(s): "
                   + ", ".join(f"{n} {v}" for v, n in s.drafts.items() if n and v != "total"))
    lint = ", ".join(f"{n} {k}" for k, n in s.findings.items() if n) or "none"
    out = [MARKER, head, "",
           f"{_plural(s.lessons, 'lesson')} · {_plural(s.claims, 'claim')}: {totals} · "
           f"lint: {lint}", ""]

    ranked = []
    for les in report.lessons:
        cl, fs = report.lesson_claims(les), report.lesson_findings(les)
        nfail = sum(1 for c in cl if c.verdict.failing)
        nerr = sum(1 for f in fs if f.severity is Severity.ERROR)
        nwarn = sum(1 for f in fs if f.severity is Severity.WARNING)
        ranked.append(((-(nfail + nerr), -nwarn, les.course, les.path), les, cl, fs,
                       nfail + nerr, nwarn))
    other_c, other_f = report.orphan_claims(), report.orphan_findings()
    if other_c or other_f:
        nfail = sum(1 for c in other_c if c.verdict.failing) + sum(
            1 for f in other_f if f.severity is Severity.ERROR)
        nwarn = sum(1 for f in other_f if f.severity is Severity.WARNING)
        ranked.append(((-nfail, -nwarn, "~", "~"), None, other_c, other_f, nfail, nwarn))
    ranked.sort(key=lambda t: t[0])

    quiet, left_out = [], []
    size = sum(len(x) + 1 for x in out)
    budget = MAX_CHARS - 6_000   # room for the lists below and the not-run line
    for _, les, cl, fs, nbad, nwarn in ranked:
        name = f"{les.course}/{les.path}" if les else "outside the lessons of this run"
        if not nbad and not nwarn:
            quiet.append((name, cl, fs))
            continue
        rows = _rows(report, cl, fs, env)
        more = len(rows) - ROWS_PER_LESSON
        section = [f"### {'❌' if nbad else '⚠️'} {code(name)}", "", _counts(cl, fs), ""]
        section += table(["", "line", "rule", "message"], rows[:ROWS_PER_LESSON])
        if more > 0:
            section.append(f"\n… and {more} more (see the HTML report or SARIF)")
        section.append("")
        grow = sum(len(x) + 1 for x in section)
        if size + grow > budget:
            left_out.append(name)
            continue
        out += section
        size += grow
    if left_out:
        shown = _fit([code(n) for n in left_out], 3_000)
        out += [f"**{len(left_out)} more lesson(s) need attention** (not shown: the comment "
                "would be too long): " + ", ".join(shown)
                + (f", … and {len(left_out) - len(shown)} more" if len(shown) < len(left_out)
                   else ""), ""]
    if quiet:
        rows = [[code(n), _counts(cl, fs)] for n, cl, fs in quiet]
        fit = _fit(["| " + " | ".join(r) + " |" for r in rows], 2_500)
        out += [f"<details><summary>{_plural(len(quiet), 'lesson')} with nothing failing"
                "</summary>", ""]
        out += table(["lesson", "checked"], rows[:len(fit)])
        if len(fit) < len(rows):
            out.append(f"\n… and {len(rows) - len(fit)} more")
        out += ["", "</details>", ""]
    if report.not_run:
        out += ["Not run: " + "; ".join(f"{n.stage}: {n.what} ({n.why})"
                                        for n in report.not_run), ""]
    return "\n".join(out)


def write_step_summary(report: RunReport, path: str | None = None) -> str | None:
    """Append the step summary to $GITHUB_STEP_SUMMARY (or `path`); return the path."""
    target = path or os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    from verifier.safewrite import Area

    target_path = Path(os.path.abspath(target))    # the runner's file: appended, never replaced
    Area.out(target_path.parent, purpose="$GITHUB_STEP_SUMMARY").append(target_path,
                                                                        step_summary(report))
    return target


def publish(report: RunReport) -> list[Path]:
    """What the format writes besides its text: the job summary, when
    $GITHUB_STEP_SUMMARY is set."""
    path = write_step_summary(report)
    return [Path(path)] if path else []
