"""The JSON verification record: contents, schema, determinism, exit codes, CLI."""

from __future__ import annotations

import hashlib
import json
import random

import jsonschema
import pytest

from tests.reporters.report_fixtures import made_claims, made_findings
from verifier.cli.main import main
from verifier.exitcodes import ExitCode
from verifier.report import build_report, exit_code_for, report_schema
from verifier.reporters import render
from verifier.results import ClaimResult, Finding, RuntimeResult, Severity, Verdict

pytestmark = pytest.mark.wheels


@pytest.fixture
def lessons(real_project):
    return real_project.lessons()


@pytest.fixture
def stage_results(real_project, lessons):
    return made_claims(real_project, lessons), made_findings(lessons)


def _validate(data: dict) -> None:
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(data)


def test_record_validates_against_its_schema(real_project, lessons, stage_results):
    claims, findings = stage_results
    report = build_report(real_project, lessons=lessons, findings=findings, claims=claims,
                          sampling={"mode": "sample", "sampled": ["x"]})
    data = json.loads(render(report, "json"))
    _validate(data)
    assert data["schema_version"] == 1
    # the schema really constrains the record: a wrong version or a bad verdict fails
    bad = json.loads(json.dumps(data))
    bad["schema_version"] = 2
    with pytest.raises(jsonschema.ValidationError):
        _validate(bad)
    bad = json.loads(json.dumps(data))
    bad["claims"][0]["verdict"] = "probably-fine"
    with pytest.raises(jsonschema.ValidationError):
        _validate(bad)


def test_empty_record_validates(real_project, lessons):
    report = build_report(real_project, lessons=lessons, findings=None, claims=None)
    data = json.loads(render(report, "json"))
    _validate(data)
    stages = {n["stage"]: n["why"] for n in data["not_run"]}
    assert set(stages) == {"lint", "check", "runtime"}
    assert data["claims"] == [] and data["summary"]["exit_code"] == 0


def test_record_contents(real_project, lessons, stage_results):
    claims, findings = stage_results
    report = build_report(real_project, lessons=lessons, findings=findings, claims=claims)
    data = json.loads(render(report, "json"))
    assert data["tool"] == {"name": "verifier", "version": __import__("verifier").__version__}
    assert data["timestamp"] is None
    pins = {u["name"]: u for u in data["pins"]["upstreams"]}
    assert pins["mujoco"]["commit"] == real_project.pins.get("mujoco").commit
    assert pins["newton"]["wheels"] == ["newton==1.6.1"]
    assert data["pins"]["sha256"] == hashlib.sha256(real_project.pins.path.read_bytes()).hexdigest()
    assert data["lock"]["present"] and data["lock"]["sha256"] == hashlib.sha256(
        real_project.lock_path.read_bytes()).hexdigest()
    assert all(u["matches_pin"] for u in data["lock"]["upstreams"])
    # the sha256 of each lesson
    assert len(data["lessons"]) == 5
    for rec, doc in zip(data["lessons"], sorted(lessons, key=lambda d: (d.course, d.path))):
        assert rec["sha256"] == hashlib.sha256(doc.file.read_bytes()).hexdigest()
    # identity of every source file used: every cited file and every evidence file
    ids = {(s["upstream"], s["path"]): s for s in data["sources"]}
    for u, p in real_project.cited_files(lessons):
        assert (u, p) in ids
    for c in claims:
        if c.evidence:
            s = ids[(c.upstream, c.evidence.path)]
            assert s["status"] == c.evidence.status
            if s["status"] in ("pinned", "release"):
                assert s["blob"] == c.evidence.blob and s["provider"]
            else:
                assert s["detail"]  # why it is not served
    assert {s["status"] for s in data["sources"]} >= {"pinned", "unavailable"}
    # every claim with its verdict, evidence and permalink; stable order
    assert len(data["claims"]) == len(claims)
    diverged = [c for c in data["claims"] if c["verdict"] == "diverged"]
    assert diverged and all(c["evidence"]["permalink"].startswith("https://github.com/")
                            for c in diverged)
    keys = [(c["course"], c["lesson"], c["line"], c["id"]) for c in data["claims"]]
    assert keys == sorted(keys)
    # runtime results: durations dropped without a timestamp (they differ run to run)
    rts = [c["runtime"] for c in data["claims"] if c["runtime"]]
    assert rts and all(r["duration_s"] is None for r in rts)
    assert data["runtime"]["ran"] == len(rts)
    # lint findings and the summary
    keys = [(f["course"], f["path"], f["line"], f["code"]) for f in data["findings"]]
    assert keys == sorted(keys) and len(keys) == len(findings)
    assert data["summary"]["exit_code"] == 1
    assert any("lint error" in r for r in data["summary"]["reasons"])
    assert data["summary"]["verdicts"]["unavailable"] == sum(
        1 for c in claims if c.verdict is Verdict.UNAVAILABLE)


