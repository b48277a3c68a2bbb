"""The cached symbol index format (facts/indexdb.py): written checked, opened without
loading its rows, answering every question as the in-memory index does; anything else
is refused (then rebuilt)."""

from __future__ import annotations

import sqlite3

import pytest

from tests.claims.simx_project import make_simx
from verifier.facts.indexdb import INDEX_SUFFIX, dump_index, load_index, open_index
from verifier.facts.projection import Symbol, SymbolIndex
from verifier.facts.symbols import build_index


def _index() -> SymbolIndex:
    rows = [Symbol(name="f", kind="function", path="a.c", line=3, qual=("f",), end=5),
            Symbol(name="m", kind="method", path="b.py", line=1, parent="C", module="p.b",
                   qual=("C", "m"), evidence="release", producer="stub"),
            Symbol(name="b", kind="module", path="b.py", line=1, parent="p", module="p"),
            Symbol(name="g", kind="function", path="b.py", line=4, parent="p.b", module="p.b",
                   qual=("g",)),
            Symbol(name="C", kind="class", path="b.py", line=1, parent="p.b", module="p.b",
                   lang="python", qual=("C",)),
            Symbol(name="x", kind="parameter", path="b.py", line=4, parent="g", module="p.b"),
            Symbol(name="f", kind="macro", path="a.h", line=9, qual=("f",)),
            Symbol(name="mjS", kind="typedef", path="a.h", line=2, target="mjS_"),
            Symbol(name="n", kind="field", path="a.h", line=3, parent="mjS_", qual=("mjS_", "n")),
            Symbol(name="imp", kind="import", path="a.c", line=4, qual=("imp",))]
    return SymbolIndex(upstream="u", commit="c" * 40, files={"a.c": "1" * 40},
                       unavailable=["x.h"], symbols=rows, star_imports={"p": ["q"]},
                       notes=["n"])


def _answers(idx: SymbolIndex) -> dict:
    """Every question lint and the claim kinds ask of an index."""
    names = ["f", "m", "b", "g", "C", "x", "mjS", "n", "imp", "absent"]
    return {
        "by_name": {k: list(v) for k, v in idx.by_name.items()},
        "names": list(idx.by_name),
        "lookup": {n: idx.lookup(n) for n in names},
        "in": {n: n in idx.by_name for n in names},
        "modules": {k: dict(v) for k, v in idx.modules.items()},
        "module_names": {m: idx.module_names(m) for m in ("p", "p.b", "q", "absent")},
        "members": {k: dict(v) for k, v in idx.members.items()},
        "member": {(c, n): idx.member(c, n) for c in ("C", "mjS", "mjS_", "absent")
                   for n in names},
        "aliases": dict(idx.aliases),
        "prefix": {p: idx.names_with_prefix(p) for p in ("", "m", "mj", "f", "zz", "\U0010ffff")},
        "defs": {(p, a, b): idx.definitions_in(p, a, b) for p in ("a.c", "a.h", "b.py")
                 for a, b in ((1, 3), (1, 99), (4, 4))},
        "best": {n: idx.best(n) for n in names},
        "complete": idx.complete, "from_source": idx.module_from_source("p.b"),
        "symbols": idx.symbols,
    }


def test_a_stored_index_answers_as_the_built_one(tmp_path):
    idx = _index()
    path = tmp_path / f"u{INDEX_SUFFIX}"
    path.write_bytes(dump_index(idx))
    stored = open_index(path)
    assert "symbols" not in stored.__dict__          # nothing loaded up front
    assert _answers(stored) == _answers(_index())
    assert all(type(s) is Symbol and isinstance(s.qual, tuple) for s in stored.symbols)
    assert stored.model_dump(exclude={"symbols"}) == idx.model_dump(exclude={"symbols"})


def test_round_trip_from_bytes_keeps_rows_and_metadata():
    idx = _index()
    back = load_index(dump_index(idx))
    assert back.symbols == idx.symbols
    assert back.model_dump(exclude={"symbols"}) == idx.model_dump(exclude={"symbols"})


def _other_version() -> bytes:
    con = sqlite3.connect(":memory:")
    con.deserialize(dump_index(_index()))
    con.execute("UPDATE meta SET value = '0' WHERE key = 'version'")
    con.commit()
    return con.serialize()


@pytest.mark.parametrize("data", [b"", b"{}", b"SQLite format 3\x00garbage",
                                  b"VINDEX1\n\x90", "other-version"])
def test_other_bytes_are_refused(tmp_path, data):
    if data == "other-version":
        data = _other_version()
    with pytest.raises(ValueError):
        load_index(data)
    path = tmp_path / f"x{INDEX_SUFFIX}"
    path.write_bytes(data)
    with pytest.raises(ValueError):
        open_index(path).lookup("f")


def test_a_corrupt_cached_index_is_rebuilt(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    first = build_index(s.project, "simx")
    [cached] = (s.project.store.root / "symbols").glob(f"simx-*{INDEX_SUFFIX}")
    assert open_index(cached).symbols == first.symbols
    cached.write_bytes(b"garbage")
    again = build_index(s.project, "simx")
    assert again.symbols == first.symbols
    assert open_index(cached).symbols == first.symbols   # rewritten


@pytest.mark.parametrize("qual", [(), ("",), ("a",), ("a", "b"), ("a\x1fb",), ("\x00x", "y"),
                                  ("", "")])
def test_qualified_names_round_trip(qual):
    idx = SymbolIndex(upstream="u", commit="c" * 40,
                      symbols=[Symbol(name="n", kind="function", path="p", line=1, qual=qual)])
    assert load_index(dump_index(idx)).symbols[0].qual == qual
