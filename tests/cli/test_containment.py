"""A crashing lint rule, like a crashing claim kind, is reported against its lesson, the
run goes on, and the command exits 3 at the end with the crash log written."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import lesson
from verifier.lint.rules.permalink_pin import PermalinkPin
from verifier.lint.rules.version import Version


@pytest.fixture
def raising_rule(monkeypatch):
    """The version rule raises on beta's lesson only."""
    real = Version.check

    def check(self, ctx, doc, les):
        if doc.course == "beta":
            raise KeyError("boom-in-rule")
        return real(self, ctx, doc, les)

    monkeypatch.setattr(Version, "check", check)


def test_a_raising_lint_rule_is_contained(cli, proj, raising_rule):
    proj.lesson("alpha", "docs/intro.md", lesson("f" * 40))  # alpha: a real VL101 error
    code, out, err = cli(*proj.args("lint"))
    assert code == 3
    assert "course-a/docs/intro.md:3: error VL101" in out.replace(str(proj.root) + "/", "")
    crash = next(ln for ln in out.splitlines() if "internal error in lint rule version" in ln)
    assert "course-b/docs/intro.md:1:" in crash.replace(str(proj.root) + "/", "")
    assert "KeyError: 'boom-in-rule'" in crash
    assert "internal error: lint rule version (VL105) raised KeyError" in err
    log = proj.cache / "verifier-crash.log"
    assert log.is_file() and "boom-in-rule" in log.read_text()
    assert "traceback in" in err and str(log) in err
    assert out.rstrip().splitlines()[-1].endswith("exit 3 (1 internal error (a bug in verifier); "
                                                  "2 lint errors)")


def test_the_crash_is_in_the_record_without_its_traceback(cli, proj, raising_rule):
    code, out, _ = cli(*proj.args("record"))
    assert code == 3
    rec = json.loads(out)
    assert rec["summary"]["exit_code"] == 3
    assert rec["internal_errors"] == [{"stage": "lint", "what": "lint rule version (VL105)",
                                       "course": "beta", "lesson": "docs/intro.md",
                                       "error": "KeyError: 'boom-in-rule'"}]
    assert "Traceback" not in out


def test_a_raising_claim_kind_exits_3_too(cli, proj, monkeypatch):
    from verifier.claims.kinds.enum import EnumKind

    def check(self, claim, ctx):
        raise ZeroDivisionError("boom-in-kind")

    monkeypatch.setattr(EnumKind, "check", check)
    code, out, err = cli(*proj.args("check", "--format", "json"))
    assert code == 3
    claims = {c["id"]: c for c in json.loads(out)["claims"]}
    assert claims["alpha/intro/step-exists"]["verdict"] == "verified"   # the run went on
    broken = claims["alpha/intro/max-value"]
    assert broken["verdict"] == "error" and "boom-in-kind" in broken["message"]
    assert "claim kind enum (VC104) raised ZeroDivisionError" in err
    assert (proj.cache / "verifier-crash.log").is_file()


def test_crash_log_falls_back_to_the_temp_dir(tmp_path, monkeypatch):
    from verifier.cli.main import crash_log

    blocked = tmp_path / "file-not-dir"
    blocked.write_text("x")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    path = crash_log("Traceback: x\n", blocked / "cache")
    assert path == tmp_path / "tmp" / "verifier-crash.log" and "Traceback: x" in path.read_text()


def test_an_uncaught_bug_writes_the_log_into_the_given_cache(cli, proj, monkeypatch):
    monkeypatch.setattr(PermalinkPin, "__init__", lambda self: 1 / 0)
    import verifier.cli.lint_cmd as lint_cmd

    monkeypatch.setattr(lint_cmd, "findings_json", lambda result: 1 / 0)
    code, _, err = cli(*proj.args("lint", "--format", "json"))
    assert code == 3 and "internal error: ZeroDivisionError" in err
    assert (proj.cache / "verifier-crash.log").is_file()


def test_the_markdown_record_of_the_lesson_names_the_crash(cli, proj, raising_rule):
    out = proj.root / "out"
    assert cli(*proj.args("record", "--format", "markdown", "--out", f"{out}/"))[0] == 3
    beta = (out / "beta/docs/intro.md").read_text()
    assert "internal error in lint rule version (VL105): KeyError: 'boom-in-rule'" in beta
    assert "internal error in" not in (out / "alpha/docs/intro.md").read_text()
