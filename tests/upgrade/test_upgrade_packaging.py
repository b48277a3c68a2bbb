"""`verifier upgrade` across packaging changes, on fixture packages served by a local
package index (PEP 503, file://):

- v1: `demo==1.0.0` holds the headers and the Python modules; `demo-extra==1.0.0`
  holds `demo/extra/*.py`;
- v2: `demo==2.0.0` is a small pure package whose `Requires-Dist` pins
  `demo-core==2.0.0` (now holding the headers and modules) and `demo-viewer==2.0.0`;
  `demo-extra` has no 2.0.0 release.

The upgrade follows Requires-Dist to the package that holds the mapped paths,
proposes the new wheel map as a pins.toml diff (applied by --write), and reports
what the missing release leaves unassessed, never stopping for the upstream."""

from __future__ import annotations

import json

import pytest

from tests.helpers_upstream import UpstreamSpec, make_index, make_wheel, write_pins
from tests.upgrade import fixture as F
from verifier.gitblob import blob_sha
from verifier.pins import PathMap, load_pins
from verifier.project import load_project
from verifier.upgrade import run_upgrade
from verifier.upgrade.model import LinkStatus
from verifier.upgrade.wheelplan import exact_pins, plan_wheels

V1 = "1" * 40
V2 = "2" * 40

API_V1 = "#ifndef DEMO_API_H\n#define DEMO_API_H\n/* step the model */\nint demo_step(int n);\n" \
         "void demo_reset(void);\nint demo_count(int n);\n#endif\n"
API_V2 = "#ifndef DEMO_API_H\n#define DEMO_API_H\n/* new in 2.0 */\nint demo_new(void);\n\n" \
         "/* step the model */\nint demo_step(int n);\nvoid demo_reset(void);\n" \
         "int demo_count(int n);\n#endif\n"
SOLVER = "def solve(a, b):\n    \"\"\"Solve it.\"\"\"\n    return a + b\n"

LESSON = """# Demo

The API is declared in [api.h]({api}); the adder is [alpha]({alpha}).
Scaling happens in [beta]({beta}). The solver is [solve]({solver}).
The C loop is [demo_step]({engine}).
"""

CLAIMS = '''lesson = "docs/lesson.md"
upstream = "demo"

[[claim]]
id = "solve-exists"
fragment = "The solver is"
kind = "symbol"
path = "extra/demo/extra/solver.py"
symbol = "solve"
expected = true

[[claim]]
id = "alpha-exists"
fragment = "the adder is"
kind = "symbol"
path = "python/demo/core.py"
symbol = "alpha"
expected = true
'''

PINS_WHEELS = '''
[[upstream.demo.wheel]]
requirement = "demo==1.0.0"
# the headers and the modules
map = [
  { wheel = "demo/include/demo/", repo = "include/demo/" },
  { wheel = "demo/", repo = "python/demo/", glob = "*.py" },
]

# the extra solvers are their own wheel
[[upstream.demo.wheel]]
requirement = "demo-extra==1.0.0"
map = [
  { wheel = "demo/extra/", repo = "extra/demo/extra/", glob = "*.py" },
]
'''


def url(path: str, frag: str = "") -> str:
    return f"https://github.com/demo-org/demo/blob/{V1}/{path}" + (f"#{frag}" if frag else "")


