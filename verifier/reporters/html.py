"""One self-contained HTML report, failures first: inline CSS, JS and SVG; no network.

Rendered from the record alone (`RunReport`, e.g. read back from a saved
verification.json), top to bottom:

- a **needs attention** box: every diverged, stale and error claim and every lint error
  and warning, each linked to its card (or a plain statement that nothing needs it);
- **not checked**: every distinct reason why claims or lint items could not be checked,
  shown once and referenced from the cards it applies to;
- filters by verdict, severity, upstream, kind and course (also settable from the URL
  fragment, e.g. `report.html#verdict=diverged&severity=error,warning`);
- the lessons, most in need of attention first. A claim card shows what was asserted
  (symbol, expected value, options such as a pattern), the lesson sentence (its Markdown
  rendered) beside the source at the evidence lines -- only from pinned or release
  sources -- and the verdict. Lint findings are cards too, coloured by severity, with
  links to the lesson line and the cited source lines; info findings and lists of
  unchecked items are folded;
- run details: verdicts per lesson (SVG), pins, courses, what did not run.
"""

from __future__ import annotations

from collections import Counter
from importlib.resources import files

from verifier.report import (SEVERITY_ORDER, VERDICT_ORDER, Excerpt, LessonRecord,
                             RunReport, claim_gid, claim_sort_key, finding_sort_key, safe_name)
from verifier.reporters.html_markup import Causes, e, lang_attr, sentence_html
from verifier.reporters.rules import claim_rule, finding_rule, short_value
from verifier.results import ClaimResult, Finding, Severity, Verdict

NAME = "html"
SUFFIX = ".html"
IN_VERIFY = True

COLOURS = {"verified": "#1a7f37", "diverged": "#cf222e", "stale": "#bc4c00",
           "unavailable": "#6e7781", "error": "#8250df"}
SEVERITY_COLOURS = {"error": "#cf222e", "warning": "#9a6700", "info": "#0969da"}
ATTENTION_BG = "#ffebe9"   # the needs-attention box (only there)
CLEAN_BG = "#dafbe1"       # ... when nothing needs attention
VERDICTS = sorted(Verdict, key=lambda v: VERDICT_ORDER[v])
SEVERITIES = sorted(Severity, key=lambda s: SEVERITY_ORDER[s])


def _asset(name: str) -> str:
    """Inlined into the page (one self-contained file): verifier/reporters/assets/."""
    return (files("verifier.reporters") / "assets" / name).read_text(encoding="utf-8")


CSS = (f":root{{--attention-bg:{ATTENTION_BG};--clean-bg:{CLEAN_BG}}}\n"
       + _asset("report.css")) + "".join(
    f".badge.v-{k}{{background:{c}}}.card.v-{k}{{border-left-color:{c}}}\n"
    for k, c in COLOURS.items()) + "".join(
    f".badge.s-{k}{{background:{c}}}.card.s-{k}{{border-left-color:{c}}}\n"
    for k, c in SEVERITY_COLOURS.items())

JS = _asset("report.js")


# --------------------------------------------------------------------------- links


def _web(url: str | None) -> bool:
    return bool(url) and url.startswith(("https://", "http://"))


def lesson_link(report: RunReport, course: str | None, path: str,
                line: int | None) -> str | None:
    """The lesson line in its course repository at the pinned course commit."""
    c = next((c for c in report.pins.courses if c.name == course), None)
    if c is None or not c.git or not c.commit or not _web(c.git):
        return None
    base = c.git.rstrip("/").removesuffix(".git")
    return f"{base}/blob/{c.commit}/{path}" + (f"#L{line}" if line else "")


