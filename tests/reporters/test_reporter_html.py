"""The HTML report, from the fixture record: failures first, self-contained, snippets only
at pinned identity, each unavailable cause once; checked in a real headless Chromium
(Debian's `chromium`; skipped with the reason when absent)."""

from __future__ import annotations

import html as _h
import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

from tests.reporters.fixture_record import DR_CAUSE, FIXTURE, MJ_CAUSE
from tests.reporters.pngread import colour_counts, read_png
from verifier.report import RunReport, claim_gid
from verifier.reporters import render
from verifier.reporters.html import (ATTENTION_BG, COLOURS, SEVERITY_COLOURS, attention_items,
                                     claim_anchor, finding_anchors, lesson_order, sentence_html)
from verifier.results import Severity, Verdict


@pytest.fixture
def page(record) -> str:
    return render(record, "html")


def card(page: str, anchor: str) -> str:
    """The HTML of one card (claim or finding) by its id."""
    start = page.index(f'id="{anchor}"')
    start = page.rindex("<div ", 0, start)
    m = re.compile(r'<div class="card |</section>|<details class="fold info').search(
        page, start + 1)
    return page[start:m.start() if m else len(page)]


def test_self_contained_and_deterministic(page, record):
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|iframe|link|embed|object|source)\b[^>]*\b(src|href)=",
                         page, re.I)
    assert "@import" not in page and "url(" not in page
    # the only URLs in attributes are navigational links (never loaded), in-page anchors
    # and the SVG namespace
    urls = set(re.findall(r'\b(?:href|xmlns)="([^"]+)"', page))
    assert urls and all(u.startswith(("https://github.com/", "#")) or
                        u == "http://www.w3.org/2000/svg" for u in urls)
    assert "<svg" in page and "<style>" in page and "<script>" in page
    assert render(record, "html") == page


def test_rendered_again_from_the_saved_record(record, page):
    """The page needs nothing but the record: read back from JSON, it is the same page."""
    again = RunReport.model_validate_json(FIXTURE.read_text(encoding="utf-8"))
    assert render(again, "html") == page
    assert render(again.model_copy(update={"excerpts": {}}), "html") != page


def test_failure_summary_first_with_a_link_to_every_card(page, record):
    claims, findings = attention_items(record)
    assert claims and findings
    box = page[page.index('<section id="attention">'):page.index("</section>",
                                                              page.index('id="attention"'))]
    # nothing but the header comes before it
    assert page.index('id="attention"') < page.index('id="filters"') < page.index(
        'class="lesson"')
    anchors = finding_anchors(record.findings)
    hrefs = re.findall(r'href="#([^"]+)"', box)
    want = [claim_anchor(c) for c in claims] + [anchors[id(f)] for f in findings]
    assert hrefs == want                     # failing claims first, then lint by severity
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    assert set(want) <= ids                  # every link lands on a card
    assert {c.verdict for c in claims} == {Verdict.DIVERGED, Verdict.STALE, Verdict.ERROR}
    assert [f.severity for f in findings] == sorted(
        (f.severity for f in findings), key=[Severity.ERROR, Severity.WARNING].index)
    assert not any(f.severity is Severity.INFO for f in findings)


def test_nothing_needs_attention_is_said(record):
    clean = record.model_copy(update={
        "claims": [c for c in record.claims if c.verdict in (Verdict.VERIFIED,
                                                             Verdict.UNAVAILABLE)],
        "findings": [f for f in record.findings if f.severity is Severity.INFO]})
    page = render(clean, "html")
    assert '<section id="attention" class="clean"><h2>Nothing needs attention</h2>' in page


def test_lessons_most_in_need_first(page, record):
    order = [f"{les.course}/{les.path}" for les in lesson_order(record)]
    assert re.findall(r'<section class="lesson" id="[^"]+" data-lesson="([^"]+)"', page) \
        == order + ["(other)"]

    def need(name):
        les = next(x for x in record.lessons if f"{x.course}/{x.path}" == name)
        cl, fs = record.lesson_claims(les), record.lesson_findings(les)
        return (sum(c.verdict.value in ("diverged", "stale", "error") for c in cl)
                + sum(f.severity is Severity.ERROR for f in fs))

    needs = [need(n) for n in order]
    assert needs == sorted(needs, reverse=True) and needs[0] > needs[-1] == 0
    assert order[-1] == "newton-atlas/docs/guide.md"  # the lesson with nothing at all


