"""`verifier bench --scale N`: the course N times over, cold and warm.

`build_scaled_course` copies every course checkout the project reads into a scratch
directory and adds N-1 copies of each lesson next to it (`<stem>--x<k>.md`), each
ending with an HTML comment naming its copy, so every copy is a distinct text (its
own blob, parsed on its own when cold) that lints exactly like the original. Each
claim file is copied once per lesson copy with its `lesson` pointing at the copy:
claim ids stay, and their global ids (`<course>/<lesson-stem>/<id>`) are unique
because the stem is. `pins.toml`, `pins.lock` and `lint.toml` are copied as they
are; the runs point each course at its copy through `$VERIFIER_COURSES`.

`bench_scale` runs `verifier lint` and `verifier check` (each its own process, as
CI runs them) on the course at scale 1 (the same builder, so the comparison is
like for like) and at every requested scale: cold (sources present, empty fact
cache) and warm (median of `--repeat`), with wall and CPU time and the peak RSS
of each process. The marginal cost per permalink is the warm `lint` CPU growth
over the permalinks added; per claim, the warm `check` CPU growth over the
claims added.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.bench.common import cli_run, first_difference, median_run, scratch_cache
from verifier.bench.model import CliRun, LargeLesson, ScalePoint

if TYPE_CHECKING:
    from verifier.pipeline import Progress
    from verifier.project import Project

_LESSON_KEY = re.compile(r'^(lesson\s*=\s*)(["\'])(.*?)\2', re.M)
COPY_MARK = "<!-- verifier bench: copy {k} of {n} -->"


@dataclass
class ScaledCourse:
    root: Path                 # project root of the copy (pins.toml, pins.lock, claims/)
    pins: Path
    courses: dict[str, Path]   # course -> its copied checkout
    lessons: int
    claims: int
    permalinks: int

    @property
    def env_courses(self) -> str:
        return ";".join(f"{c}={p}" for c, p in sorted(self.courses.items()))


def copy_name(path: str, k: int) -> str:
    """`docs/a/b.md`, 3 -> `docs/a/b--x3.md` (k = 0: the original)."""
    if k == 0:
        return path
    stem, dot, ext = path.rpartition(".")
    return f"{stem}--x{k}.{ext}" if dot else f"{path}--x{k}"


def build_scaled_course(project: "Project", n: int, dest: Path) -> ScaledCourse:
    """The course of `project` `n` times over under `dest` (see the module doc)."""
    from verifier.claims.loader import claim_files, claims_root
    from verifier.claims.lock import LOCK_NAME
    from verifier.lessons.cache import load_links
    from verifier.permalinks import parse_github_url

    if n < 1:
        raise ValueError("scale must be at least 1")
    dest.mkdir(parents=True, exist_ok=True)
    lessons = project.lessons()
    roots: dict[str, Path] = {}
    for doc in lessons:
        roots.setdefault(doc.course, Path(str(doc.file)[:-len(doc.path)].rstrip("/")))
    courses: dict[str, Path] = {}
    for course, src in sorted(roots.items()):
        dst = dest / "course" / course
        shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        courses[course] = dst
    permalinks = 0
    for doc in lessons:
        text = doc.text
        pl = sum(1 for link in load_links(text, project.store)
                 if (gl := parse_github_url(link.href)) is not None and gl.kind in ("blob", "raw")
                 and gl.path and project.pins.by_slug(gl.slug) is not None)
        permalinks += pl * n
        sep = "" if text.endswith("\n") or not text else "\n"
        for k in range(1, n):
            out = courses[doc.course] / copy_name(doc.path, k)
            out.write_text(f"{text}{sep}\n{COPY_MARK.format(k=k, n=n)}\n", encoding="utf-8")
    for name in ("pins.toml", "pins.lock", "lint.toml"):
        if (project.root / name).is_file():
            shutil.copy2(project.root / name, dest / name)
    claims = 0
    files = claim_files(project)
    croot = claims_root(project)
    listed = {f for _, f in files}
    for d in sorted(p for p in croot.iterdir() if p.is_dir()) if croot.is_dir() else ():
        for other in sorted(d.iterdir()):    # notation tables and the like, as they are
            if other.is_file() and other not in listed:
                (dest / "claims" / d.name).mkdir(parents=True, exist_ok=True)
                shutil.copy2(other, dest / "claims" / d.name / other.name)
    _copy_bindings(croot / LOCK_NAME, dest / "claims" / LOCK_NAME, n)
    for course, f in files:
        text = f.read_text(encoding="utf-8")
        m = _LESSON_KEY.search(text)
        data = tomllib.loads(text)
        count = len(data.get("claim", []))
        if m is None or data.get("lesson") != m.group(3):
            raise ValueError(f"{f}: no top-level `lesson = \"...\"` line to point at a copy")
        (dest / "claims" / course).mkdir(parents=True, exist_ok=True)
        for k in range(n):
            lesson = copy_name(m.group(3), k)
            out = text[:m.start(3)] + lesson + text[m.end(3):]
            if tomllib.loads(out).get("lesson") != lesson:
                raise ValueError(f"{f}: the copy's `lesson` did not change")
            (dest / "claims" / course / copy_name(f.name, k)).write_text(out, encoding="utf-8")
            claims += count
    return ScaledCourse(root=dest, pins=dest / "pins.toml", courses=courses,
                        lessons=len(lessons) * n, claims=claims, permalinks=permalinks)


def measure_scale(project: "Project", n: int, repeat: int = 3, bytecode: bool = False,
                  progress: "Progress | None" = None, prepare: bool = True) -> ScalePoint:
    """One scale: build the course, then cold and warm `lint` and `check` on it.
    `prepare`: first run each command untimed so that every source is in the shared
    cache (the copies cite the same files, so one preparation serves every scale)."""
    from verifier.bench.course import bytecode_env

    cmds = [["lint", "--format", "json"], ["check", "--format", "json"]]
    with scratch_cache(project.store) as root:
        if progress is not None:
            progress.begin(f"bench scale {n}: building the course", None)
        course = build_scaled_course(project, n, root / "scaled")
        env, _ = bytecode_env(root / "pycache" if bytecode else None)
        env["VERIFIER_CACHE_KEY"] = secrets.token_hex(16)
        env["VERIFIER_COURSES"] = course.env_courses
        base = ["--cache", str(root), "--pins", str(course.pins), "-q"]
        point = ScalePoint(scale=n, lessons=course.lessons, claims=course.claims,
                           permalinks=course.permalinks, warm_runs=repeat)
        total = len(cmds) * (1 + repeat + prepare) + repeat
        if progress is not None:
            progress.begin(f"bench scale {n}: {course.lessons} lessons, {course.claims} claims, "
                           f"{course.permalinks} permalinks", total)
        # preparation (not timed): every source into the shared cache, then no facts
        for c in cmds if prepare else ():
            cli_run([c[0], *base, *c[1:]], env)
            _tick(progress)
        for sub in ("facts", "symbols"):
            shutil.rmtree(root / sub, ignore_errors=True)
        # the cold outputs are kept on disk and by digest, not in this process: at scale 50
        # they are ~150 MB, and holding them with a warm output and their parse took the
        # bench itself past 1 GiB
        cold_out: list[tuple[Path, bytes]] = []
        mix: dict[str, int] = {}
        for i, c in enumerate(cmds):
            run, stdout = cli_run([c[0], *base, "--offline", *c[1:]], env)
            point.cold.append(run)
            keep = root / f"cold-{i}.out"
            keep.write_bytes(stdout)
            cold_out.append((keep, hashlib.sha256(stdout).digest()))
            mix.update(_verdicts(c[0], stdout))
            del stdout
            _tick(progress)

        def compare(command: str, i: int, stdout: bytes) -> bool:
            keep, digest = cold_out[i]
            if hashlib.sha256(stdout).digest() == digest:
                return True
            if point.difference is None:
                point.difference = first_difference(command, keep.read_bytes(), stdout)
            return False

        same = True
        warm: dict[str, list[CliRun]] = {}
        for _ in range(repeat):
            for i, c in enumerate(cmds):
                run, stdout = cli_run([c[0], *base, "--offline", *c[1:]], env)
                warm.setdefault(run.command, []).append(run)
                same = compare(run.command, i, stdout) and same
                del stdout
                _tick(progress)
        point.warm = [median_run(runs) for runs in warm.values()]
        # the warm check again with the memo audit off: what the audit's re-derivations cost
        quiet_env = {**env, "VERIFIER_MEMO_AUDIT": "0"}
        runs = []
        for _ in range(repeat):
            run, stdout = cli_run(["check", *base, "--offline", "--format", "json"], quiet_env)
            same = compare(run.command, 1, stdout) and same
            del stdout
            runs.append(run)
            _tick(progress)
        point.warm_check_no_audit = median_run(runs)
        point.outputs_identical = same
        point.verdicts = dict(sorted(mix.items()))
    return point


def _copy_bindings(src: Path, dst: Path, n: int) -> None:
    """claims.lock with each claim's entry repeated for its copies (the gid
    `<course>/<stem>/<id>` becomes `<course>/<stem>--x<k>/<id>`)."""
    from verifier.claims.lock import dump_bindings, load_bindings

    if not src.is_file():
        return
    entries = load_bindings(src.parent).entries
    out = {}
    for gid, e in entries.items():
        course, _, rest = gid.partition("/")
        stem, _, cid = rest.rpartition("/")
        for k in range(n):
            out[gid if k == 0 else f"{course}/{stem}--x{k}/{cid}"] = e
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(dump_bindings(out), encoding="utf-8")
    if load_bindings(dst.parent).entries.keys() < entries.keys():
        raise ValueError(f"{src}: the bindings did not copy")


def _tick(progress) -> None:
    if progress is not None:
        progress.advance()


def _verdicts(command: str, output: bytes) -> dict[str, int]:
    """Counts of lint findings by rule and severity (`lint`) or of claim outcomes by
    verdict (`check`): the verdict mix, from one command's JSON output."""
    import json

    mix: dict[str, int] = {}
    try:
        doc = json.loads(output)
    except ValueError:
        return mix
    if command == "lint":
        for f in doc.get("findings", []):
            key = f"lint:{f.get('rule')}:{f.get('severity')}"
            mix[key] = mix.get(key, 0) + 1
    else:
        for c in doc.get("claims", []):
            key = f"claim:{c.get('verdict')}"
            mix[key] = mix.get(key, 0) + 1
    return mix


