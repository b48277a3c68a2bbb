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

Slash-shortened alternatives share the leading words of the first name up to the
word that varies (`mjv_defaultCamera/Option` -> `mjv_defaultOption`,
`state.joint_q/qd` -> `state.joint_qd`, `mj_step1/2` -> `mj_step2`); an
alternative that is a whole name by itself (`position_start()/num_positions()`)
is also read as written (`ApiRef.variants`).

Not API references: formula variables (one or two letters, `_`, an upper-case
frame suffix: `R_SW`, `X_BS`, `g_W`; Drake monogram notation `p_AoBo_A`,
`I_BBcm_E`), MJCF/XML attributes (`output="rgb depth"`: quotes and `=`), shell
text and paths (spaces, `/`-separated path segments with dots), numbers
(`0xFFFFFFFF`), single plain words (`qpos`, `IMU`), bare lowercase calls
(`sleep()`), math (`Rᵀ(a−g)`: non-ASCII), names of the host languages and their
common libraries (`std::…`, Python builtins and exceptions, `dict.get`,
`future.wait`, NumPy/JAX/PyTorch/Eigen/pybind11 names), product and file-format
words (`OpenGL`, `MJCF`, `USD`; see `is_product_word`).
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass, field

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_SEG = r"[A-Za-z_*][A-Za-z0-9_*]*"
_CHAIN = re.compile(rf"^\.?{_SEG}(?:\.{_SEG})*$")
FORMULA = re.compile(r"^[A-Za-z]{1,2}_(?:[A-Z][A-Za-z0-9]{0,3}|[a-z0-9])$")
# Drake monogram notation: quantity, then frames/points (`Ao`, `Bcm`, `Bp`), then the
# expressed-in frame: p_AoBo_A, I_BBcm_E, V_ABp_E, X_WB, w_WB_W
_FRAMES = r"(?:[A-Z](?:cm|[a-z]?)\d*)+"
MONOGRAM = re.compile(rf"^[A-Za-z]{{1,3}}_{_FRAMES}(?:_{_FRAMES})?$")
MJ_PREFIX = re.compile(r"^mj[a-z]{0,2}[A-Z_]")
LOWER_CAMEL = re.compile(r"^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$")
MULTI_HUMP = re.compile(r"^[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*$|^[A-Z]{2,}[a-z]+[A-Za-z0-9]*$")

# Names of the host languages and their common libraries: naming one says nothing
# about the upstream (NumPy array methods, libc, C++ std members, Eigen, pybind11).
GENERIC = frozenset("""
copy reshape numpy astype tolist item view fill flatten ravel shape dtype T size ndim sum mean
max min abs len print range int float str list dict tuple set bool type isinstance open zip
enumerate sorted append extend keys values items get update_from memset memcpy malloc free
printf sizeof assert data_ptr cpu cuda to
wait wait_for wait_until valid push_back emplace_back emplace pop_back begin end cbegin cend
empty reserve resize front back erase swap join detach notify_one notify_all make_shared
make_unique shared_ptr unique_ptr
diagonal transpose inverse norm squaredNorm normalized cwiseInverse cwiseSqrt cwiseProduct
cwiseAbs cwiseMax cwiseMin asDiagonal setZero setOnes setIdentity Zero Ones Identity ldlt llt
gil_scoped_release gil_scoped_acquire keep_alive return_value_policy reference_internal
overload_cast def_readwrite def_readonly def_property def_property_readonly def_static
kw_only pos_only block_until_ready device_get device_put
""".split())

# Python builtins (functions, types, exceptions): `NotImplementedError`, `dict.get`
BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_"))

# Roots of host-language / third-party namespaces (`std::vector`, `np.linalg.norm`).
GENERIC_ROOTS = frozenset("""
std np numpy math os sys Eigen torch scipy typing jax jnp jp tf tensorflow pybind11 py plt
matplotlib pd pandas cv2 gym gymnasium ast json re itertools functools collections pathlib
subprocess threading multiprocessing concurrent asyncio pickle logging random dataclasses
importlib inspect time datetime warnings contextlib abc operator shutil tempfile glob
""".split())

# Products, libraries, standards and file formats that prose names in CamelCase or
# capitals; in a link label or prose they name a thing, not an upstream symbol.
PRODUCT_WORDS = frozenset(w.lower() for w in """
OpenGL OpenGLES EGL OSMesa GLFW Vulkan Metal DirectX CUDA ROCm OpenCL OpenMP MPI TBB
MJCF URDF SDF SDFormat USD OpenUSD USDA USDZ glTF GLB STL OBJ PLY MSH VTK VTU XML JSON YAML
TOML HDF5 MP4 PNG JPEG
NumPy SciPy PyTorch JAX TensorFlow Eigen pybind11 nanobind Bazel CMake PyPI GitHub GitLab
MuJoCo MuJoCoWarp Drake pydrake Newton Warp NVIDIA Isaac IsaacLab IsaacSim Omniverse
PhysX Bullet PyBullet Gazebo ROS ROS2 LCM Meshcat MeshCat Rerun Viser Jupyter Colab
Linux macOS Windows Ubuntu Python CPython
""".split())


def norm_word(s: str) -> str:
    """Case- and separator-insensitive form: `MuJoCo-Warp` -> `mujocowarp`."""
    return re.sub(r"[^0-9a-z]", "", s.lower())


