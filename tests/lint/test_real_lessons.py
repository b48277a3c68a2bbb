"""The rules on the five real lessons (pinned wheels from PyPI; git unreachable):
each catches a mutated copy and stays quiet on the unmutated text.

Mutated copies live in tmp dirs as `<tmp>/x/<course>/docs/<lesson>.md` (with the
course's other lessons beside them), so they belong to the same course."""

from __future__ import annotations

import shutil

import pytest

from verifier.lint import run_lint

pytestmark = pytest.mark.wheels

MJ = "9ea3cdfcae93bf2cc4dc0e1a1627c5a39a1e06e5"


def _copy(course_dir, tmp_path, course):
    dest = tmp_path / "x" / course / "docs"
    shutil.copytree(course_dir / course / "docs", dest)
    for f in dest.iterdir():
        f.chmod(0o644)
    return dest


def _lint(project, path):
    return run_lint(project, project.lessons([str(path)]))


def _errors(fs, rule):
    return [f for f in fs if f.severity == "error" and f.rule == rule]


def _mutated(course_dir, tmp_path, course, lesson, old, new):
    docs = _copy(course_dir, tmp_path, course)
    p = docs / lesson
    text = p.read_text(encoding="utf-8")
    assert old in text, old
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return docs / lesson, docs


CASES = [
    # (rule, course, lesson, old, new, expected text in the message)
    ("permalink-pin", "mujoco-atlas", "sensors-and-sampling.md",
     f"blob/{MJ}/include/mujoco/mjmodel.h#L814-L832",
     f"blob/{'2' * 40}/include/mujoco/mjmodel.h#L814-L832", "not pin"),
    ("permalink-target", "mujoco-atlas", "sensors-and-sampling.md",
     "mjmodel.h#L814-L832", "mjmodel.h#L814-L99999", "past the end"),
    ("permalink-target", "mujoco-atlas", "sensors-and-sampling.md",
     "mjmodel.h#L815-L830", "mjmodel.h#L830-L815", "reversed"),
    ("permalink-anchor", "mujoco-atlas", "sensors-and-sampling.md",
     "[输出地址](", "[mj_step 输出地址](", "`mj_step`"),
    ("identifier", "newton-atlas", "sensors-rendering.md",
     "`newton.intersect_ray(...)`", "`newton.intersect_rays(...)`", "intersect_rays"),
    ("version", "drake-atlas", "inertial-force-sensing.md",
     "Drake v1.57.0", "Drake v1.56.0", "1.56.0"),
    ("version", "mujoco-atlas", "state-and-time.md",
     "**MuJoCo 3.15.0", "**MuJoCo 3.16.0", "3.16.0"),
    ("codeblock", "mujoco-atlas", "sensors-and-sampling.md",
     "def read_sensor_block(model, data, name):", "def read_sensor_block(model, data, name)",
     "does not parse"),
    ("codeblock", "mujoco-atlas", "sensors-and-sampling.md",
     "mujoco.mjtObj.mjOBJ_SENSOR", "mujoco.mjtObj.mjOBJ_SENSORS", "mjOBJ_SENSORS"),
    ("relative-link", "mujoco-atlas", "sensors-and-sampling.md",
     "(state-and-time.md)", "(state-and-tme.md)", "state-and-tme.md"),
]


@pytest.mark.parametrize("rule,course,lesson,old,new,expect", CASES,
                         ids=[f"{c[0]}-{c[4][:24]}" for c in CASES])
def test_rule_catches_mutation_and_is_quiet_on_original(real_project, course_dir, tmp_path,
                                                        rule, course, lesson, old, new, expect):
    clean = _copy(course_dir, tmp_path / "clean", course) / lesson
    before = _errors(_lint(real_project, clean), rule)
    if rule == "permalink-anchor" and lesson == "state-and-time.md":
        before = [f for f in before if f.line not in (20, 89)]
    assert before == [], [f.message for f in before]
    path, _ = _mutated(course_dir, tmp_path / "bad", course, lesson, old, new)
    after = _errors(_lint(real_project, path), rule)
    assert after, f"{rule} missed the mutation {old!r} -> {new!r}"
    assert any(expect in f.message for f in after), [f.message for f in after]
    assert all(f.course == course and f.path == f"docs/{lesson}" for f in after)


