"""No hangs, no needless network (trials 1.41, 1.42, 5.7; issue 13's warm path):
silent and trickling remotes fail within `git_timeout`, a failed remote is tried once
per run, partial-clone reads never fetch lazily, warm runs contact nothing."""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
import time

import pytest

from tests.helpers_upstream import UpstreamSpec, make_git_repo, write_pins
from tests.sources.netfakes import BlackHole, Trickle
from verifier.project import load_project
from verifier.sources import layer as layer_mod
from verifier.sources.gitstore import PartialClone
from verifier.sources.models import Status

A = "int a(void) { return 1; }\n"
B = "int b(void) { return 2; }\n"
TIMEOUT = 2.0
SLACK = 6.0     # process start-up and kill on a loaded machine


@pytest.fixture
def env(tmp_path, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"git_timeout = {TIMEOUT}\n")
    monkeypatch.setenv("VERIFIER_CONFIG", str(cfg))
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    return tmp_path


def _pins(root, url, commit):
    return write_pins(root, {"demo": UpstreamSpec(url, commit)})


@pytest.mark.parametrize("server", [BlackHole, Trickle])
def test_silent_or_trickling_remote_fails_within_the_timeout(env, monkeypatch, server):
    """Trials 1.41 and 1.42: the next provider (a mirror) serves the files."""
    up = make_git_repo(env / "mirror", {"src/a.c": A, "src/b.c": B})
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={up.path}")
    with server() as srv:
        pins = _pins(env, srv.url + "/x/demo", up.head)
        start = time.monotonic()
        project = load_project(pins)
        files = project.sources.resolve_many([("demo", "src/a.c"), ("demo", "src/b.c")])
        elapsed = time.monotonic() - start
        # a second need for the network in the same run does not try the remote again
        project.sources.prefetch("demo", ["src/a.c"])
        connections = srv.connections
    assert [f.status for f in files] == [Status.PINNED, Status.PINNED]
    assert all(f.provider == f"mirror:{up.path}" for f in files)
    assert elapsed < TIMEOUT + SLACK, f"took {elapsed:.1f}s with git_timeout={TIMEOUT}"
    assert connections == 1
    notes = [n for n in project.sources.notices() if n.code == "provider-failed"]
    assert any("timed out" in n.message for n in notes)


def test_partial_clone_reads_never_fetch_lazily(env, monkeypatch):
    """Trial 1.42 / defect D1: an existing partial clone whose promisor remote now
    trickles; checking for the new pin and reading blobs must not start a lazy fetch."""
    up = make_git_repo(env / "x" / "demo", {"src/a.c": A})
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git,mirror")
    pins = _pins(env, up.url, up.head)
    first = load_project(pins).sources.resolve("demo", "src/a.c")
    assert first.status is Status.PINNED
    new = up.commit({"src/b.c": B}, "add b")
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={up.path}")
    with Trickle() as srv:
        pins = _pins(env, srv.url + "/x/demo", new)
        start = time.monotonic()
        project = load_project(pins)
        sf = project.sources.resolve("demo", "src/b.c")
        elapsed = time.monotonic() - start
    assert sf.status is Status.PINNED and sf.provider == f"mirror:{up.path}"
    assert elapsed < TIMEOUT + SLACK, f"took {elapsed:.1f}s"
    # a blob the clone lacks is simply missing: no lazy fetch
    clone = PartialClone(next((env / "cache" / "git").glob("x+demo.git")),
                         srv.url + "/x/demo", TIMEOUT)
    start = time.monotonic()
    assert clone.read_blob(up.blob("src/b.c", new)) is None
    assert clone.has_commit(new) is False
    assert time.monotonic() - start < 1.5
    clone.close()


def test_warm_run_contacts_no_remote(env, monkeypatch):
    """Issue 13: every needed file in the cache at pinned identity -> no git fetch; a
    remote that would hang is never contacted. `refresh` contacts it; a missing file
    tries the network."""
    up = make_git_repo(env / "x" / "demo", {"src/a.c": A, "src/b.c": B})
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    cold = load_project(_pins(env, up.url, up.head))
    assert {f.status for f in cold.sources.resolve_many([("demo", "src/a.c")])} == {Status.PINNED}
    with BlackHole() as srv:
        pins = _pins(env, srv.url + "/x/demo", up.head)
        warm = load_project(pins)
        sf = warm.sources.resolve("demo", "src/a.c")
        assert (sf.status, sf.cached, srv.connections) == (Status.PINNED, True, 0)
        assert warm.sources.presence("demo", "src/zz.c").state.value == "absent"
        assert srv.connections == 0

        refreshed = load_project(pins)
        refreshed.config.refresh = True
        sf = refreshed.sources.resolve("demo", "src/a.c")
        assert sf.status is Status.PINNED and srv.connections >= 1

        before = srv.connections
        missing = load_project(pins).sources.resolve("demo", "src/b.c")   # blob not cached
        assert srv.connections > before
        assert missing.status is Status.UNAVAILABLE


