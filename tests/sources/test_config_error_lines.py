"""Configuration errors name the file, the line and what was expected (reliability trials
E1: a course naming an unknown upstream, a truncated pins.lock)."""

from __future__ import annotations

import shutil

from tests.conftest import REPO
from verifier.cli.main import main


def _copy(tmp_path):
    for name in ("pins.toml", "pins.lock"):
        shutil.copy(REPO / name, tmp_path / name)
    return tmp_path / "pins.toml"


def test_a_course_naming_an_unknown_upstream_names_its_line(tmp_path, capsys):
    pins = _copy(tmp_path)
    text = pins.read_text()
    assert 'upstreams = ["drake"]' in text
    pins.write_text(text.replace('upstreams = ["drake"]', 'upstreams = ["drak"]'))
    line = next(i for i, ln in enumerate(pins.read_text().splitlines(), 1) if '"drak"' in ln)
    assert main(["lint", "-q", "--pins", str(pins)]) == 2
    err = capsys.readouterr().err
    assert f"pins.toml:{line}: course.drake-atlas.upstreams: course 'drake-atlas' names " \
           "unknown upstream 'drak' (known: " in err
    assert "Value error" not in err


def test_a_truncated_lock_names_its_last_line(tmp_path, capsys):
    pins = _copy(tmp_path)
    lock = tmp_path / "pins.lock"
    data = lock.read_text()
    cut = data[:data.index('"', len(data) // 2) + 3]          # inside a string
    lock.write_text(cut)
    assert main(["lint", "-q", "--pins", str(pins)]) == 2
    err = capsys.readouterr().err
    assert f"pins.lock:{cut.count(chr(10)) + 1}: malformed TOML" in err