def _cited_link(report: RunReport, f: Finding) -> str | None:
    if _web(f.target):
        return f.target
    up = next((u for u in report.pins.upstreams if u.name == f.upstream), None)
    path = f.data.get("path") if isinstance(f.data, dict) else None
    if up is None or not isinstance(path, str) or not _web(up.repo):
        return None
    url = f"{up.repo.rstrip('/').removesuffix('.git')}/blob/{up.commit}/{path}"
    start, end = f.data.get("start"), f.data.get("end")
    if isinstance(start, int):
        url += f"#L{start}" + (f"-L{end}" if isinstance(end, int) and end != start else "")
    return url


def _a(url: str | None, text: str, title: str | None = None) -> str:
    t = f' title="{e(title)}"' if title else ""
    return f'<a href="{e(url)}"{t}>{text}</a>' if url else text


# --------------------------------------------------------------------------- cards


def claim_anchor(c: ClaimResult) -> str:
    return "claim-" + safe_name(claim_gid(c))


def finding_anchors(findings: list[Finding]) -> dict[int, str]:
    """id(finding) -> a unique, deterministic anchor (findings in record order)."""
    out, used = {}, Counter()
    for f in findings:
        base = "finding-" + safe_name(f"{f.course or '-'}-{f.path}-{f.line}-{finding_rule(f)}")
        used[base] += 1
        out[id(f)] = base if used[base] == 1 else f"{base}-{used[base]}"
    return out


def _asserted(c: ClaimResult) -> str:
    bits = []
    if c.symbol:
        bits.append(f"<b>symbol</b> <code>{e(c.symbol)}</code>")
    if c.evidence is not None:
        bits.append(f"<b>in</b> <code>{e(c.evidence.path)}</code>")
    if c.expected is not None:
        bits.append(f"<b>expected</b> <code>{e(short_value(c.expected, 300))}</code>")
    for k, v in sorted(c.options.items()):
        shown = v if isinstance(v, str) else short_value(v, 200)
        bits.append(f"<b>{e(k)}</b> <code>{e(shown)}</code>")
    return ('<p class="kv asserted">asserted: ' + " · ".join(bits) + "</p>") if bits else ""


def _source_pane(c: ClaimResult, x: Excerpt, causes: Causes, anchor: str) -> str:
    ev = c.evidence
    if ev is not None:
        rng = f" L{ev.lines[0]}-L{ev.lines[1]}" if ev.lines else ""
        label = _a(ev.permalink if _web(ev.permalink) else None, e(f"{c.upstream}: {ev.path}{rng}"))
        ident = f" · blob <code>{e((ev.blob or '—')[:12])}</code> · {e(ev.status or '?')}"
        if ev.provider:
            ident += f" · via {e(ev.provider)}"
        head = f'<div class="label">{label}{ident}</div>'
    elif c.runtime is not None or c.runtime_code:
        head = (f'<div class="label">{e(c.upstream)}: a runtime check in the pinned '
                "environment (no source lines)</div>")
        return head + _runtime_evidence(c, open_code=True)
    else:
        head = f'<div class="label">{e(c.upstream)}: no source location</div>'
    if x.snippet is not None:
        start = x.snippet_start or 1
        rows = "".join(f'<div class="sl"><span class="ln">{start + i}</span>'
                       f'<span class="t">{e(line) or " "}</span></div>'
                       for i, line in enumerate(x.snippet.split("\n")))
        return f'{head}<div class="src">{rows}</div>'
    if c.verdict is Verdict.UNAVAILABLE:
        return (f'{head}<p class="unavailable">not checked: '
                f"{causes.html(c.message, anchor, claim_gid(c)) or 'source unavailable'}</p>")
    note = x.snippet_note or "source unavailable at pinned identity"
    return f'{head}<p class="unavailable">{e(note)}</p>'


def _runtime_evidence(c: ClaimResult, open_code: bool = False) -> str:
    """What the runtime check observed, and its code (folded unless `open_code`)."""
    out = ""
    rt = c.runtime
    if rt is not None:
        val = ""
        if rt.value is not None or rt.expected is not None:
            val = (f" · value <code>{e(short_value(rt.value, 300))}</code>, expected "
                   f"<code>{e(short_value(rt.expected, 300))}</code>")
        out += (f'<p class="kv"><b>runtime</b> {e(rt.status)}{val}'
                + (f" — {e(rt.message)}" if rt.message else "") + "</p>")
    if c.runtime_code:
        out += (f'<details class="fold code"{" open" if open_code else ""}><summary>the '
                f'runtime check</summary><pre class="src">{e(c.runtime_code)}</pre></details>')
    return out


