from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.lint.base import Rule
from verifier.lint.rules._links import short_sha
from verifier.lint.rules._names import lesson_scope
from verifier.lint.shapes import PRODUCT_WORDS, norm_word

_HEX = re.compile(r"(?<![0-9A-Za-z])([0-9a-f]{7,40})(?![0-9A-Za-z])")
_VER = r"v?(\d+\.\d+(?:\.\d+)*)"
_GAP = r"[\s*_`:/（(]{0,6}"
_CLAUSE = re.compile(r"[。；;！？!?]")
_ASCII = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*")
# words that make a hex string or version the course repository's own (its branches,
# milestones, trees), not an upstream's pin
_COURSE_WORDS = re.compile(r"^(?:main|master|head|origin|branch|tree|blob|pr|issue|fork|"
                           r"e\d+|stage\d*)$")
_PRODUCT_VERSION = re.compile(r"(?<![\w-])([A-Z][A-Za-z0-9]*[A-Za-z])[\s*_`]*v?\d+\.\d+")
_COURSE_ZH = re.compile(r"分支|课程仓库|本仓库|主干")
# "pinned source" wording: what follows is the pin of the lesson's upstream
_PIN_WORDS_SHA = re.compile(r"固定提交|固定源码|源码提交|官方提交|官方版本|阅读基线|源码基线|固定在|"
                            r"官方固定|pinned (?:commit|at|source)|upstream commit|上游提交")
# right before a commit: "固定 `sha`", "提交 `sha`" (the comma clause may still name the
# course's `main` or another project)
_PIN_ADJ = re.compile(r"(?:固定|提交|commit|pinned)[\s*_`:：为是]{0,3}$", re.I)
# "Warp 候选版本 1.18.0": a version word, judged only when the clause names the upstream
_VER_WORD = re.compile(r"(?:版本|version)[\s*_`:：|为是]{0,4}$", re.I)
# a quantity, not a version: "tau 固定为 0.05 s", "高度固定 0.2 m", "固定 1.5 倍"
_UNIT_AFTER = re.compile(
    r"\s*(?:(?:s|ms|us|µs|ns|min|h|m|mm|cm|km|rad|deg|kg|g|N|Nm|N·m|Hz|kHz|J|W|Pa|K|"
    r"m/s|rad/s|m/s²|rad/s²|N/m|GB|MB|KB|GiB|MiB)(?![\w.])|%|°|秒|毫秒|米|厘米|毫米|度|弧度|倍|赫兹|"
    r"牛|千克|公斤|克|步|次|帧)")
_PIN_WORDS_VER = re.compile(r"(?:固定在?|阅读版本|阅读基线|源码基线|源码为|官方版本|官方|pinned(?: version)?)"
                            r"(?:仍然|依然|依旧|仍|还|也)?[\s*_`:：|为是在]{0,4}$", re.I)
# a bare version of the lesson's upstream: "3.15 的执行器", "| 3.15.0 实际组成 |",
# "当成 1.57.0 配置" (no word right before it; two parts only with 的/实际 after)
_BARE_BEFORE = re.compile(r"[A-Za-z0-9.+\-]\s*[*_`]*\s*$")
_BARE_AFTER2 = re.compile(r"^[*_`]*\s*(?:的|实际|还|对|中|里|版|源码|实现|模式)")
# three parts: a version whatever follows, unless the clause ends on it (`仍标3.14.0。`)
_BARE_AFTER3 = re.compile(r"^[*_`]*\s*(?![。．.，,；;：:）)」』\]]|$)")


def _quantity(clause: str, m: re.Match) -> bool:
    """The number has a unit right after it: a quantity (a version never has one)."""
    return _UNIT_AFTER.match(clause, m.end()) is not None


