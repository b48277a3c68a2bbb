"""The HTML report: self-contained, snippets only at pinned identity, and checked in a
real headless Chromium (Debian's `chromium`; skipped with the reason when absent)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections import Counter

import pytest

from tests.reporters.pngread import colour_counts, read_png
from tests.reporters.report_fixtures import made_claims, made_findings
from verifier.report import build_report, claim_gid, safe_name
from verifier.reporters import render
from verifier.reporters.html import COLOURS
from verifier.results import ClaimResult, Evidence, Verdict

pytestmark = pytest.mark.wheels


@pytest.fixture
def lessons(real_project):
    return real_project.lessons()


@pytest.fixture
def report(real_project, lessons):
    return build_report(real_project, lessons=lessons, claims=made_claims(real_project, lessons),
                        findings=made_findings(lessons))


def _claim_block(html: str, gid: str) -> str:
    start = html.index(f'id="claim-{safe_name(gid)}"')
    return html[start:html.index('<div class="claim ', start + 1)
                if '<div class="claim ' in html[start + 1:] else len(html)]


def test_self_contained(report):
    html = render(report, "html")
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|iframe|link|embed|object|source)\b[^>]*\b(src|href)=",
                         html, re.I)
    assert "@import" not in html and "url(" not in html
    # the only URLs are navigational permalinks (never loaded) and the SVG namespace
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    assert urls and all(u.startswith("https://github.com/") or
                        u == "http://www.w3.org/2000/svg" for u in urls)
    assert "<svg" in html and "<style>" in html and "<script>" in html
    assert render(report, "html") == html  # deterministic


def test_snippets_only_at_pinned_identity(report, real_project):
    html = render(report, "html")
    shown = 0
    for c in report.claims:
        block = _claim_block(html, claim_gid(c))
        assert f'data-verdict="{c.verdict.value}"' in block
        ev = c.evidence
        if ev is not None and ev.status in ("pinned", "release"):
            sf, text = real_project.sources.text(c.upstream, ev.path)
            assert sf.blob == ev.blob
            first = text.splitlines()[ev.lines[0] - 1]
            import html as _h

            assert f'<span class="ln">{ev.lines[0]}</span>{_h.escape(first)}' in block
            shown += 1
        else:
            assert "source unavailable at pinned identity" in block or "no evidence" in block
            assert "<pre>" not in block
    assert shown >= 3


def test_wrong_identity_is_never_shown(real_project, lessons):
    """Evidence naming another blob than the one served: no snippet, said so."""
    doc = next(d for d in lessons if d.path == "docs/state-and-time.md")
    sf = real_project.sources.resolve("mujoco", "include/mujoco/mjdata.h")
    assert sf.status.value == "pinned"
    c = ClaimResult(id="mujoco-atlas/state-and-time/x", lesson=doc.path, line=1,
                    upstream="mujoco", kind="symbol", verdict=Verdict.VERIFIED,
                    course="mujoco-atlas",
                    evidence=Evidence(path=sf.path, lines=(1, 3), blob="0" * 40, status="pinned",
                                      permalink="https://github.com/google-deepmind/mujoco"))
    html = render(build_report(real_project, lessons=[doc], claims=[c], findings=[]), "html")
    block = _claim_block(html, c.id)
    assert "source unavailable at pinned identity" in block and "<pre>" not in block


def test_sentence_beside_snippet(report, lessons):
    html = render(report, "html")
    texts = {(d.course, d.path): d.text.splitlines() for d in lessons}
    with_fragment = 0
    for c in report.claims:
        block = _claim_block(html, claim_gid(c))
        assert f"lesson, line {c.line}" in block
        if c.fragment:
            assert f"<mark>" in block
            with_fragment += 1
        x = report.excerpts[claim_gid(c)]
        assert x.sentence and x.sentence_line == c.line
        assert "](" not in x.sentence  # Markdown links shown as their text
        assert texts[(c.course, c.lesson)][c.line - 1].strip()
    assert with_fragment


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


def visible_claims(dom: str) -> Counter:
    """verdicts of the claim blocks not hidden, from Chromium's serialised DOM."""
    out = Counter()
    for tag in re.findall(r'<div class="claim v-[a-z]+"[^>]*>', dom):
        if not re.search(r'\shidden(=""|\s|>)', tag):
            out[re.search(r'data-verdict="([a-z]+)"', tag).group(1)] += 1
    return out


