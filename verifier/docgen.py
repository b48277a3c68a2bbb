"""Documentation generated from the registries (`verifier docs --write | --check`).

- `docs/claims/<kind>.md`: `# \\`<name>\\` (<code>)` and the kind module's docstring
  (a summary paragraph, then the sections `DOC_HEADINGS`).
- the kinds table of `docs/claims/README.md` and the rules table of `docs/lint.md`:
  the text between `<!-- generated: NAME -->` and `<!-- end generated -->`.

A test (`tests/test_registries.py`) fails when a file is not what this renders, so the
docs cannot drift from the code.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from verifier.claims.kinds import REGISTRY as KINDS
from verifier.claims.kinds.base import DOC_HEADINGS, ClaimKind
from verifier.errors import UsageError

BEGIN = "<!-- generated: {name} (verifier docs --write) -->"
END = "<!-- end generated -->"


def is_builtin(cls: type) -> bool:
    """A kind shipped with verifier (tests register throw-away kinds elsewhere)."""
    return cls.__module__.startswith("verifier.claims.kinds.")


def kind_doc(cls: type[ClaimKind]) -> str:
    return inspect.cleandoc(cls.__doc__ or "")


def kind_summary(cls: type[ClaimKind]) -> str:
    return " ".join(kind_doc(cls).split("\n\n", 1)[0].split())


def doc_problems(cls: type[ClaimKind]) -> list[str]:
    """What the kind's documentation lacks (empty when complete)."""
    doc = kind_doc(cls)
    where = f"{cls.__module__}.{cls.__qualname__}"
    if not doc:
        return [f"{where}: no docstring (set `__doc__ = __doc__` to use the module's)"]
    out = []
    if doc.lstrip().startswith("#"):
        out.append(f"{where}: the docstring must start with a summary paragraph")
    headings = re.findall(r"^## (.+?)\s*$", doc, re.M)
    for h in DOC_HEADINGS:
        if h not in headings:
            out.append(f"{where}: no '## {h}' section")
    if "```toml" not in doc:
        out.append(f"{where}: no ```toml example")
    return out


def kind_page(cls: type[ClaimKind]) -> str:
    return f"# `{cls.name}` ({cls.code})\n\n{kind_doc(cls)}\n"


def kinds_table() -> str:
    rows = ["| kind | code | checks | doc |", "|---|---|---|---|"]
    for name in KINDS.names():
        cls = KINDS[name]
        if is_builtin(cls):
            rows.append(f"| `{name}` | {cls.code} | {kind_summary(cls).rstrip('.')} | "
                        f"[{name}.md]({name}.md) |")
    return "\n".join(rows)


def rules_table() -> str:
    from verifier.lint import rule_table

    rows = ["| code | rule | severity | checks |", "|---|---|---|---|"]
    for r in rule_table():
        rows.append(f"| {r['code']} | {r['name']} | {r['severity']} | "
                    f"{r['doc'].replace('|', '&#124;')} |")
    return "\n".join(rows)


def _splice(text: str, name: str, body: str, path: Path) -> str:
    begin = BEGIN.format(name=name)
    i, j = text.find(begin), text.find(END, text.find(begin) + 1)
    if i < 0 or j < 0:
        raise UsageError(f"{path}: no `{begin}` ... `{END}` block to regenerate")
    return text[:i + len(begin)] + "\n" + body + "\n" + text[j:]


def render_docs(root: Path) -> dict[Path, str]:
    """Every generated file under `root` (the project directory) with its content."""
    docs = root / "docs"
    if not (docs / "claims" / "README.md").is_file() or not (docs / "lint.md").is_file():
        raise UsageError(f"{root}: no docs/claims/README.md and docs/lint.md here (run from a "
                         "verifier checkout, or pass --root)")
    out: dict[Path, str] = {}
    for name in KINDS.names():
        cls = KINDS[name]
        if is_builtin(cls):
            out[docs / "claims" / f"{name}.md"] = kind_page(cls)
    readme = docs / "claims" / "README.md"
    out[readme] = _splice(readme.read_text(encoding="utf-8"), "kinds", kinds_table(), readme)
    lint = docs / "lint.md"
    out[lint] = _splice(lint.read_text(encoding="utf-8"), "rules", rules_table(), lint)
    return out


def stale_docs(root: Path) -> list[Path]:
    """Generated files whose content is not what the registries render."""
    stale = []
    for path, text in render_docs(root).items():
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            stale.append(path)
    return stale


def write_docs(root: Path) -> list[Path]:
    from verifier.safewrite import Area

    area = Area.edit(root, "the project's generated docs")   # `docs --write` edits them
    written = []
    for path in stale_docs(root):
        area.write(path, render_docs(root)[path])
        written.append(path)
    return written
