"""The second producer, the pinned release's public surface: `.pyi` stubs and
introspection of a runtime environment, held to the same expectations as the
source extractor where they overlap; and how lint's resolver uses it.

The fixture package is our own code, shaped like an upstream package with a
compiled-style re-export (`__getattr__`) that no static index sees."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from tests.helpers_upstream import (UpstreamSpec, make_git_repo, make_wheel, place_wheel_in_cache,
                                    write_pins)
from verifier.cache import Store
from verifier.facts import python as pyfacts
from verifier.facts.release import EnvHandle, introspect, release_index, release_wheels
from verifier.facts.symbols import SymbolIndex, build_index, project_file
from verifier.lint.resolve import Resolver
from verifier.lint.shapes import ApiRef

INIT = '''"""Fixture package."""
from ._impl import Gauge, Mode, make_gauge

__all__ = ["Gauge", "Mode", "make_gauge", "lazy_thing"]


def __getattr__(name):
    # a computed name: no static reading decides which names this serves
    if name.startswith("lazy_"):
        from . import _lazy
        return getattr(_lazy, name)
    raise AttributeError(name)


def __dir__():
    return sorted(list(globals()) + ["lazy_thing"])
'''

IMPL = '''import enum


class Mode(enum.Enum):
    FAST = 1
    SLOW = 2


class Gauge:
    """A gauge."""

    class Reading:
        value: float = 0.0

    def __init__(self, body, *, rate=1.0):
        self.body = body

    @property
    def rate(self):
        return 1.0

    def read(self, index=0):
        return index


def make_gauge(name, /, strict=False):
    return Gauge(name)
'''

LAZY = "def lazy_thing(x):\n    return x\n"

STUB = '''class Mode:
    FAST: Mode
    SLOW: Mode

class Gauge:
    class Reading:
        value: float
    def __init__(self, body, *, rate: float = 1.0) -> None: ...
    @property
    def rate(self) -> float: ...
    def read(self, index: int = 0) -> int: ...

def make_gauge(name, /, strict: bool = False) -> Gauge: ...
def lazy_thing(x): ...
'''

SOURCE = {"fixpkg/__init__.py": INIT, "fixpkg/_impl.py": IMPL, "fixpkg/_lazy.py": LAZY}


def _ref(dotted: str) -> ApiRef:
    segs = tuple(dotted.split("."))
    return ApiRef(raw=dotted, segments=segs, calls=tuple(False for _ in segs))


def _index(records, evidence="pinned") -> SymbolIndex:
    rows, stars = [], {}
    for f in records:
        mod = f.module or f.path
        r, s = project_file(f, mod, evidence=evidence)
        rows += r
        if s:
            stars.setdefault(mod, []).extend(s)
    return SymbolIndex(upstream="fix", commit="0" * 40, files={f.path: "x" for f in records},
                       symbols=rows, star_imports=stars, evidence=evidence)


def _source_index():
    return _index([pyfacts.extract(p, t.encode()) for p, t in SOURCE.items()])


def _stub_index():
    return _index([pyfacts.extract("fixpkg/__init__.pyi", STUB.encode(), producer="stub")],
                  "release")


def _introspection_index(tmp_path):
    tree = tmp_path / "site"
    for p, t in SOURCE.items():
        (tree / p).parent.mkdir(parents=True, exist_ok=True)
        (tree / p).write_text(t)
    project = types.SimpleNamespace(store=Store(tmp_path / "cache"))
    env = EnvHandle(python=Path(sys.executable), key="fixture-env", roots=("fixpkg",),
                    paths=(str(tree),), label="fixture env")
    records, notes = introspect(project, "fix", env)
    assert records and not notes, notes
    assert {r.producer for r in records} == {"introspection"}
    return _index(records, "release")


@pytest.fixture(params=["source", "stub", "introspection"])
def producer_index(request, tmp_path):
    return request.param, {"source": _source_index, "stub": _stub_index,
                           "introspection": lambda: _introspection_index(tmp_path)}[request.param]()


def test_the_producers_meet_the_same_expectations(producer_index):
    name, idx = producer_index
    r = Resolver([idx], release=[])
    for dotted in ("fixpkg.Gauge", "fixpkg.Mode", "fixpkg.make_gauge", "Gauge.read", "Gauge.rate",
                   "Gauge.Reading", "Mode.FAST", "Mode.SLOW", "Gauge.__init__"):
        assert r.resolve(_ref(dotted)).status == "resolved", (name, dotted)
    assert r.resolve(_ref("Gauge.write")).status == "unresolved", name
    by = {s.qual: s for s in idx.symbols if s.kind not in ("parameter", "keyword", "module")}
    params = {s.qual[-1] for s in idx.symbols if s.kind == "parameter"
              and s.qual[:-1] == ("Gauge", "__init__")}
    assert params == {"body", "rate"}, name
    assert by[("Gauge", "read")].kind == "method"
    # an enum value: a member of an `Enum` class in source and at run time (an instance
    # of the class); an annotated field of a stub class that does not say it is an enum
    assert by[("Mode", "FAST")].kind == {"source": "enumerator", "stub": "field",
                                         "introspection": "enumerator"}[name]
    evidence = {s.evidence for s in idx.symbols}
    assert evidence == ({"pinned"} if name == "source" else {"release"})
    producers = {s.producer for s in idx.symbols}
    assert producers == {name}


def test_lazily_reexported_name_resolves_only_through_the_release(tmp_path):
    source = _source_index()
    # the source index is complete, and no static binding of `lazy_thing` exists (the
    # module's `__getattr__` computes the names it serves; a literal one is read
    # statically, tests/facts/test_producers.py)
    alone = Resolver([source], release=[]).resolve(_ref("fixpkg.lazy_thing"))
    assert alone.status == "unresolved"
    rel = _introspection_index(tmp_path)
    rel.producers = {"introspection": "fixture env"}
    got = Resolver([source], release=[rel]).resolve(_ref("fixpkg.lazy_thing"))
    assert got.status == "resolved" and got.evidence == "release"
    assert got.producer == "introspection" and got.release == "found"
    assert "in the pinned release (introspection: fixture env)" in got.how
    # a name in neither stays what the source said, marked as absent from the release
    miss = Resolver([source], release=[rel]).resolve(_ref("fixpkg.no_such_thing"))
    assert miss.status == "unresolved" and miss.release == "absent"


def test_absent_from_the_release_without_source_is_never_passed():
    partial = _source_index()
    partial.unavailable = ["fixpkg/_native.cc"]            # some source is not available
    stub = _stub_index()
    stub.producers = {"stub": "fix==1.0 (1 .pyi)"}
    r = Resolver([partial], release=[stub])
    got = r.resolve(_ref("Gaug"))           # near-miss of nothing long enough: no suggestion
    assert got.status == "inconclusive" and got.release == "absent"
    typo = r.resolve(_ref("make_gauges"))
    # a near miss is reported, but does not make an unverifiable name conclusive
    assert typo.status == "inconclusive" and typo.suggestion == "make_gauge"
    assert r.resolve(_ref("Gauge.rate")).evidence == "pinned"


def _wheel_project(tmp_path, monkeypatch, files: dict):
    """A project pinning upstream `fix` whose wheel fixpkg==1.0 (holding `files`) is in
    the cache, offline: (cache root, pins.toml)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("VERIFIER_CACHE", str(cache))
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")
    repo = make_git_repo(tmp_path / "up", {"README.md": "fixture\n"})
    root = tmp_path / "proj"
    root.mkdir()
    pins = write_pins(root, {"fix": UpstreamSpec(repo.url, repo.head, wheel="fixpkg==1.0",
                                                 wheel_map=[("fixpkg/", "python/fixpkg/")])})
    place_wheel_in_cache(cache, "fixpkg==1.0", make_wheel(tmp_path / "dist", "fixpkg", "1.0",
                                                          files))
    return cache, pins


