"""The reporters' input: a hand-made verification record shaped like a real course run.

Reporters are pure functions of a `RunReport`, so their tests read
`tests/fixtures/reporters/record.json` (never the real course, the network or PyPI).
That file is written by `build()` below; every text in it is this project's own writing
(the lesson sentences and source lines are invented, shaped like the real ones).

It holds: three courses, a lesson path shared by two courses (docs/contact-models.md in
mujoco-atlas and drake-atlas), a nested lesson path, a lesson with nothing in it, every
verdict, every lint severity (and a finding outside any lesson: lint.toml), sources of
every status, runtime results, several unavailable claims sharing one cause, and a
stage that did not run.

Regenerate after a record-model change (then review the diff of the goldens):

    VERIFIER_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/reporters -q
"""

from __future__ import annotations

from pathlib import Path

from verifier.report import (Excerpt, LessonRecord, LockedInfo, LockInfo, NotRun, PinnedCourse,
                             PinnedUpstream, PinsInfo, RunReport, RuntimeInfo, SourceIdentity,
                             Summary, ToolInfo, exit_status)
from verifier.report_builder import source_notes
from verifier.results import (ClaimResult, Evidence, Finding, RuntimeResult, Severity,
                              Verdict)

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "reporters" / "record.json"

MJ = "9ea3cdfcae93bf2cc4dc0e1a1627c5a39a1e06e5"
DR = "1e1466ba466e7ce8fa9fcca4e086ce1383e5427d"
NW = "713fecdc41caf0c9d726f5c016939f36e66e3dff"
WP = "f2eaed82d8d03b37bf1014cc975954067fefcf16"
REPOS = {"mujoco": ("https://github.com/google-deepmind/mujoco", MJ),
         "drake": ("https://github.com/RobotLocomotion/drake", DR),
         "newton": ("https://github.com/newton-physics/newton", NW)}

# The same provider failures hit every file of an upstream that no provider holds.
MJ_CAUSE = ("mujoco: git fetch from https://github.com/google-deepmind/mujoco failed: fatal: "
            "unable to access 'https://github.com/google-deepmind/mujoco/': Could not resolve "
            "host: github.com; falling back to other providers; mujoco: mirror "
            "/srv/snapshots/mujoco.git lacks commit 9ea3cdf; using it only for blob lookup")
DR_CAUSE = ("no wheel maps this upstream; drake: git fetch from "
            "https://github.com/RobotLocomotion/drake failed: fatal: unable to access "
            "'https://github.com/RobotLocomotion/drake/': Could not resolve host: github.com; "
            "falling back to other providers")


def blob(n: int) -> str:
    return f"{n:040x}"


def sha(n: int) -> str:
    return f"{n:064x}"


def link(up: str, path: str, a: int | None = None, b: int | None = None) -> str:
    base, commit = REPOS[up]
    url = f"{base}/blob/{commit}/{path}"
    if a is not None:
        url += f"#L{a}" + (f"-L{b}" if b and b != a else "")
    return url


def ev(up: str, path: str, lines: tuple[int, int] | None, n: int, status: str = "pinned",
       provider: str | None = "wheel") -> Evidence:
    return Evidence(path=path, lines=lines, blob=blob(n), status=status,
                    permalink=link(up, path, *(lines or (None, None))),
                    provider=provider if status in ("pinned", "release") else None)


def claim(course: str, lesson: str, cid: str, line: int | None, up: str, kind: str,
          verdict: Verdict, **kw) -> ClaimResult:
    stem = lesson.rsplit("/", 1)[-1].removesuffix(".md")
    return ClaimResult(id=f"{course}/{stem}/{cid}", lesson=lesson, line=line, upstream=up,
                       kind=kind, verdict=verdict, course=course, **kw)


MJ_C = "mujoco-atlas"
DR_C = "drake-atlas"
NW_C = "newton-atlas"
CONTACT = "docs/contact-models.md"


