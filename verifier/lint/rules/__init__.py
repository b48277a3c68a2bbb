"""Lint rules, in code order. Each rule is one module with a stable name and code."""

from verifier.lint.rules.codeblock import CodeBlock
from verifier.lint.rules.identifier import Identifier
from verifier.lint.rules.meta import SourceUnavailable, SuppressionUnused
from verifier.lint.rules.nesting import NestedTooDeep
from verifier.lint.rules.permalink_anchor import PermalinkAnchor
from verifier.lint.rules.permalink_pin import PermalinkPin
from verifier.lint.rules.permalink_target import PermalinkTarget
from verifier.lint.rules.relative_link import RelativeLink
from verifier.lint.rules.version import Version

# rules that read lessons, in code order (VL101..VL107, VL110)
RULES = [PermalinkPin(), PermalinkTarget(), PermalinkAnchor(), Identifier(), Version(),
         CodeBlock(), RelativeLink(), NestedTooDeep()]
# rules run_lint derives from the others (VL108, VL109)
META = [SuppressionUnused(), SourceUnavailable()]

__all__ = ["RULES", "META"]