@pytest.fixture
def px(tmp_path, monkeypatch):
    dist = tmp_path / "dist"
    wheels = [
        make_wheel(dist, "demo", "1.0.0", {"demo/include/demo/api.h": API_V1,
                                           "demo/core.py": F.CORE_V1,
                                           "demo/__init__.py": "from demo.core import *\n"}),
        make_wheel(dist, "demo-extra", "1.0.0", {"demo/extra/solver.py": SOLVER}),
        make_wheel(dist, "demo", "2.0.0", {"demo/__init__.py": "from demo.core import *\n"},
                   requires=["demo-core==2.0.0", "demo-viewer==2.0.0", "numpy",
                             'demo-usd==2.0.0; extra == "usd"']),
        make_wheel(dist, "demo-core", "2.0.0", {"demo/include/demo/api.h": API_V2,
                                                "demo/core.py": F.CORE_V2,
                                                "demo/__init__.py": "from demo.core import *\n"}),
        make_wheel(dist, "demo-viewer", "2.0.0", {"demo/viewer/app.py": "def show():\n    pass\n"},
                   requires=["demo-core==2.0.0"]),
    ]
    index = make_index(tmp_path / "index", wheels)
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_PROVIDERS", "wheel")
    monkeypatch.setenv("VERIFIER_INDEX_URL", index)
    root = tmp_path / "project"
    docs = root / "course" / "docs"
    docs.mkdir(parents=True)
    (docs / "lesson.md").write_text(LESSON.format(
        api=url("include/demo/api.h", "L3-L6"), alpha=url("python/demo/core.py", "L6-L9"),
        beta=url("python/demo/core.py", "L12-L15"),
        solver=url("extra/demo/extra/solver.py", "L1-L3"), engine=url("src/engine.c", "L1-L2")))
    pins = write_pins(root, {"demo": UpstreamSpec(url="https://github.com/demo-org/demo",
                                                  commit=V1, version="1.0.0")},
                      courses={"course": ("course", ["demo"])})
    text = pins.read_text().replace('version = "1.0.0"\n',
                                    'version = "1.0.0"\nruntime = ["demo==1.0.0"]\n'
                                    + PINS_WHEELS, 1)
    pins.write_text(text)
    (root / "claims" / "course").mkdir(parents=True)
    (root / "claims" / "course" / "lesson.toml").write_text(CLAIMS)
    return pins, docs / "lesson.md"


def _links(report):
    return {(lk.path, lk.start): lk for ls in report.lessons for lk in ls.links}


def test_exact_pins_follow_only_what_installs_without_extras():
    assert exact_pins(["a==1.0", "b>=2", 'c==3; extra == "x"', "d==4; python_version >= '3'",
                       "e", "not a requirement ((", "f===5"]) == ["a==1.0", "d==4", "f==5"]


def test_requires_dist_is_followed_to_the_package_holding_the_mapped_paths(px):
    pins, _ = px
    report = run_upgrade(load_project(pins), "demo", "2.0.0", surface=False)
    assert report.new.identity == "release"
    assert report.new.wheels == ["demo-core==2.0.0"]      # the viewer holds nothing mapped
    wm = report.wheel_map
    assert wm is not None and wm.changed
    assert any("demo-core==2.0.0 (Requires-Dist of demo==2.0.0)" in f for f in wm.followed)
    links = _links(report)
    api = links[("include/demo/api.h", 3)]     # three lines inserted above it in 2.0.0
    assert (api.status, api.new_start, api.new_end) == (LinkStatus.MOVED, 6, 9)
    alpha = links[("python/demo/core.py", 6)]
    assert (alpha.status, alpha.new_start) == (LinkStatus.MOVED, 10)
    beta = links[("python/demo/core.py", 12)]   # an edited line: reviewed, never rewritten
    assert beta.status is LinkStatus.CHANGED and not beta.rewritable
    assert beta.old_lines[2].strip() == "scaled = [f * rate for f in frames]"
    assert "math.floor" in "\n".join(beta.new_lines)
    assert report.coverage["served_ranges"] == 3 and report.coverage["classified"] == 3


def test_a_wheel_without_the_new_release_is_reported_never_a_stop(px):
    pins, _ = px
    report = run_upgrade(load_project(pins), "demo", "2.0.0", surface=False)
    solver = _links(report)[("extra/demo/extra/solver.py", 1)]
    assert solver.status is LinkStatus.UNAVAILABLE and solver.lost == "demo-extra==2.0.0"
    assert not solver.needs_git
    assert [u.requirement for u in report.unassessed] == ["demo-extra==2.0.0"]
    un = report.unassessed[0]
    assert "not on the package index" in un.reason
    assert un.links == 1 and un.claims == ["course/lesson/solve-exists"]
    assert un.lessons == {"course/docs/lesson.md": 2}
    # the file is never called deleted: nothing at the new version decides it
    assert all(f.status != "deleted" for f in report.files)
    # a file no wheel serves needs git, with the command that would check it
    engine = _links(report)[("src/engine.c", 1)]
    assert engine.needs_git and report.needs_git is not None
    assert report.needs_git.files == {"src/engine.c": 1}
    assert "--via git" in report.needs_git.command
    assert "diff" in report.needs_git.diff_command
    # the claim on a held file still verifies on both sides
    assert "course/lesson/alpha-exists" not in {c.id for ls in report.lessons for c in ls.claims}