def _claims() -> list[ClaimResult]:
    unav = "src/engine/engine_collision_demo.c is unavailable at 9ea3cdf: no provider holds blob "
    return [
        # mujoco-atlas/docs/contact-models.md
        claim(MJ_C, CONTACT, "cone-values", 12, "mujoco", "enum", Verdict.VERIFIED,
              expected=["mjCONE_PYRAMIDAL", "mjCONE_ELLIPTIC"],
              actual=["mjCONE_PYRAMIDAL", "mjCONE_ELLIPTIC"], symbol="mjtCone",
              options={"compare": "names"}, fragment="`mjCONE_PYRAMIDAL` 与 `mjCONE_ELLIPTIC`",
              evidence=ev("mujoco", "include/mujoco/mjmodel.h", (40, 43), 11),
              runtime=RuntimeResult(status="confirmed", value=1, expected=1)),
        claim(MJ_C, CONTACT, "contact-fields", 18, "mujoco", "members", Verdict.DIVERGED,
              expected=["dist", "pos", "frame", "solref"], actual=["dist", "pos", "frame"],
              symbol="mjContact", options={"match": "subset"},
              message="`solref` is not a member of mjContact at the pin",
              fragment="`mjContact` 记录 dist/pos/frame/solref",
              evidence=ev("mujoco", "include/mujoco/mjdata.h", (60, 66), 12)),
        claim(MJ_C, CONTACT, "margin-note", 25, "mujoco", "text", Verdict.VERIFIED,
              expected=True, options={"pattern": r"margin\s+-\s+gap", "flags": "i"},
              fragment="有效距离是 margin - gap",
              evidence=ev("mujoco", "python/mujoco/contact_demo.py", (5, 5), 13)),
        *[claim(MJ_C, CONTACT, f"narrowphase-{i}", 30 + i, "mujoco", "call_order",
                Verdict.UNAVAILABLE, expected=["mj_collideGeoms", "mj_makeContact"],
                symbol=f"mj_collide{i}", message=unav + blob(20) + "; " + MJ_CAUSE,
                fragment=f"第 {i} 步窄相",
                evidence=ev("mujoco", "src/engine/engine_collision_demo.c", None, 20,
                            status="unavailable"))
          for i in range(1, 4)],
        # mujoco-atlas/docs/state-and-time.md: all verified
        claim(MJ_C, "docs/state-and-time.md", "state-physics", 8, "mujoco", "enum",
              Verdict.VERIFIED, expected=30, actual=30, symbol="mjSTATE_PHYSICS",
              options={"value": "composition"}, fragment="`mjSTATE_PHYSICS` 由四个分量组成",
              evidence=ev("mujoco", "include/mujoco/mjtype.h", (90, 96), 14),
              runtime=RuntimeResult(status="confirmed", value=30, expected=30)),
        claim(MJ_C, "docs/state-and-time.md", "timestep-default", 14, "mujoco", "default",
              Verdict.VERIFIED, expected="0.002", actual="0.002", symbol="mjOption.timestep",
              fragment="默认 `timestep` 为 0.002",
              evidence=ev("mujoco", "python/mujoco/state_demo.py", (12, 14), 15, "release"),
              runtime=RuntimeResult(status="skipped", message="not in the runtime sample")),
        # drake-atlas/docs/contact-models.md (same path as in mujoco-atlas)
        claim(DR_C, CONTACT, "hydro-modulus", 9, "drake", "signature", Verdict.VERIFIED,
              expected=["properties", "modulus"], actual=["properties", "modulus"],
              symbol="AddCompliantHydroelasticProperties", options={"defaults": False},
              fragment="`AddCompliantHydroelasticProperties(properties, modulus)`",
              evidence=ev("drake", "geometry/proximity_properties.h", (101, 104), 16,
                          provider="objects")),
        claim(DR_C, CONTACT, "point-contact-old", None, "drake", "symbol", Verdict.STALE,
              expected=True, symbol="PointContactModel",
              message="fragment '旧的点接触模型' is no longer in drake-atlas/docs/contact-models.md "
                      "(claims/drake-atlas/contact-models.toml:14)", fragment="旧的点接触模型"),
        claim(DR_C, CONTACT, "needs-friction", 23, "drake", "runtime", Verdict.DIVERGED,
              expected=[True, True], actual=[False, False],
              fragment="没有摩擦系数的几何体会被拒绝",
              note="the demo world fills in a default friction for a geometry that gives "
                   "none, so both geometries are accepted (checked at runtime)",
              runtime_code="world = demo_world()\nresult = [world.rejects(g) for g in "
                           "('box', 'ball')]\n",
              runtime=RuntimeResult(status="refuted", value=[False, False],
                                    expected=[True, True],
                                    message="runtime value differs: false != true at [0]")),
        claim(DR_C, CONTACT, "bad-kind", 20, "drake", "symbl", Verdict.ERROR,
              message="claims/drake-atlas/contact-models.toml:22: unknown kind 'symbl' (known: "
                      "branch, call_order, cases, default, ...)", fragment="`ContactModel`"),
        *[claim(DR_C, CONTACT, f"solver-{i}", 40 + i, "drake", "branch", Verdict.UNAVAILABLE,
                expected=["SapSolver"], symbol="CompliantContactManager::DoCalc",
                message=f"multibody/contact_solvers/sap_demo_{i}.cc is unavailable at 1e1466b: "
                        f"no provider holds blob {blob(30 + i)}; " + DR_CAUSE,
                fragment=f"SAP 第 {i} 个分支",
                evidence=ev("drake", f"multibody/contact_solvers/sap_demo_{i}.cc", None,
                            30 + i, status="unavailable"))
          for i in (1, 2)],
        # newton-atlas/docs/sensors-rendering.md
        claim(NW_C, "docs/sensors-rendering.md", "frame-index", 33, "newton", "expression",
              Verdict.DIVERGED, expected="self._frame + 1", actual="self._frame_index",
              symbol="ViewerDemo.begin_frame", message="`self._frame` in "
              "ViewerDemo.begin_frame differs", fragment="帧号每次加一",
              evidence=ev("newton", "newton/_src/viewer/viewer_demo.py", (70, 74), 17)),
        claim(NW_C, "docs/sensors-rendering.md", "render-order", 41, "newton", "call_order",
              Verdict.VERIFIED, expected=["begin_frame", "log_state", "end_frame"],
              actual=["begin_frame", "log_state", "end_frame"], symbol="ViewerDemo.step",
              fragment="先 `begin_frame` 再 `end_frame`",
              evidence=ev("newton", "newton/_src/viewer/viewer_demo.py", (80, 88), 17)),
        claim(NW_C, "docs/sensors-rendering.md", "cases-mode", 47, "newton", "cases",
              Verdict.VERIFIED, expected={"labels": ["RGB", "DEPTH"], "default": "raise"},
              actual={"labels": ["RGB", "DEPTH"], "default": "raise"}, symbol="render_mode",
              fragment="只有 RGB 与 DEPTH 两种模式",
              evidence=ev("newton", "newton/_src/sensors/camera_demo.py", (20, 31), 18)),
        claim(NW_C, "docs/sensors-rendering.md", "warp-launch", 52, "warp", "runtime",
              Verdict.VERIFIED, expected=3, actual=3,
              fragment="`wp.launch` 的 dim 为 3",
              runtime=RuntimeResult(status="refuted", value=2, expected=3,
                                    message="result 2 != expected 3")),
        claim(NW_C, "docs/sensors-rendering.md", "tiled-camera", 58, "newton", "symbol",
              Verdict.UNAVAILABLE, expected=True, symbol="TiledCameraDemo",
              message="newton/_src/sensors/tiled_demo.py is mismatch at 713fecd: served blob "
                      f"{blob(40)} is not the pin's {blob(19)}", fragment="`TiledCameraDemo`",
              evidence=ev("newton", "newton/_src/sensors/tiled_demo.py", None, 19,
                          status="mismatch")),
    ]


