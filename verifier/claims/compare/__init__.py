"""One comparison for every claim kind: values and expressions by meaning.

What a lesson writes and what the source has are compared so that spelling
alone never makes a difference:

- numbers by value: `0.0` == `0.` == `0` == `0.0f`, `0x1F` == `31`, `1e-3` ==
  `0.001`, `-0.0` == `0.0`, `1'000` == `1_000` == `1000`; constant arithmetic is
  folded (`1/30` == `1.0 / 30`; the lesson's side is read as mathematics, the
  source's with its language's rules, so C's integer `1/30` is 0);
- strings by value (`'a'` == `"a"`), booleans across languages (`true` == `True`);
- containers: lists, tuples and brace initialisers as sequences, set literals
  and flag compositions (`A | B | C`) as sets; keyword arguments by name;
- expressions structurally (tree-sitter, the file's grammar): whitespace,
  comments and redundant parentheses do not matter; names, operators, order and
  grouping do;
- names through the claim's notation table (`verifier/claims/notation.py`),
  only where the literal spelling does not match.

Each comparison returns a `Match` (truthy when equal) carrying the notation
entries it needed; a `Tracker` given to it records them when the match holds.
"""

from verifier.claims.compare.base import NO, YES, Match, close_names
from verifier.claims.compare.expressions import (align, expr_tokens, expression_text_equal,
                                                 parse_expression, same_expression, same_name)
from verifier.claims.compare.numbers import number_value
from verifier.claims.compare.values import parse_value, same_list, same_value, squash_text

__all__ = ["NO", "YES", "Match", "align", "close_names", "expr_tokens", "expression_text_equal",
           "number_value", "parse_expression", "parse_value", "same_expression", "same_list",
           "same_name", "same_value", "squash_text"]
