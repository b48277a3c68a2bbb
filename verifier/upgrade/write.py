"""`--write`: the mechanical part of an upgrade, as minimal edits.

- pins.toml: only the upgraded upstream's `commit`, `version`, `tag` (when the
  key exists and the new tag is known) and the `name==version` requirement
  strings of its wheels and runtime (tomlkit: comments and layout kept);
- pins.lock: the upstream's entry from the new git tree (paths locked before
  plus cited paths), or dropped when the new version has no git tree;
- lessons: each rewritable permalink URL replaced by its new URL, nothing else
  (bytes elsewhere unchanged).

Nothing is lost to a concurrent edit: `Snapshot` fingerprints pins.toml,
pins.lock (and checks that they still say what the loaded project says) when
the upgrade starts and each lesson as the analysis read it; just before writing,
every file is read again and the write is refused (ConfigError, nothing
written) when any of them changed.

The writes are one transaction of the safe writer (`verifier.safewrite.Transaction`):
the lessons, pins.lock and pins.toml are all staged first (a read-only directory, a full
disk or a directory in the way of pins.lock changes nothing, exit 2 naming the file),
then renamed together with interrupts held, a failed rename rolling back the ones
before it; a SIGKILL inside the renames is rolled back by the next command's project
load. `preflight` checks the files' directories before the analysis starts."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import tomlkit

from verifier.errors import ConfigError, VerifierError
from verifier.pins import Lock, LockedUpstream, Upstream, load_lock, load_pins

if TYPE_CHECKING:
    from verifier.project import LessonDoc, Project


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc}", file=str(path)) from None


@dataclass
class Snapshot:
    """sha256 of every file the analysis read, as it read it."""

    seen: dict[Path, str | None] = field(default_factory=dict)

    @classmethod
    def take(cls, project: "Project") -> "Snapshot":
        snap = cls()
        pins_path = project.pins.path
        assert pins_path is not None
        for path in (pins_path, project.lock_path):
            snap.seen[path.resolve()] = _digest(_read(path))
        # the project was loaded a moment earlier: it must still say what the files say
        try:
            same = (load_pins(pins_path).model_dump() == project.pins.model_dump()
                    and load_lock(project.lock_path) == project.lock)
        except VerifierError:
            same = False
        if not same:
            raise ConfigError("pins.toml or pins.lock changed while `verifier upgrade` was "
                              "loading them; nothing was written", file=str(pins_path),
                              hint="re-run the command")
        return snap

    def add_lessons(self, lessons: "list[LessonDoc]") -> None:
        for ld in lessons:
            self.seen.setdefault(ld.file.resolve(), _digest(ld.text.encode("utf-8")))

    def verify(self, files: list[Path]) -> None:
        changed = [f for f in files if f.resolve() in self.seen
                   and _digest(_read(f)) != self.seen[f.resolve()]]
        if changed:
            names = ", ".join(str(f) for f in changed)
            raise ConfigError(f"changed since `verifier upgrade` read it ({names}); refusing "
                              "to overwrite: nothing more was written", file=str(changed[0]),
                              hint="re-run `verifier upgrade ... --write` on the edited files")


def preflight(project: "Project") -> None:
    """Before the analysis: pins.toml's directory and each local course's lessons can
    take a write (WriteError, exit 2, naming the directory otherwise)."""
    from verifier.safewrite import Area

    assert project.pins.path is not None
    Area.edit(project.pins.path.parent, "pins.toml and pins.lock").preflight(
        files=(project.pins.path.name, project.lock_path.name))
    for name, root in sorted(project._local_roots().items()):
        co = project.known_checkout(name)
        if (co is not None and not co.writable) or root.is_relative_to(project.store.root):
            continue                    # a course read at its commit: never rewritten
        docs = project.pins.course[name].docs
        Area.edit(root if docs == "." else root / docs,
                  f"the lessons of course {name}").preflight()


def transaction(project: "Project", upstream: str, edits: "list[tuple[Path, bytes, str]]",
                ) -> None:
    """Write every edit all-or-nothing (see the module docstring)."""
    from verifier.safewrite import Area, Transaction

    assert project.pins.path is not None
    tx = Transaction(project.pins.path.parent, f"`upgrade --write` of {upstream}")
    for file, data, _ in edits:
        tx.write(Area.edit(file.parent, f"`upgrade --write` ({file.name})"), file, data)
    tx.commit()


_URL_END = rb"(?![A-Za-z0-9\-._~%/#?=&+:@!$*,;])"


def edit_pins(text: str, path: Path, old: Upstream, new: Upstream, *,
              others: dict[str, Upstream] | None = None,
              removed: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """pins.toml text with the upstream's identity strings bumped, its wheel tables
    following the new release's wheel map, and the runtime pins of `others` (upstreams
    whose environment pins a bumped distribution) bumped too; notes for the author.
    `removed`: pinned wheel -> why it is dropped (no home at the new version)."""
    try:
        doc = tomlkit.parse(text)
        table = doc["upstream"][old.name]  # type: ignore[index]
    except Exception as exc:  # noqa: BLE001 - tomlkit raises several types
        raise ConfigError(f"cannot edit pins.toml: {exc}", file=str(path)) from None
    notes: list[str] = []
    table["commit"] = new.commit
    table["version"] = new.version
    if "tag" in table:
        if new.tag:
            table["tag"] = new.tag
        elif table["tag"] != new.tag:
            notes.append(f"pins.toml: upstream.{old.name}.tag is still {table['tag']!r}; "
                         "set it to the new release's tag by hand (or remove it)")
    _edit_wheels(table, old, new, removed or {}, notes)
    _bump_runtime(table, old.runtime, new.runtime)
    for name, other in sorted((others or {}).items()):
        before = doc["upstream"][name]  # type: ignore[index]
        _bump_runtime(before, list(before.get("runtime", [])), other.runtime)
        notes.append(f"pins.toml: upstream.{name}.runtime follows ({', '.join(other.runtime)}): "
                     "its environment pins the same distribution")
    return tomlkit.dumps(doc), notes


def _bump_runtime(table, old: list[str], new: list[str]) -> None:
    rt = table.get("runtime")
    if rt is None:
        return
    swap = {a: b for a, b in zip(old, new) if a != b}
    for i, item in enumerate(list(rt)):
        if item in swap:
            rt[i] = swap[item]


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _inline(rule) -> object:
    it = tomlkit.inline_table()
    it.update({k: v for k, v in rule.model_dump().items() if v is not None})
    return it


def _set_map(t, old_rules: list, new_rules: list) -> None:
    """The table's `map` array edited in place: rules not kept removed, new ones inserted
    where the new map has them (the other items keep their formatting)."""
    if old_rules == new_rules:
        return
    arr = t.get("map")
    if arr is None or [r for r in old_rules if r in new_rules] != [r for r in new_rules
                                                                  if r in old_rules]:
        arr = tomlkit.array()
        arr.multiline(True)
        for r in new_rules:
            arr.append(_inline(r))
        t["map"] = arr
        return
    for i in reversed(range(len(old_rules))):
        if old_rules[i] not in new_rules:
            del arr[i]
    for j, r in enumerate(new_rules):
        if r not in old_rules:
            arr.insert(j, _inline(r))


def _edit_wheels(table, old: Upstream, new: Upstream, removed: dict[str, str],
                 notes: list[str]) -> None:
    """Each pinned wheel table is kept (its requirement and map edited) for the new entry
    that serves its rules (or has its name), removed when none does; new entries that
    no pinned table owns are appended."""
    aot = table.get("wheel")
    if aot is None or not old.wheel:
        return
    if [str(t.get("requirement")) for t in aot] != [w.requirement for w in old.wheel]:
        raise ConfigError(f"cannot edit pins.toml: upstream.{old.name}.wheel does not say what "
                          "the loaded pins say; nothing was written")
    owner: dict[int, int | None] = {}
    for j, e in enumerate(new.wheel):
        owner[j] = next((i for i, w in enumerate(old.wheel) if any(r in w.map for r in e.map)),
                        next((i for i, w in enumerate(old.wheel)
                              if _canonical(w.name) == _canonical(e.name)), None))
    by_old: dict[int, list[int]] = {}
    for j, i in owner.items():
        if i is not None:
            by_old.setdefault(i, []).append(j)
    for i in reversed(range(len(old.wheel))):
        js = by_old.get(i, [])
        if not js:
            del aot[i]
            why = removed.get(old.wheel[i].requirement) or "no wheel of the new version serves it"
            notes.append(f"pins.toml: the wheel {old.wheel[i].requirement} is removed: {why}")
            continue
        first = new.wheel[js[0]]
        aot[i]["requirement"] = first.requirement
        _set_map(aot[i], old.wheel[i].map, first.map)
        for j in reversed(js[1:]):
            extra = tomlkit.table()
            extra["requirement"] = new.wheel[j].requirement
            _set_map(extra, [], new.wheel[j].map)
            aot.insert(i + 1, extra)
    for j, i in owner.items():
        if i is None:
            extra = tomlkit.table()
            extra["requirement"] = new.wheel[j].requirement
            _set_map(extra, [], new.wheel[j].map)
            aot.append(extra)


def edit_lock(lock: Lock, name: str, new: Upstream, tree: dict[str, str] | None,
              paths: set[str], source: str) -> tuple[Lock, str]:
    """The lock with the upstream's entry at the new commit; a note saying what was done."""
    entries = dict(lock.upstream)
    if tree is None:
        entries.pop(name, None)
        return Lock(upstream=entries), (f"pins.lock: entry for {name} removed (no git tree at "
                                        f"{new.commit[:7]}); run `verifier lock` where git can "
                                        "reach it, or import the course's new sources.json")
    old = lock.upstream.get(name)
    wanted = set(paths) | set(old.files if old else ())
    files = {p: tree[p] for p in sorted(wanted) if p in tree}
    entries[name] = LockedUpstream(commit=new.commit, source=[source], files=files)
    gone = sorted(p for p in wanted if p not in tree)
    note = f"pins.lock: {name} locked at {new.commit[:7]}, {len(files)} path(s) from {source}"
    if gone:
        note += f"; {len(gone)} path(s) not in the new tree dropped"
    return Lock(upstream=entries), note


