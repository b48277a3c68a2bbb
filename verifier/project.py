"""A project: pins.toml + pins.lock + the user's config + the cache, and the
course lessons they point at. Every command starts from `load_project`."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.cache import Store
from verifier.config import UserConfig, load_config
from verifier.courses import (CourseCheckout, CourseUnavailable, checkout_course,
                              missing_courses_error, tree_dir)
from verifier.errors import ConfigError, UsageError
from verifier.gitblob import blob_sha
from verifier.lessons import lesson_files, refuse_outside
from verifier.pins import Course, Lock, Pins, load_lock, load_pins
from verifier.sources.layer import Notify, SourceLayer

if TYPE_CHECKING:
    from verifier.lessons.model import Lesson
    from verifier.safewrite import Protected


@dataclass(frozen=True)
class LessonDoc:
    """One lesson file of a course repository."""

    course: str
    path: str            # path inside the course repository, e.g. docs/state-and-time.md
    file: Path           # where it is read from
    upstreams: tuple[str, ...]

    @cached_property
    def text(self) -> str:
        try:
            self.path.encode("utf-8")
        except UnicodeEncodeError:       # a name the file system gave as undecodable bytes
            raise ConfigError("the lesson's file name is not valid UTF-8; records, claims and "
                              "links name lessons by their path, so it cannot be used",
                              file=os.fsdecode(self.file).encode("utf-8", "backslashreplace"
                                                                ).decode("utf-8"),
                              hint="rename it to a UTF-8 name") from None
        try:
            size, limit = self.file.stat().st_size, max_lesson_bytes()
            if size > limit:
                raise ConfigError(
                    f"lesson is {size / (1 << 20):.1f} MiB, above the limit of "
                    f"{limit / (1 << 20):g} MiB per lesson; refusing to parse it",
                    file=str(self.file),
                    hint="split the lesson or raise VERIFIER_MAX_LESSON_MB; parsing and "
                         "linting cost about 4 s and 90 MiB per MiB of lesson here")
            return self.file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read lesson: {exc}", file=str(self.file)) from None

    @cached_property
    def blob(self) -> str:
        """The git blob of the lesson's text (what memo and cache keys name it by)."""
        return blob_sha(self.text.encode("utf-8"))

    @property
    def name(self) -> str:
        return f"{self.course}/{self.path}"


MAX_LESSON_MB = 2      # per lesson; $VERIFIER_MAX_LESSON_MB overrides (docs/bench.md)


def max_lesson_bytes() -> int:
    """The size above which a lesson is refused (ConfigError, exit 2), in bytes."""
    raw = os.environ.get("VERIFIER_MAX_LESSON_MB", "").strip()
    if not raw:
        return MAX_LESSON_MB << 20
    try:
        mb = float(raw)
        if mb <= 0:
            raise ValueError
    except ValueError:
        raise ConfigError(f"VERIFIER_MAX_LESSON_MB={raw!r}: expected a positive number of MiB",
                          key="VERIFIER_MAX_LESSON_MB") from None
    return int(mb * (1 << 20))