def test_stub_producer_reads_the_pinned_wheel(tmp_path, monkeypatch):
    """release_index: the `.pyi` files of the upstream's own pinned wheel, run
    through the Python extractor; without a runtime environment the stubs still
    answer, and the index says which producer did."""
    from verifier.project import load_project

    _, pins = _wheel_project(tmp_path, monkeypatch,
                             {"fixpkg/__init__.pyi": STUB, "fixpkg/_impl.py": IMPL})
    project = load_project(pins)
    assert [w.requirement for w in release_wheels(project.pins.get("fix"))] == ["fixpkg==1.0"]
    rel = release_index(project, "fix", None)
    assert rel is not None and rel.evidence == "release"
    assert set(rel.producers) == {"stub"} and "fixpkg==1.0 (1 .pyi)" in rel.producers["stub"]
    assert any("no ready runtime environment" in n for n in rel.notes)
    assert Resolver([rel], release=[]).resolve(_ref("fixpkg.lazy_thing")).status == "resolved"
    # the source index hands it to lint lazily
    idx = build_index(project, "fix")
    assert idx.release_surface() is not None


def test_introspection_of_a_ready_environment_found_by_its_marker(tmp_path, monkeypatch):
    """`ready_env` finds the environment `verifier env create` built for exactly the
    current runtime pins (by its marker, written last), walks the top-level packages
    of the pinned wheel, and a lazily re-exported name resolves through it."""
    import json
    import subprocess

    from verifier.facts.release import ready_env
    from verifier.project import load_project

    cache = tmp_path / "cache"
    monkeypatch.setenv("VERIFIER_CACHE", str(cache))
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")
    repo = make_git_repo(tmp_path / "up", {"README.md": "fixture\n"})
    root = tmp_path / "proj"
    root.mkdir()
    (root / "pins.toml").write_text(f"""schema = 1
[upstream.fix]
repo = "{repo.url}"
commit = "{repo.head}"
version = "1.0"
runtime = ["fixpkg==1.0"]

[[upstream.fix.wheel]]
requirement = "fixpkg==1.0"
map = [{{ wheel = "fixpkg/", repo = "python/fixpkg/" }}]
""")
    whl = make_wheel(tmp_path / "dist", "fixpkg", "1.0", SOURCE)
    place_wheel_in_cache(cache, "fixpkg==1.0", whl)
    project = load_project(root / "pins.toml")
    assert ready_env(project, "fix") is None                  # nothing built yet
    env_dir = cache / "envs" / "fix-0123456789abcdef"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    site = next(env_dir.glob("lib/python3*/site-packages"))
    for p, t in SOURCE.items():
        (site / p).parent.mkdir(parents=True, exist_ok=True)
        (site / p).write_text(t)
    marker = {"upstream": "fix", "key": "0123456789abcdef", "requirements": ["fixpkg==0.9"],
              "python_requirement": None}
    (env_dir / ".verifier-env.json").write_text(json.dumps(marker))
    assert ready_env(project, "fix") is None                  # built for other pins
    marker["requirements"] = ["fixpkg==1.0"]
    (env_dir / ".verifier-env.json").write_text(json.dumps(marker))
    env = ready_env(project, "fix")
    assert env is not None and env.roots == ("fixpkg",) and env.key == "0123456789abcdef"
    rel = release_index(project, "fix")
    assert rel is not None and set(rel.producers) == {"introspection"}   # the wheel has no .pyi
    got = Resolver([rel], release=[]).resolve(_ref("fixpkg.lazy_thing"))
    assert got.status == "resolved" and got.producer == "introspection"


