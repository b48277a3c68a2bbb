"""Memoised claim outcomes cannot be forged into `verified` (trial 4.14 of
`../shared/notes/reliability.md`), and they survive a pin bump when nothing a claim read
changed (issue 13, early cutoff)."""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import msgpack
import pytest

from tests.claims.simx_project import make_simx
from tests.speed.test_warm import CLAIMS, VERDICTS, _by_id, _dump
from verifier.claims import memo
from verifier.claims.check import run_check
from verifier.claims.kinds.base import REGISTRY
from verifier.facts import cache as fcache
from verifier.facts.cache import fact_cache
from verifier.project import load_project

HEAD = len(fcache.MAGIC) + 8 + 4          # magic | key id | length, then the MAC


def _memo_entries(store):
    return sorted((store.root / "facts" / "claim").rglob("*.bin"))


def _forge(path, mac=None):
    """What `forge_memo.py` did, for this format: rewrite a memoised `diverged` outcome
    as `verified`, keeping the entry well-formed. Without the key, the best a forger can
    put in the MAC field is a plain checksum; with the key (`mac`), a valid MAC."""
    raw = path.read_bytes()
    entry = msgpack.unpackb(raw[HEAD + 32:], raw=False)
    out = entry["value"].get("outcome")
    if not out or out["verdict"] != "diverged":
        return False
    out["verdict"], out["message"] = "verified", "forged"
    payload = msgpack.packb(entry, use_bin_type=True)
    head = raw[:len(fcache.MAGIC) + 8] + len(payload).to_bytes(4, "big")
    sig = mac(path, payload) if mac else hashlib.sha256(payload).digest()
    path.write_bytes(head + sig + payload)
    return True


@pytest.fixture(autouse=True)
def _per_claim_memo_only(monkeypatch):
    """These are the per-claim memo's tests: the claim-file memo above it would serve a
    warm run without reading a per-claim entry (its own tests: tests/speed/test_filememo.py)."""
    monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", "0")


