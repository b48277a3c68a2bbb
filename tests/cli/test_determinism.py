"""Reproducible records: the same inputs give the same verification.json whatever the
network did (provider messages) and however long runtime checks took; what differs
between runs goes to run.json."""

from __future__ import annotations

import itertools
import json

import pytest

import verifier.runtime as runtime
from tests.cli.conftest import lesson
from verifier import pipeline
from verifier.project import load_project
from verifier.report import (LessonRecord, LockInfo, PinsInfo, RunReport, RuntimeInfo, Summary,
                             ToolInfo)
from verifier.reporters import render
from verifier.results import RuntimeResult, Verdict
from verifier.sources.layer import SourceLayer


def tiny_report(lessons: list[str]) -> RunReport:
    """A record with only lessons (for reporter unit tests)."""
    return RunReport(
        tool=ToolInfo(version="0"), pins=PinsInfo(file="pins.toml", sha256=None, upstreams=[],
                                                  courses=[]),
        lock=LockInfo(file="pins.lock", present=False, sha256=None, upstreams=[]),
        lessons=[LessonRecord(course="c", path=p, sha256="0", upstreams=[]) for p in lessons],
        sources=[], runtime=RuntimeInfo(ran=0),
        summary=Summary(lessons=len(lessons), claims=0, verdicts={}, findings={}, sources={},
                        exit_code=0))


@pytest.fixture
def cited_missing(proj):
    """alpha also cites a file the pin does not have (an `unavailable` source)."""
    extra = (f"\nSee [gone](https://github.com/o/demo/blob/{proj.repo.head}/include/gone.h).\n")
    proj.lesson("alpha", "docs/intro.md", lesson(proj.repo.head, extra))
    return proj


def _record(proj, refresh: bool = False, **opts) -> tuple[str, str]:
    project = load_project(proj.pins, cache=proj.cache)
    project.config.refresh = refresh   # a warm run opens no provider unless refreshed
    run = pipeline.run(project, pipeline.options(**opts))
    return render(run.report, "json"), json.dumps(run.details.model_dump(mode="json"))


def test_provider_failures_do_not_change_the_record(cited_missing, monkeypatch):
    quiet_json, quiet_details = _record(cited_missing)

    real = SourceLayer._open_mirrors

    def failing_network(self, st, **kw):
        real(self, st, **kw)
        self._note(st, f"{st.up.name}: git fetch from {st.up.repo} failed: fatal: unable to "
                       "access: Could not resolve host: github.com; falling back")
    monkeypatch.setattr(SourceLayer, "_open_mirrors", failing_network)
    noisy_json, noisy_details = _record(cited_missing, refresh=True)

    assert noisy_json == quiet_json
    assert "Could not resolve host" not in noisy_json
    assert "Could not resolve host" in noisy_details and noisy_details != quiet_details
    rec = json.loads(noisy_json)
    gone = next(s for s in rec["sources"] if s["path"] == "include/gone.h")
    assert gone["status"] == "unavailable"
    notes = [n for n in rec["notes"] if n["upstream"] == "demo"]
    assert len(notes) == 1 and notes[0]["text"].startswith("1 of 2 files used is unavailable")


@pytest.fixture
def fake_runtime(monkeypatch):
    """`confirm` that confirms every claim, with a different duration and output each run."""
    ticks = itertools.count(1)

    def confirm(project, pairs, mode="sample", sample=None, seed=0):
        n = next(ticks)
        out = []
        for lc, res in pairs:
            out.append(res.model_copy(update={"runtime": RuntimeResult(
                status="confirmed", value=1, expected=1, duration_s=0.01 * n,
                stdout=f"took {n}.0 ms (cached) in /tmp/run-{n}", stderr="")}))
        record = {"mode": mode, "seed": seed, "sampled": len(pairs), "checks": [],
                  "environments": [{"upstream": "demo", "checks": len(pairs), "python": "3.12",
                                    "import_s": 0.1 * n, "wall_s": 0.2 * n}]}
        return out, record

    monkeypatch.setattr(runtime, "confirm", confirm)


