"""The contract of a proposal module, and helpers they share.

A proposal module (one per kind of proposal, `verifier/draft/proposers/<name>.py`)
defines a `Proposer` subclass:

    class DefaultProposer(Proposer):
        name = "default"
        def propose(self, s: Sentence, env: Env) -> list[Proposal]: ...

and is listed once in `verifier/draft/proposers/__init__.py` (order = priority:
a span a proposal used is not proposed again as a plain `symbol`).

Rules every module follows:
- `expected` comes from the sentence, never from the source: the source only
  chooses the locator (`path`, `symbol`) and the kind;
- a locator names a file the source layer serves at pinned identity (the index
  holds no other files), preferring headers/stubs/Python over C/C++ sources;
- a module proposes only what the sentence literally says (no expression or name
  claims for notation such as `g_W`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from verifier.draft.model import Proposal

if TYPE_CHECKING:
    from verifier.draft.context import Hit, Resolver, Sentence
    from verifier.draft.index import Def, UpstreamIndex
    from verifier.project import Project


@dataclass
class Env:
    project: "Project"
    indexes: dict[str, "UpstreamIndex"]
    resolver: "Resolver"
    default_upstream: str

    def symbol(self, upstream: str, d: "Def") -> str:
        return self.indexes[upstream].symbol(d)


def with_constructors(env: Env, up: str, defs) -> list:
    """The definitions, each class followed by its constructors (`__init__`, C++
    constructors) from the same file: where a class's parameters are."""
    out = []
    for d in defs:
        out.append(d)
        if d.kind in ("class", "struct"):
            for c in env.indexes[up].by_path.get(d.path, []):
                if c.qual[:-1] == d.qual and c.kind in ("constructor", "method") \
                        and c.name in ("__init__", d.name):
                    out.append(c)
    return out


def one_owner(h) -> bool:
    """The hit's definitions belong to one container (or none): grounding that names
    one entity. A receiver or bare name that fits members of two classes
    (`sensor.update`: `SensorIMU.update`, `SensorContact.update`) is ambiguous, and no
    assertion beyond existence is drafted from it."""
    return len({owner_of(d) for d in h.defs}) <= 1


def owner_of(d) -> str | None:
    """The class/struct/enum a definition is a member of (None at namespace/module scope;
    an out-of-line C++ definition `Accelerometer<T>::Accelerometer` belongs to its class)."""
    if d.owner_kind in ("struct", "union", "class", "enum"):
        return d.container
    if d.lang == "cpp" and d.owner_kind is None and len(d.qual) >= 2 \
            and d.kind in ("function", "method", "constructor"):
        return d.container
    return None


class Proposer:
    name: ClassVar[str]

    def propose(self, s: "Sentence", env: Env) -> list[Proposal]:  # pragma: no cover
        raise NotImplementedError


def proposal(proposer: str, kind: str, hit_or_up: "Hit | str", env: Env, *, d: "Def | None" = None,
             expected: Any, options: dict | None = None, note: str = "",
             anchor: str | None = None, symbol: str | None = None) -> Proposal:
    from verifier.draft.context import Hit

    how = ""
    if isinstance(hit_or_up, Hit):
        up, d = hit_or_up.upstream, d or hit_or_up.best
        anchor = anchor or hit_or_up.ref.span
        how = hit_or_up.how
    else:
        up = hit_or_up
    return Proposal(kind=kind, upstream=up, expected=expected, grounding=how,
                    path=d.path if d is not None else None,
                    symbol=symbol if symbol is not None else
                    (env.symbol(up, d) if d is not None else None),
                    options=options or {}, note=note, anchor=anchor, proposer=proposer)


_NUM = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_HEXNUM = re.compile(r"^0[xX][0-9a-fA-F]+[uUlL]*$")


def literal(text: str) -> tuple[bool, Any]:
    """(ok, value) of a literal written in the lesson: a number (units after it are
    dropped, `−` is a minus) or a boolean. Identifiers and
    expressions are not literals."""
    t = text.strip().replace("−", "-").replace("–", "-")
    t = re.sub(r"^\*+|\*+$", "", t).strip().strip("`").strip()
    m = re.match(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+[uUlL]*)"
                 r"(?=$|[\s,;，。；、)）|]|[^\w.])", t)
    if m:
        tok = m.group(1)
        if _HEXNUM.match(tok):
            return True, tok
        rest = t[m.end():].strip()
        if rest.startswith(("*", "/", "+", "^", "×", "·")) or re.match(r"^[-+]\s*\d", rest):
            return False, None       # an expression (`1/30`, `2*h`), not one literal
        if re.fullmatch(r"[-+]?\d+", tok):
            return True, int(tok)
        return True, float(tok)
    low = re.split(r"[\s，。；,;.、)）|`]", t)[0] if t else ""
    if low in ("True", "true"):
        return True, True
    if low in ("False", "false"):
        return True, False
    if low == "None":
        return True, "None"
    # a quoted string, as written (strings compare by value: `'dist'` == `"dist"`)
    q = re.match(r"""^(["'])([^"'`\\\n]{0,60})\1(?![\w"'])""", t)
    if q:
        return True, q.group(0)
    return False, None


def strip_py_value(v: str) -> str:
    return v.strip().rstrip(",")