def test_lint_findings_are_cards(page, record):
    anchors = finding_anchors(record.findings)
    assert len(set(anchors.values())) == len(record.findings)
    for f in record.findings:
        block = card(page, anchors[id(f)])
        assert f'class="card finding s-{f.severity.value}"' in block
        assert f'data-severity="{f.severity.value}"' in block
        assert _h.escape(f.message) in block
        if f.course:   # the lesson line in the course repository at its commit
            course = next(c for c in record.pins.courses if c.name == f.course)
            if course.git:
                assert f'href="{course.git}/blob/{course.commit}/{f.path}#L{f.line}"' in block
        if f.target and f.target.startswith("https://"):
            assert f'href="{_h.escape(f.target)}">cited source lines</a>' in block
    # info findings folded; the unchecked list of VL109 expandable, one row per item
    assert re.search(r'<details class="fold info-findings"><summary>1 info finding', page)
    vl109 = next(f for f in record.findings if f.code == "VL109")
    block = card(page, anchors[id(vl109)])
    assert "<summary>the 2 unchecked item(s)</summary>" in block
    assert block.count("<tr><td>") == 2
    for sev, colour in SEVERITY_COLOURS.items():
        assert f".badge.s-{sev}{{background:{colour}}}" in page


def test_verified_cards_show_what_was_asserted(page, record):
    text_claim = next(c for c in record.claims if c.kind == "text")
    block = card(page, claim_anchor(text_claim))
    assert text_claim.verdict is Verdict.VERIFIED
    assert "asserted:" in block and "<b>expected</b> <code>true</code>" in block
    assert f"<b>pattern</b> <code>{_h.escape(text_claim.options['pattern'])}</code>" in block
    assert "<b>flags</b> <code>i</code>" in block
    enum = next(c for c in record.claims if c.id.endswith("/cone-values"))
    block = card(page, claim_anchor(enum))
    assert "<b>symbol</b> <code>mjtCone</code>" in block and "<b>compare</b>" in block
    assert "<b>runtime</b> confirmed" in block


def test_source_lines_only_at_pinned_identity_and_they_wrap(page, record):
    shown = 0
    for c in record.claims:
        block = card(page, claim_anchor(c))
        x = record.excerpts[claim_gid(c)]
        if x.snippet is not None:
            assert c.evidence.status in ("pinned", "release")
            first = x.snippet.split("\n")[0]
            assert (f'<span class="ln">{x.snippet_start}</span><span class="t">'
                    f"{_h.escape(first)}</span>") in block
            shown += 1
        else:
            assert '<div class="src">' not in block
    assert shown >= 5
    assert ".src .t{white-space:pre-wrap;overflow-wrap:anywhere}" in page


def test_each_unavailable_cause_once(page, record):
    """Provider failures shared by many files are written once, and cards link to them."""
    unav = [c for c in record.claims if c.verdict is Verdict.UNAVAILABLE]
    for cause in (MJ_CAUSE, DR_CAUSE):
        assert page.count(_h.escape(cause)) == 1
    causes = dict(re.findall(r'<li id="(cause-\d+)"><b>cause \d+</b> \((\d+) item', page))
    assert len(causes) >= 2
    for c in unav:
        block = card(page, claim_anchor(c))
        if "mismatch" in (c.message or ""):
            continue   # a reason of its own: shown on its card
        ref = re.search(r'href="#(cause-\d+)"', block)
        assert ref and ref.group(1) in causes
        assert c.evidence.path in block   # what is specific to the card stays there
    # the causes list links back to every card that uses it
    section = page[page.index('id="causes"'):page.index('id="filters"')]
    for c in unav:
        if "mismatch" not in (c.message or ""):
            assert f'href="#{claim_anchor(c)}"' in section


@pytest.mark.parametrize("sentence,fragment,want", [
    ("摩擦锥 `mjCONE_ELLIPTIC` 是 **椭圆** 锥", "`mjCONE_ELLIPTIC` 是",
     "摩擦锥 <code><mark>mjCONE_ELLIPTIC</mark></code><mark> 是</mark> <strong>椭圆</strong> 锥"),
    ("## `mjSTATE_PHYSICS` 组成", "mjSTATE_PHYSICS",
     "<code><mark>mjSTATE_PHYSICS</mark></code> 组成"),
    ("| `f(x)` | 作用 |", "`f(x)`", "<code><mark>f(x)</mark></code> · 作用"),
    ("- 见 [说明](guide.md) 与 <b>原文</b>", None, "见 说明 与 &lt;b&gt;原文&lt;/b&gt;"),
])
def test_lesson_markdown_is_rendered(sentence, fragment, want):
    assert sentence_html(sentence, fragment) == want