def _note(c: ClaimResult) -> str:
    """The claim's note: the evidence a person wrote down (what the pinned source or the
    runtime shows). Open on a card that needs a look, folded on the others."""
    if not c.note:
        return ""
    if c.verdict.failing:
        return f'<p class="kv note"><b>evidence (the claim\'s note)</b> {e(c.note)}</p>'
    return (f'<details class="fold note"><summary>the claim\'s note</summary>'
            f"<p>{e(c.note)}</p></details>")


def claim_card(report: RunReport, c: ClaimResult, causes: Causes) -> str:
    v = c.verdict.value
    anchor = claim_anchor(c)
    line = _a(lesson_link(report, c.course, c.lesson, c.line),
              f"lesson line {e(c.line)}" if c.line else "lesson (fragment not found)")
    parts = [f'<div class="head"><span class="badge v-{v}">{v}</span><code>{e(c.id)}</code>'
             f"<span>{e(c.kind)} · {e(claim_rule(c))} · {e(c.upstream)}</span>"
             f'<span class="muted">{line}</span></div>', _asserted(c)]
    if c.verdict in (Verdict.DIVERGED, Verdict.STALE) and c.actual is not None:
        said = "pinned source has" if c.evidence is not None or c.runtime is None else \
            "the pinned environment gives"
        parts.append(f'<p class="kv"><b>{said}</b> '
                     f"<code>{e(short_value(c.actual, 300))}</code></p>")
    if c.message and c.verdict is not Verdict.UNAVAILABLE:
        parts.append(f'<p class="kv">{e(c.message)}</p>')
    parts.append(_note(c))
    x = report.excerpts.get(claim_gid(c)) or Excerpt()
    if c.evidence is not None:     # else the source pane shows the runtime evidence
        parts.append(_runtime_evidence(c))
    if x.sentence:
        link = _a(lesson_link(report, c.course, c.lesson, x.sentence_line),
                  "lesson, line " + e(x.sentence_line))
        left = (f'<div class="label">{link}</div><p class="sentence"{lang_attr(x.sentence)}>'
                f"{sentence_html(x.sentence, c.fragment)}</p>")
    else:
        left = ('<div class="label">lesson</div><p class="unavailable">lesson sentence not '
                "found" + (f" (fragment: {e(c.fragment)})" if c.fragment else "") + "</p>")
    parts.append(f'<div class="pair"><div class="pane lesson-text">{left}</div>'
                 f'<div class="pane source">{_source_pane(c, x, causes, anchor)}</div></div>')
    return (f'<div class="card claim v-{v}" id="{e(anchor)}" data-type="claim" '
            f'data-verdict="{v}" data-upstream="{e(c.upstream)}" data-kind="{e(c.kind)}" '
            f'data-course="{e(c.course or "-")}">' + "".join(parts) + "</div>")


def _unchecked(f: Finding, causes: Causes, anchor: str) -> str:
    data = f.data.get("unchecked") if isinstance(f.data, dict) else None
    if not isinstance(data, dict) or not data:
        return ""
    rows = []
    for origin, items in sorted(data.items()):
        for it in items if isinstance(items, list) else []:
            if not isinstance(it, dict):
                continue
            rows.append(f"<tr><td>{e(it.get('line'))}</td><td>{e(origin)}</td>"
                        f"<td><code>{e(it.get('target'))}</code></td>"
                        f"<td>{causes.html(str(it.get('why') or ''), anchor, f.path)}</td></tr>")
    if not rows:
        return ""
    return (f'<details class="fold unchecked"><summary>the {len(rows)} unchecked item(s)'
            "</summary><table><tr><th>line</th><th>rule</th><th>target</th><th>why</th></tr>"
            + "".join(rows) + "</table></details>")


