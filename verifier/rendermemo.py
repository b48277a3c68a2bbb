"""Rendered records, kept by the report they render: a warm run whose report did not
change writes the record formats it wrote before instead of rendering them again.

A record format is a pure function of the report and of the reporter's code (the
records are deterministic: same report, byte-identical text). An entry is therefore
keyed by

- the format and the code version of its reporter module (its import closure in
  `verifier`, `verifier/codeversion.py`) together with the digest of every file under
  `verifier/reporters/assets/` (the HTML report's CSS and JS are read at import);
- the digest of the report itself: SHA-256 of the pickle of `report.model_dump()`,
  written without the pickler's memo (`Pickler.fast`: an object met twice is written
  twice, so the bytes follow the values and never which objects happen to be shared;
  with the memo, equal reports of two runs pickled differently). The Python dump
  keeps what a JSON dump would merge (a tuple and a list, `1` and `1.0`, a string and
  an enum), so two reports with one digest are the same report to every renderer. A
  report that pickled differently (a set in another order) would only miss.

A format whose module sets `READS_ENVIRONMENT = True` (`github`: workflow commands and
the job summary read the job's variables) is never kept. The value is what the format writes into a directory (relative path -> text) or its
one text. Entries are signed fact-cache entries (`verifier/facts/cache.py`): a torn,
foreign or forged one is a miss. Like the other memos, a sample of the hits
(`VERIFIER_MEMO_AUDIT`, by report and format, the first hit not forced) is rendered
again and compared; a mismatch drops every rendered record, prints a note, and the
fresh text is the one written.

Measured on the shared course (1,775 claims): rendering the five formats of `verify`
cost ~0.5 s of a warm run, the digest ~25 ms and reading the entries back ~30 ms.
`VERIFIER_RENDER_MEMO=0` turns this layer off (the fact cache off does too). Records are
megabytes and every edit of the course makes a new report, so only the newest `KEEP`
entries of each format and reporter version are kept (`verifier cache gc` removes the
entries of superseded reporter versions, like every fact entry). A rendering above
`MAX_TEXT` characters is not kept (a hit would hold the entry's bytes and its text at
once: the JSON of `check` at 17,750 claims is ~40 MB), and `check --format json` streams
its output unmemoised above `MAX_CLAIMS` claims, as it did before this layer.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
from functools import cache
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from verifier.codeversion import code_version
from verifier.facts.audit import audit_state
from verifier.reporters import REGISTRY, render, render_files, reporter

if TYPE_CHECKING:
    from verifier.cache import Store
    from verifier.facts.cache import FactCache
    from verifier.report import RunReport

EXTRACTOR = "records"
KEEP = 6            # entries kept per format and reporter version (each report, text and files)
MAX_TEXT = 16 << 20  # characters; a larger rendering is not kept
CHUNK = 256         # list elements pickled together in the report digest
MAX_CLAIMS = 5000    # above this a command streams its JSON instead (cli/render.py)
ASSETS = Path(__file__).resolve().parent / "reporters" / "assets"


def disabled() -> bool:
    return os.environ.get("VERIFIER_RENDER_MEMO", "1").strip().lower() in ("0", "off", "no")


@cache
def _assets_digest() -> str:
    h = hashlib.sha256()
    for p in sorted(ASSETS.rglob("*")) if ASSETS.is_dir() else ():
        if p.is_file():
            h.update(p.relative_to(ASSETS).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:24]


@cache
def format_version(fmt: str) -> str:
    """The code version of `fmt`'s reporter (and of the registry's `render`, which escapes
    invisible characters) and the reporters' assets."""
    return (f"{code_version(f'verifier.reporters.{REGISTRY[fmt].module}', 'verifier.reporters')}"
            f"-{_assets_digest()}")


def _pickle(value: Any) -> bytes:
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=5)
    pickler.fast = True          # no memo: the bytes depend on the values only (module doc)
    pickler.dump(value)
    return buf.getvalue()


