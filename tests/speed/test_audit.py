"""The audit sample of a memo (`verifier/facts/audit.py`): a fraction of the hits, with a
budget on how many a run re-derives when it knows how many entries it meets."""

from __future__ import annotations

import pytest

from verifier.facts.audit import DEFAULT_BUDGET, AuditState


@pytest.fixture(autouse=True)
def _seeded(monkeypatch):
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT_SEED", "7")
    monkeypatch.delenv("VERIFIER_MEMO_AUDIT", raising=False)
    monkeypatch.delenv("VERIFIER_MEMO_AUDIT_BUDGET", raising=False)


def _drawn(state: AuditState, n: int) -> list[int]:
    return [i for i in range(n) if state.sampled(f"entry-{i}")]


def test_a_small_run_keeps_the_fraction():
    state = AuditState(first=False)
    state.expect(60)                      # 60 x 5 % = 3 < budget
    assert state.rate == state.fraction == 0.05


def test_a_large_run_is_held_to_the_budget_and_drawn_uniformly():
    n = 20_000
    capped = AuditState(first=False)
    capped.expect(n)
    assert capped.rate == pytest.approx(DEFAULT_BUDGET / n)
    got = _drawn(capped, n)
    assert 0 < len(got) <= 4 * DEFAULT_BUDGET            # ~4 expected, never ~1,000
    assert max(got) > n // 2                              # not the first entries only
    uncapped = AuditState(first=False)
    assert len(_drawn(uncapped, n)) > 500                 # no expect(): 5 % as before


def test_every_hit_when_asked_and_no_budget_when_switched_off(monkeypatch):
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    every = AuditState(first=False)
    every.expect(10_000)
    assert len(_drawn(every, 200)) == 200
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0.05")
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT_BUDGET", "0")
    free = AuditState(first=False)
    free.expect(10_000)
    assert free.rate == 0.05


def test_the_first_hit_stays_forced_where_it_was():
    state = AuditState(first=True)
    state.expect(1_000_000)
    assert state.sampled("anything") is True
