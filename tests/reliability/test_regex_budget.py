"""Class: a regex from a claim that backtracks without bound (F1-2: a catastrophic
`options.callee` of `call_order` hung `check` past 90 s; only `text` had a budget).

Mechanism: `verifier/claims/kinds/_userregex.py` - every pattern from a claim is compiled and
matched only through `UserRegex`, under one time budget per claim. The tests attack
every regex option of every registered kind (found from the kinds' own option tables,
so a new regex option without the budget fails here), scan the sources for any other
compile of a non-constant pattern, and fuzz patterns."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers_upstream import UpstreamSpec, make_git_repo, write_pins
from tests.reliability.conftest import few
from verifier.claims.kinds import _userregex as userregex
from verifier.claims.kinds.base import REGISTRY, CheckContext, ClaimError
from verifier.claims.model import Claim

LONG = "a" * 48 + "b"          # a subject on which (a|aa)+ backtracks ~fib(48) times
SRC = f"""int {LONG}(int x);
void runner(void) {{
  {LONG}(1);
  int y = {LONG}(2);
  call_me(y);
}}
/* {LONG} */
"""
# backtracking the `regex` package does not optimise away (it does for (a+)+$)
CATASTROPHIC = ["(a|aa)+$", "(a|aa|aaa)*$"]

# a minimal claim per (kind, regex option): the kind's other requirements filled in
CLAIMS = {
    ("text", "pattern"): dict(kind="text", path="src/run.c", expected=True),
    ("call_order", "callee"): dict(kind="call_order", path="src/run.c", symbol="runner",
                                   expected=["x"]),
    ("expression", "call"): dict(kind="expression", path="src/run.c", symbol="runner",
                                 expected="1"),
}


def regex_options() -> set[tuple[str, str]]:
    """Every option a registered kind documents as a regular expression."""
    import importlib

    out = set()
    for name, cls in REGISTRY.items():
        mod = importlib.import_module(cls.__module__)
        for opt, desc in getattr(mod, "OPTIONS", {}).items():
            if "regex" in desc.lower() or "regular expression" in desc.lower():
                out.add((name, opt))
    return out


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    from verifier.project import load_project

    tmp = tmp_path_factory.mktemp("regex")
    with pytest.MonkeyPatch.context() as mp:
        repo = make_git_repo(tmp / "fx.git", {"src/run.c": SRC})
        pins = write_pins(tmp, {"fx": UpstreamSpec(url="https://github.com/example/fx",
                                                   commit=repo.head)})
        mp.setenv("VERIFIER_MIRRORS", f"fx={repo.path}")
        mp.setenv("VERIFIER_PROVIDERS", "mirror")
        mp.setenv("VERIFIER_CACHE", str(tmp / "cache"))
        project = load_project(pins)
        yield CheckContext(project=project, upstream=project.pins.get("fx"))


def _check(ctx, kind_opt, pattern):
    kind, opt = kind_opt
    fields = dict(CLAIMS[kind_opt])
    claim = Claim(id="c1", fragment="fixture fragment", options={opt: pattern}, **fields)
    return REGISTRY[kind]().check(claim, ctx)


def test_every_regex_option_of_every_kind_is_under_test():
    assert regex_options() == set(CLAIMS), ("a kind documents a regex option this suite does "
                                            "not attack: add it to CLAIMS")


@pytest.mark.parametrize("kind_opt", sorted(CLAIMS))
@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_catastrophic_pattern_in_any_regex_option_is_an_error_within_the_budget(
        ctx, monkeypatch, kind_opt, pattern):
    monkeypatch.setattr(userregex, "TIME_LIMIT", 0.1)
    import verifier.claims.kinds.text as text_kind
    monkeypatch.setattr(text_kind, "TIME_LIMIT", 0.1)
    t0 = time.perf_counter()
    with pytest.raises(ClaimError) as ei:
        _check(ctx, kind_opt, pattern)
    took = time.perf_counter() - t0
    assert took < 15, took      # the budget is the regex package's (CPU-bound) timeout
    msg = str(ei.value)
    assert f"options.{kind_opt[1]}" in msg and "0.1s" in msg and pattern in msg, msg


def test_a_pattern_that_is_too_long_or_invalid_is_refused(ctx):
    for bad, words in [("x" * (userregex.MAX_PATTERN + 1), "longer than"),
                       ("(unclosed[", "not a valid regular expression"), (5, "string")]:
        with pytest.raises(ClaimError, match=words):
            userregex.UserRegex(bad, "callee")


def test_no_other_code_compiles_a_pattern_it_did_not_write():
    """Any regex call whose pattern is not a constant (or built from constants and
    re.escape) is either UserRegex or one of the tool's own composed patterns below."""
    composed = {"claims/kinds/_userregex.py": "the budgeted compile itself",
                "claims/coverage.py": "alternations of re.escape'd names",
                "draft/spans.py": "module constants", "lint/shapes.py": "module constants",
                "claims/sentences.py": "re.escape'd words", "lessons/model.py": "re.escape'd words",
                "lint/rules/permalink_anchor.py": "re.escape'd names",
                "lint/rules/version.py": "re.escape'd upstream names and versions",
                "lint/selftest.py": "re.escape'd versions",
                "runtime/contain.py": "constants and re.escape'd paths",
                "tomlerrors.py": "a constant with a number", "upgrade/write.py": "re.escape'd URLs",
                "claims/says.py": "module constants and re.escape'd lexicon words",
                "claims/saysdraft.py": "module constants",
                "draft/reading.py": "module constants (type words)",
                "lint/rules/permalink_relevance.py": "re.escape'd names",
                "lint/rules/count_list.py": "module constants",
                "lint/rules/self_denial.py": "module constants",
                "claims/kinds/_parts.py": "module constants",
                "draft/proposers/parts.py": "module constants"}
    root = Path(__file__).resolve().parents[2] / "verifier"
    funcs = {"compile", "search", "match", "fullmatch", "finditer", "sub", "subn", "split",
             "findall"}

    def static(n) -> bool:
        if isinstance(n, ast.Constant):
            return isinstance(n.value, (str, bytes))
        if isinstance(n, ast.JoinedStr):
            return all(isinstance(v, ast.Constant) for v in n.values)
        if isinstance(n, ast.BinOp):
            return static(n.left) and static(n.right)
        return isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "escape"

    found = set()
    for f in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in funcs and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("re", "regex") and node.args
                    and not static(node.args[0])):
                found.add(f.relative_to(root).as_posix())
    assert found <= set(composed), sorted(found - set(composed))


