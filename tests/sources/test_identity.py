"""Identity downgrades are loud (trials 1.8, 1.11, 1.22, 1.24, 1.45): notices as data,
a warning in every command's summary and in the record, and `--strict` fails on them."""

from __future__ import annotations

import json

import pytest

from tests.helpers_upstream import (UpstreamSpec, make_git_repo, make_index, make_wheel,
                                    write_pins)
from verifier.cli.main import main
from verifier.errors import ConfigError
from verifier.pins import dump_lock, import_manifest, load_lock, load_pins
from verifier.project import load_project
from verifier.sources.models import Status

API = "def clear(depth: float = 0.0):\n    return depth\n"
EXTRA = "X = 1\n"
LESSON = ("# L\n\n[api](https://github.com/x/demo/blob/{sha}/demo/api.py#L1) and "
          "[extra](https://github.com/x/demo/blob/{sha}/demo/extra.py#L1).\n")


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """An upstream whose release wheel holds its files, a course citing two of them, and a
    pins.lock imported from a manifest at the pin (git is not reachable: identity = lock)."""
    up = make_git_repo(tmp_path / "demo", {"demo/api.py": API, "demo/extra.py": EXTRA})
    whl = make_wheel(tmp_path / "dist", "demo", "1.0.0", {"demo/api.py": API,
                                                          "demo/extra.py": EXTRA})
    monkeypatch.setenv("VERIFIER_INDEX_URL", make_index(tmp_path / "index", [whl]))
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    course = tmp_path / "course"
    (course / "docs").mkdir(parents=True)
    (course / "docs" / "l.md").write_text(LESSON.format(sha=up.head))
    pins = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", up.head,
                                                      wheel="demo==1.0.0",
                                                      wheel_map=[("demo/", "demo/")])},
                      {"course": (str(course), ["demo"])})
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps({"upstream": "x/demo", "commit": up.head, "files": [
        {"path": p, "git_blob": up.blob(p)} for p in ("demo/api.py", "demo/extra.py")]}))
    lock, _, _ = import_manifest(load_lock(tmp_path / "pins.lock"), load_pins(pins), manifest)
    (tmp_path / "pins.lock").write_text(dump_lock(lock))
    return tmp_path, pins, up


def _codes(project):
    return {n.code: n for n in project.sources.notices()}


def test_clean_lock_gives_no_warning(setup):
    _, pins, _ = setup
    project = load_project(pins)
    files = project.sources.resolve_many([("demo", "demo/api.py"), ("demo", "demo/extra.py")])
    assert [f.status for f in files] == [Status.PINNED, Status.PINNED]
    assert not [n for n in project.sources.notices() if n.severity == "warning"]
    assert main(["sources", "--pins", str(pins), "--strict", "-q", "--format", "json"]) == 0


def test_commit_the_lock_is_not_for_is_a_warning(setup, capsys):
    """Trial 1.11: a well-formed SHA nobody has; the lock is for the real commit."""
    tmp_path, pins, up = setup
    pins.write_text(pins.read_text().replace(up.head, "0" * 39 + "1"))
    course = tmp_path / "course" / "docs" / "l.md"
    course.write_text(course.read_text().replace(up.head, "0" * 39 + "1"))
    project = load_project(pins)
    files = project.sources.resolve_many([("demo", "demo/api.py"), ("demo", "demo/extra.py")])
    assert [f.status for f in files] == [Status.RELEASE, Status.RELEASE]
    n = _codes(project)["lock-other-commit"]
    assert n.severity == "warning" and n.paths == ["demo/api.py", "demo/extra.py"]
    assert "2 served as `release`" in n.message
    capsys.readouterr()
    assert main(["sources", "--pins", str(pins), "--format", "json"]) == 0
    err = capsys.readouterr().err
    assert "sources warning:" in err and "lock-other-commit" in err
    assert main(["sources", "--pins", str(pins), "--format", "json", "--strict"]) == 1


def test_empty_lock_is_a_warning(setup, capsys):
    """Trial 1.24."""
    tmp_path, pins, _ = setup
    (tmp_path / "pins.lock").write_text("")
    project = load_project(pins)
    project.sources.resolve_many([("demo", "demo/api.py"), ("demo", "demo/extra.py")])
    n = _codes(project)["lock-empty"]
    assert n.severity == "warning" and len(n.paths) == 2
    assert main(["sync", "--pins", str(pins), "-q", "--strict"]) == 1
    assert "lock-empty" in capsys.readouterr().err


