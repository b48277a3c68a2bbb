"""The suspect stage of `check`/`verify` (verifier/suspect): uncovered sentences that
the pinned source contradicts are warnings of their own, on the lesson line, with what
the sentence says, what the source says and the evidence; covered or right sentences
say nothing; a config switch and per-line suppressions; memoised."""

from __future__ import annotations

import json

import pytest

from tests.draft.assert_project import make_project

LESSON = """# S1 · 可疑句

本篇基于 asim 1.0.0，固定提交 `PINSHA`。

## 1. 求解器

`Solver` 的 `iterations` 默认 3。

`Solver` 的 `relaxation` 默认 0.8。

`asNSTAGE` 是 5。

## 2. 归属

`State` 保存时变数组，`Control` 保存控制输入。

`control.body_f` 由控制器写入。

## 3. 运行时

`as_step` 推进后读取的时间增加 0.002 s。
"""


def _run(ap, **kw):
    from verifier import pipeline

    return pipeline.run(ap.project(), pipeline.options(lint=False, **kw))


def _suspects(run):
    return [f for f in run.report.findings if f.rule == "suspect"]


@pytest.fixture
def ap(tmp_path, monkeypatch):
    return make_project(tmp_path, monkeypatch, LESSON)


def _line(text: str) -> int:
    return next(i for i, ln in enumerate(LESSON.splitlines(), 1) if text in ln)


def test_contradicted_uncovered_sentences_are_suspects(ap):
    run = _run(ap)
    got = {f.line: f for f in _suspects(run)}
    assert set(got) == {_line("`iterations` 默认 3"), _line("`asNSTAGE` 是 5"),
                        _line("`control.body_f`")}, [(f.line, f.message) for f in got.values()]
    f = got[_line("`iterations` 默认 3")]
    assert f.code == "VS101" and f.severity.value == "warning"
    assert f.course == "demo-atlas" and f.path == "docs/lesson.md"
    assert "defaults to 3" in f.data["says"] and "defaults to 2" in f.data["source_says"]
    assert f.data["evidence"]["permalink"].startswith(
        f"https://github.com/asim-org/asim/blob/{ap.repo.head}/pyasim/_src/sim/solver.py#L")
    assert f.data["evidence"]["status"] == "pinned" and f.data["spans"]
    assert f.data["claim"]["kind"] == "default" and f.data["claim"]["expected"] == 3
    # warnings: the run does not fail on them, and nothing is counted as verified
    assert run.exit_code == 0
    assert run.report.summary.verdicts["verified"] == 0 and run.report.summary.claims == 0


def test_a_sentence_a_claim_covers_is_not_judged_again(ap):
    claims = ap.root / "claims" / "demo-atlas"
    claims.mkdir(parents=True)
    (claims / "lesson.toml").write_text(
        'lesson = "docs/lesson.md"\nupstream = "asim"\n\n[[claim]]\nid = "n"\n'
        'fragment = "`asNSTAGE` 是 5"\nkind = "enum"\npath = "include/asim/astype.h"\n'
        'symbol = "asNSTAGE"\nexpected = 5\n', encoding="utf-8")
    run = _run(ap)
    assert _line("`asNSTAGE` 是 5") not in {f.line for f in _suspects(run)}
    assert [c.verdict.value for c in run.report.claims] == ["diverged"]   # the claim's own


def test_the_switch_turns_the_stage_off(ap):
    (ap.root / "lint.toml").write_text("schema = 1\n[suspect]\nenabled = false\n")
    assert _suspects(_run(ap)) == []
    (ap.root / "lint.toml").unlink()
    assert _suspects(_run(ap, suspects=False)) == []


def test_inline_and_config_suppressions_and_their_unused_reports(ap):
    text = LESSON.replace("`asNSTAGE` 是 5。", "`asNSTAGE` 是 5。<!-- verifier: ignore suspect -->")
    text = text.replace("## 3. 运行时", "<!-- verifier: ignore suspect -->\n\n## 3. 运行时")
    ap.rewrite(text)
    (ap.root / "lint.toml").write_text(
        'schema = 1\n\n[[suppress]]\nlesson = "demo-atlas/docs/lesson.md"\nrule = "suspect"\n'
        'names = ["Control"]\nreason = "checked by hand"\n\n[[suppress]]\n'
        'lesson = "demo-atlas/docs/lesson.md"\nrule = "suspect"\nnames = ["Nothing"]\n'
        'reason = "stale"\n')
    from verifier import pipeline

    run = pipeline.run(ap.project(), pipeline.options())      # lint and check together
    lines = text.splitlines()
    sus = _suspects(run)
    assert [f.line for f in sus] == [next(i for i, ln in enumerate(lines, 1)
                                          if "`iterations` 默认 3" in ln)]
    unused = [f for f in run.report.findings if f.rule == "suppression-unused"]
    # the standalone inline suppression before "## 3" silences nothing, and so does the
    # `Nothing` entry; lint itself does not report the suspect suppressions
    assert len(unused) == 2, [(f.path, f.line, f.message) for f in unused]
    assert {f.path for f in unused} == {"docs/lesson.md", "lint.toml"}


