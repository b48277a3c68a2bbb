"""`verifier upgrade` on a fixture upstream held by a local git mirror (both
commits reachable: git diff hunks and git's rename detection)."""

from __future__ import annotations

import json

import pytest

from tests.upgrade.fixture import build
from verifier.cli.main import main
from verifier.pins import load_lock, load_pins
from verifier.project import load_project
from verifier.upgrade import run_upgrade
from verifier.upgrade.model import LinkStatus


@pytest.fixture
def fx(tmp_path, monkeypatch):
    f = build(tmp_path)
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={f.repo.path}")
    return f


def _links(report):
    return {(lk.line, lk.path, lk.start): lk for ls in report.lessons for lk in ls.links}


def test_report_classifies_known_changes(fx):
    project = load_project(fx.pins)
    report = run_upgrade(project, "demo", fx.v2, version="2.0.0", claims=False)
    assert report.new.identity == "git" and report.new.commit == fx.v2
    assert report.new.provider == f"mirror:{fx.repo.path}"
    links = _links(report)
    alpha = links[(3, "pkg/core.py", 6)]
    assert (alpha.status, alpha.new_start, alpha.new_end, alpha.method) == (
        LinkStatus.MOVED, 10, 13, "git-diff")
    limit = links[(3, "pkg/core.py", 3)]
    assert (limit.status, limit.new_start, limit.new_end) == (LinkStatus.MOVED, 5, 5)
    assert limit.new_url == fx.url("pkg/core.py", "L5", sha=fx.v2)  # single-line form kept
    beta = links[(4, "pkg/core.py", 12)]
    assert beta.status is LinkStatus.CHANGED and beta.suggested == (16, 19)
    assert not beta.rewritable and beta.new_url is None
    assert any("math.floor" in d for d in beta.diff)
    gamma = links[(4, "pkg/core.py", 18)]  # swapped with delta (git moves the shorter one)
    assert (gamma.status, gamma.new_start, gamma.new_end) == (LinkStatus.MOVED, 26, 32)
    assert gamma.method in ("git-diff", "search")
    engine = links[(8, "src/engine.c", 3)]
    assert (engine.status, engine.method, engine.new_start) == (LinkStatus.UNCHANGED,
                                                                "same-blob", 3)
    sensor = links[(9, "pkg/old_name.py", 4)]
    assert (sensor.status, sensor.new_path, sensor.new_start, sensor.new_end) == (
        LinkStatus.MOVED, "pkg/new_name.py", 6, 8)
    assert sensor.new_url == fx.url("pkg/new_name.py", "L6-L8", sha=fx.v2)
    gone = links[(10, "pkg/gone.py", 1)]
    assert gone.status is LinkStatus.DELETED
    whole = links[(12, "pkg/core.py", None)]
    assert whole.status is LinkStatus.CHANGED and not whole.rewritable
    # the unrelated link and other refs are not part of this upgrade
    assert all(lk.url.startswith("https://github.com/demo-org/") for lk in links.values())
    files = {f.path: f for f in report.files}
    assert files["pkg/old_name.py"].status == "renamed"
    assert files["pkg/old_name.py"].method == "git-rename"
    assert files["pkg/gone.py"].status == "deleted"
    assert report.needs_review


def test_fingerprints_tell_moved_from_changed(fx):
    project = load_project(fx.pins)
    report = run_upgrade(project, "demo", fx.v2, version="2.0.0", claims=False)
    links = _links(report)
    alpha = links[(3, "pkg/core.py", 6)]
    beta = links[(4, "pkg/core.py", 12)]
    assert alpha.old_fingerprint == alpha.new_fingerprint
    assert beta.old_fingerprint != beta.new_fingerprint


def test_write_rewrites_only_unchanged_content_and_bumps_pins(fx):
    fx.lesson.chmod(0o664)
    before = fx.lesson.read_bytes()
    pins_before = fx.pins.read_text()
    project = load_project(fx.pins)
    report = run_upgrade(project, "demo", fx.v2, version="2.0.0", write=True, claims=False)
    after = fx.lesson.read_bytes()
    # moved/unchanged links follow the code...
    assert fx.url("pkg/core.py", "L10-L13", sha=fx.v2).encode() in after
    assert fx.url("pkg/core.py", "L26-L32", sha=fx.v2).encode() in after
    assert fx.url("pkg/new_name.py", "L6-L8", sha=fx.v2).encode() in after
    assert fx.url("src/engine.c", "L3-L9", sha=fx.v2).encode() in after
    assert after.count(fx.url("pkg/core.py", "L10-L13", sha=fx.v2).encode()) == 2
    # ...changed, deleted and whole-file (changed) links are left untouched
    assert fx.url("pkg/core.py", "L12-L15").encode() in after
    assert fx.url("pkg/gone.py", "L1-L3").encode() in after
    assert (fx.url("pkg/core.py") + ")").encode() in after
    assert fx.lesson.stat().st_mode & 0o777 == 0o664  # permissions kept
    assert not list(fx.lesson.parent.glob(".*.tmp"))
    # minimal diff: every other byte is the same
    assert _strip_urls(before) == _strip_urls(after)
    assert after.count(b"\n") == before.count(b"\n")
    pins = load_pins(fx.pins)
    assert pins.upstream["demo"].commit == fx.v2 and pins.upstream["demo"].version == "2.0.0"
    changed_lines = [ln for ln in pins_before.splitlines() if ln not in fx.pins.read_text()]
    assert sorted(changed_lines) == sorted([f'commit = "{fx.v1}"', 'version = "1.0.0"'])
    lock = load_lock(fx.root / "pins.lock")
    entry = lock.upstream["demo"]
    assert entry.commit == fx.v2
    assert entry.files["pkg/new_name.py"] == fx.repo.blob("pkg/new_name.py", fx.v2)
    assert "pkg/gone.py" not in entry.files
    assert any("L12-L15" in item and "changed" in item for item in report.left_for_author)
    written = {lk.url: lk.written for ls in report.lessons for lk in ls.links}
    assert written[fx.url("pkg/core.py", "L6-L9")] is True
    assert written[fx.url("pkg/core.py", "L12-L15")] is False


