"""How commands show a run: the claims table, lint findings, the verdict table, JSON
and record formats on stdout, and the final line."""

from __future__ import annotations

import sys
from collections import Counter
from typing import TYPE_CHECKING

from verifier.cli import output as o
from verifier.results import Severity, Verdict

if TYPE_CHECKING:
    from verifier.pipeline import Run
    from verifier.rendermemo import Renders
    from verifier.report import RunReport

VERDICT_STYLE = {"verified": "green", "diverged": "red", "stale": "magenta",
                 "unavailable": "yellow", "error": "bold red"}
SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "dim"}


def print_json(doc) -> None:
    """`doc` as indented JSON on stdout, written as it is encoded (`verifier/jsontext.py`:
    the same bytes as `json.dumps(doc, indent=2, ensure_ascii=False)`, without holding
    the text of a large course at once), in batches of ~64 KiB."""
    from verifier.jsontext import pieces
    from verifier.visible import escape

    out = sys.stdout
    batch: list[str] = []
    size = 0
    for piece in pieces(doc):
        batch.append(escape(piece))       # invisible characters as \uXXXX: the same value
        size += len(piece)
        if size >= 1 << 16:
            out.write("".join(batch))
            batch.clear()
            size = 0
    batch.append("\n")
    out.write("".join(batch))
    out.flush()


def print_claims_json(result: "Run", renders: "Renders") -> None:
    """`verifier check --format json`, kept by the report it shows (`verifier/rendermemo.py`;
    the runtime timings it puts back are part of the key)."""
    from verifier.jsontext import dumps
    from verifier.rendermemo import MAX_CLAIMS

    if len(result.report.claims) > MAX_CLAIMS:      # streamed, never held whole
        print_json(claims_json(result))
        return
    checks = {k: v.model_dump() for k, v in sorted(result.details.checks.items())}
    from verifier.visible import escape

    text = renders.document("check-json", __name__,
                            lambda: escape(dumps(claims_json(result))) + "\n", extra=checks)
    sys.stdout.write(text)
    sys.stdout.flush()


def print_record(report: "RunReport", fmt: str, renders: "Renders | None" = None) -> None:
    """A record format on stdout. Only `github` may emit workflow commands. `renders`: the
    report's memoised renderings (`verifier/rendermemo.py`), if any."""
    from verifier.reporters import render

    text = renders.text(fmt) if renders is not None else render(report, fmt)
    sys.stdout.write(text if fmt == "github" else o.guard_text(text))
    sys.stdout.flush()


def final(line: str, *, machine: bool = False, quiet: bool = False, args=None) -> None:
    """The last line: on stdout after a text result, on stderr after machine output.
    `args`: the source layer's notices are printed first (on stderr), so this line is
    the last of the command."""
    if args is not None:
        from verifier.cli.common import print_source_notices

        print_source_notices(args)
    if not machine:
        o.say(line)
    elif not quiet:
        o.info(line)


def lesson_paths(result: "Run") -> dict[tuple[str, str], str]:
    """(course, path) -> the lesson file as the user can open it."""
    return {(d.course, d.path): o.rel(d.file) for d in result.lessons}


def where(paths: dict[tuple[str, str], str], course: str | None, path: str,
          line: int | None) -> str:
    shown = paths.get((course or "", path)) or (f"{course}/{path}" if course else path)
    return f"{shown}:{line}" if line else shown


def claims_json(result: "Run") -> dict:
    """`verifier check --format json` (a stable interface): runtime durations and
    output, which the record leaves to run.json, are put back."""
    from verifier.claims.check import summary
    from verifier.report import claim_gid

    timing = result.details.checks
    out = []
    for c in result.report.claims:
        d = c.model_dump(mode="json")
        t = timing.get(claim_gid(c))
        if d.get("runtime") is not None and t is not None:
            d["runtime"].update(duration_s=t.duration_s, stdout=t.stdout, stderr=t.stderr)
        out.append(d)
    doc = {"claims": out, "summary": summary(result.report.claims)}
    # the claim stage's own findings: notation entries no claim needs, suspects in
    # uncovered sentences (verifier/suspect) and their unused suppressions
    notes = [f.model_dump(mode="json") for f in result.report.findings
             if f.rule in ("notation-unused", "suspect") or f.rule == "suppression-unused"
             and "suspect" in (f.message or "")]
    if notes:                        # (an extension of the interface)
        doc["findings"] = notes
    if result.report.runtime.sampling is not None:
        doc["runtime"] = result.report.runtime.sampling
    return doc


COLLAPSE = 5   # more unavailable claims than this with one reason: one line for all


def claim_parts(c, paths: dict[tuple[str, str], str]) -> list:
    """One claim as `check` prints it: `lesson:line: verdict kind id: detail`."""
    detail = c.message or ""
    if c.verdict is Verdict.DIVERGED:
        detail = f"expected {c.expected!r}, actual {c.actual!r}" + (f"; {detail}"
                                                                     if detail else "")
    if c.runtime is not None:
        detail += f" (runtime: {c.runtime.status})"
    draft = [(" (draft, unreviewed)", "yellow")] if c.draft else []
    return [(where(paths, c.course, c.lesson, c.line), ""), ": ",
            (c.verdict.value, VERDICT_STYLE[c.verdict.value]), *draft,
            f" {c.kind} {c.id}" + (f": {detail}" if detail else "")]


def finding_parts(f, paths: dict[tuple[str, str], str], root) -> list:
    """One finding as `lint` prints it: `path:line: severity CODE rule: message` (a
    finding on a project file such as lint.toml relative to `root`, the pins directory)."""
    if f.course is None:
        shown = f"{o.rel(root / f.path)}:{f.line}"
    else:
        shown = where(paths, f.course, f.path, f.line)
    return [(shown, ""), ": ", (f.severity.value, SEVERITY_STYLE[f.severity.value]),
            f" {f.code} {f.rule}: {f.message}"]


