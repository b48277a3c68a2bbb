"""A claim follows its sentence (issue 26): an edit of what a claim's `says` spans state
re-derives the claim from the new words and checks it, with no claim-file edit; an
edit it cannot follow is `stale` with the reviewed spans beside the sentence now; and
`claims rebind` never blesses a contradiction."""

from __future__ import annotations

import json

import pytest

from tests.claims.simx_project import make_simx
from verifier.claims.lock import load_bindings
from verifier.claims.rebind import rebind


@pytest.fixture
def sx(tmp_path, monkeypatch):
    return make_simx(tmp_path, monkeypatch)


def _lesson(sx):
    return sx.project.course_root(sx.project.pins.course["demo-atlas"]) / "docs" / "lesson.md"


def _claim(cid, kind, path, symbol, expected, fragment, says, **options) -> str:
    from tests.claims.simx_project import _toml

    lines = ["[[claim]]", f'id = "{cid}"', f"fragment = {json.dumps(fragment)}",
             f'kind = "{kind}"', f'path = "{path}"']
    if symbol is not None:
        lines.append(f'symbol = "{symbol}"')
    lines.append(f"expected = {_toml(expected)}")
    lines.append(f"says = {_toml(says)}")
    if options:
        lines.append("options = " + _toml(options))
    return "\n".join(lines) + "\n\n"


# (kind, path, symbol, expected, fragment, says, options, lesson edit (old, new))
CASES = {
    "symbol-name": ("symbol", "include/simx/simx.h", "sx_advance", True, "`sx_advance(model, d)`",
                    ["sx_advance"], {}, ("`sx_advance(model, d)`", "`sx_advanse(model, d)`")),
    "enum-value": ("enum", "include/simx/sxtype.h", "sxNPART", 5, "`sxNPART` 是 5",
                   ["5"], {}, ("`sxNPART` 是 5", "`sxNPART` 是 6")),
    "enum-name": ("enum", "include/simx/sxtype.h", "sxSTEP_FULL", 6, "`sxSTEP_FULL` is 6",
                  ["sxSTEP_FULL", "6"], {}, ("`sxSTEP_FULL` is 6", "`sxSTEP_EXPLICIT` is 6")),
    "signature-order": ("signature", "systems/sensors/gyro_probe.h", "GyroProbe",
                        ["body", "X_BP", "bias", "scale"], "`GyroProbe(body, X_BP, bias, scale)`",
                        [{"text": "body, X_BP, bias, scale", "read": "names"}], {},
                        ("GyroProbe(body, X_BP, bias, scale)", "GyroProbe(body, X_BP, scale, bias)")),
    "default-value": ("default", "systems/sensors/gyro_probe.h", "GyroProbe", 1,
                      "`scale` to 1.0", ["1.0"], {"param": "scale"},
                      ("`scale` to 1.0", "`scale` to 2.0")),
    "default-keyword": ("default", "pysimx/_src/sensors/probe_imu.py", "ProbeIMU", True,
                        "request_state_attributes=True", ["request_state_attributes"],
                        {"param": "request_state_attributes"},
                        ("request_state_attributes=True", "request_attributes=True")),
    "members-prefix": ("members", "include/simx/sxdata.h", "sxData", ["nbuffer", "nprobe"],
                       "begins with `nbuffer`", ["nbuffer", "nprobe"], {"match": "prefix"},
                       ("with `nbuffer` and `nprobe`", "with `nprobe` and `nbuffer`")),
    "negation-removed": ("symbol", "bindings/pysimx/systems/sensors_py_gyro.cc",
                         "GyroProbe.AddToDiagram", False, "The Python binding has",
                         ["AddToDiagram", "no"], {},
                         ("has no `AddToDiagram`, but", "has `AddToDiagram`, but")),
}


def _setup(sx, case):
    kind, path, symbol, expected, fragment, says, options, _ = CASES[case]
    sx.write(_claim("c", kind, path, symbol, expected, fragment, says, **options))
    first = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert first.verdict.value == "verified", (case, first.message)
    assert not rebind(sx.project, None).refused


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_edit_of_what_the_claim_says_diverges_without_a_claim_file_edit(sx, case):
    _setup(sx, case)
    body = sx.claim_file.read_text()
    old, new = CASES[case][-1]
    f = _lesson(sx)
    text = f.read_text()
    assert old in text
    f.write_text(text.replace(old, new, 1))
    r = sx.check(body.split("\n\n", 1)[1])["c"]
    assert r.verdict.value in ("diverged", "error"), (case, r.verdict, r.message)
    assert "edited since review" in r.message
    assert r.edit is not None and r.edit.now and r.edit.reviewed
    assert sx.claim_file.read_text() == body          # nothing written
    # rebind refuses to bless it, and leaves the lock and the claim file alone
    lock = (sx.root / "claims" / "claims.lock").read_text()
    rep = rebind(sx.project, None)
    assert [g for g, _ in rep.refused] == ["demo-atlas/lesson/c"], rep
    assert "contradicts" in rep.refused[0][1] or "negates" in rep.refused[0][1]
    assert (sx.root / "claims" / "claims.lock").read_text() == lock
    assert sx.claim_file.read_text() == body
    again = sx.check(body.split("\n\n", 1)[1])["c"]
    assert again.verdict.value == r.verdict.value


