"""Hand-made stage results over the real course lessons, for reporter tests.

The claims here are *inputs* to the reporters, not verdicts about the course:
each one sits on a real lesson line that links an upstream file, carries that
file's real identity (resolved through the source layer), and is given a verdict
that spreads the set over every verdict. A claim whose file is not available at
pinned identity is always `unavailable` (never verified), as the check would do.
"""

from __future__ import annotations

from verifier.lessons import github_links
from verifier.results import ClaimResult, Evidence, Finding, RuntimeResult, Severity, Verdict

KINDS = ["symbol", "signature", "default", "enum", "members", "call_order", "branch"]
CYCLE = [Verdict.VERIFIED, Verdict.DIVERGED, Verdict.VERIFIED, Verdict.STALE]


def made_claims(project, lessons, usable: int = 3, other: int = 2) -> list[ClaimResult]:
    """Per lesson: up to `usable` claims on files at pinned identity, `other` on the rest."""
    out: list[ClaimResult] = []
    n = k = 0
    for doc in lessons:
        stem = doc.path.rsplit("/", 1)[-1].removesuffix(".md")
        seen: set[str] = set()
        picked = {True: 0, False: 0}
        for ref, link in github_links(doc.text):
            up = project.pins.by_slug(link.slug)
            if up is None or link.kind != "blob" or not link.path or link.start is None:
                continue
            if link.path in seen:
                continue
            seen.add(link.path)
            sf = project.sources.resolve(up.name, link.path)
            ok = sf.status.usable
            if picked[ok] >= (usable if ok else other):
                continue
            picked[ok] += 1
            end = link.end or link.start
            ev = Evidence(path=link.path, lines=(link.start, end), blob=sf.blob,
                          permalink=up.permalink(link.path, link.start, end),
                          status=sf.status.value, provider=sf.provider)
            line_text = doc.text.splitlines()[ref.line - 1] if ref.line else ""
            frag = ref.text if ref.text and len(ref.text) <= 60 and ref.text in line_text else None
            kind = KINDS[n % len(KINDS)]
            if ok:
                verdict = CYCLE[k % len(CYCLE)]
                k += 1
            else:
                verdict = Verdict.UNAVAILABLE
            msg = None
            expected, actual = ["a", "b"], ["a", "b"]
            if verdict is Verdict.DIVERGED:
                expected, actual = ["a", "b"], ["b", "a"]
                msg = "order differs"
            elif verdict is Verdict.STALE:
                expected, actual = 1, 2
                msg = "the cited lines moved"
            elif verdict is Verdict.UNAVAILABLE:
                msg = f"{link.path} is {sf.status.value}: {sf.detail}"
                actual = None
            runtime = None
            if verdict is Verdict.VERIFIED and n % 3 == 0:
                runtime = RuntimeResult(status="confirmed", value=30, expected=30, duration_s=0.25)
            out.append(ClaimResult(id=f"{doc.course}/{stem}/c{n}", lesson=doc.path, line=ref.line,
                                   upstream=up.name, kind=kind, verdict=verdict, expected=expected,
                                   actual=actual, evidence=ev, message=msg, course=doc.course,
                                   fragment=frag, runtime=runtime))
            n += 1
        if doc is lessons[0]:
            out.append(ClaimResult(id=f"{doc.course}/{stem}/broken", lesson=doc.path, line=3,
                                   upstream=doc.upstreams[0], kind="symbol",
                                   verdict=Verdict.ERROR,
                                   message="claims/x.toml:7: symbol is required", course=doc.course))
    return out


def made_findings(lessons) -> list[Finding]:
    a, b = lessons[0], lessons[-1]
    return [
        Finding(rule="permalink-pin", code="VL101", severity=Severity.ERROR, path=a.path, line=5,
                message="link pins commit deadbee, not the pinned 9ea3cdf, for a file: path",
                upstream=a.upstreams[0], course=a.course, target="https://example.invalid/x"),
        Finding(rule="version-string", code="VL103", severity=Severity.WARNING, path=b.path,
                line=2, message="mentions version 1.5 but the pin is 1.6.1", course=b.course,
                target="1.5"),
        Finding(rule="note-only", code="VL199", severity=Severity.INFO, path=b.path, line=1,
                message="informational", course=b.course),
    ]