class Version(Rule):
    """Version and commit mentions in the lesson text must agree with pins.toml: a
    lesson upstream's name followed by a version (`MuJoCo 3.15.0`, `Drake v1.57.0`,
    `Newton **1.6.1**`, `Warp 1.18.0`, `MuJoCo3.15`), or a version right after
    pinned-source wording (`固定 3.15.0 源码`, `| 阅读版本 | 1.57.0 |`), must equal
    its pinned version (a shorter `3.15` matches `3.15.0`); a commit SHA (7-40 hex)
    the text attributes to an upstream (its name, or pinned-source wording such as
    `固定提交`, `阅读基线：`, nearest before it in the clause) must be that upstream's
    pinned commit. A hex string or version the text gives to something else (the
    course's own `main`, an `E1` milestone, a `tree`, another library: `JAX0.7.2`,
    `MuJoCo-Warp 3.12.0`) is not judged, nor is a statement about another version
    (`MuJoCo 3.1 之前`, `since Drake 1.20`), nor one nothing attributes."""

    name = "version"
    code = "VL105"

    def check(self, ctx, doc, lesson):
        out = []
        for m in self.mentions(ctx, doc, lesson):
            if m.kind == "version":
                if any(_same_version(m.token, u.version) for u in m.upstreams):
                    continue
                who = " or ".join(f"{u.name} {u.version}" for u in m.upstreams)
                out.append(self.finding(doc, m.line, f"says {m.target}, but pins.toml pins {who}",
                                        upstream=m.upstreams[0].name, target=m.target,
                                        said=m.token, pinned=m.upstreams[0].version))
                continue
            owners = m.pins_of
            if any(u in owners for u in m.upstreams):
                continue
            names = ", ".join(u.name for u in m.upstreams)
            if not owners:
                pins = [u.commit for u in m.upstreams]
                msg = (f"commit {short_sha(m.token, *pins)} is not pinned in pins.toml (the "
                       f"text gives it to {names}, pinned at "
                       f"{', '.join(short_sha(u.commit, m.token) for u in m.upstreams)})")
            else:
                msg = (f"commit {m.token[:12]}… is the pin of {owners[0].name}, but the text "
                       f"gives it to {names}")
            out.append(self.finding(doc, m.line, msg, target=m.token,
                                    upstream=m.upstreams[0].name))
        return out

    def mentions(self, ctx, doc, lesson) -> list["Mention"]:
        """Every version and commit mention the text attributes to one of the lesson's
        upstreams (what this rule judges; the self-test counts the rest as
        unattributed)."""
        pins = ctx.project.pins
        ups = {up.name: up for up in pins.upstream.values()}
        words = {}
        for up in ups.values():
            for w in (up.name, up.slug.split("/")[-1], f"py{up.name}"):
                words.setdefault(norm_word(w), up.name)
        mine = [u for u in doc.upstreams if u in ups]
        scope = lesson_scope(ctx, doc, lesson)
        external = {w for w in scope.external_words | PRODUCT_WORDS if w not in words}
        alt = "|".join(sorted(map(re.escape, ups), key=len, reverse=True))
        mention = re.compile(rf"(?i)(?<![A-Za-z0-9-])({alt})(?![A-Za-z-]){_GAP}{_VER}"
                             r"(?![\d.]*\d)")
        # CJK text touches numbers without a space (`固定3.15.7树`): only ASCII word
        # characters bind to them
        version_at = re.compile(rf"(?<![A-Za-z0-9_.]){_VER}(?![\d.]*\d)")
        out: list[Mention] = []
        lines = doc.text.split("\n")
        seen_rows: set[int] = set()
        for s in lesson.sentences:
            text = s.text
            raw = lines[s.line - 1] if 0 < s.line <= len(lines) else ""
            if raw.lstrip().startswith("|"):
                if s.line in seen_rows:
                    continue   # a table row is one unit: its cells lead into each other
                seen_rows.add(s.line)
                text = raw.replace("`", "")
            for clause in _clauses(text):
                strong = set()
                for m in mention.finditer(clause):
                    strong.add(m.start(2))
                    up = ups[m.group(1).lower()]
                    if up.name in mine and not _historical(clause, m.start(), m.end()):
                        out.append(Mention(s.line, "version", m.group(2), m.group(0).strip(),
                                           (up,)))
                for m in version_at.finditer(clause):
                    if _quantity(clause, m):
                        continue
                    pinned_words = _PIN_WORDS_VER.search(clause[:m.start()])
                    if m.start(1) in strong:
                        continue
                    if not (pinned_words or _VER_WORD.search(clause[:m.start()])):
                        bare = _bare(clause, m, [ups[u] for u in mine], words, external)
                        if bare is not None and not _historical(clause, m.start(), m.end()):
                            out.append(Mention(s.line, "version", m.group(1),
                                               m.group(0).strip(), (bare,)))
                        continue
                    owner = _owner(clause[:m.start()], words, external)
                    if owner is None and not pinned_words:
                        continue   # "版本 2.1" alone: whose?
                    if owner is None:
                        cands = tuple(ups[u] for u in mine)
                    elif owner[0] == "upstream" and owner[1] in mine:
                        cands = (ups[owner[1]],)
                    else:
                        continue   # another library's or the course's own version
                    if cands and not _historical(clause, m.start(), m.end()):
                        out.append(Mention(s.line, "version", m.group(1), m.group(0).strip(),
                                           cands))
                for h in _HEX.finditer(clause):
                    sha = h.group(1)
                    if not re.search(r"[a-f]", sha) or not re.search(r"\d", sha):
                        continue
                    before = clause[:h.start()]
                    adjacent = [m for m in _PIN_WORDS_SHA.finditer(before)
                                if len(before) - m.end() <= 4] or list(_PIN_ADJ.finditer(before))
                    if adjacent:
                        # "…官方 Python 绑定，固定提交 `sha`": pinned-source wording right
                        # before it; only its own comma clause can name another owner
                        cut = max(before.rfind(c, 0, adjacent[-1].start()) for c in "，,")
                        owner = _owner(before[cut + 1:], words, external)
                        if owner is None:
                            wide = _owner(before, words, external)   # "Drake 1.57.0，commit"
                            owner = wide if wide and wide[0] == "upstream" else None
                    else:
                        owner = _owner(before, words, external)
                    if owner is None:
                        if not adjacent and not _PIN_WORDS_SHA.search(before):
                            continue   # nothing says whose commit this is
                        named = tuple(ups[u] for u in mine)
                    elif owner[0] == "upstream":
                        named = (ups[owner[1]],)
                    else:
                        continue   # the course's own commit, a tree, another library's
                    if not named or not any(u.name in mine for u in named):
                        continue
                    pins_of = tuple(u for u in ups.values()
                                    if any(c.startswith(sha) for c in (u.commit, *u.also)))
                    out.append(Mention(s.line, "commit", sha, sha, named, pins_of))
        return out


