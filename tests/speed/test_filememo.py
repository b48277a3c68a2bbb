"""The claim-file memo (verifier/claims/filememo.py): a warm check serves an unchanged
claim file from one entry; anything a result depends on (the claim file, the lesson's
text, the sentence bindings, notation, the pins, what the checks asked the source
layer) makes it check again; its audit derives from the sources with the per-claim
memo bypassed, and a forged entry is caught."""

from __future__ import annotations

import hmac
from pathlib import Path

import msgpack
import pytest

from tests.claims.simx_project import claim, make_simx
from tests.speed.test_warm import CLAIMS, VERDICTS, _by_id, _dump, make_unavailable
from verifier.claims import filememo, memo
from verifier.claims.check import check_claims, run_check
from verifier.claims.kinds.base import REGISTRY
from verifier.claims.rebind import rebind
from verifier.facts import cache as fcache
from verifier.facts.audit import audit_state
from verifier.facts.cache import fact_cache
from verifier.project import load_project
from verifier.results import Verdict

HEAD = len(fcache.MAGIC) + 8 + 4


class _Calls:
    """Which claims a kind was asked to check (memo hits ask none)."""

    def __init__(self, monkeypatch):
        self.ids: list[str] = []
        for _name, cls in list(REGISTRY.items()):
            orig = cls.check

            def check(self_, claim, ctx, _orig=orig, _calls=self):
                _calls.ids.append(claim.id)
                return _orig(self_, claim, ctx)

            monkeypatch.setattr(cls, "check", check)


def _entries(store, section: str = filememo.EXTRACTOR) -> list[Path]:
    return sorted((store.root / "facts" / section).rglob("*.bin"))


