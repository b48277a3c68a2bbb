"""signature, default and members on modern Python classes (tests/fixtures/producers:
dataclasses, pydantic, attrs, NamedTuple, enums, properties, attributes set after
construction): constructors generated from fields are checked like written ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.claims.simx_project import FIX, Simx, claim
from tests.helpers_upstream import UpstreamSpec, make_git_repo, write_pins
from verifier.project import load_project

PRODUCERS = Path(__file__).resolve().parent.parent / "fixtures" / "producers"
M, K = "fixmods/models.py", "fixmods/kinds.py"


@pytest.fixture(scope="module")
def fx(tmp_path_factory) -> Simx:
    tmp = tmp_path_factory.mktemp("modern")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VERIFIER_CACHE", str(tmp / "cache"))
        mp.setenv("VERIFIER_PROVIDERS", "git")
        files = {p.relative_to(PRODUCERS).as_posix(): p.read_text()
                 for p in sorted(PRODUCERS.rglob("*.py"))}
        repo = make_git_repo(tmp / "up", files)
        shutil.copytree(FIX / "course", tmp / "course")
        root = tmp / "proj"
        root.mkdir()
        pins = write_pins(root, {"simx": UpstreamSpec(repo.url, repo.head)},
                          {"demo-atlas": (str(tmp / "course" / "demo-atlas"), ["simx"])})
        yield Simx(root, repo, load_project(pins))


CASES = [
    # generated constructors
    ("signature", M, "StepConfig", ["dt", "substeps", "gravity", "names", "seed"], {}, "verified"),
    ("signature", M, "StepConfig", ["dt", "substeps", "gravity", "names", "counter", "seed"], {},
     "diverged"),                                        # counter: field(init=False)
    ("signature", M, "ContactConfig", ["*", "stiffness", "damping"], {}, "verified"),
    ("signature", M, "ContactConfig", ["stiffness", "damping"], {}, "verified"),
    ("signature", M, "SolverOptions", [{"name": "label", "kind": "keyword_only"}],
     {"match": "subset"}, "verified"),
    ("signature", M, "SolverOptions", ["name"], {"match": "subset"}, "diverged"),  # by alias
    ("signature", M, "Actuator", ["gain", "limits", "spare", "*", "name"], {}, "verified"),
    ("signature", M, "Sensor", ["rate", "channels", "offset", "noise"], {}, "verified"),
    ("signature", M, "Contact", ["body_a", "body_b", {"name": "depth", "default": "0"}], {},
     "verified"),
    ("signature", K, "World", ["name", "*", "device"], {}, "verified"),
    ("signature", K, "World.step", ["dt", "substeps"], {}, "verified"),   # an overload
    # defaults: of the constructor and of the field
    ("default", M, "StepConfig", 4, {"param": "substeps"}, "verified"),
    ("default", M, "StepConfig", 8, {"param": "substeps"}, "diverged"),
    ("default", M, "StepConfig.names", "list()", {}, "verified"),
    ("default", M, "SolverOptions.relaxation", 0.8, {}, "verified"),
    ("default", M, "SolverOptions", 0.8, {"param": "relaxation"}, "verified"),
    ("default", M, "SolverOptions.warm_start", False, {}, "diverged"),
    ("default", M, "Sensor", 0.0, {"param": "offset"}, "verified"),
    ("default", M, "Actuator.name", "motor", {}, "verified"),
    ("default", K, "World.state", [0.0], {}, "verified"),          # assigned in build()
    # members
    ("members", M, "StepConfig", ["dt", "substeps", "gravity", "names", "counter"], {},
     "verified"),                                        # no InitVar, no ClassVar
    ("members", M, "SolverOptions", ["iterations", "relaxation", "warm_start", "joints", "name"],
     {}, "verified"),
    ("members", K, "Priority", ["LOW", "HIGH", "MID", "URGENT"], {}, "verified"),
    ("members", K, "Priority", ["LOW", "MID", "HIGH", "URGENT"], {}, "diverged"),
    ("members", K, "World", ["state", "built", "body_count", "time"],
     {"match": "subset", "of": "fields"}, "verified"),   # set in build(); properties
    ("members", K, "Probe", ["site", "value", "__init__"], {}, "verified"),   # slots, source order
    ("members", K, "World", ["body_count", "layout"], {"match": "subset", "of": "methods"},
     "diverged"),                                        # properties are no methods
    ("members", K, "Probe", ["site", "value"], {"match": "subset", "of": "fields"}, "verified"),
    ("enum", K, "Priority.URGENT", 7, {}, "verified"),   # auto() after MID = 2: largest + 1
    ("enum", K, "Channels.TORQUE", 16, {}, "verified"),
]


@pytest.mark.parametrize("kind,path,symbol,expected,options,verdict", CASES)
def test_modern_python(fx, kind, path, symbol, expected, options, verdict):
    r = fx.one(claim("c", kind, path, symbol, expected, "sx_advance1", **options))
    assert r.verdict.value == verdict, (r.message, r.actual)
    if verdict != "error":
        assert r.evidence is not None and r.evidence.blob == fx.repo.blob(path)


def test_generated_constructor_evidence_is_the_class_and_its_fields(fx):
    r = fx.one(claim("c", "signature", M, "StepConfig", ["dt", "substeps", "gravity", "names",
                                                         "seed"], "sx_advance1"))
    text = (PRODUCERS / M).read_text().split("\n")
    lo, hi = r.evidence.lines
    assert text[lo - 1].startswith("@dataclass") and "seed" in text[hi - 1]
    assert "generated" in r.message


def test_bases_in_another_file_are_followed(fx):
    """A dataclass and a pydantic model whose bases are in another module: their
    inherited fields come first (read from the base's file at the pin, through a
    package re-export); a base no file defines leaves the constructor open:
    `unavailable` for an exact signature, checked for a subset."""
    import textwrap

    src = textwrap.dedent('''\
        from dataclasses import dataclass

        from fixmods import StepConfig
        from fixmods.models import RenderOptions
        from fixmods.nowhere import Mystery

        @dataclass
        class Tuned(StepConfig):
            gain: float = 1.0

        class HiRes(RenderOptions):
            dpi: int = 300

        @dataclass
        class Odd(Mystery):
            gain: float = 1.0
        ''')
    fx.repo.commit({"fixmods/tuned.py": src})
    pins = fx.root / "pins.toml"
    pins.write_text(pins.read_text().replace(fx.repo.commits[0], fx.repo.head))
    proj = Simx(fx.root, fx.repo, load_project(pins))
    T = "fixmods/tuned.py"
    r = proj.one(claim("c", "signature", T, "Tuned",
                       ["dt", "substeps", "gravity", "names", "seed", "gain"], "sx_advance1"))
    assert r.verdict.value == "verified", r.message
    r = proj.one(claim("c", "default", T, "Tuned", 4, "sx_advance1", param="substeps"))
    assert r.verdict.value == "verified", r.message
    r = proj.one(claim("c", "signature", T, "HiRes", ["*", "width", "height", "dpi"],
                       "sx_advance1"))
    assert r.verdict.value == "verified", r.message
    r = proj.one(claim("c", "signature", T, "Odd", ["gain"], "sx_advance1"))
    assert r.verdict.value == "unavailable" and "Mystery" in r.message
    r = proj.one(claim("c", "signature", T, "Odd", ["gain"], "sx_advance1", match="subset"))
    assert r.verdict.value == "verified"
