"""Rendered records kept by the report they render (`verifier/rendermemo.py`).

A hit must give exactly what rendering gives, be used (no reporter runs), miss when the
report or the reporter's code or assets change, never depend on which objects of the
report happen to be shared, and be audited: a tampered entry is caught and the fresh
rendering written."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.reporters.fixture_record import load
from verifier import rendermemo
from verifier.cache import Store
from verifier.facts.cache import fact_cache
from verifier.reporters import VERIFY_FORMATS, render, render_files
from verifier.results import Verdict


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_CACHE_KEY", "ab" * 16)
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "0")
    monkeypatch.delenv("VERIFIER_RENDER_MEMO", raising=False)
    return Store(tmp_path / "cache")


def _no_render(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("rendered although the memo holds this report")
    monkeypatch.setattr(rendermemo, "render", boom)
    monkeypatch.setattr(rendermemo, "render_files", boom)


def _counted(monkeypatch, name: str = "render_files") -> list[str]:
    """The formats rendered from now on (rendermemo's `render_files` or `render`)."""
    calls: list[str] = []
    real = getattr(rendermemo, name)
    monkeypatch.setattr(rendermemo, name, lambda r, f: calls.append(f) or real(r, f))
    return calls


def test_every_format_from_the_memo_is_what_rendering_gives(store, monkeypatch):
    report = load()
    first = rendermemo.Renders(report, store)
    wrote = {fmt: first.files(fmt) for fmt in VERIFY_FORMATS}
    text = first.text("sarif")
    assert wrote == {fmt: render_files(report, fmt) for fmt in VERIFY_FORMATS}
    assert text == render(report, "sarif")
    _no_render(monkeypatch)
    again = rendermemo.Renders(load(), store)      # the same report, built again
    assert {fmt: again.files(fmt) for fmt in VERIFY_FORMATS} == wrote
    assert again.text("sarif") == text


def test_digest_follows_values_not_shared_objects():
    a = load()
    one = "".join(["pin", "ned"])                 # one object, equal to every "pinned"
    claims = [c.model_copy(update={"evidence": c.evidence.model_copy(update={"status": one})})
              if c.evidence is not None and c.evidence.status == "pinned" else c
              for c in a.claims]
    b = a.model_copy(update={"claims": claims})
    assert sum(c.evidence is not None and c.evidence.status is one for c in b.claims) > 1
    assert rendermemo.report_digest(a) == rendermemo.report_digest(b)


def test_digest_is_the_same_in_another_process():
    code = ("from tests.reporters.fixture_record import load;"
            "from verifier.rendermemo import report_digest;print(report_digest(load()))")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin"},
                           cwd=str(__import__("pathlib").Path(__file__).parents[2])).stdout
            for seed in ("1", "2")}
    assert runs == {rendermemo.report_digest(load()) + "\n"}


def _with_actual(report, value):
    claims = list(report.claims)
    claims[0] = claims[0].model_copy(update={"actual": value})
    return report.model_copy(update={"claims": claims})


def test_digest_tells_types_a_json_dump_merges():
    report = load()
    a, b = _with_actual(report, (1, 2)), _with_actual(report, [1, 2])
    assert a.model_dump_json() == b.model_dump_json()   # one JSON text, two reports
    assert str(a.claims[0].actual) != str(b.claims[0].actual)   # a renderer may print either
    assert rendermemo.report_digest(a) != rendermemo.report_digest(b)
    for x, y in ((3, 3.0), (True, 1), ("diverged", Verdict.DIVERGED)):
        assert rendermemo.report_digest(_with_actual(report, x)) != \
            rendermemo.report_digest(_with_actual(report, y))


