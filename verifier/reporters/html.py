"""One self-contained HTML report: inline CSS, inline JS, inline SVG; no network.

Each lesson's claims with verdict colours, filters by verdict / upstream / kind
(also settable from the URL fragment, e.g. `report.html#verdict=diverged`), the
lesson sentence beside the source snippet at the evidence lines -- only from
pinned or release sources, otherwise "source unavailable at pinned identity" --
and a small SVG chart of verdicts per lesson."""

from __future__ import annotations

from html import escape

from verifier.report import (VERDICT_ORDER, Excerpt, RunReport, claim_gid, claim_sort_key,
                             finding_sort_key, safe_name)
from verifier.reporters.rules import claim_rule, finding_rule, short_value
from verifier.results import ClaimResult, Verdict

COLOURS = {"verified": "#1a7f37", "diverged": "#cf222e", "stale": "#bc4c00",
           "unavailable": "#6e7781", "error": "#8250df"}
VERDICTS = sorted(Verdict, key=lambda v: VERDICT_ORDER[v])

CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#ffffff;--soft:#f6f8fa}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",sans-serif;
 color:var(--fg);background:var(--bg);margin:0;padding:16px 24px;max-width:1280px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 8px}h3{font-size:15px}
code,pre{font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",monospace}
.muted{color:var(--muted)}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid var(--line);padding:3px 8px;
 text-align:left;vertical-align:top}th{background:var(--soft)}
.badge{display:inline-block;color:#fff;border-radius:10px;padding:0 9px;font-weight:600;
 font-size:12px;line-height:20px}
""" + "".join(f".v-{k}{{background:{c}}}.claim.v-{k}{{border-left-color:{c}}}\n"
              for k, c in COLOURS.items()) + """
#filters{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px 12px;
 position:sticky;top:0;z-index:1}
