"""Acquire the new version of one upstream: resolve REF (commit, tag or version)
and build an in-memory project whose pins point at it.

Identity of the new version, said in the report:
- `git`: a git provider (a configured mirror, the cached clone, or the remote
  when online) holds the commit; files are the blobs of its tree.
- `release`: the release's wheel (same `WheelSource` as the source layer, with
  the requirement bumped to the new version); no git tree. Without `--commit`
  the commit is unknown and `--write` refuses.

The new project never sees the old lock entry of the upstream, and the old
project is untouched, so no comparison mixes the two versions."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from verifier.errors import AcquisitionError, UsageError
from verifier.pins import SHA40, Lock, Upstream, Wheel
from verifier.project import Project
from verifier.sources.gitstore import GitRepo, PartialClone, is_local, local_path
from verifier.sources.wheel import WheelSource
from verifier.upgrade.model import VersionIdentity
from verifier.upgrade.wheelplan import WheelPlan, plan_wheels

_VERSION = re.compile(r"^v?(\d+(?:\.\d+)*(?:[.-]?(?:a|b|rc|post|dev)\d*)?)$")


@dataclass
class Target:
    identity: VersionIdentity
    upstream: Upstream            # the derived upstream (in memory)
    project: Project              # a project whose pins point at the new version
    repo: GitRepo | None = None   # a repository holding the new commit (git identity)
    repo_label: str | None = None
    plan: WheelPlan | None = None  # which wheels of the release serve which rules (with git
    #                                identity only the map --write pins; the tree serves)
    surface_only: bool = False    # the new version is a release without source files
    co_pinned: dict[str, Upstream] | None = None   # other upstreams whose runtime was bumped


def version_of(ref: str) -> str | None:
    m = _VERSION.match(ref)
    return m.group(1) if m else None


def _git_candidates(project: Project, up: Upstream) -> list[tuple[str, GitRepo]]:
    """Local repositories that may hold the new commit: mirrors, the cached clone."""
    out: list[tuple[str, GitRepo]] = []
    providers = project.config.providers
    if "mirror" in providers:
        for where in project.config.mirrors.get(up.name, []):
            if is_local(where) and local_path(where).exists():
                try:
                    out.append((f"mirror:{where}", GitRepo(local_path(where))))
                except AcquisitionError as exc:
                    project.notify and project.notify(f"{up.name}: mirror {where}: {exc.message}")
    if "git" in providers:
        clone_dir = project.store.upstream_clone(up.slug)
        if (clone_dir / "HEAD").exists():
            try:
                out.append((f"git:{up.repo}", PartialClone(clone_dir, up.repo,
                                                           project.config.git_timeout)))
            except AcquisitionError:
                pass
    return out


def _tag_commit(repo: GitRepo, tag: str) -> str | None:
    try:
        sha = repo.repo.git.rev_parse("--verify", "-q", f"refs/tags/{tag}^{{commit}}")
    except Exception:  # noqa: BLE001 - gitpython raises GitCommandError for unknown refs
        return None
    return sha.strip() if SHA40.match(sha.strip()) else None


def _remote_tag(url: str, tag: str, timeout: float) -> str | None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    try:
        proc = subprocess.run(["git", "ls-remote", "--tags", url, f"refs/tags/{tag}",
                               f"refs/tags/{tag}^{{}}"], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        return None
    refs = dict(reversed(line.split("\t", 1)) for line in proc.stdout.splitlines() if "\t" in line)
    sha = refs.get(f"refs/tags/{tag}^{{}}") or refs.get(f"refs/tags/{tag}")
    return sha if sha and SHA40.match(sha) else None


def _find_git(project: Project, up: Upstream, ref: str, commit: str | None,
              tried: list[str]) -> tuple[str, str | None, GitRepo, str] | None:
    """(commit, tag, repo, label) of the new version in a git provider, or None."""
    is_sha = bool(SHA40.match(ref))
    tags = [] if is_sha else list(dict.fromkeys([ref] + ([f"v{ref}"] if not ref.startswith("v")
                                                         else [])))
    local = _git_candidates(project, up)
    for label, repo in local:
        if is_sha or commit:
            want = ref if is_sha else commit
            if repo.has_commit(want):  # type: ignore[arg-type]
                tag = next((t for t in tags if _tag_commit(repo, t) == want), None)
                return want, tag, repo, label  # type: ignore[return-value]
            tried.append(f"{label} lacks {want[:7]}")  # type: ignore[index]
        else:
            for t in tags:
                sha = _tag_commit(repo, t)
                if sha and repo.has_commit(sha):
                    return sha, t, repo, label
            tried.append(f"{label} has no tag {' or '.join(tags)}")
    if "git" in project.config.providers and not project.config.offline:
        want, tag = (ref if is_sha else commit), None
        if want is None:
            for t in tags:
                want = _remote_tag(up.repo, t, project.config.git_timeout)
                if want:
                    tag = t
                    break
            if want is None:
                tried.append(f"git:{up.repo} has no tag {' or '.join(tags)} (or is unreachable)")
                return None
        clone_dir = project.store.upstream_clone(up.slug)
        try:
            with project.store.lock(f"git-{up.slug}"):
                clone = PartialClone(clone_dir, up.repo, project.config.git_timeout)
                clone.ensure_commit(want)
            return want, tag, clone, f"git:{up.repo}"
        except AcquisitionError as exc:
            tried.append(exc.message)
    elif project.config.offline:
        tried.append("git remote not tried (--offline)")
    return None


def _bump(req: str, names: set[str], version: str) -> str:
    name, sep, _ = req.partition("==")
    return f"{name}=={version}" if sep and _canonical(name) in names else req


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def bumped_names(up: Upstream) -> set[str]:
    """Distributions whose version is the upstream's: its wheels and its own release
    distribution (the `runtime` pin named like the upstream, e.g. `drake`)."""
    from verifier.facts.release import release_wheels

    return {_canonical(w.name) for w in release_wheels(up)}


def derive(up: Upstream, *, commit: str, version: str | None, tag: str | None,
           keep_wheels: bool) -> Upstream:
    names = bumped_names(up)
    wheels: list[Wheel] = []
    runtime = list(up.runtime)
    if version is not None:
        wheels = [w.model_copy(update={"requirement": _bump(w.requirement, names, version)})
                  for w in up.wheel] if keep_wheels else []
        runtime = [_bump(r, names, version) for r in up.runtime]
    return up.model_copy(update={"commit": commit, "version": version or up.version,
                                 "tag": tag if tag is not None else None,
                                 "wheel": wheels, "runtime": runtime})


def co_pinned(project: Project, old: Upstream, new: Upstream) -> dict[str, Upstream]:
    """Other upstreams whose runtime pins a distribution the upgrade bumps (newton's
    environment pins `warp-lang`): the same requirement, bumped, so that one
    distribution has one version across the project."""
    changed = {_canonical(a.partition("==")[0]): b for a, b in zip(old.runtime, new.runtime)
               if a != b}
    out: dict[str, Upstream] = {}
    for name, other in sorted(project.pins.upstream.items()):
        if name == old.name:
            continue
        rt = [changed.get(_canonical(r.partition("==")[0]), r) if "==" in r else r
              for r in other.runtime]
        if rt != list(other.runtime):
            out[name] = other.model_copy(update={"runtime": rt})
    return out


def synthetic_commit(name: str, version: str) -> str:
    """A stand-in commit for a release whose commit is unknown (never written anywhere)."""
    return hashlib.sha1(f"verifier-upgrade-release:{name}:{version}".encode()).hexdigest()


def _project_for(project: Project, up: Upstream, *, providers: list[str],
                 mirrors: dict[str, list[str]] | None = None,
                 others: dict[str, Upstream] | None = None) -> Project:
    pins = project.pins.model_copy(update={"upstream": {**project.pins.upstream,
                                                        **(others or {}), up.name: up}})
    lock = Lock(upstream={k: v for k, v in project.lock.upstream.items() if k != up.name})
    config = project.config.model_copy(deep=True)
    config.providers = providers  # type: ignore[assignment]
    if mirrors is not None:
        config.mirrors = mirrors
    return Project(pins=pins, lock=lock, config=config, store=project.store,
                   lock_path=project.lock_path, notify=project.notify)


def resolve_target(project: Project, name: str, ref: str, *, commit: str | None = None,
                   version: str | None = None, via: str = "auto",
                   cited: set[str] | None = None,
                   old_blob: Callable[[str], str | None] | None = None) -> Target:
    """The new version of upstream `name`. `cited`: repo paths the lessons cite (a
    release's wheel map is extended to those it ships verbatim); `old_blob(path)`: the
    pin's blob of a path (the evidence that it does)."""
    up = project.pins.get(name)
    ref = ref.strip()
    if not ref:
        raise UsageError("--to needs a commit SHA, a tag or a version")
    if re.fullmatch(r"[0-9a-fA-F]{7,39}", ref) and not version_of(ref):
        raise UsageError(f"--to {ref}: give the full 40-hex commit SHA")
    if commit is not None and not SHA40.match(commit):
        raise UsageError(f"--commit {commit!r}: expected a full 40-hex lowercase SHA")
    is_sha = bool(SHA40.match(ref))
    new_version = version or (None if is_sha else version_of(ref))
    if (is_sha and ref == up.commit) or (not is_sha and new_version == up.version
                                          and commit in (None, up.commit)):
        raise UsageError(f"{name} is already pinned at {ref}")
    tried: list[str] = []

    if via in ("auto", "git"):
        found = _find_git(project, up, ref, commit, tried)
        tried[:] = list(dict.fromkeys(tried))     # the cached clone and the remote say alike
        if found is not None:
            sha, tag, repo, label = found
            new_up = derive(up, commit=sha, version=new_version, tag=tag,
                            keep_wheels=new_version is not None)
            plan = None
            if new_version is not None and any(w.map for w in up.wheel):
                # the tree serves the files; the release's wheel map is what --write pins
                plan = plan_wheels(project, up, new_up.wheel, cited=cited or set(),
                                   old_blob=old_blob or (lambda p: None))
                if plan.candidates:
                    new_up = new_up.model_copy(update={"wheel": plan.wheels})
                else:
                    plan = None
            providers = list(project.config.providers)
            mirrors = dict(project.config.mirrors)
            if label.startswith("mirror:"):
                # the mirror holds the commit: no need to ask the network
                providers = [p for p in providers if p != "git"]
                where = label.split(":", 1)[1]
                mirrors[name] = [where] + [m for m in mirrors.get(name, []) if m != where]
            others = co_pinned(project, up, new_up)
            new_project = _project_for(project, new_up, providers=providers, mirrors=mirrors,
                                       others=others)
            ident = VersionIdentity(upstream=name, commit=sha, version=new_version,
                                    tag=new_up.tag, identity="git", provider=label,
                                    wheels=[w.requirement for w in new_up.wheel])
            return Target(ident, new_up, new_project, repo, label, plan=plan, co_pinned=others)

    if via in ("auto", "wheel"):
        return _release_target(project, up, ref, commit=commit, new_version=new_version,
                               is_sha=is_sha, tried=tried, cited=cited or set(),
                               old_blob=old_blob or (lambda p: None))

    raise AcquisitionError(f"cannot acquire {name} at {ref} through git: "
                           f"{'; '.join(tried) or 'no git provider configured'}")


def _release_target(project: Project, up: Upstream, ref: str, *, commit: str | None,
                    new_version: str | None, is_sha: bool, tried: list[str], cited: set[str],
                    old_blob: Callable[[str], str | None]) -> Target:
    """The new version from the package index: its wheels (the map planned across
    packaging changes, `wheelplan.py`), or, for an upstream whose release ships no
    source file (Drake), its release surface only."""
    from verifier.facts.release import release_wheels

    name = up.name
    git_said = f" (git: {'; '.join(tried)})" if tried else ""
    if not any(w.map for w in up.wheel) and not [w for w in release_wheels(up) if not w.map]:
        raise AcquisitionError(
            f"cannot acquire {name} at {ref}: no git provider holds it "
            f"({'; '.join(tried) or 'none configured'}) and pins.toml names no wheel or "
            f"release distribution for {name}")
    if new_version is None:
        raise UsageError(f"--to {ref} is a commit that no git provider holds; to compare "
                         f"{name}'s release files pass --to VERSION (and --commit {ref})")
    if is_sha:
        commit = commit or ref  # the user named the release's commit
    derived = derive(up, commit=commit or synthetic_commit(name, new_version),
                     version=new_version, tag=None, keep_wheels=True)
    releases = [w for w in release_wheels(derived) if not w.map]
    plan: WheelPlan | None = None
    if any(w.map for w in up.wheel):
        plan = plan_wheels(project, up, derived.wheel, cited=cited, old_blob=old_blob)
        if not plan.candidates:
            errors = [lw.reason for lw in plan.lost] or [f"no wheel of {name} {new_version}"]
            raise AcquisitionError(f"cannot acquire {name} {new_version}: "
                                   + "; ".join(errors) + git_said)
        new_up = derived.model_copy(update={"wheel": plan.wheels})
        provider = ", ".join(f"wheel:{w.requirement}" for w in plan.wheels) or "no wheel"
    else:
        ws = WheelSource(project.store, releases[0], offline=project.config.offline,
                         index_url=project.config.index_url)
        if not ws.listing():
            raise AcquisitionError(f"cannot acquire {name} {new_version}: "
                                   f"{ws.error or releases[0].requirement + ' has no files'}"
                                   + git_said)
        new_up = derived
        provider = (f"release surface of {releases[0].requirement} (.pyi stubs, "
                    "introspection; the wheel ships no source file)")
    others = co_pinned(project, up, new_up)
    # no git: nothing holds the release's (unknown or stand-in) commit; the other
    # upstreams keep their local providers (the lock blobs their mirrors' objects hold),
    # the upgraded one loses its mirrors: none holds the release's commit (else git
    # identity was found), so they would serve it nothing
    providers = [p for p in project.config.providers if p != "git"]
    if "wheel" not in providers:
        providers.append("wheel")
    mirrors = {k: v for k, v in project.config.mirrors.items() if k != name}
    new_project = _project_for(project, new_up, providers=providers, mirrors=mirrors,
                               others=others)
    ident = VersionIdentity(upstream=name, commit=commit, version=new_version,
                            identity="release", provider=provider,
                            wheels=[w.requirement for w in new_up.wheel])
    return Target(ident, new_up, new_project, plan=plan, surface_only=plan is None,
                  co_pinned=others)
