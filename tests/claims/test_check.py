"""Loading claim files and checking them: stale fragments, bad claims with
file:line, the identity rule, release/mismatch sources, the CLI contract."""

from __future__ import annotations

import json

import pytest

from tests.claims.simx_project import HEADER, claim, simx  # noqa: F401 (fixture)
from tests.helpers_upstream import UpstreamSpec, make_wheel, place_wheel_in_cache, write_pins
from verifier.claims.check import run_check
from verifier.claims.sentences import locate
from verifier.claims.kinds.base import REGISTRY, ClaimKind, Outcome
from verifier.claims.loader import load_claims
from verifier.cli.main import main
from verifier.errors import ConfigError
from verifier.project import load_project
from verifier.results import Evidence, Verdict

OK = claim("ok", "symbol", "include/simx/simx.h", "sx_advance", True, "sx_advance(model, d)")


def test_locate_fragment():
    text = "first line\nsecond has `code`\nwraps across\ntwo lines\n"
    assert locate("`code`", text) == 2
    assert locate("across two", text) == 3          # whitespace runs may differ
    assert locate("nowhere", text) is None


def test_claim_line_is_the_lesson_line(simx):
    r = simx.one(OK)
    assert r.verdict is Verdict.VERIFIED
    assert r.line == 3 and r.lesson == "docs/lesson.md" and r.course == "demo-atlas"
    assert r.id == "demo-atlas/lesson/ok"


def test_wrapped_fragment_is_found(simx):
    r = simx.one(claim("w", "symbol", "include/simx/simx.h", "sx_advance", True,
                       "fragment that wraps across two lines"))
    assert r.verdict is Verdict.VERIFIED and r.line == 22


def test_stale_when_fragment_gone(simx):
    r = simx.one(claim("s", "symbol", "include/simx/simx.h", "sx_advance", True,
                       "a sentence the lesson no longer has"))
    assert r.verdict is Verdict.STALE and r.line is None
    assert "no longer in demo-atlas/docs/lesson.md" in r.message


def test_bad_claims_are_errors_with_file_and_line(simx):
    body = (OK
            + claim("k", "symbl", "include/simx/simx.h", "sx_advance", True, "sx_advance1")
            + claim("n", "symbol", "include/simx/simx.h", None, True, "sx_advance1")
            + '[[claim]]\nid = "x"\nfragment = "sx_advance1"\nkind = "symbol"\n'
              'pth = "include/simx/simx.h"\nexpected = true\n\n'
            + claim("ok", "symbol", "include/simx/simx.h", "sx_advance", True, "sx_advance1")
            + claim("u", "symbol", "include/simx/simx.h", "sx_advance", True, "sx_advance1")
            .replace('kind = "symbol"', 'kind = "symbol"\nupstream = "nope"'))
    res = simx.check(body)
    f = simx.claim_where
    assert res["ok"].verdict is Verdict.VERIFIED       # the first "ok"
    assert res["ok#2"].verdict is Verdict.ERROR        # the duplicate: a result id of its own
    assert "duplicate claim id 'ok' (first at line 4)" in res["ok#2"].message
    k = res["k"]
    assert k.verdict is Verdict.ERROR and f"{f}:12:" in k.message
    assert "unknown kind 'symbl'" in k.message and "signature, symbol" in k.message
    assert res["n"].verdict is Verdict.ERROR and "needs `symbol`" in res["n"].message
    assert res["x"].verdict is Verdict.ERROR and "pth: unknown key" in res["x"].message
    assert f"{f}:31:" in res["x"].message               # the offending key's line
    assert "unknown upstream 'nope'" in res["u"].message


def test_whitespace_fragment_is_an_error_not_a_binding(simx):
    # reliability trial 2.8 (A10): "   " passed min_length=3, bound to an arbitrary line, verified
    res = simx.check(OK + claim("blank", "symbol", "include/simx/simx.h", "sx_advance", True,
                                "   "))
    assert res["ok"].verdict is Verdict.VERIFIED
    assert res["blank"].verdict is Verdict.ERROR and res["blank"].line is None
    assert "3 non-space characters" in res["blank"].message


