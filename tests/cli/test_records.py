"""Records written by `record` and `verify`: file modes, one Markdown record per lesson,
escaping, SARIF locations per course, unique claim ids, run.json."""

from __future__ import annotations

import json
import os
import re
import stat

import pytest

from tests.cli.conftest import lesson


@pytest.fixture
def umask():
    old = os.umask(0o022)
    yield lambda m: os.umask(m)
    os.umask(old)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_records_are_written_with_the_users_umask(cli, proj, umask, mask, mode):
    umask(mask)
    out = proj.root / "out"
    code, _, err = cli(*proj.args("record", "--format", "json,sarif,markdown", "--out",
                                  f"{out}/"))
    assert code == 0, err
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) >= 4  # json, sarif, two markdown records, run.json
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {mode}


def test_pins_lock_is_written_with_the_users_umask(cli, proj, umask, tmp_path):
    umask(0o022)
    manifest = tmp_path / "sources.json"
    manifest.write_text(json.dumps({
        "upstream": "o/demo", "commit": proj.repo.head,
        "files": [{"path": "include/demo.h", "git_blob": proj.repo.blob("include/demo.h")}]}))
    code, out, err = cli(*proj.args("lock", "--import", str(manifest)))
    assert code == 0, err
    assert "1 new path" in out
    assert stat.S_IMODE((proj.root / "pins.lock").stat().st_mode) == 0o644


def test_records_keep_the_mode_a_user_gave_them(cli, proj, umask):
    umask(0o022)
    out = proj.root / "out"
    cli(*proj.args("record", "--format", "json", "--out", f"{out}/"))
    (out / "verification.json").chmod(0o640)
    cli(*proj.args("record", "--format", "json", "--out", f"{out}/"))
    assert stat.S_IMODE((out / "verification.json").stat().st_mode) == 0o640
    assert not [q for q in out.iterdir() if q.name.endswith(".tmp")]  # no temp file left


def test_markdown_records_of_same_named_lessons_do_not_collide(cli, proj):
    proj.lesson("alpha", "docs/a/intro.md", lesson(proj.repo.head, "\nFolder a.\n"))
    proj.lesson("alpha", "docs/b/intro.md", lesson(proj.repo.head, "\nFolder b.\n"))
    out = proj.root / "out"
    code, _, err = cli(*proj.args("record", "--format", "markdown", "--out", f"{out}/"))
    assert code == 0, err
    records = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md"))
    assert records == ["alpha/docs/a/intro.md", "alpha/docs/b/intro.md", "alpha/docs/intro.md",
                       "beta/docs/intro.md"]
    assert "alpha/docs/a/intro.md" in (out / "alpha/docs/a/intro.md").read_text()
    assert "alpha/docs/b/intro.md" in (out / "alpha/docs/b/intro.md").read_text()


def test_markdown_names_that_collide_after_sanitising_get_distinct_files():
    from verifier.reporters.markdown import render_files

    from tests.cli.test_determinism import tiny_report

    report = tiny_report(lessons=["docs/a b.md", "docs/a-b.md", "docs/A-B.md"])
    names = list(render_files(report))
    assert len(set(n.casefold() for n in names)) == 3


def test_html_in_markdown_records_is_escaped(cli, proj):
    proj.claims("alpha", "intro", "docs/intro.md", body="""lesson = "docs/intro.md"
upstream = "demo"

[[claim]]
id = "xss"
fragment = "</script><script>alert(6)</script> [x](javascript:alert(1))"
kind = "symbol"
path = "include/demo.h"
symbol = "demo_step"
expected = true
""")
    out = proj.root / "out"
    cli(*proj.args("record", "--format", "markdown", "--out", f"{out}/"))
    text = (out / "alpha/docs/intro.md").read_text()
    assert "<script>" not in text and "</script>" not in text
    assert not re.search(r"(?<!\\)\]\(javascript:", text)   # `\]` is no link
    assert "&lt;script&gt;" in text


def test_sarif_locations_are_unique_per_course_and_percent_encoded(cli, proj):
    odd = 'docs/zz "<img src=x>" #1.md'
    for course in ("alpha", "beta"):
        proj.lesson(course, odd, lesson("f" * 40))   # a lint error in both courses
    code, out, err = cli(*proj.args("record", "--format", "sarif"))
    assert code == 1, err
    run = json.loads(out)["runs"][0]
    locs = {(r["properties"].get("course"),
             r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
             r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in run["results"] if r["ruleId"] == "VL101"}
    assert locs == {("alpha", "COURSE_alpha", "docs/zz%20%22%3Cimg%20src%3Dx%3E%22%20%231.md"),
                    ("beta", "COURSE_beta", "docs/zz%20%22%3Cimg%20src%3Dx%3E%22%20%231.md")}
    assert {"COURSE_alpha", "COURSE_beta"} <= set(run["originalUriBaseIds"])


def test_duplicate_claim_ids_give_distinct_results(cli, proj):
    body = (proj.root / "claims/alpha/intro.toml").read_text()
    proj.claims("alpha", "intro", "docs/intro.md",
                body=body + body[body.index("[[claim]]"):])  # every claim twice
    code, out, _ = cli(*proj.args("record", "--format", "sarif"))
    doc = json.loads(out)
    _, out_json, _ = cli(*proj.args("check", "--format", "json"))
    ids = [c["id"] for c in json.loads(out_json)["claims"]]
    assert len(ids) == 4 and len(set(ids)) == 4
    assert "alpha/intro/step-exists#2" in ids
    prints = [r["partialFingerprints"]["verifierClaim/v1"] for r in doc["runs"][0]["results"]
              if "verifierClaim/v1" in r["partialFingerprints"]]
    assert len(prints) == len(set(prints)) == 2  # the two duplicates are errors, distinct


def test_record_directory_gets_run_details(cli, proj):
    out = proj.root / "out"
    code, _, err = cli(*proj.args("record", "--format", "json", "--out", f"{out}/"))
    details = json.loads((out / "run.json").read_text())
    record = json.loads((out / "verification.json").read_text())
    assert details["details_version"] == 1 and "provider_messages" in details
    assert record["schema_version"] == 2
    assert "wrote out/verification.json" in err or "verification.json" in err


def test_verify_writes_every_verify_format(cli, proj):
    from verifier.reporters import SUFFIX, VERIFY_FORMATS

    out = proj.root / "out"
    code, stdout, err = cli(*proj.args("verify", "--out", str(out), "--runtime", "none"))
    assert code == 0, err
    for fmt in VERIFY_FORMATS:
        if fmt != "markdown":
            assert (out / f"verification{SUFFIX[fmt]}").is_file(), fmt
    assert (out / "alpha/docs/intro.md").is_file() and (out / "run.json").is_file()
    last = stdout.rstrip().splitlines()[-1]
    assert last.startswith("judged 2 lessons: 2 claims (2 verified)") and \
        last.endswith("exit 0 (clean)")