def _findings() -> list[Finding]:
    def f(course, path, line, rule, code, sev, msg, **kw) -> Finding:
        return Finding(rule=rule, code=code, severity=sev, path=path, line=line, message=msg,
                       course=course, **kw)

    mj_link = link("mujoco", "include/mujoco/mjmodel.h", 40, 43)
    return [
        f(MJ_C, CONTACT, 12, "permalink-anchor", "VL103", Severity.INFO,
          "include/mujoco/mjmodel.h#L40-L43 fingerprint sha256:5f1c…; `mjtCone` defined at L40",
          upstream="mujoco", target=mj_link, fingerprint="sha256:" + sha(1)),
        f(MJ_C, CONTACT, 21, "permalink-pin", "VL101", Severity.ERROR,
          "link pins commit 1234567, not the pinned 9ea3cdf", upstream="mujoco",
          target="https://github.com/google-deepmind/mujoco/blob/1234567/include/mujoco/"
                 "mjdata.h#L60"),
        f(MJ_C, CONTACT, 30, "source-unavailable", "VL109", Severity.WARNING,
          "could not check everything against mujoco at its pin: sources unavailable; "
          "identifier: 2 unchecked (2 distinct: mj_collideDemo, mj_makeDemo)",
          upstream="mujoco", target="mujoco",
          data={"count": 2, "unchecked": {"identifier": [
              {"line": 30, "target": "mj_collideDemo",
               "why": "src/engine/engine_collision_demo.c is unavailable; " + MJ_CAUSE},
              {"line": 33, "target": "mj_makeDemo",
               "why": "src/engine/engine_collision_demo.c is unavailable; " + MJ_CAUSE}]}}),
        f(DR_C, CONTACT, 5, "version", "VL105", Severity.ERROR,
          "mentions drake 1.56.0 but the pin is 1.57.0", upstream="drake", target="1.56.0"),
        f(DR_C, CONTACT, 27, "identifier", "VL104", Severity.WARNING,
          "`ContactSolverDemo` is not in the pinned release of drake", upstream="drake",
          target="ContactSolverDemo"),
        f(DR_C, CONTACT, 31, "relative-link", "VL107", Severity.ERROR,
          "relative link 'old-contact.md': docs/old-contact.md does not exist in course "
          "drake-atlas; did you mean 'contact-models.md'?", target="old-contact.md",
          data={"resolved": "docs/old-contact.md", "suggestion": "contact-models.md"}),
        f(DR_C, "docs/evidence/e1-validation.md", 7, "permalink-target", "VL102",
          Severity.WARNING, "geometry/proximity_demo.h is not in the pinned release; probably "
          "absent at the pin", upstream="drake",
          target=link("drake", "geometry/proximity_demo.h", 3)),
        f(NW_C, "docs/sensors-rendering.md", 33, "permalink-anchor", "VL103", Severity.INFO,
          "newton/_src/viewer/viewer_demo.py#L70-L74 fingerprint sha256:a90e…",
          upstream="newton", target=link("newton", "newton/_src/viewer/viewer_demo.py", 70, 74),
          fingerprint="sha256:" + sha(2)),
        f(NW_C, "docs/sensors-rendering.md", 60, "codeblock", "VL106", Severity.ERROR,
          "python block does not parse: invalid syntax (line 3)"),
        Finding(rule="suppression-unused", code="VL108", severity=Severity.WARNING,
                path="lint.toml", line=9, message="lint.toml suppression of ForceDemo for "
                "drake-atlas/docs/contact-models.md silences nothing", target="ForceDemo"),
    ]


