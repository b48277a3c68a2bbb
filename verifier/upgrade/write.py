"""`--write`: the mechanical part of an upgrade, as minimal edits.

- pins.toml: only the upgraded upstream's `commit`, `version`, `tag` (when the
  key exists and the new tag is known) and the `name==version` requirement
  strings of its wheels and runtime (tomlkit: comments and layout kept);
- pins.lock: the upstream's entry from the new git tree (paths locked before
  plus cited paths), or dropped when the new version has no git tree;
- lessons: each rewritable permalink URL replaced by its new URL, nothing else
  (bytes elsewhere unchanged)."""

from __future__ import annotations

import re
from pathlib import Path

import tomlkit

from verifier.errors import ConfigError
from verifier.fileio import atomic_write
from verifier.pins import Lock, LockedUpstream, Upstream

_URL_END = rb"(?![A-Za-z0-9\-._~%/#?=&+:@!$*,;])"


def edit_pins(text: str, path: Path, old: Upstream, new: Upstream) -> tuple[str, list[str]]:
    """pins.toml text with the upstream's identity strings bumped; notes for the author."""
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
    old_reqs = {w.requirement: n.requirement for w, n in zip(old.wheel, new.wheel)}
    old_reqs.update({a: b for a, b in zip(old.runtime, new.runtime) if a != b})
    for w in table.get("wheel", []):
        req = w.get("requirement")
        if req in old_reqs:
            w["requirement"] = old_reqs[req]
    rt = table.get("runtime")
    if rt is not None:
        for i, item in enumerate(list(rt)):
            if item in old_reqs and old_reqs[item] != item:
                rt[i] = old_reqs[item]
    return tomlkit.dumps(doc), notes


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


def write_file(path: Path, data: bytes) -> None:
    """Atomic replace next to the file (same filesystem), keeping its permissions."""
    atomic_write(path, data)
