"""The JSON verification record, built from a hermetic fixture project (a local upstream
repository, two courses that share a lesson name): contents, schema, excerpts,
determinism, exit codes, the `record` command. One smoke test runs on the real course."""

from __future__ import annotations

import hashlib
import json
import random

import jsonschema
import pytest

from tests.reporters.fixture_project import make_project
from verifier.cli.main import main
from verifier.exitcodes import ExitCode
from verifier.report import claim_gid, exit_code, report_schema
from verifier.report_builder import build_report
from verifier.reporters import render
from verifier.results import ClaimResult, Evidence, Finding, RuntimeResult, Severity, Verdict


@pytest.fixture
def fx(tmp_path, monkeypatch):
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    return make_project(tmp_path)


@pytest.fixture
def project(fx):
    return fx.load()


@pytest.fixture
def lessons(project):
    return project.lessons()


def _ev(project, path, lines, blob=None):
    sf = project.sources.resolve("demo", path)
    up = project.pins.get("demo")
    return Evidence(path=path, lines=lines, blob=blob or sf.blob, status=sf.status.value,
                    permalink=up.permalink(path, *lines) if lines else up.permalink(path),
                    provider=sf.provider)


@pytest.fixture
def stage_results(project):
    """Hand-made stage results on the fixture lessons: every verdict, every severity."""
    def c(course, cid, line, verdict, **kw):
        return ClaimResult(id=f"{course}/contact/{cid}", lesson="docs/contact.md", line=line,
                           upstream="demo", kind=kw.pop("kind", "symbol"), verdict=verdict,
                           course=course, **kw)

    claims = [
        c("alpha-atlas", "collide", 3, Verdict.VERIFIED, expected=True, symbol="demo_collide",
          fragment="`demo_collide` 计算两个几何体的距离",
          evidence=_ev(project, "src/collide.c", (2, 4)),
          runtime=RuntimeResult(status="confirmed", value=1, expected=1, duration_s=0.25)),
        c("alpha-atlas", "step-sig", 5, Verdict.DIVERGED, kind="signature",
          expected=["model", "data", "n"], actual=["model", "data"], symbol="step",
          fragment="`step(model, data)` 推进一步", message="parameters differ",
          evidence=_ev(project, "python/demo/api.py", (1, 3))),
        c("beta-atlas", "gone", 7, Verdict.UNAVAILABLE, expected=True, fragment="已删除",
          message="src/gone.c is unavailable", evidence=_ev(project, "src/gone.c", None)),
        c("beta-atlas", "old", None, Verdict.STALE, expected=True, fragment="不存在的句子"),
        c("beta-atlas", "broken", 3, Verdict.ERROR, message="claims/x.toml:7: symbol is "
          "required"),
    ]
    findings = [
        Finding(rule="permalink-pin", code="VL101", severity=Severity.ERROR,
                path="docs/contact.md", line=3, message="link pins another commit",
                upstream="demo", course="alpha-atlas"),
        Finding(rule="identifier", code="VL104", severity=Severity.WARNING,
                path="docs/contact.md", line=5, message="`stepx` is not in demo",
                upstream="demo", course="beta-atlas", target="stepx"),
        Finding(rule="permalink-anchor", code="VL103", severity=Severity.INFO,
                path="docs/guide/intro.md", line=3, message="fingerprint", course="beta-atlas"),
    ]
    return claims, findings


def _validate(data: dict) -> None:
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(data)


def test_record_validates_against_its_schema(project, lessons, stage_results):
    claims, findings = stage_results
    report = build_report(project, lessons=lessons, findings=findings, claims=claims,
                          sampling={"mode": "sample", "sampled": ["x"]})
    data = json.loads(render(report, "json"))
    _validate(data)
    assert data["schema_version"] == 2
    # the schema really constrains the record: a wrong version or a bad verdict fails
    bad = json.loads(json.dumps(data))
    bad["schema_version"] = 1
    with pytest.raises(jsonschema.ValidationError):
        _validate(bad)
    bad = json.loads(json.dumps(data))
    bad["claims"][0]["verdict"] = "probably-fine"
    with pytest.raises(jsonschema.ValidationError):
        _validate(bad)


def test_empty_record_validates(project, lessons):
    report = build_report(project, lessons=lessons, findings=None, claims=None)
    data = json.loads(render(report, "json"))
    _validate(data)
    stages = {n["stage"]: n["why"] for n in data["not_run"]}
    assert set(stages) == {"lint", "check", "runtime"}
    assert data["claims"] == [] and data["summary"]["exit_code"] == 0