def test_renamed_newton_api(real_project, course_dir, tmp_path):
    """Newton (and Warp) are fully available from their wheels: a renamed API is wrong,
    not unknown."""
    lesson = "sensors-rendering.md"
    clean = _copy(course_dir, tmp_path / "clean", "newton-atlas") / lesson
    assert _errors(_lint(real_project, clean), "identifier") == []
    path, _ = _mutated(course_dir, tmp_path / "bad", "newton-atlas", lesson,
                       "`newton.intersect_ray(...)`", "`newton.ray_intersect(...)`")
    es = _errors(_lint(real_project, path), "identifier")
    assert len(es) == 1 and "module `newton` has no `ray_intersect`" in es[0].message


def test_slip_of_a_public_c_name_is_an_error_on_its_line(real_project, course_dir, tmp_path):
    """MuJoCo's public C API (`include/mujoco/*.h`) is served whole by the pinned wheel:
    a near slip of a name it declares, that no index holds, is an error on its line
    with "did you mean" and the declaration's permalink (issue 28), although the
    engine .c files are not served."""
    path, _ = _mutated(course_dir, tmp_path, "mujoco-atlas", "state-and-time.md",
                       "`mj_resetDataKeyframe` 先重置", "`mj_resetDataKeyframes` 先重置")
    text = path.read_text(encoding="utf-8")
    line = text[:text.index("`mj_resetDataKeyframes`")].count("\n") + 1
    es = _errors(_lint(real_project, path), "identifier")
    assert [(f.line, f.target) for f in es] == [(line, "mj_resetDataKeyframes")]
    assert "did you mean `mj_resetDataKeyframe`" in es[0].message
    assert "include/mujoco/mujoco.h#L" in es[0].message and "include/mujoco/" in es[0].message


def test_far_rename_with_unserved_sources_is_unchecked_on_its_line(real_project, course_dir,
                                                                  tmp_path):
    """A name no slip away from any public name may be an engine-internal function of
    a .c file that is not served: unchecked (info, on its own line), never an error."""
    path, _ = _mutated(course_dir, tmp_path, "mujoco-atlas", "state-and-time.md",
                       "`mj_resetDataKeyframe` 先重置", "`mj_resetDataKeyframeQzx` 先重置")
    fs = _lint(real_project, path)
    assert _errors(fs, "identifier") == []
    items = [f for f in fs if f.rule == "source-unavailable" and f.severity == "info"
             and f.target == "mj_resetDataKeyframeQzx"]
    text = path.read_text(encoding="utf-8")
    line = text[:text.index("`mj_resetDataKeyframeQzx`")].count("\n") + 1
    assert [f.line for f in items] == [line]


# The known true errors on the whole course copy, from reading every finding: each
# is a permalink whose range cites only a blank line at the pin.
TRUE_ERRORS = [
    ("mujoco-atlas", "docs/dynamics-and-pipeline.md", 59, "permalink-anchor"),   # mjdata.h#L348
    ("mujoco-atlas", "docs/solvers-and-integration.md", 89, "permalink-anchor"),  # mjdata.h#L85
    ("mujoco-atlas", "docs/state-and-time.md", 20, "permalink-anchor"),          # mjmodel.h#L242
    ("mujoco-atlas", "docs/state-and-time.md", 89, "permalink-anchor"),          # mjtype.h#L507
]


def _whole_course(project):
    fs = run_lint(project, project.lessons())
    errs = sorted((f.course, f.path, f.line, f.rule) for f in fs if f.severity == "error")
    assert errs == TRUE_ERRORS, [(f.path, f.line, f.message) for f in fs if f.severity == "error"]
    assert all("cites only blank lines" in f.message for f in fs if f.severity == "error")
    # what cannot be checked is said, once per lesson and upstream; no other warning
    un = [(f.course, f.path, f.upstream) for f in fs if f.rule == "source-unavailable"
          and f.severity == "warning"]
    assert len(un) == len(set(un))
    other = [(f.path, f.line, f.message) for f in fs
             if f.severity == "warning" and f.rule != "source-unavailable"]
    assert other == []
    return fs