def test_suspects_are_memoised_by_lesson(ap):
    from verifier.project import load_project
    from verifier.suspect import find_suspects
    from verifier.suspect import memo as memo_mod

    first = _suspects(_run(ap))
    seen = []
    orig = memo_mod.Memo.suspects

    def spy(self, lesson, claims, compute):
        out = orig(self, lesson, claims, compute)
        seen.append((self.hits, self.misses))
        return out

    memo_mod.Memo.suspects = spy
    try:
        p = load_project(ap.root / "pins.toml", notify=lambda m: None)
        again = find_suspects(p, p.lessons())
        assert seen[-1] == (1, 0)                       # served from the memo
        assert [f.model_dump() for f in again] == [f.model_dump() for f in first]
        ap.rewrite(LESSON.replace("默认 3", "默认 4"))
        p = load_project(ap.root / "pins.toml", notify=lambda m: None)
        changed = find_suspects(p, p.lessons())
        assert seen[-1] == (0, 1)                       # the text changed: judged again
        assert any("defaults to 4" in f.message for f in changed)
    finally:
        memo_mod.Memo.suspects = orig


def test_check_json_and_text_show_suspects(ap, capsys):
    from verifier.cli.main import main

    assert main(["check", "--pins", ap.pins, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {f["rule"] for f in doc["findings"]} == {"suspect"}
    assert main(["check", "--pins", ap.pins]) == 0
    out = capsys.readouterr().out
    assert "VS101 suspect" in out and "3 suspect sentences" in out.splitlines()[-1]


def test_every_record_format_carries_suspects(ap, tmp_path):
    from verifier.cli.main import main

    out = tmp_path / "rec"
    out.mkdir()
    assert main(["record", "--pins", ap.pins, "-q", "--format",
                 "json,markdown,html,sarif,junit,github", "--out", str(out)]) == 0
    texts = {p.name: p.read_text(encoding="utf-8") for p in out.rglob("*") if p.is_file()}
    assert texts, "no record written"
    for name, text in texts.items():
        if name.endswith((".json", ".md", ".html", ".sarif", ".xml")) and name != "run.json":
            assert "VS101" in text or "suspect" in text, name


def test_a_covered_sentence_is_judged_for_what_its_claim_does_not_check(ap):
    # one sentence, two defaults: the claim checks the right one; the other, wrong at the
    # pin, is still a suspect. The claim is then turned to the wrong one (its fragment
    # unchanged): the memo must not serve the old suspects, and the claim's own
    # divergence replaces the suspect
    text = LESSON.replace("`Solver` 的 `iterations` 默认 3。\n\n`Solver` 的 `relaxation` 默认 0.8。",
                          "`Solver` 的 `relaxation` 默认 0.8，`iterations` 默认 3。")
    assert text != LESSON
    ap.rewrite(text)
    claims = ap.root / "claims" / "demo-atlas"
    claims.mkdir(parents=True)

    def claim(param, expected, says):
        (claims / "lesson.toml").write_text(
            'lesson = "docs/lesson.md"\nupstream = "asim"\n\n[[claim]]\nid = "d"\n'
            'fragment = "`Solver` 的 `relaxation` 默认"\nkind = "default"\n'
            'path = "pyasim/_src/sim/solver.py"\nsymbol = "Solver"\n'
            f'expected = {expected}\nsays = ["{says}"]\noptions = {{ param = "{param}" }}\n',
            encoding="utf-8")

    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "`iterations` 默认 3" in ln)
    claim("relaxation", 0.8, "0.8")
    run = _run(ap)
    assert [c.verdict.value for c in run.report.claims] == ["verified"]
    sus = [f for f in _suspects(run) if f.line == line]
    assert len(sus) == 1 and "defaults to 2" in sus[0].data["source_says"], sus
    claim("iterations", 3, "3")
    run = _run(ap)
    assert [c.verdict.value for c in run.report.claims] == ["diverged"]
    assert line not in {f.line for f in _suspects(run)}
