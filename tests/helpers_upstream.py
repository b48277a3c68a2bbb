"""Build tiny fixture upstreams and projects inside tests (no network, no GitHub).

    repo = make_git_repo(tmp_path / "up", {"src/a.c": "int a;\n"})
    pins = write_pins(tmp_path, {"demo": UpstreamSpec(url=repo.url, commit=repo.head)})
    project = load_project(pins)

The repo allows filtered fetches by SHA, so it serves as a `file://` "remote"
(git provider) and as a local mirror.
"""

from __future__ import annotations

import os
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e",
           "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}


def git(cwd: Path, *args: str, input: str | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True,
                          text=True, input=input).stdout.strip()


@dataclass
class FixtureRepo:
    path: Path
    commits: list[str] = field(default_factory=list)

    @property
    def head(self) -> str:
        return self.commits[-1]

    @property
    def url(self) -> str:
        return f"file://{self.path}"

    def commit(self, files: dict[str, str | bytes | None], message: str = "change") -> str:
        for rel, content in files.items():
            p = self.path / rel
            if content is None:
                git(self.path, "rm", "-q", rel)
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content.encode() if isinstance(content, str) else content)
            git(self.path, "add", rel)
        git(self.path, "commit", "-q", "-m", message)
        sha = git(self.path, "rev-parse", "HEAD")
        self.commits.append(sha)
        return sha

    def blob(self, rel: str, commit: str | None = None) -> str:
        return git(self.path, "rev-parse", f"{commit or self.head}:{rel}")


def make_git_repo(path: Path, files: dict[str, str | bytes]) -> FixtureRepo:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "uploadpack.allowFilter", "true")
    git(path, "config", "uploadpack.allowAnySHA1InWant", "true")
    repo = FixtureRepo(path)
    repo.commit(files, "initial")
    return repo


@dataclass
class UpstreamSpec:
    url: str
    commit: str
    version: str = "1.0.0"
    wheel: str | None = None            # e.g. "demo==1.0.0"
    wheel_map: list[tuple[str, str]] = field(default_factory=list)


def write_pins(root: Path, upstreams: dict[str, UpstreamSpec],
               courses: dict[str, tuple[str, list[str]]] | None = None) -> Path:
    """pins.toml under root; courses: name -> (local path, upstream names)."""
    lines = ["schema = 1", ""]
    for name, u in upstreams.items():
        lines += [f"[upstream.{name}]", f'repo = "{u.url}"', f'commit = "{u.commit}"',
                  f'version = "{u.version}"', ""]
        if u.wheel:
            maps = ", ".join(f'{{ wheel = "{w}", repo = "{r}" }}' for w, r in u.wheel_map)
            lines += [f"[[upstream.{name}.wheel]]", f'requirement = "{u.wheel}"',
                      f"map = [{maps}]", ""]
    for cname, (cpath, ups) in (courses or {}).items():
        lines += [f"[course.{cname}]", f'path = "{cpath}"',
                  "upstreams = [" + ", ".join(f'"{u}"' for u in ups) + "]", ""]
    pins = root / "pins.toml"
    pins.write_text("\n".join(lines))
    return pins


def make_wheel(dest_dir: Path, name: str, version: str, files: dict[str, str | bytes],
               requires: list[str] | tuple[str, ...] = ()) -> Path:
    """A minimal wheel archive (enough for the source layer, which never installs it);
    `requires`: its Requires-Dist lines."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    whl = dest_dir / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        for rel, content in files.items():
            zf.writestr(rel, content)
        info = f"{name.replace('-', '_')}-{version}.dist-info"
        zf.writestr(f"{info}/METADATA",
                    f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                    + "".join(f"Requires-Dist: {r}\n" for r in requires))
        zf.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: tests\n"
                    "Root-Is-Purelib: true\nTag: py3-none-any\n")
        zf.writestr(f"{info}/RECORD", "")
    return whl


def place_wheel_in_cache(cache_root: Path, requirement: str, wheel: Path) -> Path:
    """Put a wheel where the source layer looks before downloading (no index needed),
    as a verified download would leave it: the archive plus its download record."""
    import hashlib
    import json

    from verifier.cache import Store
    from verifier.sources.wheel import DOWNLOAD_RECORD

    Store(cache_root)            # a cache (its README), not a foreign directory
    d = cache_root / "wheels" / requirement.replace("==", "-")
    d.mkdir(parents=True, exist_ok=True)
    target = d / wheel.name
    data = wheel.read_bytes()
    target.write_bytes(data)
    (d / DOWNLOAD_RECORD).write_text(json.dumps({
        "requirement": requirement, "file": wheel.name, "url": wheel.as_uri(),
        "index": "test", "sha256": hashlib.sha256(data).hexdigest(), "sha256_from": "download"}))
    return target


def make_index(root: Path, dists: list[Path]) -> str:
    """A PEP 503 simple index (static files, sha256 in the links) for `dists`; its file:// URL."""
    import hashlib
    import html

    from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

    by_name: dict[str, list[Path]] = {}
    for d in dists:
        name = (parse_wheel_filename(d.name)[0] if d.name.endswith(".whl")
                else parse_sdist_filename(d.name)[0])
        by_name.setdefault(canonicalize_name(name), []).append(d)
    for name, files in by_name.items():
        pdir = root / name
        pdir.mkdir(parents=True, exist_ok=True)
        links = []
        for f in files:
            data = f.read_bytes()
            (pdir / f.name).write_bytes(data)
            sha = hashlib.sha256(data).hexdigest()
            links.append(f'<a href="{html.escape(f.name)}#sha256={sha}">{html.escape(f.name)}</a>')
        (pdir / "index.html").write_text("<!DOCTYPE html><html><body>\n" + "<br>\n".join(links)
                                         + "\n</body></html>\n")
    return root.as_uri()
