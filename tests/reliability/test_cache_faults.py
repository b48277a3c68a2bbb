"""Class: a cache fault that hangs, corrupts or crashes a run (F3-1: a held lock blocked
a run forever, silently; F3-2: a directory in trees/ or index/ made the cache
"unusable"; F3-4: a cache filling mid-run was exit 3; F3-7: a concurrent `env clean`
and a running check corrupted each other; and a FIFO in place of an entry hung a read).

Mechanisms (`verifier/cache.py`): `Store.lock` waits a bounded time and names the
holder; every entry is read with `read_entry` (no link followed, no FIFO waited on) and
written through the safe writer's repair areas (what is in the way is removed); a full
or read-only cache is a CacheError naming the file; environments are used under a
shared lock that removal takes exclusively."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.reliability.conftest import few
from verifier import cache as cache_mod
from verifier import safewrite
from verifier.cache import Store
from verifier.errors import CacheError

HOLD = """
import sys, time
from pathlib import Path
from verifier.cache import Store
s = Store(Path(sys.argv[1]))
with s.lock(sys.argv[2], shared=sys.argv[3] == "shared"):
    print("held", flush=True)
    time.sleep(float(sys.argv[4]))
"""


def _holder(root: Path, name: str, mode: str = "exclusive", seconds: float = 30):
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(root), name, mode, str(seconds)],
                         stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    assert p.stdout.readline().strip() == "held"
    return p


def test_a_held_lock_times_out_with_a_note_naming_the_holder_f3_1(tmp_path, monkeypatch):
    store = Store(tmp_path / "c")
    notes: list[str] = []
    store.notify = notes.append
    monkeypatch.setattr(cache_mod, "LOCK_NOTE_S", 0.2)
    p = _holder(store.root, "git-x+demo")
    try:
        t0 = time.monotonic()
        with pytest.raises(CacheError) as ei:
            with store.lock("git-x+demo", timeout=1.0):
                pass
        assert time.monotonic() - t0 < 10
    finally:
        p.kill()
        p.wait()
    msg = ei.value.render()
    assert f"pid {p.pid}" in msg and "since" in msg and "VERIFIER_LOCK_TIMEOUT" in msg, msg
    assert len(notes) == 1 and f"pid {p.pid}" in notes[0]
    with store.lock("git-x+demo", timeout=1.0):      # free again once the holder is gone
        pass


def test_lock_timeout_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_LOCK_TIMEOUT", "0.3")
    store = Store(tmp_path / "c")
    p = _holder(store.root, "wheel-x")
    try:
        with pytest.raises(CacheError, match="gave up after"):
            with store.lock("wheel-x"):
                pass
    finally:
        p.kill()
        p.wait()
    monkeypatch.setenv("VERIFIER_LOCK_TIMEOUT", "soon")
    with pytest.raises(CacheError, match="VERIFIER_LOCK_TIMEOUT"):
        with store.lock("other"):
            pass


def test_env_clean_waits_for_a_running_batch_and_a_batch_for_a_removal_f3_7(tmp_path):
    from verifier.runtime.envs import remove_env, use_lock

    store = Store(tmp_path / "c")
    env = store.path("envs", "demo-0123")
    (env / "lib").mkdir(parents=True)
    (env / "lib" / "mod.py").write_text("x = 1\n")
    p = _holder(store.root, use_lock(env), "shared")      # a batch runs in it
    try:
        with pytest.raises(CacheError, match=f"pid {p.pid}"):
            with store.lock(use_lock(env), timeout=0.5):    # what remove_env takes
                pass
        assert (env / "lib" / "mod.py").exists()            # not pulled from under it
    finally:
        p.kill()
        p.wait()
    remove_env(env, store)
    assert not env.exists()
    # and `cache clean` takes the same lock for each environment
    (env / "lib").mkdir(parents=True)
    p = _holder(store.root, use_lock(env), "shared")
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("VERIFIER_LOCK_TIMEOUT", "0.5")
            with pytest.raises(CacheError, match=f"pid {p.pid}"):
                store.clean("envs")
        assert env.exists()
    finally:
        p.kill()
        p.wait()


@pytest.mark.parametrize("section,name", [("trees", "0" * 40 + ".json"),
                                          ("index", "demo-" + "0" * 40 + ".json"),
                                          ("index", "demo-blobs.json")])
def test_a_directory_or_fifo_where_an_entry_goes_is_repaired_f3_2(tmp_path, section, name):
    store = Store(tmp_path / "c")
    where = store.path(section, name)
    where.mkdir(parents=True)
    (where / "junk").write_text("x")
    assert store.read_json(where) is None and not where.exists()     # removed on read
    store.write_json(where, {"a": 1})
    assert store.read_json(where) == {"a": 1}
    where.unlink()
    os.mkfifo(where)
    t0 = time.monotonic()
    assert store.read_json(where) is None and time.monotonic() - t0 < 2   # never waits on it
    where.mkdir()
    store.write_json(where, {"b": 2})                                  # repaired on write
    assert store.read_json(where) == {"b": 2}


def test_a_planted_link_in_the_cache_never_carries_a_write_out(tmp_path):
    store = Store(tmp_path / "c")
    outside = tmp_path / "outside"
    outside.mkdir()
    fan = store.path("blobs", "ab")
    fan.symlink_to(outside, target_is_directory=True)
    store.write_bytes(store.path("blobs", "ab", "cdef"), b"x")
    assert list(outside.iterdir()) == [] and not fan.is_symlink()
    assert (fan / "cdef").read_bytes() == b"x"


def test_a_cache_that_fills_mid_run_is_exit_2_naming_the_file_f3_4(tmp_path, monkeypatch, capsys):
    from tests.claims.simx_project import make_simx
    from verifier.cli.main import main

    s = make_simx(tmp_path, monkeypatch)
    s.write('[[claim]]\nid = "a"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
            'path = "include/simx/simx.h"\nsymbol = "sx_advance"\nexpected = true\n')
    real, n = safewrite.stage_file, []

    def stage(fd, name, *a, **k):
        if os.path.realpath(f"/proc/self/fd/{fd}").startswith(str(tmp_path / "cache")):
            n.append(name)
            if len(n) > 6:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, name, *a, **k)

    monkeypatch.setattr(safewrite, "stage_file", stage)
    code = main(["check", "--pins", str(s.root / "pins.toml"), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "no space left on device" in err and "Traceback" not in err, err
    assert str(tmp_path / "cache") in err


# ----------------------------------------------------------------- the class, broadly
_kinds = st.sampled_from(["dir", "fifo", "link-out", "link-loop", "garbage", "empty"])


@few(30)
@given(st.lists(st.tuples(st.sampled_from(["trees", "index", "facts", "blobs"]), _kinds),
                min_size=1, max_size=4))
def test_whatever_sits_where_an_entry_goes_a_read_is_none_and_a_write_repairs(
        tmp_path_factory, plants):
    base = tmp_path_factory.mktemp("cf")
    store = Store(base / "c")
    outside = base / "outside"
    outside.mkdir()
    for i, (section, kind) in enumerate(plants):
        p = store.path(section, f"e{i}.json")
        p.parent.mkdir(parents=True, exist_ok=True)
        if kind == "dir":
            p.mkdir()
        elif kind == "fifo":
            os.mkfifo(p)
        elif kind == "link-out":
            p.symlink_to(outside / "target.json")
        elif kind == "link-loop":
            p.symlink_to(p)
        elif kind == "garbage":
            p.write_bytes(b"\xff\x00{")
        else:
            p.write_bytes(b"")
        t0 = time.monotonic()
        assert store.read_json(p) is None
        assert time.monotonic() - t0 < 2
        store.write_json(p, {"i": i})
        assert store.read_json(p) == {"i": i}
    assert list(outside.iterdir()) == []