def test_whole_course(real_project):
    """Every lesson of the course copy (lessons, index and validation pages): only the
    true errors; what cannot be checked is said, once per lesson and upstream."""
    fs = _whole_course(real_project)
    un = [(f.course, f.path, f.upstream) for f in fs if f.rule == "source-unavailable"]
    assert ("drake-atlas", "docs/inertial-force-sensing.md", "drake") in un
    assert ("mujoco-atlas", "docs/sensors-and-sampling.md", "mujoco") in un
    fps = [f for f in fs if f.rule == "permalink-anchor" and f.fingerprint]
    assert len(fps) >= 200
    assert all(f.severity != "info" or f.data["status"] in ("pinned", "release") for f in fps)


def _unchecked(fs, course, lesson):
    return {i["target"]: i for f in fs if f.rule == "source-unavailable"
            and f.course == course and f.path == f"docs/{lesson}" and "unchecked" in f.data
            for items in f.data["unchecked"].values() for i in items}


def test_false_positive_classes_on_real_lessons(real_project):
    """The classes of issue 17 where the course has them: none is an error, and names
    that are not upstream identifiers are not even listed as unchecked."""
    fs = run_lint(real_project, real_project.lessons())
    errs = {(f.course, f.path, f.target) for f in fs if f.severity == "error"}
    not_upstream = {
        # builtins, std, other libraries, environment variables, formulas, examples
        ("newton-atlas", "contact-solvers-forces.md"): ["NotImplementedError",
                                                        "contact_force_fn"],
        ("newton-atlas", "control-robotics-tasks.md"): ["dwell_s", "timeout_s"],
        ("drake-atlas", "batch-lifecycle.md"): ["DRAKE_NUM_THREADS", "OMP_NUM_THREADS",
                                                "gil_scoped_release", "self.phase"],
        ("drake-atlas", "evidence/e4-validation.md"): ["future.wait", "ast.parse"],
        ("drake-atlas", "contact-solvers.md"): ["Ac.diagonal.cwiseInverse.cwiseSqrt"],
        ("drake-atlas", "modeling-state-time.md"): ["p_AoBo_A", "I_BBcm_E", "I_BP_E"],
        ("drake-atlas", "contact-observation.md"): ["sample_time_s", "query_time_s"],
        ("mujoco-atlas", "mjx-and-device-data.md"): ["jax.jit", "jp.where", "in_axes",
                                                     "block_until_ready"],
    }
    for (course, lesson), names in not_upstream.items():
        left = _unchecked(fs, course, lesson)
        for n in names:
            assert (course, f"docs/{lesson}", n) not in errs, n
            assert n not in left, (lesson, n, left.get(n))
    # slash alternatives and another pinned upstream's names resolve
    for course, lesson, n in [("newton-atlas", "control-robotics-tasks.md", "state.joint_qd"),
                              ("mujoco-atlas", "dynamics-and-pipeline.md", "data.efc_KBIP"),
                              ("newton-atlas", "contact-solvers-forces.md", "mj_step")]:
        assert n not in _unchecked(fs, course, lesson)
    assert not [f for f in fs if f.course == "newton-atlas" and f.target
                and "mj_step" in f.target and f.rule == "identifier"]
    # a near-miss on unserved sources is said, not made an error
    left = _unchecked(fs, "mujoco-atlas", "modeling-and-frames.md")
    assert "did you mean `compiler`" in left["spec.compile"]["why"]
    # commits of the course repository and of other projects are not judged
    assert not [f for f in fs if f.rule == "version"]


NEWTON = "713fecdc41caf0c9d726f5c016939f36e66e3dff"