SNIPPETS = {
    "mujoco-atlas/contact-models/cone-values": (40, "typedef enum mjtCone_ {  // friction cone type\n"
                                                    "  mjCONE_PYRAMIDAL = 0,  // pyramidal\n"
                                                    "  mjCONE_ELLIPTIC        // elliptic\n"
                                                    "} mjtCone;"),
    "mujoco-atlas/contact-models/contact-fields": (60, "struct mjContact_ {\n  mjtNum dist;\n"
                                                       "  mjtNum pos[3];\n  mjtNum frame[9];\n"
                                                       "  // solver parameters live elsewhere in"
                                                       " this fixture, which is why the lesson's "
                                                       "`solref` is reported as missing; this "
                                                       "comment is deliberately long so that the "
                                                       "report has to wrap it instead of scrolling"
                                                       "\n  int dim;\n};"),
    "mujoco-atlas/contact-models/margin-note": (5, "# effective distance: margin - gap"),
    "mujoco-atlas/state-and-time/state-physics": (90, "  mjSTATE_PHYSICS = mjSTATE_QPOS | "
                                                      "mjSTATE_QVEL | mjSTATE_ACT | "
                                                      "mjSTATE_HISTORY,"),
    "mujoco-atlas/state-and-time/timestep-default": (12, "def default_timestep():\n"
                                                         "    # seconds\n    return 0.002"),
    "drake-atlas/contact-models/hydro-modulus": (101, "void AddCompliantHydroelasticProperties("
                                                      "\n    const ProximityProperties& "
                                                      "properties,\n    double modulus);"),
    "newton-atlas/sensors-rendering/frame-index": (70, "def begin_frame(self, time):\n"
                                                       "    self.time = time\n"
                                                       "    self._frame_index += 0\n"
                                                       "    return self._frame_index"),
    "newton-atlas/sensors-rendering/render-order": (80, "def step(self):\n"
                                                        "    self.begin_frame(0.0)\n"
                                                        "    self.log_state()\n"
                                                        "    self.end_frame()"),
    "newton-atlas/sensors-rendering/cases-mode": (20, "match mode:\n    case \"RGB\": ...\n"
                                                      "    case \"DEPTH\": ...\n    case _:\n"
                                                      "        raise ValueError(mode)"),
}

