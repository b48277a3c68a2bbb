"""pins.toml: which upstream commit every lesson cites, how wheels map to repo
paths, and where the course repositories are. Also pins.lock: path -> git blob
at each pin, which proves identity when git cannot be reached."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path
from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator

from verifier.basemodel import Record
from verifier.errors import ConfigError
from verifier.repopath import canonical
from verifier.tomlerrors import Located, read_json, read_toml, validate

SHA40 = re.compile(r"^[0-9a-f]{40}$")
NAME = re.compile(r"^[a-z][a-z0-9_-]*$")

Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$", description="full 40-hex git SHA")]



class PathMap(Record):
    """One rule mapping wheel member paths to repository paths."""

    wheel: str = Field(description="prefix of the member path inside the wheel, e.g. 'mujoco/'")
    repo: str = Field(description="prefix it stands for in the repository, e.g. 'python/mujoco/'")
    glob: str | None = Field(default=None, description="only members whose remainder matches")

    @field_validator("wheel", "repo")
    @classmethod
    def _relative(cls, v: str) -> str:
        return canonical(v, prefix=True)     # one spelling (verifier/repopath.py)

    def to_repo(self, member: str) -> str | None:
        if not member.startswith(self.wheel):
            return None
        rest = member[len(self.wheel):]
        if not rest or rest.endswith("/"):
            return None
        if self.glob and not fnmatch.fnmatchcase(rest, self.glob):
            return None
        return self.repo + rest

    def to_wheel(self, path: str) -> str | None:
        if not path.startswith(self.repo):
            return None
        rest = path[len(self.repo):]
        if not rest or (self.glob and not fnmatch.fnmatchcase(rest, self.glob)):
            return None
        return self.wheel + rest


class Wheel(Record):
    requirement: str = Field(description="exact pin, 'name==version'")
    map: list[PathMap] = Field(default_factory=list)
    sdist: bool = Field(default=False, description="use the sdist instead of a wheel")

    @field_validator("requirement")
    @classmethod
    def _exact(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!_-]+", v):
            raise ValueError("must be an exact pin like 'mujoco==3.15.0'")
        return v

    @property
    def name(self) -> str:
        return self.requirement.split("==")[0]

    @property
    def version(self) -> str:
        return self.requirement.split("==")[1]

    def to_repo(self, member: str) -> str | None:
        for rule in self.map:
            hit = rule.to_repo(member)
            if hit is not None:
                return hit
        return None


class Upstream(Record):
    name: str = ""
    repo: str = Field(description="git URL of the upstream, e.g. https://github.com/owner/name")
    commit: Sha
    version: str
    tag: str | None = None
    languages: list[Literal["c", "cpp", "python"]] = Field(default_factory=list)
    python: str | None = Field(default=None, description="Python requirement of its wheels")
    runtime: list[str] = Field(default_factory=list, description="requirements of its runtime env")
    wheel: list[Wheel] = Field(default_factory=list)
    also: list[Sha] = Field(default_factory=list,
                            description="other commits lessons may cite for this upstream")

    @field_validator("commit", mode="before")
    @classmethod
    def _sha(cls, v: object) -> object:
        if isinstance(v, str) and not SHA40.match(v):
            raise ValueError(f"malformed commit SHA {v!r}: expected 40 lowercase hex digits")
        return v

    @property
    def slug(self) -> str:
        """'owner/name' of a GitHub URL (or the URL's last two components)."""
        url = self.repo.rstrip("/").removesuffix(".git")
        parts = re.split(r"[/:]", url)
        return "/".join(parts[-2:])

    @property
    def short(self) -> str:
        return self.commit[:7]

    def permalink(self, path: str, start: int | None = None, end: int | None = None) -> str:
        base = self.repo.rstrip("/").removesuffix(".git")
        url = f"{base}/blob/{self.commit}/{path}"
        if start is not None:
            url += f"#L{start}" + (f"-L{end}" if end is not None and end != start else "")
        return url


class Course(Record):
    """A course repository: where its lessons come from.

    Acquired like an upstream: `repo` + full `commit` (a blobless partial clone into the
    cache, read at exactly that commit, full tree known). A local checkout is used instead
    when one is given: `path` (relative to pins.toml) when that directory exists, or the
    user's config (`[courses]`, `$VERIFIER_COURSES`). `partial = true` says the local copy
    at `path` holds only some of the repository's files (relative links to the others
    cannot be checked there); it never applies to a checkout at `commit`."""

    name: str = ""
    repo: str | None = Field(default=None, validation_alias=AliasChoices("repo", "git"),
                             description="git URL of the course repository "
                             "(`git` is accepted as an older name)")
    commit: Sha | None = Field(default=None, description="full 40-hex commit of the course "
                               "the lessons are read at")
    path: str | None = Field(default=None, description="local checkout or copy, relative to "
                             "pins.toml; used when it exists")
    partial: bool = Field(default=False, description="the local copy at `path` holds only "
                          "some of the repository's files")
    docs: str = "docs"

    @field_validator("docs")
    @classmethod
    def _docs(cls, v: str) -> str:
        return v if v == "." else canonical(v)
    upstreams: list[str]

    @field_validator("commit", mode="before")
    @classmethod
    def _sha(cls, v: object) -> object:
        if isinstance(v, str) and not SHA40.match(v):
            raise ValueError(f"malformed commit SHA {v!r}: expected the full 40-hex commit "
                             "(a short SHA, branch or tag cannot prove which lessons were read)")
        return v

    @model_validator(mode="after")
    def _where(self) -> "Course":
        if not self.path and not self.repo:
            raise ValueError("needs `repo` + `commit` (the course repository at a pinned "
                             "commit) or `path` (a local directory)")
        if self.repo and not self.commit:
            raise ValueError("`repo` needs the full 40-hex `commit` the lessons are read at")
        if self.partial and not self.path:
            raise ValueError("`partial` describes the local copy at `path`; there is no `path`")
        return self

    @property
    def short(self) -> str | None:
        return self.commit[:7] if self.commit else None


SCHEMA = 1


def _schema_ok(v: object, what: str) -> object:
    if isinstance(v, int) and not isinstance(v, bool) and v != SCHEMA:
        raise ValueError(f"unsupported {what} schema {v}: this verifier reads schema {SCHEMA}")
    return v


class Pins(Record):
    schema_: int = Field(default=SCHEMA, alias="schema")
    upstream: dict[str, Upstream]
    course: dict[str, Course] = Field(default_factory=dict)
    path: Path | None = Field(default=None, exclude=True)

    @field_validator("schema_")
    @classmethod
    def _schema(cls, v: int) -> int:
        return _schema_ok(v, "pins.toml")  # type: ignore[return-value]

    @model_validator(mode="before")
    @classmethod
    def _names(cls, data: object) -> object:
        if isinstance(data, dict):
            for section in ("upstream", "course"):
                tables = data.get(section)
                if isinstance(tables, dict):
                    for key, value in tables.items():
                        if not NAME.match(key):
                            raise ValueError(f"{section} name {key!r} must match {NAME.pattern}")
                        if isinstance(value, dict):
                            value.setdefault("name", key)
        return data

    @model_validator(mode="after")
    def _refs(self) -> "Pins":
        for cname, course in self.course.items():
            for u in course.upstreams:
                if u not in self.upstream:
                    raise Located(("course", cname, "upstreams"),
                                  f"course {cname!r} names unknown upstream {u!r} (known: "
                                  f"{', '.join(sorted(self.upstream)) or 'none'})")
        return self

    @property
    def root(self) -> Path:
        return self.path.parent if self.path else Path.cwd()

    def get(self, name: str) -> Upstream:
        try:
            return self.upstream[name]
        except KeyError:
            known = ", ".join(sorted(self.upstream))
            raise ConfigError(f"unknown upstream {name!r} (pins.toml has: {known})") from None

    def by_slug(self, slug: str) -> Upstream | None:
        slug = slug.lower()
        for up in self.upstream.values():
            if up.slug.lower() == slug:
                return up
        return None


def load_pins(path: Path) -> Pins:
    data, text = read_toml(path)
    pins = validate(Pins, data, path, text)
    return pins.model_copy(update={"path": path.resolve()})


# --------------------------------------------------------------------------- lock


class LockedUpstream(Record):
    commit: Sha
    source: list[str] = Field(default_factory=list, description="where these blobs came from")
    count: int | None = Field(default=None, ge=0,
                              description="number of files written (detects a truncated lock)")
    complete: bool = Field(default=False, description="files list the whole tree at the "
                           "commit (`verifier lock --full`, or a manifest that says so)")
    files: dict[str, Sha] = Field(default_factory=dict)

    @field_validator("files")
    @classmethod
    def _paths(cls, v: dict[str, str]) -> dict[str, str]:
        for path in v:
            canonical(path)                  # a lock names each file one way
        return v


class Lock(Record):
    schema_: int = Field(default=SCHEMA, alias="schema")
    upstreams: list[str] | None = Field(default=None, description="names of every entry "
                                        "written (detects a truncated lock)")
    upstream: dict[str, LockedUpstream] = Field(default_factory=dict)
    path: Path | None = Field(default=None, exclude=True)
    present: bool = Field(default=False, exclude=True, description="read from an existing file")

    @field_validator("schema_")
    @classmethod
    def _schema(cls, v: int) -> int:
        return _schema_ok(v, "pins.lock")  # type: ignore[return-value]

    def entry(self, upstream: Upstream) -> LockedUpstream | None:
        """The entry for upstream, only if it is for the pinned commit."""
        entry = self.upstream.get(upstream.name)
        return entry if entry is not None and entry.commit == upstream.commit else None

    def blob(self, upstream: Upstream, path: str) -> str | None:
        """The pin's blob for path, only if the lock is for the same commit."""
        entry = self.entry(upstream)
        return entry.files.get(path) if entry else None

    def paths(self, upstream: Upstream) -> list[str]:
        entry = self.entry(upstream)
        return sorted(entry.files) if entry else []

    def problem(self, upstream: Upstream) -> tuple[str, str] | None:
        """(code, message) when the lock cannot prove identity for `upstream`:
        absent or empty file, no entry, an entry for another commit, a truncated entry."""
        where = self.path.name if self.path else "pins.lock"
        entry = self.upstream.get(upstream.name)
        if not self.present:
            return "lock-missing", f"{where} does not exist"
        if not self.upstream and not self.upstreams:
            return "lock-empty", f"{where} is empty (no upstream entries)"
        if entry is None:
            if self.upstreams and upstream.name in self.upstreams:
                return ("lock-truncated", f"{where} lists {upstream.name} in its header but has "
                        "no entry for it: the file is truncated or was edited")
            return "lock-missing", f"{where} has no entry for {upstream.name}"
        if entry.commit != upstream.commit:
            return ("lock-other-commit", f"{where} is for {upstream.name} at {entry.commit[:7]}, "
                    f"but pins.toml pins {upstream.short}: its blobs are not used")
        if self.upstreams is not None and (entry.count is None or entry.count != len(entry.files)):
            return ("lock-truncated", f"{where} entry for {upstream.name} has {len(entry.files)} "
                    f"file(s) but was written with {entry.count if entry.count is not None else 'a count'}"
                    ": the file is truncated or was edited")
        return None


def load_lock(path: Path) -> Lock:
    if not path.exists():
        return Lock(path=path)
    data, text = read_toml(path)
    lock = validate(Lock, data, path, text)
    return lock.model_copy(update={"path": path, "present": True})


def dump_lock(lock: Lock) -> str:
    """Deterministic TOML: sorted upstreams and paths."""
    import tomlkit

    doc = tomlkit.document()
    doc.add(tomlkit.comment("Generated by `verifier lock`. Path -> git blob at each pinned commit."))
    doc.add("schema", lock.schema_)
    doc.add("upstreams", sorted(lock.upstream))
    ups = tomlkit.table(is_super_table=True)
    for name in sorted(lock.upstream):
        entry = lock.upstream[name]
        t = tomlkit.table()
        t.add("commit", entry.commit)
        t.add("source", sorted(set(entry.source)))
        t.add("count", len(entry.files))
        if entry.complete:
            t.add("complete", True)
        files = tomlkit.table()
        for p in sorted(entry.files):
            files.add(p, entry.files[p])
        t.add("files", files)
        ups.add(name, t)
    doc.add("upstream", ups)
    return tomlkit.dumps(doc)


def _json_line(text: str, value: str) -> int | None:
    """Line of the first occurrence of `value` as a JSON string in `text`."""
    import json

    at = text.find(json.dumps(value)[1:-1])
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def import_manifest(lock: Lock, pins: Pins, manifest: Path,
                    tree_of: "Callable[[str], dict[str, str] | None] | None" = None,
                    ) -> tuple[Lock, str, int]:
    """Merge a course `sources.json` ({upstream, commit, files:[{path, git_blob}]},
    optionally `"complete": true` when files lists the whole tree at the commit).

    `complete` is believed only when the manifest does list the whole tree: every path of
    the git tree at the commit when `tree_of(upstream)` knows it, else at least every
    path the lock already holds for that commit. A manifest that says `complete` and is
    not is refused (a complete entry makes every path it lacks "absent at the pin")."""
    data, text = read_json(manifest)
    if not isinstance(data, dict) or not isinstance(data.get("files"), list):
        raise ConfigError("expected an object with 'upstream', 'commit' and 'files'",
                          file=str(manifest))
    slug = str(data.get("upstream", ""))
    up = pins.by_slug(slug)
    if up is None:
        raise ConfigError(f"manifest is for {slug!r}, which no upstream in pins.toml names",
                          file=str(manifest), key="upstream")
    commit = str(data.get("commit", ""))
    if commit != up.commit:
        raise ConfigError(
            f"manifest is for commit {commit or '(none)'}, but pins.toml pins {up.name} at "
            f"{up.commit}; refusing to import blobs of another version",
            file=str(manifest), key="commit")
    existing = lock.upstream.get(up.name)
    files = dict(existing.files) if existing and existing.commit == up.commit else {}
    sources = list(existing.source) if existing and existing.commit == up.commit else []
    added = 0
    for i, item in enumerate(data["files"]):
        if not isinstance(item, dict):
            raise ConfigError(f"files[{i}] is not an object", file=str(manifest))
        path, blob = item.get("path"), item.get("git_blob")
        if not isinstance(path, str):
            raise ConfigError(f"files[{i}].path {path!r} is not a safe relative path",
                              file=str(manifest))
        try:
            canonical(path)
        except ValueError as exc:
            raise ConfigError(f"files[{i}].path is not a safe relative path: {exc}",
                              file=str(manifest), line=_json_line(text, path)) from None
        if not isinstance(blob, str) or not SHA40.match(blob):
            raise ConfigError(f"files[{i}].git_blob {blob!r} is not a 40-hex SHA",
                              file=str(manifest))
        if path in files and files[path] != blob:
            raise ConfigError(f"{path}: blob {blob} conflicts with {files[path]} already locked",
                              file=str(manifest))
        if path not in files:
            added += 1
        files[path] = blob
    sources.append("import:" + "/".join(manifest.resolve().parts[-3:]))
    listed = {item["path"] for item in data["files"]}
    if data.get("complete") is True:
        tree = tree_of(up.name) if tree_of is not None else None
        held = set(existing.files) if existing and existing.commit == up.commit else set()
        lacking = sorted((set(tree) if tree is not None else held) - listed)
        extra = sorted(listed - set(tree))[:3] if tree is not None else []
        if lacking or extra:
            basis = (f"the git tree at {up.short} has {len(tree)}" if tree is not None else
                     f"pins.lock already holds {len(held)} for {up.name} at {up.short}")
            raise ConfigError(
                f"manifest says \"complete\": true but lists {len(listed)} path(s) and "
                f"{basis}" + (f"; it lacks {', '.join(lacking[:3])}"
                              + (f" and {len(lacking) - 3} more" if len(lacking) > 3 else "")
                              if lacking else "")
                + (f"; {', '.join(extra)} not in the tree" if extra else "")
                + ": only a listing of the whole tree may mark the lock complete",
                file=str(manifest), key="complete",
                hint="remove \"complete\" from the manifest, or lock the whole tree with "
                     "`verifier lock --full` where git reaches it")
    complete = data.get("complete") is True or bool(existing and existing.commit == up.commit
                                                    and existing.complete)
    new = lock.upstream | {up.name: LockedUpstream(commit=up.commit, source=sorted(set(sources)),
                                                   count=len(files), complete=complete,
                                                   files=files)}
    return lock.model_copy(update={"upstream": new}), up.name, added
