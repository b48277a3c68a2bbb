"""Courses acquired like upstreams: a course repository at its pinned commit (partial clone
into the cache, full tree known), or a local checkout when one is given; one error naming
every course nothing provides."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers_upstream import make_git_repo
from verifier.cli.main import main
from verifier.errors import ConfigError
from verifier.lint import run_lint
from verifier.lint.config import LintConfig
from verifier.project import load_project

UPSTREAM = {"src/demo.c": "int demo_step(int n) {\n  return n + 1;\n}\n"}


def lesson(sha: str) -> str:
    return (
        "# 示例课程\n\n"
        "`demo_step` 把计数加一，见 "
        f"[demo_step](https://github.com/example/demo/blob/{sha}/src/demo.c#L1-L3)。\n\n"
        "运行脚本在 [run.py](../examples/run.py)，下一课是 [next](next.md)。\n")


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A fixture upstream and a course repository, both local git repos served by file://."""
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    up = make_git_repo(tmp_path / "upstream", UPSTREAM)
    course = make_git_repo(tmp_path / "course-repo", {
        "README.md": "demo course\n",
        "docs/intro.md": lesson(up.head),
        "docs/next.md": "# 下一课\n\n正文。\n",
        "examples/run.py": "print('run')\n",
    })

    class W:
        pass

    w = W()
    w.tmp, w.up, w.course = tmp_path, up, course
    return w


def write_pins(root, up, course_table: str):
    root.mkdir(parents=True, exist_ok=True)
    (root / "pins.toml").write_text(
        f'schema = 1\n[upstream.demo]\nrepo = "https://github.com/example/demo"\n'
        f'commit = "{up.head}"\nversion = "1.0.0"\nlanguages = ["c"]\n\n'
        f"{course_table}\n", encoding="utf-8")
    return root / "pins.toml"


def repo_course(url: str, commit: str, name: str = "demo-atlas", extra: str = "") -> str:
    return (f'[course.{name}]\nrepo = "{url}"\ncommit = "{commit}"\n{extra}'
            'upstreams = ["demo"]\n')


def test_fetched_at_the_pinned_commit_with_its_full_tree(world):
    first = world.course.head
    world.course.commit({"docs/intro.md": "# changed after the pin\n",
                         "docs/later.md": "# later\n"}, "after the pin")
    pins = write_pins(world.tmp / "proj", world.up, repo_course(world.course.url, first))
    notes: list[str] = []
    project = load_project(pins, notify=notes.append)
    docs = project.lessons()
    assert [d.path for d in docs] == ["docs/intro.md", "docs/next.md"]  # not docs/later.md
    intro = docs[0]
    assert intro.text == lesson(world.up.head)  # the pinned commit's bytes, not the head's
    co = project.course_checkout("demo-atlas")
    assert co.kind == "git" and co.full_tree and not co.writable and co.commit == first
    assert co.paths == {"README.md", "docs/intro.md", "docs/next.md", "examples/run.py"}
    assert co.has("examples/run.py") and co.has("examples") and co.has("missing.md") is False
    assert str(intro.file).startswith(str(project.store.root))
    assert notes == [f"course demo-atlas: {world.course.url} at {first[:7]} (full tree, fetched)"]


def test_second_run_needs_no_network(world, monkeypatch):
    pins = write_pins(world.tmp / "proj", world.up,
                      repo_course(world.course.url, world.course.head))
    load_project(pins).lessons()
    shutil.rmtree(world.course.path)   # the "network" is gone
    notes: list[str] = []
    project = load_project(pins, offline=True, notify=notes.append)
    assert [d.path for d in project.lessons()] == ["docs/intro.md", "docs/next.md"]
    assert notes == [f"course demo-atlas: {world.course.url} at {world.course.head[:7]} "
                     "(full tree, from the cache)"]


def test_a_changed_file_in_the_cached_tree_is_fetched_again(world):
    pins = write_pins(world.tmp / "proj", world.up,
                      repo_course(world.course.url, world.course.head))
    doc = load_project(pins).lessons()[0]
    doc.file.write_text("# tampered\n", encoding="utf-8")
    again = load_project(pins).lessons()[0]
    assert again.text == lesson(world.up.head)
    assert load_project(pins).course_checkout("demo-atlas").fetched is False


