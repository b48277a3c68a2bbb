"""The upgrade report as Markdown (`verifier upgrade ... --format markdown`): what a
course author reads before moving a pin, fit for a pull-request comment.

Order: the header (both versions and how the new one was read), what to do first
(verdict changes, release-surface changes, ranges to review), then per lesson:
new ranges ready to apply, changed ranges with the old and the new code, claims
whose verdict changes with both facts; then the wheel map (a pins.toml diff), what
a wheel without a home leaves unassessed, and what only git can decide. Lesson
and source text is shown in code spans and fences, never as Markdown."""

from __future__ import annotations

import json
from typing import Any

from verifier.upgrade.model import ClaimChange, LessonUpgrade, LinkChange, LinkStatus, UpgradeReport
from verifier.upgrade.surface import doc_delta

MAX_LIST = 200       # at most this many rows per table; the rest is counted


def code(text: Any) -> str:
    """`text` as an inline code span that no backtick inside can end."""
    s = str(text).replace("\n", " ")
    fence = "`"
    while fence in s:
        fence += "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def block(lines: list[str], lang: str = "") -> list[str]:
    fence = "```"
    while any(fence in x for x in lines):
        fence += "`"
    return [fence + lang, *lines, fence]


def cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _fact(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 300 else text[:297] + "…"


def _range(s: int | None, e: int | None) -> str:
    if s is None:
        return "whole file"
    return f"L{s}" if e in (None, s) else f"L{s}-L{e}"


def header(report: UpgradeReport) -> list[str]:
    old, new = report.old, report.new
    out = [f"# Upgrade {report.upstream}: {old.version} → {new.version or report.ref}", "",
           f"- old: {old.version} at `{(old.commit or '?')[:12]}` (the pin)",
           f"- new: {new.version or '?'} at "
           + (f"`{new.commit[:12]}`" if new.commit else "commit unknown (pass `--commit`)")
           + f", {new.identity} identity, read from {new.provider or '?'}"]
    cr = report.claims
    if cr.ran:
        out.append(f"- claims: {cr.old_total} re-checked (runtime: {cr.runtime}); "
                   f"{cr.changed} verdict change(s), {cr.unchecked} cannot be re-checked at "
                   f"the new version, {cr.runtime_changed} runtime result change(s)")
    cov = report.coverage
    if cov.get("served_ranges"):
        out.append(f"- cited ranges in files the new version serves: {cov['served_ranges']}, "
                   f"{cov['classified']} classified ({cov['percent']} %)"
                   + (f"; {cov['old_unavailable']} of them unreadable at the old pin"
                      if cov.get("old_unavailable") else ""))
    out.append("- summary: " + (", ".join(f"{v} {k}" for k, v in report.summary.items())
                                or "nothing cited"))
    out += [f"- note: {n}" for n in report.notes]
    return out + [""]


def _link_row(lk: LinkChange) -> str:
    where = lk.path + (f" → {lk.new_path}" if lk.new_path and lk.new_path != lk.path else "")
    new = (_range(lk.new_start, lk.new_end) if lk.new_start is not None else
           f"suggested {_range(*lk.suggested)}" if lk.suggested else "")
    return (f"| {lk.line} | {lk.code} {lk.status.value} | {code(where)} | "
            f"{_range(lk.start, lk.end)} | {new} | {cell(lk.detail)} |")


def _claim(cc: ClaimChange) -> list[str]:
    out = [f"- **{cc.code}** {code(cc.id)} ({cc.kind}): {cc.old_verdict} → "
           f"**{cc.new_verdict}**"]
    if cc.old_static or cc.new_static:
        out.append(f"  - static: {cc.old_static} → {cc.new_static}")
    if cc.old_runtime or cc.new_runtime:
        o, n = cc.old_runtime, cc.new_runtime
        out.append(f"  - runtime: {o.status if o else '—'} → {n.status if n else '—'}"
                   + (f"; value {code(_fact(o.value))} → {code(_fact(n.value))}"
                      if o and n and o.value != n.value else ""))
    out.append(f"  - expected {code(_fact(cc.expected))}; old fact {code(_fact(cc.old_actual))};"
               f" new fact {code(_fact(cc.new_actual))}")
    if cc.new_message:
        out.append(f"  - {cell(cc.new_message)}")
    return out


def lesson_section(ls: LessonUpgrade) -> list[str]:
    out = [f"## {ls.course}/{ls.lesson}" + (" (read-only: git-hosted course)"
                                            if ls.read_only else ""), ""]
    ready = [lk for lk in ls.links if lk.status in (LinkStatus.MOVED, LinkStatus.UNCHANGED)]
    review = [lk for lk in ls.links if lk.status.needs_review]
    quiet = [lk for lk in ls.links if lk not in ready and lk not in review]
    if ready:
        out += [f"New ranges ready to apply ({len(ready)}"
                + (", written" if any(lk.written for lk in ready) else
                   ", `--write` applies them" if any(lk.rewritable for lk in ready) else
                   ", need `--commit` to be written") + "):", "",
                "| line | status | file | old | new | |", "|---:|---|---|---|---|---|"]
        out += [_link_row(lk) for lk in ready[:MAX_LIST]] + [""]
    for lk in review:
        out += [f"**line {lk.line}: {lk.code} {lk.status.value}** {code(lk.path)} "
                f"{_range(lk.start, lk.end)}"
                + (f" → suggested {_range(*lk.suggested)}" if lk.suggested else "")
                + (f" ({lk.method})" if lk.method else ""), ""]
        if lk.detail:
            out += [cell(lk.detail), ""]
        if lk.old_lines or lk.new_lines:
            out += ["old (the pin):", "", *block(lk.old_lines), "",
                    "new (suggested):", "", *block(lk.new_lines), ""]
    if quiet:
        lost = sum(1 for lk in quiet if lk.lost)
        git = sum(1 for lk in quiet if lk.needs_git)
        rest = [lk for lk in quiet if not lk.lost and not lk.needs_git]
        if lost or git:
            said = ([f"{git} cited range(s) need git"] if git else []) + (
                [f"{lost} belong to a wheel without a release at the new version"]
                if lost else [])
            out += [f"Not assessed here: {'; '.join(said)} (see below).", ""]
        if rest:
            out += ["| line | status | file | old | new | |", "|---:|---|---|---|---|---|"]
            out += [_link_row(lk) for lk in rest[:MAX_LIST]] + [""]
    if ls.claims:
        out += ["Claims whose verdict changes:", ""]
        for cc in ls.claims:
            out += _claim(cc)
        out.append("")
    return out


def render(report: UpgradeReport) -> str:
    out = header(report)
    if report.surface.changes:
        out += ["## Release surface: names the lessons use that changed", "",
                f"{report.surface.names} name(s) of the lessons bound in the old release "
                f"surface ({', '.join(report.surface.old_producers) or '-'} → "
                f"{', '.join(report.surface.new_producers) or '-'}).", "",
                "| change | name | symbol | old | new | used in |", "|---|---|---|---|---|---|"]
        for sc in report.surface.changes[:MAX_LIST]:
            where = "; ".join(f"{k}:{','.join(map(str, v))}" for k, v in sc.lessons.items())
            old, new = sc.old, sc.renamed_to or sc.new
            if sc.change in ("docstring", "signature", "default"):
                delta = doc_delta(sc.old, sc.new, 200)
                old = " ".join(x[2:] for x in delta if x.startswith("-")) or "—"
                new = " ".join(x[2:] for x in delta if x.startswith("+")) or "—"
            out.append(f"| {sc.code} {sc.change} | {code(sc.name)} | {code(sc.symbol)} | "
                       f"{code(_fact(old))} | {code(_fact(new))} | "
                       f"{cell(where or ', '.join(sc.claims))} |")
        out.append("")
    elif not report.surface.ran and report.surface.reason:
        out += [f"Release surface not compared: {report.surface.reason}", ""]
    if report.surface.notes:
        out += [f"- surface note: {n}" for n in report.surface.notes] + [""]
    for ls in report.lessons:
        out += lesson_section(ls)
    wm = report.wheel_map
    if wm is not None and (wm.changed or wm.pins_diff):
        out += ["## Wheel map and pins.toml", ""]
        out += [f"- {x}" for x in (*wm.followed, *wm.discovered)]
        if wm.pins_diff:
            out += ["", "What `--write` changes in pins.toml:", "", *block(wm.pins_diff, "diff")]
        out.append("")
    for un in report.unassessed:
        out += [f"## {un.code} unassessed: {code(un.requirement)}", "", un.reason, "",
                f"{un.links} cited range(s) and {len(un.claims)} claim(s) under "
                f"{', '.join(un.rules)} are not assessed at the new version:", ""]
        out += [f"- {k}: {v}" for k, v in un.lessons.items()] + [""]
    ng = report.needs_git
    if ng is not None:
        out += [f"## {ng.code} needs git", "",
                f"{ng.links} cited range(s) in {len(ng.files)} file(s) and {ng.claims} "
                "claim(s) can only be checked against a git tree of the new version:", "",
                *block([ng.command, ng.diff_command], "sh"), "",
                "| file | cited ranges |", "|---|---:|"]
        out += [f"| {code(f)} | {n} |" for f, n in list(ng.files.items())[:MAX_LIST]] + [""]
    if report.written:
        out += ["## Written", ""] + [f"- {code(w.file)}: {w.what}" for w in report.written]
    return "\n".join(out).rstrip() + "\n"
