"""The upgrade report on the console (`verifier upgrade`, `--format text`).

Built as lines of styled parts, printed through `cli/output.py` (escaping, colour
only on a terminal); `plain(report)` is the same text without styles (`--out`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verifier.upgrade.model import ClaimChange, LinkChange, UpgradeReport

Part = "str | tuple[str, str]"

_COLOUR = {"unchanged": "green", "moved": "cyan", "changed": "red", "ambiguous": "magenta",
           "deleted": "red", "unavailable": "yellow", "skipped": "dim"}
MAX_FILES = 12       # needs-git files listed on the console (all in JSON/Markdown/HTML)


def _range(s: int | None, e: int | None) -> str:
    if s is None:
        return "(file)"
    return f"L{s}" if e in (None, s) else f"L{s}-L{e}"


def _json(v) -> str:
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 400 else text[:397] + "…"


def _counts(d) -> str:
    """{'verified': 3, 'stale': 1} -> '3 verified, 1 stale' (never a Python dict)."""
    if not isinstance(d, dict):
        return str(d)
    return ", ".join(f"{v:,} {k}" if isinstance(v, int) else f"{k} {v}" for k, v in d.items())


def _link(lk: "LinkChange", show_diffs: bool) -> list[list]:
    cited = f"{lk.path} {_range(lk.start, lk.end)}"
    if lk.new_start is not None:
        arrow = " -> " + ((lk.new_path + " ") if lk.new_path != lk.path else "") + \
            _range(lk.new_start, lk.new_end)
    elif lk.suggested:
        arrow = f" -> suggested {_range(*lk.suggested)}"
    else:
        arrow = ""
    how = f" ({lk.method})" if lk.method else ""
    out = [[f"  line {lk.line:<4} {lk.code} ", (f"{lk.status.value:<11}",
                                                 _COLOUR[lk.status.value]),
            f" {cited}{arrow}{how}", *([(" rewritten", "green")] if lk.written else [])]]
    if lk.detail:
        out.append([("      " + lk.detail, "dim")])
    if show_diffs and lk.diff:
        for d in lk.diff:
            colour = "red" if d.startswith("-") else "green" if d.startswith("+") else "dim"
            out.append([("      " + d, colour)])
    return out


def _claim(cc: "ClaimChange") -> list[list]:
    colour = "red" if cc.needs_review else "yellow"
    out = [["  ", (cc.code, colour), " claim ", (cc.id, "bold"),
            f" ({cc.kind}): {cc.old_verdict} -> ", (str(cc.new_verdict), "bold")]]
    beside = []
    if (cc.old_static or cc.new_static) and (cc.old_static, cc.new_static) != (
            cc.old_verdict, cc.new_verdict):
        beside.append(f"static {cc.old_static} -> {cc.new_static}")
    if cc.old_runtime or cc.new_runtime:
        o, n = cc.old_runtime, cc.new_runtime
        beside.append(f"runtime {o.status if o else '-'} -> {n.status if n else '-'}"
                      + (f" (value {_json(o.value)} -> {_json(n.value)})"
                         if o and n and o.value != n.value else ""))
    if beside:
        out.append([("      " + "; ".join(beside), "dim")])
    out.append([f"      expected {_json(cc.expected)}, old fact {_json(cc.old_actual)}, "
                f"new fact {_json(cc.new_actual)}"])
    if cc.new_message:
        out.append([("      " + cc.new_message, "dim")])
    if cc.timed_out:
        out.append([("      the check timed out at the new version: no answer (a first run "
                     "compiles kernels or imports cold); run the upgrade again", "yellow")])
    return out


def lines(report: "UpgradeReport", show_diffs: bool = False) -> list[list]:
    from verifier.upgrade.model import LinkStatus

    old, new = report.old, report.new
    out: list[list] = [[(report.upstream, "bold"), f": {old.version} ({(old.commit or '?')[:7]})"
                        f" -> {new.version or '?'} ({(new.commit or 'commit unknown')[:14]}), "
                        f"new version from {new.provider or '?'} [{new.identity} identity]"]]
    out += [[("note:", "yellow"), f" {n}"] for n in report.notes]
    wm = report.wheel_map
    if wm is not None and wm.changed:
        out += [[""], [("wheel map of the new version", "bold"),
                       " (applied with --write; pins.toml diff below):"]]
        out += [[f"  {x}"] for x in (*wm.followed, *wm.discovered)]
        for d in wm.pins_diff:
            colour = "red" if d.startswith("-") else "green" if d.startswith("+") else "dim"
            out.append([("    " + d, colour)])
    for un in report.unassessed:
        out += [[""], [(f"{un.code} unassessed: {un.requirement}", "yellow"), f" — {un.reason}"],
                [f"  {un.links} cited range(s) and {len(un.claims)} claim(s) under "
                 f"{', '.join(un.rules)} are not assessed at the new version:"]]
        out += [[f"    {k}: {v}"] for k, v in un.lessons.items()]
    sf = report.surface
    if sf.ran:
        out += [[""], [("release surface", "bold"), f": {sf.names} name(s) the lessons use, "
                       f"bound in the old release ({', '.join(sf.old_producers) or '-'}); "
                       f"{len(sf.changes)} changed at the new version"]]
        for sc in sf.changes:
            where = "; ".join(f"{k}:{','.join(map(str, v))}" for k, v in sc.lessons.items())
            out.append([f"  {sc.code} ", (f"{sc.change:<10}", "red" if sc.change != "docstring"
                                          else "yellow"), f" `{sc.name}` ({sc.symbol})"
                        + (f" -> {sc.renamed_to}" if sc.renamed_to else "")])
            if sc.change in ("docstring", "signature", "default"):
                from verifier.upgrade.surface import doc_delta

                for d in doc_delta(sc.old, sc.new):
                    out.append([("      " + d, "red" if d.startswith("-") else "green")])
            elif sc.change not in ("removed", "renamed"):
                out.append([("      old: " + _json(sc.old), "dim")])
                out.append([("      new: " + _json(sc.new), "dim")])
            out.append([("      used in " + (where or "claims " + ", ".join(sc.claims[:6])
                                             + (" …" if len(sc.claims) > 6 else "")), "dim")])
    elif sf.reason:
        out += [[""], [f"release surface: not compared ({sf.reason})"]]
    for ls in report.lessons:
        shown = [lk for lk in ls.links if not lk.lost and not lk.needs_git]
        held = len(ls.links) - len(shown)
        if not shown and not ls.claims and not held:
            continue
        out += [[""], [(f"{ls.course}/{ls.lesson}", "bold"),
                       *([(" (read-only: git-hosted course)", "dim")] if ls.read_only else [])]]
        for lk in shown:
            out += _link(lk, show_diffs)
        if held:
            lost = sum(1 for lk in ls.links if lk.lost)
            said = [f"{held - lost} need git"] if held - lost else []
            said += [f"{lost} unassessed (a wheel with no release at the new version)"] \
                if lost else []
            out.append([(f"  + cited range(s) not assessed here: {', '.join(said)}", "dim")])
        for cc in ls.claims:
            if cc.lost or cc.needs_git:
                continue
            out += _claim(cc)
        quiet = sum(1 for cc in ls.claims if cc.lost or cc.needs_git)
        if quiet:
            out.append([(f"  + {quiet} claim(s) cannot be re-checked: their file needs git "
                         "or has no release at the new version", "dim")])
    ng = report.needs_git
    if ng is not None:
        out += [[""], [(f"{ng.code} needs git", "yellow"), f": {ng.links} cited range(s) in "
                       f"{len(ng.files)} file(s), {ng.claims} claim(s); check them with"],
                [f"  {ng.command}"], [f"  {ng.diff_command}"]]
        top = sorted(ng.files.items(), key=lambda kv: (-kv[1], kv[0]))[:MAX_FILES]
        out += [[(f"    {n:>3}  {f}", "dim")] for f, n in top]
        if len(ng.files) > MAX_FILES:
            out.append([(f"    … {len(ng.files) - MAX_FILES} more file(s) (--format json)",
                         "dim")])
    cr = report.claims
    out.append([""])
    if cr.ran:
        out.append([f"claims: {cr.old_total} at the old pin ({_counts(cr.old_verdicts)}), "
                    f"{cr.new_total} at the new version ({_counts(cr.new_verdicts)}); "
                    f"runtime {cr.runtime}: {cr.changed} verdict(s) change, {cr.unchecked} "
                    f"cannot be re-checked at the new version, {cr.runtime_changed} runtime "
                    "result(s) change"])
        out += [[("  " + e, "dim")] for e in cr.environments]
    else:
        out.append([f"claims: not re-run ({cr.reason})"])
    cov = report.coverage
    if cov.get("served_ranges"):
        out.append([f"cited ranges in files the new version serves: {cov['served_ranges']}; "
                    f"classified {cov['classified']} ({cov['percent']} %)"
                    + (f"; {cov['old_unavailable']} unreadable at the old pin, "
                       f"{cov['percent_comparable']} % of the comparable ones"
                       if cov.get("old_unavailable") else "")])
    out.append(["summary: " + (_counts(report.summary) or "no permalinks cited")])
    for w in report.written:
        out.append([("wrote", "green"), f" {w.file}: {w.what}"])
    if report.left_for_author:
        out += [[""], [(f"left for the author ({len(report.left_for_author)}):", "bold")]]
        out += [[f"  - {item}"] for item in report.left_for_author]
    n_move = sum(1 for ls in report.lessons for lk in ls.links
                 if lk.status in (LinkStatus.MOVED, LinkStatus.UNCHANGED) and lk.rewritable)
    if not report.written and n_move:
        out += [[""], [f"{n_move} permalink(s) can be rewritten mechanically: run again with "
                       "--write"]]
    return out


def render(report: "UpgradeReport", show_diffs: bool = False) -> None:
    from verifier.cli import output as o

    for parts in lines(report, show_diffs):
        o.say(*parts)


def plain(report: "UpgradeReport") -> str:
    from verifier.cli import output as o

    return "".join(o.plain(*parts) + "\n" for parts in lines(report, show_diffs=True))
