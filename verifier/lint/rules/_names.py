"""What a lesson itself says about the names it writes: which are its own (its code,
the course's example files it links), which belong to another library (its imports,
the libraries it links or names right before the name), which are environment
variables, which it says do not exist, and whose commit or version a hex string or
version number is. Shared by the identifier, codeblock, permalink-anchor and
version rules; nothing here looks at upstream sources.
"""

from __future__ import annotations

import ast
import bisect
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from verifier.lint.shapes import PRODUCT_WORDS, norm_word
from verifier.permalinks import parse_github_url

if TYPE_CHECKING:
    from verifier.lessons import Lesson
    from verifier.lint.base import LintContext
    from verifier.project import LessonDoc

PY_LANGS = ("python", "py", "python3", "pycon")
SHELL_LANGS = ("bash", "sh", "shell", "console", "zsh", "powershell", "ps1", "bat", "cmd")

# Libraries lessons use beside the upstreams (lower-cased, separators dropped); their
# names are not upstream identifiers.
EXTERNAL_LIBRARIES = frozenset(norm_word(w) for w in """
numpy scipy jax jaxlib flax optax chex pytorch torch tensorflow tf eigen pybind11 nanobind
opengl egl osmesa glfw vulkan cuda cupy numba vtk lcm gym gymnasium pandas matplotlib
opencv cv2 trimesh open3d usd openusd pxr meshcat rerun viser pyglet imageio pillow
brax dm_control mujoco_warp mujoco-warp mujoco_playground
""".split())

# Conventional import aliases: root of a dotted name -> package
CONVENTIONAL_ALIASES = {"np": "numpy", "jnp": "jax", "jp": "jax", "torch": "torch",
                        "tf": "tensorflow", "plt": "matplotlib", "pd": "pandas",
                        "wp": "warp", "mjx": "mujoco", "cv2": "cv2", "sp": "scipy"}

_NEGATION_BEFORE = re.compile(
    r"(没有名为|没有叫|并没有|没有|并无|不存在|并不提供|不提供|缺少|不再有|不再提供|已移除|"
    r"已删除|移除了|删除了|there is no|there's no|there are no|no such|has no|have no|"
    r"does not have|doesn't have|no longer has|no longer provides|removed|without|"
    # contrast: "入口是 A，不是 `B`", "A 而非 `B`", "A rather than `B`", "A, not `B`"
    r"而不是|不是|并非|而非|rather than|instead of|^\s*(?:but\s+)?not)"
    r"\s*(?:任何|名为|叫做?|的|a|an|the|any)?\s*$", re.I)
_NEGATION_AFTER = re.compile(
    r"^\s*(?:(?:在|于)[^，,。；;]{0,24})?(?:也|亦|都|均|同样|根本|其实|实际上|also\s+|too\s+)?"
    r"(?:并不存在|不存在|并不提供|不提供|并没有|没有|已被?移除|"
    r"已被?删除|does not exist|doesn't exist|is not defined|is not provided|is absent|"
    r"is gone|was removed|has been removed|no longer exists)", re.I)
# right before a name: it is another library's ("外部 `x`", "third-party `x`") or the
# reader's own ("自定义字段位于 `State.my_data`", "a custom attribute `x`")
_NOT_UPSTREAM_BEFORE = re.compile(
    r"(?:外部|第三方|external|third[- ]party|自定义|用户定义|用户自定义|custom|user[- ]defined|your own)"
    r"\s*(?:的)?\s*(?:字段|属性|函数|类|模块|变量|名字|名称|库|包|field|attribute|function|class|module|"
    r"variable|name|library|package)?\s*(?:位于|为|是|叫|名为|named|called)?\s*$", re.I)
_EXAMPLE_WORDS = re.compile(r"示例|例子|范例|样例|脚本|\bexamples?\b|\bscripts?\b", re.I)
_CLAUSE_END = re.compile(r"[。；;！？!?，,：:]")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*")
_PRODUCT_VERSION = re.compile(r"(?<![\w-])([A-Z][A-Za-z0-9]*[A-Za-z])[\s*_`]*v?\d+\.\d+")
ENV_VAR = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


