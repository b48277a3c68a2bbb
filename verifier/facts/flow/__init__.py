"""Control-flow facts inside one function of C, C++ or Python source.

Used by the claim kinds call_order, branch, cases, expression and text. One
tree-sitter parse per file; every result is a pure function of the file's bytes
(plus the claim's options), so parses are memoised by blob SHA and a persistent
cache can key on the blob too.

- `parse_source(path, data, blob)` -> `Source` (`source`)
- `find_functions(src, symbol)` -> definitions whose qualified name ends with
  `symbol` (`mj_step2`, `Accelerometer<T>::Accelerometer`, `Accelerometer::CalcOutput`,
  `SolverMuJoCo.step`); template arguments are ignored, `::` and `.` both separate
  (`functions`, `names`).
- `calls_in(src, node)` -> every call in source order (`calls`).
- `reachable_calls(src, fn, bindings)` -> calls on some possible path under the
  bindings (if / else if / else / switch with fall-through and default / ternary /
  `&&` `||` short-circuit / loops / Python match), plus the undecidable conditions
  (`reach`, over the three-valued constants of `values`).
- `switches(src, fn)` -> each switch/match with its labels, default and the calls
  each label reaches; `if_chains(src, fn)` -> the same for if / else-if chains that
  compare one subject with constants (`switches`).
- `targets(src, fn, target)` -> expressions assigned to a variable, or returned;
  `canonical_expression(node)` -> a whitespace- and redundant-parenthesis-insensitive
  form of an expression (`expressions`).

Line numbers are 1-based and inclusive.
"""

from verifier.facts.flow.calls import Call, calls_in, literal_value, make_call
from verifier.facts.flow.expressions import Target, canonical_expression, statement_of, targets
from verifier.facts.flow.functions import FunctionDef, find_functions, functions
from verifier.facts.names import short_name, split_symbol, strip_templates
from verifier.facts.flow.reach import Flow, Reach, reachable_calls, subject_key
from verifier.facts.flow.source import Node, Source, lines_of, parse_source, squash, text
from verifier.facts.flow.switches import Arm, Switch, if_chains, switches
from verifier.facts.flow.values import Name, Value, binding_value, truthy, values_equal

__all__ = [
    "Arm", "Call", "Flow", "FunctionDef", "Name", "Node", "Reach", "Source", "Switch", "Target",
    "Value", "binding_value", "calls_in", "canonical_expression",
    "find_functions", "functions", "if_chains", "lines_of", "literal_value", "make_call", "parse_source",
    "reachable_calls", "short_name", "split_symbol", "squash",
    "statement_of", "strip_templates", "subject_key", "switches", "targets", "text", "truthy",
    "values_equal",
]
