"""`verifier upgrade UPSTREAM --to REF`: what breaks when one pin moves.

The old side is the project as pinned; the new side is an in-memory project
whose pins point at the new version (target.py). In order: the cited files are
resolved at the old pin; the new version is acquired (a git tree, or the
release's wheels with their map planned across packaging changes, or only its
release surface); every cited permalink is followed (compare.py); the claims
are re-run on both sides, runtime included (claims.py); the release surface of
the names the lessons use is compared (surface.py); then what is left: the
pins.toml diff of the new map, what a wheel without a home leaves unassessed,
what only git can decide (with the commands). `--write` applies the mechanical
part through one function (`write.apply`)."""

from __future__ import annotations

import difflib
from collections import Counter
from pathlib import Path

from verifier.errors import UsageError
from verifier.pins import Upstream, dump_lock
from verifier.project import Project
from verifier.upgrade import claims as claims_mod
from verifier.upgrade import write as writer
from verifier.upgrade.compare import Cited, Compare, lesson_links
from verifier.upgrade.model import (ClaimChange, ClaimsRun, LessonUpgrade, LinkChange,
                                    LinkStatus, NeedsGit, Surface, Unassessed, UpgradeReport,
                                    VersionIdentity, WheelEntry, WheelMap, Written)
from verifier.upgrade.target import Target, resolve_target

CLASSIFIED = (LinkStatus.UNCHANGED, LinkStatus.MOVED, LinkStatus.CHANGED)


def _old_identity(project: Project, up: Upstream) -> VersionIdentity:
    return VersionIdentity(upstream=up.name, commit=up.commit, version=up.version, tag=up.tag,
                           identity="pin", wheels=[w.requirement for w in up.wheel])


def _old_blob(project: Project, up: Upstream, path: str) -> str | None:
    """The pin's blob of `path` when it is known (lock, or a file served pinned)."""
    blob = project.lock.blob(up, path)
    if blob:
        return blob
    sf = project.sources.resolve(up.name, path, needed=False)
    return sf.blob if sf.status.value == "pinned" else None


def run_upgrade(project: Project, upstream: str, ref: str, *, commit: str | None = None,
                version: str | None = None, via: str = "auto", course: str | None = None,
                lesson_paths: list[str] | None = None, write: bool = False,
                claims: bool = True, runtime: str = "none", sample=None, seed: int = 0,
                surface: bool = True) -> UpgradeReport:
    # what the analysis reads, fingerprinted now: `--write` refuses when any of it changes
    snapshot = writer.Snapshot.take(project) if write else None
    if write:
        writer.preflight(project)       # an unwritable target fails now, not after the work
    up = project.pins.get(upstream)
    lessons = project.lessons(lesson_paths, course=course)
    cited: list[Cited] = []
    for ld in lessons:
        cited.extend(lesson_links(ld, up))
    # one round trip for every cited file at the old pin
    paths = sorted({c.link.path for c in cited if c.link.path and not c.link.hostile_path})
    project.sources.resolve_many([(upstream, p) for p in paths])
    target = resolve_target(project, upstream, ref, commit=commit, version=version, via=via,
                            cited=set(paths), old_blob=lambda p: _old_blob(project, up, p))
    new_id = target.identity
    commit_known = new_id.commit is not None
    if write and not commit_known:
        raise UsageError(f"--write needs the commit of {upstream} {new_id.version}: it was "
                         f"read from {new_id.provider} (release identity, no commit). Pass "
                         "--commit SHA (the release's commit) or use a git provider that "
                         "holds the tag")
    if write and new_id.version is None:
        raise UsageError(f"--write needs the version of {upstream} at {ref}: pass --version V")

    cmp = Compare(project, target, up)
    if not target.surface_only:
        target.project.sources.resolve_many([(upstream, p) for p in paths])
    by_lesson: dict[tuple[str, str], list[LinkChange]] = {}
    read_only = {name for name in project.pins.course
                 if (co := project.known_checkout(name)) is not None and not co.writable}
    for c in cited:
        by_lesson.setdefault((c.lesson.course, c.lesson.path), []).append(
            cmp.link(c, commit_known))

    stand_in = target.upstream.commit if new_id.commit is None else None
    label = f"{new_id.version} (release, commit unknown)"
    upstreams = [upstream, *sorted(target.co_pinned or {})]
    outcome = None
    if claims:
        outcome = claims_mod.rerun(project, target.project, lessons, upstreams,
                                   runtime=runtime, sample=sample, seed=seed,
                                   stand_in=stand_in, label=label)
        claims_run, changes = outcome.run, [_mark(ch, cmp, target) for ch in outcome.changes]
    else:
        claims_run, changes = ClaimsRun(ran=False, reason="--no-claims"), []
    claims_by: dict[tuple[str, str], list[ClaimChange]] = {}
    for ch in changes:
        claims_by.setdefault((ch.course or "", ch.lesson), []).append(ch)

    lesson_reports = []
    for key in sorted(set(by_lesson) | set(claims_by)):
        links = sorted(by_lesson.get(key, []), key=lambda lk: (lk.line, lk.url))
        lesson_reports.append(LessonUpgrade(course=key[0], lesson=key[1],
                                            read_only=key[0] in read_only, links=links,
                                            claims=claims_by.get(key, [])))
    all_links = [lk for ls in lesson_reports for lk in ls.links]
    surf = Surface(ran=False, reason="--no-surface")
    if surface:
        from verifier.upgrade.surface import compare_surface

        surf = compare_surface(project, target.project, lessons, upstream)

    notes = list(cmp.notes)
    if new_id.identity == "release":
        notes.append(f"new version read from {new_id.provider} (release identity: files of "
                     "the release, no git tree); files no wheel of it serves are unavailable "
                     "at the new version")
    for name in sorted(read_only & {ls.course for ls in lesson_reports}):
        notes.append(f"course {name} is git-hosted: its lessons are read-only here and are "
                     "never rewritten")
    for name, other in sorted((target.co_pinned or {}).items()):
        notes.append(f"upstream {name}'s environment pins the same distribution: its runtime "
                     f"becomes {', '.join(other.runtime)} and its claims are re-run too")

    report = UpgradeReport(
        upstream=upstream, ref=ref, old=_old_identity(project, up), new=new_id,
        files=sorted(cmp.files.values(), key=lambda f: f.path), lessons=lesson_reports,
        claims=claims_run, wheel_map=_wheel_map(project, up, target),
        unassessed=_unassessed(target, all_links, outcome, cmp),
        needs_git=_needs_git(up, target, all_links, outcome, cmp), surface=surf,
        coverage=_coverage(all_links, cmp, target), notes=notes)
    if write:
        assert snapshot is not None
        snapshot.add_lessons(lessons)
        report = _write(project, target, up, report, paths, snapshot)
    return _finish(report)


