"""`verifier upgrade` on wheel-served files (no git): sequence alignment,
renames by content similarity, release identity, --write needs a commit."""

from __future__ import annotations

import pytest

from tests.helpers_upstream import UpstreamSpec, make_wheel, place_wheel_in_cache, write_pins
from tests.upgrade import fixture as F
from verifier.errors import UsageError
from verifier.gitblob import blob_sha
from verifier.pins import load_lock, load_pins
from verifier.project import load_project
from verifier.upgrade import run_upgrade
from verifier.upgrade.model import LinkStatus

V1 = "1" * 40
V2 = "2" * 40


@pytest.fixture
def wx(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("VERIFIER_CACHE", str(cache))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    monkeypatch.setenv("VERIFIER_OFFLINE", "1")  # everything is in the cache already
    w1 = make_wheel(tmp_path / "dist", "demo", "1.0.0", {
        "pkg/core.py": F.CORE_V1, "pkg/old_name.py": F.OLD_NAME_V1, "pkg/gone.py": F.GONE_V1})
    w2 = make_wheel(tmp_path / "dist", "demo", "2.0.0", {
        "pkg/core.py": F.CORE_V2, "pkg/new_name.py": F.OLD_NAME_V2})
    place_wheel_in_cache(cache, "demo==1.0.0", w1)
    place_wheel_in_cache(cache, "demo==2.0.0", w2)
    root = tmp_path / "project"
    docs = root / "course" / "docs"
    docs.mkdir(parents=True)

    def url(path, frag=""):
        return f"https://github.com/demo-org/demo/blob/{V1}/{path}" + (f"#{frag}" if frag else "")

    (docs / "lesson.md").write_text(F.LESSON.format(
        alpha=url("pkg/core.py", "L6-L9"), limit=url("pkg/core.py", "L3"),
        beta=url("pkg/core.py", "L12-L15"), gamma=url("pkg/core.py", "L18-L24"),
        engine=url("src/engine.c", "L3-L9"), sensor=url("pkg/old_name.py", "L4-L6"),
        gone=url("pkg/gone.py", "L1-L3"), whole=url("pkg/core.py")))
    pins = write_pins(root, {"demo": UpstreamSpec(
        url="https://github.com/demo-org/demo", commit=V1, version="1.0.0",
        wheel="demo==1.0.0", wheel_map=[("pkg/", "pkg/")])},
        courses={"course": ("course", ["demo"])})
    text = pins.read_text().replace('version = "1.0.0"',
                                    'version = "1.0.0"\nruntime = ["demo==1.0.0"]  # env')
    pins.write_text(text)
    return pins, docs / "lesson.md"


def _links(report):
    return {(lk.line, lk.path, lk.start): lk for ls in report.lessons for lk in ls.links}


def test_wheel_version_compares_release_files(wx):
    pins, _ = wx
    report = run_upgrade(load_project(pins), "demo", "2.0.0", claims=False)
    assert report.new.identity == "release" and report.new.commit is None
    assert report.new.wheels == ["demo==2.0.0"]
    links = _links(report)
    alpha = links[(3, "pkg/core.py", 6)]
    assert (alpha.status, alpha.new_start, alpha.new_end, alpha.method) == (
        LinkStatus.MOVED, 10, 13, "alignment")
    assert alpha.new_url is None and not alpha.rewritable  # no commit known
    beta = links[(4, "pkg/core.py", 12)]
    assert beta.status is LinkStatus.CHANGED and beta.suggested == (16, 19)
    gamma = links[(4, "pkg/core.py", 18)]
    assert (gamma.status, gamma.new_start, gamma.new_end) == (LinkStatus.MOVED, 26, 32)
    sensor = links[(9, "pkg/old_name.py", 4)]
    assert (sensor.status, sensor.new_path, sensor.new_start) == (LinkStatus.MOVED,
                                                                  "pkg/new_name.py", 6)
    files = {f.path: f for f in report.files}
    assert files["pkg/old_name.py"].method == "similarity"
    assert files["pkg/old_name.py"].similarity >= 50
    assert files["pkg/gone.py"].status == "deleted"
    # src/engine.c is in neither wheel: unavailable, never guessed
    engine = links[(8, "src/engine.c", 3)]
    assert engine.status is LinkStatus.UNAVAILABLE
    assert any("release identity" in n for n in report.notes)


def test_write_refuses_without_commit(wx):
    pins, lesson = wx
    before = lesson.read_bytes(), pins.read_bytes()
    with pytest.raises(UsageError) as exc:
        run_upgrade(load_project(pins), "demo", "2.0.0", write=True, claims=False)
    assert "--commit" in str(exc.value)
    assert (lesson.read_bytes(), pins.read_bytes()) == before


def test_write_with_commit_bumps_wheel_and_runtime_and_drops_lock(wx):
    pins, lesson = wx
    (pins.parent / "pins.lock").write_text(
        f'schema = 1\n[upstream.demo]\ncommit = "{V1}"\nsource = ["x"]\n'
        f'[upstream.demo.files]\n"pkg/core.py" = "{blob_sha(F.CORE_V1.encode())}"\n')
    report = run_upgrade(load_project(pins), "demo", "2.0.0", commit=V2, write=True,
                         claims=False)
    p = load_pins(pins)
    up = p.upstream["demo"]
    assert (up.commit, up.version, up.wheel[0].requirement, up.runtime) == (
        V2, "2.0.0", "demo==2.0.0", ["demo==2.0.0"])
    assert "# env" in pins.read_text()  # comments kept
    assert "demo" not in load_lock(pins.parent / "pins.lock").upstream
    text = lesson.read_text()
    assert f"/blob/{V2}/pkg/core.py#L10-L13" in text
    assert f"/blob/{V2}/pkg/new_name.py#L6-L8" in text
    assert f"/blob/{V1}/pkg/core.py#L12-L15" in text     # changed: left alone
    assert f"/blob/{V1}/src/engine.c#L3-L9" in text      # unavailable: left alone
    assert any("src/engine.c" in s and "unavailable" in s and "need git" in s
               for s in report.left_for_author)


def test_missing_wheel_version_is_an_acquisition_error(wx):
    from verifier.errors import AcquisitionError

    pins, _ = wx
    with pytest.raises(AcquisitionError) as exc:
        run_upgrade(load_project(pins), "demo", "9.9.9", claims=False)
    assert "demo==9.9.9" in str(exc.value)


def test_sha_with_version_reads_the_wheel_and_keeps_the_commit(wx):
    pins, _ = wx
    report = run_upgrade(load_project(pins), "demo", V2, version="2.0.0", claims=False)
    assert report.new.identity == "release" and report.new.commit == V2
    alpha = _links(report)[(3, "pkg/core.py", 6)]
    assert alpha.rewritable
    assert alpha.new_url == f"https://github.com/demo-org/demo/blob/{V2}/pkg/core.py#L10-L13"


def test_sha_without_version_or_git_is_a_usage_error(wx):
    pins, _ = wx
    with pytest.raises(UsageError) as exc:
        run_upgrade(load_project(pins), "demo", V2, claims=False)
    assert "--to VERSION" in str(exc.value)
