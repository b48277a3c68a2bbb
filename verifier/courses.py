"""Course repositories: where a course's lessons are read from, acquired like upstreams.

For each course in pins.toml, in this order:

1. a local checkout named in the user's config (`[courses] NAME = "/path"` in
   config.toml, or `$VERIFIER_COURSES="NAME=/path;..."`): a directory is read as it is;
   a git URL (or a bare repository) replaces the course's `repo` as the remote;
2. the course's `path` (relative to pins.toml), when that directory exists: a local
   copy, `partial` when pins.toml says so;
3. the course's `repo` at its pinned full `commit`: a blobless partial clone in the cache
   (`verifier.sources.gitstore.PartialClone`), whose whole tree at the commit is written
   once into the cache and re-verified by git blob SHA on every later run. Its full tree is
   known, so relative links can be checked conclusively.

A course that none of these provides is reported with every other missing course in one
error that names the ways to provide it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Literal

from verifier.config import config_path
from verifier.errors import AcquisitionError, ConfigError
from verifier.gitblob import blob_sha
from verifier.sources.gitstore import PartialClone, first_line, is_local, local_path

if TYPE_CHECKING:
    from verifier.cache import Store
    from verifier.config import UserConfig
    from verifier.pins import Course

PINS_PATH = "pins.toml `path`"
TREES = "courses"   # cache section: one directory (+ manifest) per course and commit


@dataclass(frozen=True)
class CourseCheckout:
    """Where one course's files are read from, and how much of the repository that is."""

    name: str
    root: Path                      # directory holding the repository's files
    kind: Literal["local", "git"]   # a local checkout / copy, or the repo at its pinned commit
    where: str                      # the directory (absolute, links kept) or URL
    via: str                        # what named it: pins.toml `path`, [courses] in ..., ...
    commit: str | None = None       # the pinned commit (kind "git")
    partial: bool = False           # a local copy that declares it holds only some files
    paths: frozenset[str] | None = None  # every file at the commit (kind "git"), else unknown
    fetched: bool = False           # fetched in this run (else served from the cache)

    @property
    def full_tree(self) -> bool:
        """Every file of the repository at the pinned commit is known (and present)."""
        return self.kind == "git"

    @property
    def writable(self) -> bool:
        """Lessons may be rewritten in place (`upgrade --write`): local checkouts only."""
        return self.kind == "local"

    def has(self, path: str) -> bool | None:
        """Is `path` (repository-relative) a file or directory of the course?
        None when that cannot be known (a partial local copy lacking it)."""
        path = path.strip("/")
        if self.paths is not None:
            return path in self.paths or any(p.startswith(path + "/") for p in self.paths)
        if (self.root / path).exists():
            return True
        return None if self.partial else False

    def describe(self) -> str:
        if self.kind == "git":
            how = "fetched" if self.fetched else "from the cache"
            return (f"course {self.name}: {self.where} at {(self.commit or '')[:7]} "
                    f"(full tree, {how})")
        notes = [] if self.via == PINS_PATH else [f"from {self.via}"]
        if self.partial:
            notes.append("partial")
        extra = f" ({', '.join(notes)})" if notes else ""
        return f"course {self.name}: local checkout {_shown(Path(self.where))}{extra}"


class CourseUnavailable(AcquisitionError):
    """One course could not be provided (the caller gathers these into one error)."""


def _shown(p: Path) -> str:
    """A path people can click: relative to the current directory when that is short."""
    try:
        rel = os.path.relpath(p, Path.cwd())
    except ValueError:
        return str(p)
    return rel if rel.split(os.sep).count("..") <= 2 else str(p)


def _is_git_dir(p: Path) -> bool:
    return (p / "HEAD").is_file() and (p / "objects").is_dir()


def checkout_course(store: "Store", config: "UserConfig", course: "Course", *,
                    base: Path) -> CourseCheckout:
    """The checkout to read `course` from (see the module docstring for the order).
    `base` is the directory pins.toml paths are relative to. Raises CourseUnavailable
    when nothing provides the course, ConfigError for a bad config entry."""
    override = config.courses.get(course.name)
    if override:
        via = config.course_via.get(course.name, "[courses]")
        target = override
        if is_local(override):
            p = local_path(override)
            if not override.startswith("file://"):
                if not p.is_dir():
                    raise ConfigError(f"course {course.name}: {override} is not a directory",
                                      key=via)
                if not _is_git_dir(p):
                    return CourseCheckout(course.name, p.resolve(), "local",
                                          os.path.abspath(p), via)
            target = f"file://{p.resolve()}"
        if not course.commit:
            raise ConfigError(f"course {course.name}: {via} names the git repository "
                              f"{override}, but pins.toml pins no `commit` to read it at",
                              key=via)
        return _at_commit(store, config, course, target, via)
    if course.path:
        p = base / course.path
        if p.is_dir():
            return CourseCheckout(course.name, p.resolve(), "local", os.path.abspath(p), PINS_PATH,
                                  partial=course.partial)
        if not course.repo:
            raise CourseUnavailable(f"no directory {_shown(p)} (pins.toml `path`) and no `repo`")
    assert course.repo  # the model requires `repo` or `path`
    return _at_commit(store, config, course, course.repo, "pins.toml `repo`")


