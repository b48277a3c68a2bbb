"""The commands under a pseudo-terminal, as people run them: progress bars live while
notes are printed, NO_COLOR, a narrow and a wide window, stdout to a file while stderr
stays on the terminal. (Tests that capture output never see a terminal, which is how a
crash of every terminal run of the main job went unseen: newcomer-2 F1.)"""

from __future__ import annotations

import os
import sys
import threading

import pytest

from tests.cli.conftest import lesson
from tests.cli.pty_run import run_tty, verifier_argv

BAD_PIN = "f" * 40


@pytest.fixture
def noisy(proj):
    """A project whose source layer prints a note while the sources bar is live (a mirror
    that is not there, tried before the real one) and whose beta lesson has a lint error."""
    os.environ["VERIFIER_MIRRORS"] = f"demo=/no/such/mirror;demo={proj.repo.path}"
    proj.lesson("beta", "docs/intro.md", lesson(BAD_PIN))
    return proj


def _env(proj, **extra):
    return {"VERIFIER_MIRRORS": os.environ["VERIFIER_MIRRORS"],
            "VERIFIER_PROVIDERS": "mirror", **extra}


def test_a_note_while_a_bar_is_live_then_another_bar(monkeypatch):
    """The mechanism of F1, in-process: stderr is a terminal, a bar is live (rich
    replaces sys.stderr by its proxy), a note is printed, the next bar starts."""
    import verifier.cli.output as o

    master, slave = os.openpty()
    got: list[bytes] = []

    def drain():
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            got.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    tty = open(slave, "w", encoding="utf-8", closefd=False)
    monkeypatch.setattr(sys, "stderr", tty)
    monkeypatch.setattr(o, "_CONSOLES", {})
    try:
        p = o.RichProgress()
        assert p.enabled
        p.begin("sources demo", 3)
        p.advance()
        o.note("a provider failed; falling back")
        p.begin("lint", 2)          # F1 raised AttributeError here
        o.note("another note")
        p.advance(2)
        p.end()
        o.note("after the bars")
        tty.flush()
    finally:
        o.end_progress()
        tty.close()
        os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    text = b"".join(got).decode("utf-8", "replace")
    for msg in ("a provider failed; falling back", "another note", "after the bars"):
        assert msg in text


def _verify(proj, tmp_path, cols=80, **env):
    return run_tty(verifier_argv(*proj.args("verify", "--runtime", "none",
                                            "--out", str(tmp_path / "out"))),
                   cols=cols, cwd=proj.root, env=_env(proj, **env))


@pytest.mark.parametrize("cols", [40, 80, 200])
def test_main_job_in_a_terminal(noisy, tmp_path, cols):
    r = _verify(noisy, tmp_path, cols=cols)
    assert r.code == 1, r.text
    assert "internal error" not in r.text
    assert "/no/such/mirror" in r.text                 # the note during the bar
    assert "\x1b[" in r.raw                            # colour on a terminal
    assert (tmp_path / "out" / "verification.json").is_file()
    # tables fit the window (a line of text is left to the terminal to wrap)
    boxed = [ln for ln in r.text.splitlines() if ln[:1] in "┏┃┡│└"]
    assert boxed and max(len(ln) for ln in boxed) <= cols, r.text
    if os.environ.get("VERIFIER_SHOW_TTY"):
        print(r.text)
    assert "exit 1" in r.text.replace("\n", " ")


def test_main_job_with_no_color(noisy, tmp_path):
    r = _verify(noisy, tmp_path, NO_COLOR="1")
    assert r.code == 1, r.text
    import re

    colour = re.compile(r"\x1b\[(?:[0-9]+;)*(?:3[0-7]|9[0-7]|38;5;[0-9]+|38;2;[0-9;]+)m")
    assert not colour.findall(r.raw)
    assert colour.findall(_verify(noisy, tmp_path).raw)      # the control: colour without it


def test_main_job_stdout_to_a_file_stderr_on_the_terminal(noisy, tmp_path):
    """Results stay on stdout while the bars draw on stderr (rich would move stdout into
    the bar's console if it redirected it)."""
    out = tmp_path / "stdout.txt"
    r = run_tty(verifier_argv(*noisy.args("verify", "--runtime", "none",
                                          "--out", str(tmp_path / "out"))),
                cwd=noisy.root, env=_env(noisy), stdout_to=out)
    assert r.code == 1, r.text
    assert "judged 2 lessons" in r.stdout_file and "\x1b[" not in r.stdout_file
    assert "judged" not in r.text and "/no/such/mirror" in r.text


@pytest.mark.parametrize("cols", [40, 200])
def test_check_lint_draft_in_a_terminal(noisy, tmp_path, cols):
    env = _env(noisy)
    r = run_tty(verifier_argv(*noisy.args("check", "--all")), cols=cols, cwd=noisy.root,
                env=env)
    assert r.code == 0, r.text
    assert "verified" in r.text and "internal error" not in r.text
    r = run_tty(verifier_argv(*noisy.args("lint")), cols=cols, cwd=noisy.root, env=env)
    assert r.code == 1, r.text
    assert "VL101" in r.text and "internal error" not in r.text
    r = run_tty(verifier_argv(*noisy.args("draft", "course-a/docs/intro.md")), cols=cols,
                cwd=noisy.root, env=env)
    assert r.code in (0, 1), r.text
    assert "internal error" not in r.text and "Traceback" not in r.text


def test_off_a_terminal_the_main_job_prints_one_line_per_stage(noisy, tmp_path):
    """F9: a CI log says which step runs (a slow step is not a hung one)."""
    import subprocess

    env = {**os.environ, **_env(noisy)}
    got = subprocess.run(verifier_argv(*noisy.args("verify", "--runtime", "none", "--out",
                                                   str(tmp_path / "out"))),
                         cwd=noisy.root, env=env, capture_output=True, text=True)
    assert got.returncode == 1, got.stderr
    stages = [ln for ln in got.stderr.splitlines() if ln.startswith("… ")]
    assert [s.split(" (")[0] for s in stages] == ["… sources demo", "… lint", "… check",
                                                  "… suspects"]
    assert "… sources demo (" in stages[0]
    q = subprocess.run(verifier_argv(*noisy.args("verify", "--runtime", "none", "-q", "--out",
                                                 str(tmp_path / "out"))),
                       cwd=noisy.root, env=env, capture_output=True, text=True)
    assert not [ln for ln in q.stderr.splitlines() if ln.startswith("… ")]