def test_lesson_pane_has_no_raw_markdown(page, record):
    for c in record.claims:
        x = record.excerpts[claim_gid(c)]
        if not x.sentence:
            continue
        block = card(page, claim_anchor(c))
        pane = block[block.index('<p class="sentence"'):]
        pane = pane[pane.index(">") + 1:pane.index("</p>")]
        assert "`" not in pane and "**" not in pane and not pane.startswith("#")


# --------------------------------------------------------------------------- browser

def chromium() -> str:
    for cand in (os.environ.get("VERIFIER_TEST_CHROMIUM"), "/usr/bin/chromium",
                 shutil.which("chromium"), shutil.which("chromium-browser")):
        if cand and os.path.exists(cand):
            return cand
    pytest.skip("no headless Chromium found (install Debian's `chromium`; .ci/run does) - "
                "the HTML report was not checked in a browser")


def run_browser(tmp_path, url: str, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars",
           f"--user-data-dir={profile}", *extra, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def visible(dom: str, kind: str, attr: str) -> Counter:
    """Values of `attr` over the cards of `kind` that are not hidden, from the DOM."""
    out = Counter()
    for tag in re.findall(rf'<div class="card {kind} [^"]+"[^>]*>', dom):
        if not re.search(r'\shidden(=""|\s|>)', tag):
            out[re.search(rf'{attr}="([^"]*)"', tag).group(1)] += 1
    return out


@pytest.fixture
def page_file(tmp_path, page):
    p = tmp_path / "report.html"
    p.write_text(page, encoding="utf-8")
    return p


@pytest.mark.browser
def test_browser_filters_reach_claims_and_findings(record, page_file, tmp_path):
    want_v = Counter(c.verdict.value for c in record.claims)
    want_s = Counter(f.severity.value for f in record.findings)
    dom = run_browser(tmp_path, page_file.as_uri(), "--dump-dom").stdout
    assert visible(dom, "claim", "data-verdict") == want_v
    assert visible(dom, "finding", "data-severity") == want_s
    assert (f"{len(record.claims)} of {len(record.claims)} claims, {len(record.findings)} of "
            f"{len(record.findings)} lint findings shown") in dom
    dom = run_browser(tmp_path, page_file.as_uri() + "#verdict=diverged", "--dump-dom").stdout
    assert visible(dom, "claim", "data-verdict") == Counter({"diverged": want_v["diverged"]})
    assert f'data-shown="{want_v["diverged"]}"' in dom
    # the needs-attention list follows the filters too (F10): its diverged entries, and
    # the lint entries whose cards the verdict filter leaves shown
    claims, findings = attention_items(record)
    diverged = sum(1 for c in claims if c.verdict.value == "diverged")
    assert f'data-shown-attention="{diverged + len(findings)}"' in dom
    # the severity filter reaches lint findings (and leaves claims alone)
    dom = run_browser(tmp_path, page_file.as_uri() + "#severity=error", "--dump-dom").stdout
    assert visible(dom, "finding", "data-severity") == Counter({"error": want_s["error"]})
    assert visible(dom, "claim", "data-verdict") == want_v
    assert f'data-shown-findings="{want_s["error"]}"' in dom
    # upstream and course filters reach both
    newton_c = Counter(c.verdict.value for c in record.claims if c.upstream == "newton")
    dom = run_browser(tmp_path, page_file.as_uri() + "#upstream=newton", "--dump-dom").stdout
    assert visible(dom, "claim", "data-verdict") == newton_c and newton_c
    drake_f = Counter(f.severity.value for f in record.findings if f.course == "drake-atlas")
    dom = run_browser(tmp_path, page_file.as_uri() + "#course=drake-atlas&severity=warning,error",
                      "--dump-dom").stdout
    assert visible(dom, "finding", "data-severity") == Counter(
        {k: n for k, n in drake_f.items() if k != "info"})
    both = Counter(c.verdict.value for c in record.claims
                   if c.upstream == "mujoco" and c.kind in ("enum", "members"))
    dom = run_browser(tmp_path, page_file.as_uri() + "#upstream=mujoco&kind=enum,members",
                      "--dump-dom").stdout
    assert visible(dom, "claim", "data-verdict") == both
    assert re.search(r'<p class="none-shown">Nothing here matches', dom)


@pytest.mark.browser
def test_browser_failure_summary_is_the_first_screen(record, page_file, tmp_path):
    """At 1280x800 the first screen is the header and the needs-attention box, and every
    failing claim and lint error/warning is listed in it."""
    shot = tmp_path / "first.png"
    run_browser(tmp_path, page_file.as_uri(), f"--screenshot={shot}", "--window-size=1280,800")
    width, height, rows = read_png(shot.read_bytes())
    assert (width, height) == (1280, 800)
    box = {"attention": ATTENTION_BG}
    per_row = [colour_counts([row], box)["attention"] for row in rows]
    filled = [y for y, n in enumerate(per_row) if n > 200]
    assert filled, "the needs-attention box is not on the first screen"
    top, bottom = filled[0], filled[-1]
    assert top < 200 and bottom - top > 150, (top, bottom)
    # the badges of the failures (red/orange/purple) are inside the box
    badges = colour_counts(rows[top:bottom], {k: COLOURS[k] for k in ("diverged", "stale",
                                                                      "error")})
    assert all(n > 100 for n in badges.values()), badges
    dom = run_browser(tmp_path, page_file.as_uri(), "--dump-dom").stdout
    claims, findings = attention_items(record)
    box_dom = dom[dom.index('id="attention"'):dom.index("</section>", dom.index('id="attention"'))]
    assert box_dom.count("<li>") == len(claims) + len(findings)


@pytest.mark.browser
def test_browser_screenshot_has_the_colours(record, page_file, tmp_path):
    shot = tmp_path / "report.png"
    run_browser(tmp_path, page_file.as_uri(), f"--screenshot={shot}", "--window-size=1280,3000")
    width, height, rows = read_png(shot.read_bytes())
    assert (width, height) == (1280, 3000)
    counts = colour_counts(rows, COLOURS)
    for verdict in {c.verdict.value for c in record.claims}:
        assert counts[verdict] > 300, (verdict, counts)
    counts = colour_counts(rows, SEVERITY_COLOURS)
    for sev in ("error", "warning", "info"):
        assert counts[sev] > 100, (sev, counts)
    distinct = {row[x:x + 3] for row in rows[::8] for x in range(0, len(row), 24)}
    assert len(distinct) > 50  # text, tables, code: not a blank page


def test_missing_browser_skips_with_reason(monkeypatch):
    monkeypatch.delenv("VERIFIER_TEST_CHROMIUM", raising=False)
    monkeypatch.setattr(os.path, "exists", lambda p: False)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match="no headless Chromium found"):
        chromium()