def tree_dir(store: "Store", course: "Course") -> tuple[Path, Path]:
    """The course's files at its commit, and the manifest that marks them complete."""
    name = f"{course.name}-{course.commit}"
    return store.path(TREES, name), store.path(TREES, f"{name}.json")


def _clone_name(course: "Course", url: str) -> str:
    return f"course-{course.name}-{hashlib.sha1(url.encode()).hexdigest()[:12]}.git"


def cache_entries(course: "Course", config: "UserConfig") -> dict[str, set[str]]:
    """Top-level cache entries (per section) this course uses: what `cache gc` keeps."""
    if not course.commit:
        return {}
    override = config.courses.get(course.name)
    url = course.repo
    if override:
        url = f"file://{local_path(override).resolve()}" if is_local(override) else override
    name = f"{course.name}-{course.commit}"
    out = {TREES: {name, f"{name}.json"}}
    if url:
        out["git"] = {_clone_name(course, url)}
    return out


def _cached(store: "Store", course: "Course", url: str, via: str) -> CourseCheckout | None:
    """The tree written by an earlier run, if it is complete and every file still has
    its blob (anything else is rewritten)."""
    dest, manifest = tree_dir(store, course)
    data = store.read_json(manifest)
    if not isinstance(data, dict) or data.get("commit") != course.commit:
        return None
    files = data.get("files")
    if not isinstance(files, dict):
        return None
    for path, blob in files.items():
        try:
            if blob_sha((dest / path).read_bytes()) != blob:
                return None
        except OSError:
            return None
    return CourseCheckout(course.name, dest, "git", url, via, course.commit,
                          paths=frozenset(files))


def _at_commit(store: "Store", config: "UserConfig", course: "Course", url: str,
               via: str) -> CourseCheckout:
    assert course.commit
    hit = _cached(store, course, url, via)
    if hit is not None:
        return hit
    if config.offline and not is_local(url):
        raise CourseUnavailable(f"{url} at {course.commit[:7]} is not in the cache and the "
                                "run is offline")
    dest, manifest = tree_dir(store, course)
    clone_dir = store.path("git", _clone_name(course, url))
    try:
        with store.lock(clone_dir.name.removesuffix(".git")):
            hit = _cached(store, course, url, via)  # another process may have written it
            if hit is not None:
                return hit
            clone = PartialClone(clone_dir, url, config.git_timeout)
            try:
                clone.ensure_commit(course.commit)
                tree = clone.tree(course.commit)
                for path in tree:
                    pp = PurePosixPath(path)
                    if pp.is_absolute() or ".." in pp.parts:
                        raise AcquisitionError(f"the course tree has an unsafe path {path!r}")
                clone.prefetch(sorted(set(tree.values())))
                for path, blob in sorted(tree.items()):
                    data = clone.read_blob(blob)
                    if data is None or blob_sha(data) != blob:
                        raise AcquisitionError(f"blob {blob} of {path} is missing from {url}")
                    store.write_bytes(dest / path, data, fsync=False)
            finally:
                clone.close()
            # written last: its presence marks the tree complete
            store.write_json(manifest, {"commit": course.commit, "repo": url,
                                        "files": dict(sorted(tree.items()))})
    except AcquisitionError as exc:
        raise CourseUnavailable(f"{url} at {course.commit[:7]}: {_reason(exc.message, url)}"
                                ) from None
    except Exception as exc:  # noqa: BLE001 - git/gitpython failures of any kind: say which
        raise CourseUnavailable(f"{url} at {course.commit[:7]}: {first_line(exc)}") from None
    return CourseCheckout(course.name, dest, "git", url, via, course.commit,
                          paths=frozenset(tree), fetched=True)


def _reason(message: str, url: str) -> str:
    """The cause of a failed fetch without the URL repeated (it is named already)."""
    for noise in (f"git fetch from {url} failed: ", "fatal: ", f"unable to access '{url}/': ",
                  f"unable to access '{url}': "):
        message = message.replace(noise, "")
    return message


def missing_courses_error(missing: dict[str, str], pins_file: str | None) -> ConfigError:
    """One error naming every course that could not be provided and how to provide it."""
    names = sorted(missing)
    lines = [f"{len(names)} course(s) not available:"]
    lines += [f"  - {n}: {missing[n]}" for n in names]
    example = ";".join(f"{n}=/path/to/{n}" for n in names)
    lines += ["provide each course in one of two ways:",
              "  1. network access to its `repo`: it is fetched once, at the pinned commit, "
              "into the cache;",
              f'  2. a local checkout: VERIFIER_COURSES="{example}", or a `courses` table in '
              f'{config_path()} (one line per course: NAME = "/path").']
    return ConfigError("\n".join(lines), file=pins_file)
