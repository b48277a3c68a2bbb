"""`verifier lint --self-test`: how many single faults lint catches on the real course.

Every lesson of every course in pins.toml is mutated with one fault at a time and
linted again; a mutant is *caught* when a new error or warning appears on the
mutated line. Fault types:

| fault | mutation |
|---|---|
| identifier | the last name of an inline-code API reference that resolved at the pin, misspelt as authors do (a letter dropped, doubled, two swapped, a wrong plural, a wrong prefix: `mj_resetData` -> `mj_resetDta`, `mjv_defaultOption` -> `mjr_defaultOption`), to a name no index holds |
| path | the file name of a pinned permalink, changed to one absent at the pin (`engine_io.c` -> `engine_io_x.c`) |
| range-past-end | the end of a permalink's line range moved past the end of the file |
| range-reversed | `#Lx-Ly` (x < y) written `#Ly-Lx` |
| sha | a permalink's pinned commit, or a pinned commit the prose gives, replaced by another SHA |
| relative-link | one letter dropped from the file name of a relative link whose target exists |
| version | a pinned version the prose gives (`MuJoCo 3.15.0`, `| 阅读版本 | 1.57.0 |`) bumped (`3.16.0`) |

Recall is counted over **every** mutant of a fault type whose fault lies in what is
served at pinned identity (*judged*): each is caught (a new error or warning on its
line), undecidable (lint listed it as unchecked on its line) or missed (nothing);
the undecidable count as missed. Counted apart, with how many lint still caught or
listed, are the mutants *outside the served surface*, where no provider serves what
would decide them:

- identifier: the misspelt name is declared in no file served at pinned identity and
  in no closed world of the pinned release (`verifier/lint/closed.py`);
- path: the pin's git tree is not reachable and the path lies under no prefix the
  pinned release's wheel maps (its absence cannot be known);
- range-past-end: the cited file is not served (its length is unknown);
- relative-link: the original target is not in this partial course copy.

Range-reversed, SHA and version mutants are always judged (the text decides: an
unattributed version the rule does not judge is a miss). Mutants are sampled per
lesson and fault type with a seeded RNG (`--sample`, `--seed`): the same inputs
give the same report.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
import zlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from verifier.lessons import parse_lesson
from verifier.lint.base import UNAVAILABLE, LintContext
from verifier.lint.config import load_lint_config
from verifier.lint.rules import RULES
from verifier.lint.closed import SLIP_KINDS, make_slip, worlds
from verifier.lint.rules._links import ABSENT, RELEASE_ABSENT, file_lines, path_presence, \
    readable, upstream_links
from verifier.lint.rules.identifier import Identifier
from verifier.lint.rules.version import Version
from verifier.results import Severity

FAULTS = ("identifier", "path", "range-past-end", "range-reversed", "sha", "relative-link",
          "version")
TARGET = 0.95


@dataclass
class Mutant:
    fault: str
    lesson: str
    line: int
    old: str
    new: str
    offset: int                 # where `old` starts in the lesson text
    served: bool                # the fault lies in what is served at pinned identity
    basis: str                  # why it is (or is not)
    needle: str = ""            # what an unchecked-item report names when it is this fault
    caught: bool = False
    listed: bool = False        # reported as unchecked (source-unavailable) on its line
    by: str = ""                # the finding that caught it

    def apply(self, text: str) -> str:
        assert text[self.offset:self.offset + len(self.old)] == self.old
        return text[:self.offset] + self.new + text[self.offset + len(self.old):]


@dataclass
class Tally:
    """Per fault type. `judged` are the mutants in what is served at pinned identity:
    each is caught, undecidable (lint listed it as unchecked on its line) or missed
    (said nothing); the rate counts the undecidable as missed. Mutants outside the
    served surface are counted apart."""

    total: int = 0
    judged: int = 0
    caught: int = 0
    undecidable: int = 0
    outside: int = 0
    outside_caught: int = 0
    outside_listed: int = 0
    missed: list[Mutant] = field(default_factory=list)       # judged, not caught
    silent: list[Mutant] = field(default_factory=list)       # outside, and not said

    @property
    def rate(self) -> float | None:
        return self.caught / self.judged if self.judged else None


# --------------------------------------------------------------------------- linting


def _with_text(doc, text: str):
    d = dataclasses.replace(doc)
    d.__dict__["text"] = text       # LessonDoc.text is a cached_property: preset it
    return d


def lint_one(ctx: LintContext, doc) -> list:
    lesson = parse_lesson(doc.text)
    out = []
    for rule in RULES:
        out.extend(rule.check(ctx, doc, lesson))
    return out


def _key(f) -> tuple:
    return (f.rule, f.line, f.message)


# --------------------------------------------------------------------------- mutants


def _line_start(text: str, line: int) -> int:
    pos = 0
    for _ in range(line - 1):
        pos = text.index("\n", pos) + 1
    return pos


def _find(text: str, needle: str, line: int) -> int | None:
    """Offset of `needle` at or after the start of `line`."""
    pos = text.find(needle, _line_start(text, line))
    return pos if pos >= 0 else None


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


class Mutator:
    def __init__(self, ctx: LintContext, rng: random.Random):
        self.ctx = ctx
        self.rng = rng
        self.project = ctx.project

    # every generator returns a list of Mutant (all candidates; sampling is later)
    def identifier(self, doc, lesson, text) -> list[Mutant]:
        out = []
        for d in Identifier().decisions(self.ctx, doc, lesson):
            span, ref, j = d.span, d.ref, d.judgement
            if j is None or j.status != "resolved" or "/" in span.text or ref.variants:
                continue
            last = ref.last
            pos_in = span.text.rfind(last)
            off = _find(text, f"`{span.text}`", span.line)
            if pos_in < 0 or off is None:
                continue
            new_last = self._slip(last)
            if new_last is None:
                continue
            new_span = span.text[:pos_in] + new_last + span.text[pos_in + len(last):]
            served, basis = self._served(doc, d, last)
            out.append(Mutant("identifier", doc.name, span.line, f"`{span.text}`",
                              f"`{new_span}`", off, served, basis, needle=new_last))
        return out

    def _slip(self, name: str) -> str | None:
        """A realistic slip of `name` that no index of any pinned upstream holds."""
        kinds = list(SLIP_KINDS)
        self.rng.shuffle(kinds)
        for kind in kinds:
            cand = make_slip(name, kind, self.rng.randrange(1 << 16))
            if cand and cand != name and cand.isidentifier() and not self._known(cand):
                return cand
        return None

    def _known(self, name: str) -> bool:
        for u in sorted(self.project.pins.upstream):
            idx = self.ctx.index(u)
            rel = idx.release_surface()
            if idx.lookup(name) or (rel is not None and rel.lookup(name)):
                return True
        return False

    def _served(self, doc, d, name: str) -> tuple[bool, str]:
        """Whether the name the mutant misspells is declared in a file served at pinned
        identity (or in a closed world of the pinned release): else its slip is counted
        apart ("outside the served surface")."""
        ups = [u for u in (d.attributed, *doc.upstreams) if u in self.project.pins.upstream]
        for u in dict.fromkeys(ups):
            idx = self.ctx.index(u)
            rows = [s for s in idx.lookup(name) if s.kind != "import"]
            ws = worlds(self.ctx, u)
            if rows and len(d.ref.segments) >= 2 and all(
                    w.unseen_compiled for s in rows for w in ws if w.holds(s)):
                return False, ("read through a receiver of compiled bindings that nothing "
                               "lists here (no runtime environment built)")
            if rows:
                return True, f"declared in a served file of {u}"
            rel = idx.release_surface()
            if rel is not None and any(w.holds(s) for s in rel.lookup(name) for w in ws):
                return True, f"in a closed world of {u}'s pinned release"
        return False, "declared in no file served at pinned identity"

    def _permalinks(self, lesson):
        for link, gl, up in upstream_links(self.ctx, lesson):
            if readable(self.ctx, gl, up):
                yield link, gl, up

    def path(self, doc, lesson, text) -> list[Mutant]:
        out = []
        for link, gl, up in self._permalinks(lesson):
            name = PurePosixPath(gl.path).name
            stem, dot, ext = name.rpartition(".")
            if not dot or not stem:
                stem, ext = name, ""
            new_name = f"{stem}_x" + (f".{ext}" if dot and ext else "")
            new_path = str(PurePosixPath(gl.path).with_name(new_name))
            off = _find(text, link.href, link.line)
            if off is None or f"/{gl.path}" not in link.href:
                continue
            i = link.href.index(f"/{gl.path}") + 1
            where = path_presence(self.ctx, up, new_path)
            ok = where.state in (ABSENT, RELEASE_ABSENT)
            out.append(Mutant("path", doc.name, link.line, gl.path, new_path, off + i, ok,
                              where.how or "presence at the pin unknown", needle=new_path))
        return out

    def _fragment(self, link, text):
        off = _find(text, link.href, link.line)
        if off is None or "#" not in link.href:
            return None
        return off + link.href.index("#") + 1

    def range_past_end(self, doc, lesson, text) -> list[Mutant]:
        out = []
        for link, gl, up in self._permalinks(lesson):
            if gl.start is None:
                continue
            at = self._fragment(link, text)
            if at is None:
                continue
            _, src = self.ctx.source(up.name, gl.path)
            frag = link.href.split("#", 1)[1]
            if src is not None:
                n = len(file_lines(self.ctx, up.name, gl.path, src))
                new = f"L{gl.start}-L{n + 7}"
                ok, basis = True, f"file served ({n} lines)"
            else:
                new = f"L{gl.start}-L{(gl.end or gl.start) + 100000}"
                ok, basis = False, "file not served at pinned identity: length unknown"
            out.append(Mutant("range-past-end", doc.name, link.line, frag, new, at, ok, basis,
                              needle=gl.path))
        return out

    def range_reversed(self, doc, lesson, text) -> list[Mutant]:
        out = []
        for link, gl, up in upstream_links(self.ctx, lesson):
            if gl.start is None or gl.end is None or gl.end <= gl.start:
                continue
            at = self._fragment(link, text)
            if at is None:
                continue
            frag = link.href.split("#", 1)[1]
            out.append(Mutant("range-reversed", doc.name, link.line, frag,
                              f"L{gl.end}-L{gl.start}", at, True, "the text decides"))
        return out

    def _other_sha(self, sha: str) -> str:
        pins = {c for up in self.project.pins.upstream.values() for c in (up.commit, *up.also)}
        while True:
            cand = "".join(self.rng.choice("0123456789abcdef") for _ in sha)
            if not any(p.startswith(cand) for p in pins) and re.search(r"[a-f]", cand) \
                    and re.search(r"\d", cand):
                return cand

    def sha(self, doc, lesson, text) -> list[Mutant]:
        out = []
        for link, gl, up in upstream_links(self.ctx, lesson):
            if gl.ref != up.commit:
                continue
            off = _find(text, link.href, link.line)
            if off is None or f"/{gl.ref}" not in link.href:
                continue
            i = link.href.index(f"/{gl.ref}") + 1
            out.append(Mutant("sha", doc.name, link.line, gl.ref, self._other_sha(gl.ref),
                              off + i, True, "permalink: the text decides"))
        judged = {(m.line, m.token) for m in Version().mentions(self.ctx, doc, lesson)
                  if m.kind == "commit"}
        pins = [c for up in self.project.pins.upstream.values() for c in (up.commit, *up.also)]
        for no, ln, base in _prose_lines(text):
            for m in re.finditer(r"(?<![0-9A-Za-z/])([0-9a-f]{7,40})(?![0-9A-Za-z])", ln):
                sha = m.group(1)
                if not any(p.startswith(sha) for p in pins):
                    continue
                ok = (no, sha) in judged
                out.append(Mutant("sha", doc.name, no, sha, self._other_sha(sha),
                                  base + m.start(1), True,
                                  "prose: the text gives it to an upstream" if ok else
                                  "prose: nothing says whose commit it is"))
        return out

    def version(self, doc, lesson, text) -> list[Mutant]:
        out = []
        judged = {(m.line, m.token) for m in Version().mentions(self.ctx, doc, lesson)
                  if m.kind == "version"}
        versions = set()
        for u in doc.upstreams:
            v = self.project.pins.get(u).version.lstrip("v")
            parts = v.split(".")
            versions.update({v, ".".join(parts[:2])})
        if not versions:
            return out
        alt = "|".join(sorted(map(re.escape, versions), key=len, reverse=True))
        pat = re.compile(rf"(?<![\w.])v?({alt})(?![\w.]*\d)")
        for no, ln, base in _prose_lines(text):
            for m in pat.finditer(ln):
                said = m.group(1)
                parts = said.split(".")
                bumped = ".".join([parts[0], str(int(parts[1]) + 1), *parts[2:]])
                ok = (no, said) in judged
                out.append(Mutant("version", doc.name, no, said, bumped, base + m.start(1), True,
                                  "the text gives it to an upstream" if ok else
                                  "unattributed version number"))
        return out

    def relative_link(self, doc, lesson, text) -> list[Mutant]:
        out = []
        root = doc.file.resolve()
        for _ in PurePosixPath(doc.path).parts:
            root = root.parent
        here = PurePosixPath(doc.path).parent
        partial = self.ctx.course_partial(doc.course)
        for link in lesson.links:
            parts = urlsplit(link.href.strip())
            if parts.scheme or parts.netloc or not parts.path or link.href.startswith(("#", "/")):
                continue
            rel = unquote(parts.path)
            name = PurePosixPath(rel).name
            stem = name.rsplit(".", 1)[0]
            if len(stem) < 3:
                continue
            norm: list[str] = []
            for p in (here / rel).parts:
                if p == "..":
                    if norm:
                        norm.pop()
                elif p != ".":
                    norm.append(p)
            exists = root.joinpath(*norm).exists()
            k = self.rng.randrange(1, len(stem))
            new_name = name[:k] + name[k + 1:]
            off = _find(text, f"]({link.href}", link.line)
            if off is None:
                continue
            i = off + 2 + link.href.rindex(name)
            ok = exists or not partial
            out.append(Mutant("relative-link", doc.name, link.line, name, new_name, i, ok,
                              "target in the course copy" if exists else
                              "complete course tree" if not partial else
                              "target not in this partial course copy"))
        return out


def _prose_lines(text: str):
    """(line number, line text with URLs blanked, offset of the line) outside fences."""
    fence = None
    pos = 0
    for no, ln in enumerate(text.split("\n"), 1):
        s = ln.lstrip()
        if fence is None and re.match(r"(```|~~~)", s):
            fence = s[:3]
        elif fence is not None and s.startswith(fence):
            fence = None
        elif fence is None:
            blank = re.sub(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+",
                           lambda m: " " * len(m.group(0)), ln)
            yield no, blank, pos
        pos += len(ln) + 1


# --------------------------------------------------------------------------- run


def run_self_test(project, *, sample: int = 3, seed: int = 0, lessons=None,
                  faults: tuple[str, ...] = FAULTS) -> dict:
    """Mutate every lesson (up to `sample` mutants per lesson and fault type; 0 = all),
    lint each mutant, and tally catches per fault type."""
    t0 = time.monotonic()
    ctx = LintContext(project, load_lint_config(project.root))
    docs = lessons if lessons is not None else project.lessons()
    tallies = {f: Tally() for f in faults}
    gens = {"identifier": "identifier", "path": "path", "range-past-end": "range_past_end",
            "range-reversed": "range_reversed", "sha": "sha", "relative-link": "relative_link",
            "version": "version"}
    n_lint = 0
    for doc in docs:
        text = doc.text
        lesson = parse_lesson(text)
        base = {_key(f) for f in lint_one(ctx, doc)}
        n_lint += 1
        rng = random.Random(seed * 1_000_003 + zlib.crc32(doc.name.encode()))
        mut = Mutator(ctx, rng)
        for fault in faults:
            cands = getattr(mut, gens[fault])(doc, lesson, text)
            if sample and len(cands) > sample:
                # keep both kinds represented: served first, then the others
                ok = [m for m in cands if m.served]
                no = [m for m in cands if not m.served]
                take_ok = min(len(ok), max(1, sample - min(len(no), sample // 3)))
                cands = rng.sample(ok, take_ok) + rng.sample(no, min(len(no), sample - take_ok))
            for m in cands:
                new_doc = _with_text(doc, m.apply(text))
                found = lint_one(ctx, new_doc)
                n_lint += 1
                fresh = [f for f in found if _key(f) not in base and f.line == m.line]
                hits = [f for f in fresh if f.rule != UNAVAILABLE and f.severity in
                        (Severity.ERROR, Severity.WARNING)]
                m.caught = bool(hits)
                m.by = f"{hits[0].code} {hits[0].severity.value}: {hits[0].message}" if hits else ""
                needle = m.needle or m.new.strip("`")
                m.listed = any(f.rule == UNAVAILABLE and f.line == m.line
                               and needle in (f.target or "") for f in found)
                t = tallies[fault]
                t.total += 1
                if m.served:
                    t.judged += 1
                    t.caught += m.caught
                    t.undecidable += (m.listed and not m.caught)
                    if not m.caught:
                        t.missed.append(m)
                else:
                    t.outside += 1
                    t.outside_caught += m.caught
                    t.outside_listed += (m.listed and not m.caught)
                    if not m.caught and not m.listed:
                        t.silent.append(m)
    elapsed = time.monotonic() - t0
    return {
        "lessons": len(docs), "sample": sample, "seed": seed, "lint_runs": n_lint,
        "seconds": round(elapsed, 1), "target": TARGET,
        "faults": {f: {"mutants": t.total, "judged": t.judged, "caught": t.caught,
                       "undecidable": t.undecidable,
                       "missed": t.judged - t.caught - t.undecidable,
                       "rate": None if t.rate is None else round(t.rate, 4),
                       "outside": t.outside, "outside_caught": t.outside_caught,
                       "outside_listed_unchecked": t.outside_listed,
                       "not_caught": [_brief(m) for m in t.missed],
                       "outside_silent": [_brief(m) for m in t.silent]}
                   for f, t in tallies.items()},
    }


def _brief(m: Mutant) -> dict:
    return {"lesson": m.lesson, "line": m.line, "old": m.old, "new": m.new, "basis": m.basis}


def meets_target(report: dict) -> bool:
    return all(v["rate"] is None or v["rate"] >= report["target"]
               for v in report["faults"].values())


def render(report: dict) -> str:
    rows = [f"lint self-test: {report['lessons']} lesson(s), {report['lint_runs']} lint runs, "
            f"sample {report['sample'] or 'all'} per lesson and fault, seed {report['seed']}, "
            f"{report['seconds']} s",
            "",
            "| fault | mutants | judged | caught | undecidable | missed | recall | "
            "outside the served surface | of those caught | listed unchecked |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for f, v in report["faults"].items():
        rate = "–" if v["rate"] is None else f"{100 * v['rate']:.1f} %"
        rows.append(f"| {f} | {v['mutants']} | {v['judged']} | {v['caught']} | "
                    f"{v['undecidable']} | {v['missed']} | {rate} | {v['outside']} | "
                    f"{v['outside_caught']} | {v['outside_listed_unchecked']} |")
    rows += ["", "recall = caught / judged (undecidable counted as missed); judged = the "
             "mutants in what is served at pinned identity"]
    missed = [(f, m) for f, v in report["faults"].items() for m in v["not_caught"]]
    if missed:
        rows += ["", "judged mutants not caught:"]
        rows += [f"  {f}: {m['lesson']}:{m['line']} {m['old']!r} -> {m['new']!r} ({m['basis']})"
                 for f, m in missed[:40]]
    rows.append("")
    rows.append(f"target {100 * report['target']:.0f} % per fault type: "
                + ("met" if meets_target(report) else "NOT met"))
    return "\n".join(rows)


def main(argv=None) -> int:
    import argparse

    from verifier.project import load_project

    p = argparse.ArgumentParser(prog="python -m verifier.lint.selftest",
                                description=__doc__.split("\n")[0])
    p.add_argument("--sample", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--format", choices=("table", "json"), default="table")
    args = p.parse_args(argv)
    report = run_self_test(load_project(), sample=args.sample, seed=args.seed)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.format == "json"
          else render(report))
    return 0 if meets_target(report) else 1


if __name__ == "__main__":
    raise SystemExit(main())
