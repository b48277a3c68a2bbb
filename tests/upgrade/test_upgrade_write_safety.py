"""`upgrade --write` loses no concurrent edit (trial 8.6) and writes its files all or
none (trials 8.4, F7-12): fixture upstream in a local git mirror."""

from __future__ import annotations

import pytest

from tests.upgrade.fixture import build
from verifier.errors import ConfigError
from verifier.pins import load_pins
from verifier.project import load_project
from verifier import safewrite
from verifier.upgrade import compare, run_upgrade


@pytest.fixture
def fx(tmp_path, monkeypatch):
    f = build(tmp_path)
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={f.repo.path}")
    return f


@pytest.mark.parametrize("which", ["pins.lock", "pins.toml", "lesson"])
def test_edit_during_analysis_refuses_and_writes_nothing_8_6(fx, monkeypatch, which):
    target = {"pins.lock": fx.root / "pins.lock", "pins.toml": fx.pins, "lesson": fx.lesson}[which]
    real = compare.Compare.link
    edited = {}

    def link(self, c, known):                   # the analysis phase: someone edits a file
        if not edited:
            with open(target, "a", encoding="utf-8") as fh:
                fh.write("\n# an edit made while upgrade ran\n")
            edited.update({p: p.read_bytes() if p.exists() else None
                           for p in (fx.root / "pins.lock", fx.pins, fx.lesson)})
        return real(self, c, known)

    monkeypatch.setattr(compare.Compare, "link", link)
    project = load_project(fx.pins)
    with pytest.raises(ConfigError) as ei:
        run_upgrade(project, "demo", fx.v2, version="2.0.0", write=True, claims=False)
    assert target.name in ei.value.render() and "nothing" in ei.value.render()
    for p, data in edited.items():               # every file exactly as the editor left it
        assert (p.read_bytes() if p.exists() else None) == data, p
    assert not (fx.root / safewrite.JOURNAL).exists()


def _files(fx):
    return {p: p.read_bytes() if p.exists() else None
            for p in (fx.root / "pins.lock", fx.pins, fx.lesson)}


@pytest.mark.parametrize("at", ["pins.toml", "pins.lock", "lesson.md"])
def test_interrupt_during_the_renames_changes_nothing_8_4(fx, monkeypatch, at):
    """A KeyboardInterrupt (or any failure) at any file's rename: every file as before,
    no temporary, backup or journal left; a rerun then writes everything."""
    before = _files(fx)
    real = safewrite.os.replace

    def replace(src, dst, **kw):
        if str(dst).endswith(at) and not str(src).endswith(".bak"):
            raise KeyboardInterrupt
        return real(src, dst, **kw)

    with pytest.MonkeyPatch.context() as mp, pytest.raises(KeyboardInterrupt):
        mp.setattr(safewrite.os, "replace", replace)
        run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True,
                    claims=False)
    assert _files(fx) == before
    leftovers = [p.name for d in (fx.root, fx.lesson.parent) for p in d.iterdir()
                 if p.name.startswith(".")]
    assert leftovers == []
    run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True, claims=False)
    assert load_pins(fx.pins).upstream["demo"].commit == fx.v2 and fx.v2 in fx.lesson.read_text()


def test_pins_lock_that_cannot_be_replaced_writes_nothing_f7_12(fx, capsys):
    """F7-12: pins.lock cannot be replaced (a directory is in its place): exit 2 naming
    it, and the lessons are NOT rewritten (they were, before the transaction)."""
    from verifier.cli.main import main

    before = _files(fx)
    lock = fx.root / "pins.lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    code = main(["upgrade", "demo", "--to", fx.v2, "--version", "2.0.0", "--write",
                 "--pins", str(fx.pins), "-q"])
    err = capsys.readouterr().err
    assert code == 2 and "pins.lock" in err and "Traceback" not in err, err
    assert fx.pins.read_bytes() == before[fx.pins] and fx.lesson.read_bytes() == before[fx.lesson]


def test_sigkill_inside_the_renames_is_rolled_back_by_the_next_load(fx, monkeypatch):
    """The one window a transaction cannot hold (SIGKILL between renames) is recovered:
    the next project load puts the old bytes back from the journal's backups."""
    before = _files(fx)
    real = safewrite.os.replace
    seen = []

    def die_after_first(src, dst, **kw):
        real(src, dst, **kw)
        if str(dst) in ("pins.toml", "pins.lock", fx.lesson.name):   # the transaction's own
            seen.append(dst)
        if len(seen) == 1:
            raise SystemExit("simulated SIGKILL")     # no rollback code runs for it below

    with pytest.MonkeyPatch.context() as mp, pytest.raises(SystemExit):
        mp.setattr(safewrite.Transaction, "_rollback", lambda self: None)
        mp.setattr(safewrite.Transaction, "_discard", lambda self: None)
        mp.setattr(safewrite.os, "replace", die_after_first)
        run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True,
                    claims=False)
    assert _files(fx) != before and (fx.root / safewrite.JOURNAL).exists()
    load_project(fx.pins)                                   # recovers
    assert _files(fx) == before and not (fx.root / safewrite.JOURNAL).exists()


def test_write_order_puts_pins_toml_last(fx):
    report = run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True,
                         claims=False)
    names = [w.file.rsplit("/", 1)[-1] for w in report.written]
    assert names[-2:] == ["pins.lock", "pins.toml"] and names[0].endswith(".md")
