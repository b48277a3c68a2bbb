"""Which wheels serve an upstream's files at the new version: the wheel map of the
new release, following its packaging changes.

Each `map` rule of the pinned wheels is given a *home* at the new version: the
distribution that holds the files it mapped. The candidates are the pinned
wheels at the new version (`mujoco==4.0.0`) and, transitively, the exact pins
of their `Requires-Dist` (`mujoco-core==4.0.0`, `mujoco-studio==4.0.0`; extras
and markers that do not hold here are not followed). A rule's home is the
candidate holding most of the repository paths the rule mapped at the old pin
(ties: the pinned wheel itself, then the order met). A rule no candidate holds
anything under is *lost*: its paths are unassessed at the new version (the
wheel has no release at that version, or nothing of it moved anywhere), never
called deleted.

Files the lessons cite that no rule maps at the old pin may be found in the new
release under one prefix (`mujoco/doc/XMLreference.rst` for `doc/XMLreference.rst`):
a rule is proposed for them when at least two cited paths agree on it and at
least one member is byte-identical (same git blob) to the path at the old pin,
which shows that the release copies those files verbatim.

The plan only lists archives (`WheelSource.listing`, `requires_dist`); the new
project's source layer then indexes the planned wheels as usual."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verifier.pins import PathMap, Upstream, Wheel
from verifier.sources.wheel import WheelSource

if TYPE_CHECKING:
    from verifier.project import Project

MAX_CANDIDATES = 12
MIN_DISCOVERED = 2


def _canonical(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def exact_pins(requires: list[str]) -> list[str]:
    """`name==version` of every Requires-Dist entry that is an exact pin and applies
    without extras (markers evaluated for this interpreter)."""
    from packaging.requirements import InvalidRequirement, Requirement

    out = []
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is not None:
            try:
                if not req.marker.evaluate({"extra": ""}):
                    continue
            except Exception:  # noqa: BLE001 - an undefined marker variable: not followed
                continue
        specs = list(req.specifier)
        if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
            out.append(f"{req.name}=={specs[0].version}")
    return out


@dataclass(frozen=True)
class RuleHome:
    """Where one map rule of a pinned wheel is served at the new version."""

    wheel: str                     # the pinned wheel's requirement (old version)
    rule: PathMap
    holder: str | None             # the new requirement holding it; None: lost
    old_paths: int                 # repo paths the rule mapped at the old pin
    held: int                      # of those, how many the holder maps at the new version
    members: int                   # members the holder has under the rule


@dataclass(frozen=True)
class LostWheel:
    requirement: str               # the pinned wheel at the new version (`mujoco-mjx==4.0.0`)
    reason: str
    rules: tuple[PathMap, ...]


@dataclass
class WheelPlan:
    wheels: list[Wheel]                                  # the new version's wheel entries
    homes: list[RuleHome] = field(default_factory=list)
    lost: list[LostWheel] = field(default_factory=list)
    discovered: list[tuple[str, PathMap, str]] = field(default_factory=list)  # (req, rule, why)
    followed: list[str] = field(default_factory=list)    # what Requires-Dist led to, said
    candidates: dict[str, WheelSource] = field(default_factory=dict)
    lost_rules: list[tuple[PathMap, LostWheel]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """The map differs from the pinned one beyond the version bump."""
        return bool(self.lost or self.discovered
                    or any(h.holder and _canonical(h.holder.split("==")[0])
                           != _canonical(h.wheel.split("==")[0]) for h in self.homes))

    def lost_reason(self, path: str) -> str | None:
        """Why `path` (a repo path a pinned wheel mapped) is unassessed, if it is."""
        for rule, lw in self.lost_rules:
            member = rule.to_wheel(path)
            if member is not None and rule.to_repo(member) == path:
                return lw.reason
        return None

    def covers(self, path: str) -> bool:
        """Some new wheel entry has a rule standing for `path` (its listing is authoritative
        for it: absent there means not in the release)."""
        for w in self.wheels:
            for rule in w.map:
                member = rule.to_wheel(path)
                if member is not None and w.to_repo(member) == path:
                    return True
        return False


def _rule_of(rules: list[PathMap], member: str) -> int | None:
    for i, r in enumerate(rules):
        if r.to_repo(member) is not None:
            return i
    return None


def plan_wheels(project: "Project", up: Upstream, bumped: list[Wheel], *,
                cited: set[str] = frozenset(),  # type: ignore[assignment]
                old_blob: Callable[[str], str | None] = lambda p: None) -> WheelPlan:
    """The wheel entries of the new version. `bumped`: the pinned wheels with their
    requirements at the new version, in pins.toml order (same order as `up.wheel`)."""
    cfg = project.config

    sdist = {w.requirement: w.sdist for w in bumped}

    def source(req: str, rules: list[PathMap]) -> WheelSource:
        return WheelSource(project.store, Wheel(requirement=req, map=rules,
                                                sdist=sdist.get(req, False)),
                           offline=cfg.offline, index_url=cfg.index_url)

    plan = WheelPlan(wheels=[])
    # 1. the candidates: the bumped wheels, then their exact Requires-Dist pins
    order: list[str] = []
    origin: dict[str, str] = {}       # candidate -> the bumped wheel it was reached from
    missing: dict[str, str] = {}      # bumped wheel -> why it has no release
    queue = [w.requirement for w in bumped]
    for req in queue:
        origin.setdefault(req, req)
    while queue and len(order) < MAX_CANDIDATES:
        req = queue.pop(0)
        if req in plan.candidates or req in missing:
            continue
        ws = source(req, [])
        if not ws.listing():
            missing[req] = ws.error or f"{req} has no files"
            continue
        plan.candidates[req] = ws
        order.append(req)
        for dep in exact_pins(ws.requires_dist()):
            if dep not in plan.candidates and dep not in queue and dep not in missing:
                origin.setdefault(dep, origin[req])
                queue.append(dep)
    # 2. a home for every rule
    entries: dict[str, list[PathMap]] = {}
    for old, new in zip(up.wheel, bumped):
        if not old.map:
            continue
        old_ws = WheelSource(project.store, old, offline=cfg.offline, index_url=cfg.index_url)
        old_by_rule: dict[int, set[str]] = {}
        for repo_path, member in old_ws.members().items():
            i = _rule_of(old.map, member)
            if i is not None:
                old_by_rule.setdefault(i, set()).add(repo_path)
        own = [c for c in order if c == new.requirement]
        reached = [c for c in order if origin.get(c) == new.requirement and c not in own]
        others = [c for c in order if c not in own and c not in reached]
        lost_here: list[PathMap] = []
        for i, rule in enumerate(old.map):
            want = old_by_rule.get(i, set())
            best: tuple[tuple, str, int, int] | None = None
            for rank, cand in enumerate(own + reached + others):
                held_paths: set[str] = set()
                n = 0
                for member in plan.candidates[cand].listing():
                    if _rule_of(old.map, member) == i:
                        n += 1
                        held_paths.add(old.map[i].to_repo(member) or "")
                if n == 0:
                    continue
                held = len(want & held_paths)
                key = (-held, -n, rank)
                if best is None or key < best[0]:
                    best = (key, cand, held, n)
            if best is None:
                lost_here.append(rule)
                plan.homes.append(RuleHome(old.requirement, rule, None, len(want), 0, 0))
                continue
            _, cand, held, n = best
            plan.homes.append(RuleHome(old.requirement, rule, cand, len(want), held, n))
            entries.setdefault(cand, []).append(rule)
            if cand != new.requirement:
                own_n = sum(1 for m in (plan.candidates[new.requirement].listing()
                                        if new.requirement in plan.candidates else {})
                            if _rule_of(old.map, m) == i)
                plan.followed.append(
                    f"{rule.wheel} -> {rule.repo}: {cand} (Requires-Dist of "
                    f"{origin.get(cand, new.requirement)}) holds {held} of the {len(want)} "
                    f"file(s) the rule mapped at {old.version}; {new.requirement} holds "
                    f"{own_n} member(s) under it")
        if lost_here:
            why = (missing[new.requirement] if new.requirement in missing else
                   f"no {new.version} wheel ({', '.join(order) or 'none'}) has files under "
                   + ", ".join(r.wheel for r in lost_here))
            lw = LostWheel(new.requirement, why, tuple(lost_here))
            plan.lost.append(lw)
            plan.lost_rules.extend((r, lw) for r in lost_here)
    # 3. rules for cited files no rule mapped at the old pin
    _discover(plan, up, order, entries, cited, old_blob)
    # 4. the entries, in the order their candidates were met (a pinned wheel without a
    #    map stays, bumped: it serves no file, its stubs are still its release's)
    mapless = {new.requirement for old, new in zip(up.wheel, bumped) if not old.map}
    for cand in order:
        if cand in entries or cand in mapless:
            plan.wheels.append(Wheel(requirement=cand, map=entries.get(cand, []),
                                     sdist=sdist.get(cand, False)))
    return plan


def _covered(up: Upstream, path: str) -> bool:
    for w in up.wheel:
        for rule in w.map:
            member = rule.to_wheel(path)
            if member is not None and w.to_repo(member) == path:
                return True
    return False


def _discover(plan: WheelPlan, up: Upstream, order: list[str],
              entries: dict[str, list[PathMap]], cited: set[str],
              old_blob: Callable[[str], str | None]) -> None:
    unmapped = sorted(p for p in cited if "/" in p and not _covered(up, p))
    if not unmapped:
        return
    for cand in order:
        listing = plan.candidates[cand].listing()
        groups: dict[tuple[str, str], dict[str, str]] = {}   # (wheel prefix, repo dir) -> p->m
        for member in listing:
            for p in unmapped:
                if member.endswith("/" + p):
                    top = p.split("/", 1)[0] + "/"
                    prefix = member[: len(member) - len(p)] + top
                    groups.setdefault((prefix, top), {})[p] = member
        for (prefix, top), found in sorted(groups.items()):
            if len(found) < MIN_DISCOVERED:
                continue
            if any(r.wheel == prefix for rules in entries.values() for r in rules):
                continue
            blobs = plan.candidates[cand].member_blobs(set(found.values()))
            same = sorted(p for p, m in found.items() if blobs.get(m) and blobs[m] == old_blob(p))
            if not same:
                continue
            rule = PathMap(wheel=prefix, repo=top)
            entries.setdefault(cand, []).insert(0, rule)
            why = (f"{len(found)} cited file(s) under {top} are in {cand} under {prefix} "
                   f"({len(same)} byte-identical to the old pin, e.g. {same[0]})")
            plan.discovered.append((cand, rule, why))
            unmapped = [p for p in unmapped if p not in found]