def bench_scale(project: "Project", scales: list[int], repeat: int = 3, bytecode: bool = False,
                progress: "Progress | None" = None) -> list[ScalePoint]:
    """Scale 1 and every scale in `scales`, with marginal costs against scale 1."""
    points = [measure_scale(project, n, repeat, bytecode, progress, prepare=i == 0)
              for i, n in enumerate(sorted({1, *scales}))]
    base = points[0]
    for p in points[1:]:
        lint0, lint1 = base.warm_cpu("verifier lint"), p.warm_cpu("verifier lint")
        chk0, chk1 = base.warm_cpu("verifier check"), p.warm_cpu("verifier check")
        if lint0 is not None and lint1 is not None and p.permalinks > base.permalinks:
            p.per_permalink_ms = round(1000 * (lint1 - lint0) / (p.permalinks - base.permalinks), 4)
        if chk0 is not None and chk1 is not None and p.claims > base.claims:
            p.per_claim_ms = round(1000 * (chk1 - chk0) / (p.claims - base.claims), 4)
        q0, q1 = base.warm_check_no_audit, p.warm_check_no_audit
        if q0 is not None and q1 is not None and p.claims > base.claims:
            p.per_claim_no_audit_ms = round(1000 * (q1.cpu_s - q0.cpu_s)
                                            / (p.claims - base.claims), 4)
        p.verdicts_scale_with_n = all(p.verdicts.get(k, 0) == v * p.scale
                                      for k, v in base.verdicts.items()) and \
            set(p.verdicts) == set(base.verdicts)
    return points