def _strip_urls(data: bytes) -> bytes:
    import re

    return re.sub(rb"https://github\.com/demo-org/demo/blob/[0-9a-f]{40}/[^)\s]*", b"URL", data)


def test_after_write_a_second_upgrade_has_nothing_to_move(fx):
    project = load_project(fx.pins)
    run_upgrade(project, "demo", fx.v2, version="2.0.0", write=True, claims=False)
    again = load_project(fx.pins)
    with pytest.raises(Exception) as exc:
        run_upgrade(again, "demo", fx.v2, claims=False)
    assert "already pinned" in str(exc.value)


def test_cli_json_and_exit_code(fx, capsys):
    code = main(["upgrade", "demo", "--to", fx.v2, "--version", "2.0.0", "--pins", str(fx.pins),
                 "--no-claims", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1  # changed and deleted citations need review
    assert out["schema"] == 1 and out["new"]["identity"] == "git"
    statuses = sorted(lk["status"] for ls in out["lessons"] for lk in ls["links"])
    assert statuses.count("moved") == 5 and statuses.count("deleted") == 1
    assert out["summary"]["moved"] == 5


def test_cli_text_report(fx, capsys):
    code = main(["upgrade", "demo", "--to", fx.v2, "--version", "2.0.0", "--pins", str(fx.pins),
                 "--no-claims", "--diffs"])
    out = capsys.readouterr().out
    assert code == 1
    assert "VU101" in out and "VU102" in out and "VU104" in out
    assert "math.floor" in out
    assert "--write" in out


def test_tag_resolves_through_the_mirror(fx):
    from tests.helpers_upstream import git

    git(fx.repo.path, "tag", "v2.0.0", fx.v2)
    project = load_project(fx.pins)
    report = run_upgrade(project, "demo", "2.0.0", claims=False)
    assert report.new.commit == fx.v2 and report.new.tag == "v2.0.0"
    assert report.new.version == "2.0.0"


def test_unknown_commit_is_a_clear_error(fx, capsys):
    code = main(["upgrade", "demo", "--to", "f" * 40, "--pins", str(fx.pins), "--no-claims"])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert "lacks" in err and "no wheel" in err


def test_short_sha_is_refused(fx, capsys):
    code = main(["upgrade", "demo", "--to", fx.v2[:9], "--pins", str(fx.pins)])
    assert code == 2 and "full 40-hex" in capsys.readouterr().err


def test_mirror_with_only_the_new_commit_uses_alignment_and_similarity(fx, tmp_path, monkeypatch):
    from tests.helpers_upstream import git

    only_new = tmp_path / "only-new.git"
    git(tmp_path, "clone", "-q", "--bare", "--depth", "1", fx.repo.url, str(only_new))
    assert git(only_new, "rev-parse", "HEAD") == fx.v2
    # the first mirror holds only v2 (the new version); the second one holds the pin
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={only_new};demo={fx.repo.path}")
    report = run_upgrade(load_project(fx.pins), "demo", fx.v2, version="2.0.0", claims=False)
    assert report.new.identity == "git" and report.new.provider == f"mirror:{only_new}"
    links = _links(report)
    alpha = links[(3, "pkg/core.py", 6)]
    assert (alpha.status, alpha.new_start, alpha.method) == (LinkStatus.MOVED, 10, "alignment")
    files = {f.path: f for f in report.files}
    assert files["pkg/old_name.py"].method == "similarity"
    assert files["pkg/old_name.py"].new_path == "pkg/new_name.py"
    assert files["pkg/gone.py"].status == "deleted"


def test_git_remote_resolves_a_tag_and_fetches_the_commit(tmp_path, monkeypatch):
    from tests.helpers_upstream import git

    f = build(tmp_path, remote=True)
    git(f.repo.path, "tag", "v2.0.0", f.v2)
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    report = run_upgrade(load_project(f.pins), "demo", "2.0.0", claims=False)
    assert (report.new.identity, report.new.commit, report.new.tag) == ("git", f.v2, "v2.0.0")
    assert report.new.provider == f"git:{f.repo.url}"
    links = _links(report)
    assert links[(3, "pkg/core.py", 6)].method == "git-diff"  # the clone holds both commits
    assert links[(9, "pkg/old_name.py", 4)].new_path == "pkg/new_name.py"


def test_lesson_filter(fx):
    project = load_project(fx.pins)
    other = fx.lesson.parent / "other.md"
    other.write_text(f"[x]({fx.url('pkg/core.py', 'L6-L9')})\n")
    report = run_upgrade(project, "demo", fx.v2, version="2.0.0", claims=False,
                         lesson_paths=[str(other)])
    assert [ls.lesson for ls in report.lessons] == ["docs/other.md"]
    assert report.lessons[0].links[0].new_start == 10
