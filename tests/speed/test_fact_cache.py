"""The fact cache itself: keys, versions, corrupt entries, interrupted and
concurrent writers."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from verifier.cache import Store
from verifier.facts.cache import MAGIC, FactCache, canonical

BLOB = "a" * 40
OTHER = "b" * 40


@pytest.fixture
def fc(tmp_path) -> FactCache:
    return FactCache(Store(tmp_path / "cache"))


def test_hit_and_miss_by_every_key_part(fc):
    value = {"rows": [["sx_advance", "function", 3]], "n": 1}
    assert fc.get("symbols", "v1", BLOB, {"path": "a.c"}) is None
    fc.put("symbols", "v1", BLOB, value, {"path": "a.c"})
    assert fc.get("symbols", "v1", BLOB, {"path": "a.c"}) == value
    # another blob, query, extractor version or extractor: a miss
    assert fc.get("symbols", "v1", OTHER, {"path": "a.c"}) is None
    assert fc.get("symbols", "v1", BLOB, {"path": "b.c"}) is None
    assert fc.get("symbols", "v2", BLOB, {"path": "a.c"}) is None
    assert fc.get("claim", "v1", BLOB, {"path": "a.c"}) is None
    assert fc.stats.hits == 1 and fc.stats.misses == 5 and fc.stats.writes == 1
    # entries live under facts/<extractor>/<version>/<blob[:2]>/
    (entry,) = list(fc.entries())
    assert entry.relative_to(fc.root).parts[:3] == ("symbols", "v1", "aa")
    assert entry.name.startswith(BLOB)


def test_query_is_canonical(fc):
    fc.put("claim", "v1", BLOB, 42, {"b": [1, 2], "a": {"y": 1, "x": 2}})
    assert fc.get("claim", "v1", BLOB, {"a": {"x": 2, "y": 1}, "b": [1, 2]}) == 42
    assert canonical({"b": 1, "a": 2}) == '{"a":2,"b":1}'


def test_bad_keys_are_refused(fc):
    with pytest.raises(ValueError):
        fc.path("symbols", "v1", "../../etc/passwd")
    with pytest.raises(ValueError):
        fc.path("../x", "v1", BLOB)


def test_entry_from_old_version_is_rebuilt(fc):
    calls = []

    def build():
        calls.append(1)
        return len(calls)

    assert fc.get_or_build("symbols", "v1", BLOB, build) == 1
    assert fc.get_or_build("symbols", "v1", BLOB, build) == 1      # cached
    assert fc.get_or_build("symbols", "v2", BLOB, build) == 2      # new extractor version
    assert fc.get_or_build("symbols", "v2", None, build) == 3      # no blob: never cached


def test_get_or_build_stores_the_plain_form_and_rebuilds_a_rejected_one(fc):
    def load(plain):
        if not isinstance(plain, list):
            raise ValueError("another shape")
        return tuple(plain)

    assert fc.get_or_build("t", "v1", BLOB, lambda: (1, 2), load=load, dump=list) == (1, 2)
    assert fc.get("t", "v1", BLOB) == [1, 2]                       # the dumped form
    assert fc.get_or_build("t", "v1", BLOB, lambda: pytest.fail("built"), load=load,
                           dump=list) == (1, 2)
    fc.put("t", "v1", BLOB, {"not": "a list"})
    assert fc.get_or_build("t", "v1", BLOB, lambda: (3,), load=load, dump=list) == (3,)
    assert fc.stats.corrupt == 1 and fc.get("t", "v1", BLOB) == [3]


@pytest.mark.parametrize("damage,counter", [
    ("truncate", "corrupt"), ("flip", "forged"), ("garbage", "corrupt"), ("empty", "corrupt"),
    ("resigned-checksum", "forged"), ("other-key", "foreign")])
def test_corrupt_entry_is_ignored_removed_and_rebuilt(fc, damage, counter):
    fc.put("symbols", "v1", BLOB, ["x" * 100], {"p": 1})
    (entry,) = list(fc.entries())
    raw = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(raw[:-7])
    elif damage == "flip":
        entry.write_bytes(raw[:-1] + bytes([raw[-1] ^ 0xFF]))
    elif damage == "garbage":
        entry.write_bytes(b"not a fact entry at all")
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "other-key":    # a cache copied from another store: not this key's entry
        other = FactCache(Store(fc.store.root.parent / "other"))
        other.put("symbols", "v1", BLOB, ["x" * 100], {"p": 1})
        entry.write_bytes(next(iter(other.entries())).read_bytes())
    else:  # the old format's defence: a valid sha256 over a new payload (trial 4.14)
        import hashlib

        payload = b"\x91\xa6forged"
        head = raw[:len(MAGIC) + 8] + len(payload).to_bytes(4, "big")
        entry.write_bytes(head + hashlib.sha256(payload).digest() + payload)
    assert fc.get("symbols", "v1", BLOB, {"p": 1}) is None
    counts = {k: getattr(fc.stats, k) for k in ("corrupt", "forged", "foreign")}
    assert counts == {k: int(k == counter) for k in counts}
    assert bool(fc.notes) is (counter == "forged")
    assert not entry.exists()
    assert fc.get_or_build("symbols", "v1", BLOB, lambda: ["rebuilt"], {"p": 1}) == ["rebuilt"]
    assert fc.get("symbols", "v1", BLOB, {"p": 1}) == ["rebuilt"]


def test_interrupted_write_leaves_no_entry(fc, monkeypatch):
    def boom(src, dst, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        fc.put("symbols", "v1", BLOB, [1, 2, 3])
    monkeypatch.undo()
    assert list(fc.entries()) == []
    assert list((fc.store.root / "tmp").iterdir()) == []     # the temp file is gone too
    assert fc.get("symbols", "v1", BLOB) is None


def test_disabled_by_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_FACT_CACHE", "0")
    fc = FactCache(Store(tmp_path / "c"))
    fc.put("symbols", "v1", BLOB, 1)
    assert fc.get("symbols", "v1", BLOB) is None and list(fc.entries()) == []


def _writer(root: str, worker: int, rounds: int, q) -> None:
    fc = FactCache(Store(Path(root)))
    bad = 0
    for r in range(rounds):
        # everyone writes the shared key (equal values) and a key of its own
        fc.put("symbols", "v1", BLOB, {"shared": list(range(2000))}, {"k": "shared"})
        fc.put("symbols", "v1", BLOB, {"mine": worker, "round": r}, {"k": worker})
        got = fc.get("symbols", "v1", BLOB, {"k": "shared"})
        if got != {"shared": list(range(2000))}:
            bad += 1
    q.put((worker, bad, fc.stats.corrupt))


def test_concurrent_writers_and_readers(tmp_path):
    root = tmp_path / "cache"
    Store(root)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(str(root), w, 40, q)) for w in range(4)]
    for p in procs:
        p.start()
    results = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    assert sorted(w for w, _, _ in results) == [0, 1, 2, 3]
    assert all(bad == 0 and corrupt == 0 for _, bad, corrupt in results), results
    fc = FactCache(Store(root))
    assert fc.get("symbols", "v1", BLOB, {"k": "shared"}) == {"shared": list(range(2000))}
    for w in range(4):
        assert fc.get("symbols", "v1", BLOB, {"k": w}) == {"mine": w, "round": 39}
    assert fc.stats.corrupt == 0
    assert list((root / "tmp").iterdir()) == []


def test_cache_clean_facts_removes_facts_and_symbol_indexes(tmp_path):
    store = Store(tmp_path / "cache")
    fc = FactCache(store)
    fc.put("symbols", "v1", BLOB, [1])
    (store.root / "symbols").mkdir()
    (store.root / "symbols" / "up-commit-digest.sqlite").write_bytes(b"")
    sha = store.put_blob(b"source bytes\n")
    store.clean("facts")
    assert list(fc.entries()) == [] and list((store.root / "symbols").iterdir()) == []
    assert store.get_blob(sha) == b"source bytes\n"          # sources stay


@pytest.mark.parametrize("value", [{"fn": lambda: 1}, {1: "int key"}, {"o": object()},
                                   {"s": {1, 2}}])
def test_only_plain_data_is_stored(fc, value):
    with pytest.raises(TypeError, match="plain data"):
        fc.put("claim", "v1", BLOB, value)
    assert list(fc.entries()) == [] and fc.stats.writes == 0 and fc.stats.refused == 1


def test_entry_is_bound_to_its_key(fc):
    """A validly signed entry moved under another key (say, a `verified` outcome copied
    over a `diverged` one) is refused: the MAC covers the key digest."""
    fc.put("claim", "v1", BLOB, {"verdict": "verified"}, {"id": "a"})
    fc.put("claim", "v1", BLOB, {"verdict": "diverged"}, {"id": "b"})
    a, b = fc.path("claim", "v1", BLOB, {"id": "a"}), fc.path("claim", "v1", BLOB, {"id": "b"})
    b.write_bytes(a.read_bytes())
    assert fc.get("claim", "v1", BLOB, {"id": "b"}) is None and fc.stats.forged == 1


def test_signing_key_lives_outside_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_STATE_DIR", str(tmp_path / "state"))
    store = Store(tmp_path / "cache")
    key = store.signing_key()
    (f,) = list((tmp_path / "state" / "cache-keys").iterdir())
    assert f.read_bytes() == key and len(key) == 32 and (f.stat().st_mode & 0o077) == 0
    assert not any(key in p.read_bytes() for p in store.root.rglob("*") if p.is_file())
    assert Store(tmp_path / "cache").signing_key() == key          # stable per store
    assert Store(tmp_path / "cache2").signing_key() != key         # one per store
    monkeypatch.setenv("VERIFIER_CACHE_KEY", "a CI secret")
    assert Store(tmp_path / "cache").signing_key() != key
