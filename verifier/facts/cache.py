"""Content-addressed fact cache: extract once per blob, ever.

An entry is keyed by what its value is a pure function of:

    (extractor name, extractor version, blob SHA[, canonical query])

- *extractor version* is `verifier.codeversion.code_version` of the module that
  computes the value (its import closure inside `verifier/` and the query files it
  loads), so any change to an extractor invalidates its entries and nothing else;
- *blob SHA* is the git blob of the file the value was computed from, so an
  entry serves every pin and every run that holds the same bytes (most blobs do
  not change between releases);
- *query* is the canonical JSON of whatever else the value depends on (a
  claim's kind, locator, expected value and options; the module name a Python
  file is indexed under), for extraction that is query-specific.

Layout (under the `Store` root; `verifier cache clean --section facts`):

    facts/<extractor>/<version>/<blob[:2]>/<blob>-<key digest>.bin

Values are plain data only (None, bool, int, float, str, bytes, lists/tuples, dicts
with str keys): producers convert their records (`to_plain()` / `from_plain()`);
anything else is refused when written (`put` raises TypeError). An entry is

    MAGIC (8 bytes) | key id (8) | payload length (4) | HMAC-SHA256 (32) | payload (msgpack)

The HMAC covers the magic, the entry's key digest (so a valid entry cannot be
moved under another key), the length and the payload, with the store's signing key, which is
kept outside the cache (`Store.signing_key`). Decoding is msgpack - plain data, no
code runs (a pickle would) and no model re-validation (validated when written).
An entry that is torn, corrupt or was not signed with this store's key is removed,
counted, and treated as a miss: the value is computed again in the same run.
Entries of another key (a copied or restored cache) are `foreign`; entries of this
key with a wrong MAC are `forged` (corrupt or written by something that is not
verifier) and are reported in the run's notes (`FactCache.notes`).

msgpack (a C extension that pip itself vendors) is the dependency for the encoding:
on the symbol rows of a 2,000-symbol file it decodes in 0.95 ms against pickle's
0.60 ms and JSON's 1.39 ms, without pickle's code execution (docs/bench.md).

Memoised claim outcomes (`verifier/claims/memo.py`) are stored here too, under
`facts/claim/`.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import shutil
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgpack

from verifier.cache import read_entry
from verifier.codeversion import code_version

if TYPE_CHECKING:
    from verifier.cache import Store

MAGIC = b"VFACT2\n\0"          # format 2: signed msgpack (format 1 was a checksummed pickle)
_KEYID, _LEN, _MAC = 8, 4, 32
_HEAD = len(MAGIC) + _KEYID + _LEN + _MAC
_VERSION = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
USED = ".used"                   # marker: this version was used (gc keeps the newest per extractor)


@dataclass
class Stats:
    hits: int = 0
    misses: int = 0
    writes: int = 0
    corrupt: int = 0        # torn or unreadable entries
    forged: int = 0         # signed with this store's key space but the MAC does not match
    foreign: int = 0        # signed with another key (a copied or restored cache)
    stale: int = 0          # memo entries whose dependencies changed
    audited: int = 0        # memo hits re-derived (claims/memo.py)
    refused: int = 0        # values that are not plain data (not stored)


def canonical(query: Any) -> str:
    """Canonical JSON of a query: sorted keys, no whitespace, non-JSON values as repr."""
    return json.dumps(query, sort_keys=True, separators=(",", ":"), default=repr,
                      ensure_ascii=False)


def disabled() -> bool:
    return os.environ.get("VERIFIER_FACT_CACHE", "1").strip().lower() in ("0", "off", "no")


def encode(value: Any) -> bytes:
    """Plain data as msgpack; TypeError for anything else (no fallback, no pickle)."""
    return msgpack.packb(value, use_bin_type=True, strict_types=False, datetime=False)


def decode(payload: bytes) -> Any:
    return msgpack.unpackb(payload, raw=False, use_list=True, strict_map_key=True,
                           timestamp=0)


def round_trip(value: Any) -> Any:
    """`value` as it reads back from the cache (tuples become lists), or None when it is
    not plain data: what a memo's audit compares a fresh value with."""
    try:
        return decode(encode(value))
    except (TypeError, ValueError, OverflowError):
        return None


