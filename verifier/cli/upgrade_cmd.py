"""`verifier upgrade UPSTREAM --to REF`: report what breaks when a pin moves;
`--write` does the mechanical part (pins, lock, moved permalinks)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from verifier.cli.common import TEXT, add_format, choice

if TYPE_CHECKING:
    from verifier.upgrade.model import UpgradeReport

HELP = ("compare lessons against a new version of one upstream (commit, tag or version): "
        "claims whose verdict changes, permalinks that moved, cited lines that changed, "
        "files renamed or deleted; --write bumps the pin and rewrites moved permalinks")

_COLOUR = {"unchanged": "green", "moved": "cyan", "changed": "red", "ambiguous": "magenta",
           "deleted": "red", "unavailable": "yellow", "skipped": "dim"}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("upstream", help="upstream name in pins.toml, e.g. newton")
    p.add_argument("--to", dest="ref", required=True, metavar="REF",
                   help="new commit SHA, tag or version (for wheel-served files a wheel "
                        "version such as 1.7.0 works)")
    p.add_argument("--commit", metavar="SHA",
                   help="the new version's commit, when REF is a version no git provider "
                        "resolves (needed by --write)")
    p.add_argument("--version", dest="new_version", metavar="V",
                   help="the new version's version string, when REF is a commit SHA")
    p.add_argument("--via", type=choice("via", ["auto", "git", "wheel"]), default="auto",
                   help="how to acquire the new version (default: git when a provider holds "
                        "it, else the wheel)")
    p.add_argument("--course", help="only lessons of this course")
    p.add_argument("--lesson", action="append", metavar="PATH",
                   help="only this lesson file (repeatable)")
    p.add_argument("--no-claims", action="store_true", help="do not re-run the claims")
    p.add_argument("--write", action="store_true",
                   help="update pins.toml and pins.lock and rewrite moved permalinks whose "
                        "cited content is unchanged")
    add_format(p, [TEXT, "json"])
    p.add_argument("--diffs", action="store_true",
                   help="show the old -> new diff of changed cited lines")


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import project_from, quiet
    from verifier.exitcodes import ExitCode
    from verifier.pipeline import check_course, check_upstream
    from verifier.upgrade import run_upgrade  # heavy: imported only for this command

    project = project_from(args)
    check_upstream(project, args.upstream)
    check_course(project, args.course)
    progress = o.RichProgress(quiet(args) or args.format == "json")
    progress.begin(f"upgrade {args.upstream} to {args.ref}: acquiring, comparing, re-checking")
    try:
        report = run_upgrade(project, args.upstream, args.ref, commit=args.commit,
                             version=args.new_version, via=args.via, course=args.course,
                             lesson_paths=args.lesson, write=args.write,
                             claims=not args.no_claims)
    finally:
        progress.end()
    if args.format == "json":
        from verifier.visible import escape

        print(escape(json.dumps(report.to_json(), indent=2, ensure_ascii=False)))
    else:
        render(report, show_diffs=args.diffs)
    return ExitCode.FINDINGS if report.needs_review else ExitCode.OK


def _range(s: int | None, e: int | None) -> str:
    if s is None:
        return "(file)"
    return f"L{s}" if e in (None, s) else f"L{s}-L{e}"


def _json(v) -> str:
    return json.dumps(v, ensure_ascii=False, default=str)


def render(report: UpgradeReport, show_diffs: bool = False) -> None:
    from verifier.cli import output as o
    from verifier.upgrade.model import LinkStatus

    old, new = report.old, report.new
    o.say((report.upstream, "bold"), f": {old.version} ({(old.commit or '?')[:7]}) -> "
          f"{new.version or '?'} ({(new.commit or 'commit unknown')[:14]}), "
          f"new version from {new.provider or '?'} [{new.identity} identity]")
    for note in report.notes:
        o.say(("note:", "yellow"), f" {note}")
    if report.files:
        rows = []
        for f in report.files:
            how = (f.method or "") + (f" {f.similarity}%" if f.similarity is not None else "")
            rows.append([f.code, f.path, f.status, f.new_path or "-", how or f.detail])
        o.show(o.table("cited files renamed, deleted or unavailable at the new version",
                       ["code", "path", "status", "new path", "how"], rows))
    for ls in report.lessons:
        o.say("")
        o.say((f"{ls.course}/{ls.lesson}", "bold"),
              *([(" (read-only: git-hosted course)", "dim")] if ls.read_only else []))
        for lk in ls.links:
            cited = f"{lk.path} {_range(lk.start, lk.end)}"
            if lk.new_start is not None:
                arrow = " -> " + ((lk.new_path + " ") if lk.new_path != lk.path else "") + \
                    _range(lk.new_start, lk.new_end)
            elif lk.suggested:
                arrow = f" -> suggested {_range(*lk.suggested)}"
            else:
                arrow = ""
            how = f" ({lk.method})" if lk.method else ""
            o.say(f"  line {lk.line:<4} {lk.code} ", (f"{lk.status.value:<11}",
                                                      _COLOUR[lk.status.value]),
                  f" {cited}{arrow}{how}", *([(" rewritten", "green")] if lk.written else []))
            if lk.detail:
                o.say(("      " + lk.detail, "dim"))
            if show_diffs and lk.diff:
                for d in lk.diff:
                    colour = "red" if d.startswith("-") else "green" if d.startswith("+") else "dim"
                    o.say(("      " + d, colour))
        for cc in ls.claims:
            o.say("  ", (cc.code, "red" if cc.decided else "yellow"), " claim ", (cc.id, "bold"),
                  f" ({cc.kind}): {cc.old_verdict} -> ", (str(cc.new_verdict), "bold"),
                  f"; expected {_json(cc.expected)}, old fact {_json(cc.old_actual)}, new fact "
                  f"{_json(cc.new_actual)}" + (f" ({cc.new_message})" if cc.new_message else ""))
    cr = report.claims
    o.say("")
    if cr.ran:
        o.say(f"claims: {cr.old_total} at the old pin ({_counts(cr.old_verdicts)}), "
              f"{cr.new_total} at the new version ({_counts(cr.new_verdicts)}); "
              f"{cr.changed} verdict(s) change, {cr.unchecked} cannot be re-checked at the "
              "new version")
    else:
        o.say(f"claims: not re-run ({cr.reason})")
    o.say("summary: " + (_counts(report.summary) or "no permalinks cited"))
    for w in report.written:
        o.say(("wrote", "green"), f" {o.rel(w.file)}: {w.what}")
    if report.left_for_author:
        o.say("")
        o.say((f"left for the author ({len(report.left_for_author)}):", "bold"))
        for item in report.left_for_author:
            o.say(f"  - {item}")
    n_move = sum(1 for ls in report.lessons for lk in ls.links
                 if lk.status in (LinkStatus.MOVED, LinkStatus.UNCHANGED) and lk.rewritable)
    if not report.written and n_move:
        o.say("")
        o.say(f"{n_move} permalink(s) can be rewritten mechanically: run again with --write")


def _counts(d) -> str:
    """{'verified': 3, 'stale': 1} -> '3 verified, 1 stale' (never a Python dict)."""
    if not isinstance(d, dict):
        return str(d)
    return ", ".join(f"{v:,} {k}" if isinstance(v, int) else f"{k} {v}" for k, v in d.items())
