"""`default`: the sentence states a default value, read from the sentence:

- `X=V` (a span, or a keyword argument of a call span, or plain `X=V` in the prose) in a
  sentence that says "default"/"默认";
- "`X` 默认(为|是) V", "`X` defaults to V", "`X` 的默认值为 V", "`X`（默认 V）",
  "`X` (default: V)";
- "默认 `X` 为 V", "默认 `X=V`", "by default `X` is V" (and a list of such spans after one
  default word: "默认 `a=1`、`b=2`");
- a table row under a header column saying "default"/"默认";
- a constant alone ("默认控制状态为 `mjSTATE_CTRL`", "defaults to `kLagged`"): the parameter
  is the one, among the callables the sentence and its context name or cite, whose
  default is a constant of the same enum.

`X` must be a field/attribute of a container, or a parameter of a callable, that the
sentence grounds (the callable it names, a cited definition, the class its context names
— `verifier/draft/grounding.py` —, or else the one callable the rest of its paragraph
cites), with a default at the pin; `V` must be a literal (a
number with or without unit, a boolean, `None`, a quoted string): identifiers and
expressions are not proposed (their spelling differs from the source's without the
meaning differing). A default is *decisive* (a contradiction is reported by `check`)
when the default word stands right at the name or value, or the row is under a default
column; `X=V` elsewhere in a sentence that mentions a default is drafted but not
reported."""

from __future__ import annotations

import re

from verifier.draft.context import DEFAULT_WORDS, TYPES, distinctive
from verifier.draft.index import CALLABLES
from verifier.draft.proposers.base import Proposer, literal, one_owner, proposal, with_constructors
from verifier.draft.reading import mask_code

_FIELDS = {"field", "attribute", "variable"}
# `X=V` as a condition ("`X=False` 时", "when `X=False`", "若 `X=False`") names a
# setting other than the default: the sentence's default is stated elsewhere
_COND_AFTER = re.compile(r"^`?\s*(?:时|的时候|之时|情况下|for\b|时候|后|之后|以后|才|可|会|则)")
_COND_BEFORE = re.compile(r"(?:当|如果|若|若是|假如|一旦|设为|设置为|设成|改为|改成|传入|传|给|用|使用|"
                          r"开启|关闭|打开|启用|禁用|通过|显式|明确|\bif|\bwhen|\bwith|\bunless|"
                          r"\bpass(?:ing)?|\bset(?:ting)?|\busing|\bvia)\s*`?$", re.I)
_NOT_DEFAULT = re.compile(r"(?:不是|并非|不再|非|not|no longer)\s*(?:的)?\s*$", re.I)

_LEAD = re.compile(r"(?:默认|缺省|默认值|defaults?(?: to| is)?|by default|default call)\s*"
                   r"(?:为|是|:|：)?\s*(?:调用|call(?:s|ing)?)?\s*$", re.I)
_TRAIL = re.compile(r"^\s*(?:即为|就是|是|为)?\s*(?:默认|缺省|is the default|are the defaults|"
                    r"by default)", re.I)
_AFTER = re.compile(r"^[`*]*\s*[（(]?\s*(?:才|也|还|则|仍)?\s*(?:有|是)?\s*"
                    r"(?:的默认值|默认值|默认|缺省值|缺省|defaults? to|"
                    r"by default is|has a default of|default:?)\s*(?:为|是|取|=|:|：|of)?\s*", re.I)
# "默认 `X` 为 V": the default word before the name, a copula after it
_BEFORE_NAME = re.compile(r"(?:默认|缺省|by default,?|the default)\s*(?:的|情况下|下|of)?\s*[`*]*$",
                          re.I)
_COPULA = re.compile(r"^[`*]*\s*(?:为|是|取|=|:|：|is|equals)\s*", re.I)
# separators and other `name=value` spans between one default word and a later span
_LIST_GAP = re.compile(r"(?:\s*(?:、|，|,|和|与|及|and)?\s*`[A-Za-z_]\w*\s*=[^`]*`)*"
                       r"\s*(?:、|，|,|和|与|及|and)?\s*$")
# "默认控制状态为 `V`", "the default mode is `V`", "defaults to `V`": a default word, a few
# words naming what, a copula, then the constant
_VALUE_LEAD = re.compile(r"(?:(?:默认|缺省)(?:的)?[\u4e00-\u9fff]{0,8}(?:为|是|取)|"
                         r"\bthe default [A-Za-z ]{0,24}(?:is|being)|\bdefaults? to)\s*[`*]*$",
                         re.I)