def report_digest(report: "RunReport") -> str:
    """SHA-256 over the report's fields in order, a list or dict of models element by
    element (each framed by its length), so that no dump of the whole report is held:
    at 17,750 claims that dump and its pickle cost ~200 MiB."""
    h = hashlib.sha256()

    def add(value: Any) -> None:
        data = _pickle(value)
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)

    for name in type(report).model_fields:
        value = getattr(report, name)
        add(name)
        if isinstance(value, dict) and value and all(isinstance(v, BaseModel)
                                                     for v in value.values()):
            add(("dict", len(value)))
            value = list(value.items())
        elif isinstance(value, list) and value and all(isinstance(v, BaseModel) for v in value):
            add(("list", len(value)))
        else:
            add(report.model_dump(include={name}))
            continue
        for i in range(0, len(value), CHUNK):
            add([_dumped(v) for v in value[i:i + CHUNK]])
    return h.hexdigest()


def _dumped(item: Any) -> tuple:
    if isinstance(item, tuple):          # (key, model) of a dict field
        k, v = item
        return (k, type(v).__qualname__, v.model_dump())
    return (type(item).__qualname__, item.model_dump())


class Renders:
    """The record formats of one report, each rendered once per report and code, ever
    (module doc). Without a store (or with the memo off) it renders every time."""

    def __init__(self, report: "RunReport", store: "Store | None" = None) -> None:
        self.report = report
        self.fc: FactCache | None = None
        if store is not None and not disabled():
            from verifier.facts.cache import fact_cache

            fc = fact_cache(store)
            self.fc = fc if fc.enabled else None
        self._digest: str | None = None

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = report_digest(self.report)
        return self._digest

    def files(self, fmt: str) -> dict[str, str]:
        """relative path -> text, as `reporters.render_files` gives."""
        return self._memo(fmt, "files", lambda: render_files(self.report, fmt))

    def text(self, fmt: str) -> str:
        """The format's one text, as `reporters.render` gives."""
        return self._memo(fmt, "text", lambda: render(self.report, fmt))["text"]

    def document(self, name: str, module: str, build: Callable[[], str],
                 extra: Any = None) -> str:
        """A command's own text of this report (`check --format json`): `build()`, kept
        under the code version of `module` (a dotted name in `verifier`) and the digest of
        `extra` (plain data it reads besides the report, e.g. runtime timings)."""
        return self._memo(name, "text", build, version=code_version(module),
                          extra=hashlib.sha256(_pickle(extra)).hexdigest())["text"]

    def _memo(self, fmt: str, shape: str, build, *, version: str | None = None,
              extra: str | None = None) -> dict[str, str]:
        def fresh() -> dict[str, str]:
            out = build()
            return out if shape == "files" else {"text": out}

        fc = self.fc
        if fc is None or (version is None and getattr(reporter(fmt), "READS_ENVIRONMENT", False)):
            return fresh()      # a format that reads the environment is not the report's alone
        version = version or format_version(fmt)
        query = {"format": fmt, "shape": shape, **({"extra": extra} if extra else {})}
        state = audit_state(fc, EXTRACTOR, first=False)
        hit = None if state.distrusted else fc.get(EXTRACTOR, version, self.digest, query)
        if isinstance(hit, dict) and hit and all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in hit.items()):
            if not state.sampled(f"{self.digest}/{fmt}/{shape}"):
                return hit
            fc.stats.audited += 1
            value = fresh()
            if value != hit:
                state.distrusted = True
                n = fc.drop(EXTRACTOR)
                fc.note(f"the memoised {fmt} record did not match a fresh rendering: all {n} "
                        "memoised records were dropped and every record of this run is "
                        "rendered again")
            return value
        value = fresh()
        if sum(len(v) for v in value.values()) > MAX_TEXT:
            return value    # not kept: reading it back would hold it twice (module doc)
        try:
            fc.put(EXTRACTOR, version, self.digest, value, query)
        except TypeError:
            return value    # not plain text: rendered again next time
        _prune(fc.root / EXTRACTOR / version)
        return value


def _prune(directory: Path) -> None:
    """Keep the newest `KEEP` entries of one format and reporter version: a record is
    megabytes, and every edit of the course makes a new report."""
    try:
        entries = sorted(directory.rglob("*.bin"), key=lambda p: p.stat().st_mtime_ns)
    except OSError:
        return
    for p in entries[:-KEEP]:
        with contextlib.suppress(OSError):
            p.unlink()