def test_pins_diff_and_write_apply_the_new_wheel_map(px):
    pins, lesson = px
    report = run_upgrade(load_project(pins), "demo", "2.0.0", surface=False)
    diff = "\n".join(report.wheel_map.pins_diff)
    assert '+requirement = "demo-core==2.0.0"' in diff
    assert '-requirement = "demo-extra==1.0.0"' in diff
    assert "--commit SHA" in diff          # the stand-in commit is never shown as a SHA
    assert pins.read_text().count("demo-extra==1.0.0") == 1     # nothing written yet

    run_upgrade(load_project(pins), "demo", "2.0.0", commit=V2, write=True, surface=False)
    after = load_pins(pins).upstream["demo"]
    assert [w.requirement for w in after.wheel] == ["demo-core==2.0.0"]
    assert after.wheel[0].map == [PathMap(wheel="demo/include/demo/", repo="include/demo/"),
                                  PathMap(wheel="demo/", repo="python/demo/", glob="*.py")]
    assert (after.commit, after.version, after.runtime) == (V2, "2.0.0", ["demo==2.0.0"])
    text = pins.read_text()
    assert "# the headers and the modules" in text        # comments kept
    assert "demo-extra" not in text.split("[[upstream.demo.wheel]]", 1)[1].split("[course")[0] \
        .replace("# the extra solvers are their own wheel", "")
    body = lesson.read_text()
    assert f"/blob/{V2}/include/demo/api.h#L6-L9" in body        # moved: rewritten
    assert f"/blob/{V1}/python/demo/core.py#L12-L15" in body     # changed: left alone
    assert f"/blob/{V1}/extra/demo/extra/solver.py#L1-L3" in body  # unassessed: left alone
    # the new pins serve the new version's files
    again = load_project(pins)
    sf = again.sources.resolve("demo", "include/demo/api.h")
    assert again.sources.read(sf) == API_V2.encode()


def test_a_held_rule_decides_absence_a_lost_one_never(px, tmp_path):
    """A file the home of its rule lacks is deleted (that listing is authoritative);
    under a lost rule nothing is decided."""
    pins, lesson = px
    text = lesson.read_text() + f"\nGone: [x]({url('python/demo/gone.py', 'L1-L2')}).\n"
    lesson.write_text(text)
    # put gone.py in the old wheel only
    dist = tmp_path / "dist2"
    old = make_wheel(dist, "demo", "1.0.0", {"demo/include/demo/api.h": API_V1,
                                             "demo/core.py": F.CORE_V1,
                                             "demo/gone.py": "def g():\n    return 1\n"})
    idx = tmp_path / "index" / "demo"
    (idx / old.name).write_bytes(old.read_bytes())
    import hashlib

    page = (idx / "index.html").read_text()
    import re

    page = re.sub(r'demo-1\.0\.0-py3-none-any\.whl#sha256=[0-9a-f]+',
                  f"demo-1.0.0-py3-none-any.whl#sha256={hashlib.sha256(old.read_bytes()).hexdigest()}",
                  page)
    (idx / "index.html").write_text(page)
    report = run_upgrade(load_project(pins), "demo", "2.0.0", surface=False, claims=False)
    gone = _links(report)[("python/demo/gone.py", 1)]
    assert gone.status is LinkStatus.DELETED
    assert _links(report)[("extra/demo/extra/solver.py", 1)].status is LinkStatus.UNAVAILABLE


def test_plan_discovers_a_rule_for_cited_files_the_release_ships_verbatim(px):
    """Cited files no rule maps at the old pin, found under one prefix of a new wheel,
    get a rule only with byte-identical evidence (same git blob as at the old pin)."""
    pins, _ = px
    project = load_project(pins)
    up = project.pins.get("demo")
    from verifier.upgrade.target import derive

    bumped = derive(up, commit=V2, version="2.0.0", tag=None, keep_wheels=True).wheel
    # demo-core 2.0.0 does not ship docs: nothing to discover
    plan = plan_wheels(project, up, bumped, cited={"doc/a.rst", "doc/b.rst"},
                       old_blob=lambda p: None)
    assert plan.discovered == []
    assert plan.lost and plan.lost[0].requirement == "demo-extra==2.0.0"