@dataclass(frozen=True)
class SpanContext:
    before: str          # text of the span's clause before it
    after: str           # text of the span's clause after it
    sentence: str        # the whole sentence (or table row)
    block: int = -1


@dataclass
class LessonScope:
    """What one lesson says about the names it writes."""

    local: set[str] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)      # import root -> package
    external_words: set[str] = field(default_factory=set)      # normalised library names
    external_names: set[str] = field(default_factory=set)      # names imported from them
    env_vars: set[str] = field(default_factory=set)
    owners: dict[str, str] = field(default_factory=dict)       # normalised word -> upstream
    packages: dict[str, str] = field(default_factory=dict)     # import name -> upstream
    mentioned: set[str] = field(default_factory=set)           # upstreams the text names
    upstream_example_blocks: set[int] = field(default_factory=set)  # blocks citing one
    spans: list[SpanContext] = field(default_factory=list)     # per lesson.code_spans[i]

    # ------------------------------------------------------------------ questions
    def external_root(self, root: str) -> bool:
        """`np`, `jax`, `ast` (imported), a name imported from a non-upstream package."""
        pkg = self.aliases.get(root) or CONVENTIONAL_ALIASES.get(root)
        if pkg is not None:
            top = pkg.split(".")[0]
            return top not in self.packages and (
                root in self.aliases or norm_word(top) in self.external_words)
        if root in self.packages:
            return False
        return norm_word(root) in self.external_words or root in self.external_names

    def root_upstream(self, root: str) -> str | None:
        """The pinned upstream an import root names (`wp` -> warp, `pydrake` -> drake)."""
        pkg = self.aliases.get(root, CONVENTIONAL_ALIASES.get(root, root))
        return self.packages.get(pkg.split(".")[0])

    def owner(self, before: str) -> tuple[str, str] | None:
        """The nearest owner named before a name in its clause: ('upstream', name) or
        ('external', word). `MuJoCo-Warp 3.12.0 `x`` -> external; `Newton 的 `y`` ->
        newton."""
        versioned = {m.start(1) for m in _PRODUCT_VERSION.finditer(before)}
        for m in reversed(list(_TOKEN.finditer(before))):
            tok = m.group(0).rstrip("+-_.")
            w = norm_word(re.sub(r"\d[\d.]*$", "", tok) or tok)
            if not w:
                continue
            if w in self.owners:
                return ("upstream", self.owners[w])
            if w in self.external_words or tok in self.external_names:
                return ("external", tok)
            parts = [norm_word(p) for p in re.split(r"[-_]", tok) if p]
            if len(parts) > 1 and any(p in self.owners for p in parts):
                return ("external", tok)   # a compound product: `MuJoCo-Warp`, `Drake-ROS`
            if m.start() in versioned:
                return ("external", tok)   # a versioned product: `OtherLib 0.7`
        return None

    def negated(self, i: int) -> bool:
        """The lesson says the name of span i does not exist ("没有 `X`", "`X` 不存在",
        "there is no `X`")."""
        c = self.spans[i]
        return bool(_NEGATION_BEFORE.search(c.before[-24:]) or _NEGATION_AFTER.match(c.after))

    def not_upstream(self, i: int) -> bool:
        """The words right before span i say the name is another library's or the
        reader's own (`外部 `grad_output``, `自定义字段位于 `State.my_data``)."""
        return bool(_NOT_UPSTREAM_BEFORE.search(self.spans[i].before[-24:]))

    def about_example(self, i: int) -> bool:
        """The sentence of span i speaks of the lesson's or course's own example code
        (not of an upstream example it cites)."""
        return bool(_EXAMPLE_WORDS.search(self.spans[i].sentence)) \
            and self.spans[i].block not in self.upstream_example_blocks


# --------------------------------------------------------------------------- build


def memo(ctx: "LintContext") -> dict:
    """Per-run memo the lint rules share (on the context: one run, one memo)."""
    m = getattr(ctx, "_rule_memo", None)
    if m is None:
        m = {}
        setattr(ctx, "_rule_memo", m)
    return m


