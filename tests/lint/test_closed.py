"""Closed worlds (verifier/lint/closed.py): what counts as a writing slip, probed at its
boundary cases, and the worlds the pinned release serves whole, derived from pins.toml."""

from __future__ import annotations

import pytest

from verifier.lint.closed import is_slip


@pytest.mark.parametrize("a,b", [
    ("mj_resetDta", "mj_resetData"),          # a letter dropped
    ("mj_resetDataa", "mj_resetData"),        # doubled
    ("mj_rseetData", "mj_resetData"),         # two adjacent swapped
    ("mj_resetDeta", "mj_resetData"),         # one changed
    ("mjModels", "mjModel"),                  # plural
    ("mjr_defaultOption", "mjv_defaultOption"),   # a wrong family prefix
    ("boxes", "box"),                         # plural -es
])
def test_slips(a, b):
    assert is_slip(a, b) and is_slip(b, a)


@pytest.mark.parametrize("a,b", [
    ("mj_resetData", "mj_resetData"),         # the same name
    ("contactForce", "contactforce"),         # case only: another convention
    ("MjData", "mjData"),                     # a binding's case, not a slip
    ("qfrc_warmstart", "qacc_warmstart"),     # two changes: maybe another name
    ("mj_step", "mj_step12"),                 # two added
    ("mj_rsteeData", "mj_resetData"),         # a swap that is not adjacent
])
def test_not_slips(a, b):
    assert not is_slip(a, b) and not is_slip(b, a)


def test_worlds_come_from_the_wheel_maps(real_project):
    """MuJoCo's public headers and Python files, Newton and Warp: every wheel map rule
    whose files are all served is a closed world; none is listed by hand."""
    from verifier.lint.base import LintContext
    from verifier.lint.closed import worlds
    from verifier.lint.config import load_lint_config

    ctx = LintContext(real_project, load_lint_config(real_project.root))
    mj = {w.prefix for w in worlds(ctx, "mujoco") if w.prefix}
    assert "include/mujoco/" in mj
    for up in ("newton", "warp"):
        rules = {r.repo for w in real_project.pins.get(up).wheel for r in w.map}
        assert {w.prefix for w in worlds(ctx, up) if w.prefix} == rules
    # Drake's wheel serves no repository file: no file world (its pinned environment,
    # when built, is one)
    assert not [w for w in worlds(ctx, "drake") if w.prefix]