def rewrite_urls(data: bytes, replacements: dict[str, str]) -> tuple[bytes, dict[str, int]]:
    """Replace each whole URL occurrence in one pass (a new URL that equals another
    old URL is never rewritten again); returns new bytes and counts per old URL."""
    counts = {old: 0 for old in replacements}
    if not replacements:
        return data, counts
    olds = sorted(replacements, key=lambda u: (-len(u), u))
    pat = re.compile(b"(?:" + b"|".join(re.escape(u.encode()) for u in olds) + b")" + _URL_END)

    def sub(m: re.Match[bytes]) -> bytes:
        url = m.group(0).decode()
        counts[url] += 1
        return replacements[url].encode()

    return pat.sub(sub, data), counts


def apply(project: "Project", upstream: str, old: str, new: str,
          edits: list[tuple[Path, bytes, str]], snapshot: Snapshot) -> list[tuple[Path, str]]:
    """Write every edit of one `upgrade --write` (the lessons, pins.lock, then pins.toml)
    as one transaction: all of them or none (`transaction`), after checking that none of
    the files changed since the analysis read them, and once more just before the
    renames. Returns (file, what) of each file written."""
    assert project.pins.path is not None
    files = [f for f, _, _ in edits]
    snapshot.verify(files + [project.pins.path, project.lock_path])
    snapshot.verify(files)
    transaction(project, upstream, edits)
    return [(file, what) for file, _, what in edits]