def is_product_word(word: str, extra: frozenset[str] | set[str] = frozenset()) -> bool:
    n = norm_word(word)
    return bool(n) and (n in PRODUCT_WORDS or n in extra)


def is_formula(seg: str) -> bool:
    return bool(FORMULA.match(seg) or MONOGRAM.match(seg))


@dataclass(frozen=True)
class ApiRef:
    raw: str                      # the code span as written
    segments: tuple[str, ...]     # e.g. ('data', 'sensor', 'data'); generic tail dropped
    calls: tuple[bool, ...]       # segment i is called: `x(...)`
    leading_dot: bool = False     # `.copy()`: a member of something unnamed
    # other readings of the same text (an `a/b` alternative read as written);
    # the reference holds if any reading resolves
    variants: tuple["ApiRef", ...] = field(default=(), compare=False)

    @property
    def last(self) -> str:
        return self.segments[-1]

    @property
    def dotted(self) -> str:
        return ".".join(self.segments)

    @property
    def readings(self) -> tuple["ApiRef", ...]:
        return (self, *self.variants)


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
    if "_" in seg.strip("_") and not is_formula(seg):
        return True
    if MJ_PREFIX.match(seg) or LOWER_CAMEL.match(seg) or MULTI_HUMP.match(seg):
        return True
    return called and seg[:1].isupper() and not seg.isupper()


_WORD = re.compile(r"_*(?:[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+)|_+")


def words(name: str) -> list[str]:
    """Words of an identifier, each with the separators before it:
    `mjv_defaultCamera` -> ['mjv', '_default', 'Camera']."""
    return _WORD.findall(name)


def expand_alternative(first: str, alt: str) -> str:
    """`alt` shortened against `first`: keep the leading words of `first`, replace as
    many trailing words as `alt` has (`sensor_objtype` + `objid` -> `sensor_objid`)."""
    fw, aw = words(first), words(alt)
    if not aw or len(fw) <= len(aw):
        return alt
    replaced = fw[len(fw) - len(aw)]
    sep = replaced[: len(replaced) - len(replaced.lstrip("_"))]
    return "".join(fw[: len(fw) - len(aw)]) + (sep if not alt.startswith("_") else "") + alt


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
    if len(alts_raw) > 1 and any(not a or a.endswith(
            (".py", ".md", ".h", ".c", ".cc", ".xml", ".json")) for a in alts_raw):
        return []
    out: list[ApiRef] = []
    first: ApiRef | None = None
    offset = 0
    for k, alt in enumerate(alts_raw):
        digits = k > 0 and alt.isdigit()
        if not digits and not _CHAIN.match(alt):
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
        variants: list[ApiRef] = []
        if k > 0 and first is not None and len(segs) == 1:
            # `sensor_objtype/objid` -> sensor_objid; `a.b.qpos/qvel` -> a.b.qvel;
            # the alternative as written is another reading (`qpos/qvel`)
            if not digits and not is_formula(segs[0]) and segs[0] not in GENERIC:
                # read as written even without API evidence: the first name gave it
                variants.append(ApiRef(raw=text, segments=tuple(segs), calls=tuple(calls),
                                       leading_dot=lead))
            base = first.segments
            name = expand_alternative(base[-1], segs[0])
            segs = [*base[:-1], name]
            calls = [*first.calls[:-1], calls[0]]
        elif digits:
            return out
        ref = _make(text, segs, calls, lead)
        if ref is not None and variants:
            variants = [v for v in variants if v.segments != ref.segments]
            ref = ApiRef(raw=ref.raw, segments=ref.segments, calls=ref.calls,
                         leading_dot=ref.leading_dot, variants=tuple(variants))
        elif ref is None and variants:
            ref = variants[0]
        if k == 0:
            first = ref
        if ref is not None:
            out.append(ref)
    return out


def is_generic_name(seg: str) -> bool:
    return seg in GENERIC or seg in BUILTINS


def _make(raw: str, segs: list[str], calls: list[bool], lead: bool) -> ApiRef | None:
    segs, calls = list(segs), list(calls)
    # the last meaningful name: drop a generic tail (`.copy()`, `.reshape(3,3)`)
    while segs and segs[-1] in GENERIC:
        segs.pop()
        calls.pop()
    if not segs or (segs[0] in GENERIC_ROOTS and not lead):
        return None
    if segs[0] in BUILTINS and not lead:
        return None   # `NotImplementedError`, `dict.get`, `len`
    evidence = len(segs) >= 2 or any(_evidence(s, c) for s, c in zip(segs, calls))
    if len(segs) == 1 and is_formula(segs[0]):
        return None
    if not evidence:
        return None
    if len(segs) >= 2 and all(not _evidence(s, c) for s, c in zip(segs, calls)) \
            and all(s.islower() and len(s) <= 2 for s in segs[:-1]) and len(segs[-1]) <= 2:
        return None
    return ApiRef(raw=raw, segments=tuple(segs), calls=tuple(calls), leading_dot=lead)


_TOKEN = re.compile(r"(?<![\w.])[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*"
                    r"(?:\(\))?(?:/[A-Za-z_0-9][A-Za-z0-9_]*(?:\(\))?)*")


def names_in_text(text: str) -> list[ApiRef]:
    """API-shaped names in free text (a link label such as `SensorContact 属性`,
    `mj_makeData/deleteData 成对`)."""
    out = []
    for m in _TOKEN.finditer(text):
        out.extend(classify(m.group(0)))
    return out