def test_paths_absent_from_the_pinned_release_are_line_findings(real_project, course_dir,
                                                                 tmp_path):
    """Under a prefix the pinned wheel maps, a path the release lacks is a warning on
    its own line; a path nothing knows about stays in the lesson's unchecked summary."""
    gh = "https://github.com"
    path, _ = _mutated(course_dir, tmp_path, "mujoco-atlas", "state-and-time.md",
                       "/include/mujoco/mjmodel.h#L242", "/include/mujoco/mjmodel_x.h#L242")
    fs = _lint(real_project, path)
    w = [f for f in fs if f.rule == "permalink-target" and f.severity == "warning"]
    assert len(w) == 1 and w[0].line == 20 and "not in the pinned release" in w[0].message
    assert "mujoco==3.15.0" in w[0].message
    docs = _copy(course_dir, tmp_path / "n", "newton-atlas")
    p = docs / "paths-probe.md"
    p.write_text(
        "# 路径\n\n"
        f"[求解器]({gh}/newton-physics/newton/blob/{NEWTON}/newton/_src/solvers/solver_x.py#L1)\n\n"
        f"[文档]({gh}/newton-physics/newton/blob/{NEWTON}/docs/concepts/nope_x.rst#L3)\n",
        encoding="utf-8")
    fs = _lint(real_project, p)
    w = [(f.line, f.severity.value) for f in fs if f.rule == "permalink-target"]
    assert w == [(3, "warning")]
    un = [f for f in fs if f.rule == "source-unavailable" and "unchecked" in f.data]
    assert un and any(i["target"] == "docs/concepts/nope_x.rst"
                      for i in un[0].data["unchecked"]["permalink-target"])


DRAKE = "1e1466ba466e7ce8fa9fcca4e086ce1383e5427d"


def test_validation_pages_judge_the_upstream_commit_not_the_course_baselines(
        real_project, course_dir, tmp_path):
    """Drake's E-stage validation pages record the course's own `main` baselines (other
    runs' commits of the course repository, not of Drake): not judged. The official
    Drake commit the same pages give for the pinned version is judged: a changed last
    digit is an error on its line, spelled out in full (the pin shares its first 12)."""
    docs = _copy(course_dir, tmp_path, "drake-atlas")
    pages = sorted((docs / "evidence").glob("e*-validation.md"))
    assert len(pages) >= 6
    clean = run_lint(real_project, real_project.lessons([str(p) for p in pages]))
    assert not [f for f in clean if f.rule == "version"]
    page = docs / "evidence" / "e1-validation.md"
    text = page.read_text(encoding="utf-8")
    assert f"的提交为 `{DRAKE}`" in text
    bad = DRAKE[:-1] + "e"
    page.write_text(text.replace(f"的提交为 `{DRAKE}`", f"的提交为 `{bad}`", 1),
                    encoding="utf-8")
    es = _errors(_lint(real_project, page), "version")
    line = 1 + text[:text.index(f"的提交为 `{DRAKE}`")].count("\n")
    assert [f.line for f in es] == [line]
    assert bad in es[0].message and DRAKE in es[0].message


def test_permalink_citing_the_neighbouring_declaration_warns(real_project, course_dir,
                                                             tmp_path):
    """newcomer-2 F3: a range moved onto the next declaration of the same header
    (`mj_objectAcceleration` for a sentence about `mj_objectVelocity`) is a warning on
    the link's line, saying where the named one is; the unedited lesson has none."""
    clean = _copy(course_dir, tmp_path / "clean", "mujoco-atlas") / "state-and-time.md"
    assert not [f for f in _lint(real_project, clean) if f.rule == "permalink-relevance"]
    path, _ = _mutated(course_dir, tmp_path / "bad", "mujoco-atlas", "state-and-time.md",
                       "mujoco.h#L632)", "mujoco.h#L636-L638)")
    ws = [f for f in _lint(real_project, path) if f.rule == "permalink-relevance"]
    assert len(ws) == 1 and ws[0].severity == "warning"
    assert "`mj_objectAcceleration`" in ws[0].message and "`mj_objectVelocity`" in ws[0].message
    assert "mujoco.h#L633" in ws[0].message


