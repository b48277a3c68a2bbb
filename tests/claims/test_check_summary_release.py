"""The check summary keeps release-based verification apart from pinned verification."""

from verifier.claims.check import summary
from verifier.results import ClaimResult, Evidence, Verdict


def _r(i: str, status: str, verdict=Verdict.VERIFIED) -> ClaimResult:
    return ClaimResult(id=i, lesson="docs/l.md", line=1, upstream="u", kind="symbol",
                       verdict=verdict, evidence=Evidence(path="a.h", blob="1" * 40,
                                                          status=status))


def test_release_verifications_are_counted_apart():
    s = summary([_r("a", "pinned"), _r("b", "release"),
                 _r("c", "release", Verdict.DIVERGED)])
    assert s["verified"] == 2
    assert s["verified_from_release"] == 1
