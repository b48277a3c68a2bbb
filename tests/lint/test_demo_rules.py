"""Every rule on a small demo course whose upstream is a local git repo holding the
pinned commit (complete index): quiet on the clean text, loud on each mutation."""

from __future__ import annotations

import json

import pytest

from tests.lint.conftest import errors, lint

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_clean_demo_course_has_no_errors_or_warnings(demo):
    fs = lint(demo.project())
    bad = [f for f in fs if f.severity != "info"]
    assert bad == [], [f.message for f in bad]
    infos = [f for f in fs if f.rule == "permalink-anchor"]
    assert len(infos) == 2 and all(f.fingerprint and f.fingerprint.startswith("sha256:")
                                   for f in infos)
    msgs = " ".join(f.message for f in infos)
    assert "`demo_step` defined at L19" in msgs


def _mutate(demo, old, new, name="basics.md"):
    p = demo.lesson(name)
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_wrong_sha_in_link(demo):
    _mutate(demo, f"blob/{demo.sha}/include", f"blob/{'1' * 40}/include")
    es = errors(lint(demo.project()), "permalink-pin")
    assert len(es) == 1 and "not pin" in es[0].message and es[0].line == 8


def test_branch_ref_in_link(demo):
    _mutate(demo, f"blob/{demo.sha}/src", "blob/main/src")
    es = errors(lint(demo.project()), "permalink-pin")
    assert len(es) == 1 and "'main'" in es[0].message


def test_range_past_end_of_file(demo):
    _mutate(demo, "demo.h#L18-L19", "demo.h#L18-L90")
    es = errors(lint(demo.project()), "permalink-target")
    assert len(es) == 1 and "past the end" in es[0].message and "24 lines" in es[0].message


def test_reversed_range(demo):
    _mutate(demo, "demo.h#L18-L19", "demo.h#L19-L18")
    es = errors(lint(demo.project()), "permalink-target")
    assert len(es) == 1 and "reversed" in es[0].message


def test_missing_path_with_known_tree(demo):
    _mutate(demo, "src/demo.c#L12-L15", "src/demo_missing.c#L12-L15")
    es = errors(lint(demo.project()), "permalink-target")
    assert len(es) == 1 and "does not exist" in es[0].message


def test_anchor_names_identifier_not_in_range(demo):
    _mutate(demo, "[demo_step](", "[demo_reset](")
    es = errors(lint(demo.project()), "permalink-anchor")
    assert len(es) == 1 and "`demo_reset`" in es[0].message and es[0].fingerprint


def test_anchor_code_span_before_link(demo):
    # the code span right before a link names the identifier the range must hold
    _mutate(demo, "`demo_reset` is [defined here]", "`demo_step` [defined here]")
    es = errors(lint(demo.project()), "permalink-anchor")
    assert len(es) == 1 and es[0].data["missing"] == ["demo_step"]
    assert "src/demo.c#L12-L15" in es[0].message


def test_renamed_api_in_code_span(demo):
    _mutate(demo, "`demo_step(s, dt)`", "`demo_advance(s, dt)`")
    es = errors(lint(demo.project()), "identifier")
    assert len(es) == 1 and es[0].target == "demo_advance(s, dt)"
    _mutate(demo, "`demoState.time`", "`demoState.tick`")
    es = errors(lint(demo.project()), "identifier")
    assert any("`demoState` has no member `tick`" in e.message for e in es)
    _mutate(demo, "`demo.make_widget`", "`demo.make_widgets`")
    es = errors(lint(demo.project()), "identifier")
    assert any("did you mean `make_widget`" in e.message for e in es)


def test_wrong_version_string(demo):
    _mutate(demo, "Demo 2.3.1", "Demo 2.4.0")
    es = errors(lint(demo.project()), "version")
    assert len(es) == 1 and "2.4.0" in es[0].message and "2.3.1" in es[0].message


def test_unpinned_commit_in_text(demo):
    _mutate(demo, f"commit `{demo.sha}`", "commit `0123456789abcdef0123`")
    es = errors(lint(demo.project()), "version")
    assert len(es) == 1 and "not pinned" in es[0].message


def test_broken_python_block(demo):
    _mutate(demo, "def show(name):", "def show(name)")
    es = errors(lint(demo.project()), "codeblock")
    assert len(es) == 1 and es[0].line == 19 and "parse" in es[0].message


def test_python_block_import_and_attribute(demo):
    _mutate(demo, "w = demo.make_widget(name)", "w = demo.build_widget(name)")
    es = errors(lint(demo.project()), "codeblock")
    assert len(es) == 1 and "demo.build_widget" in es[0].message


def test_dead_relative_link(demo):
    _mutate(demo, "(other.md)", "(othr.md)")
    es = errors(lint(demo.project()), "relative-link")
    assert len(es) == 1 and "othr.md" in es[0].message


def test_inline_suppression_unused_is_reported(demo):
    _mutate(demo, "`show_all_items` is not upstream API", "helper is not upstream API")
    fs = lint(demo.project())
    unused = [f for f in fs if f.rule == "suppression-unused"]
    assert len(unused) == 1 and "show_all_items" in unused[0].message
    assert errors(fs) == []


def test_inline_suppression_silences_only_its_block(demo):
    _mutate(demo, "`show_all_items` is not upstream API. <!-- verifier: ignore show_all_items -->",
            "`show_all_items` is not upstream API.\n\n<!-- verifier: ignore other_name -->\n\n"
            "Unrelated paragraph.")
    fs = lint(demo.project())
    assert [e.target for e in errors(fs)] == ["show_all_items"]
    assert [f.target for f in fs if f.rule == "suppression-unused"] == ["other_name"]