def finding_card(report: RunReport, f: Finding, anchor: str, causes: Causes) -> str:
    s = f.severity.value
    where = _a(lesson_link(report, f.course, f.path, f.line), f"lesson line {e(f.line)}")
    cited = _cited_link(report, f)
    links = [where] + ([_a(cited, "cited source lines")] if cited else [])
    attrs = ['data-type="finding"', f'data-severity="{s}"', f'data-course="{e(f.course or "-")}"',
             f'data-rule="{e(f.rule)}"']
    if f.upstream and any(u.name == f.upstream for u in report.pins.upstreams):
        attrs.append(f'data-upstream="{e(f.upstream)}"')
    body = [f'<div class="head"><span class="badge s-{s}">{s}</span>'
            f"<code>{e(finding_rule(f))}</code><span>{e(f.rule)}</span>"
            f'<span class="muted">{" · ".join(links)}</span></div>',
            f'<p class="kv">{e(f.message)}</p>']
    if f.target and not _web(f.target):
        body.append(f'<p class="kv"><b>about</b> <code>{e(f.target)}</code></p>')
    body.append(_unchecked(f, causes, anchor))
    return (f'<div class="card finding s-{s}" id="{e(anchor)}" ' + " ".join(attrs) + ">"
            + "".join(body) + "</div>")


# --------------------------------------------------------------------------- page parts


def cannot_act(f: Finding) -> bool:
    """A warning that only says what could not be checked for want of sources (VL109's
    summaries: the upstream files are not available at pinned identity). An author
    cannot fix it in the lesson, so it is not listed as needing attention."""
    return (f.severity is Severity.WARNING and isinstance(f.data, dict)
            and bool(f.data.get("unchecked")))


def attention_items(report: RunReport) -> tuple[list[ClaimResult], list[Finding]]:
    """What needs attention: failing claims, lint errors and the warnings an author can
    act on (see `cannot_act`)."""
    claims = sorted((c for c in report.claims if c.verdict.failing),
                    key=lambda c: (VERDICT_ORDER[c.verdict], claim_sort_key(c)))
    findings = sorted((f for f in report.findings
                       if f.severity is not Severity.INFO and not cannot_act(f)),
                      key=lambda f: (SEVERITY_ORDER[f.severity], finding_sort_key(f)))
    return claims, findings


def _finding_item(f: Finding, anchors: dict[int, str]) -> str:
    s = f.severity.value
    return (f'<li><span class="badge s-{s}">lint {s}</span> <a class="where" '
            f'href="#{e(anchors[id(f)])}">{e(_where(f.course, f.path, f.line))}</a>'
            f" <code>{e(finding_rule(f))}</code> {e(f.message)}</li>")


def _unactionable(report: RunReport, anchors: dict[int, str]) -> str:
    """The warnings an author cannot act on, counted in one line and folded."""
    quiet = sorted((f for f in report.findings if cannot_act(f)), key=finding_sort_key)
    if not quiet:
        return ""
    n = sum(int(f.data.get("count", 0) or 0) for f in quiet)
    return (f'<details class="box" id="cannot-check"><summary>Could not be checked for want '
            f"of sources: {len(quiet)} lint warning(s)" + (f", {n} item(s)" if n else "")
            + "</summary><p class=\"muted\">The upstream files these lessons cite or name "
            "are not available at pinned identity here (configure a mirror or the network; "
            "see the README). Nothing in the lessons to fix.</p><ol>"
            + "".join(_finding_item(f, anchors) for f in quiet) + "</ol></details>")


