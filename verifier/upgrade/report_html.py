"""The upgrade report as one self-contained HTML page (`--format html`).

The same content and order as the Markdown report (report_md.py): what needs
the author first, then per lesson the ranges ready to apply, the changed ranges
with the old and the new code side by side, and the claims whose verdict
changes with both facts; then the wheel map (a pins.toml diff), what is
unassessed and what needs git. Every text from a lesson, a claim or an upstream
is escaped; no script, no external resource."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from verifier.upgrade.model import ClaimChange, LessonUpgrade, LinkChange, LinkStatus, UpgradeReport
from verifier.upgrade.surface import doc_delta

MAX_ROWS = 300

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:1200px;
padding:1em 2em;color:#1f2328}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #d0d7de;padding-bottom:.2em;
margin-top:1.6em}h3{font-size:1em;margin:1.2em 0 .4em}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{background:#f6f8fa;padding:.5em;overflow:auto;margin:0;white-space:pre}
table{border-collapse:collapse;margin:.4em 0;width:100%}td,th{border:1px solid #d0d7de;
padding:.25em .5em;text-align:left;vertical-align:top}th{background:#f6f8fa}
.side{display:grid;grid-template-columns:1fr 1fr;gap:.6em}.side h4{margin:.2em 0;font-size:.9em}
.badge{display:inline-block;border-radius:1em;padding:0 .6em;color:#fff;font-size:.85em}
.s-moved,.s-unchanged{background:#1a7f37}.s-changed,.s-deleted,.s-claim-changed{background:#cf222e}
.s-ambiguous{background:#8250df}.s-unavailable,.s-skipped,.s-claim-unchecked{background:#6e7781}
.s-runtime-changed{background:#9a6700}.box{background:#fff8c5;padding:.6em 1em;border-radius:6px}
.dim{color:#656d76}.del{color:#cf222e}.add{color:#1a7f37}
"""


def e(v: Any) -> str:
    return escape("" if v is None else str(v), quote=True)


