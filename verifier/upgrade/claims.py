"""Claims re-run against the new version: the verdicts that change, static and runtime.

Both sides run the same stages the main job runs: `check_claims` (claims-core
contract), then, unless `--runtime none`, `runtime.confirm` with the same mode,
sample and seed (so the same checks run on both sides), once with the project as
pinned and its pinned environments, once with the in-memory project whose pins
point at the new version; its environments are built in the cache like any
pinned one (`verifier env`). A claim is listed when its final verdict changes or
its runtime result changes status (a static verdict that a runtime refutation
overrides, a runtime check that starts failing): both facts are kept, and the
static verdicts and runtime results of both sides beside them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verifier.upgrade.model import CODES, ClaimChange, ClaimsRun, RuntimeSide

if TYPE_CHECKING:
    from verifier.claims.loader import LoadedClaim
    from verifier.project import LessonDoc, Project
    from verifier.results import ClaimResult


@dataclass
class Side:
    """One side's results: final (static merged with runtime) and static, by claim id."""

    final: dict[tuple[str, str, str], "ClaimResult"] = field(default_factory=dict)
    static: dict[tuple[str, str, str], "ClaimResult"] = field(default_factory=dict)
    paths: dict[tuple[str, str, str], str | None] = field(default_factory=dict)
    environments: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    run: ClaimsRun
    changes: list[ClaimChange]
    new: Side


def _key(r: "ClaimResult") -> tuple[str, str, str]:
    return (r.course or "", r.lesson, r.id)


def _rt(r: "ClaimResult | None") -> RuntimeSide | None:
    if r is None or r.runtime is None:
        return None
    return RuntimeSide(status=r.runtime.status, value=r.runtime.value,
                       message=r.runtime.message)


def diff_results(old: list["ClaimResult"], new: list["ClaimResult"],
                 old_static: dict | None = None, new_static: dict | None = None,
                 paths: dict | None = None) -> list[ClaimChange]:
    """Claims whose verdict or runtime status differs (a claim only one side has counts
    as changed)."""
    olds = {_key(r): r for r in old}
    news = {_key(r): r for r in new}
    out: list[ClaimChange] = []
    for key in sorted(set(olds) | set(news)):
        o, n = olds.get(key), news.get(key)
        ov = o.verdict.value if o else "absent"
        nv = n.verdict.value if n else "absent"
        ort, nrt = _rt(o), _rt(n)
        runtime_moved = (ort.status if ort else None) != (nrt.status if nrt else None)
        if ov == nv and not runtime_moved:
            continue
        ref = n or o
        assert ref is not None
        os_, ns_ = (old_static or {}).get(key), (new_static or {}).get(key)
        change = ClaimChange(
            id=ref.id, course=ref.course, lesson=ref.lesson, kind=ref.kind,
            old_verdict=ov, new_verdict=nv, expected=ref.expected,
            old_actual=o.actual if o else None, new_actual=n.actual if n else None,
            old_message=o.message if o else None, new_message=n.message if n else None,
            path=(paths or {}).get(key) or (ref.evidence.path if ref.evidence else None),
            upstream=ref.upstream,
            old_static=os_.verdict.value if os_ else None,
            new_static=ns_.verdict.value if ns_ else None, old_runtime=ort, new_runtime=nrt)
        out.append(change.model_copy(update={"code": CODES[change.category]}))
    return out


def _relabel(results: list["ClaimResult"], stand_in: str | None,
             label: str) -> list["ClaimResult"]:
    """Messages of the new side name its stand-in commit; say what it is instead."""
    if not stand_in:
        return results
    out = []
    for r in results:
        msg = r.message
        if msg:
            msg = msg.replace(stand_in, label).replace(stand_in[:7], label)
        out.append(r.model_copy(update={"message": msg}))
    return out


def _side(project: "Project", lessons: "list[LessonDoc]", upstreams: list[str], runtime: str,
          sample, seed: int, stand_in: str | None = None, label: str = "") -> Side:
    from verifier.claims.check import check_claims

    pairs: list[tuple["LoadedClaim", "ClaimResult"]] = []
    for name in upstreams:
        pairs.extend(check_claims(project, lessons, upstream=name))
    side = Side()
    static = [r for _, r in pairs]
    final = static
    if runtime != "none" and pairs:
        from verifier.runtime import confirm

        final, record = confirm(project, pairs, mode=runtime, sample=sample, seed=seed)
        for env in record.get("environments", []):
            reqs = ", ".join(env.get("requirements", []))
            side.environments.append(f"{env.get('upstream')}: {env.get('env') or 'no env'} "
                                     f"({reqs}; {env.get('checks', 0)} check(s))"
                                     + (f": {env['note']}" if env.get("note") else ""))
            again = env.get("retried")
            if again:
                side.environments.append(
                    f"{env.get('upstream')}: {again['checks']} check(s) timed out and ran "
                    f"again with a longer limit (a cold environment compiles on first use); "
                    f"{again['timed_out_again']} timed out again")
    for lc, r in zip((lc for lc, _ in pairs), _relabel(final, stand_in, label)):
        side.final[_key(r)] = r
        side.paths[_key(r)] = lc.claim.path
    for r in _relabel(static, stand_in, label):
        side.static[_key(r)] = r
    return side


def rerun(old_project: "Project", new_project: "Project", lessons: "list[LessonDoc]",
          upstreams: list[str], *, runtime: str = "none", sample=None, seed: int = 0,
          stand_in: str | None = None, label: str = "") -> Outcome:
    old = _side(old_project, lessons, upstreams, runtime, sample, seed)
    new = _side(new_project, lessons, upstreams, runtime, sample, seed, stand_in, label)
    changes = diff_results(list(old.final.values()), list(new.final.values()),
                           old.static, new.static, {**old.paths, **new.paths})
    rt_changed = sum(1 for c in changes
                     if (c.old_runtime.status if c.old_runtime else None)
                     != (c.new_runtime.status if c.new_runtime else None))
    run = ClaimsRun(
        ran=True, old_total=len(old.final), new_total=len(new.final),
        changed=sum(1 for c in changes if c.category == "claim-changed"),
        unchecked=sum(1 for c in changes if c.category == "claim-unchecked"),
        old_verdicts=dict(sorted(Counter(r.verdict.value for r in old.final.values()).items())),
        new_verdicts=dict(sorted(Counter(r.verdict.value for r in new.final.values()).items())),
        runtime=runtime, runtime_changed=rt_changed,
        environments=[f"old {e}" for e in old.environments]
        + [f"new {e}" for e in new.environments])
    return Outcome(run, changes, new)


__all__ = ["diff_results", "rerun", "Outcome"]
