"""Doc comments and docstrings of declarations, for the `doc` kind.

The fact model attaches one documentation text to a symbol (`Sym.doc`; the module
docstring is `FileFacts.doc`). The `doc` kind reads it, and adds what a lesson needs
that one text leaves out, from the lines the fact model gives for the declaration
(`Sym.start`/`Sym.end`, never a search over the file):

- C/C++: both the comment block right above the declaration (no blank line between;
  above `template <...>` too) and the comment trailing it on its line. MuJoCo documents
  a field on its line (`int* sensor_refid; // id of reference frame; -1: global frame`)
  while the comment above may head a group of fields (`// sensors`); `Sym.doc` keeps only
  the one above.
- Python: `ast` docstrings, including attribute docstrings of annotated `self.x: T = v`
  assignments in `__init__`, which `Sym.doc` does not carry. The table of a file's
  docstrings is plain data kept in the fact cache by the file's blob and this module's
  code version (`py_docs`): `ast` parsed the 6,000-line `builder.py` of Newton in 0.35 s
  here, on every run whose memo audit re-derived a claim about it.

Parameters are documented inside their function's doc: Doxygen `@param[in] x ...`
/ `\\param x ...`, Google `Args:` entries (`x (T): ...`), NumPy `Parameters`
sections, Sphinx `:param x: ...`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from verifier.facts.model import FileFacts, Sym

if TYPE_CHECKING:
    from verifier.cache import Store

_COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*(?!\w)|\*/)")
_TRAIL = re.compile(r"(//[/!]?<?|/\*[*!]?<?)(.*?)(\*/)?\s*$")


@dataclass(frozen=True)
class Doc:
    text: str                 # markers removed, lines joined with "\n"
    lines: tuple[int, int]    # first and last line of the documentation and declaration


def clean_comment(raw: str) -> str:
    """Comment text without `//`, `///`, `//!`, `///<`, `/* */` and leading `*`."""
    out = []
    for ln in raw.splitlines():
        s = ln.strip()
        s = re.sub(r"^/\*+!?<?", "", s)
        s = re.sub(r"\*+/$", "", s)
        s = re.sub(r"^//[/!]?<?", "", s)
        s = re.sub(r"^\*+(?=\s|$)", "", s)
        if re.fullmatch(r"[-=*/_\s]*", s):   # rules like //------- carry no text
            s = ""
        out.append(s.strip())
    return "\n".join(out).strip()


def _code_part(line: str) -> str:
    """The line without a trailing `//` comment (string literals are not expected here)."""
    return re.split(r"//|/\*", line, maxsplit=1)[0]


def _c_doc(lines: list[str], s: Sym) -> Doc | None:
    start, end = s.start, max(s.start, s.end)
    lead: list[str] = []
    i = start - 2                             # 0-based index of the line above
    while i >= 0 and re.match(r"^\s*template\s*<.*>\s*$", lines[i]):
        i -= 1                                # the doc sits above `template <...>`
    top = start
    while i >= 0 and _COMMENT_LINE.match(lines[i]):
        lead.insert(0, lines[i])
        top = i + 1
        i -= 1
    trail = []
    last = start
    # a declaration's own line(s): the head line, and for a one-line declaration its end
    for ln in sorted({start, end} if end - start <= 1 else {start}):
        if 1 <= ln <= len(lines):
            text = lines[ln - 1]
            code = _code_part(text)
            if code.strip() and len(code) < len(text):
                trail.append(text[len(code):])
                last = max(last, ln)
    # a comment continued on the following comment-only lines (`// ...` under a field)
    parts = [clean_comment("\n".join(lead))] if lead else []
    if trail:
        parts.append(clean_comment("\n".join(trail)))
    text = "\n".join(p for p in parts if p)
    if not text:
        return None
    tail = end if end - start <= 2 else start     # a long body: up to the declaration's head
    return Doc(text, (top if lead else start, max(tail, last)))


@lru_cache(maxsize=64)
def _py_docs(source: str) -> dict[int, tuple[str, int, int]]:
    """Python: first line of a definition/assignment -> (doc, first line, last line)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    out: dict[int, tuple[str, int, int]] = {}
    mod = ast.get_docstring(tree, clean=True)
    if mod:
        out[0] = (mod, 1, tree.body[0].end_lineno or 1)

    def visit(body: list[ast.stmt]) -> None:
        for k, st in enumerate(body):
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                d = ast.get_docstring(st, clean=True)
                first = min([st.lineno] + [x.lineno for x in st.decorator_list])
                if d:
                    body0 = st.body[0]
                    for ln in {st.lineno, first}:
                        out[ln] = (d, first, body0.end_lineno or st.lineno)
                if isinstance(st, ast.ClassDef):
                    visit(st.body)
                elif st.name == "__init__":
                    visit(st.body)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)) and k + 1 < len(body):
                nxt = body[k + 1]
                if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) \
                        and isinstance(nxt.value.value, str):
                    import inspect

                    out[st.lineno] = (inspect.cleandoc(nxt.value.value), st.lineno,
                                      nxt.end_lineno or nxt.lineno)

    visit(tree.body)
    return out


PY_DOCS = "pydocs"        # the fact cache's section for `py_docs`


