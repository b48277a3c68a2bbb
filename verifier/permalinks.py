"""GitHub links in lessons: parse `https://github.com/<owner>/<repo>/<blob|tree>/<ref>/<path>#Lx-Ly`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote, urlsplit

_LINES = re.compile(r"^L(\d+)(?:C\d+)?(?:-L(\d+)(?:C\d+)?)?$")


@dataclass(frozen=True)
class GitHubLink:
    url: str
    owner: str
    repo: str
    kind: str            # blob | tree | raw | commit | other
    ref: str | None
    path: str | None
    start: int | None
    end: int | None
    fragment: str | None

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def is_sha(self) -> bool:
        return bool(self.ref and re.fullmatch(r"[0-9a-f]{40}", self.ref))

    @property
    def hostile_path(self) -> bool:
        return bool(self.path) and (self.path.startswith("/") or ".." in self.path.split("/")
                                    or "\\" in self.path or "\0" in self.path)


@lru_cache(maxsize=16384)    # links repeat across lessons and rules; GitHubLink is frozen
def parse_github_url(url: str) -> GitHubLink | None:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or parts.netloc.lower() not in ("github.com",
                                                                            "www.github.com"):
        return None
    segs = [unquote(s) for s in parts.path.split("/") if s]
    if len(segs) < 2:
        return None
    owner, repo = segs[0], segs[1].removesuffix(".git")
    kind, ref, path = "other", None, None
    if len(segs) >= 4 and segs[2] in ("blob", "tree", "raw"):
        kind, ref = segs[2], segs[3]
        path = "/".join(segs[4:]) or None
    elif len(segs) >= 4 and segs[2] == "commit":
        kind, ref = "commit", segs[3]
    start = end = None
    frag = parts.fragment or None
    if frag:
        m = _LINES.match(frag)
        if m:
            start = int(m.group(1))
            end = int(m.group(2)) if m.group(2) else None
    return GitHubLink(url=url, owner=owner, repo=repo, kind=kind, ref=ref, path=path,
                      start=start, end=end, fragment=frag)