def _lesson_of_size(texts: list[str], size: int) -> str:
    """Real lessons concatenated (repeated as needed) to `size` UTF-8 bytes, cut at a
    line end."""
    one = "\n\n".join(texts) + "\n\n"
    raw = one.encode("utf-8")
    data = raw * (size // len(raw) + 1)
    cut = data.rfind(b"\n", 0, size)
    return data[:cut + 1 if cut >= 0 else size].decode("utf-8", errors="ignore")


def bench_large(project: "Project", mb: float = 50.0, bytecode: bool = False,
                progress: "Progress | None" = None) -> LargeLesson:
    """`verifier lint` on one lesson of `mb` MiB (above the limit: a refusal is expected)
    and on one just under the per-lesson limit, built from the course's own lessons."""
    from verifier.bench.course import bytecode_env
    from verifier.project import max_lesson_bytes

    lessons = project.lessons()
    out = LargeLesson(limit_mib=round(max_lesson_bytes() / (1 << 20), 3), requested_mib=mb)
    if not lessons:
        out.note = "no lessons"
        return out
    course = lessons[0].course
    texts = [d.text for d in lessons if d.course == course]
    with scratch_cache(project.store) as root:
        scaled = build_scaled_course(project, 1, root / "scaled")
        env, _ = bytecode_env(root / "pycache" if bytecode else None)
        env["VERIFIER_CACHE_KEY"] = secrets.token_hex(16)
        env["VERIFIER_COURSES"] = scaled.env_courses
        docs = scaled.courses[course] / "docs"
        docs.mkdir(parents=True, exist_ok=True)
        cases = [("under", max_lesson_bytes() - (64 << 10)), ("requested", int(mb * (1 << 20)))]
        if progress is not None:
            progress.begin(f"bench large lesson: {mb:g} MiB and {out.limit_mib:g} MiB", 2)
        for label, size in cases:
            f = docs / f"bench-large-{label}.md"
            text = _lesson_of_size(texts, size)
            if label == "under":
                # untimed, the same names in another text (another blob): the symbol
                # indexes and release surfaces it needs are built, its parse is not
                # cached, so the timed run measures the lesson, not a cold index
                f.write_text(text[:-200] + "\n<!-- bench warm-up -->\n", encoding="utf-8")
                _lint_one(root, scaled, f, course, env)
            f.write_text(text, encoding="utf-8")
            run, _stdout, stderr = _lint_one(root, scaled, f, course, env)
            run.command = f"verifier lint ({f.stat().st_size / (1 << 20):.1f} MiB lesson)"
            if label == "under":
                out.under = run
            else:
                out.requested = run
                out.refused = run.exit_code == 2 and b"above the limit" in stderr
                out.message = stderr.decode(errors="replace").strip().splitlines()[-1:] or None
                out.message = out.message[0] if out.message else None
            f.unlink()
            _tick(progress)
    return out


def _lint_one(root: Path, scaled: ScaledCourse, f: Path, course: str, env: dict):
    from verifier.bench.common import cli_run_raw

    return cli_run_raw(["lint", "--cache", str(root), "--pins", str(scaled.pins), "-q",
                        "--offline", "--course", course, "--format", "json", str(f)], env)
