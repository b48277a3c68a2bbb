"""A check that ran out of time runs once more with a longer limit (a cold environment
compiles on first use), bounded per upstream and run (verifier/runtime/__init__.py
`_run_with_retry`): x10 its limit, at most RETRY_BUDGET_S of limits in all; what ran again
says so in its message and in the environment's record."""

from __future__ import annotations

import verifier.runtime as rt
from verifier.claims.model import RuntimeCheck
from verifier.results import RuntimeResult


def _items(*timeouts):
    return [(i, (f"c/l/{i}", RuntimeCheck(code="result = 1", expected=1, timeout=t)))
            for i, t in enumerate(timeouts)]


def _fake(monkeypatch, first: set[int], second: set[int]):
    """`_run_upstream` that times out the indexes in `first` on its first call and those
    in `second` on its second; records the limits it was given."""
    calls: list[dict[int, float]] = []

    def run(project, name, items):
        calls.append({i: c.timeout for i, (_g, c) in items})
        bad = first if len(calls) == 1 else second
        out = {i: RuntimeResult(status="error", expected=1,
                                message=f"timed out after {c.timeout:g}s") if i in bad
               else RuntimeResult(status="confirmed", value=1, expected=1)
               for i, (_g, c) in items}
        return out, {"upstream": name, "checks": len(items)}

    monkeypatch.setattr(rt, "_run_upstream", run)
    return calls


def test_a_timed_out_check_runs_again_with_ten_times_its_limit(monkeypatch):
    calls = _fake(monkeypatch, first={1}, second=set())
    out, rec = rt._run_with_retry(None, "up", _items(30, 20, 30))
    assert calls == [{0: 30, 1: 20, 2: 30}, {1: 200}]
    assert [out[i].status for i in range(3)] == ["confirmed", "confirmed", "confirmed"]
    assert "ran again with a 200 s limit after timed out after 20s" in out[1].message
    assert rec["retried"] == {"checks": 1, "timed_out_again": 0}


def test_retries_are_bounded_by_the_budget(monkeypatch):
    # 100 s -> 600 s takes the whole budget: the second timed-out check keeps its result
    calls = _fake(monkeypatch, first={0, 1}, second={0})
    out, rec = rt._run_with_retry(None, "up", _items(100, 30))
    assert calls[1] == {0: rt.RETRY_BUDGET_S}
    assert out[0].status == "error" and "ran again" in out[0].message
    assert out[1].status == "error" and out[1].message == "timed out after 30s"
    assert rec["retried"] == {"checks": 1, "timed_out_again": 1}


def test_nothing_timed_out_runs_once(monkeypatch):
    calls = _fake(monkeypatch, first=set(), second=set())
    _, rec = rt._run_with_retry(None, "up", _items(5, 5))
    assert len(calls) == 1 and "retried" not in rec
