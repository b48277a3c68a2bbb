"""What the main job's console says (newcomer-2 F5, F11): under the tables one line per
failure, the same text `check` and `lint` print, most severe first; pages with nothing to
check folded into one line; notes on stderr (none with -q); the summary line, which
names the HTML report to open, is the last line of the whole output."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli.conftest import lesson

BAD_PIN = "f" * 40


@pytest.fixture
def failing(proj):
    """alpha: a claim that diverges (DEMO_MAX is 3, the claim says 4); beta: a lint error
    (a permalink at another commit) and a page with nothing to check."""
    proj.claims("alpha", "intro", "docs/intro.md", max_value=4)
    proj.lesson("beta", "docs/intro.md", lesson(BAD_PIN))
    proj.lesson("beta", "docs/index.md", "# Index\n\nSee [intro](intro.md).\n")
    return proj


def test_verify_lists_what_to_fix_as_check_and_lint_print_it(cli, failing, monkeypatch,
                                                             tmp_path):
    monkeypatch.chdir(failing.root)
    code, out, err = cli(*failing.args("verify", "--runtime", "none", "--out", "out"))
    assert code == 1
    lines = out.rstrip().splitlines()
    head = lines.index("to fix (2):")
    fix = lines[head + 1:head + 3]
    assert fix[0].startswith("course-a/docs/intro.md:5: diverged enum alpha/intro/max-value: "
                             "expected 4")
    assert fix[1].startswith("course-b/docs/intro.md:3: error VL101 ")
    _, check_out, _ = cli(*failing.args("check"))
    _, lint_out, _ = cli(*failing.args("lint"))
    assert fix[0] in check_out.splitlines()
    assert fix[1] in lint_out.splitlines()
    folded = [ln for ln in lines if "with no claims and no lint error" in ln]
    assert folded == ["1 page with no claims and no lint error (not in the table): "
                      "beta/docs/index.md"]
    assert not [ln for ln in lines if "│" in ln and "index.md" in ln]    # not a table row
    assert lines.index(folded[0]) < head           # the table, the folded pages, what to fix
    assert lines[-1].startswith("judged 3 lessons:")
    assert "open out/verification.html; exit 1 (1 claim diverged; 1 lint error)" in lines[-1]
    assert (failing.root / "out" / "verification.html").is_file()


def test_verify_quiet_keeps_notes_off_both_streams(cli, failing, monkeypatch):
    monkeypatch.chdir(failing.root)
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo=/no/such/mirror;demo={failing.repo.path}")
    _, out, err = cli(*failing.args("verify", "--runtime", "none", "--out", "out"))
    assert "note:" in err and "note:" not in out
    _, out, err = cli(*failing.args("verify", "--runtime", "none", "--out", "out", "-q"))
    assert "note:" not in out and "note:" not in err
    assert out.rstrip().splitlines()[-1].startswith("judged 3 lessons:")


def test_the_summary_is_the_last_line_of_both_streams(failing):
    """stdout and stderr merged, as a terminal or a CI log shows them: the summary is last
    (the source layer's warnings and notes come before it)."""
    env = {**os.environ, "VERIFIER_MIRRORS": f"demo=/no/such/mirror;demo={failing.repo.path}",
           "VERIFIER_PROVIDERS": "mirror"}
    got = subprocess.run([sys.executable, "-m", "verifier",
                          *failing.args("verify", "--runtime", "none", "--out", "out")],
                         cwd=failing.root, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    assert got.returncode == 1, got.stdout
    last = got.stdout.rstrip().splitlines()[-1]
    assert last.startswith("judged 3 lessons:") and last.endswith(
        "exit 1 (1 claim diverged; 1 lint error)")
    assert "sources info:" in got.stdout or "note:" in got.stdout
