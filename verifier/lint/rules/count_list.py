from __future__ import annotations

import re

from verifier.lint.base import Rule
from verifier.results import Severity

_ZH = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
       "十": 10, "十一": 11, "十二": 12}
_EN = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
       "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NUM = (r"(?P<n>\d{1,2}|十[一二]|[二两三四五六七八九十]|"
        + "|".join(_EN) + r")")
_WORD = (r"(?:个|类|种|项|组|条|层|步|段|位|部分|阶段|字段|分量|元素|成员|枚举|函数|方法|端口|"
         r"kinds?|types?|classes|items|fields|members|stages|steps|parts|values|entries|"
         r"components|functions|methods|ports|enumerators)")
# "N 类：A、B、C" (the count, then the list after a colon)
_BEFORE = re.compile(r"(?<![A-Za-z0-9_.])" + _NUM + r"\s*(?:[A-Za-z_]\w*\s*)?" + _WORD
                     + r"\s*(?:[\u4e00-\u9fff]{1,4}|[A-Za-z]+)?\s*[：:]\s*", re.I)
# "A、B、C 三种" (the list, then its count)
_AFTER = re.compile(r"\s*(?:共|这|总共|共计|这些|all)?\s*" + _NUM + r"\s*" + _WORD
                    + r"(?![A-Za-z0-9_])", re.I)
# a number that is not how many are listed: "前 3 个", "最多 4 个", "at most 3"
_NOT_ALL = re.compile(r"(?:前|后|第|最多|至多|至少|不少于|超过|多于|少于|每|其中|约|大约|"
                      r"at most|at least|up to|first|last|top|over|about)\s*$", re.I)
_NAME = r"[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*(?:\(\))?"
_ITEM = re.compile(_NAME)
_SEP = re.compile(r"\s*(?:、|，|,|以及|及|和|与|或|\band\b|\bor\b)\s*")
_LIST_TAIL = re.compile(r"((?:" + _NAME + _SEP.pattern + r")+" + _NAME + r")\s*$")
_END = re.compile(r"\s*(?:[。；;！？!?]|\.(?!\w)|$)")


def _count(word: str) -> int:
    w = word.lower()
    return int(w) if w.isdigit() else _ZH.get(w) or _EN.get(w, 0)


def _items_from(text: str, i: int) -> tuple[list[str], int] | None:
    """The names listed from `text[i]` to the end of the clause, or None when the list
    holds anything but names and separators (a description, "等", a parenthesis)."""
    items, pos = [], i
    while True:
        m = _ITEM.match(text, pos)
        if m is None:
            return None
        items.append(m.group(0))
        pos = m.end()
        if _END.match(text, pos):
            return items, pos
        s = _SEP.match(text, pos)
        if s is None or s.end() == pos:
            return None
        pos = s.end()


def _items_before(text: str, j: int) -> list[str] | None:
    """The names listed right before `text[j]` (back to a word that is not a name or a
    separator), or None unless there are at least two."""
    head = text[max(0, j - 400):j]
    tail = _LIST_TAIL.search(head)
    if tail is None:
        return None
    before = head[:tail.start()]
    if before and (before[-1].isalnum() and before[-1].isascii() or before[-1] in "/_.`"):
        return None
    return [x for x in _SEP.split(tail.group(1)) if x]


def mismatches(text: str) -> list[tuple[int, int, list[str]]]:
    """(stated count, listed count, names) where a sentence states how many it lists and
    lists another number of names."""
    out = []
    for m in _BEFORE.finditer(text):
        if _NOT_ALL.search(text[:m.start()]):
            continue
        got = _items_from(text, m.end())
        if got is None:
            continue
        names = got[0]
        n = _count(m.group("n"))
        if n and len(names) >= 2 and n != len(names):
            out.append((n, len(names), names))
    for m in _AFTER.finditer(text):
        names = _items_before(text, m.start())
        if names is None or len(names) < 2:
            continue
        n = _count(m.group("n"))
        if n and n != len(names):
            out.append((n, len(names), names))
    return out


class CountList(Rule):
    """A sentence that says how many things it lists and lists another number of
    names: "列出 4 类：A、B、C", "A、B、C 两种", "three fields: a, b, c, d". Only a list
    of bare names (identifiers, `f()`) joined by 、 , 和 与 及 或 and or, running to the
    end of its clause, is counted; a list with anything else in it ("等", a
    description, a slash), or a number that is not the whole ("前 3 个", "最多 4 个",
    "at most"), is not judged. A warning on the sentence's line: one of the two is
    wrong, whatever the source says."""

    name = "count-list"
    code = "VL113"
    severity = "warning"

    def check(self, ctx, doc, lesson):
        out = []
        for s in lesson.sentences:
            for n, got, names in mismatches(s.text):
                out.append(self.finding(
                    doc, s.line, f"the sentence says {n} but lists {got}: "
                    + ", ".join(f"`{x}`" for x in names), severity=Severity.WARNING,
                    target=names[0], stated=n, listed=got))
        return out
