"""Every choice option is validated against its registry, with "did you mean", before any
work starts; the human format is called `text` in every command."""

from __future__ import annotations

import pytest

import verifier.pipeline as pipeline


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a stage would run (validation must come first)."""
    def boom(*a, **k):
        raise AssertionError("work started before the options were validated")

    import verifier.claims.check
    import verifier.lint

    monkeypatch.setattr(pipeline, "acquire", boom)
    monkeypatch.setattr(verifier.lint, "run_lint", boom)
    monkeypatch.setattr(verifier.claims.check, "check_claims", boom)


@pytest.mark.parametrize("argv, what, hint", [
    (["check", "--kind", "symbl"], "kind", "symbol"),
    (["check", "--format", "sarf"], "format", "sarif"),
    (["lint", "--format", "jsn"], "format", "json"),
    (["record", "--format", "json,htm"], "format", "html"),
    (["sources", "--format", "txt"], "format", "text"),
    (["sources", "--status", "pined"], "status", "pinned"),
    (["rules", "--format", "jsno"], "format", "json"),
    (["coverage", "--format", "tex"], "format", "text"),
    (["cache", "clean", "--section", "blob"], "cache section", "blobs"),
    (["check", "--runtime", "sampel"], "runtime mode", "sample"),
    (["env", "lst"], "action", "list"),
])
def test_typo_in_a_choice_is_a_usage_error_with_a_suggestion(cli, proj, no_work, argv, what,
                                                              hint):
    code, out, err = cli(*proj.args(*argv))
    assert code == 2
    assert f"unknown {what} " in err and f"did you mean '{hint}'?" in err
    assert out == ""


@pytest.mark.parametrize("argv, what, hint", [
    (["check", "--upstream", "dmeo"], "upstream", "demo"),
    (["lint", "--course", "alpah"], "course", "alpha"),
    (["record", "--course", "bta"], "course", "beta"),
    (["sync", "--upstream", "demoo"], "upstream", "demo"),
    (["sources", "--upstream", "dem"], "upstream", "demo"),
])
def test_typo_in_a_pins_name_is_a_usage_error_with_a_suggestion(cli, proj, no_work, argv, what,
                                                                 hint):
    code, out, err = cli(*proj.args(*argv))
    assert code == 2, err
    assert f"unknown {what} " in err and f"did you mean '{hint}'?" in err


def test_typo_in_a_lesson_suggests_the_lesson(cli, proj, no_work):
    code, _, err = cli(*proj.args("check", "--lesson", "alpha/docs/intr.md"))
    assert code == 2 and "did you mean alpha/docs/intro.md?" in err
    code, _, err = cli(*proj.args("check", "--lesson", "alfa/docs/intro.md"))
    assert code == 2 and "did you mean alpha/docs/intro.md?" in err


def test_check_kind_typo_never_exits_0_with_no_claims(cli, proj):
    code, out, err = cli(*proj.args("check", "--kind", "symbl"))
    assert code == 2 and "no claims" not in out


def test_a_valid_kind_filters(cli, proj):
    code, out, _ = cli(*proj.args("check", "--kind", "enum"))
    assert code == 0
    assert "max-value" in out and "step-exists" not in out
    assert out.rstrip().splitlines()[-1].startswith("checked 1 claim about")


@pytest.mark.parametrize("argv", [["check", "--sample", "-5", "--runtime", "sample"],
                                  ["check", "--sample", "3"],
                                  ["record", "--timestamp", "yesterday"],
                                  ["verify", "--sample", "lots"]])
def test_bad_values_are_refused_before_any_work(cli, proj, no_work, argv):
    code, _, err = cli(*proj.args(*argv))
    assert code == 2 and "error:" in err


@pytest.mark.parametrize("argv", [["lint"], ["check"], ["rules"], ["sources"], ["coverage"],
                                  ["env", "list"]])
def test_text_is_the_default_format_and_accepted_by_name(cli, proj, argv):
    default = cli(*proj.args(*argv))
    named = cli(*proj.args(*argv, "--format", "text"))
    assert named[0] == default[0] != 2
    # the same output (a second run may say "(cached)" where the first fetched)
    assert named[1].splitlines()[0] == default[1].splitlines()[0]


def test_unknown_command_suggests(cli):
    code, _, err = cli("chek")
    assert code == 2 and "did you mean 'check'?" in err
