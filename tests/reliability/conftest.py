"""Shared settings of the reliability suite: one test module per class of defect
(bounded input, regex budget, canonical paths, claim identity, safe writer, cache
locks, runtime isolation, visible text), each with a reproduction of the trial that
found the class and a property test that attacks the class broadly.

Hypothesis runs a small, derandomised number of examples in CI (the suite adds well
under a minute); VERIFIER_PROPERTY_SCALE=10 multiplies them."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SCALE = max(1, int(os.environ.get("VERIFIER_PROPERTY_SCALE", "1")))


def few(n: int):
    return settings(max_examples=n * SCALE, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])
