"""Write drafts into claim files, and accept drafts.

`append`: the drafts are rendered with tomlkit and appended after the file's last
byte, so every existing claim, comment and blank line stays byte-identical; a new
file gets the header the shipped claim files have (a comment, `lesson`,
`upstream`). The result is parsed and loaded before it replaces the file
(atomically), so a draft can never leave a claim file broken.

`accept`: removes the `review = "draft"` line of the named claims (a minimal
tomlkit edit: nothing else of the file changes).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import tomlkit

from verifier.draft.model import DRAFT, LessonDraft, Proposal
from verifier.errors import ConfigError, UsageError
from verifier.tomlerrors import read_toml

if TYPE_CHECKING:
    from verifier.project import Project


def claim_file(project: "Project", course: str, lesson: str) -> Path:
    from verifier.claims.loader import claims_root

    return claims_root(project) / course / f"{Path(lesson).stem}.toml"


def _header(course: str, lesson: str, upstream: str | None) -> str:
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"Claims for {course} {lesson}."))
    doc.add(tomlkit.comment("Drafted by `verifier draft`: each claim marked review = \"draft\" is a "
                            "proposal; check it,"))
    doc.add(tomlkit.comment("then accept it (delete the marker, or `verifier claims accept ID`)."))
    doc.add("lesson", lesson)
    if upstream:
        doc.add("upstream", upstream)
    return tomlkit.dumps(doc)


def _multiline(s: str):
    if "\n" not in s:
        return s
    if "'''" not in s:
        return tomlkit.string(s if s.endswith("\n") else s, multiline=True, literal=True)
    return tomlkit.string(s, multiline=True)


def render(proposals: list[Proposal], default_upstream: str | None) -> str:
    """`[[claim]]` tables of the proposals, as TOML text."""
    doc = tomlkit.document()
    aot = tomlkit.aot()
    for p in proposals:
        t = tomlkit.table()
        for k, v in p.table(default_upstream).items():
            if k == "options":
                it = tomlkit.inline_table()
                it.update(v)
                t.add(k, it)
            elif k == "runtime":
                rt = tomlkit.table()
                for rk, rv in v.items():
                    rt.add(rk, _multiline(rv) if isinstance(rv, str) else rv)
                t.add(k, rt)
            else:
                t.add(k, v)
        aot.append(t)
    doc.add("claim", aot)
    return tomlkit.dumps(doc)


def _atomic_write(path: Path, text: str) -> None:
    """A claim file, written through the safe writer: claims/ is what drafting edits."""
    from verifier.safewrite import Area

    Area.edit(path.parent.parent, "the claim files").write(path, text)


def append(project: "Project", draft: LessonDraft) -> tuple[Path, int]:
    """Append a lesson's drafts to its claim file; (file, number written)."""
    path = claim_file(project, draft.course, draft.lesson)
    if not draft.proposals:
        return path, 0
    if path.is_file():
        data, old = read_toml(path)      # malformed: ConfigError naming file and line
        if "claim" in data and not re.search(r"(?m)^\s*\[\[\s*claim\s*\]\]", old):
            raise ConfigError("claims are written as an inline `claim = [...]` array; "
                              "drafts are appended as [[claim]] tables: convert the file first",
                              file=str(path))
        default_up = data.get("upstream")
        sep = "" if old.endswith("\n\n") else "\n" if old.endswith("\n") else "\n\n"
        prefix = old + sep + "# ---------------------------------------------------------------- drafts\n\n"
    else:
        default_up = draft.upstream
        prefix = _header(draft.course, draft.lesson, default_up) + "\n"
    new = prefix + render(draft.proposals, default_up)
    _check(project, draft.course, path, new)
    _atomic_write(path, new)
    return path, len(draft.proposals)


def _check(project: "Project", course: str, path: Path, text: str) -> None:
    """The new text parses and every claim in it loads without a problem."""
    from verifier.claims.loader import load_file

    with tempfile.TemporaryDirectory(prefix="verifier-draft-") as d:
        tmp = Path(d) / path.name
        tmp.write_text(text, encoding="utf-8")
        bad = [lc for lc in load_file(project, course, tmp) if lc.problem]
    if bad:
        raise ConfigError(f"refusing to write drafts: {bad[0].claim.id}: {bad[0].problem}",
                          file=str(path))


# --------------------------------------------------------------------------- accept


def accept(project: "Project", ids: list[str]) -> list[tuple[Path, str]]:
    """Remove the draft marker of the claims with these global ids
    (`<course>/<lesson-stem>/<id>`, or `<id>` when unique); [(file, id)] accepted."""
    from verifier.claims.loader import claim_files, load_file

    found: dict[str, tuple[Path, str]] = {}
    by_id: dict[str, list[tuple[str, Path, str]]] = {}
    for course, f in claim_files(project):
        for lc in load_file(project, course, f):
            by_id.setdefault(lc.gid, []).append((lc.gid, f, lc.claim.id))
            by_id.setdefault(lc.claim.id, []).append((lc.gid, f, lc.claim.id))
            if getattr(lc.claim, "review", None) == DRAFT:
                found[lc.gid] = (f, lc.claim.id)
    todo: dict[Path, list[str]] = {}
    for want in ids:
        hits = by_id.get(want, [])
        if not hits:
            raise UsageError(f"no claim {want!r} (use the id `verifier check` prints, "
                             "<course>/<lesson-stem>/<id>)")
        if len(hits) > 1:
            raise UsageError(f"claim id {want!r} is ambiguous: "
                             f"{', '.join(sorted(h[0] for h in hits))}")
        gid, f, cid = hits[0]
        if gid not in found:
            raise UsageError(f"claim {gid} is not a draft (no review = \"draft\")")
        todo.setdefault(f, []).append(cid)
    out = []
    for f, cids in sorted(todo.items()):
        text = f.read_text(encoding="utf-8")
        doc = tomlkit.parse(text)
        for t in doc.get("claim", []):
            if t.get("id") in cids and t.get("review") == DRAFT:
                del t["review"]
                out.append((f, str(t.get("id"))))
        _atomic_write(f, tomlkit.dumps(doc))
    return out
