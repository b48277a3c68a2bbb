"""What commands print: results on stdout and notes on stderr, clickable paths, counts in
words, user text never read as Rich markup, nothing a CI runner executes."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.cli.conftest import lesson

BAD_PIN = "f" * 40


@pytest.fixture
def with_error(proj):
    """beta's lesson cites a commit that is not the pin: one lint error (VL101)."""
    proj.lesson("beta", "docs/intro.md", lesson(BAD_PIN))
    return proj


def test_lint_paths_are_relative_to_the_current_directory(cli, with_error, monkeypatch):
    monkeypatch.chdir(with_error.root)
    code, out, _ = cli(*with_error.args("lint"))
    assert code == 1
    line = next(ln for ln in out.splitlines() if "VL101" in ln)
    path = line.split(":", 1)[0]
    assert path == "course-b/docs/intro.md" and Path(path).is_file()


def test_paths_far_outside_the_current_directory_are_absolute(cli, with_error, monkeypatch,
                                                              tmp_path):
    elsewhere = tmp_path / "a" / "b" / "c"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    _, out, _ = cli(*with_error.args("lint"))
    path = next(ln for ln in out.splitlines() if "VL101" in ln).split(":", 1)[0]
    assert os.path.isabs(path) and Path(path).is_file()


def test_paths_beside_the_current_directory_are_relative(cli, with_error, monkeypatch,
                                                         tmp_path):
    """F12: a course copy next to the project (`../shared/course/...`) is printed as the
    course note prints it, not as an absolute path."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    _, out, _ = cli(*with_error.args("lint"))
    path = next(ln for ln in out.splitlines() if "VL101" in ln).split(":", 1)[0]
    assert path == "../proj/course-b/docs/intro.md" and Path(path).is_file()


def test_check_lines_name_the_lesson_file(cli, proj, monkeypatch):
    monkeypatch.chdir(proj.root)
    _, out, _ = cli(*proj.args("check", "--all"))
    assert "course-a/docs/intro.md:5: verified" in out


def test_results_on_stdout_notes_on_stderr(cli, with_error, monkeypatch):
    # a mirror that does not exist gives a note from the source layer
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={with_error.repo.path};demo=/no/such/mirror")
    code, out, err = cli(*with_error.args("lint"))
    assert "VL101" in out and "VL101" not in err
    assert out.rstrip().splitlines()[-1].startswith("linted 2 lessons: 1 error, ")
    assert "exit 1 (1 lint error)" in out.rstrip().splitlines()[-1]
    code, out, err = cli(*with_error.args("lint", "--format", "json"))
    doc = json.loads(out)  # nothing but the JSON on stdout
    assert doc["summary"]["errors"] == 1
    assert err.rstrip().splitlines()[-1].startswith("linted 2 lessons")


def test_check_json_stays_parseable_with_its_final_line_on_stderr(cli, proj):
    code, out, err = cli(*proj.args("check", "--format", "json"))
    doc = json.loads(out)
    assert doc["summary"]["verified"] == 2 and code == 0
    assert "checked 2 claims about" in err and "exit 0 (clean)" in err


def test_counts_are_words_not_python_dicts(cli, proj):
    for argv in (["check"], ["lint"], ["sync"], ["coverage"]):
        _, out, err = cli(*proj.args(*argv))
        assert "{'" not in out + err and "{\"" not in out + err, argv


def test_markup_in_a_pins_key_is_printed_as_text(cli, proj):
    for key in ("[/x]", "[bold]"):
        text = proj.pins.read_text().replace("schema = 1", f'schema = 1\n"{key}" = 2', 1)
        proj.pins.write_text(text)
        code, out, err = cli(*proj.args("check"))
        assert code == 2
        assert f"{key}: unknown key" in err and "Traceback" not in err   # [word] stays
        assert err.startswith("error:")
        proj.pins.write_text(text.replace(f'"{key}" = 2\n', ""))


def test_markup_in_a_lesson_path_is_printed_as_text(cli, proj, monkeypatch):
    odd = proj.lesson("alpha", "docs/zz-a[/b/c].md", lesson(BAD_PIN))
    monkeypatch.chdir(proj.root)
    code, out, err = cli(*proj.args("lint"))
    assert code == 1, err
    assert "course-a/docs/zz-a[/b/c].md:3: error VL101" in out
    assert odd.is_file()
    code, out, err = cli(*proj.args("verify", "--out", str(proj.root / "out"), "--runtime",
                                    "none"))
    assert code == 1 and "Traceback" not in err
    assert "alpha/docs/zz-a[/b/c].md" in out


def test_markup_in_claim_text_is_printed_as_text(cli, proj):
    proj.claims("alpha", "intro", "docs/intro.md", body="""lesson = "docs/intro.md"
upstream = "demo"

