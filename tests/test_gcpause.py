"""verifier/gcpause.py: the collector is held off inside a block and restored after it,
also when the block raises; nested blocks leave it to the outermost one; a collector
the caller had turned off stays off."""

from __future__ import annotations

import gc

import pytest

from verifier import gcpause


def test_paused_and_restored():
    assert gc.isenabled()
    with gcpause.paused():
        assert not gc.isenabled()
        with gcpause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()          # the inner block does not turn it back on
    assert gc.isenabled()


def test_restored_when_the_block_raises():
    with pytest.raises(ValueError), gcpause.paused():
        raise ValueError("x")
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off():
    gc.disable()
    try:
        with gcpause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