def test_runtime_timings_stay_out_of_the_record(proj, fake_runtime):
    first, d1 = _record(proj, runtime="all")
    second, d2 = _record(proj, runtime="all")
    assert first == second
    assert "duration_s\": 0.0" not in first and "import_s" not in first and "took" not in first
    assert d1 != d2 and "import_s" in d1 and "took 1.0 ms" in d1


def test_runtime_on_or_off_changes_only_what_ran(proj, fake_runtime):
    off = json.loads(_record(proj)[0])
    on = json.loads(_record(proj, runtime="all")[0])
    for rec in (off, on):
        rec.pop("runtime")
        rec["not_run"] = [n for n in rec["not_run"] if n["stage"] != "runtime"]
        for c in rec["claims"]:
            c.pop("runtime")
    assert on == off


def test_two_cli_runs_give_byte_identical_records(cli, proj, fake_runtime):
    outs = []
    for i in range(2):
        out = proj.root / f"out{i}"
        code, _, err = cli(*proj.args("verify", "--out", str(out), "--runtime", "all"))
        assert code == 0, err
        outs.append(out)
    for name in ("verification.json", "verification.sarif", "verification.xml",
                 "verification.html", "alpha/docs/intro.md"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    assert (outs[0] / "run.json").read_bytes() != (outs[1] / "run.json").read_bytes()


def test_check_json_keeps_runtime_durations(cli, proj, fake_runtime):
    _, out, _ = cli(*proj.args("check", "--runtime", "all", "--format", "json"))
    doc = json.loads(out)
    assert all(isinstance(c["runtime"]["duration_s"], float) for c in doc["claims"])
    assert all(c["verdict"] == Verdict.VERIFIED for c in doc["claims"])


def test_a_saved_record_renders_again_in_every_format(proj):
    from verifier.reporters import FORMATS

    project = load_project(proj.pins, cache=proj.cache)
    report = pipeline.run(project, pipeline.options()).report
    saved = RunReport.model_validate_json(render(report, "json"))
    assert saved == report
    for fmt in FORMATS:
        assert render(saved, fmt) == render(report, fmt), fmt
    assert report.excerpts and all(e.sentence for e in report.excerpts.values())


def test_environments_are_built_before_lint_when_the_run_uses_them(proj, monkeypatch):
    """Lint's release surface includes introspection of the pinned environments, so a
    run that builds them (runtime all/sample) builds them before lint: a fresh machine's
    first run lints against the same surface as every later run. `--runtime none`
    builds nothing."""
    import verifier.lint as lint_mod

    project = load_project(proj.pins, cache=proj.cache)
    up = project.pins.upstream["demo"]
    project.pins.upstream["demo"] = up.model_copy(update={"runtime": ["demo-pkg==1.0"]})
    order: list[str] = []
    monkeypatch.setattr(runtime, "create_env",
                        lambda store, spec, **kw: order.append(f"env {spec.upstream}"))
    real_lint = lint_mod.run_lint

    def lint(*a, **kw):
        order.append("lint")
        return real_lint(*a, **kw)

    monkeypatch.setattr(lint_mod, "run_lint", lint)
    monkeypatch.setattr(runtime, "confirm",
                        lambda project, pairs, **kw: ([r for _, r in pairs], {"checks": []}))
    pipeline.run(project, pipeline.options(runtime="all"))
    assert order == ["env demo", "lint"]
    order.clear()
    pipeline.run(project, pipeline.options(runtime="none"))
    assert order == ["lint"]


def test_an_environment_that_cannot_be_built_is_left_to_the_runtime_stage(proj, monkeypatch):
    project = load_project(proj.pins, cache=proj.cache)
    up = project.pins.upstream["demo"]
    project.pins.upstream["demo"] = up.model_copy(update={"runtime": ["demo-pkg==1.0"]})

    def fail(store, spec, **kw):
        raise runtime.RuntimeEnvError("no index reachable")

    monkeypatch.setattr(runtime, "create_env", fail)
    assert runtime.prepare_environments(project) == ["demo"]