_PLAIN_ASSIGN = re.compile(r"(?<![\w`.])([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)\s*")
_PLAIN_DEFAULT = re.compile(r"(?<![\w`.])([A-Za-z_][A-Za-z0-9_]*_[A-Za-z0-9_]*)\s*"
                            r"(?:的)?(?:默认值|默认|缺省值)\s*(?:为|是|取|=|:|：)?\s*")


def _default_near(raw: str, start: int, end: int) -> bool:
    """A default word right before the span (possibly across a list of `x=v` spans:
    "默认 `a=1`、`b=2`"), or right after it."""
    before = raw[max(0, start - 120):start]
    m = _LIST_GAP.search(before)
    head = before[:m.start()] if m else before
    return bool(_LEAD.search(head[-20:]) or _BEFORE_NAME.search(head[-20:])
                or _TRAIL.match(raw[end:end + 16]) or _AFTER.match(raw[end:end + 16]))


def _occurrences(raw: str, span: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(re.escape("`" + span + "`"), raw)]


def _conditional(raw: str, start: int, end: int) -> bool:
    return bool(_COND_AFTER.match(raw[end:end + 8].lstrip())
                or _COND_BEFORE.search(raw[max(0, start - 12):start].rstrip())
                or _NOT_DEFAULT.search(raw[max(0, start - 8):start]))