def test_record_contents(fx, project, lessons, stage_results):
    claims, findings = stage_results
    report = build_report(project, lessons=lessons, findings=findings, claims=claims)
    data = json.loads(render(report, "json"))
    assert data["tool"] == {"name": "verifier", "version": __import__("verifier").__version__}
    assert data["timestamp"] is None
    pins = {u["name"]: u for u in data["pins"]["upstreams"]}
    assert pins["demo"]["commit"] == fx.upstream.head
    assert data["pins"]["sha256"] == hashlib.sha256(fx.pins.read_bytes()).hexdigest()
    assert data["lock"] == {"file": "pins.lock", "present": False, "sha256": None,
                            "upstreams": []}
    # how each course was read
    assert {c["name"]: (c["read_from"], c["partial"]) for c in data["pins"]["courses"]} == {
        "alpha-atlas": ("local", False), "beta-atlas": ("local", False)}
    # the sha256 of each lesson; the shared lesson name stays two lessons
    assert [(r["course"], r["path"]) for r in data["lessons"]] == [
        ("alpha-atlas", "docs/contact.md"), ("beta-atlas", "docs/contact.md"),
        ("beta-atlas", "docs/guide/intro.md")]
    for rec, doc in zip(data["lessons"], sorted(lessons, key=lambda d: (d.course, d.path))):
        assert rec["sha256"] == hashlib.sha256(doc.file.read_bytes()).hexdigest()
    # identity of every source file used: every cited file and every evidence file
    ids = {(s["upstream"], s["path"]): s for s in data["sources"]}
    assert set(ids) == {("demo", "src/collide.c"), ("demo", "python/demo/api.py"),
                        ("demo", "src/gone.c")}
    assert ids[("demo", "src/collide.c")]["blob"] == fx.upstream.blob("src/collide.c")
    assert ids[("demo", "src/collide.c")]["status"] == "pinned"
    assert ids[("demo", "src/gone.c")]["status"] == "unavailable"
    assert ids[("demo", "src/gone.c")]["detail"]   # why it is not served
    # every claim with its verdict and evidence; stable order
    assert len(data["claims"]) == len(claims)
    keys = [(c["course"], c["lesson"], c["line"] or 0, c["id"]) for c in data["claims"]]
    assert keys == sorted(keys)
    assert next(c for c in data["claims"] if c["verdict"] == "verified")["symbol"] == \
        "demo_collide"
    # runtime results: durations dropped without a timestamp (they differ run to run)
    rts = [c["runtime"] for c in data["claims"] if c["runtime"]]
    assert rts and all(r["duration_s"] is None for r in rts)
    assert data["runtime"]["ran"] == len(rts)
    # lint findings and the summary
    keys = [(f["course"], f["path"], f["line"], f["code"]) for f in data["findings"]]
    assert keys == sorted(keys) and len(keys) == len(findings)
    assert data["summary"]["exit_code"] == 1
    assert data["summary"]["reasons"] == ["1 claim diverged", "1 claim stale",
                                          "1 claim error", "1 lint error"]


def test_excerpts_sentence_and_source_at_pinned_identity(fx, project, lessons, stage_results):
    claims, findings = stage_results
    report = build_report(project, lessons=lessons, findings=findings, claims=claims)
    by_id = {c.id: c for c in report.claims}
    assert set(report.excerpts) == {claim_gid(c) for c in report.claims}
    x = report.excerpts["alpha-atlas/contact/collide"]
    assert x.sentence_line == 3 and "demo_collide" in x.sentence and "](" not in x.sentence
    assert x.snippet_start == 2 and x.snippet.splitlines()[0] == "int demo_collide(int a, int b) {"
    assert x.snippet_status == "pinned"
    # no source is shown for a file that is not served at pinned identity
    gone = report.excerpts["beta-atlas/contact/gone"]
    assert gone.snippet is None and "unavailable" in gone.snippet_note
    assert report.excerpts["beta-atlas/contact/old"].sentence is None   # fragment gone
    # evidence naming another blob than the one served: no snippet, said so
    wrong = by_id["alpha-atlas/contact/collide"].model_copy(update={
        "id": "alpha-atlas/contact/wrong",
        "evidence": _ev(project, "src/collide.c", (2, 4), blob="0" * 40)})
    report = build_report(project, lessons=lessons, findings=[], claims=[wrong])
    x = report.excerpts["alpha-atlas/contact/wrong"]
    assert x.snippet is None and x.snippet_note == "source unavailable at pinned identity"


def test_two_runs_are_byte_identical(fx, project, lessons, stage_results):
    claims, findings = stage_results
    a = render(build_report(project, lessons=lessons, findings=findings, claims=claims),
               "json")
    # a second run: fresh project (sources now served from the cache), shuffled inputs
    again = fx.load()
    rng = random.Random(7)
    c2, f2, l2 = list(claims), list(findings), again.lessons()
    rng.shuffle(c2)
    rng.shuffle(f2)
    rng.shuffle(l2)
    b = render(build_report(again, lessons=l2, findings=f2, claims=c2), "json")
    assert a.encode() == b.encode()