SENTENCES = {
    "cone-values": "摩擦锥有两种：`mjCONE_PYRAMIDAL` 与 `mjCONE_ELLIPTIC`，默认是 **金字塔** 形。",
    "contact-fields": "`mjContact` 记录 dist/pos/frame/solref，见 mjdata.h",
    "margin-note": "有效距离是 margin - gap，$d < 0$ 时产生接触。",
    "state-physics": "## `mjSTATE_PHYSICS` 由四个分量组成",
    "timestep-default": "- 默认 `timestep` 为 0.002 秒",
    "hydro-modulus": "| `AddCompliantHydroelasticProperties(properties, modulus)` | 设置模量 |",
    "frame-index": "> 帧号每次加一（`begin_frame`）",
    "render-order": "渲染时先 `begin_frame` 再 `end_frame`，中间调用 `log_state`。",
    "cases-mode": "相机只有 RGB 与 DEPTH 两种模式，其余抛出异常。",
    "warp-launch": "`wp.launch` 的 dim 为 3",
    "bad-kind": "`ContactModel` 决定接触的计算方式",
    "tiled-camera": "`TiledCameraDemo` 一次渲染多个环境",
}


def _excerpts(claims: list[ClaimResult]) -> dict[str, Excerpt]:
    out = {}
    for c in claims:
        short = c.id.rsplit("/", 1)[-1]
        sentence = SENTENCES.get(short) or (f"{c.fragment}，源码见链接。" if c.fragment and c.line
                                            else None)
        snip = SNIPPETS.get(c.id)
        if snip:
            start, text = snip
            x = Excerpt(sentence=sentence, sentence_line=c.line, snippet=text,
                        snippet_start=start, snippet_status=c.evidence.status)
        elif c.evidence is None:
            x = Excerpt(sentence=sentence, sentence_line=c.line if sentence else None,
                        snippet_note="no evidence location (source unavailable at pinned "
                                     "identity)")
        else:
            x = Excerpt(sentence=sentence, sentence_line=c.line, snippet_status=c.evidence.status,
                        snippet_note="source unavailable at pinned identity")
        out[c.id] = x
    return dict(sorted(out.items()))


LESSONS = [(MJ_C, CONTACT, ["mujoco"]), (MJ_C, "docs/state-and-time.md", ["mujoco"]),
           (DR_C, CONTACT, ["drake"]), (DR_C, "docs/evidence/e1-validation.md", ["drake"]),
           (NW_C, "docs/guide.md", ["newton", "warp"]),
           (NW_C, "docs/sensors-rendering.md", ["newton", "warp"])]


def _sources(claims: list[ClaimResult]) -> list[SourceIdentity]:
    seen: dict[tuple[str, str], SourceIdentity] = {}
    for c in claims:
        e = c.evidence
        if e is None or (c.upstream, e.path) in seen:
            continue
        detail = ""
        if e.status == "unavailable":
            detail = (c.message or "").split(": ", 1)[-1]
        elif e.status == "mismatch":
            detail = f"served blob {blob(40)} is not the pin's {e.blob}"
        seen[(c.upstream, e.path)] = SourceIdentity(
            upstream=c.upstream, path=e.path, status=e.status,
            blob=e.blob if e.status in ("pinned", "release") else
            (blob(40) if e.status == "mismatch" else None),
            expected_blob=None if e.status == "release" else e.blob,
            identity=None if e.status == "release" else "lock",
            provider=e.provider if e.status in ("pinned", "release") else
            ("objects" if e.status == "mismatch" else None), detail=detail)
    return [seen[k] for k in sorted(seen)]


