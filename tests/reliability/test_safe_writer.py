"""Class: a write that lands where it must not, half-lands, or fails as a traceback
(F5-4: `--out` the folder of the courses overwrote 48 lessons; F5-5: `--out` inside docs/
made later runs lint the records; F5-3: a planted `out/<course>` link carried records
out of --out; F5-6/8/9: a read-only or full --out, or a directory where a record goes,
was exit 3 after the whole run; F6-2/F6-3: `--cache ''` was the current directory and
`cache clean` deleted the user's folders; F7-12: `upgrade --write` rewrote lessons and
then failed on pins.lock, see tests/upgrade/test_upgrade_write_safety.py).

Mechanism: `verifier/safewrite.py` - every file the tool writes goes through an `Area`
(guarded, preflighted, never through a symbolic link, atomic, errors exit 2 naming the
path) or a `Transaction` (all or none)."""

from __future__ import annotations

import ast
import errno
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.reliability.conftest import few
from verifier import safewrite
from verifier.cli.main import main
from verifier.safewrite import Area, Transaction, WriteError

ROOT = Path(__file__).resolve().parents[2] / "verifier"


@pytest.fixture
def s(tmp_path, monkeypatch):
    from tests.claims.simx_project import make_simx

    return make_simx(tmp_path, monkeypatch)


def _lessons(tmp_path):
    docs = tmp_path / "course" / "demo-atlas" / "docs"
    return {p: p.read_bytes() for p in sorted(docs.rglob("*")) if p.is_file()}


def _no_work(monkeypatch):
    """The refusal must come before the run: the pipeline is never started."""
    import verifier.pipeline as pipeline

    def run(*a, **k):
        raise AssertionError("the pipeline ran before the output was checked")
    monkeypatch.setattr(pipeline, "run", run)


def _verify(s, out, *extra):
    return main(["verify", "--pins", str(s.root / "pins.toml"), "--runtime", "none",
                 "--out", str(out), "-q", *extra])


@pytest.mark.parametrize("where", ["parent-of-courses", "course", "docs", "docs-sub",
                                   "claims", "project"])
def test_out_in_or_around_what_is_read_is_refused_before_the_work_f5_4_f5_5(
        s, tmp_path, monkeypatch, capsys, where):
    out = {"parent-of-courses": tmp_path / "course",
           "course": tmp_path / "course" / "demo-atlas" / "docs" / "..",
           "docs": tmp_path / "course" / "demo-atlas" / "docs",
           "docs-sub": tmp_path / "course" / "demo-atlas" / "docs" / "records",
           "claims": s.root / "claims" / "out", "project": s.root}[where]
    before = _lessons(tmp_path)
    _no_work(monkeypatch)
    assert _verify(s, out) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "Traceback" not in err, err
    assert _lessons(tmp_path) == before


def test_a_planted_course_link_in_out_is_refused_f5_3(s, tmp_path, monkeypatch, capsys):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "demo-atlas").symlink_to(elsewhere, target_is_directory=True)
    _no_work(monkeypatch)
    assert _verify(s, out) == 2
    assert "symbolic link" in capsys.readouterr().err and list(elsewhere.iterdir()) == []


def test_a_directory_where_a_record_goes_is_refused_before_the_work_f5_8(s, tmp_path,
                                                                         monkeypatch, capsys):
    (tmp_path / "out" / "verification.json").mkdir(parents=True)
    _no_work(monkeypatch)
    assert _verify(s, tmp_path / "out") == 2
    assert "verification.json" in capsys.readouterr().err


@pytest.mark.parametrize("code,words", [(errno.EROFS, "read-only"), (errno.ENOSPC, "no space"),
                                        (errno.EDQUOT, "quota")])
def test_read_only_or_full_out_is_exit_2_before_the_work_f5_6_f5_9(s, tmp_path, monkeypatch,
                                                                   capsys, code, words):
    out = tmp_path / "out"
    out.mkdir()                   # it exists and cannot take a write
    real = safewrite.stage_file

    def stage(fd, name, *a, **k):
        if os.path.realpath(f"/proc/self/fd/{fd}").startswith(str(out)):
            raise OSError(code, os.strerror(code))
        return real(fd, name, *a, **k)

    monkeypatch.setattr(safewrite, "stage_file", stage)
    _no_work(monkeypatch)
    assert _verify(s, out) == 2
    err = capsys.readouterr().err
    assert words in err and str(out) in err and "Traceback" not in err, err