def test_local_path_is_used_when_it_exists_and_said_so(world, tmp_path):
    root = tmp_path / "proj"
    local = root / "copy" / "demo-atlas"
    (local / "docs").mkdir(parents=True)
    (local / "docs" / "intro.md").write_text("# 本地副本\n", encoding="utf-8")
    pins = write_pins(root, world.up, repo_course(
        "file:///nonexistent/course.git", world.course.head,
        extra='path = "copy/demo-atlas"\npartial = true\n'))
    notes: list[str] = []
    project = load_project(pins, notify=notes.append)
    assert [d.text for d in project.lessons()] == ["# 本地副本\n"]
    co = project.course_checkout("demo-atlas")
    assert co.kind == "local" and co.partial and co.writable and not co.full_tree
    assert co.has("docs/intro.md") and co.has("examples/run.py") is None  # unknown: partial
    assert len(notes) == 1 and notes[0].startswith("course demo-atlas: local checkout ")
    assert notes[0].endswith("copy/demo-atlas (partial)")


def test_a_missing_path_falls_back_to_the_repo(world, tmp_path):
    pins = write_pins(tmp_path / "proj", world.up, repo_course(
        world.course.url, world.course.head, extra='path = "not/here"\npartial = true\n'))
    project = load_project(pins)
    assert [d.path for d in project.lessons()] == ["docs/intro.md", "docs/next.md"]
    co = project.course_checkout("demo-atlas")
    assert co.full_tree and not co.partial  # `partial` describes the absent local copy


def test_checkout_from_the_environment(world, tmp_path, monkeypatch):
    checkout = tmp_path / "mine"
    (checkout / "docs").mkdir(parents=True)
    (checkout / "docs" / "a.md").write_text("# 我的检出\n", encoding="utf-8")
    monkeypatch.setenv("VERIFIER_COURSES", f"demo-atlas={checkout}")
    pins = write_pins(tmp_path / "proj", world.up,
                      repo_course("file:///nonexistent/course.git", world.course.head))
    notes: list[str] = []
    project = load_project(pins, notify=notes.append)
    assert [d.path for d in project.lessons()] == ["docs/a.md"]
    assert notes[0].endswith("(from $VERIFIER_COURSES)")
    assert project.course_checkout("demo-atlas").writable


def test_config_names_another_remote(world, tmp_path, monkeypatch):
    """A git URL in the user's config replaces `repo` (a mirror of the course): the pinned
    commit is still what is read."""
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[courses]\ndemo-atlas = "{world.course.url}"\n', encoding="utf-8")
    monkeypatch.setenv("VERIFIER_CONFIG", str(cfg))
    pins = write_pins(tmp_path / "proj", world.up,
                      repo_course("https://github.invalid/x/demo-atlas", world.course.head))
    project = load_project(pins)
    assert [d.path for d in project.lessons()] == ["docs/intro.md", "docs/next.md"]
    co = project.course_checkout("demo-atlas")
    assert co.full_tree and co.where == world.course.url and str(cfg) in co.via


def test_a_bare_repository_in_the_config_is_a_remote(world, tmp_path, monkeypatch):
    bare = tmp_path / "bare.git"
    from tests.helpers_upstream import git

    git(tmp_path, "clone", "-q", "--bare", str(world.course.path), str(bare))
    monkeypatch.setenv("VERIFIER_COURSES", f"demo-atlas={bare}")
    pins = write_pins(tmp_path / "proj", world.up,
                      repo_course("https://github.invalid/x/demo-atlas", world.course.head))
    co = load_project(pins).course_checkout("demo-atlas")
    assert co.full_tree and co.paths and "docs/intro.md" in co.paths


@pytest.mark.parametrize("commit,needle", [
    ("067f2e3", "malformed commit SHA '067f2e3'"),
    (None, "`repo` needs the full 40-hex `commit`"),
])
def test_a_course_repo_needs_a_full_commit(tmp_path, world, commit, needle):
    table = '[course.demo-atlas]\nrepo = "https://github.com/x/demo-atlas"\n'
    if commit:
        table += f'commit = "{commit}"\n'
    pins = write_pins(tmp_path / "proj", world.up, table + 'upstreams = ["demo"]\n')
    with pytest.raises(ConfigError) as exc:
        load_project(pins)
    text = exc.value.render()
    assert str(pins) in text and needle in text and "course.demo-atlas" in text


def _three_missing(tmp_path, world) -> str:
    tables = "\n".join(repo_course(f"file://{tmp_path}/gone/{n}.git", "a" * 40, name=n,
                                   extra=f'path = "../nowhere/{n}"\n')
                       for n in ("alpha-atlas", "beta-atlas", "gamma-atlas"))
    return str(write_pins(tmp_path / "proj", world.up, tables))


