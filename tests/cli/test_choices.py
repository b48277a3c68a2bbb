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
    code, out, _ = cli(*proj.args("check", "--kind", "enum", "--all"))
    assert code == 0
    assert "max-value" in out and "step-exists" not in out
    assert out.rstrip().splitlines()[-1].startswith("checked 1 claim about")


def test_text_lists_only_claims_that_need_a_look_unless_all(cli, proj):
    code, out, _ = cli(*proj.args("check"))
    assert code == 0 and "max-value" not in out and "step-exists" not in out
    assert out.rstrip().splitlines()[-1].startswith("checked 2 claims about")
    code, out, _ = cli(*proj.args("check", "--all"))
    assert "max-value" in out and "step-exists" in out


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


def test_many_unavailable_claims_of_one_reason_are_one_line(monkeypatch, capsys):
    from types import SimpleNamespace

    from verifier.cli import render
    from verifier.results import ClaimResult, Verdict

    def claim(i, verdict, message):
        return ClaimResult(id=f"c/l/{i}", lesson="docs/l.md", line=i, upstream="u",
                           kind="runtime", verdict=verdict, expected=1, message=message,
                           course="c")
    claims = [claim(i, Verdict.UNAVAILABLE, "runtime-only claim") for i in range(8)]
    claims += [claim(20, Verdict.UNAVAILABLE, "file not at the pin"),
               claim(21, Verdict.DIVERGED, None), claim(22, Verdict.VERIFIED, None)]
    run = SimpleNamespace(report=SimpleNamespace(claims=claims, lessons=[]))
    monkeypatch.setattr(render, "lesson_paths", lambda result: {})
    render.claims_list(run)
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("c/docs/l.md:20: unavailable runtime c/l/20: file not at")
    assert lines[1].startswith("c/docs/l.md:21: diverged runtime c/l/21: expected 1")
    assert lines[2].startswith("8 claims unavailable: runtime-only claim (e.g. c/l/0, c/l/1")
    assert lines[3] == "1 verified claim not listed (--all lists them)" and len(lines) == 4
    render.claims_list(run, every=True)
    assert len(capsys.readouterr().out.strip().splitlines()) == 11


# --------------------------------------------------------------------------- options (F13)

@pytest.mark.parametrize("argv, said", [
    (["lint", "--fromat", "json"], "verifier lint: error: unknown option --fromat "
                                   "(did you mean --format?)"),
    (["verify", "--runtim", "none"], "verifier verify: error: unknown option --runtim "
                                     "(did you mean --runtime?)"),
    (["verify", "--format", "json"], "verifier verify: error: unknown option --format: verify "
                                     "writes every record format into --out"),
])
def test_a_misspelt_option_gets_did_you_mean_and_the_commands_usage(argv, said, capsys):
    """newcomer-2 F13: the command's own usage and its nearest option; no prefix is taken
    for an option (`--runtim none` used to run a whole verify as `--runtime none`)."""
    from verifier.cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err
    assert err.startswith(f"usage: verifier {argv[0]} ")
    assert "unexpected argument" not in err          # the option's value is not a second error


def test_help_lists_commands_in_workflow_order(capsys):
    from verifier.cli.main import main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    order = [out.index(f"\n    {c} ") for c in ("verify", "lint", "check", "coverage", "draft",
                                                 "claims", "record", "sync")]
    assert order == sorted(order)
    assert "~/.cache/verifier" in out