def _attention(report: RunReport, anchors: dict[int, str]) -> str:
    claims, findings = attention_items(report)
    if not claims and not findings:
        return ('<section id="attention" class="clean"><h2>Nothing needs attention</h2>'
                "<p>No claim diverged, went stale or failed, and lint found no error or "
                "warning an author can act on.</p></section>")
    items = []
    for c in claims:
        v = c.verdict.value
        items.append(f'<li><span class="badge v-{v}">{v}</span> <a class="where" '
                     f'href="#{e(claim_anchor(c))}">{e(_where(c.course, c.lesson, c.line))}'
                     f"</a> <code>{e(c.id.rsplit('/', 1)[-1])}</code> "
                     f"{e(c.message or c.kind)}</li>")
    items += [_finding_item(f, anchors) for f in findings]
    n = Counter(c.verdict.value for c in claims)
    m = Counter(f.severity.value for f in findings)
    head = ", ".join([f"{n[v.value]} {v.value}" for v in VERDICTS if n[v.value]]
                     + [f"{m[s.value]} lint {s.value}(s)" for s in SEVERITIES if m[s.value]])
    return (f'<section id="attention"><h2>Needs attention: {e(head)}</h2><ol>'
            + "".join(items) + "</ol></section>")


def _where(course: str | None, path: str, line: int | None) -> str:
    return (f"{course}/" if course else "") + path + (f":{line}" if line else "")


def _causes_section(report: RunReport, causes: Causes) -> str:
    unav = [c for c in report.claims if c.verdict is Verdict.UNAVAILABLE]
    if not causes.ids and not unav:
        return ""
    rows = []
    for key, n in sorted(causes.ids.items(), key=lambda kv: kv[1]):
        users = causes.users.get(key, [])
        links = ", ".join(f'<a href="#{e(a)}">{e(label)}</a>' for a, label in users[:200])
        more = f" and {len(users) - 200} more" if len(users) > 200 else ""
        rows.append(f'<li id="cause-{n}"><b>cause {n}</b> ({causes.counts[key]} item(s)): '
                    f"<code>{e(key)}</code><details class=\"fold\"><summary>where</summary>"
                    f"{links}{more}</details></li>")
    return (f'<details class="box" id="causes"><summary>Not checked: {len(unav)} claim(s) '
            f"unavailable at pinned identity; {len(causes.ids)} distinct cause(s)</summary>"
            "<p class=\"muted\">Each reason is shown once here; cards link to it.</p><ol>"
            + "".join(rows) + "</ol></details>")


def _filters(report: RunReport) -> str:
    def group(name: str, values: list[str]) -> str:
        boxes = "".join(f'<label><input type="checkbox" data-filter="{name}" value="{e(val)}" '
                        f"checked> {e(val)}</label>" for val in values)
        return (f'<fieldset id="filter-{name}"><legend>{name}</legend>'
                f'{boxes or "<span class=muted>(none)</span>"}</fieldset>')

    ups = sorted({c.upstream for c in report.claims} | {u.name for u in report.pins.upstreams})
    kinds = sorted({c.kind for c in report.claims})
    courses = sorted({c.course or "-" for c in report.claims}
                     | {f.course or "-" for f in report.findings}
                     | {les.course for les in report.lessons})
    return ('<section id="filters">' + group("verdict", [v.value for v in VERDICTS])
            + group("severity", [s.value for s in SEVERITIES]) + group("upstream", ups)
            + group("kind", kinds) + group("course", courses)
            + '<span id="shown" class="muted"></span></section>')


def _counts_html(claims: list[ClaimResult], findings: list[Finding]) -> str:
    vc = Counter(c.verdict.value for c in claims)
    sc = Counter(f.severity.value for f in findings)
    out = [f'<span class="badge v-{v.value}">{vc[v.value]} {v.value}</span>'
           for v in VERDICTS if vc[v.value]]
    out += [f'<span class="badge s-{s.value}">{sc[s.value]} lint {s.value}</span>'
            for s in SEVERITIES if sc[s.value]]
    return " ".join(out)