def test_truncated_lock_is_a_warning(setup):
    """Trial 1.22: cut at a line boundary, still valid TOML."""
    tmp_path, pins, _ = setup
    lines = (tmp_path / "pins.lock").read_text().splitlines(keepends=True)
    (tmp_path / "pins.lock").write_text("".join(lines[:-1]))   # lose the last file entry
    project = load_project(pins)
    project.sources.resolve_many([("demo", "demo/api.py"), ("demo", "demo/extra.py")])
    n = _codes(project)["lock-truncated"]
    assert n.severity == "warning" and "truncated" in n.message
    assert n.paths == ["demo/extra.py"]
    # cut before the entry itself: the header still names it
    head = [ln for ln in lines if not ln.startswith(("[upstream", "commit", "source", "count",
                                                     '"'))]
    (tmp_path / "pins.lock").write_text("".join(head))
    project = load_project(pins)
    project.sources.resolve("demo", "demo/api.py")
    assert "lock-truncated" in _codes(project)


def test_needed_file_missing_from_the_lock_is_a_warning(setup):
    tmp_path, pins, up = setup
    text = (tmp_path / "pins.lock").read_text()
    lock = load_lock(tmp_path / "pins.lock")
    entry = lock.upstream["demo"]
    smaller = entry.model_copy(update={"files": {"demo/api.py": up.blob("demo/api.py")},
                                       "count": 1})
    (tmp_path / "pins.lock").write_text(dump_lock(lock.model_copy(
        update={"upstream": {"demo": smaller}})))
    assert text != (tmp_path / "pins.lock").read_text()
    project = load_project(pins)
    files = project.sources.resolve_many([("demo", "demo/api.py"), ("demo", "demo/extra.py")])
    assert [f.status for f in files] == [Status.PINNED, Status.RELEASE]
    n = _codes(project)["lock-gap"]
    assert n.severity == "warning" and n.paths == ["demo/extra.py"]


def test_record_carries_the_notes(setup, tmp_path):
    root, pins, up = setup
    pins.write_text(pins.read_text().replace(up.head, "0" * 39 + "1"))
    out = tmp_path / "rec.json"
    main(["record", "--pins", str(pins), "-q", "--format", "json", "--out", str(out)])
    data = json.loads(out.read_text())
    notes = [n for n in data["notes"] if n["code"] == "lock-other-commit"]
    assert notes and notes[0]["severity"] == "warning" and notes[0]["upstream"] == "demo"


def test_commit_the_remote_lacks_is_a_warning(tmp_path, monkeypatch):
    """A reachable remote that answers 'not our ref' for the pin."""
    up = make_git_repo(tmp_path / "x" / "demo", {"demo/api.py": API})
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    pins = write_pins(tmp_path, {"demo": UpstreamSpec(up.url, "0" * 39 + "1")})
    project = load_project(pins)
    sf = project.sources.resolve("demo", "demo/api.py")
    assert sf.status is Status.UNAVAILABLE
    n = _codes(project)["commit-unknown"]
    assert n.severity == "warning" and "0" * 39 + "1" in n.message


@pytest.mark.parametrize("name,text", [
    ("pins.toml", "schema = 99\n\n[upstream.demo]\nrepo = \"https://github.com/x/demo\"\n"
                  f"commit = \"{'a' * 40}\"\nversion = \"1\"\n"),
])
def test_unknown_pins_schema_is_rejected(tmp_path, name, text):
    """Trial 1.8."""
    (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_pins(tmp_path / name)
    msg = exc.value.render()
    assert ":1:" in msg and "schema" in msg and "99" in msg and "reads schema 1" in msg


def test_unknown_lock_schema_is_rejected(tmp_path):
    (tmp_path / "pins.lock").write_text("schema = 7\n")
    with pytest.raises(ConfigError) as exc:
        load_lock(tmp_path / "pins.lock")
    assert "pins.lock:1:" in exc.value.render() and "7" in exc.value.render()


def test_mirror_under_a_name_that_is_no_upstream_is_a_note(tmp_path, monkeypatch):
    """Trial 1.45."""
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demoo={tmp_path}")
    pins = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", "a" * 40)})
    project = load_project(pins)
    n = _codes(project)["mirror-unknown-upstream"]
    assert "'demoo'" in n.message and "did you mean 'demo'" in n.message


def test_lock_check_reports_a_truncated_entry(setup, tmp_path, monkeypatch, capsys):
    root, pins, up = setup
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={up.path}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    lines = (root / "pins.lock").read_text().splitlines(keepends=True)
    (root / "pins.lock").write_text("".join(lines[:-1]))
    assert main(["lock", "--pins", str(pins), "--check", "-q"]) == 1
    assert "truncated" in capsys.readouterr().out
