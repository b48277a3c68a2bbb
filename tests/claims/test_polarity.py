"""The polarity lexicon (verifier/claims/polarity.toml) as the claim-follows-sentence
stage counts it: negation words, compounds that hold one without negating, and pairs
whose sides are each other's opposite (a compound may be a pair's side: `非线性`)."""

from __future__ import annotations

import pytest

from verifier.claims.says import flips, polarity_counts


@pytest.mark.parametrize("before, after, n", [
    ("力与穿透是线性关系", "力与穿透是非线性关系", 1),      # a compound that is a pair's side
    ("积分是隐式的", "积分是显式的", 1),
    ("这一步不会写入", "这一步会写入", 1),
    ("两者不同", "两者不同，且无论如何", 0),              # 不同, 无论 are words, not 不/无 +
    ("结果不是非线性的", "结果是线性的", 2),
    ("力与穿透是线性关系", "力与穿透是线性关系", 0),
])
def test_flips_between_two_readings_of_a_clause(before, after, n):
    got, why = flips(polarity_counts(before), polarity_counts(after))
    assert got == n, why


def test_a_compound_holding_a_negation_word_is_not_counted_as_one():
    assert "不" not in polarity_counts("两者不同，无论如何")
    assert polarity_counts("非线性") == {"非线性": 1}


def test_a_word_that_is_the_other_side_of_several_pairs():
    from verifier.claims.says import opposites

    assert opposites("复制", "引用") and opposites("副本", "引用") and opposites("Copy", "view")
    assert not opposites("复制", "副本") and not opposites("复制", "视图")


@pytest.mark.parametrize("before, after, negated", [
    ("打包状态，复制当前数组", "打包状态，引用当前数组", True),   # 引用 is first 副本's side
    ("这一步返回副本", "这一步返回引用", True),
    ("打包状态，复制当前数组", "打包状态，复制当前数组", False),
])
def test_a_pair_word_replaced_by_its_other_side_negates_the_claim(before, after, negated):
    from verifier.claims.follow import follow, review
    from verifier.claims.says import Span

    word = "复制" if "复制" in before else "副本"
    spans = [Span(word, "polarity")]
    entry, problems = review(before, before, spans, "h", 1, None)
    assert not problems
    f = follow(entry, spans, after, before)
    assert f.negated is negated and not f.gone, (f.edits, f.flip_words)
