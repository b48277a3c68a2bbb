"""Symbol index of an upstream at its pin: what names exist, where.

Built only from files the source layer serves at pinned identity (`pinned`) or
from the pinned release (`release`); every other source file the run knows of
is listed in `unavailable`, so a consumer can tell "no such name" (index
complete) from "could not look" (index partial).

Extracted (tree-sitter, queries in `queries/{c,cpp,python}_symbols.scm`):
  C       functions, macros, enums and their constants, structs/unions and
          their fields, typedefs, global variables
  C++     classes/structs, methods (in-class and `Class::method` definitions),
          free functions, enums and constants, fields, aliases, macros
  Python  modules, classes, functions/methods, module and class attributes,
          `self.x` attributes, imports (what a module re-exports: `from ._src
          import X` makes `pkg.X` exist), `__all__`
  pybind  (C++ binding files `bindings/<pkg>/<dir>/<mod>_py[_part].cc`): the
          Python names they register (`py::class_<..>(m, "Name")`,
          `DefineTemplateClassWithDefault<..>(m, "Name")`, `.def("name")`,
          `.value("NAME")`) as module `<pkg>.<dir>.<mod>`.

Python module names come from the pinned wheel's path map (`python/mujoco/x.py`
is module `mujoco.x`), else from the repository path. Test files are skipped.
The index is cached per (upstream, commit, served blobs).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from verifier.codeversion import code_version
from verifier.facts import treesitter as ts

if TYPE_CHECKING:
    from verifier.project import Project

INDEX_VERSION = 3
SOURCE_SUFFIXES = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cxx", ".py", ".pyi")


class Symbol(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    kind: str          # function|macro|enum|enum_constant|struct|field|typedef|variable|
    #                    class|method|attribute|module|import|pybind_class|pybind_def
    path: str
    line: int          # 1-based
    parent: str | None = None   # enclosing struct/class/enum name, or python module
    module: str | None = None   # python module the name is bound in
    target: str | None = None   # imports: the module (and name) it comes from


class SymbolIndex(BaseModel):
    upstream: str
    commit: str
    version: int = INDEX_VERSION
    files: dict[str, str] = Field(default_factory=dict)        # indexed path -> blob
    unavailable: list[str] = Field(default_factory=list)       # known source paths not served
    symbols: list[Symbol] = Field(default_factory=list)
    star_imports: dict[str, list[str]] = Field(default_factory=dict)  # module -> modules

    @property
    def complete(self) -> bool:
        """Every source file known for the upstream was indexed (and there was one)."""
        return bool(self.files) and not self.unavailable

    @cached_property
    def by_name(self) -> dict[str, list[Symbol]]:
        out: dict[str, list[Symbol]] = defaultdict(list)
        for s in self.symbols:
            out[s.name].append(s)
        return dict(out)

    @cached_property
    def modules(self) -> dict[str, dict[str, list[Symbol]]]:
        """python module -> name -> symbols bound at its top level."""
        out: dict[str, dict[str, list[Symbol]]] = defaultdict(lambda: defaultdict(list))
        for s in self.symbols:
            if s.module and (s.parent == s.module or s.kind == "module"):
                out[s.module][s.name].append(s)
        for m in list(out):  # packages a pybind module lives in (`pydrake.systems`)
            parts = m.split(".")
            for i in range(1, len(parts)):
                out[".".join(parts[:i])]
        return {m: dict(v) for m, v in out.items()}

    def module_from_source(self, module: str) -> bool:
        """The module is a Python file of the index (its bindings are all known)."""
        return any(s.path.endswith((".py", ".pyi")) for syms in
                   (self.modules.get(module) or {}).values() for s in syms)

    @cached_property
    def members(self) -> dict[str, dict[str, list[Symbol]]]:
        """container (struct/class/enum name) -> member name -> symbols."""
        out: dict[str, dict[str, list[Symbol]]] = defaultdict(lambda: defaultdict(list))
        for s in self.symbols:
            if s.parent and s.parent != s.module:
                out[s.parent][s.name].append(s)
        return {m: dict(v) for m, v in out.items()}

    @cached_property
    def aliases(self) -> dict[str, str]:
        """typedef name -> struct/enum tag it names (`mjModel` -> `mjModel_`)."""
        out = {}
        for s in self.symbols:
            if s.kind == "typedef" and s.target:
                out[s.name] = s.target
        return out

    def lookup(self, name: str) -> list[Symbol]:
        return self.by_name.get(name, [])

    def member(self, container: str, name: str) -> list[Symbol]:
        hits = list(self.members.get(container, {}).get(name, []))
        tag = self.aliases.get(container)
        if tag:
            hits += self.members.get(tag, {}).get(name, [])
        return hits

    def module_names(self, module: str) -> dict[str, list[Symbol]] | None:
        return self.modules.get(module)

    def definitions_in(self, path: str, start: int, end: int) -> list[Symbol]:
        return [s for s in self.symbols if s.path == path and start <= s.line <= end
                and s.kind != "import"]


# --------------------------------------------------------------------------- build


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (any(p in ("tests", "test", "testing") for p in parts[:-1])
            or name.startswith("test_") or re.search(r"_test\.(py|cc|h)$", name) is not None)


def python_module(project: "Project", upstream: str, path: str) -> str | None:
    up = project.pins.get(upstream)
    member = None
    for w in up.wheel:
        for rule in w.map:
            member = rule.to_wheel(path)
            if member:
                break
        if member:
            break
    rel = member or path
    if rel.startswith("bindings/"):
        rel = rel[len("bindings/"):]
    if not rel.endswith((".py", ".pyi")):
        return None
    mod = rel.rsplit(".", 1)[0].replace("/", ".")
    if mod.endswith(".__init__"):
        mod = mod[: -len(".__init__")]
    return mod


def pybind_module(path: str) -> str | None:
    """`bindings/pydrake/systems/sensors_py_accelerometer.cc` -> `pydrake.systems.sensors`."""
    m = re.match(r"^(?:bindings/)?(.+/)?([A-Za-z0-9]+(?:_[a-z0-9]+)*?)_py(?:_\w+)?\.cc$", path)
    if not m or "pydrake" not in path and "pybind" not in path:
        return None
    d = (m.group(1) or "").strip("/").replace("/", ".")
    return f"{d}.{m.group(2)}" if d else m.group(2)


def build_index(project: "Project", upstream: str) -> SymbolIndex:
    from verifier.facts.cache import bulk_load
    from verifier.facts.parallel import symbols_for_files

    up = project.pins.get(upstream)
    layer = project.sources
    paths = [p for p in layer.known_paths(upstream)
             if p.endswith(SOURCE_SUFFIXES) and not is_test_path(p)]
    files = layer.resolve_many([(upstream, p) for p in paths], needed=False)
    served = {sf.path: sf.blob for sf in files if sf.status.usable and sf.blob}
    unavailable = sorted(sf.path for sf in files if not sf.status.usable)
    digest = hashlib.sha1(json.dumps([INDEX_VERSION, code_version(__name__), sorted(served.items()),
                                      unavailable]).encode()).hexdigest()[:16]
    cache_path = project.store.path("symbols", f"{upstream}-{up.commit}-{digest}.json")
    try:  # speed: parsed by pydantic-core from bytes, no GC passes over the load (facts/cache.py)
        with bulk_load():
            cached = SymbolIndex.model_validate_json(cache_path.read_bytes())
        if cached.version == INDEX_VERSION:
            return cached
    except (OSError, ValueError):
        pass  # absent or corrupt: rebuilt and rewritten below
    # per-file symbols from the fact cache (by blob), misses extracted in a fork pool
    symbols, stars = symbols_for_files(project, upstream,
                                       [sf for sf in files if sf.path in served])
    index = SymbolIndex(upstream=upstream, commit=up.commit, files=served,
                        unavailable=unavailable, symbols=symbols, star_imports=stars)
    project.store.write_bytes(cache_path, index.model_dump_json().encode())
    return index


def extract(project: "Project | None", upstream: str, path: str, data: bytes,
            stars: dict[str, list[str]] | None = None) -> list[Symbol]:
    lang = ts.language_for(path, data)
    if lang == "python":
        mod = python_module(project, upstream, path) if project else None
        mod = mod or path.rsplit(".", 1)[0].replace("/", ".").removesuffix(".__init__")
        return extract_python(path, data, mod, stars if stars is not None else {})
    if lang == "c":
        return extract_c(path, data)
    if lang == "cpp":
        out = extract_cpp(path, data)
        mod = pybind_module(path)
        if mod:
            out += extract_pybind(path, data, mod)
        return out
    return []


_CONTAINERS_C = {"struct_specifier": "struct", "union_specifier": "struct",
                 "enum_specifier": "enum"}


def _enclosing(node, kinds: dict[str, str]) -> str | None:
    n = node.parent
    while n is not None:
        if n.type in kinds:
            name = n.child_by_field_name("name")
            if name is not None:
                return ts.text(name)
            # anonymous: `typedef struct { ... } name;`
            p = n.parent
            if p is not None and p.type == "type_definition":
                d = p.child_by_field_name("declarator")
                if d is not None:
                    return ts.text(d)
            return None
        n = n.parent
    return None


def _inside(node, kind: str) -> bool:
    n = node.parent
    while n is not None:
        if n.type == kind:
            return True
        n = n.parent
    return False


def extract_c(path: str, data: bytes) -> list[Symbol]:
    tree = ts.parse("c", data)
    out: list[Symbol] = []
    for kind, nodes in ts.captures("c", "c_symbols", tree.root_node).items():
        for node in nodes:
            name = ts.text(node)
            parent = None
            target = None
            if kind == "variable" and _inside(node, "function_definition"):
                continue  # a local, not a global the library declares
            if kind in ("field", "enum_constant"):
                parent = _enclosing(node, _CONTAINERS_C)
            if kind == "typedef":
                t = node.parent.child_by_field_name("type") if node.parent else None
                if t is not None and t.type in _CONTAINERS_C:
                    tn = t.child_by_field_name("name")
                    target = ts.text(tn) if tn is not None else None
            out.append(Symbol(name=name, kind=kind, path=path, line=node.start_point[0] + 1,
                              parent=parent, target=target))
    return sorted(out, key=lambda s: (s.line, s.name, s.kind))


_CONTAINERS_CPP = {"class_specifier": "class", "struct_specifier": "class",
                   "enum_specifier": "enum"}


def extract_cpp(path: str, data: bytes) -> list[Symbol]:
    tree = ts.parse("cpp", data)
    out: list[Symbol] = []
    for kind, nodes in ts.captures("cpp", "cpp_symbols", tree.root_node).items():
        for node in nodes:
            name = ts.text(node)
            parent = None
            if kind == "qualified_method":
                scope = node.parent.child_by_field_name("scope") if node.parent else None
                parent = re.sub(r"<.*>", "", ts.text(scope)) if scope is not None else None
                kind = "method"
            elif kind in ("method", "field", "enum_constant"):
                parent = _enclosing(node, _CONTAINERS_CPP)
            out.append(Symbol(name=name, kind=kind, path=path, line=node.start_point[0] + 1,
                              parent=parent))
    return sorted(out, key=lambda s: (s.line, s.name, s.kind))


_PYBIND_CLASS = re.compile(
    r"(?:py::class_|py::enum_|DefineTemplateClassWithDefault)\s*<[^;]*?>\s*\(\s*\w+\s*,\s*\"(\w+)\"",
    re.S)
_PYBIND_DEF = re.compile(
    r"\.(def|def_static|def_readwrite|def_readonly|def_property|def_property_readonly|"
    r"def_property_static|value)\s*\(\s*\"(\w+)\"")


def _strip_comments(text: str) -> str:
    """Blank C++ comments, keeping offsets (so TODO notes register nothing)."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                  flags=re.S)


