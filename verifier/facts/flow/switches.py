"""Switch statements and Python `match`: labels, default, and the calls each arm reaches
(the cases kind)."""

from __future__ import annotations

from dataclasses import dataclass

from verifier.facts.flow.calls import Call
from verifier.facts.flow.functions import FunctionDef
from verifier.facts.flow.reach import Flow, subject_key
from verifier.facts.flow.source import Node, Source, squash, text


@dataclass
class Arm:
    labels: list[str]            # source text of the case labels (empty for default)
    default: bool
    calls: list[str]             # callee names reached from this entry (fall-through)
    text: str                    # this arm's own statements, whitespace-collapsed
    line: int


@dataclass
class Switch:
    subject: str                 # switch expression text, whitespace-collapsed
    subject_key: str             # with casts and parentheses stripped, no spaces
    node: Node
    arms: list[Arm]

    @property
    def labels(self) -> list[str]:
        return [lab for a in self.arms for lab in a.labels]

    @property
    def default_arm(self) -> Arm | None:
        return next((a for a in self.arms if a.default), None)


def switches(src: Source, fn: FunctionDef) -> list[Switch]:
    out: list[Switch] = []
    kind = "match_statement" if src.lang == "python" else "switch_statement"

    def walk(n: Node) -> None:
        if n.type == kind:
            out.append(_switch(src, n))
        for c in n.children:
            walk(c)

    walk(fn.body)
    return out


def _switch(src: Source, node: Node) -> Switch:
    base = Flow(src, {})
    if src.lang == "python":
        subj = node.child_by_field_name("subject")
        arms: list[Arm] = []
        for pats, wildcard, guard, case in base.match_arms(node):
            cons = case.child_by_field_name("consequence")
            f = Flow(src, {})
            f.block(cons)
            labels = [] if wildcard else [squash(text(p)) for p in pats]
            arms.append(Arm(labels, wildcard, _names(f.reach.calls), squash(text(cons)),
                            case.start_point[0] + 1))
        return Switch(squash(text(subj)), subject_key(text(base.strip(subj))) if subj else "",
                      node, arms)
    cond = node.child_by_field_name("condition")
    raw = base.switch_arms(node)
    arms = []
    for i, (labels, is_default, stmts, case) in enumerate(raw):
        f = Flow(src, {})
        f.run_from(raw, i)
        own = " ".join(squash(text(s)) for s in stmts if s.type != "break_statement")
        arms.append(Arm([squash(text(lab)) for lab in labels], is_default,
                        _names(sorted(f.reach.calls, key=lambda c: c.node.start_byte)),
                        own, case.start_point[0] + 1))
    key = subject_key(text(base.strip(cond))) if cond is not None else ""
    shown = base.strip(cond) if cond is not None else None
    if cond is not None and cond.type in ("parenthesized_expression", "condition_clause"):
        inner = [c for c in cond.named_children if c.type != "comment"]
        shown = inner[0] if len(inner) == 1 else cond
    return Switch(squash(text(shown)) if shown is not None else "", key, node, arms)


def _names(calls: list[Call]) -> list[str]:
    return list(dict.fromkeys(c.name for c in calls))