# what `verify` lists under its tables, most severe first: a lesson that says something
# false, a claim that cannot be judged, a sentence edited since review, a lint error
FIX_ORDER = {Verdict.DIVERGED: 0, Verdict.ERROR: 1, Verdict.STALE: 2}
LINT_RANK = 3


def to_fix(result: "Run", root) -> None:
    """One line per failure of the run, the same text `check` and `lint` print, most
    severe first (then by lesson and line); nothing when there is none."""
    report = result.report
    paths = lesson_paths(result)
    rows = []
    for c in report.claims:
        if c.verdict in FIX_ORDER:
            rows.append(((FIX_ORDER[c.verdict], c.course or "", c.lesson, c.line or 0, c.id),
                         claim_parts(c, paths)))
    for f in report.findings:
        if f.severity is Severity.ERROR:
            rows.append(((LINT_RANK, f.course or "", f.path, f.line or 0, f.code),
                         finding_parts(f, paths, root)))
    if not rows:
        return
    o.say((f"to fix ({len(rows):,}):", "bold"))
    for _, parts in sorted(rows, key=lambda r: r[0]):
        o.say(*parts)


def claims_list(result: "Run", *, every: bool = False) -> None:
    """One line per claim that needs a look (every verdict but `verified`, and drafts):
    `lesson:line: verdict kind id: detail`. Unavailable claims sharing one reason are
    one line when there are more than `COLLAPSE` (`--runtime none` leaves every
    runtime-only claim unavailable for the same reason). `every`: every claim, one line
    each. What is left out is counted."""
    report = result.report
    paths = lesson_paths(result)
    shown = [c for c in report.claims if every or c.verdict is not Verdict.VERIFIED or c.draft]
    hidden = len(report.claims) - len(shown)
    by_reason: dict[str, list] = {}
    for c in shown:
        if c.verdict is Verdict.UNAVAILABLE and not c.draft and not every:
            by_reason.setdefault(c.message or "", []).append(c)
    collapsed = {r for r, cs in by_reason.items() if len(cs) > COLLAPSE}
    for c in shown:
        if c.verdict is Verdict.UNAVAILABLE and (c.message or "") in collapsed and not c.draft \
                and not every:
            continue
        o.say(*claim_parts(c, paths))
    for reason in sorted(collapsed, key=lambda r: (-len(by_reason[r]), r)):
        cs = by_reason[reason]
        o.say((f"{len(cs):,} claims", ""), " ", ("unavailable", VERDICT_STYLE["unavailable"]),
              f": {reason or 'no reason given'} (e.g. {cs[0].id}, {cs[1].id}, …; --all lists "
              "them)")
    if hidden:
        o.say(f"{o.plural(hidden, 'verified claim')} not listed (--all lists them)")


def findings_list(result: "Run", root, *, info: bool = False) -> None:
    """One line per finding: `path:line: severity CODE rule: message` (a finding on a
    project file such as lint.toml is shown relative to `root`, the pins directory)."""
    paths = lesson_paths(result)
    for f in result.report.findings:
        if f.severity is Severity.INFO and not info:
            continue
        o.say(*finding_parts(f, paths, root))


FOLD_SHOWN = 4   # names listed on the line of folded pages


def verdict_table(report: "RunReport") -> None:
    """Claims per lesson. Pages with nothing to check (no claims, no lint error: index
    and validation pages) are one line under the table instead of rows of zeros."""
    verdicts = [v.value for v in Verdict]
    rows, empty = [], []
    for les in report.lessons:
        mine = report.lesson_claims(les)
        errs = les.findings.get("error", 0)
        if not mine and not errs:
            empty.append(f"{les.course}/{les.path}")
            continue
        c = Counter(x.verdict.value for x in mine)
        weak = sum(1 for x in mine if x.verdict is Verdict.VERIFIED and x.evidence is not None
                   and x.evidence.status == "release")
        rt = Counter(x.runtime.status for x in mine if x.runtime)
        cells = [f"{c.get(v, 0):,}" for v in verdicts]
        if weak:
            cells[0] += f" ({weak:,} release)"
        rows.append([f"{les.course}/{les.path}", *cells,
                     ", ".join(f"{n:,} {k}" for k, n in sorted(rt.items())) or "-", f"{errs:,}"])
    if rows:
        o.show(o.table("claims by lesson", ["lesson", *verdicts, "runtime", "lint errors"],
                       rows, right=[*verdicts, "lint errors"]))
    if empty:
        more = len(empty) - FOLD_SHOWN
        o.say(f"{o.plural(len(empty), 'page')} with no claims and no lint error (not in the "
              f"table): {', '.join(empty[:FOLD_SHOWN])}" + (f", … {more:,} more" if more > 0
                                                           else ""))


def sources_table(files) -> None:
    """Per upstream: files per status and the providers that served them."""
    from verifier.sources.models import Status

    rows = []
    for u in sorted({f.upstream for f in files}):
        mine = [f for f in files if f.upstream == u]
        c = Counter(f.status for f in mine)
        provs = Counter((f.provider or "-").split(":", 1)[0] + (" (cached)" if f.cached else "")
                        for f in mine if f.status.usable)
        rows.append([u, *[f"{c.get(s, 0):,}" for s in Status],
                     ", ".join(f"{k} {v:,}" for k, v in sorted(provs.items())) or "-"])
    o.show(o.table("sources at pinned identity", ["upstream", *[s.value for s in Status],
                                                  "providers"], rows,
                   right=[s.value for s in Status]))