@pytest.fixture
def course(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    cold = run_check(s.project)
    assert {k: r.verdict.value for k, r in _by_id(cold).items()} == VERDICTS
    return s, cold


def test_forged_memo_without_the_key_is_dropped_and_recomputed(course, monkeypatch):
    s, cold = course
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")      # the signature alone must catch it
    forged = [p for p in _memo_entries(s.project.store) if _forge(p)]
    assert forged, "the fixture has a diverged claim"
    notes = []
    p = load_project(s.root / "pins.toml", notify=notes.append)
    again = run_check(p)
    assert _dump(again) == _dump(cold)                    # still `diverged`, not `verified`
    assert fact_cache(p.store).stats.forged == len(forged)
    assert any("failed its signature check" in n for n in notes)
    # recomputed and re-signed in the same run: the next run is clean again
    p2 = load_project(s.root / "pins.toml")
    assert _dump(run_check(p2)) == _dump(cold) and fact_cache(p2.store).stats.forged == 0


def test_forged_memo_with_the_key_is_caught_by_re_derivation(course, monkeypatch):
    """A writer that also stole the signing key: the audit re-derives memo hits, one
    mismatch drops the whole memo section, and the run recomputes every claim."""
    s, cold = course
    key = s.project.store.signing_key()
    fc = fact_cache(s.project.store)

    def mac(path, payload):
        return hmac.digest(key, fcache.MAGIC + _full_key(fc, path) + b"\0"
                           + len(payload).to_bytes(4, "big") + payload, "sha256")

    forged = [p for p in _memo_entries(s.project.store) if _forge(p, mac)]
    assert forged
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    fooled = run_check(load_project(s.root / "pins.toml"))
    assert any(r.verdict.value == "verified" and r.message == "forged" for r in fooled), \
        "the forgery is well-formed: without the audit it would pass"
    for p in _memo_entries(s.project.store):   # forge again (nothing was rewritten, but be sure)
        _forge(p, mac)
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    notes = []
    p = load_project(s.root / "pins.toml", notify=notes.append)
    again = run_check(p)
    assert _dump(again) == _dump(cold)
    assert memo.distrusted(p)
    assert any("did not match a fresh check" in n for n in notes)


def _full_key(fc, path) -> bytes:
    """The key digest an entry's MAC covers (the forger can compute it: the key layout
    is no secret, only the signing key is)."""
    for q in _QUERIES:
        p, kd = fc._locate(*q)
        if Path(p) == Path(path):
            return kd
    raise AssertionError(f"no key for {path}")


_QUERIES: list = []


@pytest.fixture(autouse=True)
def _record_queries(monkeypatch):
    """Remember every key the cache computes, so the forger can re-sign entries."""
    orig = fcache.FactCache._locate

    def locate(self, *a):
        _QUERIES.append(a)
        return orig(self, *a)

    monkeypatch.setattr(fcache.FactCache, "_locate", locate)
    yield
    _QUERIES.clear()


def test_audit_matches_on_an_honest_memo(course, monkeypatch):
    s, cold = course
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    p = load_project(s.root / "pins.toml")
    assert _dump(run_check(p)) == _dump(cold)
    st = fact_cache(p.store).stats
    assert st.audited == 5 and st.stale == 0 and not memo.distrusted(p)


# ------------------------------------------------------------------ early cutoff


class _Calls:
    def __init__(self, monkeypatch):
        self.ids: list[str] = []
        for name, cls in list(REGISTRY.items()):
            orig = cls.check

            def check(self_, claim, ctx, _orig=orig):
                calls.ids.append(claim.id)
                return _orig(self_, claim, ctx)

            calls = self
            monkeypatch.setattr(cls, "check", check)


def _bump(s, files):
    new = s.repo.commit(files, "bump")
    pins = s.root / "pins.toml"
    pins.write_text(pins.read_text().replace(s.repo.commits[-2], new))
    return new


def test_pin_bump_with_unchanged_files_extracts_nothing(course, monkeypatch):
    s, cold = course
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    new = _bump(s, {"README.md": "an unrelated change\n"})
    calls = _Calls(monkeypatch)

    def no_parse(*a, **k):
        raise AssertionError("extracted again")

    monkeypatch.setattr("verifier.claims.kinds._lookup.facts_for", no_parse)
    monkeypatch.setattr("verifier.facts.flow.source.ts.parse", no_parse)
    again = _by_id(run_check(load_project(s.root / "pins.toml")))
    assert calls.ids == []
    assert {k: r.verdict.value for k, r in again.items()} == VERDICTS
    old = s.repo.commits[-2]
    for k, r in again.items():
        if r.evidence is not None and r.evidence.permalink:
            assert new in r.evidence.permalink and old not in r.evidence.permalink, k
    before = {r.id: r for r in cold}
    for k, r in again.items():     # the same outcome, only the pin in its permalinks moved
        b = before[r.id]
        if r.evidence is not None:
            assert r.evidence.model_dump(exclude={"permalink"}) == \
                b.evidence.model_dump(exclude={"permalink"})
            assert r.evidence.permalink == b.evidence.permalink.replace(old, new)
        assert (r.verdict, r.actual, r.message) == (b.verdict, b.actual, b.message)


def test_pin_bump_reruns_only_the_claims_of_a_changed_file(course, monkeypatch):
    s, cold = course
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    _bump(s, {"src/engine/sx_forward.c":
              (s.repo.path / "src/engine/sx_forward.c").read_text() + "\n/* a comment */\n"})
    calls = _Calls(monkeypatch)
    again = _by_id(run_check(load_project(s.root / "pins.toml")))
    assert sorted(i.rsplit("/", 1)[-1] for i in calls.ids) == ["bad", "calls"]
    assert {k: r.verdict.value for k, r in again.items()} == VERDICTS


def test_audit_compares_what_the_cache_stores_not_python_types(tmp_path, monkeypatch):
    """An `actual` with tuples reads back as lists: an honest memo must not look forged."""
    from tests.claims.simx_project import claim
    from verifier.claims.kinds.base import ClaimKind, Outcome

    class _Tuples(ClaimKind):
        name = "test-speed-tuples"

        def check(self, claim, ctx):
            text, sf = ctx.source(claim.path)
            return Outcome(memo.Verdict.VERIFIED, actual=(("a", 1), ("b", (2, 3))),
                           evidence=ctx.evidence(sf, 1, 1))

    assert REGISTRY["test-speed-tuples"] is _Tuples  # subclassing registers it
    monkeypatch.setattr(memo, "KINDS_PKG", _Tuples.__module__)
    try:
        s = make_simx(tmp_path, monkeypatch)
        s.write(claim("t", "test-speed-tuples", "include/simx/simx.h", None, True,
                      "sx_advance(model, d)"))
        run_check(s.project)
        monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
        notes = []
        p = load_project(s.root / "pins.toml", notify=notes.append)
        (r,) = run_check(p)
        assert r.verdict.value == "verified" and fact_cache(p.store).stats.audited == 1
        assert not memo.distrusted(p) and not [n for n in notes if "memo" in n or "signature" in n]
    finally:
        REGISTRY.pop("test-speed-tuples", None)


def test_the_audit_draws_whole_files(course, monkeypatch):
    """The audit sample is drawn by source file: both claims on `sx_forward.c` are
    re-derived together or not at all (one parse for the file), and over runs with
    different salts the file is sometimes drawn and sometimes not."""
    s, cold = course
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0.5")
    counts = set()
    for seed in range(12):
        monkeypatch.setenv("VERIFIER_MEMO_AUDIT_SEED", str(seed))
        audited: list[str] = []
        orig = memo._fresh

        def fresh(kind, claim, ctx, _orig=orig, _seen=audited):
            _seen.append(claim.path)
            return _orig(kind, claim, ctx)

        monkeypatch.setattr(memo, "_fresh", fresh)
        p = load_project(s.root / "pins.toml")
        assert _dump(run_check(p)) == _dump(cold)
        monkeypatch.setattr(memo, "_fresh", orig)
        n = audited.count("src/engine/sx_forward.c")
        assert n in (0, 2), (seed, audited)
        counts.add(n)
    assert counts == {0, 2}