def extract_pybind(path: str, data: bytes, module: str) -> list[Symbol]:
    text = _strip_comments(data.decode("utf-8", errors="replace"))
    events = []
    for m in _PYBIND_CLASS.finditer(text):
        events.append((m.start(), "class", m.group(1)))
    for m in _PYBIND_DEF.finditer(text):
        events.append((m.start(), m.group(1), m.group(2)))
    out = []
    current = None
    for pos, what, name in sorted(events):
        line = text.count("\n", 0, pos) + 1
        if what == "class":
            current = name
            out.append(Symbol(name=name, kind="pybind_class", path=path, line=line,
                              parent=module, module=module))
        else:
            # `.def` right on the module object (`m.def("f")`) binds a module function;
            # otherwise the name belongs to the most recent class (approximation).
            before = text[max(0, pos - 3):pos]
            if before.endswith("m") and current is None:
                out.append(Symbol(name=name, kind="pybind_def", path=path, line=line,
                                  parent=module, module=module))
            else:
                out.append(Symbol(name=name, kind="pybind_def", path=path, line=line,
                                  parent=current or module, module=module))
    return out


def _py_scope(node) -> list[tuple[str, str]]:
    """Enclosing (kind, name) from outermost to innermost: class/function definitions."""
    chain = []
    n = node.parent
    while n is not None:
        if n.type in ("class_definition", "function_definition"):
            nm = n.child_by_field_name("name")
            if nm is not None:
                chain.append(("class" if n.type == "class_definition" else "function", ts.text(nm)))
        n = n.parent
    return list(reversed(chain))


