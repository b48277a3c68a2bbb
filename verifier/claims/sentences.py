"""Sentence binding: each claim remembers the lesson sentence it was reviewed against.

A claim locates its sentence by a short verbatim `fragment`. When the sentence
around it is reworded (a number changed, "not" added) the fragment may still
match, and the claim would go on checking what the lesson no longer says. So
`verifier claims rebind` records, per claim, a hash of the whole sentence
(`claims/claims.lock`, written by the command, never by hand); `verifier check`
compares: a claim whose sentence changed is `stale` until a person has looked at
it again and re-bound it.

The sentence is the lesson model's (`verifier/lessons/model.py`), up to its
full stop (clauses ending in `;`/`；` are joined to what follows): Markdown markup
dropped, code spans kept verbatim, link targets dropped (so moving a permalink
to a new pin does not unbind anything), whitespace collapsed. A fragment that
spans several sentences binds all of them; one outside any sentence (a heading,
a code block) binds its source line(s).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import ConfigError

if TYPE_CHECKING:
    from verifier.cache import Store

LOCK_NAME = "claims.lock"
SCHEMA = 1
_HASH_LEN = 16
_INLINE = re.compile(r"\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)|`+|\*\*")


def _squash(s: str) -> str:
    return " ".join(s.split())


def _plain_fragment(fragment: str) -> str:
    """The fragment as the lesson model's plain text has it (markup dropped)."""
    return _squash(_INLINE.sub(lambda m: m.group(1) if m.group(1) is not None else "", fragment))


JOINED = "sentence-index"      # the fact cache's section for `_joined`


def _blocks(text: str, store: "Store | None" = None) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Per block: its sentences (plain text, line), in order. With a `store`, the lesson
    model comes from its cache (markdown-it once per lesson text, `lessons/cache.py`)."""
    from verifier.lessons.cache import load_sentences

    out: dict[int, list[tuple[str, int]]] = {}
    glue: set[int] = set()
    for s in load_sentences(text, store):
        t = _squash(s.text)
        row = out.setdefault(s.block, [])
        if s.block in glue and row:       # a clause after `;` belongs to the same sentence
            row[-1] = (row[-1][0] + " " + t, row[-1][1])
        else:
            row.append((t, s.line))
        (glue.add if t.endswith((";", "；")) else glue.discard)(s.block)
    return tuple(tuple(v) for _, v in sorted(out.items()))


_BLOCK_SEP = "\x00"     # between blocks in `_joined`: never in a fragment's plain text

Joined = tuple[str, tuple[tuple[int, int, int], ...], tuple[int, ...]]


def _join(blocks: tuple[tuple[tuple[str, int], ...], ...]) -> Joined:
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    pos = 0
    for sentences in blocks:
        if parts:
            parts.append(_BLOCK_SEP)
            pos += 1
        for i, (sent, ln) in enumerate(sentences):
            if i:
                parts.append(" ")
                pos += 1
            spans.append((pos, pos + len(sent), ln))
            parts.append(sent)
            pos += len(sent)
    return "".join(parts), tuple(spans), tuple(sp[0] for sp in spans)


@lru_cache(maxsize=128)
def _joined(text: str, store: "Store | None" = None) -> Joined:
    """Every block's sentences joined by spaces, the blocks joined by `_BLOCK_SEP`, each
    sentence's (start, end, line) in that string (its text is the slice), and the starts
    alone (for `bisect`): one search per claim.

    With a `store`, kept in its fact cache by the blob of the lesson's text and this
    module's code version (its closure holds the lesson model): building the sentence
    models of every lesson from the lesson cache cost 0.17 s of a warm `check` of the
    shared course here."""
    if store is None:
        return _join(_blocks(text, None))
    from verifier.codeversion import code_version
    from verifier.facts.cache import fact_cache
    from verifier.gitblob import blob_sha

    return fact_cache(store).get_or_build(
        JOINED, code_version(__name__), blob_sha(text.encode("utf-8")),
        lambda: _join(_blocks(text, store)), load=_joined_of,
        dump=lambda got: [got[0], [list(r) for r in got[1]]])


def _joined_of(plain: list) -> Joined:
    """`_joined`'s value from its stored form (ValueError for another shape)."""
    joined, rows = plain
    spans = tuple(map(tuple, rows))
    if not isinstance(joined, str) or not all(len(r) == 3 for r in spans):
        raise ValueError("not a sentence index")
    return joined, spans, tuple(r[0] for r in spans)


