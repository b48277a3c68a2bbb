"""Property tests (hypothesis): the lesson parser, the claim loader and `check_one` on
kind-aware generated claims never raise anything but VerifierError and never give an
"internal error in kind" verdict (trials 2.30, 3.20 of the reliability trial).

Bounded so CI stays fast (< 30 s together on a 2-vCPU machine); more examples with
VERIFIER_PROPERTY_SCALE=10 (a multiplier)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import tomlkit
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from verifier.claims.check import check_one
from verifier.claims.kinds import REGISTRY
from verifier.claims.loader import load_file
from verifier.errors import VerifierError
from verifier.lessons import parse_lesson

SCALE = max(1, int(os.environ.get("VERIFIER_PROPERTY_SCALE", "1")))


def _settings(n: int):
    return settings(max_examples=n * SCALE, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])


# --------------------------------------------------------------------------- lessons
SHA = "3" * 40
MD = ["# Heading\n", "## 小节\n", "`mj_step`", "`sx_advance(model, d)`", "``a `b` c``",
      f"[link](https://github.com/google-deepmind/mujoco/blob/{SHA}/include/mujoco/mjdata.h#L1-L5)",
      f"[l](https://github.com/o/r/blob/{SHA}/a/../../b.py#L0)", "[rel](other.md)", "[x](",
      "](u)", "> ", "- ", "1. ", "  ", "\n", "\n\n", "\r", "\r\n", "\x00", "\ufeff", "\u2028",
      "```python\nimport mujoco\n", "```\n", "~~~\n", "$x_i$", "$$a$$", "$", "*", "_", "**",
      "<!-- verifier: ignore mj_step -->", "<!--", "-->", "|a|b|\n|---|---|\n|`c`|d|\n",
      "。", "！", "；", ". ", "\\", "<div>", "&amp;", "[" * 25, "> " * 22, "    code\n"]

lesson_text = st.lists(st.one_of(st.text(max_size=30), st.sampled_from(MD)),
                       max_size=40).map("".join)


@_settings(200)
@given(lesson_text)
def test_parse_lesson_never_raises_and_lines_stay_in_the_text(text):
    lesson = parse_lesson(text)
    n = len(re.split(r"\r\n|\r|\n", text)) + 1
    parts = [*lesson.headings, *lesson.sentences, *lesson.code_spans, *lesson.links,
             *lesson.code_blocks, *lesson.math, *lesson.suppressions]
    for part in parts:
        assert 1 <= part.line <= n, part
    for first, last in lesson.too_deep:
        assert 1 <= first <= last <= n


# --------------------------------------------------------------------------- claims
@pytest.fixture(scope="module")
def simx(tmp_path_factory):
    from tests.claims.simx_project import make_simx

    with pytest.MonkeyPatch.context() as mp:
        yield make_simx(tmp_path_factory.mktemp("simx-prop"), mp)


def _lesson(simx):
    (doc,) = [d for d in simx.project.lessons() if d.path == "docs/lesson.md"]
    return doc


def _no_internal_errors(simx, path: Path) -> None:
    try:
        loaded = load_file(simx.project, "demo-atlas", path)
    except VerifierError:
        return
    doc = _lesson(simx)
    for lc in loaded:
        try:
            res = check_one(simx.project, lc, doc)
        except VerifierError:
            continue
        assert "internal error in kind" not in (res.message or ""), res.message


TOML_BITS = ['lesson = "docs/lesson.md"\n', 'upstream = "simx"\n', "[[claim]]\n", 'id = "a"\n',
             'fragment = "sx_advance"\n', 'kind = "symbol"\n', 'path = "include/simx/simx.h"\n',
             "expected = true\n", "[claim.options]\n", "[claim.runtime]\n", 'code = "x"\n',
             "x = [[[1]]]\n", "= 1\n", '"\n', "[claim\n", "claim = 5\n", "a.b.c = 1\n",
             "expected = [1, 'a', {b = 2}]\n", "\x00", "\ufeff", "[[claim]]\nid = \"a\"\n"]
toml_text = st.lists(st.one_of(st.text(max_size=20), st.sampled_from(TOML_BITS)),
                     max_size=25).map("".join)


@_settings(100)
@given(toml_text)
def test_claim_loader_on_random_toml(simx, text):
    path = simx.claim_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    _no_internal_errors(simx, path)


scalar = st.one_of(st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False),
                   st.text(max_size=12))
value = st.recursive(scalar, lambda c: st.lists(c, max_size=4) | st.dictionaries(
    st.text(min_size=1, max_size=6), c, max_size=3), max_leaves=8)
KEYS = ["id", "fragment", "kind", "upstream", "path", "symbol", "expected", "options", "runtime",
        "note", "bogus"]


@_settings(120)
@given(st.lists(st.dictionaries(st.sampled_from(KEYS), value, max_size=8), max_size=3),
       st.dictionaries(st.sampled_from(["lesson", "upstream", "extra"]), value, max_size=3))
def test_claim_loader_on_structured_files(simx, claims, head):
    doc = {"lesson": "docs/lesson.md", "upstream": "simx", **head, "claim": claims}
    try:
        text = tomlkit.dumps(doc)
    except Exception:  # noqa: BLE001 - a value TOML cannot hold
        assume(False)
    simx.claim_file.parent.mkdir(parents=True, exist_ok=True)
    simx.claim_file.write_text(text, encoding="utf-8")
    _no_internal_errors(simx, simx.claim_file)


# kind-aware: plausible locators, expectations and options for every registered kind
PATHS = ["include/simx/simx.h", "include/simx/sxdata.h", "include/simx/sxtype.h",
         "src/engine/sx_forward.c", "systems/sensors/gyro_probe.h",
         "systems/sensors/gyro_probe.cc", "bindings/pysimx/systems/sensors_py_gyro.cc",
         "pysimx/sensors.py", "pysimx/_src/sensors/probe_imu.py", "pysimx/_src/world.py",
         "pysimx/stubs/sensors.pyi", "pysimx/nope.py"]
SYMBOLS = ["sx_advance", "sx_readProbe", "sxData_", "sxData_.gravity", "sxPART_DYNAMICS",
           "sxNPART", "sxSTEP_FULL", "GyroProbe", "GyroProbe::GyroProbe", "GyroProbe::samples_",
           "GyroProbe.scale", "pysimx.sensors", "ProbeIMU", "ProbeIMU.__init__",
           "ProbeIMU.update", "ClearValues.clear_depth", "sx_forward", "nothing_here", "",
           "a::b::", "x.y.z", "__all__"]
FRAGMENTS = ["sx_advance(model, d)", "sxPART_DYNAMICS", "`sxNPART` 是 5", "samples_",
             "requests state attributes", "not in the lesson at all"]
OPTION_VALUES = st.one_of(scalar, st.lists(st.text(max_size=8), max_size=3),
                          st.dictionaries(st.text(min_size=1, max_size=8), scalar, max_size=2),
                          st.sampled_from(["set", "exact", "subset", "count", "return", "0",
                                           "sx_.*", "(a|b", "i", "ms", "gravity"]))


PAIRS = [("include/simx/simx.h", "sx_advance"), ("include/simx/simx.h", "sx_readProbe"),
         ("include/simx/sxdata.h", "sxData_"), ("include/simx/sxdata.h", "sxData_.gravity"),
         ("include/simx/sxtype.h", "sxPART_DYNAMICS"), ("include/simx/sxtype.h", "sxNPART"),
         ("src/engine/sx_forward.c", "sx_forward"), ("systems/sensors/gyro_probe.h", "GyroProbe"),
         ("systems/sensors/gyro_probe.h", "GyroProbe::samples_"),
         ("systems/sensors/gyro_probe.cc", "GyroProbe::GyroProbe"),
         ("bindings/pysimx/systems/sensors_py_gyro.cc", "GyroProbe.scale"),
         ("pysimx/sensors.py", "pysimx.sensors"), ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU"),
         ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU.__init__"),
         ("pysimx/_src/sensors/probe_imu.py", "ProbeIMU.update")]


def _kind_options(kind: str) -> list[str]:
    import importlib

    mod = importlib.import_module(REGISTRY[kind].__module__)
    return sorted(getattr(mod, "OPTIONS", {})) or ["compare", "match", "param"]


@st.composite
def kind_claim(draw):
    kind = draw(st.sampled_from(sorted(REGISTRY)))
    path, sym = draw(st.one_of(st.sampled_from(PAIRS),
                               st.tuples(st.sampled_from(PATHS), st.sampled_from(SYMBOLS))))
    c = {"id": draw(st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)), "kind": kind,
         "fragment": draw(st.sampled_from(FRAGMENTS)), "path": path}
    if sym:
        c["symbol"] = sym
    c["expected"] = draw(st.one_of(st.booleans(), st.integers(-5, 40),
                                   st.lists(st.sampled_from(SYMBOLS + ["model", "d", "x"]),
                                            max_size=5), st.sampled_from(SYMBOLS), value))
    keys = st.sampled_from(_kind_options(kind) + ["unknown_option"])
    opts = draw(st.one_of(st.just({}), st.dictionaries(keys, OPTION_VALUES, max_size=2)))
    if opts:
        c["options"] = opts
    if kind == "runtime" or draw(st.booleans()):
        c["runtime"] = {"code": "result = 1", "expected": draw(scalar)}
    return c


@_settings(120)
@given(st.lists(kind_claim(), min_size=1, max_size=4))
def test_check_one_on_kind_aware_claims(simx, claims):
    try:
        text = tomlkit.dumps({"lesson": "docs/lesson.md", "upstream": "simx", "claim": claims})
    except Exception:  # noqa: BLE001
        assume(False)
    simx.claim_file.parent.mkdir(parents=True, exist_ok=True)
    simx.claim_file.write_text(text, encoding="utf-8")
    _no_internal_errors(simx, simx.claim_file)


def test_the_generators_reach_every_kind_and_real_verdicts(simx):
    """Not vacuous: the kind-aware claims include decided verdicts of every kind."""
    from tests.claims.simx_project import claim

    body = claim("a", "symbol", "include/simx/simx.h", "sx_advance", True, "sx_advance(model, d)")
    res = simx.check(body)
    assert res["a"].verdict.value == "verified"
    assert {"symbol", "signature", "default", "enum", "members", "text", "runtime"} <= set(REGISTRY)
    assert json.loads(json.dumps(sorted(REGISTRY)))


# --------------------------------------------------------------------------- claim headers
_PIECES = ["[[claim]]", "  [[ claim ]]  # c", "[[claim]]x", "[claim]", "\u3000[[claim]]",
           "id = 1", "", "# [[claim]]", "\t[[\tclaim\t]]\t", "[[claims]]"]
_BREAKS = ["\n", "\r\n", "\r", "\x0c", "\u2028", "\x85", "\n\n"]


@_settings(300)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_BREAKS)), max_size=12))
def test_claim_header_lines_as_splitlines_counts_them(parts):
    """The one-search header finder gives the lines a per-line match gives."""
    from verifier.claims.loader import _HEADER, _header_lines

    text = "".join(p + b for p, b in parts)
    want = [i + 1 for i, line in enumerate(text.splitlines()) if _HEADER.match(line)]
    assert _header_lines(text) == want
