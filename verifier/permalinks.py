"""GitHub links in lessons: parse `https://github.com/<owner>/<repo>/<blob|tree>/<ref>/<path>#Lx-Ly`,
in every form GitHub renders as a link to a file at a commit: `blob`, `tree`, `raw`,
`blame` (read like `blob`), `https://raw.githubusercontent.com/<owner>/<repo>/<ref>/<path>`
(kind `raw`), and a line fragment in either case (`#l10-l12` is `#L10-L12`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote, urlsplit

_LINES = re.compile(r"^L(\d+)(?:C\d+)?(?:-L(\d+)(?:C\d+)?)?$", re.I)


@dataclass(frozen=True)
class GitHubLink:
    url: str
    owner: str
    repo: str
    kind: str            # blob | tree | raw | blame | commit | other
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
    host = parts.netloc.lower()
    if parts.scheme not in ("http", "https") or host not in ("github.com", "www.github.com",
                                                             "raw.githubusercontent.com"):
        return None
    segs = [unquote(s) for s in parts.path.split("/") if s]
    if len(segs) < 2:
        return None
    owner, repo = segs[0], segs[1].removesuffix(".git")
    kind, ref, path = "other", None, None
    if host == "raw.githubusercontent.com":
        if len(segs) >= 3:
            kind, ref, path = "raw", segs[2], "/".join(segs[3:]) or None
    elif len(segs) >= 4 and segs[2] in ("blob", "tree", "raw", "blame"):
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