def test_config_suppression_and_unused(demo):
    _mutate(demo, " <!-- verifier: ignore show_all_items -->", "")
    assert [e.target for e in errors(lint(demo.project()))] == ["show_all_items"]
    (demo.root / "lint.toml").write_text(
        'schema = 1\n[[suppress]]\nlesson = "demo-course/docs/basics.md"\nrule = "identifier"\n'
        'names = ["show_all_items"]\nreason = "lesson-local helper"\n\n'
        '[[suppress]]\nlesson = "demo-course/docs/*.md"\nnames = ["gone_name"]\n'
        'reason = "stale entry"\n', encoding="utf-8")
    fs = lint(demo.project())
    assert errors(fs) == []
    unused = [f for f in fs if f.rule == "suppression-unused"]
    assert len(unused) == 1 and "gone_name" in unused[0].message and unused[0].line == 8


def test_bad_lint_config_is_a_config_error(demo):
    from verifier.errors import ConfigError

    (demo.root / "lint.toml").write_text('schema = 1\n[[suppress]]\nlesson = "x"\n',
                                        encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        lint(demo.project())
    assert "lint.toml" in str(e.value)


def test_source_unavailable_is_one_finding_per_upstream(demo, monkeypatch):
    # no provider can serve the upstream: nothing is checked, and lint says so once
    monkeypatch.setenv("VERIFIER_MIRRORS", f"demo={demo.root / 'nowhere'}")
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    fs = lint(demo.project(), [demo.lesson("basics.md")])
    un = [f for f in fs if f.rule == "source-unavailable" and f.severity == "warning"]
    assert len(un) == 1 and un[0].upstream == "demo"
    assert un[0].data["count"] >= 4
    # ... and every unchecked item is an info finding on its own line
    items = [f for f in fs if f.rule == "source-unavailable" and f.severity == "info"]
    assert len(items) == un[0].data["count"]
    assert {f.line for f in items} == {d["line"] for group in un[0].data["unchecked"].values()
                                       for d in group}
    assert errors(fs) == []   # unknowable is not wrong ...
    assert not [f for f in fs if f.rule == "permalink-anchor"]  # ... and not passed either


def test_cli_json_and_exit_codes(demo, capsys, monkeypatch):
    from verifier.cli.main import main

    monkeypatch.chdir(demo.root)
    assert main(["lint", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"findings", "summary"} and out["summary"]["errors"] == 0
    for f in out["findings"]:
        assert {"rule", "severity", "path", "line", "message", "upstream", "target"} <= set(f)
    _mutate(demo, "Demo 2.3.1", "Demo 9.9")
    assert main(["lint", "--format", "json", str(demo.lesson("basics.md"))]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [f["rule"] for f in out["findings"] if f["severity"] == "error"] == ["version"]
    assert main(["lint", str(demo.root / "nope.md")]) == 2
    assert main(["rules", "--format", "json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    codes = [r["code"] for r in rules]   # the inventory itself: tests/test_registries.py
    assert {f"VL10{i}" for i in range(1, 10)} <= set(codes) and len(set(codes)) == len(codes)
    assert all(len(r["doc"]) > 60 for r in rules)


def test_suppression_in_a_table_cell(demo):
    text = demo.lesson("basics.md").read_text(encoding="utf-8")
    text += ("\n| name | note |\n|---|---|\n| `made_up_name` | gone "
             "<!-- verifier: ignore made_up_name --> |\n| `other_made_up` | kept |\n")
    demo.lesson("basics.md").write_text(text, encoding="utf-8")
    fs = lint(demo.project())
    assert [e.target for e in errors(fs)] == ["other_made_up"]
    assert not [f for f in fs if f.rule == "suppression-unused"]


def test_version_of_another_product_is_not_this_upstream(demo):
    _mutate(demo, "This lesson reads Demo 2.3.1",
            "This lesson reads Demo 2.3.1 (not Demo-Lite 0.9)")
    assert errors(lint(demo.project()), "version") == []


def test_near_miss_hints_are_bounded_per_lesson(demo, monkeypatch):
    """Only the first `NEAR_LIMIT` distinct names of a lesson get a "did you mean"
    search (each reads thousands of candidates: a lesson of 20,000 made-up names took
    285 s); past it a name is judged the same, only without the hint. The budget is
    per lesson, so a lesson's findings never depend on the others of the run."""
    from verifier.lint import resolve

    _mutate(demo, "`demo.make_widget`", "`demo.make_widgets`")
    assert any("did you mean `make_widget`" in e.message
               for e in errors(lint(demo.project()), "identifier"))
    monkeypatch.setattr(resolve, "NEAR_LIMIT", 0)
    monkeypatch.setenv("VERIFIER_FACT_CACHE", "0")        # not the memoised findings
    es = [e for e in errors(lint(demo.project()), "identifier") if "make_widgets" in e.message]
    assert es and not any("did you mean" in e.message for e in es)
    budget = resolve.NearBudget(limit=2)
    assert [budget.allow(n) for n in ("a", "b", "a", "c", "b")] == [True, True, True, False,
                                                                     True]


def test_a_near_miss_of_the_pin_is_shown_in_full(demo):
    """A cited commit that shares the pin's first 12 hex digits is written in full, and
    so is the pin: cut to 12 digits the message read "cites 9ea3cdfcae93…, which
    pins.toml does not pin (pinned at 9ea3cdfcae93…)"."""
    near = demo.sha[:12] + ("0" if demo.sha[12] != "0" else "1") + demo.sha[13:]
    _mutate(demo, f"blob/{demo.sha}/include", f"blob/{near}/include")
    (e,) = errors(lint(demo.project()), "permalink-pin")
    assert f"cites commit {near}," in e.message and f"pinned at {demo.sha}," in e.message
    assert "…" not in e.message