@pytest.mark.parametrize("offline", [False, True])
def test_every_missing_course_in_one_error(tmp_path, world, capsys, offline):
    pins = _three_missing(tmp_path, world)
    if offline:  # an https remote, offline: nothing is tried
        text = open(pins).read().replace(f"file://{tmp_path}/gone/", "https://github.com/x/")
        open(pins, "w").write(text)
    args = ["--pins", pins] + (["--offline"] if offline else []) + ["lint"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("error:") == 1
    assert "3 course(s) not available" in err
    for n in ("alpha-atlas", "beta-atlas", "gamma-atlas"):
        assert f"- {n}: " in err and f"{n}=/path/to/{n}" in err
    assert "network access to its `repo`" in err and "VERIFIER_COURSES=" in err
    assert "a `courses` table in" in err
    if offline:
        assert err.count("not in the cache and the run is offline") == 3


def test_only_the_selected_course_is_acquired(tmp_path, world, capsys):
    tables = (repo_course(world.course.url, world.course.head) + "\n"
              + repo_course(f"file://{tmp_path}/gone.git", "b" * 40, name="other-atlas"))
    pins = write_pins(tmp_path / "proj", world.up, tables)
    project = load_project(pins)
    assert [d.course for d in project.lessons(course="demo-atlas")] == ["demo-atlas"] * 2
    with pytest.raises(ConfigError, match=r"1 course\(s\) not available:\n  - other-atlas"):
        project.lessons()


# ------------------------------------------------------------------ relative links


def _relative_link_findings(project, cfg: LintConfig):
    fs = run_lint(project, project.lessons(), cfg)
    return [f for f in fs if f.rule == "relative-link"
            or (f.rule == "source-unavailable" and f.upstream == "demo-atlas")]


def test_relative_links_are_conclusive_on_the_full_tree(world, tmp_path):
    """At the pinned commit the whole tree is known: a link outside docs/ resolves, a dead
    link is an error even when lint.toml calls the course partial (that describes local
    copies only)."""
    world.course.commit({"docs/next.md": "# 下一课\n\n[旧课](old-lesson.md)\n"}, "dead link")
    pins = write_pins(tmp_path / "proj", world.up,
                      repo_course(world.course.url, world.course.head))
    cfg = LintConfig.model_validate({"course": {"demo-atlas": {"partial": True}}})
    fs = _relative_link_findings(load_project(pins), cfg)
    assert [(f.path, f.line, f.severity.value, f.target) for f in fs] == [
        ("docs/next.md", 3, "error", "old-lesson.md")]


def test_relative_links_in_a_partial_copy_are_unverifiable(world, tmp_path):
    root = tmp_path / "proj"
    local = root / "copy"
    (local / "docs").mkdir(parents=True)
    (local / "docs" / "intro.md").write_text(lesson(world.up.head), encoding="utf-8")
    (local / "docs" / "next.md").write_text("# 下一课\n", encoding="utf-8")
    pins = write_pins(root, world.up, repo_course(world.course.url, world.course.head,
                                                  extra='path = "copy"\npartial = true\n'))
    fs = _relative_link_findings(load_project(pins), LintConfig())
    # ../examples/run.py is not in the copy: not checkable there, never an error
    assert not [f for f in fs if f.severity.value == "error"]
    # said once per lesson (the summary warning), and the item on its own line (info)
    assert sorted((f.rule, f.severity.value) for f in fs) == [
        ("source-unavailable", "info"), ("source-unavailable", "warning")]


def test_a_lesson_file_in_the_cached_tree_keeps_its_course_path(world, tmp_path):
    pins = write_pins(tmp_path / "proj", world.up,
                      repo_course(world.course.url, world.course.head))
    f = load_project(pins).lessons()[0].file
    project = load_project(pins)
    [doc] = project.lessons([str(f)])
    assert (doc.course, doc.path) == ("demo-atlas", "docs/intro.md")
    assert project.known_checkout("demo-atlas").full_tree


def test_cache_gc_keeps_the_pinned_course_and_drops_older_commits(world, tmp_path, capsys):
    first = world.course.head
    world.course.commit({"docs/next.md": "# 下一课（新）\n"}, "a newer commit")
    pins = write_pins(tmp_path / "proj", world.up, repo_course(world.course.url, first))
    old_root = load_project(pins).course_checkout("demo-atlas").root
    pins.write_text(pins.read_text().replace(first, world.course.head))
    project = load_project(pins)
    new_root = project.course_checkout("demo-atlas").root
    assert old_root != new_root and old_root.is_dir()
    assert main(["--pins", str(pins), "-q", "cache", "gc"]) == 0
    assert new_root.is_dir() and not old_root.exists()
    assert not old_root.with_name(old_root.name + ".json").exists()
    assert load_project(pins, offline=True).lessons()   # still served, without network