# --------------------------------------------------------------------------- sections

def _mark(ch: ClaimChange, cmp: Compare, target: Target) -> ClaimChange:
    """A claim the new version cannot check: because a wheel has no home (lost), or
    because only git serves its file there."""
    if (ch.category != "claim-unchecked" or not ch.path or ch.new_verdict != "unavailable"
            or ch.upstream not in (None, cmp.name)):
        return ch
    lost = cmp.lost_reason(ch.path)
    if lost is not None:
        return ch.model_copy(update={"lost": lost[0]})
    if target.repo is None and not _served_new(cmp, ch.path):
        return ch.model_copy(update={"needs_git": True})
    return ch


def _served_new(cmp: Compare, path: str) -> bool:
    if cmp.target.surface_only:
        return False
    sf = cmp.target.project.sources.resolve(cmp.name, path, needed=False)
    return sf.status.usable


def _wheel_map(project: Project, up: Upstream, target: Target) -> WheelMap | None:
    plan = target.plan
    if plan is None and not target.co_pinned and target.repo is not None:
        return None
    pins_path = project.pins.path
    diff: list[str] = []
    if pins_path is not None and pins_path.is_file():
        text = pins_path.read_text(encoding="utf-8")
        new_text, _ = writer.edit_pins(text, pins_path, up, target.upstream,
                                       others=target.co_pinned, removed=_removed(up, target))
        if target.identity.commit is None:
            new_text = new_text.replace(target.upstream.commit,
                                        f"<commit of {target.upstream.version}: --commit SHA>")
        diff = list(difflib.unified_diff(text.splitlines(), new_text.splitlines(),
                                         "pins.toml", "pins.toml (--write)", n=1, lineterm=""))
    if plan is None:
        return WheelMap(changed=bool(target.co_pinned), pins_diff=diff,
                        wheels=[WheelEntry(requirement=w.requirement,
                                           map=[r.model_dump(exclude_none=True) for r in w.map])
                                for w in target.upstream.wheel])
    return WheelMap(changed=plan.changed or bool(target.co_pinned), followed=plan.followed,
                    discovered=[why for _, _, why in plan.discovered], pins_diff=diff,
                    wheels=[WheelEntry(requirement=w.requirement,
                                       map=[r.model_dump(exclude_none=True) for r in w.map])
                            for w in plan.wheels])


def _removed(up: Upstream, target: Target) -> dict[str, str]:
    if target.plan is None:
        return {}
    by_name = {lw.requirement.split("==")[0].lower(): lw.reason for lw in target.plan.lost}
    return {w.requirement: by_name[w.name.lower()] for w in up.wheel
            if w.name.lower() in by_name}