def test_warm_run_with_lock_identity_contacts_no_remote(env, monkeypatch):
    """The situation here (GitHub unreachable): identity from pins.lock, bytes from a
    mirror on the first run; later runs must not try the remote for every upstream."""
    up = make_git_repo(env / "snap", {"src/a.c": A, "src/b.c": B})
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git,mirror,objects")
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={up.path}")
    (env / "sources.json").write_text(json.dumps({
        "upstream": "x/demo", "commit": up.head,
        "files": [{"path": p, "git_blob": up.blob(p)} for p in ("src/a.c", "src/b.c")]}))
    items = [("demo", "src/a.c"), ("demo", "src/b.c")]
    with BlackHole() as srv:
        pins = _pins(env, srv.url + "/x/demo", up.head)
        from verifier.cli.main import main

        assert main(["lock", "--pins", str(pins), "-q", "--import", str(env / "sources.json")]) == 0
        cold = load_project(pins).sources.resolve_many(items)
        assert [f.status for f in cold] == [Status.PINNED] * 2 and srv.connections >= 1
        before = srv.connections
        warm = load_project(pins).sources.resolve_many(items)
        assert [(f.status, f.cached) for f in warm] == [(Status.PINNED, True)] * 2
        assert srv.connections == before, "the warm run contacted the remote"


def test_partial_clone_is_constructed_under_its_lock(env, monkeypatch):
    """Trial 5.7 / defect C5: the clone's config is only ever touched under the cache
    lock, so concurrent fresh-cache runs cannot race on `config.lock`."""
    up = make_git_repo(env / "x" / "demo", {"src/a.c": A})
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    held = []
    real = PartialClone.__init__

    def spy(self, path, url, timeout):
        lock = env / "cache" / "locks" / "git-x+demo.lock"
        with open(lock, "a+") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fh, fcntl.LOCK_UN)
                held.append(False)
            except BlockingIOError:
                held.append(True)
        real(self, path, url, timeout)

    monkeypatch.setattr(PartialClone, "__init__", spy)
    pins = _pins(env, up.url, up.head)
    assert load_project(pins).sources.resolve("demo", "src/a.c").status is Status.PINNED
    up.commit({"src/b.c": B}, "b")
    pins = _pins(env, up.url, up.head)           # the clone exists now: a second path
    assert load_project(pins).sources.resolve("demo", "src/b.c").status is Status.PINNED
    assert held == [True, True]


def test_concurrent_fresh_cache_runs_agree(env, monkeypatch):
    up = make_git_repo(env / "x" / "demo", {f"src/f{i}.c": f"int f{i};\n" for i in range(8)})
    pins = _pins(env, up.url, up.head)
    code = ("import json,sys; from verifier.project import load_project; "
            "p = load_project(__import__('pathlib').Path(sys.argv[1])); "
            "fs = p.sources.resolve_many([('demo', f'src/f{i}.c') for i in range(8)]); "
            "print(json.dumps([f.status.value for f in fs]))")
    for rnd in range(3):
        cache = env / f"cache{rnd}"
        procs = [subprocess.Popen([sys.executable, "-c", code, str(pins)], text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env={**__import__("os").environ, "VERIFIER_CACHE": str(cache),
                                       "VERIFIER_PROVIDERS": "git"})
                 for _ in range(4)]
        outs = [p.communicate(timeout=120) for p in procs]
        for (out, err), p in zip(outs, procs):
            assert p.returncode == 0, err
            assert json.loads(out) == ["pinned"] * 8, err


def test_hold_budget_is_bounded(env, monkeypatch):
    monkeypatch.setattr(layer_mod, "HOLD_BYTES", 10)
    up = make_git_repo(env / "x" / "demo", {"src/a.c": A})
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    project = load_project(_pins(env, up.url, up.head))
    assert project.sources.resolve("demo", "src/a.c").status is Status.PINNED
    assert project.sources._held_bytes == 0