def attention_score(claims: list[ClaimResult], findings: list[Finding]) -> tuple[int, ...]:
    """Bigger is more urgent: failing claims and lint errors, then warnings, then what
    could not be checked."""
    fail = sum(1 for c in claims if c.verdict.failing)
    err = sum(1 for f in findings if f.severity is Severity.ERROR)
    warn = sum(1 for f in findings if f.severity is Severity.WARNING)
    unav = sum(1 for c in claims if c.verdict is Verdict.UNAVAILABLE)
    return (fail + err, warn, unav)


def _section(report: RunReport, title: str, key: str, sha: str | None, claims, findings,
             anchors: dict[int, str], causes: Causes) -> str:
    claims = sorted(claims, key=lambda c: (VERDICT_ORDER[c.verdict], claim_sort_key(c)))
    findings = sorted(findings, key=lambda f: (SEVERITY_ORDER[f.severity], finding_sort_key(f)))
    loud = [f for f in findings if f.severity is not Severity.INFO]
    info = [f for f in findings if f.severity is Severity.INFO]
    body = [claim_card(report, c, causes) for c in claims]
    body += [finding_card(report, f, anchors[id(f)], causes) for f in loud]
    if info:
        body.append(f'<details class="fold info-findings"><summary>{len(info)} info '
                    "finding(s)</summary>"
                    + "".join(finding_card(report, f, anchors[id(f)], causes) for f in info)
                    + "</details>")
    if not claims and not findings:
        body.append('<p class="muted">No claims and no lint findings for this lesson.</p>')
    sha_html = f' <span class="muted sha">sha256 <code>{e(sha[:16])}…</code></span>' if sha else ""
    return (f'<section class="lesson" id="lesson-{e(safe_name(key))}" data-lesson="{e(key)}">'
            f"<h2><code>{e(title)}</code> {_counts_html(claims, findings)}{sha_html}</h2>"
            + "".join(body)
            + '<p class="none-shown" hidden>Nothing here matches the filters.</p></section>')


def _chart(report: RunReport, order: list[LessonRecord]) -> str:
    rows = [(f"{les.course}/{les.path}", les.verdicts) for les in order]
    label_w, bar_w, row_h, top = 420, 400, 22, 8
    most = max([sum(v.values()) for _, v in rows] + [1])
    h = top + row_h * max(len(rows), 1) + 34
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="verdict-chart" '
           f'width="{label_w + bar_w + 60}" height="{h}" role="img" '
           'aria-label="verdicts per lesson" font-family="system-ui,sans-serif" font-size="12">']
    for i, (name, counts) in enumerate(rows):
        y = top + i * row_h
        out.append(f'<text x="{label_w - 8}" y="{y + 14}" text-anchor="end">{e(name)}</text>')
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
        out.append(f'<text x="{x + 6}" y="{y + 14}" fill="#59636e">'
                   + (str(total) if total else "no claims") + "</text>")
    ly = top + row_h * max(len(rows), 1) + 14
    lx = label_w
    for v in VERDICTS:
        out.append(f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{COLOURS[v.value]}"/>'
                   f'<text x="{lx + 16}" y="{ly + 10}">{v.value}</text>')
        lx += 30 + 7 * len(v.value)
    out.append("</svg>")
    return "".join(out)