def test_a_disk_that_fills_while_records_are_written_is_exit_2_naming_the_file(s, tmp_path,
                                                                              monkeypatch, capsys):
    out = tmp_path / "out"
    real, n = safewrite.stage_file, []

    def stage(fd, name, *a, **k):
        if os.path.realpath(f"/proc/self/fd/{fd}").startswith(str(out)) and name != "probe":
            n.append(name)
            if len(n) == 3:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, name, *a, **k)

    monkeypatch.setattr(safewrite, "stage_file", stage)
    assert _verify(s, out) == 2
    err = capsys.readouterr().err
    assert "no space left on device" in err and n[2] in err and "Traceback" not in err, err


@pytest.mark.parametrize("argv", [["cache", "clean", "--cache", ""], ["check", "--pins", ""],
                                  ["verify", "--out", ""], ["lock", "--import", ""],
                                  ["record", "--out", ""], ["lint", ""]])
def test_empty_string_paths_are_refused_f6_2(argv, capsys):
    assert main(argv) == 2
    assert "empty path" in capsys.readouterr().err


def test_cache_clean_of_a_directory_that_is_no_cache_deletes_nothing_f6_3(tmp_path, capsys):
    work = tmp_path / "work"
    for d in ("tmp", "index", "git"):
        (work / d).mkdir(parents=True)
        (work / d / "mine.txt").write_text("user data")
    assert main(["cache", "clean", "--cache", str(work)]) == 2
    assert "not a verifier cache" in capsys.readouterr().err
    assert all((work / d / "mine.txt").read_text() == "user data" for d in ("tmp", "index", "git"))


def test_every_file_write_of_the_tool_goes_through_the_safe_writer():
    """No module writes a file by itself (open(..., 'w'/'a'/'x'), Path.write_text/bytes,
    os.replace/rename, shutil.copy*/move, tempfile.mkstemp) except these, each for a
    reason: the writer itself, the cache's streaming blob store and lock files, the
    runtime's private scratch directory and environments (pip and the harness), the
    benchmark's scratch, and subprocess helpers in their own temp directories."""
    allowed = {
        "safewrite.py": "the writer",
        "cache.py": "stream of a blob into tmp/ before `Area.place`; lock files (O_NOFOLLOW)",
        "runtime/runner.py": "the batch's private scratch directory (mkdtemp)",
        "runtime/harness.py": "inside the sandbox: per-check scratch", "runtime/jail.py":
        "uid/gid maps of its namespace", "runtime/sandbox.py": "its plan in the scratch",
        "runtime/envs.py": "builds environments (pip)", "facts/introspect.py":
        "runs in an environment, writes into the tool's temp directory",
        "draft/measure.py": "a scratch project in a temp directory",
        "draft/write.py": "a claim file's candidate text in a temp directory (checked first)",
        "sources/index.py": "a download streamed into the cache's tmp/ staging directory",
        "sources/gitstore.py": "a scratch bare repository in a temp directory; staged clones",
        "sources/wheel.py": "staging of a download inside the cache's tmp/",
        "bench/common.py": "the benchmark's scratch cache", "bench/scale.py": "benchmark scratch",
        "bench/large.py": "benchmark scratch", "bench/course.py": "benchmark scratch",
        "bench/index.py": "benchmark scratch", "bench/clone.py": "benchmark scratch",
        "bench/runtime.py": "benchmark scratch", "cli/main.py": "the crash log (O_NOFOLLOW)",
        "bench/planted.py": "benchmark scratch (a copy of the course it plants errors in)",
        "claims/claimedit.py": "a claim file's candidate text in a temp directory (checked first)",
        "claims/saysdraft.py": "a claim file's candidate text in a temp directory (checked first)",
        "facts/release.py": "introspection targets in the tool's temp directory (as introspect.py)",
    }
    bad: dict[str, set] = {}
    for f in sorted(ROOT.rglob("*.py")):
        rel = f.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
            base = getattr(getattr(fn, "value", None), "id", "")
            hit = None
            receiver = ast.unparse(fn.value) if isinstance(fn, ast.Attribute) else ""
            if name == "write_bytes" and receiver.endswith("store"):
                continue                                  # Store.write_bytes: the cache's area
            if name in ("write_text", "write_bytes", "mkstemp", "copyfile", "copytree", "copy2",
                        "move") or (name in ("replace", "rename") and base == "os"):
                hit = name
            elif name == "open" and base in ("", "os", "io") and len(node.args) > 1:
                mode = node.args[1]
                if isinstance(mode, ast.Constant) and any(c in str(mode.value) for c in "wax+"):
                    hit = f"open({mode.value!r})"
            if hit and rel not in allowed:
                bad.setdefault(rel, set()).add(hit)
    assert not bad, f"files written outside the safe writer: {bad}"


