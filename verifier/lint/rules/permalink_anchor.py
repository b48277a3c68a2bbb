from __future__ import annotations

import hashlib
import re

from verifier.lint.base import Rule
from verifier.lint.rules._links import definitions_in, file_lines, readable, upstream_links
from verifier.lint.rules._names import is_product_or_upstream, lesson_scope
from verifier.lint.shapes import classify, is_generic_name, names_in_text, words
from verifier.results import Severity

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SKIP_HEADER = re.compile(r"^\s*(?:$|//|/\*|\*|#(?!\s*define)|(?:public|protected|private)\s*:)")
LEAD_IN = 3   # non-blank lines right before the range that may name its subject


def fingerprint(lines: list[str]) -> str:
    """sha256 of the cited lines, each with its whitespace collapsed and stripped,
    joined by newlines: reformatting does not change it, any token change does."""
    norm = "\n".join(" ".join(line.split()) for line in lines)
    return "sha256:" + hashlib.sha256(norm.encode("utf-8")).hexdigest()


def _concept(name: str) -> str:
    return "".join(w.strip("_").lower() for w in words(name))


def concept_hit(name: str, tokens: set[str]) -> str | None:
    """A token whose words contain the name's words in order, case- and
    separator-insensitively: `sample_time` ~ `CalcSampleTime`, `AutoDiff` ~
    `AutoDiffXd`."""
    target = _concept(name)
    if len(target) < 4:
        return None
    for tok in sorted(tokens):
        ws = [w.strip("_").lower() for w in words(tok)]
        for i in range(len(ws)):
            acc = ""
            for j in range(i, len(ws)):
                acc += ws[j]
                if acc == target:
                    return tok
                if len(acc) >= len(target):
                    break
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def enclosing_headers(lines: list[str], start: int) -> list[tuple[int, str]]:
    """The header lines of the blocks around line `start` (1-based), by indentation:
    `class LeafSystem ... {` for a range inside its body."""
    out = []
    first = next((ln for ln in lines[start - 1:] if ln.strip()), "")
    level = _indent(first)
    for no in range(start - 1, 0, -1):
        ln = lines[no - 1]
        if _SKIP_HEADER.match(ln) or _indent(ln) >= level:
            continue
        out.append((no, ln))
        level = _indent(ln)
        if level == 0:
            break
    return out


def lead_in(lines: list[str], start: int) -> list[tuple[int, str]]:
    out = []
    for no in range(start - 1, 0, -1):
        if lines[no - 1].strip():
            out.append((no, lines[no - 1]))
            if len(out) == LEAD_IN:
                break
    return out


def bases_of(name: str, text: str) -> set[str]:
    """Classes `name` derives from, as the file declares it (C++ `class N : public B`,
    pybind `DefineTemplateClassWithDefault<N<T>, B<T>>` / `py::class_<N, B>`, Python
    `class N(B)`)."""
    out: set[str] = set()
    n = re.escape(name)
    for m in re.finditer(rf"\b(?:class|struct)\s+{n}\b[^{{;]*?:\s*([^{{;]+)", text):
        out.update(re.findall(r"(?:public|protected|private)?\s*([A-Za-z_]\w*)\s*(?:<|,|$)",
                              m.group(1)))
    for m in re.finditer(rf"<\s*{n}\s*(?:<[^<>]*>)?\s*,\s*([A-Za-z_][\w:]*)", text):
        out.add(m.group(1).split("::")[-1])
    for m in re.finditer(rf"^\s*class\s+{n}\s*\(([^)]*)\)", text, re.M):
        out.update(b.strip().split(".")[-1] for b in m.group(1).split(",") if b.strip())
    out.discard(name)
    return {b for b in out if b and b not in ("public", "protected", "private", "final")}


