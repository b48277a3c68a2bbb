"""Switch statements, Python `match`, and if / else-if chains over one variable: labels,
default, and the calls each arm reaches (the cases kind)."""

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
    construct: str = "switch"    # switch | match | if (an if / else-if chain)

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
                      node, arms, "match")
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


# --------------------------------------------------------------------------- if chains

def if_chains(src: Source, fn: FunctionDef) -> list[Switch]:
    """`if (x == A) ... else if (x == B || x == C) ... else ...` (Python: `if x == A:`
    / `elif x in (B, C):` / `else:`) over one subject, as a Switch: each condition
    compares the same expression with constants (integers, enum-like names); the
    final `else` is the default. At least two arms (an `else` counts)."""
    out: list[Switch] = []
    base = Flow(src, {})

    def walk(n: Node, in_chain: bool) -> None:
        if n.type == "if_statement" and not in_chain:
            sw = _chain(src, base, n)
            if sw is not None:
                out.append(sw)
        for c in n.children:
            walk(c, in_chain=_continues_chain(n, c))

    walk(fn.body, False)
    return out


def _continues_chain(parent: Node, child: Node) -> bool:
    """`child` is the `else if` of `parent` (C/C++): not the head of another chain."""
    if parent.type == "else_clause":
        return child.type == "if_statement"
    return False


def _branches(node: Node, lang: str) -> tuple[list[tuple[Node, Node]], Node | None]:
    """(condition, consequence) per branch of the chain headed by `node`, and the else body."""
    out: list[tuple[Node, Node]] = []
    cur: Node | None = node
    if lang == "python":
        out.append((node.child_by_field_name("condition"), node.child_by_field_name("consequence")))
        final = None
        for alt in node.children:
            if alt.type == "elif_clause":
                out.append((alt.child_by_field_name("condition"),
                            alt.child_by_field_name("consequence")))
            elif alt.type == "else_clause":
                final = alt.child_by_field_name("body")
        return out, final
    final = None
    while cur is not None:
        out.append((cur.child_by_field_name("condition"), cur.child_by_field_name("consequence")))
        alt = cur.child_by_field_name("alternative")
        if alt is None:
            break
        inner = [c for c in alt.named_children if c.type != "comment"] \
            if alt.type == "else_clause" else [alt]
        nxt = inner[0] if inner else None
        if nxt is not None and nxt.type == "if_statement":
            cur = nxt
            continue
        final = nxt
        break
    return out, final


def _labels(base: Flow, cond: Node | None) -> tuple[str, list[str]] | None:
    """(subject key, constant labels) of `subj == A || subj == B` / `subj in (A, B)`."""
    if cond is None:
        return None
    n = base.strip(cond)
    t = n.type
    if t in ("binary_expression", "boolean_operator"):
        op = n.child_by_field_name("operator")
        ops = text(op) if op is not None else ""
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if ops in ("||", "or"):
            a, b = _labels(base, left), _labels(base, right)
            if a is None or b is None or a[0] != b[0]:
                return None
            return a[0], a[1] + b[1]
        if ops == "==" and left is not None and right is not None:
            return _eq(base, left, right)
        return None
    if t == "comparison_operator":
        operands = [c for c in n.named_children if c.type != "comment"]
        ops = " ".join(text(c) for c in n.children if not c.is_named)
        if len(operands) == 2 and ops == "==":
            return _eq(base, operands[0], operands[1])
        if len(operands) == 2 and ops == "in" and operands[1].type in ("tuple", "list", "set"):
            items = [c for c in operands[1].named_children if c.type != "comment"]
            if items and all(base.constant(c) is not None for c in items) \
                    and base.constant(operands[0]) is None:
                return subject_key(text(base.strip(operands[0]))), [squash(text(c)) for c in items]
        return None
    return None


def _eq(base: Flow, a: Node, b: Node) -> tuple[str, list[str]] | None:
    ca, cb = base.constant(a), base.constant(b)
    if (ca is None) == (cb is None):
        return None
    subj, const = (b, a) if ca is not None else (a, b)
    return subject_key(text(base.strip(subj))), [squash(text(base.strip(const)))]


def _chain(src: Source, base: Flow, node: Node) -> Switch | None:
    branches, final = _branches(node, src.lang)
    arms: list[Arm] = []
    subject = None
    shown = None
    for cond, cons in branches:
        got = _labels(base, cond)
        if got is None or (subject is not None and got[0] != subject):
            return None
        if subject is None:
            subject = got[0]
            shown = _subject_node(base, cond)
        f = Flow(src, {})
        f.block(cons)
        arms.append(Arm(got[1], False, _names(f.reach.calls), squash(text(cons)) if cons else "",
                        (cond.start_point[0] + 1) if cond is not None else 0))
    if final is not None:
        f = Flow(src, {})
        f.block(final)
        arms.append(Arm([], True, _names(f.reach.calls), squash(text(final)),
                        final.start_point[0] + 1))
    if subject is None or len(arms) < 2:
        return None
    return Switch(squash(text(shown)) if shown is not None else subject, subject, node, arms, "if")


def _subject_node(base: Flow, cond: Node) -> Node | None:
    n = base.strip(cond)
    while n.type in ("binary_expression", "boolean_operator"):
        op = n.child_by_field_name("operator")
        if op is not None and text(op) in ("||", "or"):
            n = base.strip(n.child_by_field_name("left"))
            continue
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        return left if base.constant(left) is None else right
    if n.type == "comparison_operator":
        ops = [c for c in n.named_children if c.type != "comment"]
        return ops[0] if base.constant(ops[0]) is None else ops[-1]
    return None