def test_two_runs_are_byte_identical(real_project, lessons, stage_results):
    claims, findings = stage_results
    a = render(build_report(real_project, lessons=lessons, findings=findings, claims=claims),
               "json")
    # a second run: fresh project (sources now served from the cache), shuffled inputs
    from tests.conftest import PINS
    import os

    from verifier.project import load_project

    os.environ["VERIFIER_PROVIDERS"] = "mirror,wheel,objects"
    try:
        again = load_project(PINS)
    finally:
        del os.environ["VERIFIER_PROVIDERS"]
    rng = random.Random(7)
    c2, f2, l2 = list(claims), list(findings), again.lessons()
    rng.shuffle(c2)
    rng.shuffle(f2)
    rng.shuffle(l2)
    b = render(build_report(again, lessons=l2, findings=f2, claims=c2), "json")
    assert a.encode() == b.encode()
    assert json.loads(a) == json.loads(b)


def test_timestamp_only_when_given(real_project, lessons, stage_results):
    claims, findings = stage_results
    r = build_report(real_project, lessons=lessons, findings=findings, claims=claims,
                     timestamp="2026-11-30T15:00:00Z")
    data = json.loads(render(r, "json"))
    assert data["timestamp"] == "2026-11-30T15:00:00Z"
    assert any(c["runtime"] and c["runtime"]["duration_s"] == 0.25 for c in data["claims"])


def _claim(verdict, **kw):
    return ClaimResult(id=kw.pop("id", "c"), lesson="docs/state-and-time.md", line=3,
                       upstream="mujoco", kind="enum", verdict=verdict,
                       course="mujoco-atlas", **kw)


@pytest.mark.parametrize("claims,findings,code", [
    ([], [], ExitCode.OK),
    ([_claim(Verdict.VERIFIED)], [], ExitCode.OK),
    ([_claim(Verdict.UNAVAILABLE)], [], ExitCode.OK),
    ([_claim(Verdict.DIVERGED)], [], ExitCode.FINDINGS),
    ([_claim(Verdict.STALE)], [], ExitCode.FINDINGS),
    ([_claim(Verdict.ERROR)], [], ExitCode.FINDINGS),
    ([_claim(Verdict.VERIFIED, runtime=RuntimeResult(status="confirmed"))], [], ExitCode.OK),
    ([], [Finding(rule="r", code="VL1", severity=Severity.WARNING, path="docs/state-and-time.md",
                  line=1, message="m")], ExitCode.OK),
    ([], [Finding(rule="r", code="VL1", severity=Severity.ERROR, path="docs/state-and-time.md",
                  line=1, message="m")], ExitCode.FINDINGS),
])
def test_exit_code_for(real_project, claims, findings, code):
    lessons = [d for d in real_project.lessons() if d.path == "docs/state-and-time.md"]
    report = build_report(real_project, lessons=lessons, findings=findings, claims=claims,
                          excerpts=False)
    assert exit_code_for(report) == code
    assert report.summary.exit_code == code
    # a missing course is filled from the lesson path when only one course has it
    assert all(c.course == "mujoco-atlas" for c in report.claims)


# --------------------------------------------------------------------------- CLI

def _cli(*args) -> int:
    from tests.conftest import PINS

    return main(["--pins", str(PINS), *args])


@pytest.fixture
def wheel_providers(monkeypatch):
    monkeypatch.setenv("VERIFIER_PROVIDERS", "mirror,wheel,objects")


def test_schema_command(capsys):
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == report_schema()
    assert json.loads(out)["properties"]["schema_version"]["const"] == 1


