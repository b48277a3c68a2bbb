"""Measure what `check` (suspects, drafted claims) and `lint` flag on planted errors.

    python -m verifier.bench.planted --edits EDITS.jsonl [--split 0|1|all]
                                       [--scratch DIR] [--json]    # scripts/measure-suspects

EDITS.jsonl holds one planted one-line factual edit per line, described by position
only (no lesson text is kept in this repository):

    {"course": "newton-atlas", "lesson": "docs/x.md", "line": 12, "col": 30,
     "old": "2", "new": "3", "kind": "default-value", "why": "...", "evidence": "...",
     "split": 0}

1. a scratch project: pins.toml with each course copied into the scratch directory,
   pins.lock, lint.toml, coverage.toml, and no claims (the lessons as a new author's
   pull request would bring them);
2. the unedited lessons are judged once: lint, then check with its suspect stage, then
   `draft --write` and a check of the drafts; every flag there is listed (each must be a
   real lesson error);
3. per lesson, every edit of the chosen split is applied (each on its own line; `old`
   must be at `col` of `line`, else the edit is reported as not applicable) and the
   lesson is judged the same way. An edit is *flagged* when a finding that the unedited
   lesson does not have lands on its line: a suspect, a drafted claim `diverged` or
   `error`, or a lint finding (error or warning; not the per-lesson source-unavailable
   summary). Flags on other lines that the unedited lesson does not have are *false
   flags*. Undecidable edits count as missed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path



def scratch_project(pins_path: Path, scratch: Path) -> Path:
    """A copy of the project without claims, its courses copied under `scratch/course`."""
    from verifier.draft.measure import scratch_project as scratch_copy

    return scratch_copy(pins_path, scratch, copy_courses=True)


_QUIET_RULES = {"source-unavailable", "suppression-unused"}


def flags(pins: Path, course: str, lesson: str) -> dict[int, list[str]]:
    """line -> what flags it: suspects, lint findings, drafted claims that diverge or err."""
    from verifier import pipeline
    from verifier.claims.check import run_check
    from verifier.draft import draft_lessons, write
    from verifier.draft.write import claim_file
    from verifier.project import load_project

    project = load_project(pins, notify=lambda m: None)
    cf = claim_file(project, course, lesson)
    if cf.exists():
        cf.unlink()
    run = pipeline.run(project, pipeline.options(lessons=[f"{course}/{lesson}"]))
    out: dict[int, list[str]] = {}
    for f in run.report.findings:
        if f.rule in _QUIET_RULES or f.severity.value == "info":
            continue
        out.setdefault(f.line, []).append(f"{f.code or f.rule} {f.rule}: {f.message[:300]}")
    # a page the coverage rules exclude (an index, a validation page) has no drafts:
    # lint and the suspect stage above are what judge it
    drafts, _ = draft_lessons(project, [ld for ld in project.lessons()
                                        if (ld.course, ld.path) == (course, lesson)])
    if not drafts:
        return out
    for d in drafts:
        write.append(project, d)
    project = load_project(pins, notify=lambda m: None)
    for r in run_check(project, [ld for ld in project.lessons()
                                 if (ld.course, ld.path) == (course, lesson)]):
        if r.verdict.value in ("diverged", "error") and r.line:
            out.setdefault(r.line, []).append(f"draft {r.kind} {r.verdict.value}: "
                                              f"{(r.message or '')[:300]}")
    if cf.exists():
        cf.unlink()
    return out


def apply(text: str, edits: list[dict]) -> tuple[str, list[dict]]:
    lines = text.split("\n")
    bad = []
    for e in edits:
        i = e["line"] - 1
        if not (0 <= i < len(lines)) or lines[i][e["col"]:e["col"] + len(e["old"])] != e["old"]:
            bad.append(e)
            continue
        ln = lines[i]
        lines[i] = ln[:e["col"]] + e["new"] + ln[e["col"] + len(e["old"]):]
    return "\n".join(lines), bad


def measure(pins_path: Path, scratch: Path, edits: list[dict], split: str = "all") -> dict:
    chosen = [e for e in edits if split == "all" or str(e.get("split", 0)) == split]
    spins = scratch_project(pins_path, scratch)
    by_lesson: dict[tuple[str, str], list[dict]] = {}
    for e in chosen:
        by_lesson.setdefault((e["course"], e["lesson"]), []).append(e)
    results, false_flags, baseline = [], [], []
    for (course, lesson), group in sorted(by_lesson.items()):
        f = scratch / "course" / course / lesson
        orig = f.read_text(encoding="utf-8")
        base = flags(spins, course, lesson)
        for line, what in sorted(base.items()):
            baseline.append({"course": course, "lesson": lesson, "line": line, "flags": what})
        edited, bad = apply(orig, group)
        f.write_text(edited, encoding="utf-8")
        try:
            got = flags(spins, course, lesson)
        finally:
            f.write_text(orig, encoding="utf-8")
        lines = {e["line"] for e in group}
        for e in group:
            if e in bad:
                results.append({**e, "flagged": False, "applicable": False, "by": []})
                continue
            new = [x for x in got.get(e["line"], []) if x not in base.get(e["line"], [])]
            results.append({**e, "flagged": bool(new), "applicable": True, "by": new})
        for line, what in sorted(got.items()):
            if line in lines:
                continue
            new = [x for x in what if x not in base.get(line, [])]
            if new:
                false_flags.append({"course": course, "lesson": lesson, "line": line,
                                    "flags": new})
    n = len(results)
    hit = sum(1 for r in results if r["flagged"])
    by_kind: dict[str, Counter] = {}
    for r in results:
        by_kind.setdefault(r["kind"], Counter())["flagged" if r["flagged"] else "missed"] += 1
    return {"edits": results, "false_flags": false_flags, "baseline_flags": baseline,
            "summary": {"edits": n, "flagged": hit,
                        "recall_pct": round(100.0 * hit / n, 1) if n else 0.0,
                        "not_applicable": sum(1 for r in results if not r["applicable"]),
                        "false_flags": len(false_flags),
                        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())}}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="measure-suspects", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pins", type=Path, default=None)
    ap.add_argument("--edits", type=Path, required=True, help="planted edits (JSON lines)")
    ap.add_argument("--split", default="all", help="0, 1 or all (default)")
    ap.add_argument("--scratch", type=Path, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from verifier.project import find_pins

    edits = [json.loads(x) for x in args.edits.read_text(encoding="utf-8").splitlines()
             if x.strip()]
    pins = (args.pins or find_pins()).resolve()
    tmp = None
    scratch = args.scratch
    if scratch is None:
        tmp = tempfile.TemporaryDirectory(prefix="verifier-suspects-")
        scratch = Path(tmp.name)
    try:
        out = measure(pins, scratch.resolve(), edits, args.split)
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    for r in out["edits"]:
        mark = "FLAGGED" if r["flagged"] else ("n/a" if not r["applicable"] else "missed")
        print(f"{mark:8} {r['course']}/{r['lesson']}:{r['line']} [{r['kind']}] "
              f"{r['old']!r} -> {r['new']!r}" + (f"  <- {r['by'][0][:140]}" if r["by"] else ""))
    for b in out["baseline_flags"]:
        print(f"baseline {b['course']}/{b['lesson']}:{b['line']}: {b['flags'][0][:160]}")
    for ff in out["false_flags"]:
        print(f"FALSE    {ff['course']}/{ff['lesson']}:{ff['line']}: {ff['flags'][0][:160]}")
    s = out["summary"]
    print(f"total: {s['flagged']} of {s['edits']} planted edits flagged ({s['recall_pct']}%), "
          f"{s['not_applicable']} not applicable, {s['false_flags']} false flags on unedited "
          f"lines; by kind: {s['by_kind']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
