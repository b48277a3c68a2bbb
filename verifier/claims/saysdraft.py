"""Propose `says` for a claim: the words of its sentence that carry what it checks.

Used by `verifier claims says` (for claims written before `says`) and by the drafter.
A span is proposed only where the sentence's own words are values of the claim —
found by the same binding `check` uses (verifier/claims/slots.py), so a proposal is
never a guess about meaning:

  numbers    a number of the sentence (with its unit) that the claim holds
  names      a name the claim holds: API-shaped (`mj_step`, `data.qpos`, `kPoint`,
             `Foo::Bar`) or written as code in the lesson; one-letter names and plain
             prose words outside code are left out
  lists      two or more names in a row that are the elements of one list of the claim
             (one `names` span: a reorder is then read as a reorder)
  polarity   the negation and pair words of the fragment (or, without any there, of
             its clause): they carry a true/false assertion

A claim none of whose words can be found gets `paraphrase` with the reason for its kind.
"""

from __future__ import annotations

import re

from verifier.claims.follow import clause_bounds
from verifier.claims.model import Claim
from verifier.claims.says import (NUMBER_TOKEN, VECTOR_TOKEN, Names, infer, lexicon,
                                  read_vector,
                                  polarity_words, read_name, read_number)
from verifier.claims.slots import bind

_IDENT = re.compile(r"(?<![A-Za-z0-9_.>:~])[A-Za-z_~][A-Za-z0-9_]*(?:<[^<>()\s]*>)?"
                    r"(?:(?:\.|::|->)[A-Za-z_~][A-Za-z0-9_]*(?:<[^<>()\s]*>)?)*(?:\(\))?")
_WORDS = re.compile(r"[A-Za-z_~][A-Za-z0-9_]*(?:(?:\.|::|->)[A-Za-z_~][A-Za-z0-9_]*)*")
_UNIT = re.compile(r"\s*(?:ms|us|µs|μs|ns|s|kHz|MHz|Hz|mm|cm|km|m|kg|g|N·m|Nm|N|rad|%|秒|毫秒|毫米|"
                   r"厘米|米|千克|克)(?![A-Za-z])")
_SEP = r"\s*(?:,|，|、|/|→|->|=>|\band\b|和|与|及|以及)\s*"
_RUN = re.compile(rf"{_IDENT.pattern}(?:{_SEP}{_IDENT.pattern})+")

PARAPHRASE = {
    "doc": "expected quotes the upstream's documentation; the lesson says it in its own words",
    "runtime": "the snippet computes what the sentence describes; no word of the sentence is one "
               "of the claim's values",
    "text": "a pattern in the source, not a value the sentence states",
    "branch": "which calls are reached is what the source does; the sentence names no call "
              "the claim holds",
    "expression": "the sentence describes the expression in words, not as it is written",
}
_DEFAULT_REASON = "the sentence does not state the claim's expected value in words the claim holds"


def _api_shaped(name: str) -> bool:
    core = name.removesuffix("()")
    if len(core) < 2:
        return False
    return ("_" in core or "." in core or "::" in core or "->" in core
            or any(c.isupper() for c in core[1:]) or core[:1].isupper()
            and any(c.isupper() for c in core) and len(core) > 3 or any(c.isdigit() for c in core))


def _covered(taken: list[tuple[int, int]], a: int, b: int) -> bool:
    return any(x <= a and b <= y for x, y in taken)


def propose(claim: Claim, sentence: str, fragment: str, code: set[str] | None = None
            ) -> list[str | dict]:
    """The `says` spans of `claim` in `sentence` (plain text, as claims/sentences.py gives
    it); `code`: the texts of the lesson's code spans on the sentence's lines (names
    written as code count even when not API-shaped)."""
    data = claim.model_dump()
    words = {c.strip().removesuffix("()") for c in (code or ())}
    for c in code or ():
        for w in _WORDS.findall(c):
            words.add(w)
            words.update(re.split(r"\.|::|->", w))
    out: list[tuple[int, str | dict]] = []
    taken: list[tuple[int, int]] = []
    frag_at = max(sentence.find(fragment), 0)

    def near(m_start: int) -> int:
        return abs(m_start - frag_at)

    # lists of names first: one span for the run when it is one list of the claim
    for m in _RUN.finditer(sentence):
        r = infer(m.group(0))
        if isinstance(r, Names) and len(set(r.names)) == len(r.names):
            slots = bind(r, data)
            if slots and len({s.path[:-1] for s in slots}) == 1 and len(slots) == len(r.names):
                out.append((m.start(), {"text": m.group(0), "read": "names"}))
                taken.append((m.start(), m.end()))
    # vectors of numbers: one span for the bracketed literal
    for m in VECTOR_TOKEN.finditer(sentence):
        r = read_vector(m.group(0))
        if r is not None and bind(r, data):
            out.append((m.start(), m.group(0)))
            taken.append((m.start(), m.end()))
    seen: set[str] = set()
    for m in _IDENT.finditer(sentence):
        if _covered(taken, m.start(), m.end()):
            continue
        whole = m.group(0).removesuffix("()")
        # `builder.Build` names `Build`: the qualified name first, then its tails
        cuts = [0] + [k.end() for k in re.finditer(r"\.|::|->", whole)]
        for cut in cuts:
            text = whole[cut:]
            r = read_name(text)
            if r is None or r.name in seen:
                continue
            if not (_api_shaped(r.name) or r.name in words):
                continue
            if bind(r, data):
                seen.add(r.name)
                out.append((m.start() + cut, text))
                taken.append((m.start() + cut, m.start() + len(whole)))
                break
    nums: set[str] = set()
    for m in NUMBER_TOKEN.finditer(sentence):
        if _covered(taken, m.start(), m.end()):
            continue
        text = m.group(0)
        unit = _UNIT.match(sentence, m.end())
        bare = read_number(text)
        if bare is None:
            continue
        if bind(bare, data) and text not in nums:
            nums.add(text)
            out.append((m.start(), text))
            continue
        if unit:
            full = sentence[m.start():unit.end()]
            r = read_number(full)
            if r is not None and r.unit and bind(r, data) and full not in nums:
                nums.add(full)
                out.append((m.start(), full))
    # polarity words of the fragment, else of its clause: with values of the claim, or
    # for a runtime claim whose result is true/false (the clause's truth is the claim)
    if not out and not (claim.kind == "runtime" and _truth(claim)):
        return []
    lex = lexicon()
    at = sentence.find(fragment)
    lo, hi = (at, at + len(fragment)) if at >= 0 else (0, len(sentence))
    words = [(i, w) for i, w in polarity_words(sentence) if w not in lex.compounds]
    inside = [(i, w) for i, w in words if lo <= i < hi]
    if not inside:
        a, b = clause_bounds(sentence, lo, hi)
        inside = [(i, w) for i, w in words if a <= i < b]
    for i, w in inside:
        text = sentence[i:i + len(w)]
        if not _covered(taken, i, i + len(w)) and text not in [t for _, t in out
                                                              if isinstance(t, str)]:
            out.append((i, text))
    out.sort(key=lambda p: (near(p[0]) > 400, p[0]))
    return [t for _, t in out]


