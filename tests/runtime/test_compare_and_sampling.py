from __future__ import annotations

import math

import pytest

from verifier.errors import UsageError
from verifier.runtime.runner import compare
from verifier.runtime.sampling import Candidate, parse_sample, select


# ------------------------------------------------------------------ compare
def test_floats_within_tolerance():
    assert compare(-math.pi / 2, -1.5707963267948966) is None
    assert compare(0.1 + 0.2, 0.3) is None
    assert compare(1.0 + 1e-6, 1.0) is not None            # default tolerance 1e-9
    assert compare(1.0 + 1e-6, 1.0, tolerance=1e-5) is None
    assert compare(30, 30.0) is None


def test_structures_elementwise():
    assert compare([0.0, 0.0, 9.81], [0, 0, 9.81]) is None
    assert compare([1, 2], [1, 2, 3]) == "length 2 != 3"
    assert "at [1]" in compare([1, 5], [1, 2])
    assert "at a[0]" in compare({"a": [1]}, {"a": [2]})
    assert "keys" in compare({"a": 1}, {"b": 1})


def test_bool_is_not_a_number_and_strings_exact():
    assert compare(True, True) is None
    assert compare(1, True) is not None
    assert compare(True, 1) is not None
    assert compare("a", "a") is None and compare("a", "b") is not None
    assert compare(None, None) is None and compare(None, 0) is not None


def test_null_and_subset_of_keys():
    assert compare({"a": None, "b": [1, None]}, {"a": None, "b": [1, None]}) is None
    assert compare({"a": 0}, {"a": None}) == "0 != null at a"
    value = {"x": 1.0, "y": {"p": 2, "q": 3}, "extra": "ignored"}
    assert compare(value, {"x": 1, "y": {"q": 3}}, subset=True) is None
    assert "keys" in compare(value, {"x": 1, "y": {"q": 3}})        # exact: same keys
    assert compare(value, {"x": 1, "z": 0}, subset=True).startswith("key(s) ['z'] missing")
    assert "at y.q" in compare(value, {"y": {"q": 4}}, subset=True)
    assert compare([{"a": 1, "b": 2}], [{"a": 1}], subset=True) is None   # inside lists too
    assert compare([1, 2], [1], subset=True) == "length 2 != 1"          # lists stay exact


def test_expected_json_carries_null_and_is_exclusive():
    from pydantic import ValidationError

    from verifier.claims.model import RuntimeCheck

    rc = RuntimeCheck.model_validate({"code": "result = None", "expected_json": '{"a": null}'})
    assert rc.expected == {"a": None}
    assert RuntimeCheck.model_validate({"code": "x", "expected": 1, "compare": "subset"}).compare == "subset"
    for bad, msg in (({"code": "x"}, "is required"),
                     ({"code": "x", "expected": 1, "expected_json": "2"}, "not both"),
                     ({"code": "x", "expected_json": "{nope"}, "not valid JSON"),
                     ({"code": "x", "expected_json": "[" * 5000 + "]" * 5000}, "not valid JSON"),
                     ({"code": "x", "expected": 1, "compare": "some"}, "compare")):
        with pytest.raises(ValidationError) as ei:
            RuntimeCheck.model_validate(bad)
        assert msg in str(ei.value)


# ------------------------------------------------------------------ sampling
def cands():
    out = []
    for up, n_default, n_rt in (("mujoco", 6, 6), ("drake", 4, 8), ("newton", 2, 10)):
        out += [Candidate(f"c/{up}/d{i}", up, "default") for i in range(n_default)]
        out += [Candidate(f"c/{up}/r{i}", up, "runtime") for i in range(n_rt)]
    return out


def test_all_and_none():
    chosen, rec = select(cands(), "all")
    assert len(chosen) == 36 and rec["sampled"] == 36
    assert all(e["sampled"] and e["reason"] == "--runtime all" for e in rec["checks"])
    chosen, rec = select(cands(), "none")
    assert chosen == set() and not any(e["sampled"] for e in rec["checks"])


def test_count_is_stratified_and_deterministic():
    chosen, rec = select(cands(), "sample", 8, seed=1)
    assert len(chosen) == 8
    per = {s["stratum"]: s["sampled"] for s in rec["strata"]}
    assert set(per) == {"drake/default", "drake/runtime", "mujoco/default", "mujoco/runtime",
                        "newton/default", "newton/runtime"}
    assert all(v >= 1 for v in per.values())              # every stratum represented
    again, rec2 = select(list(reversed(cands())), "sample", 8, seed=1)
    assert again == chosen and rec2 == rec                # input order does not matter
    other, _ = select(cands(), "sample", 8, seed=2)
    assert other != chosen                                # the seed does


def test_fraction_and_default():
    chosen, rec = select(cands(), "sample", 0.5)
    per = {s["stratum"]: (s["sampled"], s["candidates"]) for s in rec["strata"]}
    assert per["newton/runtime"] == (5, 10) and per["newton/default"] == (1, 2)
    chosen, rec = select(cands(), "sample", None)
    assert rec["sample"] == {"fraction": 0.25, "default": True}
    assert {s["stratum"]: s["sampled"] for s in rec["strata"]}["mujoco/default"] == 2


def test_record_explains_each_choice():
    chosen, rec = select(cands(), "sample", 3, seed=0)
    entries = {e["id"]: e for e in rec["checks"]}
    assert len(entries) == 36
    for gid, e in entries.items():
        assert e["sampled"] == (gid in chosen)
        assert "stratum" in e["reason"] and "seed 0" in e["reason"]


def test_adding_a_claim_does_not_reshuffle_a_fraction_sample():
    base = [Candidate(f"x/{i}", "u", "k") for i in range(20)]
    a, _ = select(base, "sample", 0.5, seed=3)
    b, _ = select(base + [Candidate("x/new", "u", "k")], "sample", 0.5, seed=3)
    assert len(a - b) <= 1


@pytest.mark.parametrize("text,value", [("10", 10), ("0.25", 0.25), ("25%", 0.25), ("1", 1)])
def test_parse_sample(text, value):
    assert parse_sample(text) == value


@pytest.mark.parametrize("bad", ["0", "-1", "1.5", "abc", "0%"])
def test_bad_sample_is_a_usage_error(bad):
    with pytest.raises(UsageError, match="--sample"):
        parse_sample(bad)


def test_bad_mode():
    with pytest.raises(UsageError, match="--runtime must be one of"):
        select([], "some")
