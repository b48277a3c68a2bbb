"""Pick the extractor for a repo path: Python (`ast`), C or C++ (tree-sitter),
and cache the record by blob.

`.h` files are C unless they look like C++ (namespaces, templates, classes);
MuJoCo's C++ headers are therefore never parsed as C.

Caching: a record is a pure function of (path, bytes, extractor code), so it is
stored once per blob in the fact cache (`facts/cache.py`, extractor
`filefacts`, query `{"path": ...}`) in its plain form (`FileFacts.to_plain`),
and kept per process once loaded. Lint's symbol index (`facts/parallel.py`) and
the claim kinds (`claims/kinds/_lookup.py`) share these entries.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from verifier.facts import c, cpp, python
from verifier.facts import treesitter as ts
from verifier.facts.model import FileFacts

if TYPE_CHECKING:
    from verifier.cache import Store

FACTS = "filefacts"        # the fact-cache extractor name of FileFacts records
MEMO_MAX = 4096


class UnsupportedLanguage(Exception):
    pass


def language_of(path: str, data: bytes) -> str | None:
    return ts.language_for(path, data)


def extract_bytes(path: str, data: bytes, blob: str | None) -> FileFacts:
    """The record of one file's bytes (no caching)."""
    lang = ts.language_for(path, data)
    if lang == "python":
        return python.extract(path, data, blob)
    if lang == "c":
        return c.extract(path, data, blob)
    if lang == "cpp":
        return cpp.extract(path, data, blob)
    raise UnsupportedLanguage(f"no extractor for {path!r} (supported: .py .pyi .c .h .cc .cpp .hpp)")


def facts_for(path: str, text: str, blob: str | None) -> FileFacts:
    """The record of a file's text (no caching: see `cached`)."""
    return extract_bytes(path, text.encode("utf-8"), blob)


_MEMOS: "weakref.WeakKeyDictionary[Store, dict[tuple[str, str], FileFacts]]" = \
    weakref.WeakKeyDictionary()


def cached(store: "Store", path: str, blob: str | None,
           build: Callable[[], FileFacts]) -> FileFacts:
    """The record of a file: kept per store object once loaded (one run), else
    from the persistent fact cache (`file_facts`: plain form, keyed by this
    module's code version), else `build()` (then stored). Exceptions from `build`
    propagate."""
    memo = _MEMOS.setdefault(store, {})
    if blob and (blob, path) in memo:
        return memo[(blob, path)]
    facts = file_facts(store, path, blob, lambda: build())   # defined here: this module's key
    if blob:
        if len(memo) >= MEMO_MAX:
            memo.clear()
        memo[(blob, path)] = facts
    return facts


def file_facts(store: "Store", path: str, blob: str | None, build: Callable[[], FileFacts]
               ) -> FileFacts:
    """`FileFacts` of a file once per (blob, path, extractor version): a new or edited
    claim about an already parsed file does not parse it again. The version is the code
    version of the module `build` is defined in (with the model's): `cached` here, the
    key `facts.parallel` uses too, or the draft index's own. Exceptions from `build`
    propagate."""
    from verifier.codeversion import code_version
    from verifier.facts.cache import fact_cache

    if not blob:
        return build()
    fc = fact_cache(store)
    version = code_version(getattr(build, "__module__", None) or __name__, "verifier.facts.model")
    query = {"path": path}
    hit = fc.get("filefacts", version, blob, query)
    if hit is not None:
        try:
            return FileFacts.from_plain(hit)
        except (TypeError, ValueError, KeyError, IndexError):
            fc.stats.corrupt += 1        # signed but not a FileFacts: recompute
    value = build()
    fc.put("filefacts", version, blob, value.to_plain(), query)
    return value
