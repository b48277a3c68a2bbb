"""`verifier coverage` on the demo lesson: candidates, coverage by fragment, CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.claims.simx_project import claim, simx  # noqa: F401 (fixture)
from verifier.claims.coverage import lesson_coverage, run_coverage
from verifier.cli.main import main
from verifier.project import LessonDoc

LESSON = """# Title with `code` is no candidate

Plain prose without facts. The value of `sxNPART` is 5. Another plain sentence.

```c
int x = 42;  // code blocks are no candidates
```

$$
a = 9.81
$$

| field | meaning |
|---|---|
| `pos` | positions |
| plain | row |

Gravity is 9.81 m/s² here. See [the header](https://github.com/o/r/blob/0123456789012345678901234567890123456789/a.h#L1-L2).

- a list item with `code` wraps
  onto a second line.
"""


def _lesson(tmp_path: Path) -> LessonDoc:
    f = tmp_path / "docs" / "l.md"
    f.parent.mkdir()
    f.write_text(LESSON)
    return LessonDoc("demo-atlas", "docs/l.md", f, ("simx",))


def test_candidates(tmp_path):
    cov = lesson_coverage(_lesson(tmp_path), [])
    got = [(c.line, c.reasons) for c in cov.uncovered]
    assert got == [(3, ["code", "number"]), (15, ["code"]),
                   (18, ["number", "permalink"]), (20, ["code"])]
    assert cov.candidates == 4 and cov.covered == 0 and cov.percent == 0.0


def test_claims_cover_their_sentence(tmp_path):
    from verifier.claims.loader import LoadedClaim
    from verifier.claims.model import Claim

    lesson = _lesson(tmp_path)
    lcs = [LoadedClaim(claim=Claim(id=i, fragment=frag, kind="symbol"), course="demo-atlas",
                       lesson="docs/l.md", file=tmp_path / "c.toml", line=1, gid=i)
           for i, frag in [("a", "is 5"), ("b", "second line"), ("gone", "not in lesson")]]
    cov = lesson_coverage(lesson, lcs)
    assert cov.covered == 2 and cov.percent == 50.0 and cov.claims == 3
    assert [c.line for c in cov.uncovered] == [15, 18]


def test_cli(simx, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    simx.write(claim("a", "symbol", "include/simx/simx.h", "sx_advance", True,
                     "sx_advance(model, d)"))
    pins = str(simx.root / "pins.toml")
    assert main(["coverage", "--pins", pins, "--format", "json", "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (les,) = doc["lessons"]
    assert les["lesson"] == "docs/lesson.md" and les["covered"] == 1 and les["claims"] == 1
    assert doc["summary"]["candidates"] == les["candidates"] > 5
    assert main(["coverage", "--pins", pins, "--min", "99", "-q"]) == 1
    assert main(["coverage", "--pins", pins, "--min", "101", "-q"]) == 2
    res = run_coverage(simx.project)
    assert res[0].percent == les["percent"]


def test_cli_text_excluded_pages_in_one_line_and_a_next_step(simx, monkeypatch, capsys):  # noqa: F811
    """newcomer-2 F15: excluded pages are one note (not one per page), the text says what
    to do next, and the total stays the last line."""
    monkeypatch.setenv("VERIFIER_PROVIDERS", "git")
    docs = simx.project.course_root(simx.project.pins.course["demo-atlas"]) / "docs"
    pages = [docs / name for name in ("index.md", "guide.md", "validation/v1.md")]
    try:
        for page in pages:
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text("# page\n\nSee `sx_advance` and 3 steps.\n", encoding="utf-8")
        simx.write(claim("a", "symbol", "include/simx/simx.h", "sx_advance", True,
                         "sx_advance(model, d)"))
        assert main(["coverage", "--pins", str(simx.root / "pins.toml")]) == 0
        out, err = capsys.readouterr()
    finally:                       # the fixture project is the module's
        for page in pages:
            page.unlink(missing_ok=True)
        (docs / "validation").rmdir()
    notes = [ln for ln in err.splitlines() if "excluded as not lessons" in ln]
    assert len(notes) == 1 and notes[0].startswith("note: 3 pages excluded as not lessons (")
    assert "not a lesson:" not in err
    lines = out.rstrip().splitlines()
    assert lines[-2].startswith("next: `verifier draft LESSON`")
    assert lines[-1].startswith("total: ")
