"""confirm(): sampling, verdict merging, containment across upstreams.

The environments are stood in by the interpreter running the tests (its pydantic
is the 'pinned' package), so these tests need no network."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pydantic
import pytest

import verifier.runtime as rt
from verifier.cache import Store
from verifier.claims.model import Claim
from verifier.config import UserConfig
from verifier.pins import Pins, Upstream
from verifier.results import ClaimResult, Verdict
from verifier.runtime.envs import EnvInfo, RuntimeEnvError

PIN = f"pydantic=={pydantic.VERSION}"


@dataclass(frozen=True)
class LC:                      # the shape of claims.loader.LoadedClaim that confirm uses
    claim: Claim
    gid: str
    upstream: str | None = None
    problem: str | None = None


def project(tmp_path, **runtimes):
    ups = {name: Upstream(name=name, repo=f"https://github.com/o/{name}", commit="a" * 40,
                          version="1", runtime=reqs) for name, reqs in runtimes.items()}
    return SimpleNamespace(pins=Pins(upstream=ups), store=Store(tmp_path / "cache"),
                           config=UserConfig(), notify=None)


@pytest.fixture
def fake_envs(monkeypatch):
    built = []

    def create_env(store, spec, **kw):
        if kw.get("build", True):          # not the re-check under the use lock
            built.append(spec.upstream)
        return EnvInfo(spec, Path(sys.prefix), "ready", {"key": spec.key})
    monkeypatch.setattr(rt, "create_env", create_env)
    return built


def pair(gid, up, code, expected, kind="runtime", verdict=Verdict.UNAVAILABLE, **rtkw):
    exp = {} if "expected_json" in rtkw else {"expected": expected}
    claim = Claim(id=gid.rsplit("/", 1)[-1], fragment="some fragment", kind=kind,
                  runtime={"code": code, **exp, **rtkw})
    res = ClaimResult(id=gid, lesson="docs/x.md", line=1, upstream=up, kind=kind,
                      verdict=verdict, message="runtime-only claim" if kind == "runtime" else None)
    return LC(claim, gid, up), res


def test_confirmed_and_injected_wrong_expectation_refuted(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    pairs = [pair("c/l/good", "alpha", "result = [round(-0.1 // 1.0), 2 ** 0.5]", [-1, 1.4142135623730951]),
             pair("c/l/wrong", "alpha", "result = 2 ** 0.5", 1.5),
             pair("c/l/static-ok", "alpha", "result = 0.0", 0.0, kind="default",
                  verdict=Verdict.VERIFIED),
             pair("c/l/static-but-wrong", "alpha", "result = 1", 2, kind="default",
                  verdict=Verdict.VERIFIED)]
    results, rec = rt.confirm(p, pairs, mode="all")
    good, wrong, sok, sbad = results
    assert good.runtime.status == "confirmed" and good.verdict == Verdict.VERIFIED
    assert good.expected == [-1, 1.4142135623730951] and good.actual == [-1, 1.4142135623730951]
    assert good.runtime.duration_s is not None and good.runtime.expected == [-1, 1.4142135623730951]
    assert wrong.runtime.status == "refuted" and wrong.verdict == Verdict.DIVERGED
    assert wrong.runtime.value == pytest.approx(1.41421356) and wrong.runtime.expected == 1.5
    assert "1.5" in wrong.message
    assert sok.runtime.status == "confirmed" and sok.verdict == Verdict.VERIFIED
    assert sbad.runtime.status == "refuted" and sbad.verdict == Verdict.DIVERGED
    assert "static check verified, but runtime refuted" in sbad.message
    assert rec["outcomes"] == {"confirmed": 2, "refuted": 2}
    assert fake_envs == ["alpha"]                       # one environment, one batch
    assert rec["environments"][0]["installed"] == {"pydantic": pydantic.VERSION}


def test_static_diverged_runtime_confirmed_is_reported(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    pairs = [pair("c/l/d", "alpha", "result = 3", 3, kind="default", verdict=Verdict.DIVERGED)]
    (res,), _ = rt.confirm(p, pairs, mode="all")
    assert res.verdict == Verdict.DIVERGED
    assert "runtime confirmed" in res.message


def test_crash_in_one_upstream_leaves_the_other_alone(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN], beta=[PIN])
    pairs = [pair("c/l/a1", "alpha", "import os; os.abort()", 1),
             pair("c/l/a2", "alpha", "result = 1", 1),
             pair("c/l/b1", "beta", "result = 1", 1),
             pair("c/l/b2", "beta", "raise ValueError('nope')", 1)]
    results, rec = rt.confirm(p, pairs, mode="all")
    a1, a2, b1, b2 = results
    assert a1.runtime.status == "error" and "SIGABRT" in a1.runtime.message
    assert a1.verdict == Verdict.ERROR
    assert a2.runtime.status == "confirmed"           # a crash ends only its own check
    assert b1.runtime.status == "confirmed"
    assert b2.runtime.status == "error" and b2.runtime.message == "ValueError: nope"
    assert sorted(fake_envs) == ["alpha", "beta"]


def test_env_mismatch(tmp_path, fake_envs):
    p = project(tmp_path, alpha=["pydantic==0.0.1"])
    pairs = [pair("c/l/a", "alpha", "result = 1", 1),
             pair("c/l/b", "alpha", "result = 1", 1, kind="default", verdict=Verdict.VERIFIED)]
    (a, b), rec = rt.confirm(p, pairs, mode="all")
    assert a.runtime.status == "env-mismatch" and "pinned 0.0.1" in a.runtime.message
    assert a.verdict == Verdict.UNAVAILABLE                   # nothing decided
    assert b.runtime.status == "env-mismatch" and b.verdict == Verdict.VERIFIED


def test_needs_cuda_skipped_without_gpu(tmp_path, fake_envs, monkeypatch):
    monkeypatch.setenv("VERIFIER_CUDA", "0")
    p = project(tmp_path, alpha=[PIN])
    pairs = [pair("c/l/gpu", "alpha", "result = 1", 1, needs_cuda=True)]
    (res,), _ = rt.confirm(p, pairs, mode="all")
    assert res.runtime.status == "skipped" and "needs CUDA" in res.runtime.message
    assert fake_envs == []                                    # nothing was started


def test_sample_mode_marks_unsampled_and_none_touches_nothing(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    pairs = [pair(f"c/l/x{i}", "alpha", f"result = {i}", i) for i in range(8)]
    results, rec = rt.confirm(p, pairs, mode="sample", sample=2, seed=5)
    ran = [r for r in results if r.runtime.status == "confirmed"]
    skipped = [r for r in results if r.runtime.status == "skipped"]
    assert len(ran) == 2 and len(skipped) == 6
    assert all("not in the sample" in r.runtime.message for r in skipped)
    assert {e["id"] for e in rec["checks"] if e["sampled"]} == {r.id for r in ran}
    results, rec = rt.confirm(p, pairs, mode="none")
    assert all(r.runtime is None for r in results) and rec["sampled"] == 0


def test_claims_without_runtime_or_with_problems_are_not_candidates(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    plain = Claim(id="p", fragment="frag ment", kind="symbol")
    res = ClaimResult(id="c/l/p", lesson="docs/x.md", line=1, upstream="alpha", kind="symbol",
                      verdict=Verdict.VERIFIED)
    bad, bres = pair("c/l/bad", "alpha", "result = 1", 1)
    bad = LC(bad.claim, bad.gid, "alpha", problem="duplicate id")
    results, rec = rt.confirm(p, [(LC(plain, "c/l/p", "alpha"), res), (bad, bres)], mode="all")
    assert results[0] is res and results[1] is bres and rec["candidates"] == 0


def test_build_failure_is_an_error_offline_is_a_skip(tmp_path, monkeypatch):
    def fail(store, spec, **kw):
        raise RuntimeEnvError("no Python interpreter satisfying '>=9'")
    monkeypatch.setattr(rt, "create_env", fail)
    p = project(tmp_path, alpha=[PIN])
    pairs = [pair("c/l/a", "alpha", "result = 1", 1)]
    (res,), rec = rt.confirm(p, pairs, mode="all")
    assert res.runtime.status == "error" and "could not be built" in res.runtime.message
    p.config = UserConfig(offline=True)
    (res,), rec = rt.confirm(p, pairs, mode="all")
    assert res.runtime.status == "skipped"


def test_upstream_without_runtime_pins_is_skipped(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[])
    (res,), _ = rt.confirm(p, [pair("c/l/a", "alpha", "result = 1", 1)], mode="all")
    assert res.runtime.status == "skipped" and "no `runtime` requirements" in res.runtime.message


def test_runtime_only_claim_with_a_broken_locator_stays_error(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    lc, res = pair("c/l/a", "alpha", "result = 1", 1)
    res = res.model_copy(update={"verdict": Verdict.ERROR,
                                 "message": "fragment not found in the lesson"})
    (out,), _ = rt.confirm(p, [(lc, res)], mode="all")
    assert out.runtime.status == "confirmed"
    assert out.verdict == Verdict.ERROR
    assert out.message == "fragment not found in the lesson; runtime confirmed"


def test_static_unavailable_and_runtime_refuted_is_diverged_issue_16(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    pairs = [pair("c/l/u-bad", "alpha", "result = 4", 5, kind="default",
                  verdict=Verdict.UNAVAILABLE),
             pair("c/l/u-good", "alpha", "result = 5", 5, kind="default",
                  verdict=Verdict.UNAVAILABLE)]
    bad, good = (r.model_copy(update={"expected": "static"}) for _, r in pairs)
    (rbad, rgood), _ = rt.confirm(p, [(pairs[0][0], bad), (pairs[1][0], good)], mode="all")
    assert rbad.verdict == Verdict.DIVERGED
    assert (rbad.expected, rbad.actual) == (5, 4)          # the runtime is the evidence
    assert "refuted at runtime" in rbad.message and "4 != 5" in rbad.message
    assert rgood.verdict == Verdict.UNAVAILABLE              # confirmation is not a static proof
    assert "runtime confirmed" in rgood.message


def test_stale_claims_stay_stale_under_runtime_all_issue_16(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    out = []
    for kind in ("runtime", "default"):
        lc, res = pair(f"c/l/{kind}", "alpha", "result = 1", 1, kind=kind)
        out.append((lc, res.model_copy(update={
            "verdict": Verdict.STALE, "message": "fragment is no longer in the lesson"})))
    results, _ = rt.confirm(p, out, mode="all")
    for r in results:
        assert r.runtime.status == "confirmed"
        assert r.verdict == Verdict.STALE
        assert r.message == "fragment is no longer in the lesson; runtime confirmed"


def test_null_expectation_and_subset_through_confirm(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    pairs = [pair("c/l/n", "alpha", "result = {'a': None, 'b': 2, 'c': 3}", None,
                  expected_json='{"a": null, "b": 2}', compare="subset"),
             pair("c/l/x", "alpha", "result = {'a': None, 'b': 2, 'c': 3}", None,
                  expected_json='{"a": null, "b": 2}')]
    pairs = [(lc, r) for lc, r in pairs]
    (sub, exact), _ = rt.confirm(p, pairs, mode="all")
    assert sub.runtime.status == "confirmed" and sub.verdict == Verdict.VERIFIED
    assert sub.expected == {"a": None, "b": 2}
    assert exact.runtime.status == "refuted" and "keys" in exact.message


def test_values_and_messages_kept_are_sanitised(tmp_path, fake_envs):
    p = project(tmp_path, alpha=[PIN])
    code = "import os\nresult = [os.getcwd(), 'ghp_' + 'a' * 36]\nprint(os.environ['HOME'])"
    (res,), _ = rt.confirm(p, [pair("c/l/s", "alpha", code, ["x"])], mode="all")
    assert res.runtime.status == "refuted"
    assert res.runtime.value == ["<scratch>", "[redacted]"] and res.actual == res.runtime.value
    assert "ghp_" not in res.message and "<scratch>/home" in res.runtime.stdout
