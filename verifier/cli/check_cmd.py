"""`verifier check`: give every claim a verdict against the pinned source."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.table import Table

from verifier.cli.common import err_console, project_from, stdout_console
from verifier.errors import UsageError

HELP = "check the claims bound to lesson sentences against the pinned upstream source"

_REPORT_FORMATS = ("sarif", "junit", "github", "html", "markdown")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lesson", action="append", metavar="L",
                   help="only claims about this lesson: a file path, or <course>/<path> "
                        "(e.g. mujoco-atlas/docs/state-and-time.md); repeatable")
    p.add_argument("--course", help="only claims about lessons of this course")
    p.add_argument("--upstream", metavar="U", help="only claims about this upstream")
    p.add_argument("--kind", action="append", help="only claims of this kind (repeatable)")
    p.add_argument("--format", choices=("text", "json", *_REPORT_FORMATS), default="text")
    p.add_argument("--runtime", choices=("none", "sample", "all"), default="none",
                   help="also run the claims' runtime checks in the pinned environments")
    p.add_argument("--sample", default=None, metavar="N|FRACTION",
                   help="with --runtime sample: how many (N) or what share (0<F<1) to run")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")


def select_lessons(project, args: argparse.Namespace):
    """LessonDocs for --lesson/--course, or None (all lessons)."""
    if not args.lesson:
        return project.lessons(course=args.course) if args.course else None
    out = []
    for item in args.lesson:
        f = Path(item)
        if f.is_file():
            out.extend(project.lessons(paths=[item], course=args.course))
            continue
        course, _, rel = item.partition("/")
        c = project.pins.course.get(course)
        if c is None or not rel:
            raise UsageError(f"lesson {item!r} is neither a file nor <course>/<path> of a course "
                             f"in pins.toml ({', '.join(sorted(project.pins.course))})")
        target = project.course_root(c) / rel
        if not target.is_file():
            raise UsageError(f"lesson {rel!r} not found in course {course!r} ({target})")
        out.append(project.lesson_for(target, course))
    return out


def _sample(value: str | None):
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        try:
            f = float(value)
        except ValueError:
            raise UsageError(f"--sample must be a count or a fraction, got {value!r}") from None
        if not 0 < f <= 1:
            raise UsageError(f"--sample fraction must be in (0, 1], got {value!r}")
        return f


def run(args: argparse.Namespace) -> int:
    from verifier.claims.check import check_claims, exit_code, summary

    project = project_from(args)
    if args.upstream:
        project.pins.get(args.upstream)
    lessons = select_lessons(project, args)
    pairs = check_claims(project, lessons, args.upstream)
    if args.kind:
        pairs = [(lc, r) for lc, r in pairs if r.kind in args.kind]
    sampling = None
    if args.runtime != "none":
        try:
            from verifier.runtime import confirm
        except ImportError:
            raise UsageError("--runtime needs the runtime stage (verifier.runtime), which is "
                             "not installed") from None
        results, sampling = confirm(project, pairs, mode=args.runtime,
                                    sample=_sample(args.sample), seed=args.seed)
        pairs = list(zip([lc for lc, _ in pairs], results, strict=True))
    results = [r for _, r in pairs]
    code = exit_code(results)

    if args.format == "json":
        doc = {"claims": [r.model_dump(mode="json") for r in results], "summary": summary(results)}
        if sampling is not None:
            doc["runtime"] = sampling
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return code
    if args.format in _REPORT_FORMATS:
        from verifier.report import build_report
        from verifier.reporters import render

        used = lessons if lessons is not None else project.lessons()
        report = build_report(project, lessons=used, findings=None, claims=results,
                              sampling=sampling)
        print(render(report, args.format))
        return code

    colours = {"verified": "green", "diverged": "red", "stale": "magenta",
               "unavailable": "yellow", "error": "bold red"}
    t = Table(title=f"{len(results)} claims")
    for col in ("claim", "line", "kind", "verdict", "detail"):
        t.add_column(col, overflow="fold")
    for r in results:
        c = colours[r.verdict.value]
        detail = r.message or ""
        if r.verdict.value == "diverged":
            detail = f"expected {r.expected!r}, actual {r.actual!r}" + (f"; {detail}" if detail else "")
        if r.runtime is not None:
            detail += f" [runtime: {r.runtime.status}]"
        verdict = f"[{c}]{r.verdict.value}[/]"
        if r.draft:
            verdict += " [yellow](draft, unreviewed)[/]"
        t.add_row(r.id, str(r.line or "-"), r.kind, verdict, detail)
    stdout_console().print(t)
    s = summary(results)
    err_console.print(", ".join(f"{s[v]} {v}" for v in colours if s[v]) or "no reviewed claims",
                      highlight=False)
    d = s["drafts"]
    if d["total"]:
        err_console.print(f"{d['total']} draft claim(s), unreviewed (not counted above): "
                          + ", ".join(f"{d[v]} {v}" for v in colours if d[v])
                          + "; accept one with `verifier claims accept ID`", highlight=False)
    if s["verified_from_release"]:
        err_console.print(f"{s['verified_from_release']} of the verified rest on `release` "
                          "files (pinned release's wheel; pin blob not in pins.lock)",
                          highlight=False)
    return code