# --------------------------------------------------------------------------- evidence (F8, F10)

def test_a_diverged_runtime_card_shows_its_evidence(page, record):
    """newcomer-2 F8: the card of a diverged claim shows the sentence, what it asserted,
    what the runtime observed, the claim's note (the evidence a person wrote down) and
    the runtime check's code (folded); a runtime claim is not "no source location"."""
    (c,) = [c for c in record.claims if c.id.endswith("/needs-friction")]
    block = card(page, claim_anchor(c))
    assert "evidence (the claim's note)" in block and "default friction" in block
    assert "<b>the pinned environment gives</b> <code>[false, false]</code>" in block
    assert '<details class="fold code" open><summary>the runtime check</summary>' in block
    assert "world.rejects(g)" in block
    assert "runtime</b> refuted" in block and "false != true at [0]" in block
    assert "no source location" not in block
    assert 'class="sentence" lang="zh"' in block


def test_notes_are_folded_on_cards_that_need_no_look(page, record):
    ok = [c for c in record.claims if c.note and not c.verdict.failing]
    for c in ok:
        assert "<details class=\"fold note\">" in card(page, claim_anchor(c))


def test_warnings_an_author_cannot_act_on_are_folded_apart(page, record):
    """F10: VL109 summaries (what could not be checked for want of sources) are not in
    "needs attention" but under their own folded heading; messages there are whole."""
    from verifier.reporters.html import cannot_act

    quiet = [f for f in record.findings if cannot_act(f)]
    assert quiet and all(f.rule == "source-unavailable" for f in quiet)
    box = page[page.index('<section id="attention">'):]
    box = box[:box.index("</section>")]
    assert "VL109" not in box and "…" not in box
    fold = page[page.index('<details class="box" id="cannot-check">'):]
    fold = fold[:fold.index("</details>")]
    assert f"{len(quiet)} lint warning(s)" in fold and fold.count("<li>") == len(quiet)
    claims, findings = __import__("verifier.reporters.html", fromlist=["x"]).attention_items(
        record)
    for c in claims:
        assert (c.message or c.kind).replace("'", "&#x27;")[:200] in box.replace("&quot;", '"')


def test_page_language_and_list_numbers():
    from verifier.reporters.html import CSS
    from verifier.reporters.html_markup import lang_of

    assert lang_of("`mj_step` 推进一步") == "zh" and lang_of("plain English") is None
    assert lang_of("カメラ") == "ja" and lang_of("한국어") == "ko"
    assert "#attention ol,#cannot-check ol{margin:0;padding-left:3.2em" in CSS
