"""Reachability: which calls a function body may reach under bindings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from verifier.facts.flow.calls import Call, calls_in, is_call, make_call
from verifier.facts.flow.functions import FunctionDef, functions
from verifier.facts.names import split_symbol, subject_key
from verifier.facts.flow.source import Node, Source, squash, text
from verifier.facts.flow.values import (CONST_NAME, NULLS, ORDER_OPS, Name, Value, binding_value,
                                        compare_order, parse_int, truthy, values_equal)


@dataclass
class Reach:
    calls: list[Call] = field(default_factory=list)          # possibly reached, source order
    undecided: list[tuple[int, str]] = field(default_factory=list)  # (line, condition text)
    decided: list[tuple[int, str, bool]] = field(default_factory=list)
    followed: list[str] = field(default_factory=list)        # callees walked into (follow > 0)
    returns: list[Node] = field(default_factory=list)        # `return`/`raise`/`throw` reached
    assigns: list[Node] = field(default_factory=list)        # assignments (`=`, `+=`, ...) and
    #                                                          initialisers reached
    asserts: list[Node] = field(default_factory=list)        # `assert` statements reached


_PREPROC_COND = {"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else",
                 "preproc_elifdef"}


class Flow:
    """Three-valued evaluation of conditions under bindings and a walk of the body
    that records every call, exit, assignment and assert on a possible path.

    Exits of a statement: 'normal', 'break', 'continue', 'return', 'goto'."""

    def __init__(self, src: Source, bindings: dict[str, Any],
                 constants: list[str] | None = None) -> None:
        self.src = src
        self.lang = src.lang
        self.bindings = {subject_key(k): binding_value(v) for k, v in (bindings or {}).items()}
        self.constants = {"".join(c.split()) for c in (constants or [])}
        for v in self.bindings.values():
            if isinstance(v, Name):
                self.constants.add(v.full)
        self.reach = Reach()
        self._seen: set[int] = set()

    # ---------------------------------------------------------------- helpers
    def strip(self, node: Node) -> Node:
        for _ in range(50):
            if node.type == "parenthesized_expression":
                inner = [c for c in node.named_children if c.type != "comment"]
                if len(inner) != 1:
                    return node
                node = inner[0]
            elif node.type == "cast_expression":
                val = node.child_by_field_name("value")
                if val is None:
                    return node
                node = val
            elif node.type == "condition_clause":
                val = node.child_by_field_name("value")
                if val is None:
                    return node
                node = val
            else:
                return node
        return node

    def bound(self, node: Node) -> tuple[bool, Value]:
        n = self.strip(node)
        k = subject_key(text(n))
        if k in self.bindings:
            return True, self.bindings[k]
        k2 = subject_key(text(node))
        if k2 in self.bindings:
            return True, self.bindings[k2]
        return False, None

    def constant(self, node: Node) -> Value:
        n = self.strip(node)
        t = n.type
        s = "".join(text(n).split())
        if t in ("true",) or s in ("true", "True") and t in ("true", "identifier"):
            return True
        if t in ("false",) or s in ("false", "False") and t in ("false", "identifier"):
            return False
        if t in ("none", "null", "nullptr") or (t == "identifier" and s in NULLS):
            return Name(s)
        if t in ("number_literal", "integer"):
            return parse_int(s)
        if t in ("unary_expression", "unary_operator") and s.startswith("-"):
            return parse_int(s)
        if t in ("identifier", "qualified_identifier", "attribute", "field_expression",
                 "scoped_identifier", "dotted_name"):
            if s in self.constants:
                return Name(s)
            last = split_symbol(s)[-1] if split_symbol(s) else s
            if CONST_NAME.match(last) and t != "field_expression":
                return Name(s)
            if t == "attribute" and CONST_NAME.match(last):
                return Name(s)
        return None

    def value(self, node: Node) -> Value:
        ok, v = self.bound(node)
        if ok:
            return v
        return self.constant(node)

    # ---------------------------------------------------------------- conditions
    def cond(self, node: Node | None) -> bool | None:
        if node is None:
            return None
        ok, v = self.bound(node)
        if ok:
            return truthy(v)
        n = self.strip(node)
        t = n.type
        if t in ("binary_expression", "boolean_operator"):
            op = n.child_by_field_name("operator")
            ops = text(op) if op is not None else ""
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if ops in ("&&", "and", "||", "or"):
                a = self.cond(left)
                if ops in ("&&", "and"):
                    if a is False:
                        return False
                    b = self.cond(right)
                    if b is False:
                        return False
                    return True if (a is True and b is True) else None
                if a is True:
                    return True
                b = self.cond(right)
                if b is True:
                    return True
                return False if (a is False and b is False) else None
            if ops in ("==", "!="):
                eq = values_equal(self.value(left), self.value(right)) \
                    if left is not None and right is not None else None
                if eq is None:
                    return None
                return eq if ops == "==" else not eq
            if ops in ORDER_OPS and left is not None and right is not None:
                return compare_order(ops, self.value(left), self.value(right))
            return None
        if t == "comparison_operator":  # python: a == b / a != b / a is b (no chains)
            operands = [c for c in n.named_children if c.type != "comment"]
            ops = [text(c) for c in n.children if not c.is_named]
            ops_joined = " ".join(ops)
            if len(operands) == 2 and ops_joined in ("==", "!=", "is", "is not"):
                eq = values_equal(self.value(operands[0]), self.value(operands[1]))
                if eq is None:
                    return None
                return eq if ops_joined in ("==", "is") else not eq
            if len(operands) == 2 and ops_joined in ORDER_OPS:
                return compare_order(ops_joined, self.value(operands[0]), self.value(operands[1]))
            return None
        if t == "unary_expression":
            op = n.child_by_field_name("operator")
            arg = n.child_by_field_name("argument")
            if op is not None and text(op) == "!":
                r = self.cond(arg)
                return None if r is None else not r
            return truthy(self.constant(n))
        if t == "not_operator":
            r = self.cond(n.child_by_field_name("argument"))
            return None if r is None else not r
        c = self.constant(n)
        if isinstance(c, (bool, int)):
            return truthy(c)
        return None

    def decide(self, node: Node | None) -> bool | None:
        if node is None:
            return None
        r = self.cond(node)
        line = node.start_point[0] + 1
        if r is None:
            self.reach.undecided.append((line, squash(text(node))))
        else:
            self.reach.decided.append((line, squash(text(node)), r))
        return r

    # ---------------------------------------------------------------- expressions
    def record(self, call: Call) -> None:
        if call.node.id in self._seen:
            return
        self._seen.add(call.node.id)
        self.reach.calls.append(call)

    def expr(self, node: Node | None) -> None:
        """Record the calls an expression may make (ternaries and && / || short-circuit)."""
        if node is None or node.type == "comment":
            return
        t = node.type
        if t in ("assignment_expression", "assignment", "init_declarator",
                 "augmented_assignment") and node.id not in self._seen:
            self._seen.add(node.id)
            self.reach.assigns.append(node)
        if is_call(node, self.lang):
            c = make_call(node, self.lang)
            if c is not None:
                self.record(c)
        if t == "conditional_expression":
            if self.lang == "python":
                parts = [c for c in node.named_children if c.type != "comment"]
                if len(parts) == 3:
                    body, cond, alt = parts
                    self.expr(cond)
                    r = self.decide(cond)
                    if r is not False:
                        self.expr(body)
                    if r is not True:
                        self.expr(alt)
                    return
            else:
                cond = node.child_by_field_name("condition")
                cons = node.child_by_field_name("consequence")
                alt = node.child_by_field_name("alternative")
                self.expr(cond)
                r = self.decide(cond)
                if r is not False:
                    self.expr(cons)
                if r is not True:
                    self.expr(alt)
                return
        if t in ("binary_expression", "boolean_operator"):
            op = node.child_by_field_name("operator")
            ops = text(op) if op is not None else ""
            if ops in ("&&", "and", "||", "or"):
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                self.expr(left)
                a = self.cond(left)
                if (ops in ("&&", "and") and a is False) or (ops in ("||", "or") and a is True):
                    return
                self.expr(right)
                return
        for c in node.children:
            self.expr(c)

    # ---------------------------------------------------------------- statements
    def seq(self, stmts: list[Node]) -> set[str]:
        exits: set[str] = set()
        reachable = True
        for s in stmts:
            if s.type == "comment":
                continue
            if not reachable:
                if _has_label(s):  # holds a goto target: reachable again (conservatively)
                    reachable = True
                else:
                    continue
            e = self.stmt(s)
            exits |= e - {"normal"}
            if "normal" not in e:
                reachable = False
        if reachable:
            exits.add("normal")
        return exits

    def block(self, node: Node | None) -> set[str]:
        if node is None:
            return {"normal"}
        if node.type in ("compound_statement", "block", "declaration_list"):
            return self.seq(list(node.named_children))
        return self.stmt(node)

    def stmt(self, node: Node) -> set[str]:
        t = node.type
        py = self.lang == "python"
        if t in ("compound_statement", "block"):
            return self.seq(list(node.named_children))
        if t == "if_statement":
            return self.if_(node)
        if t == "switch_statement":
            return self.switch(node)
        if t == "match_statement":
            return self.match(node)
        if t in ("while_statement", "for_statement", "for_range_loop", "do_statement"):
            return self.loop(node)
        if t == "return_statement" or t == "raise_statement" or t == "throw_statement":
            for c in node.named_children:
                self.expr(c)
            if node.id not in self._seen:
                self._seen.add(node.id)
                self.reach.returns.append(node)
            return {"return"}
        if t == "assert_statement":
            self.expr(node)
            if node.id not in self._seen:
                self._seen.add(node.id)
                self.reach.asserts.append(node)
            return {"normal"}
        if t == "break_statement":
            return {"break"}
        if t == "continue_statement":
            return {"continue"}
        if t == "goto_statement":
            return {"goto"}
        if t == "labeled_statement":
            kids = [c for c in node.named_children if c.type not in ("statement_identifier",)]
            return self.seq(kids)
        if t == "try_statement":
            exits: set[str] = set()
            for c in node.named_children:
                if c.type in ("compound_statement", "block"):
                    exits |= self.block(c)
                elif c.type in ("catch_clause", "except_clause", "else_clause", "finally_clause",
                                "except_group_clause"):
                    body = c.child_by_field_name("body")
                    if body is None:
                        body = next((k for k in c.named_children
                                     if k.type in ("compound_statement", "block")), None)
                    exits |= self.block(body)
            return exits or {"normal"}
        if py and t == "with_statement":
            for c in node.named_children:
                if c.type == "with_clause":
                    self.expr(c)
            return self.block(node.child_by_field_name("body"))
        if t in _PREPROC_COND:
            return self.preproc(node)
        if t in ("function_definition", "class_definition", "decorated_definition"):
            # nested definitions: conservatively, anything inside may run
            for c in calls_in(self.src, node):
                self.record(c)
            return {"normal"}
        # expression statements, declarations and anything else
        self.expr(node)
        return {"normal"}

    def preproc(self, node: Node) -> set[str]:
        """`#if` / `#ifdef` / `#elif` / `#else` inside a body: each part may be compiled."""
        cond = node.child_by_field_name("condition") or node.child_by_field_name("name")
        alt = node.child_by_field_name("alternative")
        stmts = [c for c in node.named_children
                 if c is not None and c.type != "comment"
                 and not (cond is not None and c.id == cond.id)
                 and not (alt is not None and c.id == alt.id)]
        if cond is not None and node.type != "preproc_else":
            self.reach.undecided.append((node.start_point[0] + 1,
                                         squash(text(node).split("\n", 1)[0])))
        exits = self.seq(stmts)
        exits |= self.preproc(alt) if alt is not None else {"normal"}
        return exits

    def if_(self, node: Node) -> set[str]:
        cond = node.child_by_field_name("condition")
        self.expr(cond)
        r = self.decide(cond)
        exits: set[str] = set()
        if r is not False:
            exits |= self.block(node.child_by_field_name("consequence"))
        if r is True:
            return exits
        if self.lang == "python":
            alts = [c for c in node.children if c.type in ("elif_clause", "else_clause")]
            for alt in alts:
                if alt.type == "elif_clause":
                    c = alt.child_by_field_name("condition")
                    self.expr(c)
                    r2 = self.decide(c)
                    if r2 is not False:
                        exits |= self.block(alt.child_by_field_name("consequence"))
                    if r2 is True:
                        return exits
                else:
                    exits |= self.block(alt.child_by_field_name("body"))
                    return exits
            exits.add("normal")
            return exits
        alt = node.child_by_field_name("alternative")
        if alt is None:
            exits.add("normal")
            return exits
        if alt.type == "else_clause":
            inner = [c for c in alt.named_children if c.type != "comment"]
            exits |= self.block(inner[0]) if inner else {"normal"}
        else:
            exits |= self.block(alt)
        return exits

    def loop(self, node: Node) -> set[str]:
        t = node.type
        body = node.child_by_field_name("body")
        if t == "do_statement":
            e = self.block(body)
            self.expr(node.child_by_field_name("condition"))
        else:
            for f in ("initializer", "left", "right", "update"):
                self.expr(node.child_by_field_name(f))
            cond = node.child_by_field_name("condition")
            self.expr(cond)
            if t == "while_statement" and cond is not None and self.decide(cond) is False:
                e = set()
            else:
                e = self.block(body)
        exits = (e - {"break", "continue", "normal"}) | {"normal"}
        alt = node.child_by_field_name("alternative")  # python for/while ... else
        if alt is not None:
            exits |= self.block(alt.child_by_field_name("body"))
        return exits

    # ---------------------------------------------------------------- switch / match
    def switch_arms(self, node: Node) -> list[tuple[list[Node], bool, list[Node], Node]]:
        """(label nodes, is_default, statements, case node) per case of a C/C++ switch."""
        body = node.child_by_field_name("body")
        arms: list[tuple[list[Node], bool, list[Node], Node]] = []
        if body is None:
            return arms
        for c in body.named_children:
            if c.type == "case_statement":
                val = c.child_by_field_name("value")
                is_default = val is None and any(k.type == "default" for k in c.children)
                stmts = [k for k in c.named_children
                         if k is not val and k.type != "comment"
                         and not (val is not None and k.id == val.id)]
                arms.append(([val] if val is not None else [], is_default, stmts, c))
            elif c.type != "comment" and arms:
                arms[-1][2].append(c)
        return arms

    def run_from(self, arms: list[tuple[list[Node], bool, list[Node], Node]], i: int) -> set[str]:
        stmts: list[Node] = []
        for arm in arms[i:]:
            stmts.extend(arm[2])
        return self.seq(stmts)

    def switch(self, node: Node) -> set[str]:
        cond = node.child_by_field_name("condition")
        self.expr(cond)
        v = self.value(cond) if cond is not None else None
        arms = self.switch_arms(node)
        entries: list[int] = []
        certain = False
        if v is None:
            entries = list(range(len(arms)))
            if cond is not None:
                self.reach.undecided.append((cond.start_point[0] + 1, squash(text(cond))))
        else:
            for i, (labels, is_default, _, _) in enumerate(arms):
                if is_default:
                    continue
                eq = values_equal(v, self.constant(labels[0])) if labels else None
                if eq is True:
                    entries.append(i)
                    certain = True
                    break
                if eq is None:
                    entries.append(i)
            if not certain:
                entries += [i for i, a in enumerate(arms) if a[1]]
            if cond is not None:
                self.reach.decided.append((cond.start_point[0] + 1, squash(text(cond)), certain))
        exits: set[str] = set()
        for i in entries:
            e = self.run_from(arms, i)
            exits |= e
        has_default = any(a[1] for a in arms)
        if not certain and not has_default:
            exits.add("normal")
        if "break" in exits:
            exits.discard("break")
            exits.add("normal")
        return exits

    def match_arms(self, node: Node) -> list[tuple[list[Node], bool, Node | None, Node]]:
        """(pattern nodes, is_wildcard, guard, case node) per case of a Python match."""
        body = node.child_by_field_name("body")
        arms = []
        for c in (body.named_children if body is not None else []):
            if c.type != "case_clause":
                continue
            pats = [k for k in c.named_children if k.type == "case_pattern"]
            guard = c.child_by_field_name("guard")
            flat: list[Node] = []
            for p in pats:
                inner = [k for k in p.named_children if k.type != "comment"]
                if len(inner) == 1 and inner[0].type == "union_pattern":
                    flat.extend(k for k in inner[0].named_children if k.type != "comment")
                else:
                    flat.append(p)
            wildcard = guard is None and any(text(p).strip() == "_" for p in flat) or \
                (guard is None and len(flat) == 1 and re.fullmatch(r"[a-z_]\w*", text(flat[0]).strip())
                 is not None and "." not in text(flat[0]))
            arms.append((flat, wildcard, guard, c))
        return arms

    def _pattern_value(self, p: Node) -> Value:
        s = "".join(text(p).split())
        i = parse_int(s)
        if i is not None:
            return i
        if s in ("True", "False"):
            return s == "True"
        if "." in s or CONST_NAME.match(s):
            return Name(s)
        return None

    def match(self, node: Node) -> set[str]:
        subj = node.child_by_field_name("subject")
        self.expr(subj)
        v = self.value(subj) if subj is not None else None
        if v is None and subj is not None:
            self.reach.undecided.append((subj.start_point[0] + 1, squash(text(subj))))
        exits: set[str] = set()
        certain = False
        for pats, wildcard, guard, case in self.match_arms(node):
            cons = case.child_by_field_name("consequence")
            if wildcard:
                exits |= self.block(cons)
                certain = True
                break
            if v is None:
                eq: bool | None = None
            else:
                results = [values_equal(v, self._pattern_value(p)) for p in pats]
                eq = True if True in results else (False if all(r is False for r in results)
                                                   else None)
            if guard is not None:
                self.expr(guard)
                g = self.decide(guard)
                if g is False:
                    eq = False
                elif g is None and eq is True:
                    eq = None
            if eq is False:
                continue
            exits |= self.block(cons)
            if eq is True:
                certain = True
                break
        if not certain:
            exits.add("normal")
        return exits


def _has_label(node: Node) -> bool:
    if node.type == "labeled_statement":
        return True
    return any(_has_label(c) for c in node.named_children
               if c.type not in ("function_definition", "lambda_expression"))


def reachable_calls(src: Source, fn: FunctionDef, bindings: dict[str, Any] | None = None,
                    constants: list[str] | None = None, follow: int = 0) -> Reach:
    """Calls on some possible path through `fn` under `bindings`.

    With `follow` = N > 0, calls to functions defined in the same file are walked
    into, N levels deep, under the same bindings (every same-named definition is
    walked: overloads and methods of other classes included, so "may reach" stays
    conservative). Calls found there are added after `fn`'s own calls."""
    flow = Flow(src, bindings or {}, constants)
    flow.block(fn.body)
    flow.reach.calls.sort(key=lambda c: (c.node.start_byte, -c.node.end_byte))
    if follow <= 0:
        return flow.reach
    by_name: dict[str, list[FunctionDef]] = {}
    for f in functions(src):
        by_name.setdefault(f.qual[-1], []).append(f)
    seen = {fn.node.id}
    level = list(flow.reach.calls)
    for _ in range(follow):
        nxt: list[Call] = []
        for call in level:
            for target in by_name.get(call.name, []):
                if target.node.id in seen:
                    continue
                seen.add(target.node.id)
                sub = Flow(src, bindings or {}, constants)
                sub.block(target.body)
                sub.reach.calls.sort(key=lambda c: (c.node.start_byte, -c.node.end_byte))
                flow.reach.followed.append(f"{target.name} (L{target.start})")
                flow.reach.undecided.extend(sub.reach.undecided)
                flow.reach.returns.extend(sub.reach.returns)
                flow.reach.assigns.extend(sub.reach.assigns)
                flow.reach.asserts.extend(sub.reach.asserts)
                for c in sub.reach.calls:
                    flow.record(c)
                nxt.extend(sub.reach.calls)
        level = nxt
    return flow.reach