def _resolve_relative(module: str, is_package: bool, rel: str) -> str:
    dots = len(rel) - len(rel.lstrip("."))
    rest = rel[dots:]
    if dots == 0:
        return rel
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (dots - 1)] if dots > 1 else base
    return ".".join([*base, rest] if rest else base)


def extract_python(path: str, data: bytes, module: str,
                   stars: dict[str, list[str]]) -> list[Symbol]:
    tree = ts.parse("python", data)
    is_pkg = path.endswith(("__init__.py", "__init__.pyi"))
    out: list[Symbol] = [Symbol(name=module.rsplit(".", 1)[-1], kind="module", path=path, line=1,
                                parent=module.rsplit(".", 1)[0] if "." in module else None,
                                module=module.rsplit(".", 1)[0] if "." in module else module)]
    caps = ts.captures("python", "python_symbols", tree.root_node)
    for kind, nodes in caps.items():
        if kind == "self":
            continue
        for node in nodes:
            line = node.start_point[0] + 1
            scope = _py_scope(node.parent if kind in ("function", "class") else node)
            if kind in ("import", "import_from"):
                if scope:
                    continue  # only module-level imports re-export
                out.extend(_py_imports(node, path, module, is_pkg, stars))
                continue
            name = ts.text(node)
            if kind == "self_attribute":
                # self.x = ... inside a method: attribute of the enclosing class
                classes = [n for k, n in scope if k == "class"]
                if not classes:
                    continue
                out.append(Symbol(name=name, kind="attribute", path=path, line=line,
                                  parent=classes[-1], module=module))
                continue
            if any(k == "function" for k, _ in scope):
                continue  # locals of a function
            parent = scope[-1][1] if scope else module
            k = kind
            if kind == "function" and scope:
                k = "method"
            out.append(Symbol(name=name, kind=k, path=path, line=line, parent=parent,
                              module=module))
            if kind == "function":
                out.extend(_py_params(node.parent, name, path, module))
    return sorted(out, key=lambda s: (s.line, s.name, s.kind))


