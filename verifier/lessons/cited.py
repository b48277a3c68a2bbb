"""The files a lesson cites at pinned upstreams, kept per lesson text.

`check` and `verify` name, in their records, the files each lesson cites; that list
needs only the lesson's GitHub links, yet building every lesson's `Link` models from
the lesson cache cost 0.19 s of a warm `check` of the shared course here. The list
itself is a few pairs: it is kept in the fact cache (`facts/cited/`), keyed by the
blob of the lesson's text, the code version of this module's import closure (the
link parser, the permalink parser, `pins.py`'s slug lookup) and the upstreams of
pins.toml (name and repository slug: the only part of the pins the answer reads).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.codeversion import code_version
from verifier.lessons import github_links

if TYPE_CHECKING:
    from collections.abc import Callable

    from verifier.cache import Store
    from verifier.lessons.model import Link
    from verifier.pins import Pins

EXTRACTOR = "cited"


def cited_in(links: "list[Link]", pins: "Pins") -> list[tuple[str, str]]:
    """(upstream, path) of every blob/raw permalink at a pinned upstream, in link order
    (a hostile path, e.g. with `..`, names no file)."""
    cited = []
    for _ref, link in github_links(links):
        up = pins.by_slug(link.slug)
        if up is None or link.kind not in ("blob", "raw", "blame") or not link.path:
            continue
        if link.hostile_path:
            continue
        cited.append((up.name, link.path))
    return cited


def _query(pins: "Pins") -> dict:
    return {"upstreams": sorted([u.name, u.slug.lower()] for u in pins.upstream.values())}


def cached_cited(blob: str, store: "Store", pins: "Pins",
                 build: "Callable[[], list[tuple[str, str]]]") -> list[tuple[str, str]]:
    """What the lesson text of blob `blob` cites: from the fact cache, else `build()`
    (then stored)."""
    from verifier.facts.cache import fact_cache

    return fact_cache(store).get_or_build(
        EXTRACTOR, code_version(__name__, "verifier.pins"), blob, build, _query(pins),
        load=_pairs, dump=lambda cited: [list(c) for c in cited])


def _pairs(plain: list) -> list[tuple[str, str]]:
    if not isinstance(plain, list) or not all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)
            for c in plain):
        raise ValueError("not a list of (upstream, path)")
    return [(u, p) for u, p in plain]