def test_first_claim_still_checked_next_to_bad_ones(simx):
    simx.write(OK + claim("k", "symbl", "include/simx/simx.h", "x", True, "sx_advance1"))
    got = [r.verdict for r in run_check(simx.project)]
    assert got == [Verdict.VERIFIED, Verdict.ERROR]


def test_malformed_file_is_config_error(simx):
    simx.write('[[claim]]\nid = "a"\nfragment = "x\n')
    with pytest.raises(ConfigError) as exc:
        load_claims(simx.project)
    assert str(simx.claim_file) in exc.value.render() and exc.value.line == 6


def test_bad_header_is_config_error(simx):
    simx.write(OK, header='lesson = "docs/lesson.md"\nupstreem = "simx"\n')
    with pytest.raises(ConfigError) as exc:
        load_claims(simx.project)
    assert exc.value.line == 2 and "unknown key" in exc.value.render()


def test_claims_for_unknown_course(simx):
    other = simx.root / "claims" / "ghost-atlas" / "x.toml"
    other.parent.mkdir(parents=True)
    other.write_text(HEADER)
    try:
        with pytest.raises(ConfigError, match="claims for unknown course 'ghost-atlas'"):
            load_claims(simx.project)
    finally:
        other.unlink()
        other.parent.rmdir()


def test_missing_lesson_is_error(simx):
    simx.write(OK, header='lesson = "docs/gone.md"\nupstream = "simx"\n')
    (r,) = run_check(simx.project)
    assert r.verdict is Verdict.ERROR and "lesson 'docs/gone.md' not found" in r.message


def test_a_path_absent_from_the_pinned_tree_is_the_claims_error(simx):
    # the git tree at the pin is known: a path it lacks is a mistyped locator, not a gap
    r = simx.one(claim("u", "symbol", "src/engine/not_there.c", "x", True, "sx_advance1"))
    assert r.verdict is Verdict.ERROR, r.message
    assert "no such path" in r.message and simx.claim_where in r.message
    r = simx.one(claim("u", "symbol", "include/simx/simx.hh", "x", True, "sx_advance1"))
    assert r.verdict is Verdict.ERROR and "include/simx/simx.h" in r.message


def test_runtime_only_claim(simx):
    body = ('[[claim]]\nid = "r"\nfragment = "sx_advance1"\nkind = "runtime"\n'
            '[claim.runtime]\ncode = "result = 1"\nexpected = 1\n\n'
            '[[claim]]\nid = "r2"\nfragment = "sx_advance1"\nkind = "runtime"\n')
    res = simx.check(body)
    assert res["r"].verdict is Verdict.UNAVAILABLE and res["r"].message == "runtime-only claim"
    assert res["r2"].verdict is Verdict.ERROR and "[claim.runtime]" in res["r2"].message


@pytest.fixture
def rogue():
    class _Rogue(ClaimKind):
        """A kind that claims `verified` without reading the file (must be refused)."""

        name = "test-rogue"
        code = "VC999"

        def check(self, claim, ctx):
            return Outcome(Verdict.VERIFIED, actual=True,
                           evidence=Evidence(path=claim.path, blob="0" * 40, status="pinned"))

    yield _Rogue
    REGISTRY.pop("test-rogue", None)


def test_verified_without_pinned_evidence_is_refused(simx, rogue):
    r = simx.one(claim("r", "test-rogue", "include/simx/simx.h", "sx_advance", True,
                       "sx_advance1"))
    assert r.verdict is Verdict.ERROR and "refusing `verified`" in r.message


# ---------------------------------------------------------------- wheel: release / mismatch
WHEEL_PY = "def probe(a, b=1):\n    return a\n"