_PARAM_TYPES = {"identifier", "typed_parameter", "default_parameter", "typed_default_parameter"}


def _py_params(fn, fname: str, path: str, module: str) -> list[Symbol]:
    """Parameter names of a function: keyword arguments are API names too."""
    params = fn.child_by_field_name("parameters")
    out = []
    for p in params.named_children if params is not None else []:
        if p.type not in _PARAM_TYPES:
            continue
        node = p if p.type == "identifier" else (p.child_by_field_name("name")
                                                 or (p.named_children[0] if p.named_children
                                                     else None))
        if node is None or node.type != "identifier":
            continue
        name = ts.text(node)
        if name in ("self", "cls"):
            continue
        out.append(Symbol(name=name, kind="parameter", path=path, line=node.start_point[0] + 1,
                          parent=fname, module=module))
    return out


def _py_imports(node, path: str, module: str, is_pkg: bool,
                stars: dict[str, list[str]]) -> list[Symbol]:
    out = []
    line = node.start_point[0] + 1
    if node.type == "import_statement":
        for child in node.named_children:
            if child.type == "dotted_name":
                full = ts.text(child)
                out.append(Symbol(name=full.split(".")[0], kind="import", path=path, line=line,
                                  parent=module, module=module, target=full))
            elif child.type == "aliased_import":
                nm = child.child_by_field_name("name")
                al = child.child_by_field_name("alias")
                out.append(Symbol(name=ts.text(al), kind="import", path=path, line=line,
                                  parent=module, module=module, target=ts.text(nm)))
        return out
    modnode = node.child_by_field_name("module_name")
    src = _resolve_relative(module, is_pkg, ts.text(modnode)) if modnode is not None else ""
    for child in node.named_children:
        if child is modnode:
            continue
        if child.type == "wildcard_import":
            stars.setdefault(module, []).append(src)
        elif child.type == "dotted_name":
            nm = ts.text(child)
            out.append(Symbol(name=nm, kind="import", path=path, line=line, parent=module,
                              module=module, target=f"{src}.{nm}"))
        elif child.type == "aliased_import":
            nm = child.child_by_field_name("name")
            al = child.child_by_field_name("alias")
            out.append(Symbol(name=ts.text(al), kind="import", path=path, line=line,
                              parent=module, module=module, target=f"{src}.{ts.text(nm)}"))
    return out