class DefaultProposer(Proposer):
    name = "default"

    def propose(self, s, env):
        out = []
        callables = [h for h in s.hits if h.best.kind in CALLABLES | {"class"} and one_owner(h)]
        if s.unit.row:
            out += self._row(s, env)
        if not s.says_default:
            return out
        # (name, value text, anchor span, where, decisive, says)
        pairs = []
        for h in s.hits:
            occ = _occurrences(s.raw, h.ref.span)
            if h.ref.value is not None:
                free = [(a, b) for a, b in occ if not _conditional(s.raw, a, b)]
                if occ and not free:
                    continue
                near = any(_default_near(s.raw, a, b) for a, b in free)
                pairs.append((h.ref.name, h.ref.value, h.ref.span, h, near,
                              [h.ref.span]))
            # a call's keyword arguments state defaults only when the default word
            # leads into the call ("默认 `f(x=1)`"); `f(x=False)` 与默认…共享 passes x
            if h.ref.kwargs and any(_LEAD.search(s.raw[max(0, a - 16):a]) or
                                    _TRAIL.match(s.raw[b:b + 16]) for a, b in occ):
                for k, v in h.ref.kwargs:
                    pairs.append((k, v, h.ref.span, ("param-of", h), True, [f"{k}={v}"]))
        for r in s.unresolved:
            if r.value is not None and len(r.parts) == 1:
                occ = _occurrences(s.raw, r.span)
                free = [(a, b) for a, b in occ if not _conditional(s.raw, a, b)]
                if occ and not free:
                    continue
                near = any(_default_near(s.raw, a, b) for a, b in free)
                pairs.append((r.name, r.value, r.span, None, near, [r.span]))
        # "`X` 默认为 V", "默认 `X` 为 V"
        for h in s.hits:
            for a, b in _occurrences(s.raw, h.ref.span):
                tail = s.raw[b:b + 40]
                m = _AFTER.match(tail)
                if m:
                    v = tail[m.end():]
                    pairs.append((h.ref.name, v, h.ref.span, h, True,
                                  [h.ref.span, _value_text(v)]))
                    continue
                c = _COPULA.match(tail)
                if c and _BEFORE_NAME.search(s.raw[max(0, a - 12):a]):
                    v = tail[c.end():]
                    pairs.append((h.ref.name, v, h.ref.span, h, True,
                                  [h.ref.span, _value_text(v)]))
        # plain `name=V` and "name 默认 V" in the prose (outside code spans)
        plain = mask_code(s.raw)
        for pat, near_needed in ((_PLAIN_ASSIGN, True), (_PLAIN_DEFAULT, False)):
            for m in pat.finditer(plain):
                name = m.group(1)
                if "_" not in name.strip("_") and not any(c.isupper() for c in name[1:]):
                    continue
                value = plain[m.end():m.end() + 40]
                if near_needed and (_conditional(plain, m.start(), m.end())
                                    or not _default_near(plain, m.start(), m.start())
                                    and not _default_near(plain, m.start(), m.end())):
                    continue
                from verifier.draft.spans import Ref

                h = env.resolver.resolve(Ref(name, (name,)), s.scope)
                if h is not None:
                    pairs.append((name, value, name, h, True, [name, _value_text(value)]))
        # a callable the sentence cites (`[add_site](...#L8191)`) takes parameters too
        from verifier.draft.context import Hit
        from verifier.draft.spans import Ref

        for c in s.cited:
            if c.enclosing is not None and c.enclosing.kind in CALLABLES:
                callables.append(Hit(Ref(c.enclosing.name, (c.enclosing.name,)), c.upstream,
                                     (c.enclosing,), "cited"))
        # ... and so does the one callable its paragraph cites ("它默认 `visible=False`。
        # …[add_site](…)"), asked last, when nothing closer takes the name
        near = {(c.upstream, c.enclosing) for c in s.nearby
                if c.enclosing is not None and c.enclosing.kind in CALLABLES}
        if len(near) == 1:
            (up, d), = near
            callables.append(Hit(Ref(d.name, (d.name,)), up, (d,), "cited nearby"))
        out += self._by_value(s, env, callables, {p[0] for p in pairs})
        done = {p.options.get("param") for p in out}
        for name, value, span, where, decisive, says in pairs:
            ok, v = value_read(value)
            if not ok or name in done:
                continue
            p = self._locate(name, v, span, where, callables, s, env)
            if p is not None:
                done.add(name)
                s.used.add(name)
                p.says = [x for x in dict.fromkeys(says) if x]
                p.decisive = decisive
                p.reading = f"`{name}` defaults to {value_shown(v)}"
                out.append(p)
        return out

    def _by_value(self, s, env, callables, named):
        """"默认控制状态为 `mjSTATE_CTRL`": a constant stated as a default with no name for
        what it is the default of. The parameter is the one, among the callables the
        sentence and its context name or cite, whose default is a constant of the same
        enum (`control_spec = mujoco.mjtState.mjSTATE_CTRL.value`); none or several: no
        claim."""
        out = []
        for h in s.hits:
            e = h.best
            if e.kind != "enumerator" or not e.container or len(h.ref.parts) != 1 \
                    or h.ref.name in named or h.ref.value is not None:
                continue
            occ = [(a, b) for a, b in _occurrences(s.raw, h.ref.span)
                   if _VALUE_LEAD.search(s.raw[max(0, a - 24):a])
                   and not _conditional(s.raw, a, b)]
            if not occ:
                continue
            idx = env.indexes[h.upstream]
            siblings = {d.name for d in idx.members(e.container) if d.kind == "enumerator"}
            found = {}
            for c in self._context_callables(s, env, callables):
                for param, const in c[1].named_defaults:
                    if const in siblings:
                        found.setdefault(param, c)
            if len(found) != 1:
                continue
            (param, (hit, d)), = found.items()
            p = proposal(self.name, "default", hit, env, d=d, expected=h.ref.name,
                         options={"param": param}, anchor=h.ref.span)
            p.says = [h.ref.span]
            p.paraphrase = (f"the sentence states the default without naming `{param}`: the "
                            f"one parameter of `{d.name}` whose default is a constant of "
                            f"`{e.container.rstrip('_')}`")
            p.reading = f"the default is `{h.ref.name}` (`{param}` of `{d.name}`)"
            s.used.add(h.ref.name)
            out.append(p)
        return out

    @staticmethod
    def _context_callables(s, env, callables):
        """(hit, callable) for the callables the sentence names or cites, and the methods
        and constructors of the classes its context (table, section, paragraphs) names."""
        from verifier.draft.context import Hit
        from verifier.draft.spans import Ref

        out = []
        for h in callables:
            for d in with_constructors(env, h.upstream, h.defs):
                if d.kind in CALLABLES:
                    out.append((h, d))
        for _, names in s.scope.levels:
            for name in names:
                for up, idx in env.indexes.items():
                    for c in idx.lookup(name.split(".")[-1]):
                        if c.kind not in ("class", "struct"):
                            continue
                        for d in idx.by_path.get(c.path, []):
                            if d.qual[:-1] == c.qual and d.kind in CALLABLES:
                                out.append((Hit(Ref(d.name, (d.name,)), up, (d,), "context"), d))
        return out

    def _locate(self, name, v, span, where, callables, s, env):
        """A parameter with a default at the pin (of the call span, of a callable the
        sentence names, of the constructor of the field's class), else a field with an
        initializer; nothing when the pin has no default there to compare with."""
        if isinstance(where, tuple):          # a keyword argument of that call
            h = where[1]
            for d in with_constructors(env, h.upstream, h.defs):
                if d.kind in CALLABLES and name in d.defaulted:
                    return proposal(self.name, "default", h, env, d=d, expected=v,
                                    options={"param": name}, anchor=span)
            return None
        for h in callables:
            if h is where:
                continue
            for d in with_constructors(env, h.upstream, h.defs):
                if name in d.defaulted:
                    return proposal(self.name, "default", h, env, d=d, expected=v,
                                    options={"param": name}, anchor=span)
        cited = {(c.upstream, c.path) for c in s.cited}
        if where is not None and where.best.container and one_owner(where) and (
                where.how in ("qualified", "module", "receiver") or where.how.startswith("scope")
                or where.how == "context" and distinctive(name)
                or (where.upstream, where.best.path) in cited):
            f = where.best
            ctor = self._constructor(env, where.upstream, f, name)
            if ctor is not None:
                return proposal(self.name, "default", where, env, d=ctor, expected=v,
                                options={"param": name}, anchor=span)
            if f.kind in _FIELDS and f.valued:
                return proposal(self.name, "default", where, env, expected=v, anchor=span)
        return None

    @staticmethod
    def _constructor(env, up, f, name):
        """The constructor of `f`'s class when it takes `name` with a default
        (`self.iterations = iterations` is set from `__init__(iterations=2)`)."""
        for d in env.indexes[up].by_path.get(f.path, []):
            # a constructor generated from the fields (dataclass, pydantic, attrs) takes
            # the field's own default: the field is the claim's locator
            if d.qual[:-1] == f.qual[:-1] and d.kind in ("constructor", "method") \
                    and d.name in ("__init__", f.qual[-2]) and name in d.defaulted \
                    and d.origin != "generated":
                return d
        return None

    def _row(self, s, env):
        """| `field` | V | ... | under a header with a default column."""
        header = s.unit.header
        col = next((i for i, h in enumerate(header) if DEFAULT_WORDS.search(h)), None)
        if col is None or col == 0 or col >= len(s.unit.cells):
            return []
        names = s.unit.cells[0][1]
        if len(names) != 1:
            return []
        cell, cell_code = s.unit.cells[col]
        ok, v = literal(cell)
        if not ok and len(cell_code) == 1 and cell.strip() == cell_code[0].strip():
            ok, v = value_read("`" + cell_code[0].strip() + "`")
        if not ok:
            return []
        name = names[0]
        says = [name, _value_text(cell)]
        # the container: the table's introduction, or a permalink of the row
        owners = []
        for span in s.unit.context:
            from verifier.draft.spans import refs

            for r in refs(span):
                h = env.resolver.resolve(r)
                if h is not None:
                    owners.append(h)
        for c in s.cited:
            if c.enclosing is not None:
                owners.append(c)
        for o in owners:
            if hasattr(o, "defs"):
                up = o.upstream
                for d in o.defs:
                    owner = d.container if d.container and d.kind not in TYPES else d.name
                    for m in env.indexes[up].members(owner):
                        if m.name == name and m.kind in _FIELDS and m.valued:
                            s.used.add(name)
                            return [_said(proposal(self.name, "default", up, env, d=m,
                                                   expected=v, anchor=name), says, name, v)]
                    if name in d.defaulted:
                        s.used.add(name)
                        return [_said(proposal(self.name, "default", up, env, d=d, expected=v,
                                               options={"param": name}, anchor=name),
                                      says, name, v)]
            else:
                e = o.enclosing
                for m in env.indexes[o.upstream].by_path.get(e.path, []):
                    if m.name == name and m.kind in _FIELDS and m.valued \
                            and m.qual[:-1] == e.qual:
                        s.used.add(name)
                        return [_said(proposal(self.name, "default", o.upstream, env, d=m,
                                               expected=v, anchor=name), says, name, v)]
        return []