@pytest.mark.browser
def test_browser_filters(report, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(render(report, "html"), encoding="utf-8")
    want = Counter(c.verdict.value for c in report.claims)
    dom = run_browser(tmp_path, page.as_uri(), "--dump-dom").stdout
    assert visible_claims(dom) == want
    assert f"{len(report.claims)} of {len(report.claims)} claims shown" in dom
    dom = run_browser(tmp_path, page.as_uri() + "#verdict=diverged", "--dump-dom").stdout
    assert visible_claims(dom) == Counter({"diverged": want["diverged"]})
    assert f'data-shown="{want["diverged"]}"' in dom
    newton = Counter(c.verdict.value for c in report.claims if c.upstream == "newton")
    dom = run_browser(tmp_path, page.as_uri() + "#upstream=newton", "--dump-dom").stdout
    assert visible_claims(dom) == newton and newton
    both = Counter(c.verdict.value for c in report.claims
                   if c.upstream == "mujoco" and c.kind in ("enum", "branch"))
    dom = run_browser(tmp_path, page.as_uri() + "#upstream=mujoco&kind=enum,branch",
                      "--dump-dom").stdout
    assert visible_claims(dom) == both
    # a lesson with no matching claim says so
    assert re.search(r'<p class="none-shown">No claim matches', dom)


@pytest.mark.browser
def test_browser_screenshot(report, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(render(report, "html"), encoding="utf-8")
    shot = tmp_path / "report.png"
    run_browser(tmp_path, page.as_uri(), f"--screenshot={shot}", "--window-size=1280,1600")
    data = shot.read_bytes()
    assert len(data) > 20_000
    width, height, rows = read_png(data)
    assert (width, height) == (1280, 1600)
    counts = colour_counts(rows, COLOURS)
    # the chart bars and badges are painted in each verdict's colour that occurs
    for verdict in {c.verdict.value for c in report.claims}:
        assert counts[verdict] > 300, (verdict, counts)
    distinct = {row[x:x + 3] for row in rows[::8] for x in range(0, len(row), 24)}
    assert len(distinct) > 50  # text, tables, code: not a blank page


@pytest.mark.browser
def test_browser_five_lessons_through_record(tmp_path, monkeypatch):
    """`verifier record --format html` over the five course lessons, opened in Chromium."""
    from tests.conftest import PINS, course_dir  # noqa: F401
    from verifier.cli.main import main

    if not (PINS.parent / ".." / "shared" / "course").resolve().is_dir():
        pytest.skip("course input not found")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    page = tmp_path / "out" / "verification.html"
    record = tmp_path / "out" / "verification.json"
    code = main(["--pins", str(PINS), "-q", "record", "--format", "html", "--out",
                 f"{tmp_path / 'out'}/"])
    assert main(["--pins", str(PINS), "-q", "record", "--out", str(record)]) == code
    data = json.loads(record.read_text())
    dom = run_browser(tmp_path, page.as_uri(), "--dump-dom").stdout
    lessons = re.findall(r'<section class="lesson" data-lesson="([^"]+)"', dom)
    assert lessons == [f"{les['course']}/{les['path']}" for les in data["lessons"]]
    assert len(lessons) == 5
    assert dom.count('class="claim v-') == len(data["claims"])
    assert f"{len(data['claims'])} of {len(data['claims'])} claims shown" in dom
    for les in data["lessons"]:
        assert f">{les['course']}/{les['path']}</text>" in dom  # a chart row per lesson
    shot = tmp_path / "five.png"
    run_browser(tmp_path, page.as_uri(), f"--screenshot={shot}", "--window-size=1280,1200")
    width, height, rows = read_png(shot.read_bytes())
    assert (width, height) == (1280, 1200)
    distinct = {row[x:x + 3] for row in rows[::8] for x in range(0, len(row), 24)}
    assert len(distinct) > 20


def test_findings_in_their_lesson_section(report):
    import html as _h

    page = render(report, "html")
    sections = dict(re.findall(r'<section class="lesson" data-lesson="([^"]+)">(.*?)</section>',
                               page, re.S))
    assert report.findings
    for f in report.findings:
        body = sections[f"{f.course}/{f.path}"]
        assert _h.escape(f.message) in body and f"<td>{f.severity.value}</td>" in body


def test_missing_browser_skips_with_reason(monkeypatch):
    monkeypatch.delenv("VERIFIER_TEST_CHROMIUM", raising=False)
    monkeypatch.setattr(os.path, "exists", lambda p: False)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match="no headless Chromium found"):
        chromium()