def _truth(claim: Claim) -> bool:
    """Whether a runtime claim's expectation is true/false (or a list of them)."""
    e = claim.runtime.expected if claim.runtime is not None else claim.expected
    items = e if isinstance(e, list) else [e]
    return bool(items) and all(isinstance(x, bool) for x in items)


def worth_it(spans: list[str | dict]) -> bool:
    """Whether spans carry a value (not only polarity words)."""
    lex = lexicon()
    for s in spans:
        text = s if isinstance(s, str) else s["text"]
        key = text.lower() if text.isascii() else text
        if key not in lex.negators and key not in lex.sides:
            return True
    return False


def reason(claim: Claim) -> str:
    return PARAPHRASE.get(claim.kind, _DEFAULT_REASON)


__all__ = ["PARAPHRASE", "propose", "reason", "worth_it"]



def code_spans_near(model, line: int) -> set[str]:
    """The code spans of a parsed lesson (`model`) on and around `line` (a sentence may
    wrap)."""
    return {c.text for c in model.code_spans if line - 1 <= c.line <= line + 8}


def migrate(project, ids: list[str] | None = None, write: bool = False
            ) -> list[tuple[str, list | None, str | None]]:
    """`says` (or `paraphrase`) for every claim that has neither: (gid, says, paraphrase);
    `write` adds them to the claim files (a minimal edit: one key per claim appended to
    its table). `ids`: global ids or `<course>/<lesson-stem>` prefixes (None: all)."""
    from verifier.claims.loader import load_claims
    from verifier.claims.sentences import _plain_fragment, locate, sentence_of

    out: list[tuple[str, list | None, str | None]] = []
    docs: dict = {}
    by_file: dict = {}
    for lc in load_claims(project):
        c = lc.claim
        if c.says is not None or c.paraphrase is not None or lc.problem:
            continue
        if ids is not None and not any(lc.gid == i or lc.gid.startswith(i.rstrip("/") + "/")
                                       for i in ids):
            continue
        key = (lc.course, lc.lesson)
        if key not in docs:
            course = project.pins.course.get(lc.course)
            f = project.course_root(course) / lc.lesson if course is not None else None
            docs[key] = project.lesson_for(f, lc.course) if f is not None and f.is_file() else None
        doc = docs[key]
        if doc is None:
            continue
        line = locate(c.fragment, doc.text)
        sentence = sentence_of(doc.text, c.fragment, line, store=project.store) if line else None
        if sentence is None:
            continue
        spans = propose(c, sentence, _plain_fragment(c.fragment),
                        code_spans_near(project.lesson(doc), line))
        row = (lc.gid, spans, None) if spans else (lc.gid, None, reason(c))
        out.append(row)
        by_file.setdefault(lc.file, []).append((c.id, row))
    if write:
        _write(project, by_file)
    return out


def _write(project, by_file: dict) -> None:
    import tomlkit

    from verifier.claims.claimedit import _says
    from verifier.claims.loader import load_file
    from verifier.errors import ConfigError
    from verifier.claims.loader import claims_root
    from verifier.safewrite import Area
    from verifier.tomlerrors import read_text

    for path, rows in sorted(by_file.items()):
        doc = tomlkit.parse(read_text(path))
        tables = {t.get("id"): t for t in doc.get("claim", [])}
        for cid, (_, says, paraphrase) in rows:
            t = tables[cid]
            if says:
                t.add("says", _says(says))
            else:
                t.add("paraphrase", paraphrase)
        text = tomlkit.dumps(doc)
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory(prefix="verifier-says-") as d:
            tmp = Path(d) / path.name
            tmp.write_text(text, encoding="utf-8")
            bad = [lc for lc in load_file(project, path.parent.name, tmp) if lc.problem]
        if bad:
            raise ConfigError(f"refusing to write `says`: {bad[0].claim.id}: {bad[0].problem}",
                              file=str(path))
        Area.edit(claims_root(project), "the claim files").write(path, text)
