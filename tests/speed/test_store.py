"""The cache layout has one owner (`verifier.cache.SECTIONS`), writes are atomic and keep
the umask's mode, and an unusable cache is a clear error (exit 2), never a traceback."""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from pathlib import Path

import pytest

from verifier import safewrite
from verifier.cache import BY_NAME, SECTIONS, STALE_TMP_S, Store
from verifier.cli.main import main
from verifier.errors import CacheError

PKG = Path(__file__).resolve().parents[2] / "verifier"


def _fill(store: Store) -> None:
    for s in SECTIONS:
        f = store.path(s.name, "entry", "x.bin")
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"x" * 10)


def test_clean_all_covers_every_cleanable_section(tmp_path):
    store = Store(tmp_path / "c")
    _fill(store)
    store.clean("all")
    for s in SECTIONS:
        left = list((store.root / s.subdir).rglob("*.bin"))
        assert (left == []) is s.cleanable, s.name


@pytest.mark.parametrize("section", [s.name for s in SECTIONS if s.cleanable])
def test_clean_one_section_from_the_cli(tmp_path, capsys, section):
    store = Store(tmp_path / "c")
    _fill(store)
    assert main(["cache", "clean", "--section", section, "--cache", str(store.root)]) == 0
    gone = {section, *BY_NAME[section].also}
    for s in SECTIONS:
        assert bool(list((store.root / s.subdir).rglob("*.bin"))) is (s.name not in gone), s.name


def test_info_lists_every_section_with_its_size(tmp_path, capsys):
    store = Store(tmp_path / "c")
    _fill(store)
    assert main(["cache", "info", "--cache", str(store.root)]) == 0
    out = capsys.readouterr().out
    for s in SECTIONS:
        assert re.search(rf"{s.subdir}/\s.*0\.0 MB", out), s.name
    assert store.sizes() == {s.name: 10 for s in SECTIONS} | {
        "tmp": store.sizes()["tmp"]}


def test_no_module_builds_a_cache_path_by_hand():
    """`Store.path(section, ...)` is the only way to name a place in the cache."""
    names = "|".join(re.escape(s.subdir) for s in SECTIONS)
    bad = re.compile(rf"""(store|self)\.root\s*/\s*["']({names})["']""")
    hits = [f"{p.relative_to(PKG)}:{i}" for p in sorted(PKG.rglob("*.py"))
            if p.name != "cache.py"
            for i, line in enumerate(p.read_text().splitlines(), 1) if bad.search(line)]
    assert hits == []


def test_path_refuses_unknown_sections_and_escapes(tmp_path):
    store = Store(tmp_path / "c")
    with pytest.raises(ValueError):
        store.path("nope")
    for bad in ("..", "a/b", ""):
        with pytest.raises(ValueError):
            store.path("blobs", bad)


def test_gc_removes_what_is_not_live_and_stale_staging(tmp_path):
    store = Store(tmp_path / "c")
    for name in ("old-commit.json", "cur-commit.json"):
        store.write_bytes(store.path("trees", name), b"{}")
    keep, drop = store.put_blob(b"kept\n"), store.put_blob(b"dropped\n")
    fresh = store.path("tmp", "dl-fresh")
    stale = store.path("tmp", "dl-stale")
    fresh.mkdir()
    stale.mkdir()
    old = time.time() - STALE_TMP_S - 60
    os.utime(stale, (old, old))
    removed = store.gc({"trees": {"cur-commit.json"}, "blobs": {keep}})
    assert sorted(p.name for p in removed["trees"]) == ["old-commit.json"]
    assert store.get_blob(keep) == b"kept\n" and store.get_blob(drop) is None
    assert fresh.exists() and not stale.exists()
    assert [p.name for p in removed["tmp"]] == ["dl-stale"]


# ---------------------------------------------------------------- atomic writes


def test_safe_write_mode_follows_umask_or_the_existing_file(tmp_path):
    area = safewrite.Area.edit(tmp_path, "test")
    old = os.umask(0o027)
    try:
        area.write(tmp_path / "new", b"a")
        assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o640
        (tmp_path / "kept").write_bytes(b"")
        os.chmod(tmp_path / "kept", 0o604)
        area.write(tmp_path / "kept", "b")
        assert stat.S_IMODE((tmp_path / "kept").stat().st_mode) == 0o604
        assert (tmp_path / "kept").read_bytes() == b"b"
    finally:
        os.umask(old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "new"]   # no temp left


def test_safe_write_restages_next_to_the_file_across_filesystems(tmp_path, monkeypatch):
    stage, dest = tmp_path / "stage", tmp_path / "out" / "pins.lock"
    stage.mkdir()
    real = os.replace

    def replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        if src_dir_fd is not None and os.path.realpath(f"/proc/self/fd/{src_dir_fd}") == str(stage):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(safewrite.os, "replace", replace)
    safewrite.Area.edit(tmp_path, "test").write(dest, b"lock\n",
                                                stage=safewrite.Area.edit(stage, "stage"))
    assert dest.read_bytes() == b"lock\n" and list(stage.iterdir()) == []