def test_timestamp_only_when_given(project, lessons, stage_results):
    claims, findings = stage_results
    r = build_report(project, lessons=lessons, findings=findings, claims=claims,
                     timestamp="2026-11-30T15:00:00Z")
    data = json.loads(render(r, "json"))
    assert data["timestamp"] == "2026-11-30T15:00:00Z"
    # durations stay out even with a timestamp: they are in run.json
    assert all(c["runtime"]["duration_s"] is None for c in data["claims"] if c["runtime"])


def _claim(verdict, **kw):
    return ClaimResult(id=kw.pop("id", "c"), lesson="docs/guide/intro.md", line=3,
                       upstream="demo", kind="enum", verdict=verdict, **kw)


@pytest.mark.parametrize("claims,findings,code", [
    ([], [], ExitCode.OK),
    ([_claim(Verdict.VERIFIED)], [], ExitCode.OK),
    ([_claim(Verdict.UNAVAILABLE)], [], ExitCode.OK),
    ([_claim(Verdict.DIVERGED)], [], ExitCode.FINDINGS),
    ([_claim(Verdict.STALE)], [], ExitCode.FINDINGS),
    ([_claim(Verdict.ERROR)], [], ExitCode.FINDINGS),
    ([_claim(Verdict.VERIFIED, runtime=RuntimeResult(status="confirmed"))], [], ExitCode.OK),
    ([], [Finding(rule="r", code="VL1", severity=Severity.WARNING, path="docs/guide/intro.md",
                  line=1, message="m")], ExitCode.OK),
    ([], [Finding(rule="r", code="VL1", severity=Severity.ERROR, path="docs/guide/intro.md",
                  line=1, message="m")], ExitCode.FINDINGS),
])
def test_exit_code(project, claims, findings, code):
    lessons = project.lessons()
    report = build_report(project, lessons=lessons, findings=findings, claims=claims,
                          excerpts=False)
    assert exit_code(report) == code
    assert report.summary.exit_code == code
    # a missing course is filled from the lesson path when only one course has it
    assert all(c.course == "beta-atlas" for c in report.claims)


# --------------------------------------------------------------------------- CLI


def test_schema_command(capsys):
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == report_schema()
    assert json.loads(out)["properties"]["schema_version"]["const"] == 2


