"""verifier/jsontext.py writes the same bytes as json.dumps(indent=2), piece by piece."""

from __future__ import annotations

import json
import math

import pytest

from verifier import jsontext

DOCS = [
    {},
    [],
    {"claims": []},
    {"claims": [{}], "summary": {"a": []}},
    {"claims": [{"id": "a/b", "evidence": {"lines": (1, 2), "permalink": None},
                 "actual": [1.5, math.inf, -0.0, 10**30, True, None],
                 "message": "中文\n第二行\t\"引号\" \\ \u2028 \x00 \U0001F600"}] * 3,
     "summary": {"total": 3, "by_kind": {"z": {}, "a": {"x": 1}}}, "notes": ["x", []]},
    [{"b": 1, "a": [{"deep": [1, [2, [3]]]}]}, "s", 3, None],
    {"nested": {"x": {"y": {"z": [1, {"w": []}]}}}},
    {"k": {1: "int key", "s": "str"}},        # non-str keys: left to json.dumps
    {"k": [{2.5: "float key", None: 1, True: 2}]},
    "just a string",
    17,
    [[[]], [{}], [[1]]],
]


@pytest.mark.parametrize("sort_keys", [False, True])
@pytest.mark.parametrize("doc", DOCS, ids=range(len(DOCS)))
def test_same_bytes_as_json_dumps(doc, sort_keys):
    try:
        want = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=sort_keys)
    except TypeError:
        with pytest.raises(TypeError):
            jsontext.dumps(doc, sort_keys=sort_keys)
        return
    assert jsontext.dumps(doc, sort_keys=sort_keys) == want


def test_elements_are_few_pieces():
    doc = {"claims": [{"id": str(i), "x": [1, 2, {"y": 3}]} for i in range(100)]}
    assert len(list(jsontext.pieces(doc))) < 5 * 100


def test_unsortable_keys_are_refused_like_json():
    doc = {"a": {1: "x", "b": "y"}}
    with pytest.raises(TypeError):
        json.dumps(doc, indent=2, sort_keys=True)
    with pytest.raises(TypeError):
        jsontext.dumps(doc, sort_keys=True)


# ---------------------------------------------------------------- the orjson fast path

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12))
_keys = st.text(max_size=6) | st.integers(-3, 3) | st.none() | st.booleans()
_docs = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4)
                     | st.tuples(kids, kids)
                     | st.dictionaries(_keys, kids, max_size=4), max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(doc=st.dictionaries(st.text(max_size=5), st.lists(_docs, max_size=4), max_size=3),
       sort_keys=st.booleans())
def test_generated_documents_give_json_dumps_bytes(doc, sort_keys):
    try:
        want = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=sort_keys)
    except (TypeError, ValueError):
        with pytest.raises((TypeError, ValueError)):
            jsontext.dumps(doc, sort_keys=sort_keys)
        return
    assert jsontext.dumps(doc, sort_keys=sort_keys) == want


@pytest.mark.parametrize("value, fast", [
    ({"a": [1, "x", None, True, {}, []], "b": {"c": "中文\n\t\u2028"}}, True),
    ({"a": 1.5}, True),              # a float both write alike
    ({"a": 1e-05}, False),           # orjson writes 0.00001
    ({"a": 2.5e-07}, False),         # orjson writes 2.5e-7
    ({"a": float("nan")}, False),    # orjson writes null
    ({"a": 2**65}, False),           # beyond 64 bits: orjson refuses
    ({1: "int key"}, False),         # json converts the key, orjson refuses
    ({"a": "\ud800"}, False),        # a lone surrogate
])
def test_fast_path_only_where_the_text_is_the_same(value, fast):
    got = jsontext._fast(value, False)
    assert (got is not None) is fast
    if fast:
        assert got == json.dumps(value, indent=2, ensure_ascii=False)


def test_record_sized_elements_take_the_fast_path(monkeypatch):
    calls = []
    real = json.dumps
    monkeypatch.setattr(jsontext.json, "dumps", lambda *a, **k: calls.append(1) or real(*a, **k))
    doc = {"claims": [{"id": f"c{i}", "lines": [i, i + 2], "verdict": "verified",
                       "evidence": {"path": "src/x.c", "blob": "ab" * 20}} for i in range(50)]}
    text = jsontext.dumps(doc, sort_keys=True)
    assert calls == []                # no element needed the pure-Python encoder
    assert text == real(doc, indent=2, ensure_ascii=False, sort_keys=True)
