"""`verifier upgrade UPSTREAM --to REF`: report what breaks when a pin moves;
`--write` does the mechanical part (pins, lock, moved permalinks)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

from verifier.cli.common import project_from, stdout_console
from verifier.exitcodes import ExitCode

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
    p.add_argument("--via", choices=["auto", "git", "wheel"], default="auto",
                   help="how to acquire the new version (default: git when a provider holds "
                        "it, else the wheel)")
    p.add_argument("--course", help="only lessons of this course")
    p.add_argument("--lesson", action="append", metavar="PATH",
                   help="only this lesson file (repeatable)")
    p.add_argument("--no-claims", action="store_true", help="do not re-run the claims")
    p.add_argument("--write", action="store_true",
                   help="update pins.toml and pins.lock and rewrite moved permalinks whose "
                        "cited content is unchanged")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--diffs", action="store_true",
                   help="show the old -> new diff of changed cited lines")


def run(args: argparse.Namespace) -> int:
    from verifier.upgrade import run_upgrade  # heavy: imported only for this command

    project = project_from(args)
    report = run_upgrade(project, args.upstream, args.ref, commit=args.commit,
                         version=args.new_version, via=args.via, course=args.course,
                         lesson_paths=args.lesson, write=args.write,
                         claims=not args.no_claims)
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        render(report, show_diffs=args.diffs)
    return ExitCode.FINDINGS if report.needs_review else ExitCode.OK


def _range(s: int | None, e: int | None) -> str:
    if s is None:
        return "(file)"
    return f"L{s}" if e in (None, s) else f"L{s}-L{e}"


def render(report: UpgradeReport, show_diffs: bool = False) -> None:
    from verifier.upgrade.model import LinkStatus

    con = stdout_console()
    o, n = report.old, report.new
    con.print(f"[bold]{report.upstream}[/]: {o.version} ({(o.commit or '?')[:7]}) -> "
              f"{n.version or '?'} ({(n.commit or 'commit unknown')[:14]}), "
              f"new version from {escape(n.provider or '?')} "
              f"{escape(f'[{n.identity} identity]')}")
    for note in report.notes:
        con.print(f"[yellow]note:[/] {escape(note)}")
    if report.files:
        t = Table(title="cited files renamed, deleted or unavailable at the new version")
        for col in ("code", "path", "status", "new path", "how"):
            t.add_column(col, overflow="fold")
        for f in report.files:
            how = (f.method or "") + (f" {f.similarity}%" if f.similarity is not None else "")
            t.add_row(f.code, f.path, f.status, f.new_path or "-", how or escape(f.detail))
        con.print(t)
    for ls in report.lessons:
        ro = " [dim](read-only: git-hosted course)[/]" if ls.read_only else ""
        con.print(f"\n[bold]{escape(ls.course)}/{escape(ls.lesson)}[/]{ro}")
        for lk in ls.links:
            c = _COLOUR[lk.status.value]
            cited = f"{lk.path} {_range(lk.start, lk.end)}"
            if lk.new_start is not None:
                new = ((lk.new_path + " ") if lk.new_path != lk.path else "") + \
                    _range(lk.new_start, lk.new_end)
                arrow = f" -> {new}"
            elif lk.suggested:
                arrow = f" -> suggested {_range(*lk.suggested)}"
            else:
                arrow = ""
            how = f" ({lk.method})" if lk.method else ""
            mark = " [green]rewritten[/]" if lk.written else ""
            con.print(f"  line {lk.line:<4} {lk.code} [{c}]{lk.status.value:<11}[/] "
                      f"{escape(cited)}{escape(arrow)}{escape(how)}{mark}")
            if lk.detail:
                con.print(f"      [dim]{escape(lk.detail)}[/]")
            if show_diffs and lk.diff:
                for d in lk.diff:
                    colour = "red" if d.startswith("-") else "green" if d.startswith("+") else "dim"
                    con.print(f"      [{colour}]{escape(d)}[/]")
        for cc in ls.claims:
            colour = "red" if cc.decided else "yellow"
            con.print(f"  [{colour}]{cc.code}[/] claim [bold]{escape(cc.id)}[/] ({cc.kind}): "
                      f"{cc.old_verdict} -> [bold]{cc.new_verdict}[/]; expected "
                      f"{escape(json.dumps(cc.expected, ensure_ascii=False))}, old fact "
                      f"{escape(json.dumps(cc.old_actual, ensure_ascii=False, default=str))}, "
                      f"new fact {escape(json.dumps(cc.new_actual, ensure_ascii=False, default=str))}"
                      + (f" ({escape(cc.new_message)})" if cc.new_message else ""))
    cr = report.claims
    if cr.ran:
        con.print(f"\nclaims: {cr.old_total} at the old pin {cr.old_verdicts}, {cr.new_total} "
                  f"at the new version {cr.new_verdicts}; {cr.changed} verdict(s) change, "
                  f"{cr.unchecked} cannot be re-checked at the new version")
    else:
        con.print(f"\nclaims: not re-run ({escape(cr.reason)})")
    summary = ", ".join(f"{k} {v}" for k, v in report.summary.items()) or "no permalinks cited"
    con.print(f"summary: {summary}")
    for w in report.written:
        con.print(f"[green]wrote[/] {escape(w.file)}: {escape(w.what)}")
    if report.left_for_author:
        con.print(f"\n[bold]left for the author ({len(report.left_for_author)}):[/]")
        for item in report.left_for_author:
            con.print(f"  - {escape(item)}")
    n_move = sum(1 for ls in report.lessons for lk in ls.links
                 if lk.status in (LinkStatus.MOVED, LinkStatus.UNCHANGED) and lk.rewritable)
    if not report.written and n_move:
        con.print(f"\n{n_move} permalink(s) can be rewritten mechanically: run again with --write")
