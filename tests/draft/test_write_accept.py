"""`verifier draft --write` appends with existing bytes kept; `verifier claims accept`;
`verifier check` counts drafts apart and never lets one pass silently."""

from __future__ import annotations

import json

from tests.draft.draft_project import dp, make_project  # noqa: F401  (fixture)
from verifier.cli.main import main

EXISTING = """# Hand-written claims (a comment that must survive).
lesson = "docs/lesson.md"
upstream = "simx"

[[claim]]   # trailing comment
id = "advance-exists"
fragment = "推进一步调用 `sx_advance`"
kind = "symbol"
path = "include/simx/simx.h"
symbol = "sx_advance"
expected = true
note = "reviewed"
"""


def test_write_appends_and_keeps_existing_bytes(dp, capsys):  # noqa: F811
    dp.claim_file.parent.mkdir(parents=True)
    dp.claim_file.write_text(EXISTING, encoding="utf-8")
    assert main(["draft", "--pins", dp.pins, "-q", "--write", str(dp.lesson)]) == 0
    new = dp.claim_file.read_text(encoding="utf-8")
    assert new.startswith(EXISTING)
    assert "# ------" in new[len(EXISTING):]
    import tomllib

    data = tomllib.loads(new)
    ids = [c["id"] for c in data["claim"]]
    assert ids[0] == "advance-exists" and len(ids) == len(set(ids)) > 10
    assert all(c.get("review") == "draft" for c in data["claim"][1:])
    assert "review" not in data["claim"][0]
    # the sentence the reviewed claim covers is not drafted again
    assert not any(c["fragment"].startswith("`sx_readProbe`") and c["kind"] == "symbol"
                   and c["symbol"] == "sx_advance" for c in data["claim"][1:])
    # a second --write adds nothing: every sentence is covered (by claims or drafts)
    assert main(["draft", "--pins", dp.pins, "-q", "--write", str(dp.lesson)]) == 0
    assert dp.claim_file.read_text(encoding="utf-8") == new


def test_new_file_gets_the_shipped_header_shape(dp):  # noqa: F811
    assert main(["draft", "--pins", dp.pins, "-q", "--write", str(dp.lesson)]) == 0
    text = dp.claim_file.read_text(encoding="utf-8")
    head = text.split("[[claim]]", 1)[0]
    assert head.startswith("# Claims for demo-atlas docs/lesson.md.")
    assert 'lesson = "docs/lesson.md"\nupstream = "simx"\n' in head
    assert 'review = "draft"' in text and "[claim.runtime]" in text


