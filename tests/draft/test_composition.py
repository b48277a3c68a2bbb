"""The composition proposer when two enums of the pins read a table row: a row that
names its constant by a suffix (`MOTION`) read by the C enum (`asPART_MOTION`) and by a
Python enum with a member of that very name is proposed only when the lesson names or
cites one of the two enums; otherwise nothing is guessed. A drafted claim's `says` is
what `check` accepts (verifier/draft/settle.py): it loads and checks `verified`."""

from __future__ import annotations

import pytest

from tests.draft.assert_project import make_project

PART_PY = '''"""Parts of the state, as a Python enum (shaped like a port of the C API)."""

import enum


class Part(enum.IntEnum):
    CLOCK = 1
    POS = 2
    VEL = 4
    ACT = 8
    MOTION = 14
'''

TABLE = """| 组合 | 组成 | 说明 |
|---|---|---|
| MOTION | pos/vel/act | 运动状态 |
"""


def _draft(tmp_path, monkeypatch, intro: str, cites: str):
    link = f"（[源码](https://github.com/asim-org/asim/blob/PINSHA/{cites}#L1-L5)）"
    ap = make_project(tmp_path, monkeypatch, f"# 组成\n\n本篇基于 asim，固定提交 `PINSHA`。\n\n"
                      f"{intro}\n\n{TABLE}\n{link}\n",
                      extra={"pyasim/_src/sim/part.py": PART_PY})
    return ap, ap.draft()


def _enum_claims(d):
    return [p for p in d.proposals if p.kind == "enum"]


@pytest.mark.parametrize("intro, cites", [
    ("`asPart_` 的几个组合常量：", "include/asim/asim.h"),      # the lesson names the enum
    ("几个组合常量：", "include/asim/astype.h"),                  # it cites the enum's file
])
def test_the_enum_its_lesson_names_or_cites_reads_the_row(tmp_path, monkeypatch, intro, cites):
    from verifier.claims.check import run_check
    from verifier.draft import write

    ap, d = _draft(tmp_path, monkeypatch, intro, cites)
    (p,) = _enum_claims(d)
    assert p.symbol.endswith("asPART_MOTION"), p.symbol
    assert p.expected == ["asPART_POS", "asPART_VEL", "asPART_ACT"], p.expected
    write.append(ap.project(), d)
    got = {r.id.rsplit("/", 1)[-1]: r.verdict.value for r in run_check(ap.project())}
    assert got[p.id] == "verified", got


def test_two_enums_and_no_context_propose_nothing(tmp_path, monkeypatch):
    _, d = _draft(tmp_path, monkeypatch, "几个组合常量：", "include/asim/asim.h")
    assert _enum_claims(d) == []