def _fact(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 400 else text[:397] + "…"


def _range(s: int | None, t: int | None) -> str:
    if s is None:
        return "whole file"
    return f"L{s}" if t in (None, s) else f"L{s}-L{t}"


def _badge(status: str, code: str = "") -> str:
    return f'<span class="badge s-{e(status)}">{e(code)} {e(status)}</span>'


def _pre(lines: list[str], diff: bool = False) -> str:
    if not diff:
        return "<pre>" + e("\n".join(lines)) + "</pre>"
    out = []
    for x in lines:
        cls = "del" if x.startswith("-") else "add" if x.startswith("+") else "dim"
        out.append(f'<span class="{cls}">{e(x)}</span>')
    return "<pre>" + "\n".join(out) + "</pre>"


def _link_row(lk: LinkChange) -> str:
    new = (_range(lk.new_start, lk.new_end) if lk.new_start is not None else
           f"suggested {_range(*lk.suggested)}" if lk.suggested else "")
    where = lk.path + (f" → {lk.new_path}" if lk.new_path and lk.new_path != lk.path else "")
    return (f"<tr><td>{lk.line}</td><td>{_badge(lk.status.value, lk.code)}</td>"
            f"<td><code>{e(where)}</code></td><td>{_range(lk.start, lk.end)}</td>"
            f"<td>{e(new)}</td><td>{e(lk.detail)}</td></tr>")


def _table(rows: list[str]) -> str:
    return ("<table><tr><th>line</th><th>status</th><th>file</th><th>old</th><th>new</th>"
            "<th></th></tr>" + "".join(rows[:MAX_ROWS]) + "</table>"
            + (f'<p class="dim">… {len(rows) - MAX_ROWS} more</p>' if len(rows) > MAX_ROWS
               else ""))


def _claim(cc: ClaimChange) -> str:
    rows = [f"<tr><th>verdict</th><td>{e(cc.old_verdict)}</td><td><b>{e(cc.new_verdict)}"
            "</b></td></tr>"]
    if cc.old_static or cc.new_static:
        rows.append(f"<tr><th>static</th><td>{e(cc.old_static)}</td><td>{e(cc.new_static)}"
                    "</td></tr>")
    if cc.old_runtime or cc.new_runtime:
        o, n = cc.old_runtime, cc.new_runtime
        rows.append(f"<tr><th>runtime</th><td>{e(o.status if o else '—')} "
                    f"<code>{e(_fact(o.value) if o else '')}</code></td><td>"
                    f"{e(n.status if n else '—')} <code>{e(_fact(n.value) if n else '')}</code>"
                    "</td></tr>")
    rows.append(f"<tr><th>fact</th><td><code>{e(_fact(cc.old_actual))}</code></td>"
                f"<td><code>{e(_fact(cc.new_actual))}</code></td></tr>")
    return (f"<h3>{_badge(cc.category, cc.code)} <code>{e(cc.id)}</code> ({e(cc.kind)})</h3>"
            f"<p>expected <code>{e(_fact(cc.expected))}</code></p>"
            "<table><tr><th></th><th>old</th><th>new</th></tr>" + "".join(rows) + "</table>"
            + (f'<p class="dim">{e(cc.new_message)}</p>' if cc.new_message else ""))


def _lesson(ls: LessonUpgrade) -> str:
    out = [f"<h2>{e(ls.course)}/{e(ls.lesson)}"
           + (" <span class=dim>(read-only: git-hosted course)</span>" if ls.read_only else "")
           + "</h2>"]
    ready = [lk for lk in ls.links if lk.status in (LinkStatus.MOVED, LinkStatus.UNCHANGED)]
    review = [lk for lk in ls.links if lk.status.needs_review]
    quiet = [lk for lk in ls.links if lk not in ready and lk not in review]
    if ready:
        out.append(f"<h3>New ranges ready to apply ({len(ready)})</h3>"
                   + _table([_link_row(lk) for lk in ready]))
    for lk in review:
        out.append(f"<h3>line {lk.line}: {_badge(lk.status.value, lk.code)} "
                   f"<code>{e(lk.path)}</code> {_range(lk.start, lk.end)}"
                   + (f" → suggested {_range(*lk.suggested)}" if lk.suggested else "")
                   + "</h3>" + (f"<p>{e(lk.detail)}</p>" if lk.detail else ""))
        if lk.old_lines or lk.new_lines:
            out.append('<div class="side"><div><h4>old (the pin)</h4>' + _pre(lk.old_lines)
                       + '</div><div><h4>new (suggested)</h4>' + _pre(lk.new_lines)
                       + "</div></div>")
    rest = [lk for lk in quiet if not lk.lost and not lk.needs_git]
    held = len(quiet) - len(rest)
    if held:
        out.append(f'<p class="dim">{held} cited range(s) not assessed here (need git, or a '
                   "wheel without a release at the new version: see below)</p>")
    if rest:
        out.append(_table([_link_row(lk) for lk in rest]))
    out += [_claim(cc) for cc in ls.claims]
    return "\n".join(out)


def _surface_cells(sc) -> str:
    if sc.change in ("docstring", "signature", "default"):
        delta = doc_delta(sc.old, sc.new, 400)
        return (f"<td colspan=2>{_pre(delta, diff=True)}</td>")
    return (f"<td><code>{e(_fact(sc.old))}</code></td>"
            f"<td><code>{e(_fact(sc.renamed_to or sc.new))}</code></td>")


def render(report: UpgradeReport) -> str:
    old, new = report.old, report.new
    title = f"Upgrade {report.upstream}: {old.version} → {new.version or report.ref}"
    head = [f"<h1>{e(title)}</h1>", "<ul>",
            f"<li>old: {e(old.version)} at <code>{e((old.commit or '?')[:12])}</code></li>",
            f"<li>new: {e(new.version)} at "
            + (f"<code>{e(new.commit[:12])}</code>" if new.commit else "commit unknown")
            + f", {e(new.identity)} identity, read from {e(new.provider)}</li>"]
    cr = report.claims
    if cr.ran:
        head.append(f"<li>claims: {cr.old_total} re-checked (runtime {e(cr.runtime)}); "
                    f"{cr.changed} verdict change(s), {cr.unchecked} cannot be re-checked, "
                    f"{cr.runtime_changed} runtime change(s)</li>")
    cov = report.coverage
    if cov.get("served_ranges"):
        head.append(f"<li>cited ranges in served files: {cov['served_ranges']}, "
                    f"{cov['classified']} classified ({cov['percent']} %)</li>")
    head.append("<li>summary: " + e(", ".join(f"{v} {k}" for k, v in report.summary.items()))
                + "</li></ul>")
    if report.left_for_author:
        head.append('<div class="box"><b>Left for the author</b><ul>'
                    + "".join(f"<li>{e(x)}</li>" for x in report.left_for_author[:MAX_ROWS])
                    + "</ul></div>")
    body = []
    if report.surface.changes:
        rows = "".join(
            f"<tr><td>{_badge(sc.change, sc.code)}</td><td><code>{e(sc.name)}</code></td>"
            f"<td><code>{e(sc.symbol)}</code></td>" + _surface_cells(sc) + "<td>"
            + e("; ".join(f"{k}:{','.join(map(str, v))}" for k, v in sc.lessons.items())
                or ", ".join(sc.claims)) + "</td></tr>"
            for sc in report.surface.changes[:MAX_ROWS])
        body.append("<h2>Release surface: names the lessons use that changed</h2><table><tr>"
                    "<th>change</th><th>name</th><th>symbol</th><th>old</th><th>new</th>"
                    "<th>used in</th></tr>" + rows + "</table>")
    body += [_lesson(ls) for ls in report.lessons]
    wm = report.wheel_map
    if wm is not None and wm.pins_diff:
        body.append("<h2>Wheel map and pins.toml</h2><ul>"
                    + "".join(f"<li>{e(x)}</li>" for x in (*wm.followed, *wm.discovered))
                    + "</ul>" + _pre(wm.pins_diff, diff=True))
    for un in report.unassessed:
        body.append(f"<h2>{e(un.code)} unassessed: <code>{e(un.requirement)}</code></h2>"
                    f"<p>{e(un.reason)}: {un.links} cited range(s), {len(un.claims)} claim(s)"
                    "</p><ul>" + "".join(f"<li>{e(k)}: {v}</li>" for k, v in un.lessons.items())
                    + "</ul>")
    ng = report.needs_git
    if ng is not None:
        body.append(f"<h2>{e(ng.code)} needs git</h2><p>{ng.links} cited range(s) in "
                    f"{len(ng.files)} file(s), {ng.claims} claim(s)</p>"
                    + _pre([ng.command, ng.diff_command]) + "<table><tr><th>file</th>"
                    "<th>ranges</th></tr>" + "".join(
                        f"<tr><td><code>{e(f)}</code></td><td>{n}</td></tr>"
                        for f, n in list(ng.files.items())[:MAX_ROWS]) + "</table>")
    notes = "".join(f"<li>{e(n)}</li>" for n in (*report.notes, *report.surface.notes))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(title)}</title><style>{CSS}</style></head><body>"
            + "\n".join(head) + ("<h2>Notes</h2><ul>" + notes + "</ul>" if notes else "")
            + "\n".join(body) + "</body></html>\n")
