"""doc (VC112): the documentation attached to a declaration, through the fact model.
Fixtures: the simx upstream (C headers with trailing comments, a Doxygen-commented C++
class, Python docstrings in Google and NumPy style, attribute docstrings)."""

from __future__ import annotations

import pytest

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)

F = "sx_advance1"
DATA = "include/simx/sxdata.h"
SX = "include/simx/simx.h"
RAY = "pysimx/_src/geometry/ray.py"
PUSH = "systems/math/spatial_push.h"

VERIFIED = [
    # (path, symbol, expected, options)
    (DATA, "sxData_.pos", "(npos x 1)", {}),                       # trailing comment
    (DATA, "sxData.pos", "positions (NPOS X 1)", {}),              # typedef owner; case folded
    (DATA, "sxData.nbuffer", ["size of the buffer", "bytes"], {}), # several phrases
    (DATA, "sxData", {"pos": "(npos x 1)", "vel": "velocities"}, {}),   # members at once
    ("include/simx/sxtype.h", "sxPART_VEL", "velocities", {}),    # enum constant
    (SX, "sx_readProbe", "returns the number of values written", {}),  # comment above
    (SX, "sx_advance1", "advance in two halves", {}),
    (PUSH, "SpatialPush", "The torque comes first, then the force", {}),  # above template<>
    (PUSH, "SpatialPush.ShiftInPlace", "from point Bp to point Bq", {"param": "offset"}),
    (PUSH, "SpatialPush.ShiftInPlace", "applied to the force", {"param": "scale"}),
    (PUSH, "SpatialPush.magnitude_", "in newtons", {}),           # ///< trailing
    (RAY, None, "Ray queries against the fixture world", {}),     # module docstring
    (RAY, "RayHits", "Results of a batch", {}),
    (RAY, "RayHits.distance", "shape (n_rays,); -1 on a miss", {}),  # attribute docstring
    (RAY, "RayHits.normals", "unless keep_normals=True", {}),     # self.x docstring
    (RAY, "cast_rays", "shape ``(n_rays, 3)``. Zero directions are reported as misses",
     {"param": "directions"}),                                     # Google, continued line
    (RAY, "cast_rays", "Ray origins in world space", {"param": "origins"}),
    (RAY, "cast_one", "Unit direction of the ray", {"param": "direction"}),   # NumPy
    (RAY, "cast_rays", ["teleport", "Cast rays"], {"match": "any"}),
    (RAY, "cast_rays", ["teleports"], {"match": "none"}),
]


@pytest.mark.parametrize("path,symbol,expected,options", VERIFIED,
                         ids=[f"{v[1]}-{i}" for i, v in enumerate(VERIFIED)])
def test_doc_verified(simx, path, symbol, expected, options):
    r = simx.one(claim("d", "doc", path, symbol, expected, F, **options))
    assert r.verdict.value == "verified", r.message
    assert r.evidence.path == path and r.evidence.status == "pinned" and r.evidence.lines


@pytest.mark.parametrize("path,symbol,expected,options,needle", [
    (DATA, "sxData.pos", "(nvel x 1)", {}, "does not say '(nvel x 1)'"),
    (RAY, "cast_rays", "Cast rays", {"match": "none"}, "its doc says 'Cast rays'"),
    (RAY, "cast_rays", "Unit directions", {"param": "origins"}, "does not say"),
    (RAY, "undocumented", "anything", {}, "has no documentation"),
    (SX, "sx_advance2", "two halves", {}, "has no documentation"),   # the comment is sx_advance1's
    (PUSH, "SpatialPush.flags_", "flags", {}, "has no documentation"),
    (RAY, "cast_one", "ignored", {"param": "world"}, "does not say"),   # not in its entry
])
def test_doc_diverged(simx, path, symbol, expected, options, needle):
    r = simx.one(claim("d", "doc", path, symbol, expected, F, **options))
    assert r.verdict.value == "diverged", r.message
    assert needle in r.message


@pytest.mark.parametrize("path,symbol,expected,options,needle", [
    (DATA, "sxData.poss", "x", {}, "did you mean `sxData.pos`"),
    (RAY, "cast_rays", "x", {"param": "direction"}, "did you mean `directions`"),
    (DATA, "sxData.pos", 3, {}, "must be a phrase"),
    (DATA, "sxData", {"pos": "x"}, {"param": "p"}, "not with options.param"),
    (SX, None, "x", {}, "only exists in Python"),
    (RAY, "cast_rays", "x", {"match": "some"}, "options.match"),
])
def test_doc_errors(simx, path, symbol, expected, options, needle):
    r = simx.one(claim("d", "doc", path, symbol, expected, F, **options))
    assert r.verdict.value == "error" and needle in r.message, r.message


def test_doc_actual_shows_the_doc(simx):
    r = simx.one(claim("d", "doc", DATA, "sxData", {"pos": "(npos x 1)", "vel": "accel"}, F))
    assert r.verdict.value == "diverged"
    assert r.actual["pos"].startswith("positions") and "velocities" in r.actual["vel"]


def test_doc_order_of_the_parts_of_a_6_vector(simx):
    """match = "order": the doc comment's own order of the angular and linear parts."""
    r = simx.one(claim("d", "doc", PUSH, "SpatialPush", ["angular", "linear"], F,
                       match="order"))
    assert r.verdict.value == "verified" and r.actual == ["angular", "linear"], r.message
    r = simx.one(claim("d", "doc", PUSH, "SpatialPush", ["linear", "angular"], F,
                       match="order"))
    assert r.verdict.value == "diverged" and "puts the angular part first" in r.message
    # a doc that orders nothing, or an `expected` that is no order: the claim's error
    r = simx.one(claim("d", "doc", SX, "sx_readProbe", ["angular", "linear"], F, match="order"))
    assert r.verdict.value == "error" and "states no order" in r.message
    r = simx.one(claim("d", "doc", PUSH, "SpatialPush", ["angular"], F, match="order"))
    assert r.verdict.value == "error" and '["angular", "linear"]' in r.message