@dataclass
class Project:
    pins: Pins
    lock: Lock
    config: UserConfig
    store: Store
    lock_path: Path
    notify: Notify | None = None
    _layer: SourceLayer | None = field(default=None, repr=False)
    _checkouts: dict[str, CourseCheckout] = field(default_factory=dict, repr=False)
    _missing: dict[str, str] = field(default_factory=dict, repr=False)
    _cited: dict[str, list[tuple[str, str]]] = field(default_factory=dict, repr=False)
    _links: tuple[str, list] | None = field(default=None, repr=False)

    @property
    def root(self) -> Path:
        return self.pins.root

    @property
    def sources(self) -> SourceLayer:
        if self._layer is None:
            self._layer = SourceLayer(self.pins, self.lock, self.config, self.store, self.notify)
        return self._layer

    # ------------------------------------------------------------------ courses
    def course_checkouts(self, names: list[str] | None = None) -> dict[str, CourseCheckout]:
        """The checkout of every named course (default: all in pins.toml), each acquired
        once per run. Courses nothing provides are reported together in one error."""
        wanted = sorted(self.pins.course) if names is None else sorted(set(names))
        for name in wanted:
            if name in self._checkouts or name in self._missing:
                continue
            course = self.pins.course[name]
            try:
                co = checkout_course(self.store, self.config, course, base=self.root)
            except CourseUnavailable as exc:
                self._missing[name] = exc.message
                continue
            self._checkouts[name] = co
            if self.notify:
                self.notify(co.describe())
        missing = {n: self._missing[n] for n in wanted if n in self._missing}
        if missing:
            raise missing_courses_error(missing, str(self.pins.path) if self.pins.path else None)
        return {n: self._checkouts[n] for n in wanted}

    def course_checkout(self, name: str) -> CourseCheckout:
        return self.course_checkouts([name])[name]

    def known_checkout(self, name: str) -> CourseCheckout | None:
        """The checkout this run already uses for a course (never acquires one)."""
        return self._checkouts.get(name)

    def course_root(self, course: Course) -> Path:
        return self.course_checkout(course.name).root

    def lessons(self, paths: list[str] | None = None, course: str | None = None) -> list[LessonDoc]:
        """Lessons of every course in pins.toml, or the given files."""
        if course is not None and course not in self.pins.course:
            raise UsageError(f"unknown course {course!r} (pins.toml has: "
                             f"{', '.join(sorted(self.pins.course))})")
        if not paths:
            out = []
            for name, co in self.course_checkouts([course] if course else None).items():
                c = self.pins.course[name]
                for f in lesson_files(co.root, c.docs):
                    out.append(LessonDoc(name, f.relative_to(co.root).as_posix(), f,
                                         tuple(c.upstreams)))
            return out
        out = []
        for p in paths:
            f = Path(p)
            if not f.is_file():
                raise UsageError(f"lesson {p} does not exist")
            out.append(self.lesson_for(f, course))
        return out

    def _local_roots(self) -> dict[str, Path]:
        """Course roots known without acquiring anything: checkouts in use, existing
        local checkouts and copies, and course trees already in the cache."""
        roots: dict[str, Path] = {n: co.root for n, co in self._checkouts.items()}
        for name, c in self.pins.course.items():
            if name in roots:
                continue
            cands = [self.config.courses.get(name), c.path and str(self.root / c.path)]
            for cand in cands:
                if cand and not cand.startswith("file://") and Path(cand).expanduser().is_dir():
                    roots[name] = Path(cand).expanduser().resolve()
                    break
            else:
                if c.commit:
                    tree = tree_dir(self.store, c)[0]
                    if tree.is_dir():
                        roots[name] = tree
        return roots

    def lesson_for(self, f: Path, course: str | None = None) -> LessonDoc:
        given = Path(os.path.abspath(f))
        f = given.resolve()
        for name, root in sorted(self._local_roots().items()):
            if course in (None, name) and f.is_relative_to(root):
                c = self.pins.course[name]
                if name not in self._checkouts:
                    with contextlib.suppress(CourseUnavailable):
                        co = checkout_course(self.store, self.config, c, base=self.root)
                        if co.root == root:
                            self._checkouts[name] = co
                return LessonDoc(name, f.relative_to(root).as_posix(), f, tuple(c.upstreams))
        # not inside a known course checkout: the course is found in the path as given
        # (symlinks kept), and the file must resolve inside that checkout: a symlink
        # leading out of the course is refused, never read
        found = course
        for path in (given, f):
            found = course
            if found is None:
                for i in range(len(path.parts) - 1, 0, -1):
                    if path.parts[i] in self.pins.course and i + 1 < len(path.parts):
                        found = path.parts[i]
                        break
            if found is not None:
                break
        course = found
        if course is None:
            raise UsageError(f"cannot tell which course {f} belongs to: put it under "
                             "<course-repo>/docs/ or pass --course NAME")
        c = self.pins.course[course]
        idx = max((i for i, part in enumerate(path.parts) if part == course), default=None)
        rel = "/".join(path.parts[idx + 1:]) if idx is not None else path.name
        root = Path(*path.parts[:idx + 1]) if idx is not None else given.parent
        refuse_outside(root, given)
        return LessonDoc(course, rel, f, tuple(c.upstreams))

    def protected(self) -> "list[Protected]":
        """What a command writing records or other outputs must not write into or around
        (`verifier.safewrite.guard`): each course's lessons (the checkouts in use, local
        copies and cached trees), the claim files, pins.toml / pins.lock / lint.toml and
        the verifier's own sources."""
        import verifier
        from verifier.safewrite import Protected

        out = []
        for name, root in sorted(self._local_roots().items()):
            docs = self.pins.course[name].docs
            base = root if docs == "." else root / docs
            out.append(Protected(Path(os.path.realpath(base)), f"the lessons of course {name}"))
        out.append(Protected(Path(os.path.realpath(self.root / "claims")),  # claims.loader.CLAIMS_DIR
                             "the claim files"))
        for f in ("pins.toml", "pins.lock", "lint.toml", "coverage.toml"):
            if (self.root / f).exists():
                out.append(Protected(Path(os.path.realpath(self.root / f)), f))
        out.append(Protected(Path(os.path.realpath(Path(verifier.__file__).parent)),
                             "the verifier's own sources"))
        return out

    # ------------------------------------------------------------------ citations
    def lesson(self, doc: LessonDoc) -> "Lesson":
        """The parsed lesson (markdown-it once per text and parser version: the parse is
        kept in the fact cache, `lessons/cache.py`)."""
        from verifier.lessons.cache import load_lesson

        return load_lesson(doc.text, self.store)

    def links(self, doc: LessonDoc) -> list:
        """The links of a lesson (`lesson(doc).links`, building nothing else). Only the
        last lesson's are kept; the files it cites are kept per lesson text for the run
        (and, by `cited_by`/`cited_files`, in the fact cache: `lessons/cited.py`), so that
        asking for both reads the lesson's cache entry once."""
        from verifier.lessons.cache import load_links
        from verifier.lessons.cited import cited_in

        key = doc.blob
        if self._links is not None and self._links[0] == key:
            return self._links[1]
        got = load_links(doc.text, self.store)
        self._links = (key, got)
        if key not in self._cited:
            self._cited[key] = cited_in(got, self.pins)
        return got

    def _cited_of(self, doc: LessonDoc) -> list[tuple[str, str]]:
        key = doc.blob
        if key not in self._cited:
            from verifier.lessons.cited import cached_cited, cited_in

            self._cited[key] = cached_cited(key, self.store, self.pins,
                                            lambda: cited_in(self.links(doc), self.pins))
        return self._cited[key]

    def cited_by(self, doc: LessonDoc) -> list[list[str]]:
        """(upstream, path) of the files one lesson cites, as plain lists."""
        return [list(c) for c in self._cited_of(doc)]

    def remember_cited(self, key: str, cited: list) -> None:
        """What a lesson of text blob `key` cites, known from elsewhere (the lint memo
        keeps it: pins.toml, which maps links to upstreams, is part of its key)."""
        self._cited.setdefault(key, [(str(u), str(p)) for u, p in cited])

    def cited_files(self, lessons: list[LessonDoc] | None = None) -> list[tuple[str, str]]:
        """(upstream, path) of every file a lesson links at a pinned upstream (per lesson
        text once per run: the record asks again lesson by lesson)."""
        found: dict[tuple[str, str], None] = {}
        for lesson in lessons if lessons is not None else self.lessons():
            found.update(dict.fromkeys(self._cited_of(lesson)))
        return sorted(found)