def test_an_edit_elsewhere_in_the_sentence_keeps_the_claim(sx):
    _setup(sx, "default-value")
    f = _lesson(sx)
    f.write_text(f.read_text().replace("the member `samples_` starts at 4", "the member "
                                       "`samples_` starts at 40"))
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "verified", r.message
    assert "outside what this claim checks" in r.message


def test_a_true_edit_verifies_and_rebind_makes_the_claim_follow(sx):
    _setup(sx, "enum-name")
    f = _lesson(sx)
    f.write_text(f.read_text().replace("`sxSTEP_FULL` is 6", "`sxSTEP_FULL` is 6.0"))
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "verified", r.message     # the same number, written otherwise
    assert "outside what this claim checks" in r.message
    # another true statement: both spans change, the claim is re-derived and verifies
    f.write_text(f.read_text().replace("`sxSTEP_FULL` is 6.0", "`sxPART_DYNAMICS` is 30"))
    body = sx.claim_file.read_text()
    r = sx.check(body.split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "verified", r.message
    assert "`sxSTEP_FULL` -> `sxPART_DYNAMICS`" in r.message and r.expected == 30
    rep = rebind(sx.project, None)
    assert not rep.refused and rep.bound[0].state == "derived", rep
    assert rep.files == [sx.claim_file]
    new = sx.claim_file.read_text()
    assert 'symbol = "sxPART_DYNAMICS"' in new and "expected = 30" in new
    assert 'says = ["sxPART_DYNAMICS", "30"]' in new
    assert new.replace("sxPART_DYNAMICS", "sxSTEP_FULL").replace("30", "6") == body
    r = sx.check(new.split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "verified" and r.edit is None, r.message


def test_span_gone_is_stale_with_the_reviewed_view_and_the_evidence(sx):
    _setup(sx, "enum-value")
    f = _lesson(sx)
    f.write_text(f.read_text().replace("`sxNPART` 是 5。", "`sxNPART` 是一个计数。"))
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "stale", r.message
    assert "no longer readable" in r.message
    assert "[5]" in r.message                         # the reviewed span in its contexts
    assert "as reviewed, the claim is verified" in r.message
    assert r.line == 5 and r.edit.reviewed_line == 5
    rep = rebind(sx.project, None)
    assert rep.refused and "no longer in its sentence" in rep.refused[0][1]
    rep = rebind(sx.project, None, force="the sentence no longer states the count")
    assert not rep.refused
    text = sx.claim_file.read_text()
    assert 'paraphrase = "the sentence no longer states the count"' in text
    assert "says" not in text.split("[[claim]]", 1)[1]
    assert load_bindings(sx.root / "claims").get("demo-atlas/lesson/c").note


def test_fragment_edited_inside_is_relocated(sx):
    _setup(sx, "default-value")
    f = _lesson(sx)
    f.write_text(f.read_text().replace("`scale` to 1.0", "`scale` to 3.0"))
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "diverged", r.message
    assert "was edited" in r.message and r.line == 11


def test_rebind_accepts_a_true_edit_and_writes_it_into_the_claim(sx):
    sx.write(_claim("c", "default", "systems/sensors/gyro_probe.h", "GyroProbe", 1,
                    "`scale` to 1.0", ["1.0"], param="scale"))
    assert not rebind(sx.project, None).refused
    f = _lesson(sx)
    # the edited sentence is still true: 1.0 is written 1 (same number), and `bias` stays
    f.write_text(f.read_text().replace("`scale` to 1.0", "`scale` to 1.00"))
    rep = rebind(sx.project, None)
    assert not rep.refused and rep.bound[0].state in ("same", "outside", "derived")
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "verified"


def test_runtime_negation_is_merged_as_a_refutation():
    from verifier.results import ClaimResult, RuntimeResult, Verdict
    from verifier.runtime import _merge

    res = ClaimResult(id="x", lesson="l", line=1, upstream="u", kind="runtime",
                      verdict=Verdict.UNAVAILABLE)
    rt = RuntimeResult(status="confirmed", value=True, expected=True)
    assert _merge(res, "runtime", rt).verdict is Verdict.VERIFIED
    got = _merge(res, "runtime", rt, negated=True)
    assert got.verdict is Verdict.DIVERGED and "now negates" in got.message
    assert got.runtime.status == "confirmed"        # what ran is reported as it ran


def test_a_negation_turned_in_another_clause_is_a_warning_on_the_line(sx):
    # the claim checks `sxNPART` 是 5; the same sentence's other clause loses its "不"
    f = _lesson(sx)
    f.write_text(f.read_text().replace("`sxNPART` 是 5。", "`sxNPART` 是 5，不是 6。"))
    _setup(sx, "enum-value")
    f.write_text(f.read_text().replace("`sxNPART` 是 5，不是 6。", "`sxNPART` 是 5，是 6。"))
    from verifier.claims.check import check_claims

    found: list = []
    pairs = check_claims(sx.project, findings=found)
    assert [r.verdict.value for _, r in pairs] == ["verified"]
    turned = [x for x in found if x.rule == "sentence-turned"]
    assert len(turned) == 1 and turned[0].line == 5 and turned[0].severity.value == "warning"
    assert "“不是” removed" in turned[0].message and "demo-atlas/lesson/c" in turned[0].message


def _absent_claim(sx):
    """A reviewed `paraphrase` claim (no spans): `GyroProbe.AddToDiagram` is not bound."""
    sx.write('[[claim]]\nid = "c"\nfragment = "The Python binding has no"\nkind = "symbol"\n'
             'path = "bindings/pysimx/systems/sensors_py_gyro.cc"\n'
             'symbol = "GyroProbe.AddToDiagram"\nexpected = false\nparaphrase = "a test"\n\n')
    assert not rebind(sx.project, None).refused


def test_a_paraphrase_claim_is_negated_by_a_flip_in_its_clause(sx):
    _absent_claim(sx)
    f = _lesson(sx)
    f.write_text(f.read_text().replace("has no `AddToDiagram`", "has `AddToDiagram`"))
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "diverged" and "negated" in r.message, r.message
    # an edit of a paraphrase claim's sentence that is no flip: stale, a person looks
    f.write_text(f.read_text().replace("has `AddToDiagram`", "has no `AddToDiagramX`"))
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "stale", r.message


def test_a_repetition_of_the_checked_value_edited_outside_the_span_is_stale(sx):
    # the sentence states the value twice; the span follows one occurrence, the edit
    # changes the other: the claim's own words changed, so it is stale, never verified,
    # and rebind refuses it
    _setup(sx, "default-value")
    f = _lesson(sx)
    f.write_text(f.read_text().replace("scale)` defaults", "scale)` (a gain of 1.0) "
                                       "defaults"))
    assert not rebind(sx.project, None).refused          # reviewed with the repetition
    body = sx.claim_file.read_text()
    lock = (sx.root / "claims" / "claims.lock").read_text()
    assert 'marks = ["GyroProbe", "scale", "1", "scale", "1"]' in lock
    f.write_text(f.read_text().replace("(a gain of 1.0)", "(a gain of 2.0)"))
    r = sx.check(body.split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "stale", r.message
    assert "1 no longer there" in r.message and "own names and numbers" in r.message
    rep = rebind(sx.project, None)
    assert [g for g, _ in rep.refused] == ["demo-atlas/lesson/c"]
    assert "own changed outside its spans" in rep.refused[0][1]
    assert (sx.root / "claims" / "claims.lock").read_text() == lock
    forced = rebind(sx.project, None, force="the gain is another number")
    assert not forced.refused and forced.bound[0].state == "forced"
    assert sx.check(body.split("\n\n", 1)[1])["c"].verdict.value == "verified"


def test_the_claimed_name_swapped_outside_the_spans_is_stale(sx):
    _setup(sx, "default-value")       # says the value; names `scale` in its words
    f = _lesson(sx)
    f.write_text(f.read_text().replace("defaults `bias` to `Eigen::Vector3d::Zero()`\nand "
                                       "`scale` to 1.0", "defaults `scale` to "
                                       "`Eigen::Vector3d::Zero()`\nand `bias` to 1.0"))
    body = sx.claim_file.read_text()
    r = sx.check(body.split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "stale", r.message
    assert [g for g, _ in rebind(sx.project, None).refused] == ["demo-atlas/lesson/c"]
    # the same words in the same order, written otherwise: still outside, verified
    f.write_text(f.read_text().replace("defaults `scale` to `Eigen::Vector3d::Zero()`\nand "
                                       "`bias` to 1.0", "defaults `bias` to "
                                       "`Eigen::Vector3d::Zero()`\nand `scale` to 1.00"))
    r = sx.check(body.split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "verified", r.message


def test_rebind_refuses_a_paraphrase_claim_whose_named_symbol_was_edited(sx):
    # no spans to follow: any edit makes it stale; an edit of the name the claim holds
    # is refused by rebind (the claim would verify about a name the sentence no longer
    # says), an edit of other words is bound
    _absent_claim(sx)
    f = _lesson(sx)
    original = f.read_text()
    f.write_text(original.replace("has no `AddToDiagram`", "has no `AddToScene`"))
    r = sx.check(sx.claim_file.read_text().split("\n\n", 1)[1])["c"]
    assert r.verdict.value == "stale" and "AddToDiagram no longer there" in r.message, r.message
    rep = rebind(sx.project, None)
    assert [g for g, _ in rep.refused] == ["demo-atlas/lesson/c"], rep
    f.write_text(original.replace("The Python binding has no", "The Python binding still "
                                  "has no"))
    rep = rebind(sx.project, None)
    assert not rep.refused, rep