def test_top_packages_are_kept_by_the_archive_sha256(tmp_path, monkeypatch):
    """A wheel's top-level packages are read from its member list once, then from the
    fact cache by the archive's sha256; another archive (another sha256) is read
    again, and an unreadable archive gives nothing and is not remembered."""
    import json
    import zipfile

    from verifier.facts import release
    from verifier.project import load_project

    cache, pins = _wheel_project(tmp_path, monkeypatch, SOURCE)
    assert release.top_packages(load_project(pins), "fix") == ("fixpkg",)

    def no_zip(*a, **k):
        raise AssertionError("the archive was read again")

    read = release._archive_tops
    monkeypatch.setattr(release, "_archive_tops", no_zip)
    assert release.top_packages(load_project(pins), "fix") == ("fixpkg",)     # the entry
    monkeypatch.setattr(release, "_archive_tops", read)
    # another archive under the same name: its download record and manifest name
    # another sha256
    from verifier.sources.wheel import DOWNLOAD_RECORD

    (manifest,) = cache.rglob("manifest.json")
    record = manifest.parent / DOWNLOAD_RECORD

    def restamp(sha: str) -> None:
        for f in (manifest, record):
            data = json.loads(f.read_text())
            data["sha256"] = sha
            f.write_text(json.dumps(data))

    archive = manifest.parent / json.loads(record.read_text())["file"]
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("otherpkg/__init__.py", "")
    restamp(release.hashlib.sha256(archive.read_bytes()).hexdigest())
    assert release.top_packages(load_project(pins), "fix") == ("fixpkg", "otherpkg")
    archive.write_bytes(b"not a zip")
    restamp("0" * 64)
    assert release.top_packages(load_project(pins), "fix") == ()
    monkeypatch.setattr(release, "_archive_tops", lambda archive: ["fromthezip"])
    assert release.top_packages(load_project(pins), "fix") == ("fromthezip",)   # not remembered
