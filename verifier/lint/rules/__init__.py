"""Lint rules: one module per rule, each registering itself on import (keep this list
explicit and sorted). `RULES` (lesson rules) and `META` (findings `run_lint` derives
from the others) are derived from the registry, in code order."""

from verifier.lint.base import RULE_REGISTRY
from verifier.lint.rules import codeblock  # noqa: F401  VL106
from verifier.lint.rules import count_list  # noqa: F401  VL113
from verifier.lint.rules import identifier  # noqa: F401  VL104
from verifier.lint.rules import invisible  # noqa: F401  VL112
from verifier.lint.rules import meta  # noqa: F401  VL108, VL109
from verifier.lint.rules import nesting  # noqa: F401  VL110
from verifier.lint.rules import permalink_anchor  # noqa: F401  VL103
from verifier.lint.rules import permalink_pin  # noqa: F401  VL101
from verifier.lint.rules import permalink_relevance  # noqa: F401  VL111
from verifier.lint.rules import permalink_target  # noqa: F401  VL102
from verifier.lint.rules import relative_link  # noqa: F401  VL107
from verifier.lint.rules import self_denial  # noqa: F401  VL114
from verifier.lint.rules import version  # noqa: F401  VL105

RULES = [RULE_REGISTRY[n]() for n in RULE_REGISTRY.names() if not RULE_REGISTRY[n].meta]
META = [RULE_REGISTRY[n]() for n in RULE_REGISTRY.names() if RULE_REGISTRY[n].meta]

__all__ = ["RULES", "META", "RULE_REGISTRY"]