def test_release_and_mismatch_sources(tmp_path, monkeypatch, course_dir):
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    from tests.claims.simx_project import FIX
    import shutil

    shutil.copytree(FIX / "course", tmp_path / "course")
    spec = UpstreamSpec("https://example.invalid/x/whl", "1" * 40, wheel="whl==1.0.0",
                        wheel_map=[("whl/", "whl/")])
    pins = write_pins(tmp_path, {"whl": spec},
                      {"demo-atlas": (str(tmp_path / "course" / "demo-atlas"), ["whl"])})
    (tmp_path / "pins.lock").write_text(
        'schema = 1\n\n[upstream.whl]\ncommit = "' + "1" * 40 + '"\n\n[upstream.whl.files]\n'
        '"whl/changed.py" = "' + "2" * 40 + '"\n')
    project = load_project(pins)
    whl = make_wheel(tmp_path / "dist", "whl", "1.0.0", {"whl/changed.py": WHEEL_PY,
                                                        "whl/extra.py": WHEEL_PY})
    place_wheel_in_cache(project.store.root, "whl==1.0.0", whl)
    claims = tmp_path / "claims" / "demo-atlas" / "lesson.toml"
    claims.parent.mkdir(parents=True)
    claims.write_text('lesson = "docs/lesson.md"\nupstream = "whl"\n\n'
                      + claim("m", "symbol", "whl/changed.py", "probe", True, "sx_advance1")
                      + claim("r", "symbol", "whl/extra.py", "probe", True, "sx_advance1")
                      + claim("p", "symbol", "whl/extar.py", "probe", True, "sx_advance1")
                      + claim("o", "symbol", "src/other.c", "probe", True, "sx_advance1"))
    res = {r.id.rsplit("/", 1)[-1]: r for r in run_check(project)}
    # the wheel has other bytes than the pin: never verified
    assert res["m"].verdict is Verdict.UNAVAILABLE
    assert res["m"].evidence.status == "mismatch" and res["m"].evidence.blob == "2" * 40
    # pin blob unknown, served from the pinned release: verified, marked `release`
    assert res["r"].verdict is Verdict.VERIFIED and res["r"].evidence.status == "release"
    # a mistyped path under a prefix the wheel serves: the claim's error, with a suggestion
    assert res["p"].verdict is Verdict.ERROR, res["p"].message
    assert "did you mean" in res["p"].message and "whl/extra.py" in res["p"].message
    # a path no wheel maps (and no lock lists): honestly unavailable
    assert res["o"].verdict is Verdict.UNAVAILABLE


