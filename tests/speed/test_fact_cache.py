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
    value = {"rows": [("sx_advance", "function", 3)], "n": 1}
    assert fc.get("symbols", "v1", BLOB, {"path": "a.c"}) is None
    fc.put("symbols", "v1", BLOB, value, {"path": "a.c"})
    assert fc.get("symbols", "v1", BLOB, {"path": "a.c"}) == value
    # another blob, query, extractor version or extractor: a miss
    assert fc.get("symbols", "v1", OTHER, {"path": "a.c"}) is None
    assert fc.get("symbols", "v1", BLOB, {"path": "b.c"}) is None
    assert fc.get("symbols", "v2", BLOB, {"path": "a.c"}) is None
    assert fc.get("claim", "v1", BLOB, {"path": "a.c"}) is None
    assert fc.stats.hits == 1 and fc.stats.misses == 5 and fc.stats.writes == 1
    # entries live under facts/<extractor>/<blob[:2]>/
    (entry,) = list(fc.entries())
    assert entry.relative_to(fc.root).parts[:2] == ("symbols", "aa")
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


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "bad-pickle"])
def test_corrupt_entry_is_ignored_removed_and_rebuilt(fc, damage):
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
    else:  # a valid checksum over a payload that is not a pickle
        import hashlib

        payload = b"\x80\x05not a pickle"
        entry.write_bytes(MAGIC + hashlib.sha256(payload).digest() + payload)
    assert fc.get("symbols", "v1", BLOB, {"p": 1}) is None
    assert fc.stats.corrupt == 1
    assert not entry.exists()
    assert fc.get_or_build("symbols", "v1", BLOB, lambda: ["rebuilt"], {"p": 1}) == ["rebuilt"]
    assert fc.get("symbols", "v1", BLOB, {"p": 1}) == ["rebuilt"]


def test_interrupted_write_leaves_no_entry(fc, monkeypatch):
    def boom(src, dst):
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
    (store.root / "symbols" / "up-commit-digest.json").write_text("{}")
    sha = store.put_blob(b"source bytes\n")
    store.clean("facts")
    assert list(fc.entries()) == [] and list((store.root / "symbols").iterdir()) == []
    assert store.get_blob(sha) == b"source bytes\n"          # sources stay


def test_unpicklable_value_is_not_cached(fc):
    fc.put("claim", "v1", BLOB, {"fn": lambda: 1})
    assert list(fc.entries()) == [] and fc.stats.writes == 0
    assert fc.get_or_build("claim", "v1", BLOB, lambda: (lambda: 2))() == 2
