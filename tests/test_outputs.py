"""Writing records into a directory (`verifier/outputs.py`): an unchanged record is left
alone, a changed one replaced, a symlink never written through."""

from __future__ import annotations

import os

from tests.reporters.fixture_record import load
from verifier.outputs import write_into
from verifier.reporters import render_files


def test_an_unchanged_record_is_not_rewritten(tmp_path):
    report = load()
    (path,) = write_into(tmp_path, report, "junit")
    os.utime(path, ns=(1, 1))
    write_into(tmp_path, report, "junit")
    assert path.stat().st_mtime_ns == 1
    path.write_text(path.read_text(encoding="utf-8")[:-2] + "x\n", encoding="utf-8")
    os.utime(path, ns=(1, 1))
    write_into(tmp_path, report, "junit")
    assert path.read_text(encoding="utf-8") == render_files(report, "junit")["verification.xml"]
    assert path.stat().st_mtime_ns != 1


def test_a_symlink_with_the_same_bytes_is_replaced_by_the_record(tmp_path):
    report = load()
    elsewhere = tmp_path / "elsewhere.xml"
    elsewhere.write_text(render_files(report, "junit")["verification.xml"], encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "verification.xml").symlink_to(elsewhere)
    (path,) = write_into(out, report, "junit")
    assert not path.is_symlink()
    assert path.read_bytes() == elsewhere.read_bytes()
