"""Stable rule ids and metadata shared by the SARIF, JUnit and GitHub reporters.

A claim's rule is its kind's code (from the claim kind registry); a lint
finding's rule is its code (or its rule name when it has no code)."""

from __future__ import annotations

import hashlib

from verifier.claims.kinds import REGISTRY
from verifier.report import RunReport, claim_gid
from verifier.lint.rules import RULE_REGISTRY
from verifier.results import ClaimResult, Finding


def kind_code(kind: str) -> str:
    """The kind's code (VC1xx) from the claim kind registry; `VC-<kind>` for a kind this
    build does not know (a record from another version)."""
    cls = REGISTRY.get(kind)
    return (cls.code if cls is not None else None) or f"VC-{kind}"


def kind_description(kind: str) -> str:
    """The first paragraph of the kind's documentation (its module docstring)."""
    cls = REGISTRY.get(kind)
    doc = (cls.__doc__ or "").strip() if cls is not None else ""
    first = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    return first or f"The lesson's {kind.replace('_', ' ')} claim matches the pinned source."


def claim_rule(c: ClaimResult) -> str:
    return kind_code(c.kind)


def finding_rule(f: Finding) -> str:
    return f.code or f.rule


def claim_fingerprint(c: ClaimResult) -> str:
    """Stable across lesson edits: claim id + rule, never line numbers."""
    return hashlib.sha256(f"{claim_gid(c)}\0{claim_rule(c)}".encode()).hexdigest()[:32]


def finding_fingerprint(f: Finding) -> str:
    basis = "\0".join([f.course or "", f.path, finding_rule(f), f.target or "",
                       f.fingerprint or (f.message if not f.target else "")])
    return hashlib.sha256(basis.encode()).hexdigest()[:32]


def rules_used(report: RunReport) -> list[dict]:
    """Rule metadata (id, name, description) for every rule the report mentions, sorted."""
    out: dict[str, dict] = {}
    for c in report.claims:
        rid = claim_rule(c)
        out.setdefault(rid, {"id": rid, "name": c.kind, "description": kind_description(c.kind),
                             "kind": "claim"})
    for f in report.findings:
        rid = finding_rule(f)
        rule = RULE_REGISTRY.get(f.rule)
        out.setdefault(rid, {"id": rid, "name": f.rule,
                             "description": rule.doc() if rule is not None
                             else f"Lesson lint rule {f.rule}.", "kind": "lint"})
    return [out[k] for k in sorted(out)]


def claim_title(c: ClaimResult) -> str:
    return f"{claim_rule(c)} {c.kind} {c.verdict.value}: {c.id}"


def claim_message(c: ClaimResult, *, with_link: bool = True) -> str:
    """One paragraph: what was expected, what the source has, where."""
    parts = []
    if c.message:
        parts.append(c.message.strip())
    if c.verdict.value in ("diverged", "stale"):
        parts.append(f"expected {short_value(c.expected)}; pinned source has "
                     f"{short_value(c.actual)}")
    if c.runtime is not None:
        rt = c.runtime
        parts.append(f"runtime {rt.status}" + (f": {rt.message}" if rt.message else ""))
    if with_link and c.evidence is not None and c.evidence.permalink:
        parts.append(f"source: {c.evidence.permalink}")
    return ". ".join(p.rstrip(".") for p in parts) or f"claim {c.verdict.value}"


def short_value(v, limit: int = 200) -> str:
    import json

    try:
        s = json.dumps(v, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        s = repr(v)
    return s if len(s) <= limit else s[: limit - 1] + "…"