def test_a_changed_report_is_rendered_again(store, monkeypatch):
    report = load()
    rendermemo.Renders(report, store).files("html")
    i = next(i for i, c in enumerate(report.claims) if c.verdict is Verdict.VERIFIED)
    claims = list(report.claims)
    claims[i] = claims[i].model_copy(update={"verdict": Verdict.DIVERGED})
    changed = report.model_copy(update={"claims": claims})
    calls = _counted(monkeypatch)
    assert rendermemo.Renders(changed, store).files("html") == render_files(changed, "html")
    assert calls == ["html"]


def test_reporter_code_and_assets_are_in_the_key(store, monkeypatch, tmp_path):
    report = load()
    rendermemo.Renders(report, store).files("html")
    v = rendermemo.format_version("html")
    assert v != rendermemo.format_version("junit")
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "report.css").write_text("body{}\n")
    monkeypatch.setattr(rendermemo, "ASSETS", assets)
    rendermemo._assets_digest.cache_clear()
    rendermemo.format_version.cache_clear()
    try:
        assert rendermemo.format_version("html") != v
    finally:
        rendermemo._assets_digest.cache_clear()
        rendermemo.format_version.cache_clear()


def test_a_tampered_entry_is_caught_by_the_audit(store, monkeypatch):
    report = load()
    renders = rendermemo.Renders(report, store)
    good = renders.files("json")
    fc = fact_cache(store)
    forged = {k: v.replace('"diverged"', '"verified"') for k, v in good.items()}
    assert forged != good
    # written with the store's own key: only the audit can tell
    fc.put(rendermemo.EXTRACTOR, rendermemo.format_version("json"), renders.digest, forged,
           {"format": "json", "shape": "files"})
    monkeypatch.setenv("VERIFIER_MEMO_AUDIT", "1")
    fc.audit_states = {}
    assert rendermemo.Renders(report, store).files("json") == good
    assert any("did not match a fresh rendering" in n for n in fc.notes)
    assert not list((fc.root / rendermemo.EXTRACTOR).rglob("*.bin"))


def test_switched_off_it_renders_every_time(store, monkeypatch):
    report = load()
    rendermemo.Renders(report, store).files("junit")
    monkeypatch.setenv("VERIFIER_RENDER_MEMO", "0")
    calls = _counted(monkeypatch)
    rendermemo.Renders(report, store).files("junit")
    rendermemo.Renders(report, None).files("junit")
    assert calls == ["junit", "junit"]


def test_only_the_newest_entries_of_a_format_are_kept(store, monkeypatch):
    monkeypatch.setattr(rendermemo, "KEEP", 2)
    report = load()
    for value in ("a", "b", "c", "d"):
        rendermemo.Renders(_with_actual(report, value), store).files("junit")
    root = fact_cache(store).root / rendermemo.EXTRACTOR / rendermemo.format_version("junit")
    assert len(list(root.rglob("*.bin"))) == 2
    calls = _counted(monkeypatch)
    rendermemo.Renders(_with_actual(report, "d"), store).files("junit")   # the newest: a hit
    assert calls == []


def test_a_rendering_above_the_size_limit_is_not_kept(store, monkeypatch):
    monkeypatch.setattr(rendermemo, "MAX_TEXT", 100)
    report = load()
    assert rendermemo.Renders(report, store).files("html") == render_files(report, "html")
    assert not list((fact_cache(store).root / rendermemo.EXTRACTOR).rglob("*.bin"))


def test_the_digest_holds_no_dump_of_the_whole_report():
    import tracemalloc

    report = load()
    big = report.model_copy(update={"claims": report.claims * 200})
    tracemalloc.start()
    try:
        rendermemo.report_digest(big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    whole = len(rendermemo._pickle(big.model_dump()))
    assert peak < whole / 4, (peak, whole)


def test_a_format_that_reads_the_environment_is_never_kept(store, monkeypatch):
    report = load()
    calls = _counted(monkeypatch, "render")
    rendermemo.Renders(report, store).text("github")
    rendermemo.Renders(report, store).text("github")
    assert calls == ["github", "github"]
    assert not list((fact_cache(store).root / rendermemo.EXTRACTOR).rglob("*.bin"))