class FactCache:
    """Signed plain-data entries under `<store root>/facts/`."""

    def __init__(self, store: "Store") -> None:
        self.store = store
        self.root = store.path("facts")
        self._root_s = os.fspath(self.root)
        self.stats = Stats()
        self.enabled = not disabled()
        self.notes: list[str] = []
        self.notify: Callable[[str], None] | None = None   # the run's notes, when a run set it
        self._used: set[tuple[str, str]] = set()
        self._key: bytes | None = None

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = self.store.signing_key()
            if self.store.key_note:
                self.note(self.store.key_note)
        return self._key

    def note(self, msg: str) -> None:
        if msg not in self.notes:
            self.notes.append(msg)
            if self.notify is not None:
                self.notify(msg)

    # ----------------------------------------------------------------- keys
    def path(self, extractor: str, version: str, blob: str, query: Any = None) -> Path:
        return Path(self._locate(extractor, version, blob, query)[0])

    def locate(self, extractor: str, version: str, blob: str, query: Any = None
               ) -> tuple[str, bytes]:
        """Where an entry lives (a path string) and its key digest, for `get(..., at=...)`:
        a caller that also needs the entry's name (a memo's audit sample) locates it once."""
        return self._locate(extractor, version, blob, query)

    def _locate(self, extractor: str, version: str, blob: str, query: Any) -> tuple[str, bytes]:
        if not blob or any(c not in "0123456789abcdef" for c in blob):
            raise ValueError(f"not a blob SHA: {blob!r}")
        if not extractor.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"bad extractor name {extractor!r}")
        if not _VERSION.match(version):
            raise ValueError(f"bad extractor version {version!r}")
        key = hashlib.sha256(canonical([extractor, version, blob, query]).encode()).hexdigest()
        # a plain string: a pathlib.Path per entry (built, then turned back into a string
        # to open it) cost 0.1 ms per claim of a warm check at 10x the course here
        return (f"{self._root_s}/{extractor}/{version}/{blob[:2]}/{blob}-{key[:24]}.bin",
                key.encode())

    def _mac(self, key_digest: bytes, payload: bytes) -> bytes:
        size = len(payload).to_bytes(_LEN, "big")
        return hmac.digest(self.key, MAGIC + key_digest + b"\0" + size + payload, "sha256")

    def _key_id(self) -> bytes:
        return hashlib.sha256(b"key-id\0" + self.key).digest()[:_KEYID]

    def _mark_used(self, extractor: str, version: str) -> None:
        if (extractor, version) in self._used:
            return
        self._used.add((extractor, version))
        marker = self.root / extractor / version / USED
        with contextlib.suppress(OSError):
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()

    # ----------------------------------------------------------------- io
    def get(self, extractor: str, version: str, blob: str, query: Any = None, *,
            at: tuple[str, bytes] | None = None) -> Any | None:
        """The stored value, or None (absent, disabled, or bad - then removed); `at`:
        what `locate` gave for the same arguments."""
        if not self.enabled:
            self.stats.misses += 1
            return None
        p, kd = at if at is not None else self._locate(extractor, version, blob, query)
        self.key            # loaded before any fork (extract_files' pool inherits it)
        self._mark_used(extractor, version)
        try:
            raw = read_entry(Path(p))          # never through a link, never blocks on a fifo
        except FileNotFoundError:
            self.stats.misses += 1
            return None
        except OSError:
            self.stats.misses += 1
            self.store._clear_non_file(Path(p))      # a foreign entry: removed, rebuilt
            return None
        value = self._decode(raw, kd, p)
        if value is None:
            self.stats.misses += 1
            with contextlib.suppress(OSError):
                os.unlink(p)
            return None
        self.stats.hits += 1
        return value[0]

    def put(self, extractor: str, version: str, blob: str, value: Any, query: Any = None) -> None:
        """Store plain data (TypeError for anything else). A cache that cannot take the
        write only costs speed."""
        if not self.enabled:
            return
        try:
            payload = encode(value)
            decode(payload)            # validated when written: it must load as it will be read
        except (TypeError, ValueError, OverflowError) as exc:
            self.stats.refused += 1
            raise TypeError(f"fact cache values are plain data ({extractor}): {exc}") from None
        p, kd = self._locate(extractor, version, blob, query)
        data = (MAGIC + self._key_id() + len(payload).to_bytes(_LEN, "big")
                + self._mac(kd, payload) + payload)
        try:
            # no fsync: entries are signed (a torn one is a miss), and an fsync per file
            # cost 1.7 s of a 5.9 s cold index of a 2,632-file tree on this disk
            self.store.write_bytes(Path(p), data, fsync=False)
            self.stats.writes += 1
            self._mark_used(extractor, version)
        except Exception as exc:  # noqa: BLE001 - CacheError/OSError: a full or read-only cache
            self.note(f"fact cache not written ({type(exc).__name__}: {exc})")

    def get_or_build(self, extractor: str, version: str, blob: str | None,
                     build: Callable[[], Any], query: Any = None, *,
                     load: Callable[[Any], Any] | None = None,
                     dump: Callable[[Any], Any] | None = None) -> Any:
        """`build()`, stored once per key. `dump(value)` is the plain form stored (default:
        the value itself) and `load(plain)` turns a stored one back (default: as read);
        an entry `load` rejects (TypeError, ValueError, KeyError, IndexError: another
        shape) is counted corrupt and built again. Without a blob, never stored."""
        if not blob:
            return build()
        hit = self.get(extractor, version, blob, query)
        if hit is not None:
            if load is None:
                return hit
            try:
                return load(hit)
            except (TypeError, ValueError, KeyError, IndexError):
                self.stats.corrupt += 1
        value = build()
        self.put(extractor, version, blob, dump(value) if dump is not None else value, query)
        return value

    def _decode(self, raw: bytes, key_digest: bytes, path: str) -> tuple[Any] | None:
        if len(raw) < _HEAD or not raw.startswith(MAGIC):
            self.stats.corrupt += 1
            return None
        payload = raw[_HEAD:]
        at = len(MAGIC) + _KEYID
        if int.from_bytes(raw[at:at + _LEN], "big") != len(payload):
            self.stats.corrupt += 1            # torn or truncated
            return None
        if raw[len(MAGIC):at] != self._key_id():
            self.stats.foreign += 1
            return None
        if not hmac.compare_digest(raw[at + _LEN:_HEAD], self._mac(key_digest, payload)):
            self.stats.forged += 1
            self.note(f"fact cache entry {Path(path).relative_to(self.store.root)} failed its "
                      "signature check (corrupt, or not written by verifier): dropped and "
                      "recomputed")
            return None
        try:
            return (decode(payload),)
        except Exception:  # noqa: BLE001 - a signed entry that does not decode: a bug, rebuilt
            self.stats.corrupt += 1
            return None

    def entries(self) -> Iterable[Path]:
        return self.root.rglob("*.bin") if self.root.exists() else ()

    def drop(self, extractor: str) -> int:
        """Remove every entry of one extractor (all versions); returns how many."""
        base = self.root / extractor
        n = sum(1 for _ in base.rglob("*.bin")) if base.is_dir() else 0
        shutil.rmtree(base, ignore_errors=True)
        return n

    def superseded(self) -> list[Path]:
        """Version directories of an extractor other than its most recently used one
        (what `cache gc` removes): entries no current code can ask for."""
        out: list[Path] = []
        if not self.root.is_dir():
            return out
        for ex in sorted(p for p in self.root.iterdir() if p.is_dir()):
            versions = [v for v in ex.iterdir() if v.is_dir()]

            def used(v: Path) -> float:
                try:
                    return (v / USED).stat().st_mtime
                except OSError:
                    return 0.0

            newest = max(versions, key=lambda v: (used(v), v.name), default=None)
            out.extend(sorted(v for v in versions if v != newest))
        return out


_BY_STORE: "weakref.WeakKeyDictionary[Store, FactCache]" = weakref.WeakKeyDictionary()


def fact_cache(store: "Store") -> FactCache:
    """The fact cache of a store (one per Store object, so stats add up per run)."""
    fc = _BY_STORE.get(store)
    if fc is None:
        from verifier import codeversion

        fc = _BY_STORE[store] = FactCache(store)
        with contextlib.suppress(OSError, ValueError):   # unreadable package: scanned as needed
            codeversion.attach(fc)      # the package's import scans, kept here too
    return fc