class PermalinkAnchor(Rule):
    """For every pinned permalink with a line range into a file available at pinned
    identity, record a fingerprint of the cited lines (sha256 of the
    whitespace-normalised text; info finding) so a pin upgrade can tell moved code
    from changed code. Every symbol the link text names (several: `a / b`, `a` and
    `b`, `mj_makeData/deleteData`, `a、b`), or a code span right before the link,
    must be in the cited range: defined or used there (string literals included:
    port and pybind names), a member of it defined there, the class or function the
    range lies inside (its header, or the statement right before the range), a base
    class whose members the range binds, or the same concept spelled otherwise
    (`sample_time` ~ `CalcSampleTime`, case- and separator-insensitive). Words of the
    label that are no upstream symbol (`MuJoCo 组合`, `OpenGL`) are prose, not
    anchors. A missing name is an error, as is a range that cites only blank
    lines."""

    name = "permalink-anchor"
    code = "VL103"
    severity = "info / error"

    def check(self, ctx, doc, lesson):
        out = []
        scope = None
        for link, gl, up in upstream_links(ctx, lesson):
            if gl.start is None or not readable(ctx, gl, up):
                continue
            end = gl.end or gl.start
            if end < gl.start:
                continue  # permalink-target reports it
            sf, text = ctx.source(up.name, gl.path)
            if text is None:
                continue  # permalink-target reports the unavailable source
            lines = file_lines(ctx, up.name, gl.path, text)
            if end > len(lines):
                continue  # permalink-target reports it
            cited = lines[gl.start - 1:end]
            fp = fingerprint(cited)
            rng = f"L{gl.start}" + (f"-L{end}" if end != gl.start else "")
            if not any(line.strip() for line in cited):
                out.append(self.finding(doc, link.line, f"{gl.path}#{rng} cites only blank "
                                        f"lines at {up.short}", upstream=up.name,
                                        target=link.href, fingerprint=fp, path=gl.path,
                                        start=gl.start, end=end, blob=sf.blob))
                continue
            if scope is None:
                scope = lesson_scope(ctx, doc, lesson)
            idx = ctx.index(up.name)
            found, missing = self._names(ctx, link, idx, scope, gl, end, lines, text)
            data = {"path": gl.path, "start": gl.start, "end": end, "blob": sf.blob,
                    "status": sf.status.value, "names_found": found}
            if missing:
                msg = (f"link text names {', '.join(f'`{m}`' for m in missing)} but "
                       f"{gl.path}#{rng} neither defines nor uses "
                       f"{'it' if len(missing) == 1 else 'them'}")
                out.append(self.finding(doc, link.line, msg, upstream=up.name, target=link.href,
                                        fingerprint=fp, **data, missing=missing))
            else:
                msg = f"{gl.path}#{rng} fingerprint {fp[:19]}…" + (
                    f"; {'; '.join(found)}" if found else "")
                out.append(self.finding(doc, link.line, msg, severity=Severity.INFO,
                                        upstream=up.name, target=link.href, fingerprint=fp,
                                        **data))
        return out

    # ------------------------------------------------------------------ helpers
    def _label_names(self, link, idx, scope) -> list[str]:
        """Names the label asserts: code in it (or right before it) always; a plain
        word only when it is a symbol of the upstream."""
        code = [r for c in link.label_code for r in classify(c)]
        if link.code_before:
            code.extend(classify(link.code_before))
        plain_text = link.text
        for c in link.label_code:
            plain_text = plain_text.replace(c, " ")
        plain = [r for r in names_in_text(plain_text)
                 if not is_product_or_upstream(r.last, scope)
                 and (idx.lookup(r.last) or r.last in idx.aliases)]
        out = []
        for ref in [*code, *plain]:
            root = ref.segments[0]
            if ref.last in out or is_generic_name(ref.last) or scope.external_root(root) \
                    or is_product_or_upstream(ref.last, scope) and not idx.lookup(ref.last):
                continue
            out.append(ref.last)
        return out

    def _names(self, ctx, link, idx, scope, gl, end, lines, text):
        found, missing = [], []
        names = self._label_names(link, idx, scope)
        if not names:
            return found, missing
        cited = lines[gl.start - 1:end]
        defs = definitions_in(ctx, idx, gl.path, gl.start, end)
        tokens = {t for ln in cited for t in _IDENT.findall(ln)}
        for name in names:
            spellings = [name, *([idx.aliases[name]] if name in idx.aliases else [])]
            d = [s for s in defs if s.name in spellings]
            if d:
                found.append(f"`{name}` defined at L{d[0].line}")
                continue
            pat = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, spellings))
                             + r")(?![A-Za-z0-9_])")
            hits = [gl.start + i for i, ln in enumerate(cited) if pat.search(ln)]
            if hits:
                found.append(f"`{name}` used at L{hits[0]}")
                continue
            inner = [s for s in defs if s.parent in spellings]
            if inner:
                found.append(f"cited lines define members of `{name}` "
                             f"(`{inner[0].name}` at L{inner[0].line})")
                continue
            around = [(no, ln) for no, ln in enclosing_headers(lines, gl.start)
                      if pat.search(ln)] or [(no, ln) for no, ln in lead_in(lines, gl.start)
                                             if pat.search(ln)]
            if around:
                found.append(f"the range lies in `{name}` (L{around[0][0]})")
                continue
            near = tokens | {s.parent for s in defs if s.parent} | {
                t for _, ln in enclosing_headers(lines, gl.start) for t in _IDENT.findall(ln)}
            base = sorted(b for b in bases_of(name, text) if b in near)
            if base:
                found.append(f"`{name}` derives from `{base[0]}`, whose members the range "
                             "defines or binds")
                continue
            tok = concept_hit(name, tokens)
            if tok:
                found.append(f"`{name}` as `{tok}`")
                continue
            missing.append(name)
        return found, missing
