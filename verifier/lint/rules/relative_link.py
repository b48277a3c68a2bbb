from __future__ import annotations

import difflib
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from verifier.lessons import inside
from verifier.lint.base import Rule


def _course_root(doc) -> Path:
    parts = PurePosixPath(doc.path).parts
    root = doc.file.absolute()
    for _ in parts:
        root = root.parent
    return root.resolve()


class RelativeLink(Rule):
    """A relative link between lessons (or to other files of the course repository)
    must resolve to an existing file inside the course repository (symbolic links
    included: a link whose target resolves outside is reported, and what lies outside
    is never looked at). When lint.toml
    declares the course directory a partial copy (`[course.NAME] partial = true`), a
    missing target is reported as unverifiable (source-unavailable) unless a file of
    the same type with a near-identical name exists, which marks a dead link."""

    name = "relative-link"
    code = "VL107"

    def check(self, ctx, doc, lesson):
        out = []
        root = _course_root(doc)
        here = PurePosixPath(doc.path).parent
        partial = ctx.course_partial(doc.course)
        for link in lesson.links:
            href = link.href.strip()
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("#", "/", "mailto:")) or not href:
                continue
            rel = unquote(parts.path)
            if not rel:
                continue
            target = PurePosixPath(*(here / rel).parts)
            norm: list[str] = []
            escaped = False
            for p in target.parts:
                if p == "..":
                    if not norm:
                        escaped = True
                        break
                    norm.pop()
                elif p != ".":
                    norm.append(p)
            if escaped:
                out.append(self.finding(doc, link.line, f"relative link {href!r} leaves the "
                                        "course repository", target=href))
                continue
            course_path = "/".join(norm)
            f = root.joinpath(*norm)
            if not inside(root, f):
                # a symlink in the course leads out of it: never look at what lies there
                out.append(self.finding(doc, link.line, f"relative link {href!r} resolves "
                                        "outside the course repository (through a symbolic "
                                        "link)", target=href, resolved=course_path))
                continue
            if f.exists():
                continue
            near = None
            if f.parent.is_dir():
                sibs = sorted(p.name for p in f.parent.iterdir() if p.suffix == f.suffix)
                best = difflib.get_close_matches(f.name, sibs, n=1, cutoff=0.85)
                near = best[0] if best else None
            if partial and near is None:
                out.append(self.unavailable(doc, link.line, doc.course, course_path,
                                            "target not in this partial copy of the course"))
                continue
            hint = f"; did you mean {near!r}?" if near else ""
            out.append(self.finding(doc, link.line, f"relative link {href!r}: {course_path} "
                                    f"does not exist in course {doc.course}{hint}", target=href,
                                    resolved=course_path, suggestion=near))
        return out
