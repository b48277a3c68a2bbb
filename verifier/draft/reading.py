"""Reading a sentence's own words: where its code spans are, what stands between them,
lists of names, type words, polarity. Shared by the proposal modules; nothing here
looks at the pinned source."""

from __future__ import annotations

import re
from dataclasses import dataclass

# the words that join the items of a list (Chinese and English)
LIST_SEP = re.compile(r"\s*(?:、|，|,|/|和|与|及|以及|\+|→|->|\band\b|\bthen\b)\s*", re.I)
ORDER_HINT = re.compile(r"依次|顺序|按序|先后|in order|order(?:ed)?\b|sequence|→|->", re.I)

# element types a lesson names (Warp, NumPy, C): word -> family; a type claim is
# proposed only where the declaration's type mentions the same family
_TYPE_WORDS = [
    (r"(?:wp\.)?vec[234][fdhi]?", "vec"), (r"(?:wp\.)?mat(?:22|33|44)[fdh]?", "mat"),
    (r"(?:wp\.)?quat[fdh]?", "quat"), (r"(?:wp\.)?transform[fdh]?", "transform"),
    (r"(?:wp\.)?spatial_vector[fdh]?", "spatial"), (r"(?:wp\.|np\.)?u?int(?:8|16|32|64)", "int"),
    (r"(?:wp\.|np\.)?float(?:16|32|64)", "float"), (r"mjtNum|mjtByte|mjtSize", "mjt"),
]
TYPE_WORD = re.compile(r"(?<![\w.])(" + "|".join(p for p, _ in _TYPE_WORDS) + r")(?![\w])")


def type_family(word: str) -> str | None:
    w = word.strip("`")
    for pat, fam in _TYPE_WORDS:
        if re.fullmatch(pat, w):
            return fam
    return None


def families(type_text: str) -> set[str]:
    """The element-type families a declared type mentions (`wp.array[wp.vec3]` -> vec)."""
    return {f for m in TYPE_WORD.finditer(type_text or "") if (f := type_family(m.group(1)))}


@dataclass(frozen=True)
class SpanAt:
    text: str
    start: int        # offset of the opening backtick in the raw sentence
    end: int          # offset past the closing backtick


def spans_at(raw: str) -> list[SpanAt]:
    """Every code span of the raw sentence text, in order."""
    return [SpanAt(m.group(1), m.start(), m.end()) for m in re.finditer(r"`([^`\n]+)`", raw)]


def mask_code(raw: str) -> str:
    """The raw text with code spans, link targets and `$...$` maths blanked (offsets kept)."""
    out = re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), raw)
    out = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group(0)), out)
    return re.sub(r"\$[^$]*\$", lambda m: " " * len(m.group(0)), out)


# a negation right before a name: "没有 `x`", "并无 `x`", "has no `x`", "not `x`"
NEG_BEFORE = re.compile(r"(?:没有|并无|已无|不再有|不存在|未提供|不提供|并未提供|没有提供|未导出|没有导出|"
                        r"未绑定|没有绑定|不绑定|不含|不包含|并不包含|无|"
                        r"has no|have no|no longer has|does not (?:have|bind|provide|expose|export)|"
                        r"doesn't (?:have|bind|provide|expose|export)|lacks|without)"
                        r"\s*(?:名为|叫|a|an|the|any)?\s*[`*]*$", re.I)
# "`x` 并未从 `m` 导出", "`x` is not exported by `m`"
NEG_EXPORT_AFTER = re.compile(r"^[`*]*\s*(?:并未|没有|未|不)(?:被)?\s*(?:从|由|在)?", re.I)
EXPORT_WORDS = re.compile(r"导出|公开|export", re.I)
POS_EXPORT_AFTER = re.compile(r"^[`*]*\s*(?:已|已经|被|会)?\s*(?:从|由|在)", re.I)
# "`C` 有 `x`", "`C` provides `x`" (a positive membership)
HAS_BETWEEN = re.compile(r"^\s*(?:的\s*(?:Python\s*)?(?:绑定|binding)?\s*)?(?:有|提供|包含|含有|带有|还有|暴露|导出|"
                         r"has|have|provides?|exposes?|exports?|defines?)\s*(?:名为|a|an|the)?\s*$",
                         re.I)
NEG_BETWEEN = re.compile(r"^\s*(?:的\s*(?:Python\s*)?(?:绑定|binding)?\s*)?(?:没有|并无|不提供|未提供|不含|不包含|"
                         r"并不包含|未导出|没有导出|不导出|尚未导出|未绑定|没有绑定|"
                         r"has no|have no|does not (?:have|provide|expose|export)|"
                         r"doesn't (?:have|provide|expose|export)|lacks)\s*(?:名为|a|an|the|any)?\s*$", re.I)
# "`C` 的 `x`", "`x` of `C`"
OF_BETWEEN = re.compile(r"^\s*(?:的|中的|里的|上的|'s)\s*$", re.I)
OF_AFTER_BETWEEN = re.compile(r"^\s*(?:of|in|on)\s*(?:the)?\s*$", re.I)


def split_list(text: str) -> list[str]:
    """Items of a list as written: `a、b、c`, `a / b`, `a + b + c`, `a → b`, `a b c`
    (inside one code span)."""
    t = text.strip().strip("`")
    items = [x.strip().strip("`").strip("*").strip() for x in LIST_SEP.split(t)]
    items = [x for x in items if x]
    if len(items) == 1 and " " in items[0]:
        items = items[0].split()
    return items


def enumerator_of(word: str, candidates: list[str]) -> list[str]:
    """The enumerators a lesson word names by its suffix (`dist` -> `mjRAYDATA_DIST`,
    `plugin_state` -> `mjSTATE_PLUGIN`, `PHYSICS` -> `mjSTATE_PHYSICS`), among
    `candidates` (the enumerator names of one enum)."""
    w = re.sub(r"[^A-Za-z0-9_]", "", word).upper()
    if not w:
        return []
    out = []
    for c in candidates:
        cu = c.upper()
        if cu == w:
            out.append(c)
            continue
        tail = cu.split("_", 1)[1] if "_" in cu else cu
        if tail == w or w.startswith(tail + "_") or w.endswith("_" + tail):
            out.append(c)
    if len(out) > 1:        # the exact tail wins over a prefix/suffix reading
        exact = [c for c in out if (c.upper().split("_", 1)[1] if "_" in c else c.upper()) == w
                 or c.upper() == w]
        out = exact or out
    return out