@lru_cache(maxsize=64)
def py_docs(text: str, store: "Store | None" = None) -> dict[int, tuple[str, int, int]]:
    """`_py_docs(text)`, kept in the fact cache of `store` by the blob of `text`."""
    if store is None:
        return _py_docs(text)
    from verifier.codeversion import code_version
    from verifier.facts.cache import fact_cache
    from verifier.gitblob import blob_sha

    return fact_cache(store).get_or_build(
        PY_DOCS, code_version(__name__), blob_sha(text.encode("utf-8")),
        lambda: _py_docs(text),
        load=lambda rows: {int(k): (str(d), int(a), int(b)) for k, d, a, b in rows},
        dump=lambda docs: [[k, d, a, b] for k, (d, a, b) in sorted(docs.items())])


def doc_of(facts: FileFacts, s: Sym | None, text: str, store: "Store | None" = None
           ) -> Doc | None:
    """The documentation of declaration `s` (None: the module's own docstring); `store`:
    the docstring table of a Python file comes from its fact cache (`py_docs`)."""
    if facts.lang == "python":
        docs = py_docs(text, store)
        if s is None:
            d = getattr(facts, "doc", None)
            got = docs.get(0)
            if d:
                return Doc(d, (got[1], got[2]) if got else (1, 1))
            return Doc(got[0], (got[1], got[2])) if got else None
        d = getattr(s, "doc", None)
        got = docs.get(s.start) or docs.get(getattr(s, "line", None) or -1)
        if d:
            return Doc(d, (got[1], got[2]) if got else s.head)
        return Doc(got[0], (got[1], got[2])) if got else None
    if s is None:
        return None
    lines = text.splitlines()
    own = getattr(s, "doc", None)
    found = _c_doc(lines, s)
    if own and found and own not in found.text:
        return Doc(own + "\n" + found.text, found.lines)
    if own and not found:
        return Doc(own, s.head)
    return found


# ------------------------------------------------------------------ parameters

_DOXY = re.compile(r"[@\\]param(?:\[[^\]]*\])?\s+(\w+)\s*(.*)")
_SPHINX = re.compile(r":param\s+(?:[\w\[\], .|]+\s+)?(\w+)\s*:\s*(.*)")
_GOOGLE_HEAD = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|"
                          r"Keyword Arguments|Other Parameters)\s*:\s*$")
_NUMPY_HEAD = re.compile(r"^\s*(Parameters|Other Parameters)\s*$")
_SECTION = re.compile(r"^\s*([A-Z][A-Za-z ]+):\s*$|^\s*[-=]{3,}\s*$")


def param_doc(doc: str, name: str) -> str | None:
    """The part of a function's doc that documents parameter `name`, or None."""
    lines = doc.splitlines()
    bare = name.lstrip("*")
    for i, ln in enumerate(lines):
        for rx in (_DOXY, _SPHINX):
            m = rx.search(ln)
            if m and m.group(1) == bare:
                return _continued(lines, i, m.group(2), rx)
    # Google style: `Args:` then indented `name (type): text` entries
    for i, ln in enumerate(lines):
        if _GOOGLE_HEAD.match(ln):
            base = _indent(ln)
            j = i + 1
            while j < len(lines):
                cur = lines[j]
                if cur.strip() and _indent(cur) <= base:
                    break
                m = re.match(r"^\s*\**(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", cur)
                if m and m.group(1) == bare:
                    ind = _indent(cur)
                    body = [m.group(3)]
                    k = j + 1
                    while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > ind):
                        body.append(lines[k].strip())
                        k += 1
                    return " ".join(x for x in body if x).strip() or None
                j += 1
    # NumPy style: `Parameters` / `----------` / `name : type` / indented text
    for i, ln in enumerate(lines):
        if _NUMPY_HEAD.match(ln) and i + 1 < len(lines) and re.fullmatch(r"\s*-{3,}\s*",
                                                                         lines[i + 1]):
            j = i + 2
            while j < len(lines):
                m = re.match(r"^(\s*)(\w+)\s*(?::\s*(.*))?$", lines[j])
                if m and m.group(2) == bare:
                    ind = len(m.group(1))
                    body = [m.group(3) or ""]
                    k = j + 1
                    while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > ind):
                        body.append(lines[k].strip())
                        k += 1
                    return " ".join(x for x in body if x).strip() or None
                if _SECTION.match(lines[j]) and j > i + 2:
                    break
                j += 1
    return None


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip())


def _continued(lines: list[str], i: int, first: str, rx) -> str:
    """A Doxygen/Sphinx entry and its continuation lines (until a blank line or the
    next tag)."""
    body = [first]
    for ln in lines[i + 1:]:
        if not ln.strip() or re.match(r"^\s*[@\\:]\w", ln):
            break
        body.append(ln.strip())
    return " ".join(x for x in body if x).strip()


# ------------------------------------------------------------------ phrases

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|data|const|obj|ref|doc):`~?([^`]*)`")


def normalize(text: str) -> str:
    """For phrase search: roles and inline markup dropped, case and whitespace folded."""
    t = _ROLE.sub(r"\1", text)
    t = t.replace("``", "").replace("`", "").replace("**", "")
    return " ".join(t.split()).casefold()