def test_record_command_is_deterministic(tmp_path, wheel_providers, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    code_a = _cli("-q", "record", "--out", str(a))
    code_b = _cli("-q", "record", "--out", str(b))
    assert code_a == code_b and code_a in (0, 1)
    assert a.read_bytes() == b.read_bytes()
    data = json.loads(a.read_text())
    _validate(data)
    assert data["summary"]["exit_code"] == code_a
    assert len(data["lessons"]) == 5
    # a stage that is in this build ran; one that is not says so (never silently absent)
    from verifier.cli.record_cmd import stage

    not_run = {n["stage"]: n["why"] for n in data["not_run"]}
    for name, mod, func in [("lint", "verifier.lint", "run_lint"),
                            ("check", "verifier.claims.check", "run_check")]:
        assert (name in not_run) == (stage(mod, func) is None)
    assert not_run["runtime"] == "not requested (--runtime none)"


def test_record_command_timestamp_and_dir(tmp_path, wheel_providers):
    out = tmp_path / "rec"
    assert _cli("-q", "record", "--lesson",
                str(_lesson_file("mujoco-atlas", "state-and-time.md")),
                "--timestamp", "2026-11-30T15:00:00Z", "--out", f"{out}/") in (0, 1)
    data = json.loads((out / "verification.json").read_text())
    assert data["timestamp"] == "2026-11-30T15:00:00Z"
    assert [les["path"] for les in data["lessons"]] == ["docs/state-and-time.md"]


def _lesson_file(course, name):
    from tests.conftest import COURSE

    return COURSE / course / "docs" / name


@pytest.mark.parametrize("args,needle", [
    (["record", "--timestamp", "yesterday"], "--timestamp 'yesterday' is not an ISO 8601"),
    (["record", "--lesson", "/nonexistent/lesson.md"], "lesson /nonexistent/lesson.md does not"),
    (["record", "--sample", "3"], "--sample needs --runtime sample"),
    (["record", "--runtime", "sample", "--sample", "2.5"], "a fraction must be in (0, 1]"),
])
def test_record_usage_errors(args, needle, wheel_providers, capsys):
    assert _cli(*args) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert needle in " ".join(err.split()) and "Traceback" not in err


@pytest.mark.parametrize("args,needle", [
    (["record", "--format", "pdf"], "unknown format pdf"),
    (["record", "--format", "json,sarif"], "several formats need --out DIR"),
    (["record", "--format", "json,sarif", "--out", "x.json"], "several formats need --out DIR"),
])
def test_record_bad_format_is_usage_error(args, needle, capsys):
    assert _cli(*args) == ExitCode.USAGE
    assert needle in capsys.readouterr().err


def test_record_several_formats_in_one_run(tmp_path, wheel_providers, capsys):
    lesson = str(_lesson_file("newton-atlas", "sensors-rendering.md"))
    out = tmp_path / "v"
    code = _cli("-q", "record", "--lesson", lesson, "--format", "json,sarif,junit,github,html",
                "--out", f"{out}/")
    assert sorted(p.name for p in out.iterdir()) == ["verification.html", "verification.json",
                                                     "verification.sarif", "verification.xml"]
    data = json.loads((out / "verification.json").read_text())
    assert data["summary"]["exit_code"] == code
    stdout = capsys.readouterr().out  # annotations (if any) went to the log
    assert all(line.startswith("::") for line in stdout.splitlines())


def test_runtime_stage_is_called_with_paired_claims(real_project, monkeypatch):
    """--runtime sample: check results are paired with their loaded claims by global id,
    handed to the runtime contract, and the sampling record lands in the report."""
    from dataclasses import dataclass

    from verifier.cli import record_cmd

    @dataclass
    class Loaded:  # the LoadedClaim fields the pairing uses
        gid: str
        course: str
        lesson: str
        claim: object

    lessons = [d for d in real_project.lessons() if d.path == "docs/state-and-time.md"]
    results = [_claim(Verdict.VERIFIED, id="mujoco-atlas/state-and-time/a"),
               _claim(Verdict.VERIFIED, id="mujoco-atlas/state-and-time/b"),
               _claim(Verdict.UNAVAILABLE, id="orphan")]
    from types import SimpleNamespace

    loaded = [Loaded(r.id, "mujoco-atlas", "docs/state-and-time.md",
                     SimpleNamespace(id=r.id.rsplit("/", 1)[-1])) for r in results[:2]]
    seen = {}

    def fake_confirm(project, pairs, mode="sample", sample=None, seed=0):
        seen.update(mode=mode, sample=sample, seed=seed, ids=[lc.gid for lc, _ in pairs])
        out = [r.model_copy(update={"runtime": RuntimeResult(status="confirmed", value=1,
                                                              expected=1, duration_s=0.5)})
               for _, r in pairs]
        return out, {"mode": mode, "sampled": [lc.gid for lc, _ in pairs], "seed": seed}

    fakes = {("verifier.lint", "run_lint"): lambda p, ls: [],
             ("verifier.claims.check", "run_check"): lambda p, lessons, upstream: results,
             ("verifier.runtime", "confirm"): fake_confirm,
             ("verifier.claims.loader", "load_claims"): lambda p, ls: loaded}
    monkeypatch.setattr(record_cmd, "stage", lambda mod, func: fakes[(mod, func)])
    kw = record_cmd.collect(real_project, lessons, runtime="sample", sample=2, seed=5)
    assert seen == {"mode": "sample", "sample": 2, "seed": 5,
                    "ids": ["mujoco-atlas/state-and-time/a", "mujoco-atlas/state-and-time/b"]}
    report = build_report(real_project, lessons=lessons, excerpts=False, **kw)
    assert report.runtime.ran == 2 and report.runtime.statuses == {"confirmed": 2}
    assert report.runtime.sampling["seed"] == 5
    assert {c.id for c in report.claims} == {r.id for r in results}  # the orphan is kept
    assert "runtime" not in {n.stage for n in report.not_run}
    # a stage missing from the build is reported as not run, with the reason
    fakes[("verifier.runtime", "confirm")] = None
    kw = record_cmd.collect(real_project, lessons, runtime="all")
    assert any(n["stage"] == "runtime" and "not in this build" in n["why"]
               for n in kw["not_run"])


def test_published_schema_is_current():
    """docs/schema/record-<version>.schema.json is what `verifier schema` prints; a model
    change must regenerate it (and bump schema_version when old records would not fit)."""
    from tests.conftest import REPO
    from verifier.cli.schema_cmd import render_schema
    from verifier.report import SCHEMA_VERSION

    published = REPO / "docs" / "schema" / f"record-{SCHEMA_VERSION}.schema.json"
    assert published.read_text(encoding="utf-8") == render_schema(), (
        "regenerate with: verifier schema --out " + str(published.relative_to(REPO)))
