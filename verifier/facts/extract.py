"""Pick the extractor for a repo path: Python (`ast`), C or C++ (tree-sitter).

`.h` files are C unless they look like C++ (namespaces, templates, classes);
MuJoCo's C++ headers are therefore never parsed as C."""

from __future__ import annotations

from verifier.facts import c, cpp, python
from verifier.facts import treesitter as ts
from verifier.facts.model import FileFacts


class UnsupportedLanguage(Exception):
    pass


def facts_for(path: str, text: str, blob: str | None) -> FileFacts:
    data = text.encode("utf-8")
    lang = ts.language_for(path, data)
    if lang == "python":
        return python.extract(path, data, blob)
    if lang == "c":
        return c.extract(path, data, blob)
    if lang == "cpp":
        return cpp.extract(path, data, blob)
    raise UnsupportedLanguage(f"no extractor for {path!r} (supported: .py .pyi .c .h .cc .cpp .hpp)")
