"""Warm runs read facts, not source: the symbol index and `run_check` on the
hand-written `simx` fixture upstream, cold then warm with the source layer's
read made to fail; invalidation on extractor-version change, changed files and
changed dependencies; pool and inline extraction agree."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, make_simx
from tests.helpers_upstream import UpstreamSpec, write_pins
from verifier.claims.check import run_check
from verifier.claims.kinds.base import REGISTRY, ClaimKind, Outcome
from verifier.claims import memo
from verifier.facts import parallel
from verifier.facts.cache import fact_cache
from verifier.facts.symbols import build_index
from verifier.project import load_project
from verifier.results import Verdict
from verifier.sources.layer import SourceLayer

CLAIMS = (
    claim("sym", "symbol", "include/simx/simx.h", "sx_advance", True, "sx_advance(model, d)")
    + claim("enum", "enum", "include/simx/sxtype.h", "sxPART_DYNAMICS", 30, "sxNPART")
    + claim("calls", "call_order", "src/engine/sx_forward.c", "sx_advance",
            ["sx_advance1", "sx_advance2"], "sx_advance1")
    + claim("gone", "symbol", "include/simx/simx.h", "sx_advance2", False, "sx_advance(model, d)")
    + claim("bad", "call_order", "src/engine/sx_forward.c", "sx_no_such_function", ["x"],
            "sx_advance1")
)
VERDICTS = {"sym": "verified", "enum": "verified", "calls": "verified", "gone": "diverged",
            "bad": "error"}


class _Reads:
    """Counts (or forbids) reads through the source layer."""

    def __init__(self, monkeypatch, forbid: bool) -> None:
        self.paths: list[str] = []
        orig_read, orig_text = SourceLayer.read, SourceLayer.text
        outer = self

        def read(self, sf):
            outer.paths.append(sf.path)
            if forbid:
                raise AssertionError(f"warm run read {sf.path}")
            return orig_read(self, sf)

        def text(self, upstream, path):
            outer.paths.append(path)
            if forbid:
                raise AssertionError(f"warm run read {path}")
            return orig_text(self, upstream, path)

        monkeypatch.setattr(SourceLayer, "read", read)
        monkeypatch.setattr(SourceLayer, "text", text)



@pytest.fixture(autouse=True)
def _no_audit(monkeypatch):
    """These tests count what a warm run reads; the memo audit (which re-derives a
    sample of hits on purpose) is tested on its own in test_memo_trust.py."""
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")


def make_unavailable(monkeypatch, gone: str) -> None:
    """From now on the source layer serves `gone` as unavailable (same pin)."""
    from verifier.sources.models import SourceFile, Status

    orig = SourceLayer._resolve

    def resolve(self, upstream, path, **kw):
        if path == gone:
            return SourceFile(upstream=upstream, path=path, status=Status.UNAVAILABLE,
                              detail="gone for this test")
        return orig(self, upstream, path, **kw)

    monkeypatch.setattr(SourceLayer, "_resolve", resolve)


def _by_id(results):
    return {r.id.rsplit("/", 1)[-1]: r for r in results}


def _dump(results):
    return [r.model_dump(mode="json") for r in results]


@pytest.mark.parametrize("file_memo", ["1", "0"])
def test_warm_check_reads_no_source(tmp_path, monkeypatch, file_memo):
    monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", file_memo)
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    cold = run_check(s.project)
    assert {k: r.verdict.value for k, r in _by_id(cold).items()} == VERDICTS
    claim_entries = list((s.project.store.root / "facts" / "claim").rglob("*.bin"))
    assert len(claim_entries) == 5

    warm_project = load_project(s.root / "pins.toml")
    _Reads(monkeypatch, forbid=True)
    warm = run_check(warm_project)
    assert _dump(warm) == _dump(cold)
    st = fact_cache(warm_project.store).stats
    if file_memo == "1":
        # the claim file's results in one entry and the claim file's parse: the lesson
        # is not parsed (its text's blob is part of the key) and no outcome is read
        assert (st.hits, st.misses, st.writes) == (2, 0, 0)
    else:
        # 5 claim outcomes, the claim file's parse and the lesson's parse: all from the cache
        assert (st.hits, st.misses, st.writes) == (7, 0, 0)


def test_edited_claim_does_not_parse_its_file_again(tmp_path, monkeypatch):
    """A new query about an already parsed file: the claim memo misses, the file's
    facts come from the cache (the extractor is not run)."""
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    run_check(s.project)
    s.write(CLAIMS.replace('symbol = "sx_advance2"\nexpected = false',
                           'symbol = "sx_advance2"\nexpected = true'))

    def no_parse(*a, **k):
        raise AssertionError("file facts extracted again")

    monkeypatch.setattr("verifier.claims.kinds._lookup.facts_for", no_parse)
    p = load_project(s.root / "pins.toml")
    again = _by_id(run_check(p))
    assert again["gone"].verdict is Verdict.VERIFIED     # sx_advance2 exists in simx.h
    assert fact_cache(p.store).stats.hits >= 5


def test_cache_off_gives_the_same_results(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    cached = run_check(s.project)
    monkeypatch.setenv("VERIFIER_FACT_CACHE", "0")
    fresh = run_check(load_project(s.root / "pins.toml"))
    assert _dump(fresh) == _dump(cached)


def test_changed_file_is_checked_again(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    assert _by_id(run_check(s.project))["calls"].verdict is Verdict.VERIFIED
    src = (s.repo.path / "src/engine/sx_forward.c").read_text()
    swapped = src.replace("  sx_advance1(model, d);\n  sx_advance2(model, d);",
                          "  sx_advance2(model, d);\n  sx_advance1(model, d);")
    assert swapped != src
    new = s.repo.commit({"src/engine/sx_forward.c": swapped}, "swap")
    pins = s.root / "pins.toml"
    pins.write_text(pins.read_text().replace(s.repo.commits[0], new))
    again = _by_id(run_check(load_project(pins)))
    assert again["calls"].verdict is Verdict.DIVERGED
    assert again["calls"].actual == ["sx_advance2", "sx_advance1"]
    assert again["sym"].verdict is Verdict.VERIFIED      # unchanged blob: served from the memo


def test_claim_memo_follows_the_kind_code(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", "0")   # the per-claim memo's own key
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    run_check(s.project)
    orig = memo.code_version
    monkeypatch.setattr(memo, "code_version", lambda *mods: "another-kinds-version"
                        if mods[-1] == memo.__name__ else orig(*mods))
    p = load_project(s.root / "pins.toml")
    reads = _Reads(monkeypatch, forbid=False)
    again = run_check(p)
    assert {k: r.verdict.value for k, r in _by_id(again).items()} == VERDICTS
    assert reads.paths        # the kinds ran again (their files' facts may come from the cache)
    assert len(list((p.store.root / "facts" / "claim").rglob("*.bin"))) == 10


@pytest.fixture
def two_file_kind(monkeypatch):
    """A kind (treated as in-package, so memoised) whose outcome depends on two files."""
    calls = []

    class _TwoFiles(ClaimKind):
        name = "test-speed-two-files"
        code = "VC999"

        def check(self, c, ctx):
            calls.append(c.id)
            text, sf = ctx.source(c.path)
            other, _ = ctx.source(c.options["other"])
            verdict = Verdict.VERIFIED if "sx_advance" in other else Verdict.DIVERGED
            return Outcome(verdict, actual=len(other), evidence=ctx.evidence(sf, 1, 1))

    monkeypatch.setattr(memo, "KINDS_PKG", _TwoFiles.__module__)
    yield calls
    REGISTRY.pop("test-speed-two-files", None)


def test_memo_is_not_used_when_a_dependency_changed(tmp_path, monkeypatch, two_file_kind):
    monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", "0")   # per claim; per file: test_filememo
    s = make_simx(tmp_path, monkeypatch)
    s.write(claim("two", "test-speed-two-files", "include/simx/simx.h", None, True,
                  "sx_advance(model, d)", other="src/engine/sx_forward.c"))
    first = _by_id(run_check(s.project))["two"]
    assert first.verdict is Verdict.VERIFIED and two_file_kind == ["two"]
    # warm: both files unchanged, the memo answers
    assert _by_id(run_check(load_project(s.root / "pins.toml")))["two"] == first
    assert two_file_kind == ["two"]
    # same pin, but the other file no longer resolves as before (here: it became
    # unavailable): the memo must not answer; the check runs again and says so
    make_unavailable(monkeypatch, "src/engine/sx_forward.c")
    p = load_project(s.root / "pins.toml")
    second = _by_id(run_check(p))["two"]
    assert two_file_kind == ["two", "two"]
    assert second.verdict is Verdict.UNAVAILABLE
    assert fact_cache(p.store).stats.stale == 1


def test_claim_memo_is_per_pin(tmp_path, monkeypatch, two_file_kind):
    """A pin bump that changed a file the claim read: the memo does not answer, and the
    evidence names the new pin."""
    s = make_simx(tmp_path, monkeypatch)
    s.write(claim("two", "test-speed-two-files", "include/simx/simx.h", None, True,
                  "sx_advance(model, d)", other="src/engine/sx_forward.c"))
    first = _by_id(run_check(s.project))["two"]
    new = s.repo.commit({"src/engine/sx_forward.c": "/* emptied */\n"}, "empty")
    pins = s.root / "pins.toml"
    pins.write_text(pins.read_text().replace(s.repo.commits[0], new))
    second = _by_id(run_check(load_project(pins)))["two"]
    assert two_file_kind == ["two", "two"]
    assert second.verdict is Verdict.DIVERGED
    assert new in second.evidence.permalink and new not in first.evidence.permalink


# ------------------------------------------------------------------ symbol index


def _rows(idx):
    return [s._asdict() for s in idx.symbols]


def test_symbol_index_per_file_cache(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    cold = build_index(s.project, "simx")
    n_files = len(cold.files)
    assert n_files >= 5 and cold.symbols
    assert fact_cache(s.project.store).stats.writes == n_files

    # whole-index cache present: loaded as is, no source read
    _Reads(monkeypatch, forbid=True)
    assert _rows(build_index(load_project(s.root / "pins.toml"), "simx")) == _rows(cold)

    # whole-index cache gone: rebuilt from per-file facts, still no source read
    import shutil

    shutil.rmtree(s.project.store.root / "symbols")
    p = load_project(s.root / "pins.toml")
    warm = build_index(p, "simx")
    assert _rows(warm) == _rows(cold) and warm.star_imports == cold.star_imports
    assert fact_cache(p.store).stats.hits == n_files


def test_symbol_facts_rebuilt_on_extractor_change_and_corruption(tmp_path, monkeypatch):
    import shutil

    s = make_simx(tmp_path, monkeypatch)
    cold = build_index(s.project, "simx")
    n_files = len(cold.files)
    shutil.rmtree(s.project.store.root / "symbols")
    # one corrupt per-file entry: exactly that file is read and extracted again
    entry = sorted(fact_cache(s.project.store).entries())[0]
    entry.write_bytes(entry.read_bytes()[:-3])
    reads = _Reads(monkeypatch, forbid=False)
    p = load_project(s.root / "pins.toml")
    assert _rows(build_index(p, "simx")) == _rows(cold)
    assert len(reads.paths) == 1 and fact_cache(p.store).stats.corrupt == 1
    # another extractor version: every file is extracted again
    shutil.rmtree(s.project.store.root / "symbols")
    monkeypatch.setattr(parallel, "code_version", lambda *parts: "new-extractor")
    reads.paths.clear()
    p = load_project(s.root / "pins.toml")
    assert _rows(build_index(p, "simx")) == _rows(cold)
    assert len(reads.paths) == n_files


def test_pool_and_inline_extraction_agree(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    files = [sf for sf in s.project.sources.resolve_many(
        [("simx", p) for p in s.project.sources.known_paths("simx")]) if sf.status.usable]
    monkeypatch.setenv("VERIFIER_FACT_CACHE", "0")
    inline_syms, inline_stars = parallel.symbols_for_files(load_project(s.root / "pins.toml"),
                                                           "simx", files, n_jobs=1)
    monkeypatch.setattr(parallel, "INLINE_FILES", 0)
    monkeypatch.setattr(parallel, "INLINE_BYTES", 0)
    used_pool = []
    orig = parallel._use_pool
    monkeypatch.setattr(parallel, "_use_pool", lambda m, n: used_pool.append(orig(m, n))
                        or used_pool[-1])
    pool_syms, pool_stars = parallel.symbols_for_files(load_project(s.root / "pins.toml"),
                                                       "simx", files, n_jobs=2)
    assert used_pool == [True]
    assert [x._asdict() for x in pool_syms] == [x._asdict() for x in inline_syms]
    assert pool_stars == inline_stars and inline_syms


def test_other_pins_reuse_facts_of_equal_blobs(tmp_path, monkeypatch):
    """A new pin that changes one file: only that file is extracted again."""
    s = make_simx(tmp_path, monkeypatch)
    cold = build_index(s.project, "simx")
    new = s.repo.commit({"src/engine/sx_forward.c": "void sx_only(void) {}\n"}, "one file")
    root2 = tmp_path / "proj2"
    root2.mkdir()
    pins2 = write_pins(root2, {"simx": UpstreamSpec(s.repo.url, new)})
    reads = _Reads(monkeypatch, forbid=False)
    idx = build_index(load_project(pins2), "simx")
    assert reads.paths == ["src/engine/sx_forward.c"]
    assert set(idx.files) == set(cold.files)
    assert any(x.name == "sx_only" for x in idx.symbols)
