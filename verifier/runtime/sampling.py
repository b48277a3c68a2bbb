"""Which runtime checks to run: none, a deterministic stratified sample, or all.

Strata are (upstream, claim kind). A sample size is either a count N (spread
over the strata in proportion to their size, every stratum getting at least one
when N allows: largest-remainder apportionment) or a fraction f (ceil(f x size)
per stratum, at least one). Within a stratum, checks are ranked by
sha256("<seed>:<claim id>") and the first k are taken - so the choice depends
only on the seed and the ids, not on the order of files, and adding a claim
does not reshuffle the others.

The record lists every candidate with `sampled` and the reason.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from verifier.errors import UsageError

MODES = ("none", "sample", "all")
DEFAULT_FRACTION = 0.25


@dataclass(frozen=True)
class Candidate:
    gid: str
    upstream: str
    kind: str


def parse_sample(value: str | float | int | None) -> float | int | None:
    """'10' -> 10 (a count), '0.25' or '25%' -> 0.25 (a fraction)."""
    if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
        return _validate(value)
    text = str(value).strip()
    try:
        if text.endswith("%"):
            return _validate(float(text[:-1]) / 100.0)
        if text.isdigit():
            return _validate(int(text))
        return _validate(float(text))
    except ValueError:
        raise UsageError(f"--sample expects a count (e.g. 10) or a fraction (e.g. 0.25 or 25%), "
                         f"got {value!r}") from None


def _validate(v: float | int | None) -> float | int | None:
    if v is None:
        return None
    if isinstance(v, int):
        if v < 1:
            raise UsageError(f"--sample count must be at least 1, got {v}")
        return v
    if not (0 < v <= 1):
        raise UsageError(f"--sample fraction must be in (0, 1], got {v}")
    return float(v)


def _rank(seed: int, gid: str) -> str:
    return hashlib.sha256(f"{seed}:{gid}".encode()).hexdigest()


def _apportion(sizes: dict[tuple[str, str], int], n: int) -> dict[tuple[str, str], int]:
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    keys = sorted(sizes)
    alloc = {k: 0 for k in keys}
    budget = n
    # at least one per stratum while the budget lasts (largest strata first)
    for k in sorted(keys, key=lambda k: (-sizes[k], k)):
        if budget == 0:
            break
        alloc[k] = 1
        budget -= 1
    if budget:
        rest = {k: sizes[k] - alloc[k] for k in keys}
        pool = sum(rest.values())
        quotas = {k: budget * rest[k] / pool for k in keys} if pool else {k: 0 for k in keys}
        for k in keys:
            alloc[k] += math.floor(quotas[k])
        left = n - sum(alloc.values())
        for k in sorted(keys, key=lambda k: (-(quotas[k] - math.floor(quotas[k])), k)):
            if left <= 0:
                break
            if alloc[k] < sizes[k]:
                alloc[k] += 1
                left -= 1
    return alloc


def select(cands: list[Candidate], mode: str = "sample", sample: float | int | None = None,
           seed: int = 0) -> tuple[set[str], dict]:
    """(ids to run, JSON-able record of the choice)."""
    if mode not in MODES:
        raise UsageError(f"--runtime must be one of {', '.join(MODES)}, got {mode!r}")
    sample = _validate(sample) if not isinstance(sample, str) else parse_sample(sample)
    strata: dict[tuple[str, str], list[Candidate]] = {}
    for c in cands:
        strata.setdefault((c.upstream, c.kind), []).append(c)
    sizes = {k: len(v) for k, v in strata.items()}
    if mode == "none":
        alloc = {k: 0 for k in strata}
    elif mode == "all":
        alloc = dict(sizes)
    elif isinstance(sample, int):
        alloc = _apportion(sizes, sample)
    else:
        frac = DEFAULT_FRACTION if sample is None else sample
        alloc = {k: min(sizes[k], max(1, math.ceil(frac * sizes[k]))) for k in strata}
    chosen: set[str] = set()
    entries = []
    strata_rec = []
    for key in sorted(strata):
        members = sorted(strata[key], key=lambda c: (_rank(seed, c.gid), c.gid))
        k = alloc[key]
        label = f"{key[0]}/{key[1]}"
        strata_rec.append({"stratum": label, "upstream": key[0], "kind": key[1],
                           "candidates": sizes[key], "sampled": k})
        for pos, c in enumerate(members):
            take = pos < k
            if take:
                chosen.add(c.gid)
            if mode == "all":
                why = "--runtime all"
            elif mode == "none":
                why = "--runtime none"
            else:
                why = (f"rank {pos + 1} of {sizes[key]} in stratum {label} (seed {seed}); "
                       f"{k} drawn")
            entries.append({"id": c.gid, "upstream": c.upstream, "kind": c.kind,
                            "sampled": take, "reason": why})
    entries.sort(key=lambda e: e["id"])
    record = {"mode": mode, "seed": seed,
              "sample": (None if mode != "sample" else
                         {"count": sample} if isinstance(sample, int) else
                         {"fraction": DEFAULT_FRACTION if sample is None else sample,
                          "default": sample is None}),
              "candidates": len(cands), "sampled": len(chosen),
              "strata": strata_rec, "checks": entries}
    return chosen, record
