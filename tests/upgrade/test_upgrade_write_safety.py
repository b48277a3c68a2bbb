"""`upgrade --write` loses no concurrent edit (trial 8.6) and an interrupted write
can be told and finished (trial 8.4): fixture upstream in a local git mirror."""

from __future__ import annotations

import pytest

from tests.upgrade.fixture import build
from verifier.errors import ConfigError
from verifier.pins import load_pins
from verifier.project import load_project
from verifier.upgrade import compare, run_upgrade
from verifier.upgrade import write as writer


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
    assert not (fx.root / writer.JOURNAL).exists()


def test_interrupted_write_is_told_and_finished_by_a_rerun_8_4(fx, monkeypatch):
    real = writer.write_file

    def interrupt_at_pins(path, data):
        if path.name == "pins.toml":
            raise KeyboardInterrupt
        real(path, data)

    monkeypatch.setattr(writer, "write_file", interrupt_at_pins)
    with pytest.raises(KeyboardInterrupt):
        run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True,
                    claims=False)
    monkeypatch.setattr(writer, "write_file", real)
    assert load_pins(fx.pins).upstream["demo"].commit == fx.v1     # the commit point not reached
    assert fx.v2 in fx.lesson.read_text()                           # lessons already moved
    assert (fx.root / writer.JOURNAL).exists()
    report = run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", claims=False)
    assert any("interrupted" in n and fx.v2[:7] in n for n in report.notes)
    run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True, claims=False)
    assert load_pins(fx.pins).upstream["demo"].commit == fx.v2
    assert not (fx.root / writer.JOURNAL).exists()


def test_write_order_puts_pins_toml_last(fx):
    report = run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", write=True,
                         claims=False)
    names = [w.file.rsplit("/", 1)[-1] for w in report.written]
    assert names[-2:] == ["pins.lock", "pins.toml"] and names[0].endswith(".md")