[[claim]]
id = "gone"
fragment = "a [bold]sentence[/bold] with [/x] markup"
kind = "symbol"
path = "include/demo.h"
symbol = "demo_step"
expected = true
""")
    code, out, err = cli(*proj.args("check", "--format", "text"))
    assert code == 1 and "Traceback" not in err
    flat = re.sub(r"[\s│]", "", out)  # the table may fold the message over lines
    assert "fragment'a[bold]sentence[/bold]with[/x]markup'" in flat


def test_no_output_line_is_a_workflow_command(cli, proj, monkeypatch):
    name = "zz-nl\n::error file=x::newline-in-name.md"
    proj.lesson("alpha", f"docs/{name}", lesson(BAD_PIN))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    for argv in (["lint"], ["check"], ["coverage"], ["sources"]):
        code, out, err = cli(*proj.args(*argv))
        for stream in (out, err):
            for ln in stream.splitlines():
                assert not ln.lstrip().startswith(("::", "##[")), (argv, ln)
    _, out, _ = cli(*proj.args("lint"))
    assert "docs/zz-nl\\n::error file=x::newline-in-name.md:3: error VL101" in out


def test_guard_defuses_only_line_starts():
    from verifier.cli.output import clean, guard_line, guard_text

    assert guard_line("::error file=x::boom") == "%3A:error file=x::boom"
    assert guard_line("  ::warning::x") == "  %3A:warning::x"
    assert guard_line("##[error]x") == "%23#[error]x"
    assert guard_line("path:3: a::b") == "path:3: a::b"
    assert guard_text("ok\n::x::y\n") == "ok\n%3A:x::y\n"
    assert clean("a\nb\x1b[31m") == "a\\nb\\x1b[31m"


def test_the_error_funnel_survives_text_it_cannot_print(cli, proj, monkeypatch):
    import verifier.cli.output as o

    def broken(*a, **k):
        raise RuntimeError("console is gone")

    monkeypatch.setattr(o, "err_console", broken)
    code, _, err = cli(*proj.args("check", "--upstream", "nope"))
    assert code == 2 and "unknown upstream 'nope'" in err


class _Tty:
    """A text stream that says it is a terminal."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, s: str) -> int:
        self.parts.append(s)
        return len(s)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    @property
    def text(self) -> str:
        return re.sub(r"\x1b\[[0-9;]*m", "", "".join(self.parts))


@pytest.mark.parametrize("parts", [
    ("path.md:3: ", ("error", "red"), " VL101 permalink-pin: x [bold]y[/] ::z"),
    ("::error file=x::boom", ("  two  spaces ", "dim"), "tab\there"),
    ("新的段落 `mj_step` ", ("ok", "green"), "\x1b[31mred\n::x"),
])
def test_plain_lines_are_what_rich_prints_on_a_terminal(parts, monkeypatch):
    """Off a terminal a line is written as its plain text; on a terminal rich prints
    it with colour. Without the colour both are the same text (user text cleaned,
    workflow commands defused), so logs read as a terminal does."""
    import io
    import sys

    import verifier.cli.output as o

    pipe, tty = io.StringIO(), _Tty()
    monkeypatch.setattr(sys, "stdout", pipe)
    o.say(*parts)
    monkeypatch.setattr(sys, "stdout", tty)
    o.say(*parts)
    assert pipe.getvalue() == tty.text
    assert pipe.getvalue().count("\n") == 1 and not pipe.getvalue().startswith("::")


def test_a_lint_to_a_pipe_does_not_load_rich(with_error):
    """rich (a tenth of a warm command's start-up here) is imported only for a terminal
    or a table: a lint whose output goes to a pipe or a log never loads it."""
    import subprocess
    import sys

    code = ("import sys\nfrom verifier.cli.main import main\n"
            f"try:\n    main({with_error.args('lint')!r})\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('RICH %s' % sorted(m for m in sys.modules "
            "if m.split('.')[0] == 'rich'))\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=with_error.root)
    assert "VL101" in got.stdout, got.stderr
    assert got.stderr.strip().splitlines()[-1] == "RICH []"


def test_text_the_terminal_cannot_encode_is_escaped_not_a_crash(proj):
    """Under an ASCII-only stdout (`PYTHONIOENCODING=ascii`, a legacy locale) a Chinese
    lesson path is printed escaped and the command exits with its verdict, not 3."""
    import subprocess
    import sys

    proj.lesson("beta", "docs/中文.md", lesson(BAD_PIN))
    got = subprocess.run([sys.executable, "-m", "verifier", *proj.args("lint")],
                         capture_output=True, cwd=proj.root,
                         env={**os.environ, "PYTHONIOENCODING": "ascii"})
    out = got.stdout.decode("ascii")
    assert got.returncode == 1, got.stderr.decode("ascii", "replace")
    assert "docs/\\u4e2d\\u6587.md:" in out and "VL101" in out


def test_a_lesson_name_that_is_not_utf8_is_a_clear_error(cli, proj):
    """A lesson file whose name is not valid UTF-8 (bytes the file system returns as
    surrogates) is refused with exit 2, naming the file escaped, never a crash."""
    good = proj.lesson("beta", "docs/intro.md", lesson(BAD_PIN))
    bad = os.fsencode(good.parent) + b"/bad\xff.md"
    with open(bad, "wb") as fh:
        fh.write(lesson(BAD_PIN).encode())
    for argv in (["lint"], ["check"]):
        code, out, err = cli(*proj.args(*argv))
        assert code == 2, (argv, out, err)
        assert "bad\\udcff.md" in err and "not valid UTF-8" in err


def test_a_course_copy_behind_a_link_is_shown_the_way_the_user_reaches_it(tmp_path,
                                                                          monkeypatch):
    """F12: `../shared` beside the project is a link to a directory far away; a lesson
    under it is printed as `../shared/...` (what the course note says), not absolute."""
    from verifier.cli.output import _links_near, rel

    far = tmp_path / "x" / "y" / "z" / "shared"
    (far / "course").mkdir(parents=True)
    lesson = far / "course" / "l.md"
    lesson.write_text("# l\n")
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "shared").symlink_to(far)
    (tmp_path / "w" / "main").mkdir()
    monkeypatch.chdir(tmp_path / "w" / "main")
    _links_near.cache_clear()
    assert rel(lesson) == "../shared/course/l.md"
    assert rel("/no-such-dir-here/other.md") == "/no-such-dir-here/other.md"