def find_pins(start: Path | None = None) -> Path:
    env = os.environ.get("VERIFIER_PINS")
    if env:
        return Path(env)
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / "pins.toml").is_file():
            return d / "pins.toml"
    raise ConfigError("no pins.toml here or in any parent directory",
                      hint="pass --pins PATH or set VERIFIER_PINS")


def load_project(pins_path: Path | None = None, *, offline: bool | None = None,
                 cache: Path | None = None, notify: Notify | None = None) -> Project:
    from verifier.safewrite import recover

    path = pins_path or find_pins()
    rolled_back = recover(path.parent)    # a multi-file write cut short by a SIGKILL
    if rolled_back and notify:
        notify(rolled_back)
    pins = load_pins(path)
    lock_path = path.parent / "pins.lock"
    lock = load_lock(lock_path)
    config = load_config()
    if offline is not None and offline:
        config.offline = True
    cache_dir = cache or (Path(config.cache) if config.cache else None)
    store = Store(cache_dir)
    store.notify = notify
    project = Project(pins=pins, lock=lock, config=config, store=store, lock_path=lock_path,
                      notify=notify)
    _guard_cache(project)
    return project


def _guard_cache(project: Project) -> None:
    """The cache must not lie inside the lessons, the claims or the verifier's sources
    (its sections would be read as lessons, or `cache clean` delete them)."""
    from verifier.safewrite import WriteError, _within

    root = project.store.root
    for p in project.protected():
        if _within(root, p.path) and not _within(p.path, root):
            raise WriteError(f"the cache {root} is inside {p.what} ({p.path}); refusing to "
                             "write the cache there", hint="pass --cache or VERIFIER_CACHE "
                             "a directory of its own")