def _details(report: RunReport, order: list[LessonRecord]) -> str:
    pins = "".join(f"<tr><td>{e(u.name)}</td><td>{e(u.version)}</td><td><code>{e(u.commit)}"
                   f"</code></td><td>{e(u.repo)}</td></tr>" for u in report.pins.upstreams)
    courses = "".join(
        f"<tr><td>{e(c.name)}</td><td>{e(c.git or '—')}</td><td><code>{e(c.commit or '—')}"
        f"</code></td><td>{e({'commit': 'repository at the commit (full tree)', 'local': 'local copy' + (' (partial)' if c.partial else '')}.get(c.read_from or '', 'not read'))}"
        f"</td></tr>" for c in report.pins.courses)
    nr = "".join(f"<li><b>{e(n.stage)}</b>: {e(n.what)} — {e(n.why)}</li>"
                 for n in report.not_run)
    rt = report.runtime
    rt_line = (f"{rt.ran} claim(s) ran at runtime: " + ", ".join(f"{n} {k}" for k, n in
                                                             sorted(rt.statuses.items()))
               if rt.ran else "no runtime check ran")
    return ('<section id="run-details"><h2>Run details</h2>'
            f'<h3>Verdicts per lesson</h3><div id="chart">{_chart(report, order)}</div>'
            "<h3>Pins</h3><table><tr><th>upstream</th><th>version</th><th>commit</th>"
            f"<th>repository</th></tr>{pins}</table>"
            "<h3>Courses</h3><table><tr><th>course</th><th>repository</th><th>commit</th>"
            f"<th>read from</th></tr>{courses}</table>"
            f"<h3>Runtime</h3><p>{e(rt_line)}</p>"
            f'<section id="not-run"><h3>Not run</h3><ul>{nr or "<li>nothing</li>"}</ul></section>'
            "</section>")


def lesson_order(report: RunReport) -> list[LessonRecord]:
    """Lessons, most in need of attention first (ties in course/path order)."""
    def key(les: LessonRecord):
        score = attention_score(report.lesson_claims(les), report.lesson_findings(les))
        return tuple(-x for x in score) + (les.course, les.path)

    return sorted(report.lessons, key=key)


def render(report: RunReport) -> str:
    s = report.summary
    anchors = finding_anchors(report.findings)
    reasons = [c.message or "" for c in report.claims if c.verdict is Verdict.UNAVAILABLE]
    for f in report.findings:
        data = f.data.get("unchecked") if isinstance(f.data, dict) else None
        if isinstance(data, dict):
            reasons += [str(it.get("why") or "") for items in data.values()
                        if isinstance(items, list) for it in items if isinstance(it, dict)]
    causes = Causes(reasons)
    order = lesson_order(report)

    sections = []
    for les in order:
        key = f"{les.course}/{les.path}"
        sections.append(_section(report, key, key, les.sha256, report.lesson_claims(les),
                                 report.lesson_findings(les), anchors, causes))
    oc, of = report.orphan_claims(), report.orphan_findings()
    if oc or of:
        other = _section(report, "outside the lessons of this run", "(other)", None, oc, of,
                         anchors, causes)
        if attention_score(oc, of)[0]:
            sections.insert(0, other)
        else:
            sections.append(other)
    counts = " ".join(f'<span class="badge v-{v}">{n} {v}</span>'
                      for v, n in s.verdicts.items() if n) or "no claims"
    lint = ", ".join(f"{n} {k}" for k, n in s.findings.items() if n) or "none"
    verdict = (f"exit code {s.exit_code}: " + "; ".join(s.reasons)) if s.reasons else \
        f"exit code {s.exit_code}"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>verifier report</title>", f"<style>{CSS}</style></head>",
        f'<body data-exit-code="{s.exit_code}">',
        "<header><h1>Verification report</h1>",
        f'<p class="muted">verifier {e(report.tool.version)} · record schema '
        f"{report.schema_version}" + (f" · {e(report.timestamp)}" if report.timestamp else "")
        + f" · {s.lessons} lesson(s) · {s.claims} claim(s) · lint: {e(lint)}</p>",
        f"<p>{counts} <b>{e(verdict)}</b></p></header>",
        _attention(report, anchors), _unactionable(report, anchors),
    ]
    body = "".join(sections)   # cards register their causes before the causes list
    parts += [_causes_section(report, causes), _filters(report), body,
              _details(report, order), f"<script>{JS}</script></body></html>"]
    return "\n".join(p for p in parts if p) + "\n"


__all__ = ["ATTENTION_BG", "COLOURS", "SEVERITY_COLOURS", "attention_items", "cannot_act",
           "lesson_order", "render", "sentence_html"]
