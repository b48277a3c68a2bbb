"""Course repositories hosted in git: the docs folder at the pinned course commit,
materialised once into the cache (read-only copy; `--write` needs a local path)."""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from verifier.errors import AcquisitionError, ConfigError
from verifier.sources.gitstore import PartialClone

if TYPE_CHECKING:
    from verifier.pins import Course
    from verifier.project import Project


def checkout_course(project: "Project", course: "Course") -> Path:
    assert course.git and course.commit
    dest = project.store.path("courses", f"{course.name}-{course.commit}")
    done = dest / ".complete"
    if done.exists():
        return dest
    key = hashlib.sha1(course.git.encode()).hexdigest()[:12]
    clone_dir = project.store.path("git", f"course-{key}.git")
    try:
        with project.store.lock(f"course-{key}"):
            clone = PartialClone(clone_dir, course.git, project.config.git_timeout)
            clone.ensure_commit(course.commit)
            tree = clone.tree(course.commit)
            prefix = course.docs.rstrip("/") + "/"
            wanted = {p: b for p, b in tree.items() if p.startswith(prefix)}
            clone.prefetch(sorted(set(wanted.values())))
            for path, blob in sorted(wanted.items()):
                pp = PurePosixPath(path)
                if pp.is_absolute() or ".." in pp.parts:
                    raise AcquisitionError(f"course tree has unsafe path {path!r}")
                data = clone.read_blob(blob)
                if data is None:
                    raise AcquisitionError(f"blob {blob} of {path} missing from {course.git}")
                project.store.write_bytes(dest / path, data)
            project.store.write_bytes(done, course.commit.encode())
    except AcquisitionError as exc:
        raise ConfigError(f"cannot get course {course.name} at {course.commit}: {exc.message}",
                          file=str(project.pins.path), key=f"course.{course.name}") from None
    return dest
