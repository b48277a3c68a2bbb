"""`verifier bench` pieces on fixture repositories (no timing is asserted: the
numbers only have to exist and be consistent)."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.claims.simx_project import make_simx
from tests.helpers_upstream import make_git_repo
from verifier import bench
from verifier.bench import index as bench_index_module
from verifier.bench import BenchReport, CloneBench, CourseBench, IndexBench, Machine, Target
from verifier.cli.main import main


def test_cat_file_batch_reads_blobs_from_the_object_store(tmp_path):
    repo = make_git_repo(tmp_path / "r", {"a.c": "int a;\n", "b/b.h": b"\x00\x01binary\n",
                                         "empty.py": ""})
    blobs = [repo.blob(p) for p in ("a.c", "b/b.h", "empty.py")]
    got = bench.cat_file_batch(repo.path / ".git", [*blobs, "0" * 40])
    assert got == {blobs[0]: b"int a;\n", blobs[1]: b"\x00\x01binary\n", blobs[2]: b""}


def test_mirror_tree_lists_source_files(tmp_path):
    repo = make_git_repo(tmp_path / "r", {"src/a.c": "int a;\n", "README.md": "x\n",
                                         "tests/test_a.py": "def test(): pass\n"})
    head, files = bench.mirror_tree(repo.path / ".git")
    assert head == repo.head and files == {"src/a.c": repo.blob("src/a.c")}


def test_index_section_on_a_fixture_tree(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    ix = bench.bench_index(s.project, jobs=2)
    assert ix.tree == "simx@pin" and ix.files >= 5 and ix.bytes > 0
    assert ix.ours_symbols and ix.ours_cold_s is not None and ix.ours_warm_s is not None
    assert ix.parse_only_s is not None
    if shutil.which("ctags"):
        assert ix.ctags_tags and ix.ctags_2p_s and ix.ratio_cold_vs_ctags is not None
    else:
        assert ix.note == "ctags not installed (Debian package universal-ctags)"
    # the scratch directories are gone, the fact cache of the project untouched
    assert list((s.project.store.root / "tmp").iterdir()) == []
    assert not (s.project.store.root / "facts").exists()


def test_ctags_missing_is_reported_not_fatal(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    real_which = shutil.which
    monkeypatch.setattr(bench_index_module.shutil, "which",
                        lambda name, *a, **k: None if name == "ctags" else real_which(name))
    ix = bench.bench_index(s.project, jobs=1)
    assert ix.note == "ctags not installed (Debian package universal-ctags)"
    assert ix.ratio_cold_vs_ctags is None and ix.ours_symbols


def test_clone_section_against_a_local_mirror(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    big = {f"other/data{i}.bin": bytes([i]) * 200_000 for i in range(5)}
    mirror = make_git_repo(tmp_path / "drake-mirror",
                           {"systems/sensors/gyro.cc": "int g;\n",
                            "systems/sensors/gyro.h": "int h;\n", **big})
    monkeypatch.setattr("verifier.sources.needs.needed_files",
                        lambda project, upstream=None, lessons=None, claimed=():
                        [("drake", "systems/sensors/gyro.cc"), ("drake", "systems/sensors/gyro.h"),
                         ("drake", "systems/sensors/not_at_head.cc")])
    cl = bench.bench_clone(s.project, mirror.path / ".git")
    assert cl.note is None, cl.note
    assert (cl.cited_files, cl.blobs_wanted, cl.blobs_fetched) == (3, 2, 2)
    assert cl.partial_bytes and cl.full_bytes and cl.partial_bytes < cl.full_bytes
    assert cl.ratio == round(cl.partial_bytes / cl.full_bytes, 4)


def test_clone_without_mirror_is_not_measured(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    cl = bench.bench_clone(s.project, None)
    assert cl.ratio is None and cl.note.startswith("not measured")


def _report(**kw) -> BenchReport:
    m = Machine(cpus=2, kernel="k", python="3.12")
    return BenchReport(machine=m, **kw)


NAMES = ["warm lint + check", "--scale 10", "cold index vs ctags", "runtime per check",
         "peak RSS", "Drake partial clone"]


@pytest.mark.parametrize("warm,ratio,clone,rss,expect", [
    (0.8, 2.5, 0.01, 500.0, [True, None, True, None, True, True]),
    (1.6, 8.0, 0.06, 1500.0, [False, None, False, None, False, False]),
])
def test_targets_are_evaluated_from_the_numbers(warm, ratio, clone, rss, expect):
    rep = _report(course=CourseBench(lessons=5, warm=[], warm_total_s=warm),
                  index=IndexBench(tree="t", files=1, bytes=1, ours_cold_s=ratio,
                                   ctags_2p_s=1.0, ratio_cold_vs_ctags=ratio),
                  clone=CloneBench(mirror="m", blobs_wanted=2, blobs_fetched=2,
                                   partial_bytes=int(clone * 1000), full_bytes=1000, ratio=clone),
                  peak_rss_children_mib=rss)
    rep.course.warm = [bench.CliRun(command="verifier lint", wall_s=warm, cpu_s=warm,
                                    exit_code=0)]
    rep.course.outputs_identical = True
    got = bench.evaluate(rep)
    assert [t.name for t in got] == NAMES
    assert [t.met for t in got] == expect
    assert all(isinstance(t, Target) and t.target for t in got)
    runtime = next(t for t in got if t.name == "runtime per check")
    assert runtime.met is None and runtime.measured == "-"


def test_cli_json_shape(tmp_path, monkeypatch, capsys):
    s = make_simx(tmp_path, monkeypatch)
    code = main(["bench", "--pins", str(s.root / "pins.toml"), "--only", "index",
                 "--only", "clone", "--format", "json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["index"]["tree"] == "simx@pin" and data["course"] is None
    assert data["clone"]["note"].startswith("not measured")
    assert {t["name"] for t in data["targets"]} == set(NAMES)
    assert main(["bench", "--repeat", "0"]) == 2


def test_course_section_cold_then_warm(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    s.write('[[claim]]\nid = "ok"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
            'path = "include/simx/simx.h"\nsymbol = "sx_advance"\nexpected = true\n')
    c = bench.bench_course(s.project, repeat=1)
    assert c.lessons == 1 and c.claims == 1
    assert [r.command for r in c.cold] == [r.command for r in c.warm] == [
        "verifier lint", "verifier check", "verifier verify"]
    assert all(r.rss_mib and r.rss_mib > 0 for r in c.cold + c.warm)
    # the total is the two CI commands, verify is measured on its own
    assert c.warm_total_s == round(sum(r.wall_s for r in c.warm[:2]), 3)
    assert c.outputs_identical is True
    assert c.cold_total_s > 0 and c.warm_total_s > 0
    # the start-up floor of each command, measured in the same run
    assert c.interpreter is not None and c.interpreter.exit_code == 0
    assert [f.command for f in c.imports] == [f"imports of {r.command}" for r in c.warm]
    assert all(f.exit_code == 0 and f.cpu_s > c.interpreter.cpu_s / 2 for f in c.imports)
    # the scratch cache is gone; the shared source data is still there
    root = s.project.store.root
    assert list((root / "tmp").iterdir()) == []
    assert any((root / "blobs").iterdir())


def test_runtime_section_without_runtime_checks_says_so(tmp_path, monkeypatch):
    s = make_simx(tmp_path, monkeypatch)
    s.write('[[claim]]\nid = "ok"\nfragment = "sx_advance(model, d)"\nkind = "symbol"\n'
            'path = "include/simx/simx.h"\nsymbol = "sx_advance"\nexpected = true\n')
    rt = bench.bench_runtime(s.project)
    assert rt == {"skipped": "not measured: no claim has a runtime check (0 of 1 claims has "
                             "[claim.runtime])"}


def test_bytecode_env(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env, on = bench.bytecode_env(None)
    assert not on and env["PYTHONDONTWRITEBYTECODE"] == "1"
    env, on = bench.bytecode_env(tmp_path / "pyc")
    assert on and "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PYTHONPYCACHEPREFIX"] == str(tmp_path / "pyc")


def test_first_difference_names_the_line():
    from verifier.bench.common import first_difference

    assert first_difference("verifier lint", b"a\nb\n", b"a\nb\n") is None
    got = first_difference("verifier check", b"a\nb\nc\n", b"a\nB\nc\n")
    assert got == "verifier check: output line 2 differs: cold 'b', warm 'B'"
    assert "end of output" in first_difference("x", b"a\n", b"a\nmore\n")


def test_loaded_modules_reads_importtime_in_order():
    err = (b"import time: self [us] | cumulative | imported package\n"
           b"import time:       120 |        120 |   verifier.errors\n"
           b"noise line\n"
           b"import time:       300 |        420 | verifier.cli.main\n"
           b"import time:        10 |         10 | verifier.__main__\n"
           b"import time:         5 |          5 |   verifier.errors\n")
    assert bench.loaded_modules(err) == ["verifier.errors", "verifier.cli.main"]
