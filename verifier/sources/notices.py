"""The source layer's notices: what a run must say once about identity (locks that
cannot prove it, needed files without a pin blob, a commit the upstream lacks) and about
the cache (repairs, losses), as data for every command's summary and the record."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from verifier.cache import Store
from verifier.pins import Lock
from verifier.sources.models import Notice, Status


def collect(*, general: Iterable[Notice], states: Mapping[str, Any], lock: Lock, store: Store,
            held: Callable[[str], bool], vanished: Iterable[tuple[str, str]]) -> list[Notice]:
    """What the run must say about identity and the cache, in a deterministic order.
    `states`: upstream -> the layer's per-run state (notices, tree, gaps, wheels);
    `held(blob)`: the run still holds those bytes."""
    out = list(general)
    vanished = set(vanished)
    for name in sorted(states):
        st = states[name]
        up = st.up
        seen: set[tuple[str, str]] = set()
        for n in st.notices:
            if (n.code, n.message) not in seen:
                seen.add((n.code, n.message))
                out.append(n)
        problem = lock.problem(up)
        if st.tree is None and st.gaps:
            release = sorted(p for p, s in st.gaps.items() if s is Status.RELEASE)
            lost = sorted(p for p, s in st.gaps.items() if s is not Status.RELEASE)
            what = (f"{len(st.gaps)} needed file(s) of {name} have no pin blob (pins.lock "
                    f"does not list them and no git tree at {up.short} is reachable): "
                    f"{len(release)} served as `release` from the pinned wheel, "
                    f"{len(lost)} unavailable")
            if problem:
                out.append(Notice(severity="warning", code=problem[0], upstream=name,
                                  message=f"{problem[1]}; {what}", paths=sorted(st.gaps)))
            else:
                out.append(Notice(severity="warning", code="lock-gap", upstream=name,
                                  message=what + "; `verifier lock` where git can reach "
                                  "the pin records them", paths=sorted(st.gaps)))
        elif problem and problem[0] != "lock-missing" and (st.tree is None
                                                           or problem[0] != "lock-empty"):
            out.append(Notice(severity="warning" if st.tree is None else "info",
                              code=problem[0], upstream=name, message=problem[1]))
        for w in st.wheels:
            for ev in dict.fromkeys(w.events):
                out.append(Notice(severity="info", code="wheel-repaired", upstream=name,
                                  message=ev))
    corrupt = sorted(set(store.corrupt))
    if corrupt:
        repaired = [b for b in corrupt if held(b) or store.has_blob(b)]
        lost = [b for b in corrupt if b not in repaired]
        if repaired:
            out.append(Notice(severity="info", code="cache-repaired",
                              message=f"repaired {len(repaired)} corrupt cache entr"
                                      f"{'y' if len(repaired) == 1 else 'ies'} (acquired "
                                      "again at pinned identity)", paths=repaired))
        if lost:
            out.append(Notice(severity="warning", code="cache-corrupt",
                              message=f"removed {len(lost)} corrupt cache entr"
                                      f"{'y' if len(lost) == 1 else 'ies'} that could not "
                                      "be acquired again in this run", paths=lost))
    if vanished:
        paths = sorted(f"{u}:{p}" for u, p in vanished)
        out.append(Notice(severity="warning", code="cache-vanished",
                          message=f"{len(paths)} file(s) vanished from the cache during this "
                                  "run (a concurrent `cache clean`?) and could not be "
                                  "acquired again", paths=paths))
    return out