def _unassessed(target: Target, links: list[LinkChange], outcome, cmp: Compare
                ) -> list[Unassessed]:
    if target.plan is None or target.repo is not None:
        return []
    out = []
    for lw in target.plan.lost:
        mine = [lk for lk in links if lk.lost == lw.requirement]
        lessons: Counter[str] = Counter(f"{lk.course}/{lk.lesson}" for lk in mine)
        claims: list[str] = []
        if outcome is not None:
            for key, r in sorted(outcome.new.final.items()):
                path = outcome.new.paths.get(key) or (r.evidence.path if r.evidence else None)
                if r.verdict.value == "unavailable" and path:
                    lost = cmp.lost_reason(path)
                    if lost is not None and lost[0] == lw.requirement:
                        claims.append(r.id)
                        lessons[f"{r.course}/{r.lesson}"] += 1
        out.append(Unassessed(requirement=lw.requirement, reason=lw.reason,
                              rules=[f"{r.wheel} -> {r.repo}" for r in lw.rules],
                              links=len(mine), claims=claims,
                              lessons=dict(sorted(lessons.items()))))
    return out


def _tag(up: Upstream, version: str | None) -> str:
    if version is None:
        return "<tag of the new version>"
    if up.tag and up.version and up.version in up.tag:
        return up.tag.replace(up.version, version)
    return f"v{version}"


def _needs_git(up: Upstream, target: Target, links: list[LinkChange], outcome,
               cmp: Compare) -> NeedsGit | None:
    if target.repo is not None:
        return None
    mine = [lk for lk in links if lk.needs_git]
    files: Counter[str] = Counter(lk.path for lk in mine)
    n_claims = 0
    if outcome is not None:
        for key, r in outcome.new.final.items():
            path = outcome.new.paths.get(key) or (r.evidence.path if r.evidence else None)
            if (r.upstream == up.name and r.verdict.value == "unavailable" and path
                    and cmp.lost_reason(path) is None and not _served_new(cmp, path)):
                n_claims += 1
    if not mine and not n_claims:
        return None
    tag = _tag(up, target.identity.version)
    return NeedsGit(
        files=dict(sorted(files.items())), links=len(mine), claims=n_claims,
        command=(f"verifier upgrade {up.name} --to {tag} --via git   # where git reaches "
                 f"{up.repo} (online, or VERIFIER_MIRRORS=\"{up.name}=<a clone holding "
                 f"{tag}>\")"),
        diff_command=f"git -C <clone of {up.repo}> diff {up.commit[:12]} {tag} -- <path>")


def _coverage(links: list[LinkChange], cmp: Compare, target: Target) -> dict:
    """Cited line ranges in files the new version serves, and how many are classified
    (unchanged, moved or changed: never a silent rewrite of a changed one)."""
    if target.surface_only:
        return {"served_ranges": 0, "classified": 0, "percent": None,
                "note": "the new release serves no source file"}
    served = set(cmp.new_files())
    ranges = [lk for lk in links if lk.start is not None and (lk.new_path or lk.path) in served]
    done = [lk for lk in ranges if lk.status in CLASSIFIED]
    old_gone = [lk for lk in ranges if lk.status is LinkStatus.UNAVAILABLE
                and cmp.old(lk.path)[1] is None]
    comparable = len(ranges) - len(old_gone)
    by: Counter[str] = Counter(lk.status.value for lk in ranges)
    return {"served_ranges": len(ranges), "classified": len(done),
            "percent": round(100 * len(done) / len(ranges), 1) if ranges else None,
            "old_unavailable": len(old_gone), "comparable": comparable,
            "percent_comparable": round(100 * len(done) / comparable, 1) if comparable else None,
            "by_status": dict(sorted(by.items()))}


