"""A project: pins.toml + pins.lock + the user's config + the cache, and the
course lessons they point at. Every command starts from `load_project`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from verifier.cache import Store
from verifier.config import UserConfig, load_config
from verifier.errors import ConfigError, UsageError
from verifier.lessons import github_links, lesson_files
from verifier.pins import Course, Lock, Pins, load_lock, load_pins
from verifier.sources.layer import Notify, SourceLayer


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
            return self.file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read lesson: {exc}", file=str(self.file)) from None

    @property
    def name(self) -> str:
        return f"{self.course}/{self.path}"


@dataclass
class Project:
    pins: Pins
    lock: Lock
    config: UserConfig
    store: Store
    lock_path: Path
    notify: Notify | None = None
    _layer: SourceLayer | None = field(default=None, repr=False)

    @property
    def root(self) -> Path:
        return self.pins.root

    @property
    def sources(self) -> SourceLayer:
        if self._layer is None:
            self._layer = SourceLayer(self.pins, self.lock, self.config, self.store, self.notify)
        return self._layer

    # ------------------------------------------------------------------ courses
    def course_root(self, course: Course) -> Path:
        if course.path:
            return (self.root / course.path).resolve()
        from verifier.courses import checkout_course  # git-hosted course

        return checkout_course(self, course)

    def lessons(self, paths: list[str] | None = None, course: str | None = None) -> list[LessonDoc]:
        """Lessons of every course in pins.toml, or the given files."""
        if course is not None and course not in self.pins.course:
            raise UsageError(f"unknown course {course!r} (pins.toml has: "
                             f"{', '.join(sorted(self.pins.course))})")
        if not paths:
            out = []
            for name, c in sorted(self.pins.course.items()):
                if course and name != course:
                    continue
                root = self.course_root(c)
                if not root.is_dir():
                    raise ConfigError(f"course directory {root} does not exist", file=str(
                        self.pins.path), key=f"course.{name}.path")
                for f in lesson_files(root, c.docs):
                    out.append(LessonDoc(name, f.relative_to(root).as_posix(), f,
                                         tuple(c.upstreams)))
            return out
        out = []
        for p in paths:
            f = Path(p)
            if not f.is_file():
                raise UsageError(f"lesson {p} does not exist")
            out.append(self.lesson_for(f, course))
        return out

    def lesson_for(self, f: Path, course: str | None = None) -> LessonDoc:
        f = f.resolve()
        if course is None:
            parts = f.parts
            for i in range(len(parts) - 1, 0, -1):
                if parts[i] in self.pins.course and i + 1 < len(parts):
                    course = parts[i]
                    break
        if course is None:
            raise UsageError(f"cannot tell which course {f} belongs to: put it under "
                             "<course-repo>/docs/ or pass --course NAME")
        c = self.pins.course[course]
        idx = max((i for i, part in enumerate(f.parts) if part == course), default=None)
        rel = "/".join(f.parts[idx + 1:]) if idx is not None else f.name
        return LessonDoc(course, rel, f, tuple(c.upstreams))

    # ------------------------------------------------------------------ citations
    def cited_files(self, lessons: list[LessonDoc] | None = None) -> list[tuple[str, str]]:
        """(upstream, path) of every file a lesson links at a pinned upstream."""
        found: dict[tuple[str, str], None] = {}
        for lesson in lessons if lessons is not None else self.lessons():
            for _ref, link in github_links(lesson.text):
                up = self.pins.by_slug(link.slug)
                if up is None or link.kind not in ("blob", "raw") or not link.path:
                    continue
                if link.hostile_path:
                    continue
                found[(up.name, link.path)] = None
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
    path = pins_path or find_pins()
    pins = load_pins(path)
    lock_path = path.parent / "pins.lock"
    lock = load_lock(lock_path)
    config = load_config()
    if offline is not None and offline:
        config.offline = True
    cache_dir = cache or (Path(config.cache) if config.cache else None)
    store = Store(cache_dir)
    return Project(pins=pins, lock=lock, config=config, store=store, lock_path=lock_path,
                   notify=notify)
