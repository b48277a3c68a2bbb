"""Measure `verifier draft` the way acceptance does: every lesson of the course
(index and validation pages excluded) with its claims removed.

    python -m verifier.draft.measure [--pins pins.toml] [--scratch DIR] [--json]

1. a scratch project: pins.toml (course paths made absolute), pins.lock, lint.toml,
   coverage.toml, and an empty `claims/` (the project's claims are not copied; the
   shared course is only read);
2. per lesson: `draft` (timed twice, the second run is "warm"), `--write` into the
   scratch claim files;
3. `check` of every draft: each proposal's verdict, without edits.

Reported per lesson and in total: checkable sentences, the share with a proposal
(any, and statically checkable ones, i.e. not runtime skeletons), the proposals'
verdicts (verified / diverged / unavailable / error / stale), the share of static
proposals that check to verified or diverged, runtime skeletons, and warm time.
The diverged drafts are listed: each is a lesson error or a drafting mistake.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import tomlkit

TARGET_PROPOSED = 60.0
TARGET_DECIDED = 90.0
TARGET_WARM_S = 2.0


def scratch_project(pins_path: Path, scratch: Path, copy_courses: bool = False) -> Path:
    """A copy of the project without its claims; returns the scratch pins.toml.
    `copy_courses`: the local courses are copied under `scratch/course/<name>` (to be
    edited there) instead of read where they are."""
    root = pins_path.parent
    scratch.mkdir(parents=True, exist_ok=True)
    doc = tomlkit.parse(pins_path.read_text(encoding="utf-8"))
    for name, c in doc.get("course", {}).items():
        if "path" not in c:
            continue
        src = (root / str(c["path"])).resolve()
        if copy_courses:
            dst = scratch / "course" / name
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst, symlinks=True)
            src = dst
        c["path"] = str(src)
    (scratch / "pins.toml").write_text(tomlkit.dumps(doc), encoding="utf-8")
    for extra in ("pins.lock", "lint.toml", "coverage.toml"):
        if (root / extra).is_file():
            shutil.copy2(root / extra, scratch / extra)
    claims = scratch / "claims"
    if claims.exists():
        shutil.rmtree(claims)
    claims.mkdir()
    return scratch / "pins.toml"


def measure(pins_path: Path, scratch: Path, lessons_filter: list[str] | None = None,
            timed: bool = True) -> dict:
    from verifier.claims.check import run_check
    from verifier.claims.coverage import split_lessons
    from verifier.draft import draft_lessons, write
    from verifier.project import load_project

    spins = scratch_project(pins_path, scratch)
    project = load_project(spins, notify=lambda m: None)
    lessons, excluded = split_lessons(project, project.lessons())
    if lessons_filter:
        lessons = [ld for ld in lessons if any(f in ld.name for f in lessons_filter)]
    rows = []
    props_by_gid = {}
    for ld in lessons:
        t0 = time.perf_counter()
        (d,), _ = draft_lessons(project, [ld])
        cold = time.perf_counter() - t0
        warm = 0.0
        if timed:       # again, in a fresh project: everything from the cache
            t0 = time.perf_counter()
            draft_lessons(load_project(spins, notify=lambda m: None), [ld])
            warm = time.perf_counter() - t0
        write.append(project, d)
        for p in d.proposals:
            props_by_gid[f"{d.course}/{Path(d.lesson).stem}/{p.id}"] = p
        rows.append({"lesson": ld.name, "candidates": d.candidates, "drafted": d.drafted,
                     "drafted_static": d.drafted_static, "drafted_beyond": d.drafted_beyond,
                     "proposals": len(d.proposals),
                     "skeletons": sum(1 for p in d.proposals if p.person),
                     "cold_s": round(cold, 3), "warm_s": round(warm, 3)})
    project = load_project(spins, notify=lambda m: None)
    results = run_check(project, lessons)
    by_lesson: dict[str, Counter] = {}
    diverged = []
    errors = []
    for r in results:
        p = props_by_gid.get(r.id)
        if p is None or p.person:
            continue
        by_lesson.setdefault(f"{r.course}/{r.lesson}", Counter())[r.verdict.value] += 1
        if r.verdict.value == "diverged":
            diverged.append({"id": r.id, "lesson": f"{r.course}/{r.lesson}", "line": r.line,
                             "kind": r.kind, "expected": r.expected,
                             "actual": r.actual, "message": r.message,
                             "sentence": p.sentence})
        elif r.verdict.value in ("error", "stale"):
            errors.append({"id": r.id, "line": r.line, "kind": r.kind,
                           "verdict": r.verdict.value, "message": r.message})
        elif r.verdict.value == "unavailable":
            errors.append({"id": r.id, "line": r.line, "kind": r.kind,
                           "verdict": "unavailable", "message": r.message})
    for row in rows:
        v = by_lesson.get(row["lesson"], Counter())
        static = sum(v.values())
        row["verdicts"] = dict(sorted(v.items()))
        row["proposed_pct"] = _pct(row["drafted"], row["candidates"])
        row["proposed_static_pct"] = _pct(row["drafted_static"], row["candidates"])
        row["beyond_existence_pct"] = _pct(row["drafted_beyond"], row["candidates"])
        row["decided_pct"] = _pct(v["verified"] + v["diverged"], static)
        row["unavailable_pct"] = _pct(v["unavailable"], static)
    tot = Counter()
    for row in rows:
        for k in ("candidates", "drafted", "drafted_static", "drafted_beyond", "proposals",
                  "skeletons"):
            tot[k] += row[k]
    verdicts = Counter()
    for v in by_lesson.values():
        verdicts.update(v)
    static = sum(verdicts.values())
    summary = {"lessons": len(rows), **tot, "verdicts": dict(sorted(verdicts.items())),
               "proposed_pct": _pct(tot["drafted"], tot["candidates"]),
               "proposed_static_pct": _pct(tot["drafted_static"], tot["candidates"]),
               "beyond_existence_pct": _pct(tot["drafted_beyond"], tot["candidates"]),
               "decided_pct": _pct(verdicts["verified"] + verdicts["diverged"], static),
               "unavailable_pct": _pct(verdicts["unavailable"], static),
               "min_lesson_proposed_pct": min((r["proposed_pct"] for r in rows), default=0.0),
               "min_lesson_proposed_static_pct": min((r["proposed_static_pct"] for r in rows),
                                                     default=0.0),
               "max_warm_s": max((r["warm_s"] for r in rows), default=0.0),
               "excluded": len(excluded)}
    return {"lessons": rows, "summary": summary, "diverged": diverged, "errors": errors}


def _pct(a: int, b: int) -> float:
    return round(100.0 * a / b, 1) if b else 100.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="measure-drafts", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pins", type=Path, default=None)
    ap.add_argument("--scratch", type=Path, default=None,
                    help="scratch project directory (default: a temporary one)")
    ap.add_argument("--lesson", action="append", help="only lessons whose name contains this")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from verifier.project import find_pins

    pins = (args.pins or find_pins()).resolve()
    tmp = None
    scratch = args.scratch
    if scratch is None:
        tmp = tempfile.TemporaryDirectory(prefix="verifier-measure-")
        scratch = Path(tmp.name)
    try:
        out = measure(pins, scratch.resolve(), args.lesson)
    finally:
        if tmp is not None:
            tmp.cleanup()
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print(f"{'lesson':52} {'cand':>5} {'prop%':>6} {'stat%':>6} {'props':>5} {'skel':>4} "
          f"{'ver':>4} {'div':>4} {'unav':>4} {'err':>4} {'dec%':>6} {'warm':>5}")
    for r in out["lessons"]:
        v = r["verdicts"]
        print(f"{r['lesson']:52} {r['candidates']:5} {r['proposed_pct']:6} "
              f"{r['proposed_static_pct']:6} {r['proposals']:5} {r['skeletons']:4} "
              f"{v.get('verified', 0):4} {v.get('diverged', 0):4} {v.get('unavailable', 0):4} "
              f"{v.get('error', 0) + v.get('stale', 0):4} {r['decided_pct']:6} {r['warm_s']:5}")
    s = out["summary"]
    for d in out["diverged"]:
        print(f"diverged {d['id']} (line {d['line']}, {d['kind']}): expected {d['expected']!r}, "
              f"actual {d['actual']!r}; {d['message']}")
    for e in out["errors"]:
        print(f"error {e['id']} (line {e['line']}, {e['kind']}): {e['message']}")
    print(f"total: {s['lessons']} lessons, {s['candidates']} checkable sentences; proposals for "
          f"{s['proposed_pct']}% (statically checkable {s['proposed_static_pct']}%, beyond existence "
          f"{s['beyond_existence_pct']}%; lowest lesson "
          f"{s['min_lesson_proposed_pct']}% / {s['min_lesson_proposed_static_pct']}%); "
          f"{s['proposals'] - s['skeletons']} static proposals: {s['verdicts']}, "
          f"{s['decided_pct']}% verified or diverged, {s['unavailable_pct']}% unavailable; "
          f"{s['skeletons']} runtime skeletons; slowest warm draft {s['max_warm_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