@pytest.mark.parametrize("lesson,old,new,said", [
    ("state-and-time.md", "MuJoCo 3.15.0", "MuJoCo/MJX固定3.15.7树", "3.15.7"),
    ("state-and-time.md", "MuJoCo 3.15.0", "**MuJoCo** 阅读基线仍是 **3.15.8**", "3.15.8"),
    ("cpu-batching.md", "3.15 的 `FULLPHYSICS`", "3.16 的 `FULLPHYSICS`", "3.16"),
])
def test_version_slips_in_cjk_bold_and_bare(real_project, course_dir, tmp_path, lesson, old,
                                            new, said):
    """issue 28: a version touching CJK text, bold after pinned-source wording, or bare
    in a lesson of one upstream ("3.15 的实现")."""
    text = (course_dir / "mujoco-atlas" / "docs" / lesson).read_text("utf-8")
    if old not in text:
        pytest.skip(f"{old!r} not in the lesson any more")
    path, _ = _mutated(course_dir, tmp_path, "mujoco-atlas", lesson, old, new)
    es = [f for f in _errors(_lint(real_project, path), "version")]
    assert any(f.data.get("said") == said for f in es), es


def test_bare_numbers_that_are_no_versions_stay_out(real_project, course_dir, tmp_path):
    """A quantity, a constant, another library's number and a number the clause leaves
    to its own subject are not versions of the pinned upstream."""
    path, _ = _mutated(course_dir, tmp_path, "mujoco-atlas", "state-and-time.md",
                       "MuJoCo 3.15.0", "MuJoCo 3.15.0。取 3.14 的近似值。步长 3.16 s 即可。"
                       "Python 3.12 的 `ast` 可用。内嵌 pyproject 仍标3.14.0。")
    assert _errors(_lint(real_project, path), "version") == []


def test_more_identity_evidence_never_means_less_checking(course_dir, tmp_path):
    """issue 28's inverted gate: a lock that lists Newton files the wheel does not ship
    (docs, benchmarks: known, not served) makes the index incomplete; slips of names the
    wheel serves whole stay errors, with "did you mean"."""
    import os
    from pathlib import Path

    from verifier.project import load_project

    root = Path(__file__).resolve().parents[2]
    proj = tmp_path / "proj"
    proj.mkdir()
    pins = (root / "pins.toml").read_text(encoding="utf-8").replace(
        'path = "../shared/course/', f'path = "{course_dir}/')
    (proj / "pins.toml").write_text(pins, encoding="utf-8")
    lock = (root / "pins.lock").read_text(encoding="utf-8")
    head = "[upstream.newton.files]\n"
    assert head in lock
    n = int(lock.split("[upstream.newton]", 1)[1].split("count = ", 1)[1].split("\n", 1)[0])
    lock = lock.replace(f"count = {n}\n\n{head}", f"count = {n + 2}\n\n{head}"
                        f'"asv/benchmarks/bench_probe.py" = "{"1" * 40}"\n'
                        f'"docs/conf.py" = "{"2" * 40}"\n', 1)
    (proj / "pins.lock").write_text(lock, encoding="utf-8")
    os.environ["VERIFIER_PROVIDERS"] = "mirror,wheel,objects"
    try:
        project = load_project(proj / "pins.toml")
    finally:
        del os.environ["VERIFIER_PROVIDERS"]
    from verifier.facts.symbols import build_index

    assert not build_index(project, "newton").complete      # the lock made it partial
    path, _ = _mutated(course_dir, tmp_path, "newton-atlas", "sensors-rendering.md",
                       "`RenderConfig.max_distance`", "`RenderConfig.max_distanse`")
    es = _errors(_lint(project, path), "identifier")
    assert [f.target for f in es] == ["RenderConfig.max_distanse"], es
    assert "did you mean `max_distance`" in es[0].message
    assert "newton/ (" in es[0].message and "served whole" in es[0].message