# ---------------------------------------------------------------- CLI
def test_cli_json_and_exit_codes(simx, monkeypatch, capsys):
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    pins = str(simx.root / "pins.toml")
    simx.write(OK)
    assert main(["check", "--pins", pins, "--format", "json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (c,) = doc["claims"]
    assert {"id", "lesson", "line", "upstream", "kind", "verdict", "expected", "actual",
            "evidence"} <= set(c)
    assert set(c["evidence"]) >= {"path", "lines", "blob", "permalink"}
    assert doc["summary"]["verified"] == 1 and doc["summary"]["total"] == 1
    simx.write(OK + claim("d", "symbol", "include/simx/simx.h", "sx_nope", True, "sx_advance1"))
    assert main(["check", "--pins", pins, "--format", "json", "-q"]) == 1
    capsys.readouterr()
    assert main(["check", "--pins", pins, "--upstream", "nope", "-q"]) == 2
    assert "unknown upstream" in capsys.readouterr().err.lower()
    # lesson filter by <course>/<path>
    assert main(["check", "--pins", pins, "--format", "json", "-q", "--lesson",
                 "demo-atlas/docs/lesson.md", "--kind", "signature"]) == 0
    assert json.loads(capsys.readouterr().out)["claims"] == []
    assert main(["check", "--pins", pins, "--lesson", "demo-atlas/docs/none.md"]) == 2


def test_needed_files_include_claim_paths(simx):
    from verifier.claims.loader import claimed_files
    from verifier.sources.needs import needed_files

    simx.write(OK + claim("p", "symbol", "pysimx/sensors.py", "ProbeIMU", True, "sx_advance1"))
    need = needed_files(simx.project, claimed=claimed_files(simx.project))
    assert ("simx", "include/simx/simx.h") in need and ("simx", "pysimx/sensors.py") in need
    assert ("simx", "pysimx/sensors.py") not in needed_files(simx.project)
    assert needed_files(simx.project, upstream="simx", claimed=claimed_files(simx.project)) == need


def test_cli_runtime_options_reach_confirm(simx, monkeypatch, capsys):
    import verifier.runtime as rt
    from verifier.results import RuntimeResult

    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    seen = {}

    def fake_confirm(project, pairs, mode="sample", sample=None, seed=0):
        seen.update(mode=mode, sample=sample, seed=seed, ids=[lc.gid for lc, _ in pairs])
        rr = RuntimeResult(status="confirmed", value=1, expected=1)
        return [r.model_copy(update={"runtime": rr}) for _, r in pairs], {"mode": mode}

    monkeypatch.setattr(rt, "confirm", fake_confirm)
    simx.write(OK)
    pins = str(simx.root / "pins.toml")
    assert main(["check", "--pins", pins, "--format", "json", "-q", "--runtime", "sample",
                 "--sample", "0.5", "--seed", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert seen == {"mode": "sample", "sample": 0.5, "seed": 3, "ids": ["demo-atlas/lesson/ok"]}
    assert doc["runtime"] == {"mode": "sample"}
    assert doc["claims"][0]["runtime"]["status"] == "confirmed"
    assert main(["check", "--pins", pins, "--runtime", "sample", "--sample", "x"]) == 2


def test_cli_report_formats(simx, monkeypatch, capsys):
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    simx.write(OK + claim("d", "symbol", "include/simx/simx.h", "sx_nope", True, "sx_advance1"))
    pins = str(simx.root / "pins.toml")
    for fmt in ("junit", "sarif", "markdown"):
        assert main(["check", "--pins", pins, "--format", fmt, "-q"]) == 1
        out = capsys.readouterr().out
        assert "demo-atlas/lesson/d" in out, fmt


def test_unknown_option_is_an_error(simx):
    r = simx.one(claim("o", "members", "pysimx/sensors.py", "pysimx.sensors", ["ProbeIMU"],
                       "sx_advance1", mach="subset"))
    assert r.verdict is Verdict.ERROR
    assert "unknown option(s) mach for kind 'members' (known: match, of)" in r.message


def test_cli_lesson_by_file_path_and_no_claims(simx, monkeypatch, capsys):
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    pins = str(simx.root / "pins.toml")
    lesson = simx.project.lessons()[0].file
    simx.write(OK)
    assert main(["check", "--pins", pins, "--format", "json", "-q", "--lesson", str(lesson)]) == 0
    assert [c["id"] for c in json.loads(capsys.readouterr().out)["claims"]] == \
        ["demo-atlas/lesson/ok"]
    simx.claim_file.unlink()
    assert main(["check", "--pins", pins, "--format", "json", "-q"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "claims": [], "summary": {"total": 0, "verified": 0, "diverged": 0, "stale": 0,
                                  "unavailable": 0, "error": 0, "verified_from_release": 0,
                                  "by_kind": {}, "reviewed": 0,
                                  "drafts": {"total": 0, "verified": 0, "diverged": 0,
                                             "stale": 0, "unavailable": 0, "error": 0}}}


def test_ambiguous_fragment_is_noted(simx):
    r = simx.one(claim("a", "symbol", "include/simx/simx.h", "sx_advance", True, "sx_advance"))
    assert r.verdict is Verdict.VERIFIED and r.line == 3
    assert "fragment occurs 4 times in the lesson, line 3 is the first" in r.message
