"""GitHub Actions annotations: escaping, order, cap + overflow notice, step summary."""

from __future__ import annotations

import re

import pytest

from tests.reporters.report_fixtures import made_claims, made_findings
from verifier.report import build_report
from verifier.reporters import render
from verifier.reporters.github import CAP, command, escape_data, escape_property
from verifier.results import ClaimResult, Finding, Severity, Verdict

LINE = re.compile(r"^::(error|warning|notice)(?: ([^:]*))?::(.*)$")


def unescape(s: str) -> str:
    return (s.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":")
            .replace("%2C", ",").replace("%25", "%"))


def parse(text: str) -> list[tuple[str, dict, str]]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        assert m, f"not a workflow command: {line!r}"
        props = dict(p.split("=", 1) for p in m.group(2).split(",")) if m.group(2) else {}
        out.append((m.group(1), {k: unescape(v) for k, v in props.items()}, unescape(m.group(3))))
    return out


def test_escaping():
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = command("error", "x: 5%, y\nz", file="docs/a,b.md", line=3, title="VC104 t: id")
    assert line == "::error file=docs/a%2Cb.md,line=3,title=VC104 t%3A id::x: 5%25, y%0Az"
    assert parse(line) == [("error", {"file": "docs/a,b.md", "line": "3",
                                      "title": "VC104 t: id"}, "x: 5%, y\nz")]


def _many(n_div: int, n_warn: int):
    claims = [ClaimResult(id=f"mujoco-atlas/state-and-time/c{i:02d}", lesson="docs/state-and-time.md",
                          line=100 + i, upstream="mujoco", kind="enum", verdict=Verdict.DIVERGED,
                          expected=1, actual=2, message="differs\nsecond line",
                          course="mujoco-atlas") for i in range(n_div)]
    claims.append(ClaimResult(id="mujoco-atlas/state-and-time/late", lesson="docs/state-and-time.md",
                              line=1, upstream="mujoco", kind="text", verdict=Verdict.STALE,
                              course="mujoco-atlas"))
    claims.append(ClaimResult(id="mujoco-atlas/state-and-time/ok", lesson="docs/state-and-time.md",
                              line=2, upstream="mujoco", kind="text", verdict=Verdict.VERIFIED,
                              course="mujoco-atlas"))
    findings = [Finding(rule="r", code="VL2", severity=Severity.WARNING,
                        path="docs/state-and-time.md", line=i + 1, message=f"w{i}",
                        course="mujoco-atlas") for i in range(n_warn)]
    return claims, findings


@pytest.mark.wheels
def test_cap_order_and_overflow(real_project, monkeypatch, tmp_path):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    lessons = [d for d in real_project.lessons() if d.path == "docs/state-and-time.md"]
    claims, findings = _many(14, 12)
    report = build_report(real_project, lessons=lessons, claims=claims, findings=findings,
                          excerpts=False)
    text = render(report, "github")
    assert "\x1b" not in text
    got = parse(text)
    errors = [g for g in got if g[0] == "error"]
    warnings = [g for g in got if g[0] == "warning"]
    notices = [g for g in got if g[0] == "notice"]
    assert len(errors) == CAP and len(warnings) == CAP and len(notices) == 1
    # most important first: diverged (in lesson order) before stale; stale was cut
    assert all("diverged" in e[1]["title"] for e in errors)
    assert [int(e[1]["line"]) for e in errors] == list(range(100, 110))
    assert errors[0][1]["file"] == "docs/state-and-time.md"
    assert errors[0][2].startswith("differs\nsecond line")
    assert "5 more error(s) and 2 more warning(s)" in notices[0][2]
    # the verified claim never shows
    assert not any("ok" == e[1]["title"].rsplit("/", 1)[-1] for e in got)


@pytest.mark.wheels
def test_step_summary_gets_full_list(real_project, monkeypatch, tmp_path):
    from verifier.cli.record_cmd import emit

    summary = tmp_path / "summary.md"
    summary.write_text("previous step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    lessons = [d for d in real_project.lessons() if d.path == "docs/state-and-time.md"]
    claims, findings = _many(14, 12)
    report = build_report(real_project, lessons=lessons, claims=claims, findings=findings,
                          excerpts=False)
    out = tmp_path / "annotations.txt"
    emit(report, "github", out)
    text = summary.read_text()
    assert text.startswith("previous step\n## verifier")  # appended, not replaced
    assert "All 27 problem(s)" in text   # 14 diverged + 1 stale + 12 warnings
    for i in range(14):
        assert f"docs/state-and-time.md:{100 + i}" in text
    assert "see the job summary" in out.read_text()


@pytest.mark.wheels
def test_real_shape_annotations(real_project, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    lessons = real_project.lessons()
    report = build_report(real_project, lessons=lessons,
                          claims=made_claims(real_project, lessons),
                          findings=made_findings(lessons), excerpts=False)
    got = parse(render(report, "github"))
    assert got and not any(g[0] == "notice" for g in got)
    levels = [g[0] for g in got]
    assert levels == sorted(levels, key=["error", "warning"].index)
    for _, props, msg in got:
        assert props["file"].startswith("docs/") and int(props["line"]) >= 1
