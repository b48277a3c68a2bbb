"""claims/claims.lock: what each claim was reviewed against (written by `verifier claims
rebind`, never by hand).

Schema 2, one line per claim:

    schema = 2
    [claim]
    "mujoco-atlas/state-and-time/rates" = { sentence = "ebda5413c4dcc959", line = 124,
        lesson = "<git blob of the lesson text>", spans = [["设定 h=", "0.002", " s，控制"]],
        words = { "不" = 1 } }

`sentence` is the hash of the reviewed sentence (verifier/claims/sentences.py); `spans`
each `says` span with up to 16 characters of the sentence on each side (short verbatim
contexts: the lock never holds whole lesson sentences); `words` the polarity words of
the claim's clause (`all`: of the whole sentence, when they differ); `line` the lesson line; `lesson` the blob of the lesson text, from
which a course checkout with history can show the whole reviewed sentence; `note` the
reviewer's note of a binding forced past a refusal (`rebind --force`); `marks` the
sentence's words that are the claim's own names and numbers, in order (identifiers and
numbers only: an edit that swaps two of them or changes one repetition of a checked value
outside the spans makes the claim `stale`, verifier/claims/binding.py).
Schema 1 (`[sentence]`: claim id -> hash) is read as entries without spans.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.claims.follow import MAX_MARKS, Reviewed
from verifier.errors import ConfigError

if TYPE_CHECKING:
    from verifier.cache import Store

LOCK_NAME = "claims.lock"
SCHEMA = 2
LOCK_SECTION = "claims-lock"       # the fact cache's section for a checked claims.lock
_HASH = re.compile(r"[0-9a-f]{16}")
_BLOB = re.compile(r"[0-9a-f]{40}")
_MAX_CONTEXT = 64


@dataclass
class Bindings:
    path: Path
    exists: bool
    entries: dict[str, Reviewed] = field(default_factory=dict)

    def get(self, gid: str) -> Reviewed | None:
        return self.entries.get(gid)

    def key(self, gid: str) -> list | None:
        """A claim's entry as plain data (memo keys)."""
        e = self.entries.get(gid)
        return None if e is None else entry_plain(e)


def lock_path(claims_root: Path) -> Path:
    return claims_root / LOCK_NAME


def entry_plain(e: Reviewed) -> list:
    return [e.sentence, [list(s) for s in e.spans], [list(w) for w in e.words], e.line,
            e.lesson, e.note, None if e.swords is None else [list(w) for w in e.swords],
            None if e.marks is None else list(e.marks)]


def entry_of(plain: list) -> Reviewed:
    sentence, spans, words, line, lesson, note, swords, *rest = plain
    marks = rest[0] if rest else None
    return Reviewed(sentence, tuple(tuple(s) for s in spans), tuple((w, int(n)) for w, n in words),
                    line, lesson, note,
                    None if swords is None else tuple((w, int(n)) for w, n in swords),
                    None if marks is None else tuple(marks))


def load_bindings(claims_root: Path, store: "Store | None" = None) -> Bindings:
    """claims.lock (ConfigError naming the file when it is not one). With a `store`, a
    lock whose bytes were checked before is taken from its fact cache by their blob."""
    from verifier.claims.confine import confined
    from verifier.tomlerrors import read_text

    path = lock_path(claims_root)
    if not path.is_file() and not path.is_symlink():
        return Bindings(path, False, {})
    confined(claims_root, path, "claims.lock")
    text = read_text(path)                   # ConfigError naming the file
    if store is None:
        return Bindings(path, True, _checked(text, path))
    from verifier.codeversion import code_version
    from verifier.facts.cache import fact_cache
    from verifier.gitblob import blob_sha

    table = fact_cache(store).get_or_build(
        LOCK_SECTION, code_version(__name__), blob_sha(text.encode("utf-8")),
        lambda: _checked(text, path), load=_entries_of,
        dump=lambda got: {k: entry_plain(v) for k, v in got.items()})
    return Bindings(path, True, table)


def _entries_of(plain: Any) -> dict[str, Reviewed]:
    if not isinstance(plain, dict):
        raise ValueError("not a table of claim entries")
    return {str(k): entry_of(v) for k, v in plain.items()}


def _bad(path: Path, gid: str, what: str) -> ConfigError:
    return ConfigError(f"claim {gid!r}: {what} (claims.lock is written by `verifier claims "
                       "rebind`, never by hand; re-create it with `verifier claims rebind --all`)",
                       file=str(path))


def _str(v: Any, limit: int = _MAX_CONTEXT) -> bool:
    return isinstance(v, str) and len(v) <= limit


