"""Memoised suspects: a lesson is drafted and judged again only when something its
suspects depend on changed.

An entry is stored in the fact cache (`facts/suspect/`, signed plain data) keyed by the
blob of the lesson's text, the code version of this stage (the import closure of
`verifier.suspect`: the drafter, the proposers, the claim kinds), and a query: the
lesson's course and path, the fragments of the claims bound to it (they decide which
sentences are uncovered) and the names and `says` words each checks (they decide which
statements of a covered sentence are drafted), and for each upstream of the lesson what decides which of
its files are served (`verifier/draft/index.py` `_key`: the pin, the lock's blobs, the
providers, mirrors and wheels). The value is the lesson's suspects before suppressions
and the files the judge read, as (upstream, path, blob, status, provider); a hit is
used only when every one of them still resolves exactly so. A lesson whose judging
crashed is never memoised; `VERIFIER_FACT_CACHE=0` turns the memo off with the rest
of the fact cache.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from verifier.claims.says import spans_of
from verifier.codeversion import code_version
from verifier.facts.cache import fact_cache
from verifier.results import Finding

if TYPE_CHECKING:
    from verifier.claims.loader import LoadedClaim
    from verifier.project import LessonDoc, Project

EXTRACTOR = "suspect"


class Memo:
    def __init__(self, project: "Project") -> None:
        self.project = project
        self.fc = fact_cache(project.store)
        self.version = code_version("verifier.suspect.judge", "verifier.draft.engine", __name__)
        self.hits = self.misses = 0

    def _query(self, lesson: "LessonDoc", claims: "list[LoadedClaim]") -> dict:
        from verifier.draft.index import _key

        ups = [u for u in lesson.upstreams if u in self.project.pins.upstream]
        # the fragments decide which sentences are covered; the names and words the
        # claims check decide which statements of a covered sentence are still drafted
        return {"course": lesson.course, "lesson": lesson.path,
                "fragments": sorted({lc.claim.fragment for lc in claims if lc.claim.fragment}),
                "checked": sorted({json.dumps([lc.claim.symbol, (lc.claim.options or {}).get(
                    "param"), [sp.text for sp in spans_of(lc.claim.says)]], default=str)
                    for lc in claims}),
                "upstreams": {u: _key(self.project, u) for u in ups}}

    def suspects(self, lesson: "LessonDoc", claims: "list[LoadedClaim]",
                 compute: Callable[[], tuple[list[Finding], list]]) -> list[Finding]:
        from verifier.claims.memo import deps_current

        if not self.fc.enabled:
            return compute()[0]
        blob = hashlib.sha1(lesson.text.encode("utf-8")).hexdigest()
        query = self._query(lesson, claims)
        hit = self.fc.get(EXTRACTOR, self.version, blob, query)
        if isinstance(hit, dict) and isinstance(hit.get("findings"), list):
            deps = [tuple(d) for d in hit.get("deps", [])]
            if deps_current(self.project.sources, deps, needed=False) is not None:
                try:
                    found = [Finding.model_validate(f) for f in hit["findings"]]
                except ValueError:
                    found = None
                if found is not None:
                    self.hits += 1
                    return found
        self.misses += 1
        found, deps = compute()
        try:
            self.fc.put(EXTRACTOR, self.version, blob,
                        {"findings": [f.model_dump(mode="json") for f in found],
                         "deps": deps}, query)
        except TypeError:
            pass            # not plain data: simply not memoised
        return found