@pytest.fixture
def course(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    cold = run_check(s.project)
    assert {k: r.verdict.value for k, r in _by_id(cold).items()} == VERDICTS
    assert len(_entries(s.project.store)) == 1            # one entry for the claim file
    return s, cold


def _warm(s, monkeypatch, notes=None):
    calls = _Calls(monkeypatch)
    p = load_project(s.root / "pins.toml", notify=(notes.append if notes is not None else None))
    return p, run_check(p), calls.ids


def test_warm_check_is_served_from_one_entry(course, monkeypatch):
    s, cold = course

    def no_sentence(*a, **k):
        raise AssertionError("the lesson was searched again")

    monkeypatch.setattr("verifier.claims.check.bind_claim", no_sentence)
    calls = _Calls(monkeypatch)
    p = load_project(s.root / "pins.toml")
    warm = run_check(p)
    assert _dump(warm) == _dump(cold) and calls.ids == []
    st = fact_cache(p.store).stats
    assert (st.misses, st.writes, st.stale) == (0, 0, 0)
    # the results are the same objects' worth: evidence is an Evidence, not a dict
    assert all(r.evidence is None or r.evidence.path for r in warm)


def test_editing_the_claim_file_checks_it_again(course, monkeypatch):
    s, cold = course
    s.write(CLAIMS.replace('symbol = "sx_advance2"\nexpected = false',
                           'symbol = "sx_advance2"\nexpected = true'))
    p, again, ids = _warm(s, monkeypatch)
    got = _by_id(again)
    assert got["gone"].verdict is Verdict.VERIFIED          # sx_advance2 exists
    assert [i.rsplit("/", 1)[-1] for i in ids] == ["gone"]   # the rest: per-claim memo
    assert {k: r.verdict.value for k, r in got.items() if k != "gone"} == \
        {k: v for k, v in VERDICTS.items() if k != "gone"}


def test_editing_the_lesson_checks_it_again(course, monkeypatch):
    """A sentence edited under a claim: the new text is a new key; the claim whose
    fragment is gone is `stale`, not the memoised `verified`."""
    s, cold = course
    lesson = s.project.lessons()[0].file
    text = lesson.read_text(encoding="utf-8")
    assert "sxNPART" in text
    lesson.write_text(text.replace("sxNPART", "sx_N_PART"), encoding="utf-8")
    p, again, _ = _warm(s, monkeypatch)
    got = _by_id(again)
    assert got["enum"].verdict is Verdict.STALE
    assert got["sym"].verdict is Verdict.VERIFIED


def test_a_changed_binding_checks_it_again(course, monkeypatch):
    s, cold = course
    rebind(s.project, None)                          # claims.lock: every claim bound
    bound = _by_id(run_check(load_project(s.root / "pins.toml")))
    assert all("not bound" not in (r.message or "") for r in bound.values())
    lock = s.root / "claims" / "claims.lock"
    lines = lock.read_text().splitlines()
    lock.write_text("\n".join(ln for ln in lines if "/sym\"" not in ln) + "\n")
    p, again, _ = _warm(s, monkeypatch)
    assert "not bound to its lesson sentence yet" in (_by_id(again)["sym"].message or "")


def test_a_dependency_answering_otherwise_checks_it_again(course, monkeypatch):
    """Same pin, same claim file and lesson, but a file the checks read is no longer
    served as it was: the entry is not used."""
    s, cold = course
    make_unavailable(monkeypatch, "src/engine/sx_forward.c")
    p = load_project(s.root / "pins.toml")
    got = _by_id(run_check(p))
    assert fact_cache(p.store).stats.stale >= 1
    assert got["calls"].verdict is Verdict.UNAVAILABLE
    assert got["sym"].verdict is Verdict.VERIFIED


def test_a_pin_bump_falls_back_to_the_per_claim_early_cutoff(course, monkeypatch):
    s, cold = course
    new = s.repo.commit({"README.md": "an unrelated change\n"}, "bump")
    pins = s.root / "pins.toml"
    pins.write_text(pins.read_text().replace(s.repo.commits[-2], new))
    p, again, ids = _warm(s, monkeypatch)
    assert ids == []                                   # per-claim memo: nothing re-checked
    assert {k: r.verdict.value for k, r in _by_id(again).items()} == VERDICTS
    assert all(new in r.evidence.permalink for r in again
               if r.evidence is not None and r.evidence.permalink)
    assert len(_entries(p.store)) == 2                 # a new entry under the new pins


def test_notation_uses_are_replayed(tmp_path, monkeypatch):
    """notation-unused findings are the same whether results come from the memo."""
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    s = make_simx(tmp_path, monkeypatch)
    header = ('lesson = "docs/lesson.md"\nupstream = "simx"\n\n[notation]\n'
              'adv_one = "sx_advance1"\nnever_used = "sx_forward"\n\n')
    s.write(claim("calls", "call_order", "src/engine/sx_forward.c", "sx_advance",
                  ["adv_one", "sx_advance2"], "sx_advance1"), header)

    def findings(p):
        out: list = []
        check_claims(p, findings=out)
        return [f.model_dump(mode="json") for f in out]

    cold = findings(s.project)
    # `adv_one` was needed by the claim, `never_used` by none
    assert len(cold) == 1 and "never_used" in cold[0]["message"]
    warm_p = load_project(s.root / "pins.toml")
    assert findings(warm_p) == cold
    assert fact_cache(warm_p.store).stats.writes == 0          # served from the memo


def test_a_crashing_file_is_not_memoised(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    s = make_simx(tmp_path, monkeypatch)
    s.write(CLAIMS)
    cls = REGISTRY["enum"]

    def boom(self, claim, ctx):
        raise RuntimeError("a bug in a kind")

    monkeypatch.setattr(cls, "check", boom)
    crashes: list = []
    got = check_claims(s.project, crashes=crashes)
    assert crashes and any(r.verdict is Verdict.ERROR for _, r in got)
    assert _entries(s.project.store) == []


def test_kinds_outside_the_package_are_not_memoised(tmp_path, monkeypatch):
    from verifier.claims.kinds.base import ClaimKind, Outcome

    class _Outside(ClaimKind):
        name = "test-filememo-outside"
        code = "VC998"

        def check(self, c, ctx):
            text, sf = ctx.source(c.path)
            return Outcome(Verdict.VERIFIED, actual=1, evidence=ctx.evidence(sf, 1, 1))

    try:
        s = make_simx(tmp_path, monkeypatch)
        s.write(claim("o", "test-filememo-outside", "include/simx/simx.h", None, True,
                      "sx_advance(model, d)"))
        run_check(s.project)
        assert _entries(s.project.store) == []
    finally:
        REGISTRY.pop("test-filememo-outside", None)


def test_the_switch_turns_only_this_layer_off(course, monkeypatch):
    s, cold = course
    monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", "0")
    p = load_project(s.root / "pins.toml")
    assert _dump(run_check(p)) == _dump(cold)
    assert fact_cache(p.store).stats.hits >= 5                 # per-claim outcomes


# ------------------------------------------------------------------ the audit


def test_an_honest_entry_passes_its_audit(course, monkeypatch):
    """Audited, a file is checked again from the sources: every claim by its kind."""
    s, cold = course
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    calls = _Calls(monkeypatch)
    notes: list[str] = []
    p = load_project(s.root / "pins.toml", notify=notes.append)
    assert _dump(run_check(p)) == _dump(cold)
    assert sorted(i.rsplit("/", 1)[-1] for i in calls.ids) == sorted(VERDICTS)
    assert not memo.distrusted(p) and not [n for n in notes if "did not match" in n]
    assert fact_cache(p.store).stats.audited == 1


def test_the_audit_bypasses_the_per_claim_memo(course, monkeypatch):
    """The file's audit derives from the sources even with the per-claim memo's own
    audit off: every kind runs, and no per-claim outcome is read or written."""
    s, cold = course
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    calls = _Calls(monkeypatch)
    p = load_project(s.root / "pins.toml")
    fc = fact_cache(p.store)
    claim_audit = audit_state(fc, memo.EXTRACTOR)
    claim_audit.fraction, claim_audit.first = 0.0, False
    before = len(_entries(p.store, memo.EXTRACTOR))
    assert _dump(run_check(p)) == _dump(cold)
    assert sorted(i.rsplit("/", 1)[-1] for i in calls.ids) == sorted(VERDICTS)
    assert fc.stats.audited == 1 and fc.stats.writes == 0
    assert len(_entries(p.store, memo.EXTRACTOR)) == before
    assert not claim_audit.bypassed                 # restored after the audit


def _forge(fc, path: Path, key: bytes, kd: bytes) -> bool:
    """Rewrite the memoised `diverged` result as `verified`, re-signed with the key."""
    raw = path.read_bytes()
    entry = msgpack.unpackb(raw[HEAD + 32:], raw=False)
    done = False
    for r in entry["value"]["results"]:        # [verdict, line, message, actual, evidence]
        if r[0] == "diverged":
            r[0], r[2] = "verified", "forged"
            done = True
    payload = msgpack.packb(entry, use_bin_type=True)
    mac = hmac.digest(key, fcache.MAGIC + kd + b"\0" + len(payload).to_bytes(4, "big")
                      + payload, "sha256")
    path.write_bytes(raw[:len(fcache.MAGIC) + 8] + len(payload).to_bytes(4, "big") + mac
                     + payload)
    return done


def test_a_forged_entry_is_caught_by_its_audit(course, monkeypatch):
    s, cold = course
    key = s.project.store.signing_key()
    located: list = []
    orig = fcache.FactCache._locate

    def locate(self, *a):
        got = orig(self, *a)
        if a[0] == filememo.EXTRACTOR:
            located.append(got)
        return got

    monkeypatch.setattr(fcache.FactCache, "_locate", locate)
    run_check(load_project(s.root / "pins.toml"))          # learn the entry's key digest
    (path,) = _entries(s.project.store)
    (kd,) = {k for p, k in located if Path(p) == path}
    assert _forge(fact_cache(s.project.store), path, key, kd)
    fooled = run_check(load_project(s.root / "pins.toml"))
    assert any(r.message == "forged" for r in fooled), "well-formed: unaudited it passes"
    _forge(fact_cache(s.project.store), path, key, kd)
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    notes: list[str] = []
    p = load_project(s.root / "pins.toml", notify=notes.append)
    again = run_check(p)
    assert _dump(again) == _dump(cold)
    assert memo.distrusted(p)
    assert any("did not match a fresh check" in n and "claim file" in n for n in notes)
    # the forged entry was dropped and written afresh: an unaudited run is honest again
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    assert _dump(run_check(load_project(s.root / "pins.toml"))) == _dump(cold)


def test_both_memos_forged_alike_are_caught_by_the_file_audit(course, monkeypatch):
    """A key holder who rewrites the per-claim outcome and the file's entry to agree:
    the file's audit derives from the sources, not from the per-claim memo, so it
    finds the forgery even with the per-claim memo's own audit off."""
    s, cold = course
    key = s.project.store.signing_key()
    located: dict[str, bytes] = {}
    orig = fcache.FactCache._locate

    def locate(self, *a):
        got = orig(self, *a)
        located[got[0]] = got[1]
        return got

    monkeypatch.setattr(fcache.FactCache, "_locate", locate)
    monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", "0")
    run_check(load_project(s.root / "pins.toml"))          # the per-claim entries' keys
    monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", "1")
    run_check(load_project(s.root / "pins.toml"))          # the file entry's key
    forged = 0
    for path in _entries(s.project.store, memo.EXTRACTOR):
        raw = path.read_bytes()
        entry = msgpack.unpackb(raw[HEAD + 32:], raw=False)
        out = entry["value"].get("outcome")
        if out and out["verdict"] == "diverged":
            out["verdict"], out["message"] = "verified", "forged"
            payload = msgpack.packb(entry, use_bin_type=True)
            mac = hmac.digest(key, fcache.MAGIC + located[str(path)] + b"\0"
                              + len(payload).to_bytes(4, "big") + payload, "sha256")
            path.write_bytes(raw[:len(fcache.MAGIC) + 8] + len(payload).to_bytes(4, "big")
                             + mac + payload)
            forged += 1
    (fpath,) = _entries(s.project.store)
    assert forged == 1 and _forge(fact_cache(s.project.store), fpath, key, located[str(fpath)])
    # each forgery is well-formed: unaudited, either memo alone serves it
    for layer in ("0", "1"):
        monkeypatch.setenv("VERIFIER_CLAIM_FILE_MEMO", layer)
        fooled = run_check(load_project(s.root / "pins.toml"))
        assert any(r.message == "forged" for r in fooled), layer
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    notes: list[str] = []
    p = load_project(s.root / "pins.toml", notify=notes.append)
    claim_audit = audit_state(fact_cache(p.store), memo.EXTRACTOR)
    claim_audit.fraction, claim_audit.first = 0.0, False
    assert _dump(run_check(p)) == _dump(cold)
    assert memo.distrusted(p) and any("did not match a fresh check" in n for n in notes)