# ----------------------------------------------------------------- the class, broadly
_names = st.sampled_from(["a", "b", "c", "course", "docs"])


@few(60)
@given(st.lists(_names, min_size=1, max_size=4), st.sets(st.integers(0, 3), max_size=2),
       st.booleans())
def test_no_write_through_a_link_ever_lands_outside_its_area(tmp_path_factory, parts, links,
                                                             repair):
    base = tmp_path_factory.mktemp("area")
    root, outside = base / "root", base / "outside"
    root.mkdir()
    outside.mkdir()
    cur = root
    for i, p in enumerate(parts[:-1]):
        nxt = cur / p
        if i in links and not nxt.exists():
            nxt.symlink_to(outside, target_is_directory=True)
            break                              # the rest of the path lies behind the link
        nxt.mkdir(exist_ok=True)
        cur = nxt
    dest = root.joinpath(*parts)
    area = Area(root, "test", repair=repair)
    try:
        area.write(dest, b"x")
    except WriteError as exc:
        assert not repair and "symbolic link" in exc.message
    assert list(outside.iterdir()) == [], "a write left its area"
    if repair:
        assert dest.read_bytes() == b"x"


@few(60)
@given(st.lists(st.tuples(st.sampled_from(["p", "q", "r/s", "t/u/v"]), st.booleans()),
                min_size=1, max_size=4, unique_by=lambda t: t[0]),
       st.integers(min_value=0, max_value=12), st.sampled_from(["stage", "rename", "journal"]))
def test_a_transaction_writes_all_files_or_none_whatever_fails(tmp_path_factory, files, at,
                                                               where):
    root = tmp_path_factory.mktemp("tx")
    old = {}
    for rel, exists in files:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if exists:
            p.write_bytes(b"old " + rel.encode())
        old[p] = p.read_bytes() if exists else None
    tx = Transaction(root, "a test transaction")
    for p in old:
        tx.write(Area.edit(root, "test"), p, b"new " + p.name.encode())
    calls = []
    real_stage, real_replace = safewrite.stage_file, safewrite.os.replace

    def stage(*a, **k):
        calls.append("s")
        if where in ("stage", "journal") and len(calls) == at + 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_stage(*a, **k)

    def replace(src, dst, **k):
        calls.append("r")
        if where == "rename" and calls.count("r") == at % 5 + 1:
            raise OSError(errno.EIO, "I/O error")
        return real_replace(src, dst, **k)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(safewrite, "stage_file", stage)
        mp.setattr(safewrite.os, "replace", replace)
        try:
            tx.commit()
            done = True
        except WriteError:
            done = False
    now = {p: p.read_bytes() if p.exists() else None for p in old}
    if done:
        assert all(v == b"new " + p.name.encode() for p, v in now.items())
    else:
        assert now == old
    leftovers = [p.name for p in root.rglob("*") if p.name.startswith(".")]
    assert leftovers == [], leftovers


def test_a_folder_a_concurrent_run_makes_first_is_opened_not_refused(tmp_path, monkeypatch):
    """Two runs filling a fresh cache: the other makes `blobs/fe` between this one's
    failed open and its mkdir (FileExistsError); the write goes on into that folder."""
    real = os.mkdir
    raced: list[str] = []

    def mkdir(name, mode=0o777, *, dir_fd=None):
        if dir_fd is None:                      # the area's root (os.makedirs)
            return real(name, mode)
        real(name, mode, dir_fd=dir_fd)         # the other run was first
        raced.append(name)
        raise FileExistsError(errno.EEXIST, "File exists", name)

    monkeypatch.setattr(safewrite.os, "mkdir", mkdir)
    root = tmp_path / "cache"
    Area(root, "the cache", repair=True).write(root / "blobs" / "fe" / "entry", b"x")
    assert (root / "blobs" / "fe" / "entry").read_bytes() == b"x"
    assert raced == ["blobs", "fe"]