@dataclass(frozen=True)
class Mention:
    line: int
    kind: str                       # version | commit
    token: str                      # `3.15.0`, a hex string
    target: str                     # as written, with the name: `MuJoCo 3.15.0`
    upstreams: tuple                # whose pin the text gives it as
    pins_of: tuple = ()             # (commits) upstreams it is the pin of


_BEFORE_HIST = re.compile(r"(?:自|从|早于|晚于|旧版|旧的|历史|以前的|之前的|since|before|after|until|"
                          r"prior to|older than|newer than|deprecated in|removed in|added in|"
                          r"introduced in|as of)\s*$", re.I)
_AFTER_HIST = re.compile(r"^[\s*_`）)]*(?:之前|以前|之后|以后|起|开始|以上|以下|及以上|及更早|及更新|"
                         r"引入|加入|新增|移除|删除|弃用|废弃|or later|or earlier|and later|"
                         r"onwards|and newer|and older)", re.I)


_CONSTANTS = frozenset({"3.14", "2.71", "2.72", "1.41", "1.73", "1.61", "1.62"})


def _bare(clause: str, m: re.Match, mine: list, words, external):
    """The lesson upstream a bare version is the version of, or None: nothing names
    an owner before it in the clause, no word touches it, exactly one of the lesson's
    upstreams has its major version with a minor version within 3 of the pin's, the
    words after it speak of a version (`3.15.0 的`, `实际`, `配置`, `源码`: not `仍标
    3.14.0。`, whose owner the clause leaves open), and a two-part number has a
    two-digit minor like the pin's and is no well-known constant (`3.15 的实现`;
    `1.5 的系数` and `3.14 的近似` are quantities)."""
    said = m.group(1).split(".")
    if len(said) == 2 and m.group(1) in _CONSTANTS:
        return None
    before = clause[:m.start()]
    # its own comma clause: "E2 复盘：…，特别核对 3.15 的" is not the milestone's
    before = before[max(before.rfind(c) for c in "，,：:") + 1:]
    if _BARE_BEFORE.search(before) or _owner(before, words, external) is not None:
        return None
    if not (_BARE_AFTER2 if len(said) == 2 else _BARE_AFTER3).match(clause[m.end():]):
        return None
    fits = []
    for up in mine:
        pin = up.version.lstrip("v").split(".")
        if len(pin) < 2 or not pin[1].isdigit() or said[0] != pin[0]:
            continue
        if len(said) == 2 and len(said[1]) != len(pin[1]) or len(pin[1]) < 2 and len(said) == 2:
            continue
        if abs(int(said[1]) - int(pin[1])) <= 3:
            fits.append(up)
    return fits[0] if len(fits) == 1 else None


