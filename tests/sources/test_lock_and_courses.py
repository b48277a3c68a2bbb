"""`verifier lock` from the git tree, `--check`, and git-hosted course repositories."""

from __future__ import annotations

from tests.helpers_upstream import UpstreamSpec, make_git_repo, write_pins
from verifier.cli.main import main
from verifier.pins import load_lock
from verifier.project import load_project

LESSON = ("# Lesson\n\nSee [thing](https://github.com/x/demo/blob/{sha}/src/thing.c#L1-L1) "
          "and [api](https://github.com/x/demo/blob/{sha}/demo/api.py).\n")


def test_lock_from_git_tree_and_check(tmp_path, monkeypatch, capsys):
    up = make_git_repo(tmp_path / "demo", {"src/thing.c": "int a;\n", "demo/api.py": "A = 1\n",
                                           "other.txt": "x\n"})
    course = tmp_path / "course"
    (course / "docs").mkdir(parents=True)
    (course / "docs" / "l.md").write_text(LESSON.format(sha=up.head))
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    # pins name the GitHub URL; the fixture repo stands in as a mirror holding the pin
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={up.path}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror")
    pins = write_pins(tmp_path, {"demo": UpstreamSpec("https://github.com/x/demo", up.head)},
                      {"course": (str(course), ["demo"])})
    assert main(["lock", "--pins", str(pins)]) == 0
    lock = load_lock(tmp_path / "pins.lock")
    assert lock.upstream["demo"].files == {"demo/api.py": up.blob("demo/api.py"),
                                           "src/thing.c": up.blob("src/thing.c")}
    assert main(["lock", "--pins", str(pins), "--check"]) == 0
    text = (tmp_path / "pins.lock").read_text().replace(up.blob("src/thing.c"), "0" * 40)
    (tmp_path / "pins.lock").write_text(text)
    capsys.readouterr()
    assert main(["lock", "--pins", str(pins), "--check"]) == 1
    assert "src/thing.c" in capsys.readouterr().out


def test_lock_without_reachable_tree_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    pins = write_pins(tmp_path, {"demo": UpstreamSpec("file:///nonexistent.git", "a" * 40)})
    assert main(["lock", "--pins", str(pins), "-q"]) == 1
    assert "no git tree" in capsys.readouterr().out


def test_git_hosted_course(tmp_path, monkeypatch):
    up = make_git_repo(tmp_path / "demo", {"src/thing.c": "int a;\n"})
    course = make_git_repo(tmp_path / "course", {"docs/l.md": LESSON.format(sha=up.head),
                                                 "README.md": "x\n"})
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    pins = tmp_path / "pins.toml"
    pins.write_text(f'[upstream.demo]\nrepo = "https://github.com/x/demo"\ncommit = "{up.head}"\n'
                    f'version = "1"\n[course.c]\ngit = "{course.url}"\ncommit = "{course.head}"\n'
                    'upstreams = ["demo"]\n')
    project = load_project(pins)
    lessons = project.lessons()
    assert [lesson.path for lesson in lessons] == ["docs/l.md"]
    assert project.cited_files() == [("demo", "demo/api.py"), ("demo", "src/thing.c")]
