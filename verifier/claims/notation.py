"""Notation tables: how a course's or a lesson's notation maps to source names.

A lesson writes `g_W` where Drake's code names the parameter `gravity_vector`,
or `int(time * fps)` where the code has `int(time * self.fps)`. A claim file may
declare that once, in a `[notation]` table, and so may a course, in
`claims/<course>/notation.toml` (same table):

    [notation]
    g_W = "gravity_vector"          # lesson spelling = source spelling
    r_W = "p_BS_W"
    receivers = ["self."]           # a source `self.x` may be written `x`

Rules (so that a mapping cannot hide a real error):
- both sides are names (identifiers, optionally qualified with `.`, `::`, `->`);
  a mapping renames a lesson name to a source name, it never rewrites values,
  literals or operators;
- a receiver is a name followed by `.`, `->` or `::`; it may be left out in the
  lesson in front of a name, never elsewhere;
- mappings apply only to what a claim *expects* (the lesson's side), never to its
  locators (`path`, `symbol`, options), and only where the literal spelling does
  not already match;
- mappings are applied at once, never one after another: with `g_W =
  "gravity_vector"` and `gravity_vector = "gravity_vector_"`, the lesson's `g_W`
  is the source's `gravity_vector` (a parameter) and the lesson's
  `gravity_vector` the source's `gravity_vector_` (a member);
- a conflicting table is a configuration error naming both places: the same
  lesson name mapped to two source names (course and lesson file), or a name
  mapped to itself;
- a mapping (or receiver) that no checked claim needed is reported as a warning
  (`notation-unused`), like an unused lint suppression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifier.errors import ConfigError

NOTATION_FILE = "notation.toml"
RULE = "notation-unused"
CODE = "VC150"

_TOKEN = re.compile(r"::|->|\.|[^\W\d]\w*|\S")
_PART = re.compile(r"^[^\W\d]\w*$")
_SEPS = ("::", "->", ".")


def name_tokens(text: str) -> tuple[str, ...]:
    """`a.b` -> ('a', '.', 'b'); `self.` -> ('self', '.')."""
    return tuple(_TOKEN.findall(text))


def is_name(text: str) -> bool:
    toks = name_tokens(text)
    if not toks or toks[0] in _SEPS or toks[-1] in _SEPS:
        return False
    for i, t in enumerate(toks):
        if (i % 2 == 0) != bool(_PART.match(t)) or (i % 2 == 1 and t not in _SEPS):
            return False
    return "".join(toks) == text.strip()


def is_receiver(text: str) -> bool:
    toks = name_tokens(text)
    return (len(toks) >= 2 and toks[-1] in _SEPS and is_name("".join(toks[:-1]))
            and "".join(toks) == text.strip())


@dataclass(frozen=True)
class Mapping:
    lesson: str
    source: str
    where: str                 # file:line of the declaration
    kind: str = "name"         # name | receiver

    @property
    def lesson_tokens(self) -> tuple[str, ...]:
        return name_tokens(self.lesson)

    @property
    def source_tokens(self) -> tuple[str, ...]:
        return name_tokens(self.source)

    def describe(self) -> str:
        if self.kind == "receiver":
            return f"receiver `{self.source}` left out in the lesson ({self.where})"
        return f"`{self.lesson}` (lesson) = `{self.source}` (source) ({self.where})"


@dataclass(frozen=True)
class Notation:
    names: tuple[Mapping, ...] = ()
    receivers: tuple[Mapping, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.names or self.receivers)

    @property
    def entries(self) -> tuple[Mapping, ...]:
        return self.names + self.receivers

    def key(self) -> list:
        """Canonical form for cache keys (what the comparison depends on)."""
        return [[m.kind, m.lesson, m.source] for m in self.entries]

    def merged(self, other: "Notation") -> "Notation":
        """`self` (course) with `other` (a claim file) on top; conflicts are errors."""
        by_lesson = {m.lesson: m for m in self.names}
        names = list(self.names)
        for m in other.names:
            prev = by_lesson.get(m.lesson)
            if prev is not None and prev.source != m.source:
                raise ConfigError(f"notation conflict: `{m.lesson}` = `{m.source}` here, but "
                                  f"`{prev.source}` at {prev.where}",
                                  file=m.where.rsplit(":", 1)[0], line=_line(m.where),
                                  key=m.lesson)
            if prev is None:
                by_lesson[m.lesson] = m
                names.append(m)
        recv = list(self.receivers)
        for r in other.receivers:
            if all(x.source != r.source for x in recv):
                recv.append(r)
        return Notation(tuple(names), tuple(recv))


def _line(where: str) -> int | None:
    tail = where.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else None



def _key_line(text: str, key: str, header: int | None) -> int:
    lines = text.splitlines()
    pat = re.compile(r'^\s*(?:' + re.escape(key) + r'|"' + re.escape(key) + r'"|\''
                     + re.escape(key) + r'\')\s*=')
    start = header or 0
    for j in range(start, len(lines)):
        if j > start and header is not None and lines[j].lstrip().startswith("["):
            break
        if pat.match(lines[j]):
            return j + 1
    return (header or 0) + 1 if header else 1


def _header_line(text: str) -> int | None:
    for i, line in enumerate(text.splitlines()):
        if re.match(r"^\s*\[\s*notation\s*\]\s*(#.*)?$", line):
            return i
    for i, line in enumerate(text.splitlines()):
        if re.match(r"^\s*notation\s*=", line):
            return i
    return None


def parse_table(table: Any, file: Path, text: str, shown: str | None = None) -> Notation:
    """A `[notation]` table (already read from TOML) into a checked `Notation`;
    `shown` is how entries name their file (default: the path as given)."""
    header = _header_line(text)
    if not isinstance(table, dict):
        raise ConfigError("`notation` must be a table of lesson name = \"source name\" "
                          "(and optionally receivers = [\"self.\"])", file=str(file),
                          line=(header or 0) + 1)
    names: list[Mapping] = []
    receivers: list[Mapping] = []
    for key, value in table.items():
        line = _key_line(text, key, header)
        where = f"{shown or file}:{line}"
        if key == "receivers" and isinstance(value, list):
            for r in value:
                if not isinstance(r, str) or not is_receiver(r):
                    raise ConfigError(f"notation receivers: {r!r} is not a receiver (a name "
                                      "followed by `.`, `->` or `::`, e.g. \"self.\")",
                                      file=str(file), line=line, key="receivers")
                receivers.append(Mapping("", r.strip(), where, "receiver"))
            continue
        if not isinstance(value, str):
            raise ConfigError(f"notation `{key}` must map to a source name (a string), got "
                              f"{value!r}", file=str(file), line=line, key=key)
        if not is_name(key):
            raise ConfigError(f"notation key `{key}` is not a name: a mapping renames a lesson "
                              "name, it never rewrites values or operators",
                              file=str(file), line=line, key=key)
        if not is_name(value):
            raise ConfigError(f"notation `{key}` = {value!r}: the source side must be a name "
                              "(identifier, optionally qualified); a mapping never rewrites "
                              "values or operators", file=str(file), line=line, key=key)
        if key == value.strip():
            raise ConfigError(f"notation `{key}` maps to itself", file=str(file), line=line,
                              key=key)
        names.append(Mapping(key, value.strip(), where))
    return Notation(tuple(names), tuple(receivers))


def load_course_notation(course_dir: Path, shown_dir: str | None = None) -> Notation:
    """`claims/<course>/notation.toml`, or an empty notation."""
    from verifier.tomlerrors import read_toml

    from verifier.claims.confine import confined

    path = course_dir / NOTATION_FILE
    if not path.is_file() and not path.is_symlink():
        return Notation()
    confined(course_dir.parent, path, NOTATION_FILE)
    data, text = read_toml(path)
    extra = sorted(set(data) - {"notation"})
    if extra:
        raise ConfigError(f"{NOTATION_FILE} holds only a [notation] table (found: "
                          f"{', '.join(extra)})", file=str(path))
    shown = f"{shown_dir}/{NOTATION_FILE}" if shown_dir else None
    return parse_table(data.get("notation", {}), path, text, shown)


# ------------------------------------------------------------------ per-claim use

@dataclass
class Tracker:
    """The notation in force for one claim, and the entries its check needed."""

    notation: Notation = field(default_factory=Notation)
    used: dict[str, Mapping] = field(default_factory=dict)

    def probe(self) -> "Tracker":
        """A throw-away tracker with the same notation (for comparisons whose use
        must not count, e.g. building a message)."""
        return Tracker(self.notation)

    def record(self, uses) -> None:
        for m in uses:
            self.used.setdefault(f"{m.kind}\0{m.lesson}\0{m.source}", m)

    def used_list(self) -> list[Mapping]:
        return sorted(self.used.values(), key=lambda m: (m.where, m.lesson, m.source))

    def describe_used(self) -> str | None:
        used = self.used_list()
        if not used:
            return None
        return "through notation: " + "; ".join(m.describe() for m in used)


def applicable(m: Mapping, expected: Any) -> bool:
    """Whether the entry could apply to a claim's `expected` at all."""
    def strings(v: Any):
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            for k, x in v.items():
                yield str(k)
                yield from strings(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                yield from strings(x)

    if m.kind == "receiver":
        return any(re.search(r"[^\W\d]\w*", s) for s in strings(expected))
    want = m.lesson_tokens
    n = len(want)
    for s in strings(expected):
        toks = name_tokens(s)
        if any(toks[i:i + n] == want for i in range(len(toks) - n + 1)):
            return True
    return False


def unused_findings(items: list[tuple[Notation, Any, str, set[str], bool]]):
    """Warnings for entries no claim needed.

    `items`: per checked claim (notation in force, its expected value, verdict,
    keys of the entries it used, whether the claim was decided: verified or
    diverged). An entry is reported when every claim it could apply to was decided
    and none of them needed it (an entry that applies to no claim is reported too);
    a claim left unavailable or in error makes its entries inconclusive."""
    from verifier.results import Finding, Severity

    entries: dict[str, Mapping] = {}
    needed: set[str] = set()
    undecided: set[str] = set()
    for nt, expected, _verdict, used, decided in items:
        for m in nt.entries:
            k = f"{m.kind}\0{m.lesson}\0{m.source}\0{m.where}"
            entries.setdefault(k, m)
            if f"{m.kind}\0{m.lesson}\0{m.source}" in used:
                needed.add(k)
            elif not decided and applicable(m, expected):
                undecided.add(k)
    out = []
    for k, m in sorted(entries.items(), key=lambda kv: (kv[1].where, kv[1].lesson)):
        if k in needed or k in undecided:
            continue
        file, _, line = m.where.rpartition(":")
        what = (f"receiver `{m.source}`" if m.kind == "receiver"
                else f"`{m.lesson}` = `{m.source}`")
        out.append(Finding(rule=RULE, code=CODE, severity=Severity.WARNING, path=file,
                           line=int(line) if line.isdigit() else 1,
                           message=f"notation {what} is used by no checked claim "
                                   "(remove it, or fix the claim it was written for)",
                           target=m.lesson or m.source))
    return out
