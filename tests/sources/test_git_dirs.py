"""`git_dirs`: a repository's git and common directories read from its layout (no git
process, no gitpython), as git itself finds them."""

from __future__ import annotations

import subprocess

import pytest

from tests.helpers_upstream import make_git_repo
from verifier.errors import AcquisitionError
from verifier.sources.gitstore import GitRepo, git_dirs


def _git(*args, cwd=None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def test_work_tree_bare_and_linked_work_tree(tmp_path):
    repo = make_git_repo(tmp_path / "r", {"a.c": "int a;\n"})
    assert git_dirs(repo.path) == ((repo.path / ".git").absolute(), (repo.path / ".git").absolute())
    bare = tmp_path / "bare.git"
    _git("clone", "-q", "--bare", str(repo.path), str(bare))
    assert git_dirs(bare) == (bare.absolute(), bare.absolute())
    linked = tmp_path / "linked"
    _git("worktree", "add", "-q", "--detach", str(linked), cwd=repo.path)
    got_dir, common = git_dirs(linked)
    assert str(got_dir) == _git("rev-parse", "--absolute-git-dir", cwd=linked)
    assert common.resolve() == (repo.path / ".git").resolve()
    assert GitRepo(linked).read_blob(repo.blob("a.c")) == b"int a;\n"


@pytest.mark.parametrize("make", ["missing", "plain dir", "bad .git file", "dangling .git file"])
def test_what_is_not_a_repository_is_refused_by_name(tmp_path, make):
    d = tmp_path / "x"
    if make != "missing":
        d.mkdir()
    if make == "bad .git file":
        (d / ".git").write_text("nothing here\n")
    if make == "dangling .git file":
        (d / ".git").write_text(f"gitdir: {tmp_path / 'gone'}\n")
    with pytest.raises(AcquisitionError, match="is not a git repository"):
        git_dirs(d)
