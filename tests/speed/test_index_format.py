"""The cached symbol index format: written checked, loaded without validation,
refused (then rebuilt) when it is not this format."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import make_simx
from verifier.facts.projection import INDEX_FORMAT, Symbol, SymbolIndex, dump_index, load_index
from verifier.facts.symbols import build_index


def _index() -> SymbolIndex:
    rows = [Symbol(name="f", kind="function", path="a.c", line=3, qual=("f",), end=5),
            Symbol(name="m", kind="method", path="b.py", line=1, parent="C", module="p.b",
                   qual=("C", "m"), evidence="release", producer="stub")]
    return SymbolIndex(upstream="u", commit="c" * 40, files={"a.c": "1" * 40},
                       unavailable=["x.h"], symbols=rows, star_imports={"p": ["q"]},
                       notes=["n"])


def test_round_trip_keeps_rows_and_metadata():
    idx = _index()
    data = dump_index(idx)
    assert data.startswith(INDEX_FORMAT)
    back = load_index(data)
    assert back.symbols == idx.symbols and all(type(s) is Symbol for s in back.symbols)
    assert isinstance(back.symbols[1].qual, tuple)
    assert back.model_dump(exclude={"symbols"}) == idx.model_dump(exclude={"symbols"})
    assert back.lookup("m")[0].parent == "C"


@pytest.mark.parametrize("data", [b"", b"{}", INDEX_FORMAT + b"\xc1", INDEX_FORMAT + b"\x90",
                                  b"VINDEX0\n" + dump_index(_index())[len(INDEX_FORMAT):]])
def test_other_bytes_are_refused(data):
    with pytest.raises(ValueError):
        load_index(data)


def test_a_corrupt_cached_index_is_rebuilt(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    first = build_index(s.project, "simx")
    [cached] = (s.project.store.root / "symbols").glob("simx-*.msgpack")
    assert load_index(cached.read_bytes()).symbols == first.symbols
    cached.write_bytes(b"garbage")
    again = build_index(s.project, "simx")
    assert again.symbols == first.symbols
    assert load_index(cached.read_bytes()).symbols == first.symbols   # rewritten