#filters fieldset{display:inline-block;border:0;margin:0 18px 0 0;padding:0}
#filters legend{font-weight:600;float:left;margin-right:6px}
#filters label{margin-right:8px;white-space:nowrap}
.claim{border:1px solid var(--line);border-left:6px solid;border-radius:6px;margin:10px 0;
 padding:8px 10px;background:#fff}
.claim[hidden]{display:none}
.claim-head{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:6px}
.pane{background:var(--soft);border:1px solid var(--line);border-radius:4px;padding:6px 8px;
 min-width:0}
.pane .label{font-size:12px;color:var(--muted);margin-bottom:4px}
blockquote{margin:0;white-space:pre-wrap;word-break:break-word}
mark{background:#fff8c5}
pre{margin:0;overflow:auto;max-height:320px}
.ln{display:inline-block;min-width:3.5em;color:var(--muted);user-select:none}
.unavailable{color:var(--muted);font-style:italic;margin:0}
.kv{margin:6px 0 0;font-size:13px}
.none-shown{color:var(--muted);font-style:italic}
details.findings{margin:10px 0}details.findings summary{cursor:pointer}
"""

JS = """
(function () {
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-filter]'));
  function apply() {
    var on = {};
    boxes.forEach(function (b) {
      on[b.dataset.filter] = on[b.dataset.filter] || {};
      if (b.checked) on[b.dataset.filter][b.value] = true;
    });
    var shown = 0, total = 0;
    document.querySelectorAll('.claim').forEach(function (el) {
      total++;
      var ok = ['verdict', 'upstream', 'kind'].every(function (k) {
        return !on[k] || on[k][el.dataset[k]] === true;
      });
      el.hidden = !ok;
      if (ok) shown++;
    });
    document.querySelectorAll('section.lesson').forEach(function (s) {
      var note = s.querySelector('.none-shown');
      if (note) note.hidden = !s.querySelector('.claim') || !!s.querySelector('.claim:not([hidden])');
    });
    document.getElementById('shown').textContent = shown + ' of ' + total + ' claims shown';
    document.body.setAttribute('data-shown', String(shown));
  }
  var hash = location.hash.replace(/^#/, '');
  if (hash) {
    hash.split('&').forEach(function (part) {
      var kv = part.split('=');
      if (kv.length !== 2) return;
      var vals = decodeURIComponent(kv[1]).split(',');
      boxes.forEach(function (b) {
        if (b.dataset.filter === kv[0]) b.checked = vals.indexOf(b.value) >= 0;
      });
    });
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  apply();
})();
"""


def e(v: object) -> str:
    return escape("" if v is None else str(v), quote=True)


def _sentence_html(x: Excerpt, fragment: str | None) -> str:
    s = x.sentence or ""
    if fragment and fragment in s:
        i = s.index(fragment)
        return e(s[:i]) + "<mark>" + e(fragment) + "</mark>" + e(s[i + len(fragment):])
    return e(s)


def _claim_html(c: ClaimResult, x: Excerpt | None) -> str:
    v = c.verdict.value
    head = (f'<div class="claim-head"><span class="badge v-{v}">{v}</span>'
            f"<code>{e(c.id)}</code><span>{e(c.kind)} · {e(claim_rule(c))} · {e(c.upstream)}"
            f"</span><span class=\"muted\">lesson line {e(c.line or '?')}</span></div>")
    parts = [head]
    if c.message:
        parts.append(f'<p class="kv">{e(c.message)}</p>')
    if c.verdict in (Verdict.DIVERGED, Verdict.STALE):
        parts.append(f'<p class="kv">expected <code>{e(short_value(c.expected, 300))}</code> · '
                     f'pinned source has <code>{e(short_value(c.actual, 300))}</code></p>')
    if c.runtime is not None:
        parts.append(f'<p class="kv">runtime: {e(c.runtime.status)}'
                     + (f" — {e(c.runtime.message)}" if c.runtime.message else "") + "</p>")
    x = x or Excerpt()
    if x.sentence:
        left = (f'<div class="label">lesson, line {e(x.sentence_line)}</div>'
                f"<blockquote>{_sentence_html(x, c.fragment)}</blockquote>")
    else:
        left = ('<div class="label">lesson</div><p class="unavailable">lesson sentence not '
                'found' + (f" (fragment: {e(c.fragment)})" if c.fragment else "") + "</p>")
    ev = c.evidence
    if ev is not None:
        rng = f" L{ev.lines[0]}-L{ev.lines[1]}" if ev.lines else ""
        label = e(f"{c.upstream}: {ev.path}{rng}")
        link = f'<a href="{e(ev.permalink)}">{label}</a>' if ev.permalink else label
        ident = f" · blob <code>{e((ev.blob or '—')[:12])}</code> · {e(ev.status or '?')}"
        src_label = f'<div class="label">{link}{ident}</div>'
    else:
        src_label = f'<div class="label">{e(c.upstream)}: no source location</div>'
    if x.snippet is not None:
        start = x.snippet_start or 1
        body = "\n".join(f'<span class="ln">{start + i}</span>{e(line)}'
                         for i, line in enumerate(x.snippet.split("\n")))
        right = f"{src_label}<pre>{body}</pre>"
    else:
        note = x.snippet_note or "source unavailable at pinned identity"
        right = f'{src_label}<p class="unavailable">{e(note)}</p>'
    parts.append(f'<div class="pair"><div class="pane lesson-text">{left}</div>'
                 f'<div class="pane source">{right}</div></div>')
    return (f'<div class="claim v-{v}" id="claim-{e(safe_name(claim_gid(c)))}" '
            f'data-verdict="{v}" data-upstream="{e(c.upstream)}" data-kind="{e(c.kind)}">'
            + "".join(parts) + "</div>")


def _chart(report: RunReport) -> str:
    rows = [(f"{les.course}/{les.path}", les.verdicts) for les in report.lessons]
    label_w, bar_w, row_h, top = 400, 400, 24, 8
    most = max([sum(v.values()) for _, v in rows] + [1])
    h = top + row_h * max(len(rows), 1) + 34
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="verdict-chart" width="{label_w + bar_w + 60}" '
           f'height="{h}" role="img" aria-label="verdicts per lesson" '
           f'font-family="system-ui,sans-serif" font-size="12">']
    for i, (name, counts) in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text x="{label_w - 8}" y="{y + 15}" text-anchor="end">{e(name)}</text>')
        x = label_w
        total = sum(counts.values())
        for v in VERDICTS:
            n = counts.get(v.value, 0)
            if not n:
                continue
            w = round(bar_w * n / most, 1)
            out.append(f'<rect class="bar" data-lesson="{e(name)}" data-verdict="{v.value}" '
                       f'data-count="{n}" x="{x}" y="{y + 3}" width="{w}" height="{row_h - 6}" '
                       f'fill="{COLOURS[v.value]}"><title>{e(name)}: {n} {v.value}</title></rect>')
            x = round(x + w, 1)
        out.append(f'<text x="{x + 6}" y="{y + 15}" fill="#59636e">'
                   + (str(total) if total else "no claims") + "</text>")
    ly = top + row_h * max(len(rows), 1) + 14
    lx = label_w
    for v in VERDICTS:
        out.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{COLOURS[v.value]}"/>'
                   f'<text x="{lx + 16}" y="{ly + 10}">{v.value}</text>')
        lx += 30 + 7 * len(v.value)
    out.append("</svg>")
    return "".join(out)


def _filters(report: RunReport) -> str:
    def group(name: str, values: list[str]) -> str:
        boxes = "".join(f'<label><input type="checkbox" data-filter="{name}" value="{e(val)}" '
                        f'checked> {e(val)}</label>' for val in values)
        if not values:
            boxes = '<span class="muted">(none)</span>'

        return f'<fieldset id="filter-{name}"><legend>{name}</legend>{boxes}</fieldset>'

    verdicts = [v.value for v in VERDICTS]
    ups = sorted({c.upstream for c in report.claims} | {u.name for u in report.pins.upstreams})
    kinds = sorted({c.kind for c in report.claims})
    return ('<section id="filters">' + group("verdict", verdicts) + group("upstream", ups)
            + group("kind", kinds) + '<span id="shown" class="muted"></span></section>')


def _findings_table(findings) -> str:
    if not findings:
        return ""
    rows = "".join(f"<tr><td>{e(f.line)}</td><td><code>{e(finding_rule(f))}</code></td>"
                   f"<td>{e(f.rule)}</td><td>{e(f.severity.value)}</td><td>{e(f.message)}</td>"
                   "</tr>" for f in sorted(findings, key=finding_sort_key))
    from collections import Counter

    n = Counter(f.severity.value for f in findings)
    counts = ", ".join(f"{n[k]} {k}" for k in ("error", "warning", "info") if n[k])
    is_open = " open" if n["error"] or n["warning"] else ""
    return (f'<details class="findings"{is_open}><summary><b>Lint findings</b> ({counts})'
            "</summary><table><tr><th>line</th><th>code</th><th>rule</th><th>severity</th>"
            f"<th>message</th></tr>{rows}</table></details>")


def _section(title: str, sha: str | None, claims, findings, report: RunReport,
             key: str) -> str:
    claims = sorted(claims, key=lambda c: (VERDICT_ORDER[c.verdict], claim_sort_key(c)))
    body = "".join(_claim_html(c, report.excerpts.get(claim_gid(c))) for c in claims)
    if not claims:
        body = '<p class="muted">No claims for this lesson.</p>'
    sha_html = f' <span class="muted">sha256 <code>{e(sha[:16])}…</code></span>' if sha else ""
    return (f'<section class="lesson" data-lesson="{e(key)}"><h2>{e(title)}{sha_html}</h2>'
            f'{body}<p class="none-shown" hidden>No claim matches the filters.</p>'
            f"{_findings_table(findings)}</section>")


def render(report: RunReport) -> str:
    s = report.summary
    counts = " ".join(f'<span class="badge v-{v}">{n} {v}</span>'
                       for v, n in s.verdicts.items() if n) or "no claims"
    pins = "".join(f"<tr><td>{e(u.name)}</td><td>{e(u.version)}</td><td><code>{e(u.commit)}"
                   f"</code></td><td>{e(u.repo)}</td></tr>" for u in report.pins.upstreams)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>verifier report</title>", f"<style>{CSS}</style></head>",
        f'<body data-exit-code="{s.exit_code}">',
        "<header><h1>Verification report</h1>",
        f'<p class="muted">verifier {e(report.tool.version)} · record schema '
        f"{report.schema_version}" + (f" · {e(report.timestamp)}" if report.timestamp else "")
        + f" · {s.lessons} lesson(s) · {s.claims} claim(s) · exit code {s.exit_code}</p>",
        f"<p>{counts}</p>"
        + (f'<p class="muted">{e("; ".join(s.reasons))}</p>' if s.reasons else "")
        + "</header>",
        f"<h2>Pins</h2><table><tr><th>upstream</th><th>version</th><th>commit</th>"
        f"<th>repository</th></tr>{pins}</table>",
        f'<h2>Verdicts per lesson</h2><div id="chart">{_chart(report)}</div>',
        _filters(report),
    ]
    for les in report.lessons:
        parts.append(_section(f"{les.course}/{les.path}", les.sha256, report.lesson_claims(les),
                              report.lesson_findings(les), report, f"{les.course}/{les.path}"))
    if report.orphan_claims() or report.orphan_findings():
        parts.append(_section("lessons outside this run", None, report.orphan_claims(),
                              report.orphan_findings(), report, "(other)"))
    nr = "".join(f"<li><b>{e(n.stage)}</b>: {e(n.what)} — {e(n.why)}</li>"
                 for n in report.not_run)
    parts.append(f'<section id="not-run"><h2>Not run</h2><ul>{nr or "<li>nothing</li>"}</ul>'
                 "</section>")
    parts.append(f"<script>{JS}</script></body></html>")
    return "\n".join(parts) + "\n"
