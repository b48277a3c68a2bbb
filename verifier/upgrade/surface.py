"""The release surface of the names the lessons use, old version against new.

Where the new version's source is not served (Drake from PyPI: its wheel ships
no source file), what its release says can still be compared: the `.pyi` stubs
of both versions' wheels and introspection of both versions' runtime
environments (`facts/release.py`: `stub_records`, `introspect`, `release_docs`;
the new environment is built in the cache like a pinned one).

Names the lessons use: the API-shaped code spans of every lesson of a course
that lists the upstream (and of their link labels), the `symbol` of the
upstream's claims and the names in their runtime code, each read as lint reads
them (`lint.shapes.classify`) and bound as lint binds them in the old release
surface (`lint.resolve.Resolver`). Each bound name is looked up at the new
version, producer by producer (a producer that has nothing at one side decides
nothing):

    removed     no producer that had it at the old version has it at the new one
    renamed     removed, and its scope gained one similar name of the same kind
                (or the same name appears in another module)
    signature   its parameters (names, kinds, annotations, which have defaults),
                or the signature lines of its docstring (pybind11), differ
    default     the same parameters with other default values
    docstring   its docstring's text (beside the signature lines) differs
    kind        it is another kind of thing (a function became a class)
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verifier.upgrade.model import Surface, SurfaceChange

if TYPE_CHECKING:
    from verifier.facts.model import FileFacts, Sym
    from verifier.facts.release import EnvHandle
    from verifier.lint.shapes import ApiRef
    from verifier.project import LessonDoc, Project

Key = tuple[str, tuple[str, ...]]          # (module, qualified name)
_SIG_LINE = re.compile(r"^(?:\d+\.\s+)?[A-Za-z_]\w*\(.*\)(?:\s*->\s*.*)?$")
RENAME_CUTOFF = 0.75


@dataclass
class Use:
    ref: "ApiRef"
    lessons: dict[str, set[int]] = field(default_factory=dict)
    claims: set[str] = field(default_factory=set)


def names_used(project: "Project", lessons: "list[LessonDoc]", upstream: str) -> dict[str, Use]:
    """dotted name -> where the lessons (and the upstream's claims) use it."""
    from verifier.claims.loader import load_claims
    from verifier.lint.shapes import classify, names_in_text

    uses: dict[str, Use] = {}

    def add(ref: "ApiRef", lesson: str | None, line: int | None, claim: str | None) -> None:
        u = uses.setdefault(ref.dotted, Use(ref))
        if lesson is not None and line is not None:
            u.lessons.setdefault(lesson, set()).add(line)
        if claim is not None:
            u.claims.add(claim)

    mine = [ld for ld in lessons if upstream in ld.upstreams]
    for ld in mine:
        doc = project.lesson(ld)
        where = f"{ld.course}/{ld.path}"
        for span in doc.code_spans:
            for ref in classify(span.text):
                add(ref, where, span.line, None)
        for link in doc.links:
            for code in link.label_code:
                for ref in classify(code):
                    add(ref, where, link.line, None)
    for lc in load_claims(project, mine):
        if lc.upstream != upstream or lc.problem:
            continue
        where = f"{lc.course}/{lc.lesson}"
        if lc.claim.symbol:
            for ref in classify(lc.claim.symbol):
                add(ref, where, None, lc.gid)
        rt = lc.claim.runtime
        if rt is not None:
            for dotted in code_names("\n".join((rt.setup or "", rt.code))):
                for ref in names_in_text(dotted):
                    add(ref, where, None, lc.gid)
    return uses


# methods of the builtin types and of numpy arrays: `n.lower()`, `v.copy()` in a
# snippet are not the upstream's names
_BUILTIN_MEMBERS = frozenset(
    name for t in (str, bytes, list, dict, set, tuple, int, float, complex, object)
    for name in dir(t)) | {"shape", "dtype", "ndim", "size", "T", "flatten", "reshape",
                           "tolist", "item", "astype", "any", "all", "sum", "mean", "max",
                           "min", "argmax", "argmin", "dot", "ravel", "squeeze", "real", "imag"}


def code_names(code: str) -> list[str]:
    """Dotted names a Python snippet uses: imported names (`pydrake.systems.framework.
    DiagramBuilder` for `from pydrake.systems.framework import DiagramBuilder`),
    attribute chains rooted at an import, and `x.Method` where `Method` is no method
    of a builtin type. [] when the code does not parse."""
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return []
    alias: dict[str, str] = {}
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                alias[(a.asname or a.name).split(".")[0]] = (a.name if a.asname
                                                             else a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name != "*":
                    alias[a.asname or a.name] = f"{node.module}.{a.name}"
                    out.append(f"{node.module}.{a.name}")
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        chain, cur = [node.attr], node.value
        while isinstance(cur, ast.Attribute):
            chain.append(cur.attr)
            cur = cur.value
        chain.reverse()
        if isinstance(cur, ast.Name) and cur.id in alias:
            out.append(".".join([alias[cur.id], *chain]))
        elif chain[-1] not in _BUILTIN_MEMBERS and not chain[-1].startswith("_"):
            root = cur.id if isinstance(cur, ast.Name) else "x"
            out.append(f"{root}.{'.'.join(chain)}")
    return sorted(set(out))


# --------------------------------------------------------------------------- the two surfaces

@dataclass
class Side:
    syms: dict[tuple[str, str, tuple[str, ...]], list["Sym"]] = field(default_factory=dict)
    producers: dict[str, str] = field(default_factory=dict)
    has: set[str] = field(default_factory=set)         # producers that gave anything
    env: "EnvHandle | None" = None
    notes: list[str] = field(default_factory=list)

    def add(self, records: "list[FileFacts]", producer: str) -> None:
        for facts in records:
            mod = facts.module or facts.path
            for s in facts.syms:
                if s.kind == "import":
                    continue
                self.syms.setdefault((producer, mod, s.qual), []).append(s)
                self.has.add(producer)

    def by_parent(self, producer: str, mod: str, parent: tuple[str, ...]) -> dict[str, "Sym"]:
        return {q[-1]: ss[0] for (p, m, q), ss in self.syms.items()
                if p == producer and m == mod and q[:-1] == parent}


def _side(project: "Project", upstream: str, env: "EnvHandle | None") -> Side:
    from verifier.facts.release import introspect, stub_records

    side = Side(env=env)
    records, labels, notes = stub_records(project, upstream)
    side.add(records, "stub")
    side.producers.update(labels)
    side.notes += notes
    if env is not None:
        more, inotes = introspect(project, upstream, env)
        side.add(more, "introspection")
        side.notes += inotes
        if more:
            side.producers["introspection"] = env.label or str(env.python)
    return side


def new_env(project: "Project", upstream: str) -> tuple["EnvHandle | None", list[str]]:
    """The ready runtime environment of `upstream` in `project`, built in the cache
    when it is missing (never offline)."""
    from verifier.facts.release import ready_env

    env = ready_env(project, upstream)
    if env is not None or not project.pins.get(upstream).runtime:
        return env, []
    if project.config.offline:
        return None, [f"{upstream}: no environment of the new version (--offline: not built); "
                      "the new surface has its stubs only"]
    from verifier.errors import VerifierError
    from verifier.runtime.envs import EnvSpec, create_env

    try:
        create_env(project.store, EnvSpec.from_upstream(project.pins.get(upstream)),
                   index_url=project.config.index_url, offline=False, notify=project.notify)
    except (VerifierError, OSError) as exc:
        text = exc.render() if isinstance(exc, VerifierError) else str(exc)
        return None, [f"{upstream}: the new version's environment could not be built: {text}"]
    return ready_env(project, upstream), []


# --------------------------------------------------------------------------- comparison

def _sig(s: "Sym") -> str | None:
    """A callable's parameters as compared: names, kinds, which have defaults (not
    their annotations: a new stub generator writes the same types differently)."""
    if s.params is None:
        return None
    parts = [p.name + (" = …" if p.default is not None else "") for p in s.params
             if p.name != "self"]
    return f"{s.name}({', '.join(parts)})"


def _defaults(s: "Sym") -> dict[str, str] | None:
    if s.params is None:
        return None
    return {p.name: _value(p.default) for p in s.params
            if p.default is not None and p.default != "..."}


def _value(text: str) -> str:
    """A default's repr, normalised: `<RoleAssign.kNew: 0>` -> `RoleAssign.kNew`."""
    text = re.sub(r"<([A-Za-z_][\w.]*): [^<>]*>", r"\1", text.strip())
    return " ".join(text.split())


VALUE_KINDS = frozenset({"field", "attribute", "variable", "enumerator", "property"})
CALLABLE_KINDS = frozenset({"method", "function", "constructor"})


def kind_of(s: "Sym") -> str:
    """value | callable | <kind>: what a name is, as both stub generators agree on it."""
    if s.kind in CALLABLE_KINDS and any(d.split(".")[-1] in ("property", "cached_property")
                                        for d in s.decorators):
        return "value"
    if s.kind in VALUE_KINDS:
        return "value"
    return "callable" if s.kind in CALLABLE_KINDS else s.kind


_BACKTICKED = re.compile(r"^\s*(?:\d+\.\s+)?``.*\(.*\).*``\s*$")


def _logical_lines(doc: str) -> list[str]:
    """Docstring lines with a signature that spans lines (a long default) joined."""
    out: list[str] = []
    depth = 0
    for line in doc.splitlines():
        if depth > 0 and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
        depth = max(0, depth + sum(line.count(c) for c in "([{")
                    - sum(line.count(c) for c in ")]}"))
        if depth > 0 and not re.match(r"^\s*(?:\d+\.\s+)?`*[A-Za-z_]\w*\(|^\s*`*\(", out[-1]):
            depth = 0      # an unbalanced bracket in prose: not a signature
    return out


def split_doc(doc: str | None) -> tuple[list[str], str]:
    """(signature lines, the rest) of a docstring. pybind11 and nanobind put
    `name(args) -> ret` lines (numbered, or in double backticks, for overloads; a
    property's `(self) -> type`) around the text, and pybind11 appends an enum's
    `Members:` list to its class docstring; the rest is compared by paragraph, each
    with whitespace collapsed and each once (pybind11 repeats an overload set's text)."""
    if not doc:
        return [], ""
    sig, rest = [], []
    for line in _logical_lines(doc):
        bare = re.sub(r"^\d+\.\s+", "", line.strip().strip("`")).strip("`")
        if "(" in bare and _SIG_LINE.match(bare):
            sig.append(bare)
        elif re.match(r"^\(.*\)\s*->", bare) or _BACKTICKED.match(line):
            continue
        elif line.strip() != "Overloaded function.":
            rest.append(line)
    paras = [" ".join(x.split()) for x in "\n".join(rest).split("\n\n")]
    if "Members:" in paras:
        paras = paras[:paras.index("Members:")]
    return sig, "\n\n".join(dict.fromkeys(x for x in paras if x))


def _top_level(text: str, seps: str) -> list[int]:
    """Offsets of the characters of `seps` outside brackets and quotes."""
    depth, quote, out = 0, "", []
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in seps:
            out.append(i)
    return out


def _params_of(line: str) -> tuple[str, list[tuple[str, str | None]]] | None:
    """(name, [(parameter, default)]) of one signature line, annotations dropped."""
    start = line.find("(")
    if start <= 0:
        return None
    depth, end = 0, -1
    for i in range(start, len(line)):
        depth += line[i] in "([{"
        depth -= line[i] in ")]}"
        if depth == 0:
            end = i
            break
    if end < 0:
        return None
    inner = line[start + 1:end]
    cuts = [-1, *_top_level(inner, ","), len(inner)]
    out = []
    for a, b in zip(cuts, cuts[1:]):
        part = inner[a + 1:b].strip()
        if not part:
            continue
        eq = [i for i in _top_level(part, "=")
              if part[i - 1:i] not in ("=", "<", ">", "!") and part[i + 1:i + 2] != "="]
        colon = _top_level(part, ":")
        cut = min([*eq[:1], *colon[:1], len(part)])
        out.append((part[:cut].strip(), _value(part[eq[0] + 1:]) if eq else None))
    return line[:start].strip(), out


def doc_signatures(lines: list[str]) -> list[tuple[str, tuple[tuple[str, str | None], ...]]]:
    """The overloads a docstring's signature lines give: (name, ((param, default), ...)),
    `self` and annotations dropped, sorted; pybind11's `(*args, **kwargs)` header of an
    overload set left out."""
    sigs = set()
    for line in lines:
        got = _params_of(line)
        if got is not None:
            # `self`, the `/` and `*` markers and the generated names of anonymous
            # parameters (`arg0` in pybind11, `arg` in nanobind) say nothing of the API
            sigs.add((got[0], tuple(("arg" if re.fullmatch(r"arg\d*", q) else q, d)
                                    for q, d in got[1] if q not in ("self", "/", "*"))))
    if len(sigs) > 1:
        sigs.discard(next((x for x in sigs if [p for p, _ in x[1]] == ["*args", "**kwargs"]),
                          ("", ())))
    return sorted(sigs, key=lambda x: (x[0], [(q, d or "") for q, d in x[1]]))


def compare_key(key: Key, old: Side, new: Side, docs_old: dict, docs_new: dict
                ) -> list[tuple[str, object, object, str, str | None]]:
    """(change, old, new, producer, renamed_to) for one name; [] when nothing differs."""
    mod, qual = key
    out: list[tuple[str, object, object, str, str | None]] = []
    if qual[-1].startswith("__"):
        return out      # protocol names: stub generators disagree on listing them
    present_old = [p for p in ("stub", "introspection") if (p, mod, qual) in old.syms]
    comparable = [p for p in present_old if p in new.has]
    if not comparable:
        return out
    missing = [p for p in comparable if (p, mod, qual) not in new.syms]
    if len(missing) == len(comparable):
        p = comparable[0]
        kind = kind_of(old.syms[(p, mod, qual)][0])
        olds = set(old.by_parent(p, mod, qual[:-1]))
        fresh = {n: s for n, s in new.by_parent(p, mod, qual[:-1]).items()
                 if n not in olds and kind_of(s) == kind}
        near = difflib.get_close_matches(qual[-1], sorted(fresh), n=1, cutoff=RENAME_CUTOFF)
        to = None
        if near:
            to = f"{mod}:{'.'.join((*qual[:-1], near[0]))}"
        else:
            elsewhere = sorted(m for (pp, m, q) in new.syms
                               if pp == p and q == qual and m != mod
                               and (p, m, q) not in old.syms)
            if elsewhere:
                to = f"{elsewhere[0]}:{'.'.join(qual)}"
        out.append(("renamed" if to else "removed", f"{mod}:{'.'.join(qual)}", to, p, to))
        return out
    name = f"{mod}:{'.'.join(qual)}"
    od_sigs = doc_signatures(split_doc(docs_old.get(name))[0])
    nd_sigs = doc_signatures(split_doc(docs_new.get(name))[0])
    by_docs = bool(od_sigs and nd_sigs)   # both docstrings give signatures: they decide
    for p in comparable:
        if p in missing:
            continue
        o, n = old.syms[(p, mod, qual)], new.syms[(p, mod, qual)]
        if kind_of(o[0]) != kind_of(n[0]):
            out.append(("kind", o[0].kind, n[0].kind, p, None))
            continue
        if by_docs or kind_of(o[0]) == "value":
            continue
        osig = sorted({x for x in map(_sig, o) if x})
        nsig = sorted({x for x in map(_sig, n) if x})
        if osig != nsig and osig and nsig and not _generic(osig, nsig):
            out.append(("signature", osig, nsig, p, None))
        elif len(o) == len(n) == 1:
            od, nd = _defaults(o[0]), _defaults(n[0])
            if od is not None and nd is not None:
                both = sorted(set(od) & set(nd))       # a default each side spells out
                if any(od[k] != nd[k] for k in both):
                    out.append(("default", {k: od[k] for k in both},
                                {k: nd[k] for k in both}, p, None))
    parent = f"{mod}:{'.'.join(qual[:-1])}"
    inherited = len(qual) > 1 and docs_old.get(name) == docs_old.get(parent)
    if name in docs_old and name in docs_new and docs_old[name] != docs_new[name] \
            and not inherited:
        (_, otext), (_, ntext) = split_doc(docs_old[name]), split_doc(docs_new[name])
        od, nd = od_sigs, nd_sigs
        if od and nd and od != nd and not any(c[0] == "signature" for c in out):
            same = [(x, [q for q, _ in ps]) for x, ps in od] == \
                [(x, [q for q, _ in ps]) for x, ps in nd]
            out.append(("default" if same else "signature", _show(od), _show(nd),
                        "introspection", None))
        if otext != ntext:
            out.append(("docstring", otext, ntext, "introspection", None))
    return out


def doc_delta(old: object, new: object, width: int = 300) -> list[str]:
    """What a change removed (`- `) and added (`+ `), for reports: the paragraphs of a
    docstring, the overloads of a signature, the defaults of a parameter list."""
    def items(v: object) -> list[str]:
        if isinstance(v, list):
            return [str(x) for x in v]
        if isinstance(v, dict):
            return [f"{k}={x}" for k, x in v.items()]
        return [x for x in str(v or "").split("\n\n") if x]

    a, b = items(old), items(new)
    if isinstance(old, list) and isinstance(new, list):
        gone, came = [x for x in a if x not in b], [x for x in b if x not in a]
        pa = _params_of(gone[0]) if len(gone) == 1 else None
        pb = _params_of(came[0]) if len(came) == 1 else None
        if pa and pb and pa[0] == pb[0]:     # one overload changed: say which parameters
            na, nb = [q for q, _ in pa[1]], [q for q, _ in pb[1]]
            out = [f"- {q}" for q in na if q not in nb] + [f"+ {q}" for q in nb if q not in na]
            if out:
                return [f"  {pa[0]}(…): parameters", *out]
    out = []
    lines = [x for x in difflib.ndiff(a, b) if x[:2] in ("- ", "+ ")]
    i = 0
    while i < len(lines):
        cur = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if cur.startswith("- ") and nxt.startswith("+ ") and isinstance(old, str) and \
                difflib.SequenceMatcher(None, cur[2:], nxt[2:]).ratio() > 0.6:
            out += _words_delta(cur[2:], nxt[2:])     # one paragraph edited: the words
            i += 2
            continue
        out.append(cur)
        i += 1
    return [x if len(x) <= width else x[:width - 1] + "…" for x in out]


def _words_delta(a: str, b: str, context: int = 6) -> list[str]:
    """`… context -removed +added context …` for each edit of one paragraph."""
    wa, wb = a.split(), b.split()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb).get_opcodes():
        if tag == "equal":
            continue
        before = " ".join(wa[max(0, i1 - context):i1])
        after = " ".join(wa[i2:i2 + context])
        gone, came = " ".join(wa[i1:i2]), " ".join(wb[j1:j2])
        parts = [before, f"[-{gone}-]" if gone else "", f"[+{came}+]" if came else "", after]
        out.append("~ …" + " ".join(x for x in parts if x) + "…")
    return out


def _generic(a: list[str], b: list[str]) -> bool:
    """One side only says `(*args, **kwargs)`: nothing to compare."""
    return any(x.endswith("(*args, **kwargs)") for x in (*a, *b))


def _show(sigs: list[tuple[str, tuple[tuple[str, str | None], ...]]]) -> list[str]:
    return [f"{name}({', '.join(p + (f'={d}' if d is not None else '') for p, d in ps)})"
            for name, ps in sigs]


def compare_surface(old_project: "Project", new_project: "Project",
                    lessons: "list[LessonDoc]", upstream: str) -> Surface:
    from verifier.facts.release import ready_env, release_docs, release_index
    from verifier.lint.resolve import Resolver

    old_index = release_index(old_project, upstream)
    if old_index is None:
        return Surface(ran=False, reason=f"{upstream} has no release surface at the old pin "
                                         "(no .pyi stubs, no ready environment)")
    uses = names_used(old_project, lessons, upstream)
    resolver = Resolver([old_index], release=[])
    bound: dict[Key, list[Use]] = {}
    for dotted in sorted(uses):
        res = resolver.resolve(uses[dotted].ref)
        s = res.symbol
        if res.status != "resolved" or s is None or not s.qual:
            continue
        bound.setdefault((s.module or s.path, tuple(s.qual)), []).append(uses[dotted])
    env_new, notes = new_env(new_project, upstream)
    old = _side(old_project, upstream, ready_env(old_project, upstream))
    new = _side(new_project, upstream, env_new)
    notes += [n for n in (*old.notes, *new.notes) if "no ready runtime environment" not in n]
    targets = sorted(bound)
    asked = sorted(set(targets) | {(m, q[:-1]) for m, q in targets if len(q) > 1})
    docs_old: dict = {}
    docs_new: dict = {}
    if old.env is not None and new.env is not None:
        docs_old, n1 = release_docs(old_project, upstream, old.env, asked)
        docs_new, n2 = release_docs(new_project, upstream, new.env, asked)
        notes += n1 + n2
    changes: list[SurfaceChange] = []
    for key in targets:
        for change, o, n, producer, to in compare_key(key, old, new, docs_old, docs_new):
            group = bound[key]
            lessons_at: dict[str, set[int]] = {}
            claims: set[str] = set()
            for u in group:
                for lesson, lines in u.lessons.items():
                    lessons_at.setdefault(lesson, set()).update(lines)
                claims |= u.claims
            changes.append(SurfaceChange(
                name=group[0].ref.raw, symbol=f"{key[0]}:{'.'.join(key[1])}", change=change,
                old=o, new=n, renamed_to=to, producer=producer,
                lessons={k: sorted(v) for k, v in sorted(lessons_at.items())},
                claims=sorted(claims)))
    return Surface(ran=True, old_producers=dict(sorted(old.producers.items())),
                   new_producers=dict(sorted(new.producers.items())), names=len(bound),
                   changes=changes, notes=list(dict.fromkeys(notes)))
