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