def lesson_scope(ctx: "LintContext", doc: "LessonDoc", lesson: "Lesson") -> LessonScope:
    key = ("scope", doc.course, doc.path, hash(doc.text))
    cache = memo(ctx)
    if key not in cache:
        cache[key] = _build(ctx, doc, lesson)
    return cache[key]


def _build(ctx, doc, lesson) -> LessonScope:
    sc = LessonScope()
    pins = ctx.project.pins
    for up in pins.upstream.values():
        for w in (up.name, up.slug.split("/")[-1], f"py{up.name}"):
            sc.owners.setdefault(norm_word(w), up.name)
            sc.packages.setdefault(w.lower(), up.name)
        for wh in up.wheel:
            for rule in wh.map:
                top = rule.wheel.strip("/").split("/")[0]
                if top:
                    sc.packages.setdefault(top, up.name)
    sc.external_words = set(EXTERNAL_LIBRARIES)
    # libraries the lesson links on GitHub without pinning them (jax-ml/jax, mujoco_warp)
    for link in lesson.links:
        gl = parse_github_url(link.href)
        if gl is not None and pins.by_slug(gl.slug) is not None and (
                "example" in (gl.path or "").lower() or _EXAMPLE_WORDS.search(link.text)):
            sc.upstream_example_blocks.add(link.block)   # an upstream's example is cited here
        if gl is not None and pins.by_slug(gl.slug) is None:
            name = gl.slug.split("/")[-1]
            if norm_word(name) not in sc.owners:
                sc.external_words.add(norm_word(name))
    for block in lesson.code_blocks:
        if block.lang in PY_LANGS:
            _python_block(block.text, sc)
        elif block.lang in SHELL_LANGS:
            sc.env_vars.update(re.findall(r"(?<![\w$])([A-Z][A-Z0-9_]*)=", block.text))
    for path in _linked_code_files(doc, lesson):
        try:
            _python_block(path.read_text(encoding="utf-8"), sc, imports=False)
        except (OSError, UnicodeDecodeError):
            continue
    _env_vars(doc.text, lesson, sc)
    for s in lesson.sentences:
        for m in _TOKEN.finditer(s.text):
            up = sc.owners.get(norm_word(re.sub(r"\d[\d.]*$", "", m.group(0)) or m.group(0)))
            if up:
                sc.mentioned.add(up)
    sc.spans = _span_contexts(doc.text, lesson)
    return sc


def _python_block(text: str, sc: LessonScope, imports: bool = True) -> None:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            sc.local.add(node.name)
        elif isinstance(node, ast.arg):
            sc.local.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            sc.local.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            sc.local.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "getenv", "setdefault", "pop") and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                and "environ" in ast.unparse(node.func.value) + node.func.attr:
            sc.env_vars.add(node.args[0].value)
        elif isinstance(node, ast.Subscript) and "environ" in ast.unparse(node.value) \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            sc.env_vars.add(node.slice.value)
        elif imports and isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                sc.aliases[a.asname or top] = a.name if a.asname else top
                if top not in sc.packages:
                    sc.external_words.add(norm_word(top))
        elif imports and isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            top = node.module.split(".")[0]
            for a in node.names:
                if a.name == "*":
                    continue
                sc.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
                if top not in sc.packages:
                    sc.external_names.add(a.asname or a.name)
                    sc.external_words.add(norm_word(top))
    if imports:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id in sc.aliases and sc.external_root(node.value.id):
                sc.external_names.add(node.attr)   # `jax.vmap(...)`: `vmap` is JAX's


def _linked_code_files(doc, lesson) -> list[Path]:
    """Python files of the course repository the lesson links relatively (its own
    examples), where the course copy has them."""
    root = doc.file.resolve()
    for _ in PurePosixPath(doc.path).parts:
        root = root.parent
    here = PurePosixPath(doc.path).parent
    out = []
    for link in lesson.links:
        parts = urlsplit(link.href.strip())
        if parts.scheme or parts.netloc or not parts.path.endswith(".py"):
            continue
        norm: list[str] = []
        for p in (here / unquote(parts.path)).parts:
            if p == "..":
                if not norm:
                    break
                norm.pop()
            elif p != ".":
                norm.append(p)
        else:
            f = root.joinpath(*norm)
            if f.is_file() and not f.is_symlink():
                out.append(f)
    return sorted(set(out))