@lru_cache(maxsize=64)
def _squashed(text: str) -> str:
    return " ".join(text.split())


def occurrences(fragment: str, text: str) -> int:
    """How often the fragment's words occur in `text` with any whitespace between them
    (non-overlapping): counted in the text with its whitespace runs squashed, which
    is the same count as matching `w1\\s+w2...` (both split on Unicode whitespace)."""
    words = fragment.split()
    if not words:
        return 0
    return _squashed(text).count(" ".join(words))


def _find(fragment: str, text: str) -> tuple[int, int] | None:
    """Offsets of the first verbatim occurrence of `fragment` (whitespace runs may
    differ, so a fragment may span a wrapped line), or None."""
    i = text.find(fragment)
    if i >= 0:
        return i, i + len(fragment)
    words = fragment.split()
    if not words:
        return None
    m = re.search(r"\s+".join(re.escape(w) for w in words), text)
    return (m.start(), m.end()) if m else None


def locate(fragment: str, text: str) -> int | None:
    """1-based line where `fragment` occurs verbatim; None when it is gone."""
    at = _find(fragment, text)
    return text.count("\n", 0, at[0]) + 1 if at else None


def sentence_of(text: str, fragment: str, line: int | None = None, *,
                store: "Store | None" = None) -> str | None:
    """The whole sentence(s) of `text` (a lesson) that hold `fragment`, or None when
    the fragment is not in the lesson. Prefers the occurrence on `line`."""
    want = _plain_fragment(fragment)
    if not want:
        return None
    hits: list[tuple[int, str]] = []
    if _BLOCK_SEP not in want:
        joined, spans, starts = _joined(text, store)
        start = joined.find(want)
        while start >= 0:       # the sentences the occurrence overlaps (never two blocks)
            end = start + len(want)
            i = max(bisect.bisect_right(starts, start) - 1, 0)
            covered = []
            while i < len(spans) and spans[i][0] < end:
                if spans[i][1] > start:
                    covered.append(spans[i])
                i += 1
            if covered:
                hits.append((covered[0][2], " ".join(joined[sp[0]:sp[1]] for sp in covered)))
            start = joined.find(want, start + 1)
    if hits:
        if line is not None:
            hits.sort(key=lambda h: abs(h[0] - line))
        return hits[0][1]
    # not inside a sentence (heading, table syntax, code block): the source line(s)
    at = _find(fragment, text)
    if at is None:
        return None
    raw_start, raw_end = at
    a = text.rfind("\n", 0, raw_start) + 1
    b = text.find("\n", raw_end)
    return _squash(_INLINE.sub(lambda m: m.group(1) if m.group(1) is not None else "",
                               text[a: b if b >= 0 else len(text)]))


def sentence_hash(sentence: str) -> str:
    return hashlib.sha256(_squash(sentence).encode("utf-8")).hexdigest()[:_HASH_LEN]


# ------------------------------------------------------------------ claims.lock

@dataclass
class Bindings:
    path: Path
    exists: bool
    sentences: dict[str, str]          # claim id -> sentence hash

    def get(self, gid: str) -> str | None:
        return self.sentences.get(gid)


def lock_path(claims_root: Path) -> Path:
    return claims_root / LOCK_NAME


LOCK_SECTION = "claims-lock"       # the fact cache's section for a checked claims.lock


def load_bindings(claims_root: Path, store: "Store | None" = None) -> Bindings:
    """claims.lock (ConfigError naming the file when it is not one). With a `store`, a
    lock whose bytes were checked before is taken from its fact cache by their blob
    (the TOML parse and the check cost 0.04 ms per claim here)."""
    from verifier.tomlerrors import read_text

    from verifier.claims.model import confined

    path = lock_path(claims_root)
    if not path.is_file() and not path.is_symlink():
        return Bindings(path, False, {})
    confined(claims_root, path, "claims.lock")
    text = read_text(path)                   # ConfigError naming the file
    if store is None:
        return Bindings(path, True, _checked_table(text, path))
    from verifier.codeversion import code_version
    from verifier.facts.cache import fact_cache
    from verifier.gitblob import blob_sha

    table = fact_cache(store).get_or_build(
        LOCK_SECTION, code_version(__name__), blob_sha(text.encode("utf-8")),
        lambda: _checked_table(text, path), load=_str_map)
    return Bindings(path, True, table)


def _str_map(plain: dict) -> dict[str, str]:
    if not isinstance(plain, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in plain.items()):
        raise ValueError("not a table of sentence hashes")
    return plain