_ENUM_NAME = re.compile(r"^`\s*([A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*)\s*`")


def value_read(text: str):
    """(ok, value) of a default as the sentence writes it: a literal (`literal`), or an
    enumerator-like name in a code span (`kExact`, `ShapeFlags.VISIBLE`): the `default`
    kind compares it with the source's (possibly more qualified) spelling."""
    ok, v = literal(text)
    if ok:
        return ok, v
    m = _ENUM_NAME.match(text.strip())
    # an API constant's spelling (`kExact`, `LM`, `ShapeFlags.VISIBLE`), not a lowercase
    # word of the lesson's or an XML vocabulary (`pyramidal`)
    if m and m.group(1) not in ("True", "False", "None", "true", "false") and \
            any(c.isupper() for c in m.group(1).split(".")[-1].split("::")[-1]):
        return True, m.group(1)
    return False, None


def _said(p, says, name, v):
    p.says = [x for x in says if x]
    p.reading = f"`{name}` defaults to {value_shown(v)}"
    return p


def _value_text(text: str) -> str:
    """The literal as the sentence writes it (the `says` span of a value)."""
    t = text.strip().lstrip("`*").strip()
    m = re.match(r"""^(["'][^"'`]*["']|[-+−–]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+−–]?\d+)?|"""
                 r"0[xX][0-9a-fA-F]+|True|False|true|false|None|[A-Za-z_][\w.:]*)", t)
    return m.group(0) if m else ""


def value_shown(v) -> str:
    return str(v) if not isinstance(v, bool) else ("true" if v else "false")

