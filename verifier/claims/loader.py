"""Load claim files `claims/<course-repo>/<lesson-stem>.toml` (format: docs/claims/README.md).

File-level problems (unreadable file, malformed TOML, bad top-level keys, a
directory for a course pins.toml does not know) raise `ConfigError` naming the
file and line: the run cannot trust anything in that file.

Problems of one claim (an unknown key, a bad id, a duplicate id) do not stop the
run: the claim is loaded with `problem` set and `verifier check` gives it the
verdict `error` with `<claim file>:<line>`. Semantic problems (unknown kind,
missing `symbol`) are found by the checker and reported the same way.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from verifier.claims.confine import confined
from verifier.claims.model import Claim, ClaimFile
from verifier.claims.notation import NOTATION_FILE, Notation, load_course_notation, parse_table
from verifier import gcpause
from verifier.errors import ConfigError
from verifier.codeversion import code_version
from verifier.gitblob import blob_sha
from verifier.repopath import canonical
from verifier.tomlerrors import parse_toml, read_text, validate

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project

CLAIMS_DIR = "claims"
_HEADER = re.compile(r"^\s*\[\[\s*claim\s*\]\]\s*(#.*)?$")


@dataclass(frozen=True)
class LoadedClaim:
    claim: Claim
    course: str
    lesson: str          # course-relative lesson path, e.g. docs/state-and-time.md
    file: Path           # the claim file
    line: int            # line of this claim's `[[claim]]` header in the claim file
    gid: str             # <course>/<lesson-stem>/<id>
    upstream: str | None = None   # claim.upstream or the file's default upstream
    problem: str | None = None    # set when the claim table itself is invalid
    notation: Notation = Notation()   # the course's notation with the file's on top
    blob: str | None = None       # git blob of the claim file's text (claims/filememo.py)
    negated: bool = False         # derived from an edited sentence whose polarity flipped
    shown: str | None = None      # the claim file relative to the project root

    @property
    def where(self) -> str:
        """Where the claim is, as messages and records name it: relative to the project
        root (the same text on every clone, so records stay byte-identical)."""
        return f"{self.shown or self.file}:{self.line}"


def claims_root(project: "Project") -> Path:
    return project.root / CLAIMS_DIR


def claim_files(project: "Project") -> list[tuple[str, Path]]:
    """(course, file) for every claim file, sorted."""
    root = claims_root(project)
    if not root.is_dir():
        return []
    out = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        files = sorted(f for f in d.glob("*.toml") if f.name != NOTATION_FILE)
        if not files:
            continue
        confined(root, d, "claim folder")
        if d.name not in project.pins.course:
            raise ConfigError(f"claims for unknown course {d.name!r} (pins.toml has: "
                              f"{', '.join(sorted(project.pins.course))})", file=str(d))
        for f in files:
            confined(root, f)
        out.extend((d.name, f) for f in files)
    return out


_ODD_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"   # str.splitlines breaks besides LF, CR


def _header_lines(text: str) -> list[int]:
    """Lines (1-based, as `str.splitlines` counts them) of the `[[claim]]` headers,
    found from each `[[` in the text instead of by a match per line (0.2 s of loading
    17,750 claims); a text with line breaks other than LF and CRLF is split as before."""
    if any(c in text for c in _ODD_BREAKS) or text.count("\r") != text.count("\r\n"):
        return [i + 1 for i, line in enumerate(text.splitlines()) if _HEADER.match(line)]
    out: list[int] = []
    line, at = 1, 0
    i = text.find("[[")
    while i != -1:
        start = text.rfind("\n", 0, i) + 1
        end = text.find("\n", i)
        end = len(text) if end == -1 else end
        if _HEADER.match(text[start:end]):    # a trailing CR is whitespace to the pattern
            line += text.count("\n", at, start)
            at = start
            out.append(line)
        i = text.find("[[", end)
    return out


def _key_line(text: str, start: int, key: str) -> int:
    """Line of `key = ...` inside the claim table starting at `start` (else `start`)."""
    lines = text.splitlines()
    pat = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
    for j in range(start, len(lines)):
        if lines[j].lstrip().startswith("["):
            break
        if pat.match(lines[j]):
            return j + 1
    return start


def _problem(exc: ValidationError) -> tuple[str, tuple[Any, ...]]:
    errs = exc.errors()
    parts = []
    first_loc: tuple[Any, ...] = tuple(errs[0].get("loc", ())) if errs else ()
    for err in errs:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "claim"
        msg = "unknown key" if err.get("type") == "extra_forbidden" else err.get("msg", "invalid")
        if err.get("type") == "missing":
            msg = "required key missing"
        parts.append(f"{loc}: {msg}")
    return "; ".join(parts), first_loc


def _shown(project: "Project", path: Path, root: Path | None = None) -> str:
    """A claim file as messages name it: relative to the project when inside it
    (`root`: the project's root, resolved once for many files)."""
    try:
        return path.resolve().relative_to(root or project.root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _read_claims(project: "Project", path: Path) -> tuple[dict, str, str, list[int]]:
    """A claim file's TOML and the lines of its `[[claim]]` headers: computed once per
    text (the fact cache keeps both by the text's blob; tomllib costs ~0.2 s for the
    course's 1,800 claims, the header scan 0.1 s at ten times that)."""
    from verifier.facts.cache import fact_cache

    text = read_text(path)
    fc = fact_cache(project.store)
    blob = blob_sha(text.encode("utf-8"))
    version = code_version("verifier.tomlerrors", __name__)
    hit = fc.get("claim-toml", version, blob) if fc.enabled else None
    if (isinstance(hit, list) and len(hit) == 2 and isinstance(hit[0], dict)
            and isinstance(hit[1], list) and all(isinstance(n, int) for n in hit[1])):
        return hit[0], text, blob, hit[1]
    data = parse_toml(text, path)
    headers = _header_lines(text)
    if fc.enabled:
        try:
            fc.put("claim-toml", version, blob, [data, headers])
        except TypeError:
            pass        # a TOML date-time: not plain data, parsed again next time
    return data, text, blob, headers


def load_file(project: "Project", course: str, path: Path, *, root: Path | None = None,
              notations: "dict[Path, Notation] | None" = None) -> list[LoadedClaim]:
    """The claims of one file. `root` (the project's resolved root) and `notations` (each
    course directory's notation table, filled as read) let `load_claims` compute them
    once for many files."""
    data, text, blob, headers = _read_claims(project, path)
    raw_claims = data.get("claim", [])
    if not isinstance(raw_claims, list) or not all(isinstance(c, dict) for c in raw_claims):
        raise ConfigError("`claim` must be an array of tables ([[claim]])", file=str(path),
                          line=(headers or [None])[0])
    head = {k: v for k, v in data.items() if k != "claim"}
    cf = validate(ClaimFile, head, path, text)
    if cf.upstream is not None and cf.upstream not in project.pins.upstream:
        raise ConfigError(f"unknown upstream {cf.upstream!r} (pins.toml has: "
                          f"{', '.join(sorted(project.pins.upstream))})", file=str(path),
                          line=_key_line(text, 0, "upstream"), key="upstream")
    try:
        canonical(cf.lesson)
    except ValueError as exc:
        raise ConfigError("`lesson` must be the lesson's path in its course repository, e.g. "
                          f"docs/state-and-time.md: {exc}", file=str(path),
                          line=_key_line(text, 0, "lesson")) from None
    shown = _shown(project, path, root)
    notations = {} if notations is None else notations
    notation = notations.get(path.parent)
    if notation is None:
        notation = notations[path.parent] = load_course_notation(
            path.parent, shown.rsplit("/", 1)[0] if "/" in shown else None)
    if cf.notation is not None:
        notation = notation.merged(parse_table(cf.notation, path, text, shown))
    if len(headers) != len(raw_claims):
        # inline `claim = [...]` arrays have no headers; fall back to the key line
        headers = (headers + [_key_line(text, 0, "claim")] * len(raw_claims))[:len(raw_claims)]
    stem = Path(cf.lesson).stem
    out: list[LoadedClaim] = []
    seen: dict[str, int] = {}
    for i, (raw, line) in enumerate(zip(raw_claims, headers, strict=True)):
        cid = raw.get("id") if isinstance(raw.get("id"), str) else f"#{i + 1}"
        gid = f"{course}/{stem}/{cid}"
        problem = None
        try:
            claim = Claim.model_validate(raw)
        except ValidationError as exc:
            problem, loc = _problem(exc)
            key = next((str(p) for p in loc if not isinstance(p, int)), None)
            if key:
                line = _key_line(text, line, key) if key in raw else line
            fields = {k: raw.get(k) for k in ("id", "fragment", "kind", "upstream", "path",
                                              "symbol", "expected", "note", "review")}
            fields["id"] = cid
            fields["fragment"] = raw.get("fragment") if isinstance(raw.get("fragment"), str) else ""
            fields["kind"] = raw.get("kind") if isinstance(raw.get("kind"), str) else "?"
            for k in ("upstream", "path", "symbol", "note"):
                if not isinstance(fields[k], str):
                    fields[k] = None
            if fields["review"] != "draft":
                fields["review"] = None
            claim = Claim.model_construct(**fields, options={}, runtime=None)
        if claim.id in seen and problem is None:
            problem = f"duplicate claim id {claim.id!r} (first at line {seen[claim.id]})"
        seen.setdefault(claim.id, line)
        upstream = claim.upstream or cf.upstream
        out.append(LoadedClaim(claim=claim, course=course, lesson=cf.lesson, file=path,
                               line=line, gid=gid, upstream=upstream, problem=problem,
                               notation=notation, blob=blob, shown=shown))
    return out


def load_claims(project: "Project", lessons: "list[LessonDoc] | None" = None) -> list[LoadedClaim]:
    """Every claim of every claim file, or only those about the given lessons.

    Order: course, claim file, position in the file (deterministic)."""
    wanted = None if lessons is None else {(ld.course, ld.path) for ld in lessons}
    out: list[LoadedClaim] = []
    root, notations = project.root.resolve(), {}
    with gcpause.paused():          # thousands of models that live on, no cycles
        for course, path in claim_files(project):
            out.extend(load_file(project, course, path, root=root, notations=notations))
        out = _shared_ids(project, out, root)
    if wanted is not None:
        out = [lc for lc in out if (lc.course, lc.lesson) in wanted]
    return out


def _shared_ids(project: "Project", loaded: list[LoadedClaim], root: Path) -> list[LoadedClaim]:
    """Claims whose global id another claim FILE also gives (two claim files for one
    lesson reusing an id, or two lessons with the same file name in one course using the
    same id) are all errors naming each other: a global id is what claims.lock binds a
    reviewed sentence to, so no claim may take it over by loading first. (A duplicate
    inside one file is that file's own error, `load_file`.)"""
    files: dict[str, dict[Path, LoadedClaim]] = {}
    for lc in loaded:
        files.setdefault(lc.gid, {}).setdefault(lc.file, lc)
    shared = {gid: by_file for gid, by_file in files.items() if len(by_file) > 1}
    if not shared:
        return loaded
    out = []
    for lc in loaded:
        others = [o for f, o in shared.get(lc.gid, {}).items() if f != lc.file]
        if not others or lc.problem:
            out.append(lc)
            continue
        where = ", ".join(f"{_shown(project, o.file, root)}:{o.line}"
                          + ("" if o.lesson == lc.lesson else f" (lesson {o.lesson})")
                          for o in others)
        same = all(o.lesson == lc.lesson for o in others)
        problem = (f"claim id {lc.claim.id!r} is also given by {where}: "
                   + ("claim ids must be unique per lesson across its claim files"
                      if same else "lessons with the same file name need distinct claim ids")
                   + f" (the global id {lc.gid} binds one reviewed sentence in claims.lock)")
        out.append(dataclasses.replace(lc, problem=problem))
    return out


def claimed_files(project: "Project", lessons: "list[LessonDoc] | None" = None
                  ) -> set[tuple[str, str]]:
    """(upstream, path) of every claim with a `path` (claims about `lessons`, or all)."""
    out = set()
    for lc in load_claims(project, lessons):
        if lc.claim.path and lc.upstream and lc.upstream in project.pins.upstream:
            out.add((lc.upstream, lc.claim.path))
    return out
