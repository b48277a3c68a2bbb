"""The cached form of a symbol index: one SQLite database per index, queried by name.

A warm lint of one lesson asks an index about a few dozen names, but an index holds
10^4-10^5 rows (Drake's release surface 85k): loading every row costs 0.1-0.2 s per
index before the first question. So the cache is a database with the rows in one
table, indexed by name, parent, module and path, and `open_index` answers
`SymbolIndex`'s questions (`by_name`, `modules`, `members`, `aliases`,
`definitions_in`, `symbols`) with queries, each answer memoised. An in-memory index
(just built) and one opened from its database answer every question identically
(tests/speed/test_index_format.py holds the two to the same checks).

The database is built in memory, checked (it must read back equal to the index:
rows, their order, metadata) and written atomically (`Store.write_bytes`); it is
opened read-only and immutable, so a reader never takes a lock and never writes.
A file that is not such a database, or of another `INDEX_VERSION`, is refused
(ValueError) and the caller rebuilds it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path

from verifier.facts.projection import INDEX_VERSION, Symbol, SymbolIndex

FORMAT = "verifier-symbol-index"
INDEX_SUFFIX = ".sqlite"
_COLS = ("name", "kind", "path", "line", "parent", "module", "target", "lang", "qual", "end_",
         "evidence", "producer")
_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rows(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
                  path TEXT NOT NULL, line INTEGER NOT NULL, parent TEXT, module TEXT,
                  target TEXT, lang TEXT, qual TEXT NOT NULL, end_ INTEGER,
                  evidence TEXT NOT NULL, producer TEXT NOT NULL);
"""
_INDEXES = """
CREATE INDEX rows_name ON rows(name);
CREATE INDEX rows_parent ON rows(parent);
CREATE INDEX rows_module ON rows(module);
CREATE INDEX rows_path ON rows(path, line);
"""
_SELECT = "SELECT " + ", ".join(_COLS) + " FROM rows"
_INSERT = f"INSERT INTO rows(id, {', '.join(_COLS)}) VALUES ({', '.join('?' * (len(_COLS) + 1))})"


_SEP, _JSON = "\x1f", "\x00"


def _qual_text(qual: tuple[str, ...]) -> str:
    """A qualified name as text: parts joined by the unit separator (JSON, marked, for
    parts that would not split back: a separator inside a part, a lone empty part, a
    first part starting with the JSON mark)."""
    if not qual:
        return ""
    text = _SEP.join(qual)
    if text.count(_SEP) == len(qual) - 1 and text and not text.startswith(_JSON):
        return text
    return _JSON + json.dumps(list(qual))


def _qual(text: str) -> tuple[str, ...]:
    if not text:
        return ()
    if text[0] == _JSON:
        return tuple(json.loads(text[1:]))
    return tuple(text.split(_SEP))


def _row(r: tuple) -> Symbol:
    q = r[8]
    return Symbol(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                  tuple(q.split(_SEP)) if q and q[0] != _JSON else _qual(q), r[9], r[10], r[11])


def _module_list(index: SymbolIndex) -> list[str]:
    return list(index.modules)


# --------------------------------------------------------------------------- writing

def dump_index(index: SymbolIndex) -> bytes:
    """The database bytes of `index`, checked when written: the database must hold
    exactly the rows and metadata written (read back as stored, without building rows)."""
    meta = [("format", FORMAT), ("version", str(INDEX_VERSION)),
            ("index", json.dumps(index.model_dump(mode="json", exclude={"symbols"}),
                                 sort_keys=True)),
            ("modules", json.dumps(_module_list(index))), ("count", str(len(index.symbols)))]
    rows = [(i, s.name, s.kind, s.path, s.line, s.parent, s.module, s.target, s.lang,
             _qual_text(s.qual), s.end, s.evidence, s.producer)
            for i, s in enumerate(index.symbols)]
    con = sqlite3.connect(":memory:")
    try:
        con.executescript(_SCHEMA)
        con.executemany("INSERT INTO meta VALUES (?, ?)", meta)
        con.executemany(_INSERT, rows)
        con.executescript(_INDEXES)         # after the rows: one sort per index
        con.commit()
        data = con.serialize()
    finally:
        con.close()
    back = sqlite3.connect(":memory:")
    try:
        back.deserialize(data)
        same = (sorted(back.execute("SELECT key, value FROM meta")) == sorted(meta)
                and back.execute(f"SELECT id, {', '.join(_COLS)} FROM rows ORDER BY id")
                .fetchall() == rows)
    finally:
        back.close()
    if not same:
        raise ValueError(f"the index of {index.upstream} does not round-trip")
    return data


# --------------------------------------------------------------------------- reading

def open_index(path: Path) -> SymbolIndex:
    """The index cached at `path`, answering by query (nothing loaded up front).
    OSError when absent; ValueError when it is not an index of this format."""
    if not path.is_file():
        raise FileNotFoundError(path)
    try:
        con = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro&immutable=1", uri=True,
                              check_same_thread=False)
    except sqlite3.Error as exc:
        raise ValueError(f"not a symbol index: {exc}") from None
    return _attach(con)