def _check_json(dp, capsys):  # noqa: F811
    code = main(["check", "--pins", dp.pins, "-q", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_check_counts_drafts_apart_and_fails_on_diverged_drafts(dp, capsys):  # noqa: F811
    assert main(["draft", "--pins", dp.pins, "-q", "--write", str(dp.lesson)]) == 0
    capsys.readouterr()
    code, doc = _check_json(dp, capsys)
    s = doc["summary"]
    assert code == 1                             # drafts that diverge fail the run
    assert s["reviewed"] == 0 and s["verified"] == 0 and s["diverged"] == 0
    assert s["drafts"]["total"] == s["total"] and s["drafts"]["diverged"] >= 4
    assert s["drafts"]["verified"] >= 10
    assert all(c["review"] == "draft" for c in doc["claims"])
    # text: every verified draft says so, and the summary line counts them apart
    assert main(["check", "--pins", dp.pins, "-q"]) == 1
    cap = capsys.readouterr()
    last = cap.out.rstrip().splitlines()[-1]
    assert "draft, unreviewed" in cap.out and "unreviewed drafts (" in last


def test_only_verified_drafts_pass_but_are_reported(tmp_path, monkeypatch, capsys):
    p = make_project(tmp_path, monkeypatch, "# L\n\n推进一步调用 `sx_advance`。\n")
    assert main(["draft", "--pins", p.pins, "-q", "--write", str(p.lesson)]) == 0
    capsys.readouterr()
    code, doc = _check_json(p, capsys)
    assert code == 0 and doc["summary"]["drafts"] == {
        "total": 1, "verified": 1, "diverged": 0, "stale": 0, "unavailable": 0, "error": 0}
    assert doc["summary"]["verified"] == 0          # not counted as a reviewed verification
    # record: the summary carries drafts apart too
    out = tmp_path / "record.json"
    assert main(["record", "--pins", p.pins, "-q", "--format", "json", "--out", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["summary"]["drafts"]["verified"] == 1 and rec["summary"]["verdicts"]["verified"] == 0


def test_accept_removes_only_the_marker(dp, capsys):  # noqa: F811
    from verifier.claims.coverage import run_coverage

    assert main(["draft", "--pins", dp.pins, "-q", "--write", str(dp.lesson)]) == 0
    before = dp.claim_file.read_text(encoding="utf-8")
    assert main(["claims", "--pins", dp.pins, "-q", "accept",
                 "demo-atlas/lesson/sx-read-probe", "sx-advance-call-order"]) == 0
    after = dp.claim_file.read_text(encoding="utf-8")
    import difflib

    diff = [ln for ln in difflib.ndiff(before.splitlines(), after.splitlines())
            if ln[:1] in "+-"]
    assert diff == ['- review = "draft"'] * 2
    import tomllib

    claims = {c["id"]: c for c in tomllib.loads(after)["claim"]}
    assert "review" not in claims["sx-read-probe"] and "review" not in claims["sx-advance-call-order"]
    assert claims["sx-advance"]["review"] == "draft"
    (cov,) = run_coverage(dp.project())
    assert cov.covered == 2 and cov.claims == 2
    # errors: not a draft any more, unknown id
    assert main(["claims", "--pins", dp.pins, "-q", "accept", "sx-read-probe"]) == 2
    assert main(["claims", "--pins", dp.pins, "-q", "accept", "no-such-claim"]) == 2
    assert dp.claim_file.read_text(encoding="utf-8") == after


def test_review_marker_is_validated(dp, capsys):  # noqa: F811
    dp.claim_file.parent.mkdir(parents=True)
    dp.claim_file.write_text(EXISTING.replace('note = "reviewed"', 'review = "maybe"'))
    code, doc = _check_json(dp, capsys)
    (c,) = doc["claims"]
    assert code == 1 and c["verdict"] == "error" and "review" in c["message"]


def test_github_and_step_summary_say_drafts_are_unreviewed(tmp_path, monkeypatch, capsys):
    p = make_project(tmp_path, monkeypatch, "# L\n\n推进一步调用 `sx_advance`。\n")
    assert main(["draft", "--pins", p.pins, "-q", "--write", str(p.lesson)]) == 0
    capsys.readouterr()
    assert main(["record", "--pins", p.pins, "-q", "--format", "github"]) == 0
    out = capsys.readouterr().out
    assert "::warning" in out and "1 draft claim(s) are unreviewed" in out
    from verifier.report_builder import build_report
    from verifier.claims.check import run_check
    from verifier.reporters.github import step_summary

    proj = p.project()
    rep = build_report(proj, lessons=proj.lessons(), findings=[], claims=run_check(proj))
    assert "1 unreviewed draft(s): 1 verified" in step_summary(rep)


def test_malformed_claim_file_is_a_config_error(dp, capsys):  # noqa: F811
    dp.claim_file.parent.mkdir(parents=True)
    dp.claim_file.write_text('lesson = "docs/lesson.md"\n[[claim]\nid = "x"\n')
    assert main(["draft", "--pins", dp.pins, "-q", "--write", str(dp.lesson)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "lesson.toml:2: malformed TOML" in err
    assert dp.claim_file.read_text() == 'lesson = "docs/lesson.md"\n[[claim]\nid = "x"\n'


def test_drafts_cannot_turn_a_red_coverage_gate_green(dp, capsys):  # noqa: F811
    assert main(["coverage", "--pins", dp.pins, "-q", "--min", "50"]) == 1
    assert main(["draft", "--pins", dp.pins, "-q", "--write", str(dp.lesson)]) == 0
    assert main(["coverage", "--pins", dp.pins, "-q", "--min", "50"]) == 1
    out = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert out.startswith("total: 0 of ") and "more drafted" in out


def test_text_shows_sentences_skipped_reasons_and_the_next_step(dp, capsys):  # noqa: F811
    """newcomer-2 F14 (text output): the whole sentence of each draft, the uncovered
    sentences that got none with the reason, and what to do next."""
    assert main(["draft", "--pins", dp.pins, "-q", str(dp.lesson)]) == 0
    out = capsys.readouterr().out
    header = next(ln for ln in out.splitlines() if "┃ line" in ln)
    assert "sentence" in header and "fragment" not in header
    assert "next: `--write` appends these drafts" in out
    assert out.rstrip().splitlines()[-1].startswith("drafts: ")