def test_lock_writes_next_to_pins_lock_not_in_the_cache(tmp_path, monkeypatch):
    """Trial 1.48: `verifier lock` staged pins.lock in <cache>/tmp and crashed with EXDEV
    when the cache was on another filesystem."""
    seen = []
    real = safewrite.stage_file

    def stage(dir_fd, name, *a, **k):
        seen.append((os.path.realpath(f"/proc/self/fd/{dir_fd}"), name))
        return real(dir_fd, name, *a, **k)

    from tests.claims.simx_project import make_simx

    s = make_simx(tmp_path, monkeypatch)
    monkeypatch.setattr(safewrite, "stage_file", stage)
    assert main(["lock", "--pins", str(s.root / "pins.toml"), "-q"]) in (0, 1)
    locks = [d for d, name in seen if name == "pins.lock"]
    assert locks and all(d == os.path.realpath(s.root) for d in locks), seen


# ---------------------------------------------------------------- unusable caches


def test_cache_that_is_a_file_is_exit_2(tmp_path, capsys):
    f = tmp_path / "cachefile"
    f.write_text("x")
    assert main(["cache", "info", "--cache", str(f)]) == 2
    err = capsys.readouterr().err
    assert "cache directory" in err and str(f) in err and "Traceback" not in err


@pytest.mark.parametrize("code,words", [(errno.EROFS, "read-only file system"),
                                        (errno.ENOSPC, "no space left on device")])
def test_read_only_or_full_cache_is_a_cache_error_naming_the_directory(tmp_path, monkeypatch,
                                                                       code, words):
    store = Store(tmp_path / "c")

    def refuse(*a, **k):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(safewrite, "stage_file", refuse)   # the one place a write stages
    with pytest.raises(CacheError) as exc:
        store.write_bytes(store.path("trees", "t.json"), b"{}")
    assert str(store.root) in exc.value.render() and words in exc.value.render()
    assert exc.value.exit_code == 2
    with pytest.raises(CacheError):        # a new Store on it fails up front
        Store(tmp_path / "c2")


def test_read_only_cache_from_the_cli_is_exit_2(tmp_path, monkeypatch, capsys):
    store = Store(tmp_path / "c")
    real = safewrite.stage_file

    def ro(dir_fd, name, *a, **k):
        if os.path.realpath(f"/proc/self/fd/{dir_fd}").startswith(str(store.root)):
            raise OSError(errno.EROFS, "Read-only file system", name)
        return real(dir_fd, name, *a, **k)

    monkeypatch.setattr(safewrite, "stage_file", ro)
    assert main(["cache", "info", "--cache", str(store.root)]) == 2
    assert "read-only file system" in capsys.readouterr().err


def test_gc_from_the_cli_keeps_the_current_pin_and_drops_old_ones(tmp_path, monkeypatch, capsys):
    from tests.claims.simx_project import make_simx
    from verifier.claims.check import run_check
    from verifier.facts.cache import FactCache

    s = make_simx(tmp_path, monkeypatch)
    s.write('[[claim]]\nid = "ok"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
            'path = "include/simx/simx.h"\nsymbol = "sx_advance"\nexpected = true\n')
    run_check(s.project)
    store = s.project.store
    for section, name in [("trees", "0" * 40 + ".json"), ("index", "simx-" + "0" * 40 + ".json"),
                          ("courses", "old-course-" + "1" * 40), ("git", "mirror-000000000000.git")]:
        store.path(section, name).parent.mkdir(parents=True, exist_ok=True)
        store.path(section, name).write_text("{}")
    stale_blob = store.put_blob(b"a file of an older pin\n")
    old = FactCache(store)
    old.put("claim", "oldversion", "ab" * 20, {"x": 1})
    os.utime(store.path("facts", "claim", "oldversion", ".used"), (1, 1))
    live_before = {p.name for p in store.path("trees").iterdir()}
    assert main(["cache", "gc", "--pins", str(s.root / "pins.toml")]) == 0
    assert "removed" in capsys.readouterr().out
    assert not store.path("trees", "0" * 40 + ".json").exists()
    assert not store.path("index", "simx-" + "0" * 40 + ".json").exists()
    assert not store.path("courses", "old-course-" + "1" * 40).exists()
    assert not store.path("git", "mirror-000000000000.git").exists()
    assert store.get_blob(stale_blob) is None
    assert not store.path("facts", "claim", "oldversion").exists()
    assert {p.name for p in store.path("trees").iterdir()} == live_before - {"0" * 40 + ".json"}
    # the current pin still checks warm, from what gc kept
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")
    from verifier.project import load_project

    p = load_project(s.root / "pins.toml")
    (r,) = run_check(p)
    assert r.verdict.value == "verified"