def load_index(data: bytes) -> SymbolIndex:
    """An index from `dump_index`'s bytes (a copy in memory). ValueError on anything else."""
    if not data.startswith(b"SQLite format 3\x00"):
        raise ValueError("not a symbol index of this format")
    con = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        con.deserialize(data)
    except sqlite3.Error as exc:
        con.close()
        raise ValueError(f"corrupt symbol index: {exc}") from None
    return _attach(con)


def _attach(con: sqlite3.Connection) -> SymbolIndex:
    try:
        meta = dict(con.execute("SELECT key, value FROM meta"))
        if meta.get("format") != FORMAT or meta.get("version") != str(INDEX_VERSION):
            raise ValueError(f"not a symbol index of version {INDEX_VERSION}")
        index = SymbolIndex.model_validate(json.loads(meta["index"]))
        store = _Rows(con, json.loads(meta["modules"]), int(meta["count"]))
    except (sqlite3.Error, KeyError, TypeError, json.JSONDecodeError) as exc:
        con.close()
        raise ValueError(f"corrupt symbol index: {exc}") from None
    except ValueError:
        con.close()
        raise
    index.attach_rows(store)
    return index


class _Rows:
    """The queries behind a stored index (`SymbolIndex.attach_rows`)."""

    def __init__(self, con: sqlite3.Connection, modules: list[str], count: int) -> None:
        self.con, self.module_list, self.count = con, modules, count

    def query(self, where: str, args: tuple) -> list[Symbol]:
        try:
            return [_row(r) for r in self.con.execute(f"{_SELECT} WHERE {where} ORDER BY id",
                                                      args)]
        except sqlite3.Error as exc:
            raise ValueError(f"corrupt symbol index: {exc}") from None

    def all(self) -> list[Symbol]:
        return self.query("1", ())

    def names(self) -> list[str]:
        return [n for (n,) in self.con.execute(
            "SELECT name FROM rows GROUP BY name ORDER BY MIN(id)")]

    def names_with_prefix(self, prefix: str) -> list[str]:
        if not prefix:
            return self.names()
        return [n for (n,) in self.con.execute(
            "SELECT name FROM rows WHERE name >= ? AND name < ? GROUP BY name ORDER BY MIN(id)",
            (prefix, prefix + "\U0010ffff")) if n.startswith(prefix)]

    def aliases(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, target in self.con.execute(
                "SELECT name, target FROM rows WHERE kind = 'typedef' AND target IS NOT NULL "
                "AND target != '' ORDER BY id"):
            out[name] = target
        return out

    def definitions_in(self, path: str, start: int, end: int) -> list[Symbol]:
        return self.query("path = ? AND line BETWEEN ? AND ? AND kind != 'import'",
                          (path, start, end))

    def by_name(self) -> Mapping[str, list[Symbol]]:
        names: list[str] = []

        def keys():
            if not names:
                names.extend(self.names())
            return names

        return _View(lambda n: self.query("name = ?", (n,)) or None, keys)

    def modules(self) -> Mapping[str, dict[str, list[Symbol]]]:
        known = set(self.module_list)

        def fetch(m: str):
            if m not in known:
                return None
            return _grouped(self.query("module = ? AND (parent = ? OR kind = 'module')", (m, m)))

        return _View(fetch, lambda: self.module_list)

    def members(self) -> Mapping[str, dict[str, list[Symbol]]]:
        where = ("parent IS NOT NULL AND parent != '' AND (module IS NULL OR module != parent) "
                 "AND kind NOT IN ('parameter', 'keyword')")
        parents: list[str] = []

        def keys():
            if not parents:
                parents.extend(p for (p,) in self.con.execute(
                    f"SELECT parent FROM rows WHERE {where} GROUP BY parent ORDER BY MIN(id)"))
            return parents

        return _View(lambda p: _grouped(self.query(f"parent = ? AND {where}", (p,))) or None,
                     keys)


def _grouped(rows: list[Symbol]) -> dict[str, list[Symbol]]:
    out: dict[str, list[Symbol]] = {}
    for s in rows:
        out.setdefault(s.name, []).append(s)
    return out


class _View(Mapping):
    """A read-only mapping answered key by key (memoised), iterated from the database."""

    def __init__(self, fetch, keys) -> None:
        self._fetch, self._keys, self._memo = fetch, keys, {}

    def _get(self, key):
        if key not in self._memo:
            self._memo[key] = self._fetch(key) if isinstance(key, str) else None
        return self._memo[key]

    def __getitem__(self, key):
        got = self._get(key)
        if got is None:
            raise KeyError(key)
        return got

    def __contains__(self, key) -> bool:
        try:
            self[key]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())


__all__ = ["FORMAT", "INDEX_SUFFIX", "dump_index", "load_index", "open_index"]