# ----------------------------------------------------------------- fuzz
_atoms = st.sampled_from(["a", "aa", "a?", "\\w", "\\s?", ".", "[ab]", "(?:a|aa)", "b"])
_patterns = st.recursive(_atoms, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from(["+", "*", "{1,30}", "?"])).map("".join),
    st.tuples(inner, inner).map("".join),
    st.tuples(inner, inner).map(lambda t: f"({t[0]}|{t[1]})"),
    inner.map(lambda x: f"({x})")), max_leaves=8).map(lambda p: p + "$")


@few(25)
@given(st.sampled_from(sorted(CLAIMS)), _patterns)
def test_any_generated_pattern_ends_within_the_budget(ctx, kind_opt, pattern):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(userregex, "TIME_LIMIT", 0.05)
        import verifier.claims.kinds.text as text_kind
        mp.setattr(text_kind, "TIME_LIMIT", 0.05)
        t0 = time.perf_counter()
        try:
            _check(ctx, kind_opt, pattern)
        except ClaimError:
            pass                            # a verdict of `error`: fine, and it ended
        assert time.perf_counter() - t0 < 10


# ----------------------------------------------------------------- claim values
# The tool's own patterns see claim text too (`expected` values are normalised by
# regexes before they are parsed): none may be super-linear on a long value. A run of
# 10,000 digits took 18 s in `compare/values.py` (two adjacent `[\d']*` runs); now
# possessive.
_value_parts = st.sampled_from(["1", "9" * 50, ".", "'", "e", "E+", "f", "u", "L", "0x", "ff",
                                "(", ")", "{", "}", ",", " ", "::", "->", "a", "_", "*", "+",
                                '"', "true", "1'0", "\\"])


@few(15)
@given(st.lists(_value_parts, min_size=1, max_size=8), st.integers(min_value=200, max_value=1500))
def test_long_and_deep_claim_values_compare_in_bounded_time(parts, repeat):
    """Also deep: `(1(1(1...` was a RecursionError (exit 3) in the expression walk."""
    from verifier.claims.compare import expression_text_equal, number_value, same_value

    text = ("".join(parts) * repeat)[:6000]
    t0 = time.perf_counter()
    for lang in ("c", "cpp", "python"):
        same_value(text, "1", lang)
        expression_text_equal(lang, text, text[: len(text) // 2])
    number_value(text)
    assert time.perf_counter() - t0 < 20, (parts, repeat)