def build() -> RunReport:
    claims = sorted(_claims(), key=lambda c: (c.course or "", c.lesson, c.line or 0, c.id,
                                              c.kind))
    findings = sorted(_findings(), key=lambda f: (f.course or "", f.path, f.line, f.code,
                                                  f.rule, f.target or "", f.message))
    sources = _sources(claims)
    lessons = []
    for i, (course, path, ups) in enumerate(sorted(LESSONS)):
        mine = [c for c in claims if (c.course, c.lesson) == (course, path)]
        fs = [f for f in findings if (f.course, f.path) == (course, path)]
        cited = sorted({f"{c.upstream}:{c.evidence.path}" for c in mine if c.evidence})
        vc: dict[str, int] = {}
        for c in mine:
            vc[c.verdict.value] = vc.get(c.verdict.value, 0) + 1
        fc: dict[str, int] = {}
        for f in fs:
            fc[f.severity.value] = fc.get(f.severity.value, 0) + 1
        lessons.append(LessonRecord(course=course, path=path, sha256=sha(100 + i),
                                    upstreams=ups, cited=cited, verdicts=dict(sorted(vc.items())),
                                    findings=dict(sorted(fc.items()))))
    verdicts = {v.value: sum(1 for c in claims if c.verdict is v) for v in Verdict}
    sev = {s.value: sum(1 for f in findings if f.severity is s) for s in Severity}
    st: dict[str, int] = {}
    for s in sources:
        st[s.status] = st.get(s.status, 0) + 1
    code, reasons = exit_status(claims, findings, sources)
    rt: dict[str, int] = {}
    for c in claims:
        if c.runtime is not None:
            rt[c.runtime.status] = rt.get(c.runtime.status, 0) + 1
    pins = PinsInfo(file="pins.toml", sha256=sha(1), upstreams=[
        PinnedUpstream(name="drake", repo=REPOS["drake"][0], commit=DR, version="1.57.0",
                       tag="v1.57.0", runtime=["drake==1.57.0"]),
        PinnedUpstream(name="mujoco", repo=REPOS["mujoco"][0], commit=MJ, version="3.15.0",
                       wheels=["mujoco==3.15.0"], runtime=["mujoco==3.15.0"]),
        PinnedUpstream(name="newton", repo=REPOS["newton"][0], commit=NW, version="1.6.1",
                       wheels=["newton==1.6.1"], runtime=["newton==1.6.1", "warp-lang==1.18.0"]),
        PinnedUpstream(name="warp", repo="https://github.com/NVIDIA/warp", commit=WP,
                       version="1.18.0", wheels=["warp-lang==1.18.0"],
                       runtime=["warp-lang==1.18.0"])],
        courses=[
        PinnedCourse(name=DR_C, git="https://github.com/huangkiki/drake-atlas",
                     commit="f3e069ace46b4d6a83ca132528a206c993550e77", docs="docs",
                     upstreams=["drake"], read_from="commit"),
        PinnedCourse(name=MJ_C, path="../shared/course/mujoco-atlas",
                     git="https://github.com/huangkiki/mujoco-atlas",
                     commit="067f2e3f409410ea505d0d3b92f693f46d5560ce", docs="docs",
                     upstreams=["mujoco"], read_from="local", partial=True),
        PinnedCourse(name=NW_C, path="../shared/course/newton-atlas", docs="docs",
                     upstreams=["newton", "warp"], read_from="local")])
    lock = LockInfo(file="pins.lock", present=True, sha256=sha(2), upstreams=[
        LockedInfo(name="drake", commit=DR, matches_pin=True, files=120,
                   source=["import:drake-atlas/docs/sources.json"]),
        LockedInfo(name="mujoco", commit=MJ, matches_pin=True, files=80,
                   source=["import:mujoco-atlas/docs/sources.json"])])
    return RunReport(
        tool=ToolInfo(version="0.0.0-fixture"), pins=pins, lock=lock, lessons=lessons,
        sources=sources, claims=claims, findings=findings,
        runtime=RuntimeInfo(ran=sum(rt.values()), statuses=dict(sorted(rt.items())),
                            sampling={"mode": "sample", "seed": 0, "sampled": 3}),
        notes=source_notes(sources),
        not_run=[NotRun(stage="runtime", what="drake runtime checks",
                        why="no pinned environment for drake on this machine")],
        summary=Summary(lessons=len(lessons), claims=len(claims), verdicts=verdicts,
                        findings=sev, sources=dict(sorted(st.items())), exit_code=int(code),
                        reasons=reasons),
        excerpts=_excerpts(claims))


def load() -> RunReport:
    return RunReport.model_validate_json(FIXTURE.read_text(encoding="utf-8"))
