"""Sentence binding: a claim remembers the sentence it was reviewed against
(claims/claims.lock, written by `verifier claims rebind`); a reworded sentence whose
fragment still matches makes the claim `stale`."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, make_simx
from verifier.claims.lock import load_bindings
from verifier.claims.rebind import rebind
from verifier.claims.sentences import sentence_hash, sentence_of
from verifier.cli.main import main
from verifier.errors import UsageError

LESSON = """# Title

The probe reads `sx_advance(model, d)` once per step. It then [returns](https://x.test/a#L1)
the value; see `sxNPART`.

| name | value |
|---|---|
| `sxNPART` | 5 |
"""


def test_sentence_of_plain_text():
    s = sentence_of(LESSON, "`sx_advance(model, d)` once")
    assert s == "The probe reads sx_advance(model, d) once per step."
    # a fragment across a sentence end binds both sentences
    s = sentence_of(LESSON, "per step. It then")
    assert s == ("The probe reads sx_advance(model, d) once per step. It then returns the "
                 "value; see sxNPART.")              # a clause after `;` is the same sentence
    # link targets are not part of the sentence: moving a permalink does not unbind
    moved = LESSON.replace("https://x.test/a#L1", "https://x.test/b#L9")
    h = sentence_hash(sentence_of(LESSON, "the value; see"))
    assert sentence_hash(sentence_of(moved, "the value; see")) == h
    # rewrapping does not change it either; rewording does
    assert sentence_hash(sentence_of(LESSON.replace("It then ", "It then\n"), "the value; see")) == h
    assert sentence_hash(sentence_of(LESSON.replace("returns", "drops"), "the value; see")) != h
    assert sentence_of(LESSON, "not in the lesson") is None


@pytest.fixture
def sx(tmp_path, monkeypatch):
    return make_simx(tmp_path, monkeypatch)


def _lesson(sx):
    return sx.project.course_root(sx.project.pins.course["demo-atlas"]) / "docs" / "lesson.md"


C1 = claim("c1", "symbol", "include/simx/simx.h", "sx_advance", True, "`sx_advance(model, d)`")
C2 = claim("c2", "enum", "include/simx/sxtype.h", "sxNPART", 5, "`sxNPART` 是 5")


def test_reworded_sentence_makes_the_claim_stale_until_rebound(sx):
    sx.write(C1 + C2)
    assert {k: r.verdict.value for k, r in sx.check(C1 + C2).items()} == \
        {"c1": "verified", "c2": "verified"}
    done = rebind(sx.project, None).bound
    assert sorted(r.gid for r in done) == ["demo-atlas/lesson/c1", "demo-atlas/lesson/c2"]
    lock = load_bindings(sx.root / "claims")
    assert lock.exists and len(lock.entries) == 2
    f = _lesson(sx)
    f.write_text(f.read_text().replace("it calls `sx_advance1` then `sx_advance2`",
                                       "it never calls `sx_advance1`"))
    res = sx.check(C1 + C2)
    assert res["c2"].verdict.value == "verified"
    r = res["c1"]
    assert r.verdict.value == "stale", r.message
    assert "sentence changed since the claim was reviewed" in r.message
    assert "verifier claims rebind demo-atlas/lesson/c1" in r.message
    assert "as reviewed, the claim is verified" in r.message
    rebind(sx.project, ["demo-atlas/lesson/c1"])
    assert sx.check(C1 + C2)["c1"].verdict.value == "verified"


def test_claims_without_a_binding_say_so(sx):
    sx.write(C1)
    rebind(sx.project, None)
    res = sx.check(C1 + C2)
    assert res["c2"].verdict.value == "verified"
    assert "not bound to its lesson sentence yet" in res["c2"].message
    assert "not bound" not in (res["c1"].message or "")


def test_rebind_refuses_unknown_ids_and_stale_fragments(sx):
    sx.write(C1)
    with pytest.raises(UsageError, match="did you mean demo-atlas/lesson/c1"):
        rebind(sx.project, ["demo-atlas/lesson/c"])
    sx.write(claim("gone", "symbol", "include/simx/simx.h", "sx_advance", True, "no such words"))
    rep = rebind(sx.project, ["demo-atlas/lesson/gone"])
    assert not rep.bound and "fix the fragment first" in rep.refused[0][1]
    assert not (sx.root / "claims" / "claims.lock").exists()


def test_cli_rebind(sx, capsys):
    sx.write(C1 + C2)
    pins = str(sx.root / "pins.toml")
    assert main(["claims", "rebind", "--pins", pins]) == 2
    capsys.readouterr()
    assert main(["claims", "rebind", "--pins", pins, "demo-atlas/lesson"]) == 0
    assert "2 claim(s) bound, 2 changed" in capsys.readouterr().out
    assert main(["claims", "rebind", "--pins", pins, "--all"]) == 0
    assert "2 claim(s) bound, 0 changed" in capsys.readouterr().out
    text = (sx.root / "claims" / "claims.lock").read_text()
    assert text.startswith("# Written by `verifier claims rebind`")
    assert main(["check", "--pins", pins, "-q"]) == 0


def test_rebind_binds_the_sentence_check_locates(sx):
    # the fragment "`sxNPART`" as plain text ("sxNPART") first occurs in an earlier
    # sentence; rebind must bind the sentence `check` finds (markup kept), or the claim
    # is stale right after rebinding
    f = _lesson(sx)
    f.write_text("An earlier sentence mentions sxNPART in plain text.\n\n" + f.read_text())
    c = claim("c3", "enum", "include/simx/sxtype.h", "sxNPART", 5, "`sxNPART`")
    sx.write(c)
    rebind(sx.project, None)
    r = sx.check(c)["c3"]
    assert r.verdict.value == "verified", r.message


@pytest.mark.parametrize("fragment, text", [
    ("a b", "a b a  b a\nb"), ("a b", "xa by"), ("aa aa", "aa aa aa aa"),
    ("步长 `dt`", "步长\u3000`dt` 与 步长\n`dt`"), ("x", ""), ("  ", "a"),
    ("a\tb", "a\u2028b a\u00a0b ab")])
def test_occurrences_counts_as_the_whitespace_regex_does(fragment, text):
    import re

    from verifier.claims.check import occurrences

    words = fragment.split()
    want = len(re.findall(r"\s+".join(re.escape(w) for w in words), text)) if words else 0
    assert occurrences(fragment, text) == want
