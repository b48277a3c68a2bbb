"""Closed worlds: the parts of an upstream's API that the pinned release serves whole.

Lint can call a name absent only where it can see everything the name could be.
The worlds are derived from pins.toml and the served files, never listed by hand:

- **served files**: every `map` rule of an upstream's pinned wheels (`wheel` prefix
  -> `repo` prefix, optional `glob`) names a part of the repository the release
  ships. When every source file the run knows under that prefix (matching the glob)
  is served at pinned identity or from the pinned release, the names those files
  declare are that part's whole API: MuJoCo's public C API (`include/mujoco/*.h`),
  its Python package (`python/mujoco/*.py`), MJX, Newton, Warp. A new upstream gets
  its worlds from its own wheel map.
- **an introspected release**: the pinned runtime environment lists the members of
  the upstream's compiled modules (`facts/release.py`, producer `introspection`), and
  the wheel's generated stubs describe them (producer `stub`): pydrake's modules,
  classes and their members.
- **served files**: every file served at pinned identity is whole (the files the
  course cites: Drake's C++ headers a mirror holds at the pinned blob).

`typo_of(name, ...)` answers the question lint asks of a name that no index holds:
is it a writing slip of a name one of those worlds declares? Only a *near* slip
counts (one letter dropped, doubled, changed or two swapped, a plural `s`/`es`;
never a difference of case alone): a name further away may be the upstream's internal code (MuJoCo's
engine `.c` files declare `mj_*` names of their own), so it stays unchecked.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import TYPE_CHECKING

from verifier.lint.resolve import near_allowed

if TYPE_CHECKING:
    from verifier.facts.symbols import Symbol, SymbolIndex
    from verifier.lint.base import LintContext

MIN_LEN = 4          # shorter names are too close to each other to call a slip


@dataclass(frozen=True)
class World:
    upstream: str
    label: str                         # what is served whole, for messages
    prefix: str | None = None          # served files: repository prefix
    glob: str | None = None            # ... and the map rule's glob on the remainder
    producers: tuple[str, ...] = ()    # introspected release: its producers
    paths: frozenset[str] = frozenset()   # served files: every file served at pinned identity
    # the upstream's Python package star-imports compiled modules nothing lists (no
    # introspection): their names are unseen (methods of compiled classes), and
    # bindings rename by case (`MjData` binds `mjData`): only a top-level name that is
    # not a case variant can be a slip there
    unseen_compiled: bool = False

    def holds(self, s: "Symbol") -> bool:
        if self.producers:
            return s.producer in self.producers
        if self.paths:
            return s.path in self.paths
        if not s.path.startswith(self.prefix or ""):
            return False
        rest = s.path[len(self.prefix or ""):]
        return self.glob is None or fnmatch.fnmatchcase(rest, self.glob)


def _memo(ctx: "LintContext") -> dict:
    from verifier.lint.rules._names import memo

    return memo(ctx)


def worlds(ctx: "LintContext", upstream: str) -> list[World]:
    """The closed worlds of `upstream` in this run (memoised per run)."""
    store = _memo(ctx)
    key = ("worlds", upstream)
    if key not in store:
        store[key] = _worlds(ctx, upstream)
    return store[key]


def _worlds(ctx: "LintContext", upstream: str) -> list[World]:
    from verifier.facts.symbols import SOURCE_SUFFIXES

    up = ctx.upstream(upstream)
    idx = ctx.index(upstream)
    known = [p for p in (*idx.files, *idx.unavailable) if p.endswith(SOURCE_SUFFIXES)]
    out: list[World] = []
    rel = idx.release_surface()
    listed = rel is not None and "introspection" in rel.producers
    # Python modules that star-import a compiled module nothing lists (`mujoco`)
    bad = set() if listed else {m for m, mods in idx.star_imports.items()
                                if any(x not in idx.modules for x in mods)}
    bad_paths = {s.path for m in bad for rows in (idx.modules.get(m) or {}).values()
                 for s in rows if s.path.endswith(".py")}
    unseen = bool(bad)
    for wheel in up.wheel:
        for rule in wheel.map:
            under = [p for p in known if p.startswith(rule.repo) and (
                rule.glob is None or fnmatch.fnmatchcase(p[len(rule.repo):], rule.glob))]
            if under and all(p in idx.files for p in under):
                what = rule.repo + (rule.glob or "")
                # a C world is bound by those compiled modules; a Python world only when
                # it holds one of the modules that star-import them (not MJX)
                python = all(p.endswith((".py", ".pyi")) for p in under)
                blind = unseen and (not python or bool(bad_paths & set(under)))
                out.append(World(upstream, f"{what} ({len(under)} files of "
                                 f"{wheel.requirement}, served whole)",
                                 prefix=rule.repo, glob=rule.glob, unseen_compiled=blind))
    if rel is not None and ({"introspection", "stub"} & set(rel.producers)):
        # the environment lists the compiled modules' members; the wheel's generated
        # stubs describe the same modules
        via = "; ".join(f"{k}: {v}" for k, v in sorted(rel.producers.items()))
        out.append(World(upstream, f"the pinned release's modules as it lists them ({via})",
                         producers=("introspection", "stub"), unseen_compiled=unseen))
    served = frozenset(p for p, blob in idx.files.items() if blob)
    if served:
        # every file served at pinned identity is whole: a slip of a name one of them
        # declares (the files the course cites: Drake's C++ headers the mirror holds)
        out.append(World(upstream, f"the {len(served)} files of {upstream} served at pinned "
                         "identity", paths=served, unseen_compiled=unseen))
    return out


def is_slip(a: str, b: str) -> bool:
    """`a` is a near writing slip of `b`: one letter dropped, added, changed or two
    adjacent ones swapped (optimal string alignment distance 1), or a plural `es`; a
    name that differs only in case is another convention (`contactForce` beside the
    field `contactforce`), not a slip."""
    if a.lower() == b.lower():
        return False     # another convention, not a slip: `contactForce` for `mj_contactForce`
        #                  beside a field `contactforce`, `MjData` binding `mjData`
    if a == b + "es" or b == a + "es":
        return True
    la, lb = len(a), len(b)
    if abs(la - lb) > 1:
        return False
    if la == lb:
        diff = [i for i in range(la) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (len(diff) == 2 and diff[1] == diff[0] + 1
                and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if la < lb else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1:]


@dataclass(frozen=True)
class Slip:
    name: str                   # the name the lesson wrote
    meant: str                  # the world's name it is a slip of
    symbol: "Symbol"
    world: World
    where: str                  # path:line, or the module for an introspected row
    permalink: str | None


def typo_of(ctx: "LintContext", name: str, upstreams: list[str],
            container: str | None = None) -> Slip | None:
    """The world name `name` is a near slip of, in the closed worlds of `upstreams`
    (the attributed upstream first, then source rows), or None. With `container`
    (`mjModel` of `mjModel.nbodyy`), a member of that container is preferred."""
    if len(name) < MIN_LEN or not near_allowed(name):
        return None     # past the lesson's near-miss budget: not searched (stays unchecked)
    store = _memo(ctx)
    key = ("slip", tuple(upstreams), name, container)
    if key in store:
        return store[key]
    best: tuple | None = None
    for order, up in enumerate(upstreams):
        ws = worlds(ctx, up)
        if not ws:
            continue
        idx = ctx.index(up)
        for index in (idx, idx.release_surface()):
            if index is None:
                continue
            for cand in _candidates(index, name):
                for s in index.lookup(cand):
                    w = next((w for w in ws if w.holds(s)), None)
                    if w is None or s.kind == "import" or (w.unseen_compiled and (
                            container is not None or s.name.lower() == name.lower())):
                        # unseen compiled bindings: `spec.compile()` may be a method
                        # of a compiled class, `MjData` a binding of `mjData`
                        continue
                    member = container is not None and _member_of(index, s, container)
                    rank = (order, 0 if member else 1, s.producer != "source",
                            s.kind in ("parameter", "keyword"),
                            0 if s.name.lower() != name.lower() else 1,
                            s.path, s.line, s.name)
                    if best is None or rank < best[0]:
                        best = (rank, Slip(name, s.name, s, w, _where(s),
                                           _permalink(ctx, up, s)))
    store[key] = best[1] if best else None
    return store[key]


def _candidates(index: "SymbolIndex", name: str) -> list[str]:
    """Names of the index that may be a near slip away from `name` (same first letter,
    either case, or the first letter dropped/added), filtered by `is_slip`."""
    heads = {name[0], name[0].swapcase()}
    if len(name) > 1:
        heads |= {name[1], name[1].swapcase()}
    out = []
    for h in sorted(heads):
        for n in index.names_with_prefix(h):
            if abs(len(n) - len(name)) <= 2 and is_slip(name, n):
                out.append(n)
    return sorted(set(out))


def _member_of(index, s, container: str) -> bool:
    return bool(s.parent) and (s.parent == container
                               or index.aliases.get(container) == s.parent)


def _where(s: "Symbol") -> str:
    if s.line:
        return f"{s.path}:{s.line}"
    return f"{s.module or s.parent or s.path} ({s.producer})"


def _permalink(ctx: "LintContext", upstream: str, s: "Symbol") -> str | None:
    if not s.line or s.producer != "source":
        return None
    up = ctx.upstream(upstream)
    base = up.repo.removesuffix(".git").rstrip("/")
    if not base.startswith("https://github.com/"):
        return None
    end = f"-L{s.end}" if s.end and s.end > s.line else ""
    return f"{base}/blob/{up.commit}/{s.path}#L{s.line}{end}"


# --------------------------------------------------------------------------- slips

SLIP_KINDS = ("drop", "swap", "double", "plural", "prefix")


def make_slip(name: str, kind: str, at: int) -> str | None:
    """`name` with one slip of `kind` as authors make them (the self-test's realistic
    identifier mutants): a letter dropped or doubled, two adjacent letters swapped, a
    wrong plural, a wrong prefix (`mjv_` -> `mjr_`, `mj_` -> `mju_`). `at` picks the
    position (taken modulo the choices); None when the name has no such slip."""
    letters = [i for i, c in enumerate(name) if c.isalpha() and i > 0]
    if kind == "drop" and len(name) > MIN_LEN and letters:
        i = letters[at % len(letters)]
        return name[:i] + name[i + 1:]
    if kind == "double" and letters:
        i = letters[at % len(letters)]
        return name[:i] + name[i] + name[i:]
    if kind == "swap":
        pairs = [i for i in range(1, len(name) - 1)
                 if name[i].isalpha() and name[i + 1].isalpha() and name[i] != name[i + 1]]
        if pairs:
            i = pairs[at % len(pairs)]
            return name[:i] + name[i + 1] + name[i] + name[i + 2:]
    if kind == "plural" and name[-1:].isalpha():
        return name[:-1] if name.endswith("s") and len(name) > MIN_LEN else name + "s"
    if kind == "prefix" and "_" in name[1:6]:
        head, _, rest = name.partition("_")
        if head.startswith("mj"):     # the MuJoCo families: mj_, mjv_, mjr_, mju_, mjs_, mjd_
            fams = [f for f in ("mj", "mjv", "mjr", "mju", "mjs", "mjd") if f != head]
            return f"{fams[at % len(fams)]}_{rest}"
        if head and rest and head[-1].isalpha():      # another family's prefix letter
            return head[:-1] + ("s" if head[-1] != "s" else "t") + "_" + rest
    return None


def declaration(ctx: "LintContext", upstreams: list[str], name: str) -> str | None:
    """Where `name` is declared in a served file of `upstreams`, as `path:line:
    permalink` (the first, deterministically), for a "did you mean" that has none."""
    for up in upstreams:
        rows = [s for s in ctx.index(up).lookup(name) if s.line and s.producer == "source"
                and s.kind not in ("import", "parameter", "keyword")]
        if rows:
            s = min(rows, key=lambda r: (r.path, r.line))
            link = _permalink(ctx, up, s)
            return f"{_where(s)}: {link}" if link else _where(s)
    return None
