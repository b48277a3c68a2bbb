"""The repository's claim files for the five Sim Atlas lessons (claims/<course>/<lesson>.toml).

These tests read the real claim files and the real lessons in ../shared/course: every file
loads, ids are unique, every fragment is a short verbatim substring of its lesson, every claim
names a file of the pinned upstream tree, options are well-formed for their kind, and the set
as a whole covers every claim kind, all three upstreams and at least 150 claims.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from verifier.claims.loader import claim_files, load_claims

REPO = Path(__file__).resolve().parent.parent
CLAIMS = REPO / "claims"
LESSON_FILES = {
    ("mujoco-atlas", "docs/state-and-time.md"),
    ("mujoco-atlas", "docs/sensors-and-sampling.md"),
    ("mujoco-atlas", "docs/cameras-and-geometry-queries.md"),
    ("drake-atlas", "docs/inertial-force-sensing.md"),
    ("newton-atlas", "docs/sensors-rendering.md"),
}
ALL_KINDS = {"symbol", "signature", "default", "enum", "members", "call_order", "branch",
             "cases", "expression", "text", "doc"}
MAX_FRAGMENT = 60


@pytest.fixture
def loaded(real_project):
    return load_claims(real_project)


@pytest.fixture
def lesson_text(real_project):
    return {(ld.course, ld.path): ld.text for ld in real_project.lessons()}


def test_every_lesson_has_a_claim_file(real_project):
    files = {(course, tomllib.loads(path.read_text(encoding="utf-8"))["lesson"])
             for course, path in claim_files(real_project)}
    assert LESSON_FILES <= files


def test_claim_files_load_without_problems(loaded):
    problems = [f"{lc.where}: {lc.problem}" for lc in loaded if lc.problem]
    assert not problems, "\n".join(problems)


def test_ids_unique_per_file(loaded):
    per_file = Counter((lc.file, lc.claim.id) for lc in loaded)
    dups = [f"{f}: {cid}" for (f, cid), n in per_file.items() if n > 1]
    assert not dups, dups
    gids = Counter(lc.gid for lc in loaded)
    assert all(n == 1 for n in gids.values())


def test_fragments_are_short_verbatim_and_unique_in_their_lesson(loaded, lesson_text):
    bad = []
    for lc in loaded:
        text = lesson_text.get((lc.course, lc.lesson))
        if text is None:
            bad.append(f"{lc.where}: lesson {lc.course}/{lc.lesson} not found")
            continue
        frag = lc.claim.fragment
        n = text.count(frag)
        if len(frag) > MAX_FRAGMENT:
            bad.append(f"{lc.where}: fragment longer than {MAX_FRAGMENT} chars ({len(frag)})")
        if n == 0:
            bad.append(f"{lc.where}: fragment not in lesson: {frag!r}")
        elif n > 1:
            bad.append(f"{lc.where}: fragment occurs {n} times in lesson: {frag!r}")
    assert not bad, "\n".join(bad)


def test_claims_name_files_of_the_pinned_tree(loaded, real_project):
    """Every locator path is a file the pinned upstream is known to contain (lock or wheel map)."""
    known = {up: set(real_project.sources.known_paths(up))
             for up in {lc.upstream for lc in loaded if lc.upstream}}
    bad = [f"{lc.where}: {lc.upstream}:{lc.claim.path}" for lc in loaded
           if lc.claim.path and lc.claim.path not in known[lc.upstream]]
    assert not bad, "\n".join(bad)


def test_coverage_of_kinds_upstreams_and_count(loaded):
    ours = [lc for lc in loaded if (lc.course, lc.lesson) in LESSON_FILES]
    kinds = {lc.claim.kind for lc in ours}
    assert ALL_KINDS <= kinds, f"kinds not used: {sorted(ALL_KINDS - kinds)}"
    assert {lc.upstream for lc in ours} >= {"mujoco", "drake", "newton"}
    assert len(ours) >= 150, len(ours)
    per_lesson = Counter(lc.lesson for lc in ours)
    assert all(per_lesson[lesson] >= 20 for _, lesson in LESSON_FILES), per_lesson


def test_every_kind_used_is_registered(loaded):
    import verifier.claims.kinds  # noqa: F401  (registers every kind module)
    from verifier.claims.kinds.base import REGISTRY

    unknown = sorted({lc.claim.kind for lc in loaded} - set(REGISTRY))
    assert not unknown, f"claim kinds with no implementation: {unknown}"


def test_no_runtime_checks_written_here_are_malformed(loaded):
    """Runtime checks are added by another stage; any present must have code and expected."""
    for lc in loaded:
        rt = lc.claim.runtime
        if rt is not None:
            assert rt.code.strip(), lc.where


def _regexes(claim) -> list[tuple[str, str]]:
    out = []
    for key in ("pattern", "callee", "call"):
        if key in claim.options:
            out.append((key, claim.options[key]))
    return out


def test_kind_options_are_well_formed(loaded):
    bad = []
    for lc in loaded:
        c = lc.claim
        for key, rx in _regexes(c):
            try:
                re.compile(rx)
            except re.error as exc:
                bad.append(f"{lc.where}: options.{key} is not a regex: {exc}")
        if c.kind == "text":
            if "pattern" not in c.options or not isinstance(c.expected, bool):
                bad.append(f"{lc.where}: text needs options.pattern and expected true/false")
        elif c.kind == "symbol":
            if not c.symbol or not isinstance(c.expected, bool):
                bad.append(f"{lc.where}: symbol needs symbol and expected true/false")
        elif c.kind == "signature":
            if not c.symbol or not isinstance(c.expected, list) or not c.expected:
                bad.append(f"{lc.where}: signature needs symbol and a non-empty expected list")
        elif c.kind == "call_order":
            if not c.symbol or not isinstance(c.expected, list):
                bad.append(f"{lc.where}: call_order needs symbol and an expected list")
            if "callee" not in c.options:
                bad.append(f"{lc.where}: call_order needs options.callee")
        elif c.kind == "members":
            match = c.options.get("match", "exact")
            ok = isinstance(c.expected, int) if match == "count" else isinstance(c.expected, list)
            if match not in ("exact", "prefix", "subset", "set", "count") or not ok:
                bad.append(f"{lc.where}: members match={match!r} with expected {c.expected!r}")
        elif c.kind == "enum":
            comp = c.options.get("compare") == "composition"
            if comp != isinstance(c.expected, list):
                bad.append(f"{lc.where}: enum composition needs a list, a value needs an int")
        elif c.kind == "branch":
            if not isinstance(c.options.get("bindings", {}), dict) \
                    or not isinstance(c.expected, dict) \
                    or not c.expected or not set(c.expected) <= {"reaches", "not_reaches"}:
                bad.append(f"{lc.where}: branch needs reaches/not_reaches (and a bindings table)")
        elif c.kind == "doc":
            phrases = c.expected if isinstance(c.expected, list) else (
                list(c.expected.values()) if isinstance(c.expected, dict) else [c.expected])
            if not phrases or not all(isinstance(p, (str, list)) and p for p in phrases):
                bad.append(f"{lc.where}: doc needs phrase(s) in expected")
        elif c.kind == "cases":
            if not isinstance(c.expected, dict) or not set(c.expected) <= {"cases", "default"}:
                bad.append(f"{lc.where}: cases expects a table with cases/default")
        elif c.kind == "expression":
            if ("target" in c.options) == ("call" in c.options) or not isinstance(c.expected, str):
                bad.append(f"{lc.where}: expression needs one of options.target/options.call "
                           "and expected text")
        elif c.kind == "default":
            if not c.symbol:
                bad.append(f"{lc.where}: default needs symbol")
    assert not bad, "\n".join(bad)


def test_text_is_the_escape_hatch_under_ten_percent(loaded):
    """Structured kinds say what a claim means; a regex over a file is the exception
    (every shipped claim file counts, not only the first five lessons')."""
    text = [lc for lc in loaded if lc.claim.kind == "text"]
    assert len(text) * 10 < len(loaded), f"{len(text)} of {len(loaded)} claims are `text`"


def test_every_shipped_claim_is_bound_to_its_sentence(loaded, lesson_text):
    """claims/claims.lock binds every claim (written by `verifier claims rebind`), the
    sentences still read as they did when they were bound, and every claim says which
    words of its sentence carry it (`says`, each span in the sentence) or why none can
    (`paraphrase`)."""
    from verifier.claims.lock import load_bindings
    from verifier.claims.sentences import sentence_hash, sentence_of

    bindings = load_bindings(CLAIMS)
    assert bindings.exists
    bad = []
    for lc in loaded:
        bound = bindings.get(lc.gid)
        text = lesson_text.get((lc.course, lc.lesson))
        sentence = sentence_of(text, lc.claim.fragment) if text else None
        if bound is None:
            bad.append(f"{lc.gid}: not bound")
        elif sentence is None or sentence_hash(sentence) != bound.sentence:
            bad.append(f"{lc.gid}: its sentence changed since it was bound")
        elif lc.claim.says is None and lc.claim.paraphrase is None:
            bad.append(f"{lc.gid}: neither `says` nor `paraphrase`")
        elif lc.claim.says is not None and len(bound.spans) != len(lc.claim.says):
            bad.append(f"{lc.gid}: claims.lock keeps {len(bound.spans)} spans for "
                       f"{len(lc.claim.says)} `says` entries")
    assert not bad, "\n".join(bad[:20])