def _finish(report: UpgradeReport) -> UpgradeReport:
    counts: Counter[str] = Counter()
    left: list[str] = []
    for ls in report.lessons:
        for lk in ls.links:
            counts[lk.status.value] += 1
            if lk.written:
                continue
            where = f"{ls.course}/{ls.lesson}:{lk.line}"
            if lk.status.needs_review:
                sug = f" (suggested L{lk.suggested[0]}-L{lk.suggested[1]})" if lk.suggested else ""
                rng = f"#L{lk.start}-L{lk.end}" if lk.start is not None else " (whole file)"
                left.append(f"{where}: {lk.status.value} {lk.path}{rng}{sug}")
            elif lk.status in (LinkStatus.UNCHANGED, LinkStatus.MOVED) and report.written:
                why = "read-only course" if ls.read_only else "not found verbatim in the lesson"
                left.append(f"{where}: {lk.status.value}, not rewritten ({why})")
            elif lk.status is LinkStatus.SKIPPED or (lk.status is LinkStatus.UNAVAILABLE
                                                     and not lk.needs_git and not lk.lost):
                left.append(f"{where}: {lk.status.value} {lk.path}: {lk.detail}")
        for cc in ls.claims:
            counts[cc.category] += 1
            if cc.needs_git or cc.lost:
                continue
            what = "" if cc.decided else " (cannot be re-checked at the new version)"
            if cc.category == "runtime-changed":
                o, n = cc.old_runtime, cc.new_runtime
                what = (f" (runtime {o.status if o else '-'} -> {n.status if n else '-'}"
                        + (f": {n.message}" if n and n.message else "") + ")")
            left.append(f"{ls.course}/{ls.lesson}: claim {cc.id} {cc.old_verdict} -> "
                        f"{cc.new_verdict}{what}")
    for f in report.files:
        counts[f"file-{f.status}"] += 1
    for sc in report.surface.changes:
        counts[f"surface-{sc.change}"] += 1
        if sc.change != "docstring":
            left.append(f"{sc.symbol} ({sc.name}): {sc.change} in the release surface; used "
                        f"in {', '.join(sc.lessons) or 'claims ' + ', '.join(sc.claims)}")
    for un in report.unassessed:
        counts["unassessed"] += un.links + len(un.claims)
        left.append(f"{un.requirement}: {un.links} cited range(s) and {len(un.claims)} "
                    f"claim(s) unassessed ({un.reason})")
    if report.needs_git is not None:
        ng = report.needs_git
        counts["needs-git"] += ng.links
        names = sorted(ng.files, key=lambda f: (-ng.files[f], f))
        shown = ", ".join(names[:5]) + (f", … {len(names) - 5} more" if len(names) > 5 else "")
        left.append(f"{ng.links} cited range(s) in {len(ng.files)} file(s) ({shown}) and "
                    f"{ng.claims} claim(s) are unavailable at the new version and need git: "
                    f"{ng.command}")
    return report.model_copy(update={"summary": dict(sorted(counts.items())),
                                     "left_for_author": left})


# --------------------------------------------------------------------------- --write

def _write(project: Project, target: Target, up: Upstream, report: UpgradeReport,
           cited_paths: list[str], snapshot: "writer.Snapshot") -> UpgradeReport:
    """Compute every edit, check that nothing read by the analysis changed since, then
    write them all through `write.apply` (lessons, pins.lock, pins.toml last)."""
    notes = list(report.notes)
    pins_path = project.pins.path
    assert pins_path is not None
    text = pins_path.read_text(encoding="utf-8")
    new_text, pin_notes = writer.edit_pins(text, pins_path, up, target.upstream,
                                           others=target.co_pinned,
                                           removed=_removed(up, target))
    tree = target.repo.tree(target.upstream.commit) if target.repo is not None else None
    new_cited = {lk.new_path or lk.path for ls in report.lessons for lk in ls.links} | set(cited_paths)
    lock, lock_note = writer.edit_lock(project.lock, up.name, target.upstream, tree, new_cited,
                                       f"tree:{target.repo_label}")
    edits: list[tuple[Path, bytes, str]] = []        # (file, new bytes, what)
    new_lessons = []
    for ls in report.lessons:
        reps = {lk.url: lk.new_url for lk in ls.links if lk.rewritable and lk.new_url
                and lk.new_url != lk.url}
        counts: dict[str, int] = {}
        if reps and not ls.read_only:
            course = project.pins.course[ls.course]
            file = project.course_root(course) / ls.lesson
            data = file.read_bytes()
            new_data, counts = writer.rewrite_urls(data, reps)
            if new_data != data:
                edits.append((file, new_data, f"{sum(counts.values())} permalink(s) rewritten"))
        links = [lk.model_copy(update={"written": counts.get(lk.url, 0) > 0}) for lk in ls.links]
        new_lessons.append(ls.model_copy(update={"links": links}))
    edits.append((project.lock_path, dump_lock(lock).encode(), lock_note))
    if new_text != text:
        what = (f"upstream.{up.name}: commit {target.upstream.commit[:7]}, version "
                f"{target.upstream.version}")
        if report.wheel_map is not None and report.wheel_map.changed:
            what += ", wheel map " + ", ".join(w.requirement for w in target.upstream.wheel)
        edits.append((pins_path, new_text.encode("utf-8"), what))
    written = writer.apply(project, up.name, up.commit, target.upstream.commit, edits, snapshot)
    notes.extend(pin_notes)
    return report.model_copy(update={"lessons": new_lessons, "notes": notes,
                                     "written": [Written(file=str(f), what=w)
                                                 for f, w in written]})
