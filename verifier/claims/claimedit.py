"""Minimal edits of claim files: a claim's changed keys rewritten in place (tomlkit), every
other byte of the file kept. The new text is loaded before it replaces the file, so an
edit can never leave a claim file that does not load, or a claim that changed id."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomlkit

from verifier.errors import ConfigError

if TYPE_CHECKING:
    from verifier.safewrite import Transaction
    from verifier.claims.model import Claim
    from verifier.project import Project

_KEYS = ("fragment", "says", "paraphrase", "expected", "symbol", "options")
_RUNTIME = ("code", "setup", "expected")


def _string(s: str):
    if "\n" not in s:
        return s
    if "'''" not in s:
        return tomlkit.string(s, multiline=True, literal=True)
    return tomlkit.string(s, multiline=True)


def _says(entries: list) -> Any:
    arr = tomlkit.array()
    for e in entries:
        if isinstance(e, str):
            arr.append(e)
        else:
            t = tomlkit.inline_table()
            d = e if isinstance(e, dict) else e.model_dump(exclude_none=True)
            t.update({k: v for k, v in d.items() if v is not None})
            arr.append(t)
    return arr


def _set(table, key: str, value: Any) -> None:
    if value is None:
        if key in table:
            del table[key]
        return
    if key == "says":
        value = _says(value)
    elif key == "options":
        it = tomlkit.inline_table()
        it.update(value)
        value = it
    elif isinstance(value, str):
        value = _string(value)
    if key in table:
        table[key] = value
    else:
        table.add(key, value)


def rewrite(project: "Project", path: Path, changes: list[tuple[str, "Claim", "Claim"]],
            tx: "Transaction | None" = None) -> None:
    """Rewrite, in the claim file `path`, each claim `id` from `old` to `new` (only the
    keys that differ); through the safe writer, or queued in the transaction `tx`."""
    from verifier.claims.loader import load_file
    from verifier.claims.loader import claims_root
    from verifier.safewrite import Area
    from verifier.tomlerrors import read_text

    text = read_text(path)
    doc = tomlkit.parse(text)
    tables = {t.get("id"): t for t in doc.get("claim", [])}
    for cid, old, new in changes:
        t = tables.get(cid)
        if t is None:
            raise ConfigError(f"claim {cid!r} is no longer in the file", file=str(path))
        for key in _KEYS:
            a, b = getattr(old, key), getattr(new, key)
            if a != b:
                _set(t, key, b if key != "says" or b is None else list(b))
        if old.runtime != new.runtime and new.runtime is not None and "runtime" in t:
            rt = t["runtime"]
            for key in _RUNTIME:
                a, b = getattr(old.runtime, key), getattr(new.runtime, key)
                if a != b:
                    _set(rt, key, b)
    out = tomlkit.dumps(doc)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="verifier-claimedit-") as d:
        tmp = Path(d) / path.name
        tmp.write_text(out, encoding="utf-8")
        course = path.parent.name
        got = {lc.claim.id: lc for lc in load_file(project, course, tmp)}
    for cid, _, new in changes:
        lc = got.get(cid)
        if lc is None or lc.problem or lc.claim.model_dump() != new.model_dump():
            raise ConfigError(f"refusing to rewrite claim {cid!r}: the edited file would not "
                              f"hold the claim as derived ({lc.problem if lc else 'missing'})",
                              file=str(path))
    area = Area.edit(claims_root(project), "the claim files")
    if tx is not None:
        tx.write(area, path, out)
    else:
        area.write(path, out)