def _entry(path: Path, gid: str, v: Any) -> Reviewed:
    if not isinstance(v, dict):
        raise _bad(path, gid, "must be a table")
    unknown = set(v) - {"sentence", "spans", "words", "all", "line", "lesson", "note",
                    "marks"}
    if unknown:
        raise _bad(path, gid, f"unknown key {sorted(unknown)[0]!r}")
    h = v.get("sentence")
    if not isinstance(h, str) or not _HASH.fullmatch(h):
        raise _bad(path, gid, "`sentence` must be a 16-hex-digit sentence hash")
    spans = v.get("spans", [])
    if not isinstance(spans, list) or not all(
            isinstance(s, list) and len(s) == 3 and _str(s[0]) and _str(s[1], 200) and _str(s[2])
            for s in spans):
        raise _bad(path, gid, "`spans` must be a list of [left, span, right] strings")
    def counts(key: str) -> tuple[tuple[str, int], ...] | None:
        got = v.get(key)
        if got is None:
            return None
        if not isinstance(got, dict) or not all(
                _str(k) and isinstance(n, int) and not isinstance(n, bool) and 0 < n < 1000
                for k, n in got.items()):
            raise _bad(path, gid, f"`{key}` must map polarity words to counts")
        return tuple(sorted(got.items()))

    words = counts("words") or ()
    swords = counts("all")
    line = v.get("line")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
        raise _bad(path, gid, "`line` must be a positive integer")
    lesson = v.get("lesson")
    if lesson is not None and (not isinstance(lesson, str) or not _BLOB.fullmatch(lesson)):
        raise _bad(path, gid, "`lesson` must be a 40-hex-digit git blob")
    note = v.get("note")
    if note is not None and not _str(note, 2000):
        raise _bad(path, gid, "`note` must be a string")
    marks = v.get("marks")
    if marks is not None and (not isinstance(marks, list) or len(marks) > MAX_MARKS
                              or not all(_str(m) and m for m in marks)):
        raise _bad(path, gid, f"`marks` must be a list of at most {MAX_MARKS} short strings")
    return Reviewed(h, tuple(tuple(s) for s in spans), words, line, lesson, note, swords,
                    None if marks is None else tuple(marks))


def _checked(text: str, path: Path) -> dict[str, Reviewed]:
    """The entries of claims.lock's text (ConfigError naming the file)."""
    from verifier.tomlerrors import parse_toml

    data = parse_toml(text, path)
    schema = data.get("schema")
    if schema == 1:
        table = data.get("sentence", {})
        if not isinstance(table, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and _HASH.fullmatch(v)
                for k, v in table.items()):
            raise ConfigError("[sentence] must map claim ids to 16-hex-digit sentence hashes "
                              "(written by `verifier claims rebind`, never by hand)", file=str(path))
        return {k: Reviewed(v) for k, v in table.items()}
    if schema != SCHEMA:
        raise ConfigError(f"unknown schema {schema!r} (this verifier writes schema = {SCHEMA}); "
                          "re-create it with `verifier claims rebind --all`", file=str(path))
    table = data.get("claim", {})
    if not isinstance(table, dict):
        raise ConfigError("[claim] must be a table of claim ids", file=str(path))
    return {str(k): _entry(path, str(k), v) for k, v in table.items()}


def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)       # a TOML basic string


def dump_bindings(entries: dict[str, Reviewed]) -> str:
    lines = ["# Written by `verifier claims rebind`: what each claim was reviewed against (the",
             "# hash of its lesson sentence, its `says` spans with a few characters of context,",
             "# the polarity words of its clause). Do not edit by hand: an edit of a claim's",
             "# spans is checked against the source; a sentence it cannot follow makes it `stale`.",
             f"schema = {SCHEMA}", "", "[claim]"]
    for gid in sorted(entries):
        e = entries[gid]
        parts = [f"sentence = \"{e.sentence}\""]
        if e.line is not None:
            parts.append(f"line = {e.line}")
        if e.lesson is not None:
            parts.append(f"lesson = \"{e.lesson}\"")
        if e.spans:
            parts.append("spans = [" + ", ".join(
                "[" + ", ".join(_toml_str(x) for x in s) + "]" for s in e.spans) + "]")
        if e.words:
            parts.append("words = { " + ", ".join(f"{_toml_str(w)} = {n}" for w, n in e.words)
                         + " }")
        if e.swords is not None:
            parts.append("all = { " + ", ".join(f"{_toml_str(w)} = {n}" for w, n in e.swords)
                         + " }")
        if e.marks:
            parts.append("marks = [" + ", ".join(_toml_str(m) for m in e.marks) + "]")
        if e.note is not None:
            parts.append(f"note = {_toml_str(e.note)}")
        lines.append(f"{_toml_str(gid)} = {{ {', '.join(parts)} }}")
    return "\n".join(lines) + "\n"