def _historical(clause: str, start: int, end: int) -> bool:
    """`MuJoCo 3.1 之前`, `since Drake 1.20`: a statement about another version, not a
    claim of the pinned one."""
    return bool(_BEFORE_HIST.search(clause[max(0, start - 16):start])
                or _AFTER_HIST.match(clause[end:end + 12]))


def _clauses(text: str) -> list[str]:
    out, start = [], 0
    for m in _CLAUSE.finditer(text):
        out.append(text[start:m.end()])
        start = m.end()
    out.append(text[start:])
    return [c for c in out if c.strip()]


def _same_version(said: str, pinned: str) -> bool:
    pinned = pinned.lstrip("v")
    return said == pinned or pinned.startswith(said + ".")


def _owner(before: str, words: dict[str, str], external: set[str] | frozenset[str]
           ) -> tuple[str, str] | None:
    """Nearest owner named before a position: ('upstream', name), ('course', word) or
    ('other', word) for a compound or non-upstream library name."""
    best = None
    for m in _ASCII.finditer(before):
        tok = m.group(0).rstrip("+-_.")
        base = re.sub(r"\d[\d.]*$", "", tok) or tok
        w = norm_word(base)
        kind = None
        if _COURSE_WORDS.match(w) or _COURSE_WORDS.match(norm_word(tok)):
            kind = ("course", tok)
        elif w in words and not re.search(r"[-_]", base):
            kind = ("upstream", words[w])
        elif re.search(r"[-_]", base) and any(norm_word(p) in words
                                               for p in re.split(r"[-_]", base) if p):
            kind = ("other", tok)   # `MuJoCo-Warp`, `mujoco-mjx`, `drake-atlas`
        elif w in external:
            kind = ("other", tok)   # `JAX0.7.2`, `Python 3.12`: another library or product
        if kind is not None and kind[0] == "other" and best is not None \
                and best[1][0] == "upstream" and before[m.start() - 1:m.start()] == "/" \
                and before[best[0]:m.start() - 1].isalnum():
            continue   # `MuJoCo/MJX`: a part of the upstream written beside its name
        if kind is not None:
            best = (m.start(), kind)
    for m in _PRODUCT_VERSION.finditer(before):
        w = norm_word(m.group(1))
        if w not in words and (best is None or m.start() > best[0]):
            best = (m.start(), ("other", m.group(1)))   # `OtherLib0.7.2`: a versioned product
    for m in _COURSE_ZH.finditer(before):
        if best is None or m.start() > best[0]:
            best = (m.start(), ("course", m.group(0)))
    return best[1] if best else None