def _env_vars(text: str, lesson, sc: LessonScope) -> None:
    for m in re.finditer(r"(?<![\w$])\$\{?([A-Z][A-Z0-9_]*)\}?|(?<![\w.])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=\S",
                         text):
        sc.env_vars.add(m.group(1) or m.group(2))
    for m in re.finditer(r"getenv\(\s*[\"']([A-Za-z_][A-Za-z0-9_]*)", text):
        sc.env_vars.add(m.group(1))
    if not sc.env_vars:
        return
    # names written like the known ones in the same sentence (`A_NUM_THREADS` ... `B_NUM_THREADS`)
    for s in lesson.sentences:
        names = re.findall(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+", s.text)
        if any(n in sc.env_vars for n in names):
            sc.env_vars.update(n for n in names if ENV_VAR.match(n))


# how far a span's clause is read on either side: the longest clause before or after a
# span in the 79 real lessons is 345 characters; without a bound, a line of tens of
# thousands of spans cost time and memory quadratic in its length (a 200 KB line of
# `` `a `` took 69 s and 5 GB)
CONTEXT_CHARS = 2000


def _span_contexts(text: str, lesson) -> list[SpanContext]:
    lines = text.split("\n")
    by_block: dict[int, list] = {}
    for s in lesson.sentences:
        by_block.setdefault(s.block, []).append(s)
    cursors: dict[int, tuple[int, int]] = {}
    rows: dict[int, str] = {}
    clause_marks: dict[int, list[int]] = {}
    out = []
    for span in lesson.code_spans:
        raw = lines[span.line - 1] if 0 < span.line <= len(lines) else ""
        if raw.lstrip().startswith("|"):
            # a table row: the row is the sentence; the cells before the span lead in
            row = rows.get(span.line)
            if row is None:
                row = rows[span.line] = raw.replace("`", "")
            pos = row.find(span.text)
            pos = pos if pos >= 0 else len(row)
            before = row[max(0, pos - CONTEXT_CHARS):pos]
            end = pos + len(span.text)
            after = row[end:end + CONTEXT_CHARS]
            out.append(SpanContext(before=before, after=after.split("|")[0], sentence=row,
                                   block=span.block))
            continue
        sents = by_block.get(span.block, [])
        si, off = cursors.get(span.block, (0, 0))
        found = None
        for k in range(si, len(sents)):
            pos = sents[k].text.find(span.text, off if k == si else 0)
            if pos >= 0:
                found = (k, pos)
                break
        if found is None:
            out.append(SpanContext(before="", after="", sentence="", block=span.block))
            continue
        k, pos = found
        end = pos + len(span.text)
        cursors[span.block] = (k, end)
        sent = sents[k].text
        marks = clause_marks.get(id(sents[k]))
        if marks is None:             # where the sentence's clauses end (one-character marks)
            marks = clause_marks[id(sents[k])] = [m.start() for m in _CLAUSE_END.finditer(sent)]
        start = max(0, pos - CONTEXT_CHARS)
        i = bisect.bisect_left(marks, pos) - 1          # the last mark before the span
        cut = marks[i] + 1 if i >= 0 and marks[i] >= start else start
        j = bisect.bisect_left(marks, end)              # the first mark after it
        stop = marks[j] if j < len(marks) and marks[j] < end + CONTEXT_CHARS \
            else end + CONTEXT_CHARS
        out.append(SpanContext(before=sent[cut:pos], after=sent[end:stop], sentence=sent,
                               block=span.block))
    return out


def is_product_or_upstream(word: str, scope: LessonScope) -> bool:
    w = norm_word(word)
    return w in PRODUCT_WORDS or w in scope.owners or w in scope.external_words


__all__ = ["LessonScope", "SpanContext", "lesson_scope", "is_product_or_upstream", "ENV_VAR"]