def _checked_table(text: str, path: Path) -> dict[str, str]:
    """The `[sentence]` table of claims.lock's text (ConfigError naming the file)."""
    from verifier.tomlerrors import parse_toml

    data = parse_toml(text, path)
    if data.get("schema") != SCHEMA:
        raise ConfigError(f"unknown schema {data.get('schema')!r} (this verifier writes "
                          f"schema = {SCHEMA}); re-create it with `verifier claims rebind --all`",
                          file=str(path))
    table = data.get("sentence", {})
    if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and re.fullmatch(r"[0-9a-f]{16}", v)
            for k, v in table.items()):
        raise ConfigError("[sentence] must map claim ids to 16-hex-digit sentence hashes "
                          "(written by `verifier claims rebind`, never by hand)", file=str(path))
    return dict(table)


def dump_bindings(sentences: dict[str, str]) -> str:
    import json

    lines = ["# Written by `verifier claims rebind`: the hash of the lesson sentence each claim",
             "# was reviewed against. Do not edit by hand; a reworded sentence makes its claim",
             "# `stale` until it is re-checked and re-bound.",
             f"schema = {SCHEMA}", "", "[sentence]"]
    for gid in sorted(sentences):
        lines.append(f"{json.dumps(gid)} = \"{sentences[gid]}\"")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ rebind

@dataclass(frozen=True)
class Rebound:
    gid: str
    old: str | None
    new: str


def rebind(project, ids: list[str] | None) -> list[Rebound]:
    """Bind the claims `ids` (global ids `<course>/<lesson-stem>/<id>`; a lesson
    prefix `<course>/<lesson-stem>` binds all its claims), or every claim when `ids`
    is None, to their lesson sentences as they read now; write claims.lock. A claim
    whose fragment is not in its lesson cannot be bound (it is stale: fix the
    fragment first)."""
    from verifier.claims.loader import claims_root, load_claims
    from verifier.errors import UsageError
    from verifier.safewrite import Area

    loaded = load_claims(project)
    by_gid = {lc.gid: lc for lc in loaded}
    if ids is None:
        chosen = loaded
    else:
        chosen, unknown = [], []
        for i in ids:
            i = i.rstrip("/")
            hit = [by_gid[i]] if i in by_gid else [lc for lc in loaded
                                                   if lc.gid.startswith(i + "/")]
            if not hit:
                unknown.append(i)
            chosen.extend(hit)
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], sorted(by_gid), n=3, cutoff=0.6)
            raise UsageError(f"no claim {unknown[0]!r}" + (
                f"; did you mean {', '.join(close)}?" if close else
                " (ids as `verifier check` prints them: <course>/<lesson-stem>/<id>)"))
    current = load_bindings(claims_root(project))
    table = dict(current.sentences)
    out: list[Rebound] = []
    problems: list[str] = []
    texts: dict[tuple[str, str], str | None] = {}
    for lc in {lc.gid: lc for lc in chosen}.values():
        key = (lc.course, lc.lesson)
        if key not in texts:
            course = project.pins.course.get(lc.course)
            f = project.course_root(course) / lc.lesson if course is not None else None
            try:
                texts[key] = f.read_text(encoding="utf-8") if f is not None and f.is_file() \
                    else None
            except (OSError, UnicodeDecodeError):
                texts[key] = None
        text = texts[key]
        # the sentence `check` binds to: the fragment located as `check` locates it
        # (markup kept: "`margin`" is not the earlier plain word "margin")
        line = locate(lc.claim.fragment, text) if text is not None and lc.claim.fragment \
            else None
        sentence = sentence_of(text, lc.claim.fragment, line, store=project.store) \
            if line is not None else None
        if sentence is None:
            problems.append(f"{lc.gid} ({lc.where}): fragment {lc.claim.fragment!r} is not in "
                            f"{lc.course}/{lc.lesson}")
            continue
        h = sentence_hash(sentence)
        out.append(Rebound(lc.gid, table.get(lc.gid), h))
        table[lc.gid] = h
    if problems:
        raise UsageError("cannot bind a claim whose fragment left its lesson (fix the fragment, "
                         "then re-bind): " + "; ".join(problems[:5])
                         + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""))
    if ids is None:      # --all: forget claims that no longer exist
        table = {g: h for g, h in table.items() if g in by_gid}
    Area.edit(current.path.parent, "the claim files").write(current.path, dump_bindings(table))
    return out
