"""Which inline code looks like an API name, and how to read it.

A code span is an API reference when, after dropping call arguments `(...)` and
subscripts `[...]`, it is a dotted chain of identifiers (`a.b(c).d`, `A::b`,
optionally `x/y` alternatives or a `*` glob) with no spaces, operators, quotes,
paths or numbers at the top level, AND it carries API evidence:

- an identifier with `_` that is not a formula variable (`sensor_adr`);
- two or more segments (`data.qpos`, `newton.intersect_ray`);
- an `mj`-family prefix before a capital (`mjModel`, `mjvCamera`, `mjtNum`);
- lowerCamelCase (`getFrustum`) or CamelCase with two or more humps (`SensorIMU`);
- a capitalised constructor call (`Renderer(height, width)`).

Not API references: formula variables (one or two letters, `_`, an upper-case
frame suffix: `R_SW`, `X_BS`, `g_W`), MJCF/XML attributes (`output="rgb depth"`:
quotes and `=`), shell text and paths (spaces, `/`-separated path segments with
dots), numbers (`0xFFFFFFFF`), single plain words (`qpos`, `IMU`), bare lowercase
calls (`sleep()`), math (`Rᵀ(a−g)`: non-ASCII), generic Python/NumPy/C-library
names (`copy`, `reshape`, `sum`, `memset`) which name no upstream symbol.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_SEG = r"[A-Za-z_*][A-Za-z0-9_*]*"
_CHAIN = re.compile(rf"^\.?{_SEG}(?:\.{_SEG})*$")
FORMULA = re.compile(r"^[A-Za-z]{1,2}_(?:[A-Z][A-Za-z0-9]{0,3}|[a-z0-9])$")
MJ_PREFIX = re.compile(r"^mj[a-z]{0,2}[A-Z_]")
LOWER_CAMEL = re.compile(r"^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$")
MULTI_HUMP = re.compile(r"^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$|^[A-Z]{2,}[a-z]+[A-Za-z0-9]*$")

# Names of the host language and its common libraries: naming one says nothing about
# the upstream (NumPy array methods, Python builtins, libc).
GENERIC = frozenset("""
copy reshape numpy astype tolist item view fill flatten ravel shape dtype T size ndim sum mean
max min abs len print range int float str list dict tuple set bool type isinstance open zip
enumerate sorted append extend keys values items get update_from memset memcpy malloc free
printf sizeof assert data_ptr cpu cuda to
""".split())

# Roots of host-language / third-party namespaces (`std::vector`, `np.linalg.norm`).
GENERIC_ROOTS = frozenset("std np numpy math os sys Eigen torch scipy typing".split())


@dataclass(frozen=True)
class ApiRef:
    raw: str                      # the code span as written
    segments: tuple[str, ...]     # e.g. ('data', 'sensor', 'data'); generic tail dropped
    calls: tuple[bool, ...]       # segment i is called: `x(...)`
    leading_dot: bool = False     # `.copy()`: a member of something unnamed

    @property
    def last(self) -> str:
        return self.segments[-1]

    @property
    def dotted(self) -> str:
        return ".".join(self.segments)


def _strip_groups(s: str) -> tuple[str, list[int]] | None:
    """Drop (...) and [...] contents; return the skeleton and the skeleton indexes
    where a call group followed. None if brackets are unbalanced."""
    out: list[str] = []
    depth = 0
    calls: list[int] = []
    opener = ""
    for i, ch in enumerate(s):
        if depth == 0 and ch == "<" and i and (s[i - 1].isalnum() or s[i - 1] == "_") \
                and ">" in s[i:]:
            depth, opener = 1, "<"   # template arguments: Class<T>::method
            continue
        if depth == 1 and opener == "<":
            if ch == ">":
                depth = 0
            continue
        if depth == 0:
            if ch in "([":
                depth, opener = 1, ch
                if ch == "(":
                    calls.append(len(out))
                continue
            if ch in ")]":
                return None
            out.append(ch)
        else:
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
    if depth != 0:
        return None
    return "".join(out), calls


def _evidence(seg: str, called: bool) -> bool:
    if "*" in seg:
        return seg.strip("*") != "" and "_" in seg
    if "_" in seg.strip("_") and not FORMULA.match(seg):
        return True
    if MJ_PREFIX.match(seg) or LOWER_CAMEL.match(seg) or MULTI_HUMP.match(seg):
        return True
    return called and seg[:1].isupper() and not seg.isupper()


def classify(text: str) -> list[ApiRef]:
    """API references in one code span (several for `a/b` alternatives); [] if none."""
    s = text.strip()
    if not s or not s.isascii() or s.startswith(("(", "[", "-", "$", "#", "/", "~")):
        return []
    groups = _strip_groups(s.replace("::", "."))   # C++ scope reads like a member
    if groups is None:
        return []
    skel, call_at = groups
    if any(c.isspace() for c in skel) or any(c in skel for c in "=<>+-'\",;:!?&|%^@`{}\\"):
        return []
    if "*" in skel and call_at:
        return []   # multiplication, not a glob: `R_SW*(a-g)`
    if re.search(r"\.(rst|md|py|pyi|h|c|cc|cpp|xml|json|txt|toml|yaml|yml|html|png|usd)$", skel):
        return []   # a file name
    alts_raw = skel.split("/")
    if len(alts_raw) > 1 and any(not a or "." in a and len(alts_raw) > 1 and a.endswith(
            (".py", ".md", ".h", ".c", ".cc", ".xml", ".json")) for a in alts_raw):
        return []
    out: list[ApiRef] = []
    first: ApiRef | None = None
    offset = 0
    for k, alt in enumerate(alts_raw):
        if not _CHAIN.match(alt):
            return [] if k == 0 else out
        lead = alt.startswith(".")
        segs = alt.lstrip(".").split(".")
        # which segments were called: a '(' group started right after the segment end
        calls = []
        pos = offset + (1 if lead else 0)
        for seg in segs:
            end = pos + len(seg)
            calls.append(end in call_at)
            pos = end + 1
        offset += len(alt) + 1
        if k > 0 and first is not None and len(segs) == 1 and "_" not in segs[0]:
            # `sensor_objtype/objid` -> sensor_objid; `a.b.qpos/qvel` -> a.b.qvel
            base = first.segments
            if len(base) == 1 and "_" in base[0]:
                segs = [base[0][: base[0].rfind("_") + 1] + segs[0]]
                calls = [False]
            elif len(base) >= 2:
                segs = [*base[:-1], segs[0]]
                calls = [*first.calls[:-1], False]
        ref = _make(text, segs, calls, lead)
        if k == 0:
            first = ref
        if ref is not None:
            out.append(ref)
    return out


def _make(raw: str, segs: list[str], calls: list[bool], lead: bool) -> ApiRef | None:
    segs, calls = list(segs), list(calls)
    # the last meaningful name: drop a generic tail (`.copy()`, `.reshape(3,3)`)
    while segs and segs[-1] in GENERIC:
        segs.pop()
        calls.pop()
    if not segs or (segs[0] in GENERIC_ROOTS and not lead):
        return None
    evidence = len(segs) >= 2 or any(_evidence(s, c) for s, c in zip(segs, calls))
    if len(segs) == 1 and FORMULA.match(segs[0]):
        return None
    if not evidence:
        return None
    if len(segs) >= 2 and all(not _evidence(s, c) for s, c in zip(segs, calls)) \
            and all(s.islower() and len(s) <= 2 for s in segs[:-1]) and len(segs[-1]) <= 2:
        return None
    return ApiRef(raw=raw, segments=tuple(segs), calls=tuple(calls), leading_dot=lead)


_TOKEN = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")


def names_in_text(text: str) -> list[ApiRef]:
    """API-shaped names in free text (a link label such as `SensorContact 属性`)."""
    out = []
    for m in _TOKEN.finditer(text):
        out.extend(classify(m.group(0)))
    return out