def test_discovery_needs_two_paths_and_one_identical_blob(tmp_path, monkeypatch):
    dist = tmp_path / "dist"
    a, b = "alpha doc\n", "beta doc v2\n"
    wheels = [make_wheel(dist, "lib", "1.0.0", {"lib/x.py": "X = 1\n"}),
              make_wheel(dist, "lib", "2.0.0", {"lib/x.py": "X = 2\n", "lib/doc/a.rst": a,
                                                "lib/doc/b.rst": b})]
    monkeypatch.setenv("VERIFIER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("VERIFIER_INDEX_URL", make_index(tmp_path / "index", wheels))
    root = tmp_path / "p"
    root.mkdir()
    pins = write_pins(root, {"lib": UpstreamSpec(url="https://github.com/o/lib", commit=V1,
                                                 wheel="lib==1.0.0",
                                                 wheel_map=[("lib/", "lib/")])})
    project = load_project(pins)
    up = project.pins.get("lib")
    from verifier.upgrade.target import derive

    bumped = derive(up, commit=V2, version="2.0.0", tag=None, keep_wheels=True).wheel
    old = {"doc/a.rst": blob_sha(a.encode()), "doc/b.rst": blob_sha(b"beta doc v1\n")}
    plan = plan_wheels(project, up, bumped, cited=set(old), old_blob=old.get)
    assert [(req, r.wheel, r.repo) for req, r, _ in plan.discovered] == [
        ("lib==2.0.0", "lib/doc/", "doc/")]
    assert plan.wheels[0].map[0] == PathMap(wheel="lib/doc/", repo="doc/")
    # no identical blob: no rule
    plan = plan_wheels(project, up, bumped, cited=set(old), old_blob=lambda p: "0" * 40)
    assert plan.discovered == []
    # a single cited path is not enough
    plan = plan_wheels(project, up, bumped, cited={"doc/a.rst"}, old_blob=old.get)
    assert plan.discovered == []


def test_the_report_in_every_format(px, tmp_path, capsys):
    """Console, JSON, Markdown and HTML say the same things: the new wheel map with its
    pins.toml diff, the unassessed wheel, what needs git, the changed range with its old
    and new code; HTML escapes what it shows."""
    from verifier.cli.main import main

    pins, _ = px
    base = ["upgrade", "demo", "--to", "2.0.0", "--pins", str(pins), "--runtime", "none",
            "--no-surface"]
    assert main(base) == 1                       # a changed range needs the author
    text = capsys.readouterr().out
    assert "wheel map of the new version" in text and "demo-core==2.0.0" in text
    assert "VU130 unassessed: demo-extra==2.0.0" in text and "VU131 needs git" in text
    assert "VU102 changed" in text and "python/demo/core.py L12-L15" in text
    assert main(base + ["--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["unassessed"][0]["requirement"] == "demo-extra==2.0.0"
    assert data["wheel_map"]["wheels"][0]["requirement"] == "demo-core==2.0.0"
    out = tmp_path / "report.md"
    assert main(base + ["--format", "markdown", "--out", str(out)]) == 1
    md = out.read_text()
    assert "## Wheel map and pins.toml" in md and '+requirement = "demo-core==2.0.0"' in md
    assert "old (the pin):" in md and "scaled = [math.floor(f * rate) for f in frames]" in md
    assert "## VU130 unassessed: `demo-extra==2.0.0`" in md
    out = tmp_path / "report.html"
    assert main(base + ["--format", "html", "--out", str(out)]) == 1
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page
    assert 'class="side"' in page and "demo-extra==2.0.0" in page
    from verifier.upgrade import report_html
    from verifier.upgrade.model import LessonUpgrade, LinkChange

    lk = LinkChange(course="c", lesson="l.md", line=1, url="u", path="a.h", start=1, end=1,
                    status=LinkStatus.CHANGED, suggested=(1, 1), old_lines=["#include <x.h>"],
                    new_lines=["<script>alert(1)</script>"])
    html = report_html._lesson(LessonUpgrade(course="c", lesson="l.md", links=[lk]))
    assert "&lt;script&gt;" in html and "<script>" not in html and "&lt;x.h&gt;" in html


def test_runtime_mode_typo_is_a_usage_error(px, capsys):
    from verifier.cli.main import main

    pins, _ = px
    assert main(["upgrade", "demo", "--to", "2.0.0", "--pins", str(pins),
                 "--runtime", "sampel"]) == 2
    assert "did you mean" in capsys.readouterr().err