def test_record_command_is_deterministic(fx, tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    code_a = main(["--pins", str(fx.pins), "-q", "record", "--out", str(a)])
    code_b = main(["--pins", str(fx.pins), "-q", "record", "--out", str(b)])
    assert code_a == code_b == 1
    assert a.read_bytes() == b.read_bytes()
    data = json.loads(a.read_text())
    _validate(data)
    assert data["summary"]["exit_code"] == code_a
    assert len(data["lessons"]) == 3
    assert [c["verdict"] for c in data["claims"]] == ["verified"]
    # the permalinks to a file absent at the pin, in both courses
    assert [(f["course"], f["code"], f["line"]) for f in data["findings"]
            if f["severity"] == "error"] == [("alpha-atlas", "VL102", 7), ("beta-atlas", "VL102", 7)]
    not_run = {n["stage"]: n["why"] for n in data["not_run"]}
    assert not_run == {"runtime": "not requested (--runtime none)"}


def test_record_command_timestamp_and_dir(fx, tmp_path):
    out = tmp_path / "rec"
    lesson = fx.root / "courses" / "beta-atlas" / "docs" / "contact.md"
    assert main(["--pins", str(fx.pins), "-q", "record", "--lesson", str(lesson),
                 "--timestamp", "2026-11-30T15:00:00Z", "--out", f"{out}/"]) == 1
    data = json.loads((out / "verification.json").read_text())
    assert data["timestamp"] == "2026-11-30T15:00:00Z"
    assert [(les["course"], les["path"]) for les in data["lessons"]] == [
        ("beta-atlas", "docs/contact.md")]


@pytest.mark.parametrize("args,needle", [
    (["record", "--timestamp", "yesterday"], "--timestamp 'yesterday' is not an ISO 8601"),
    (["record", "--lesson", "/nonexistent/lesson.md"],
     "lesson '/nonexistent/lesson.md' is neither a file nor <course>/<path>"),
    (["record", "--sample", "3"], "--sample needs --runtime sample"),
    (["record", "--runtime", "sample", "--sample", "2.5"], "fraction must be in (0, 1]"),
    (["record", "--format", "pdf"], "unknown format 'pdf'"),
    (["record", "--format", "json,sarif"], "several formats need --out DIR"),
    (["record", "--format", "json,sarif", "--out", "x.json"], "several formats need --out DIR"),
])
def test_record_usage_errors(fx, args, needle, capsys):
    assert main(["--pins", str(fx.pins), *args]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert needle in " ".join(err.split()) and "Traceback" not in err


def test_record_several_formats_in_one_run(fx, tmp_path, capsys):
    out = tmp_path / "v"
    code = main(["--pins", str(fx.pins), "-q", "record", "--format",
                 "json,sarif,junit,github,html", "--out", f"{out}/"])
    assert sorted(p.name for p in out.iterdir()) == ["run.json", "verification.html",
                                                     "verification.json", "verification.sarif",
                                                     "verification.xml"]
    data = json.loads((out / "verification.json").read_text())
    assert data["summary"]["exit_code"] == code
    stdout = capsys.readouterr().out  # annotations (if any) went to the log
    assert all(line.startswith("::") for line in stdout.splitlines())
    # the HTML page is the record's: re-rendered from the saved JSON it is the same
    from verifier.report import RunReport

    saved = RunReport.model_validate_json((out / "verification.json").read_text())
    assert render(saved, "html") == (out / "verification.html").read_text(encoding="utf-8")


def test_runtime_stage_is_called_with_paired_claims(project, monkeypatch):
    """--runtime sample: the pipeline hands the check's (loaded claim, result) pairs to the
    runtime stage, and the sampling record lands in the report (durations in run.json)."""
    from types import SimpleNamespace

    import verifier.claims.check as check
    import verifier.lint as lint
    import verifier.runtime as runtime
    from verifier import pipeline

    results = [_claim(Verdict.VERIFIED, id="beta-atlas/intro/a"),
               _claim(Verdict.VERIFIED, id="beta-atlas/intro/b")]
    pairs = [(SimpleNamespace(gid=r.id, claim=SimpleNamespace(runtime=None)), r)
             for r in results]
    seen = {}

    def fake_confirm(project, got, mode="sample", sample=None, seed=0):
        seen.update(mode=mode, sample=sample, seed=seed, ids=[lc.gid for lc, _ in got])
        out = [r.model_copy(update={"runtime": RuntimeResult(status="confirmed", value=1,
                                                              expected=1, duration_s=0.5)})
               for _, r in got]
        return out, {"mode": mode, "sampled": [lc.gid for lc, _ in got], "seed": seed}

    monkeypatch.setattr(lint, "run_lint", lambda p, ls, **kw: [])
    monkeypatch.setattr(check, "check_claims", lambda *a, **kw: pairs)
    monkeypatch.setattr(runtime, "confirm", fake_confirm)
    run = pipeline.run(project, pipeline.options(runtime="sample", sample="2", seed=5,
                                                 excerpts=False))
    assert seen == {"mode": "sample", "sample": 2, "seed": 5,
                    "ids": ["beta-atlas/intro/a", "beta-atlas/intro/b"]}
    report = run.report
    assert report.runtime.ran == 2 and report.runtime.statuses == {"confirmed": 2}
    assert report.runtime.sampling["seed"] == 5
    assert {c.id for c in report.claims} == {r.id for r in results}
    assert "runtime" not in {n.stage for n in report.not_run}
    assert {k: v.duration_s for k, v in run.details.checks.items()} == {
        r.id: 0.5 for r in results}


@pytest.mark.wheels
def test_real_course_smoke(course_dir, tmp_path, monkeypatch):
    """The repository's own pins.toml and course: `record` writes every format, the HTML
    has a section per lesson and a card per claim and finding."""
    import re

    from tests.conftest import PINS

    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")
    out = tmp_path / "out"
    code = main(["--pins", str(PINS), "-q", "record", "--format", "json,html,sarif,junit",
                 "--out", f"{out}/"])
    assert code in (0, 1)
    data = json.loads((out / "verification.json").read_text())
    _validate(data)
    assert data["summary"]["exit_code"] == code and data["lessons"]
    page = (out / "verification.html").read_text(encoding="utf-8")
    assert len(re.findall(r'<section class="lesson" ', page)) >= len(data["lessons"])
    assert page.count('<div class="card claim ') == len(data["claims"])
    assert page.count('<div class="card finding ') == len(data["findings"])


def test_published_schema_is_current():
    """docs/schema/record-<version>.schema.json is what `verifier schema` prints; a model
    change must regenerate it (and bump schema_version when old records would not fit)."""
    from tests.conftest import REPO
    from verifier.cli.schema_cmd import render_schema
    from verifier.report import SCHEMA_VERSION

    published = REPO / "docs" / "schema" / f"record-{SCHEMA_VERSION}.schema.json"
    assert published.read_text(encoding="utf-8") == render_schema(), (
        "regenerate with: verifier schema --out " + str(published.relative_to(REPO)))
