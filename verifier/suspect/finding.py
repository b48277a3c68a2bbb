"""The suspect finding: its rule, code and shape (what the sentence says, what the
source says, the evidence)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.results import Finding, Severity

if TYPE_CHECKING:
    from verifier.draft.model import Proposal
    from verifier.project import LessonDoc

RULE = "suspect"
CODE = "VS101"


def suspect_finding(lesson: "LessonDoc", p: "Proposal", outcome, source_says: str
                    ) -> Finding:
    ev = outcome.evidence
    where = f"{ev.path}" + (f":{ev.lines[0]}" if ev.lines else "")
    said = p.reading or f"{p.kind} {p.symbol}: {p.expected!r}"
    message = (f"the sentence says {said}; the source says {source_says} ({where} at the "
               f"pin: {ev.permalink})")
    return Finding(rule=RULE, code=CODE, severity=Severity.WARNING, path=lesson.path,
                   course=lesson.course, line=p.line, message=message, upstream=p.upstream,
                   target=p.symbol,
                   data={"says": said, "source_says": source_says, "kind": p.kind,
                         "proposer": p.proposer, "spans": list(p.says),
                         "expected": p.expected, "actual": outcome.actual,
                         "fragment": p.fragment,
                         "evidence": ev.model_dump(mode="json"),
                         "claim": {k: v for k, v in p.table(None).items()
                                   if k not in ("review", "note")}})
