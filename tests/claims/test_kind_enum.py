"""enum (VC104) on the simx fixtures: values, implicit values, compositions,
libclang and the tree-sitter fallback."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, no_memo, simx  # noqa: F401 (fixtures)
from verifier.facts import clang
from verifier.facts.consteval import evaluate




H = "include/simx/sxtype.h"
CASES = [
    ("sxPART_DYNAMICS", 30, {}, "verified"),
    ("sxPART_DYNAMICS", 31, {}, "diverged"),
    ("sxPART_EVERYTHING", 31, {}, "verified"),
    ("sxNPART", 5, {}, "verified"),
    ("sxSTEP_MIDPOINT", 1, {}, "verified"),       # implicit: previous + 1
    ("sxSTEP_FULL", 6, {}, "verified"),           # implicit after an explicit 5
    ("sxSTAGE_ACC", 3, {}, "verified"),           # enum behind an anonymous typedef
    ("sxMAXCHANNEL", 8, {}, "verified"),          # object-like macro
    ("sxCOMBO", 17, {}, "verified"),              # macro expression
    ("sxPART_DYNAMICS", "0x1e", {}, "verified"),
    ("sxPART_DYNAMICS", ["sxPART_POS", "sxPART_VEL", "sxPART_ACT", "sxPART_MEMORY"],
     {"compare": "composition"}, "verified"),
    ("sxPART_DYNAMICS", ["sxPART_POS", "sxPART_VEL", "sxPART_ACT"],
     {"compare": "composition"}, "diverged"),
    # written as CLOCK | DYNAMICS, claimed flat: same bits
    ("sxPART_EVERYTHING", ["sxPART_CLOCK", "sxPART_POS", "sxPART_VEL", "sxPART_ACT",
                           "sxPART_MEMORY"], {"compare": "composition"}, "verified"),
]


@pytest.mark.parametrize("symbol,expected,options,verdict", CASES)
def test_enum(simx, symbol, expected, options, verdict):
    r = simx.one(claim("e", "enum", H, symbol, expected, "sxNPART", **options))
    assert r.verdict.value == verdict, (r.message, r.actual)
    assert r.evidence.blob == simx.repo.blob(H)


@pytest.mark.parametrize("symbol,expected", [
    ("ProbeMode::kBoth", 3),          # implicit after kFiltered = 2
    ("FilterMode::kRaw", 8),          # same name as ProbeMode::kRaw (0): scoped per enum
    ("FilterMode::kBoth", 16),        # refers to its own enum's kRaw
    ("ProbeMode::kRaw", 0),
])
def test_cpp_enum_class_scoping(simx, symbol, expected):
    r = simx.one(claim("e", "enum", "systems/sensors/gyro_probe.h", symbol, expected, "sxNPART"))
    assert r.verdict.value == "verified", (r.message, r.actual)


def test_composition_reports_written_names(simx):
    r = simx.one(claim("e", "enum", H, "sxPART_EVERYTHING", ["sxPART_CLOCK", "sxPART_DYNAMICS"],
                       "sxNPART", compare="composition"))
    assert r.verdict.value == "verified"
    assert r.actual == ["sxPART_CLOCK", "sxPART_DYNAMICS"]


@pytest.mark.skipif(not clang.available(), reason="libclang not installed")
def test_libclang_is_used_and_agrees(simx, no_memo):
    r = simx.one(claim("e", "enum", H, "sxPART_DYNAMICS", 30, "sxNPART"))
    assert "libclang (tree-sitter agrees)" in r.message


def test_without_libclang_tree_sitter_decides(simx, no_memo, monkeypatch):
    monkeypatch.setattr(clang, "available", lambda: False)
    r = simx.one(claim("e", "enum", H, "sxSTEP_FULL", 6, "sxNPART"))
    assert r.verdict.value == "verified"
    assert "tree-sitter evaluation (libclang not used)" in r.message


def test_extractors_disagreeing_is_an_error(simx, no_memo, monkeypatch):
    real = clang.enum_constants

    def skewed(*a, **kw):
        got = real(*a, **kw)
        if got is None:
            pytest.skip("libclang not installed")
        return {k: (type(c)(c.name, c.value + 1, c.line, c.enum) if c.name == "sxNPART" else c)
                for k, c in got.items()}

    monkeypatch.setattr(clang, "enum_constants", skewed)
    r = simx.one(claim("e", "enum", H, "sxNPART", 5, "sxNPART"))
    assert r.verdict.value == "error" and "extractors disagree" in r.message


def test_unknown_constant(simx):
    r = simx.one(claim("e", "enum", H, "sxPART_NOPE", 1, "sxNPART"))
    assert r.verdict.value == "error" and r.actual is None
    assert "no enum constant or macro `sxPART_NOPE`" in r.message


@pytest.mark.parametrize("expr,value", [("1<<4", 16), ("0x10 | 0x01", 17), ("~0 & 0xff", 255),
                                        ("(A + 1) * 2", 8), ("10u", 10), ("'a'", 97),
                                        ("sizeof(int)", None), ("B", None), ("010", 8)])
def test_consteval(expr, value):
    assert evaluate(expr, {"A": 3}.get) == value
