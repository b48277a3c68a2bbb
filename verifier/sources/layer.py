"""The source layer: serve upstream files by repo path at pinned identity.

Identity first: the pin's blob for a path comes from the git tree at the pin
when a git provider can reach the commit, else from pins.lock. A file is then
served only if some provider yields bytes with exactly that blob (`pinned`).
A file the pinned release's wheel holds, whose pin blob is unknown, is served
as `release` (weaker evidence). Everything else is `mismatch` (a provider had
other bytes) or `unavailable`; such files are never served.

Providers, tried in the configured order:
  git      blobless partial clone of the upstream URL at the pin (network)
  mirror   configured mirrors: a local repo holding the pin, or a URL to
           partial-clone from; a local mirror lacking the pin still lends its
           object store to `objects`
  wheel    the pinned wheel/sdist from the package index, mapped to repo paths
  objects  content-addressed lookup of the pin blob in local object stores
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

from verifier.cache import Store
from verifier.config import UserConfig
from verifier.errors import AcquisitionError
from verifier.gitblob import blob_sha
from verifier.pins import Lock, Pins, Upstream
from verifier.sources.gitstore import GitRepo, PartialClone, first_line, is_local, local_path
from verifier.sources.models import SourceFile, Status
from verifier.sources.wheel import WheelSource

Notify = Callable[[str], None]


class _UpstreamState:
    """Per-upstream, per-run state: trees, git handles, wheels, failures."""

    def __init__(self, up: Upstream) -> None:
        self.up = up
        self.tree: dict[str, str] | None = None      # path -> blob at the pin
        self.tree_from: str | None = None            # provider label that gave the tree
        self.pin_repo: GitRepo | None = None         # a repo that holds the pin's objects
        self.pin_label: str | None = None
        self.object_stores: list[tuple[str, GitRepo]] = []
        self.wheels: list[WheelSource] = []
        self.git_tried = False
        self.mirrors_tried = False
        self.notes: list[str] = []


class SourceLayer:
    def __init__(self, pins: Pins, lock: Lock, config: UserConfig, store: Store,
                 notify: Notify | None = None) -> None:
        self.pins = pins
        self.lock = lock
        self.config = config
        self.store = store
        self.notify = notify or (lambda msg: None)
        self._state: dict[str, _UpstreamState] = {}
        self._resolved: dict[tuple[str, str], SourceFile] = {}
        self._index_dirty: set[str] = set()

    # ------------------------------------------------------------------ helpers
    def _st(self, name: str) -> _UpstreamState:
        if name not in self._state:
            up = self.pins.get(name)
            st = _UpstreamState(up)
            st.wheels = [WheelSource(self.store, w, offline=self.config.offline,
                                     index_url=self.config.index_url)
                         for w in up.wheel if w.map]
            self._state[name] = st
        return self._state[name]

    def _index_path(self, up: Upstream) -> Path:
        return self.store.path("index", f"{up.name}-{up.commit}.json")

    def _cached_index(self, up: Upstream) -> dict:
        data = self.store.read_json(self._index_path(up))
        return data if isinstance(data, dict) and data.get("commit") == up.commit else {}

    def _tree_cache_path(self, up: Upstream) -> Path:
        return self.store.path("trees", f"{up.commit}.json")

    # ------------------------------------------------------------------ git side
    def _git_label(self, url: str) -> str:
        return f"git:{url}"

    def _try_git(self, st: _UpstreamState) -> None:
        """Get the pin's tree from a clone of the upstream URL (once per run)."""
        if st.git_tried:
            return
        st.git_tried = True
        up = st.up
        cached_tree = self.store.read_json(self._tree_cache_path(up))
        clone_dir = self.store.upstream_clone(up.slug)
        if "git" in self.config.providers and (clone_dir / "HEAD").exists():
            try:
                clone = PartialClone(clone_dir, up.repo, self.config.git_timeout)
                if clone.has_commit(up.commit):
                    self._adopt_pin_repo(st, clone, self._git_label(up.repo))
                    return
            except AcquisitionError:
                pass
        if isinstance(cached_tree, dict) and cached_tree.get("commit") == up.commit:
            st.tree = dict(cached_tree["files"])
            st.tree_from = cached_tree.get("from")
        if "git" not in self.config.providers or self.config.offline:
            return
        try:
            with self.store.lock(f"git-{up.slug}"):
                clone = PartialClone(clone_dir, up.repo, self.config.git_timeout)
                clone.ensure_commit(up.commit)
            self._adopt_pin_repo(st, clone, self._git_label(up.repo))
        except AcquisitionError as exc:
            msg = f"{up.name}: {exc.message}; falling back to other providers"
            st.notes.append(msg)
            self.notify(msg)

    def _adopt_pin_repo(self, st: _UpstreamState, repo: GitRepo, label: str) -> None:
        if st.pin_repo is not None:
            return
        st.pin_repo, st.pin_label = repo, label
        tree = repo.tree(st.up.commit)
        st.tree, st.tree_from = tree, label
        self.store.write_json(self._tree_cache_path(st.up),
                              {"commit": st.up.commit, "from": label, "files": tree})

    def _try_mirrors(self, st: _UpstreamState) -> None:
        if st.mirrors_tried:
            return
        st.mirrors_tried = True
        up = st.up
        for where in self.config.mirrors.get(up.name, []):
            label = f"mirror:{where}"
            try:
                if is_local(where) and local_path(where).exists():
                    repo = GitRepo(local_path(where))
                    if repo.has_commit(up.commit):
                        self._adopt_pin_repo(st, repo, label)
                    else:
                        msg = (f"{up.name}: mirror {where} lacks commit {up.short}; "
                               "using it only for blob lookup")
                        st.notes.append(msg)
                        self.notify(msg)
                    st.object_stores.append((label, repo))
                elif is_local(where):
                    raise AcquisitionError(f"mirror path {where} does not exist")
                else:
                    if self.config.offline:
                        continue
                    key = hashlib.sha1(where.encode()).hexdigest()[:12]
                    clone_dir = self.store.path("git", f"mirror-{key}.git")
                    with self.store.lock(f"mirror-{key}"):
                        clone = PartialClone(clone_dir, where, self.config.git_timeout)
                        clone.ensure_commit(up.commit)
                    self._adopt_pin_repo(st, clone, label)
            except AcquisitionError as exc:
                msg = f"{up.name}: mirror {where}: {exc.message}"
                st.notes.append(msg)
                self.notify(msg)
        for where in self.config.objects:
            try:
                st.object_stores.append((f"objects:{where}", GitRepo(local_path(where))))
            except AcquisitionError as exc:
                st.notes.append(f"{up.name}: object store {where}: {exc.message}")

    def _load_identity(self, st: _UpstreamState) -> None:
        """Try (once per run) to reach the pin's git tree and the local object stores."""
        order = self.config.providers
        if "git" in order:
            self._try_git(st)
        if "mirror" in order or "objects" in order:
            self._try_mirrors(st)

    def _identity(self, st: _UpstreamState, path: str) -> tuple[str | None, str | None]:
        self._load_identity(st)
        if st.tree is not None:
            return st.tree.get(path), "git-tree"
        blob = self.lock.blob(st.up, path)
        return (blob, "lock") if blob else (None, None)

    # ------------------------------------------------------------------ public
    def resolve(self, upstream: str, path: str) -> SourceFile:
        key = (upstream, path)
        if key in self._resolved:
            return self._resolved[key]
        sf = self._resolve(upstream, path)
        self._resolved[key] = sf
        if sf.status.usable and not sf.cached:
            self._index_dirty.add(upstream)
        return sf

    def resolve_many(self, items: Iterable[tuple[str, str]]) -> list[SourceFile]:
        items = list(dict.fromkeys(items))
        by_up: dict[str, list[str]] = {}
        for u, p in items:
            by_up.setdefault(u, []).append(p)
        for u, paths in by_up.items():
            self.prefetch(u, paths)
        out = [self.resolve(u, p) for u, p in items]
        self.save_index()
        return out

    def pin_tree(self, upstream: str) -> tuple[dict[str, str] | None, str | None, list[str]]:
        """(path -> blob at the pin, where it came from, notes) — tree None when unreachable."""
        st = self._st(upstream)
        self._load_identity(st)
        return (dict(st.tree) if st.tree is not None else None, st.tree_from,
                list(dict.fromkeys(st.notes)))

    def wheel_paths(self, upstream: str) -> set[str]:
        """Repo paths the upstream's pinned wheels map (downloading them if needed)."""
        return {p for w in self._st(upstream).wheels for p in w.files()}

    def prefetch(self, upstream: str, paths: list[str]) -> None:
        """One round trip for all blobs a partial clone lacks."""
        st = self._st(upstream)
        if self.config.offline:
            return
        wanted = []
        for p in paths:
            blob, _ = self._identity(st, p)
            if blob and not self.store.has_blob(blob):
                wanted.append(blob)
        if wanted and isinstance(st.pin_repo, PartialClone):
            try:
                st.pin_repo.prefetch(sorted(set(wanted)))
            except AcquisitionError as exc:
                self.notify(f"{upstream}: {exc.message}")

    def _resolve(self, upstream: str, path: str) -> SourceFile:
        st = self._st(upstream)
        up = st.up
        expected, identity = self._identity(st, path)
        base = {"upstream": up.name, "path": path, "expected_blob": expected, "identity": identity}

        if expected:
            seen = self._cached_index(up).get("files", {}).get(path, {})
            if (seen.get("blob") == expected and seen.get("provider")
                    and self.store.get_blob(expected) is not None):
                return SourceFile(**base, status=Status.PINNED, blob=expected,
                                  provider=seen["provider"], cached=True)
            mismatches: list[tuple[str, str]] = []  # (provider, blob it has)
            for prov in self.config.providers:
                for label, data in self._candidates(st, prov, path, expected):
                    got = blob_sha(data)
                    if got == expected:
                        self.store.put_blob(data)
                        return SourceFile(**base, status=Status.PINNED, blob=got, provider=label)
                    mismatches.append((label, got))
            if mismatches:
                label, got = mismatches[0]
                detail = "; ".join(f"{lb} has blob {b}" for lb, b in mismatches)
                detail = f"{detail}; pin has {expected}"
                return SourceFile(**base, status=Status.MISMATCH, blob=got, provider=label,
                                  reason=detail, detail=detail)
            reason, detail = self._why(st, expected)
            return SourceFile(**base, status=Status.UNAVAILABLE, reason=reason, detail=detail)

        # Pin blob unknown: the pinned release's wheel may still serve it, weaker.
        if st.tree is not None:
            detail = f"no such path at {up.short} ({st.tree_from})"
            return SourceFile(**base, status=Status.UNAVAILABLE, reason=detail, detail=detail)
        if "wheel" in self.config.providers:
            for w in st.wheels:
                blob = w.files().get(path)
                if blob and self.store.get_blob(blob) is not None:
                    detail = "pin blob unknown (not in pins.lock); served from the pinned release"
                    return SourceFile(**base, status=Status.RELEASE, blob=blob, provider=w.label,
                                      reason=detail, detail=detail)
        reason, detail = self._why(st, None)
        return SourceFile(**base, status=Status.UNAVAILABLE, reason=reason, detail=detail)

    def _candidates(self, st: _UpstreamState, prov: str, path: str, expected: str):
        if prov in ("git", "mirror") and st.pin_repo is not None and st.pin_label:
            is_mirror = st.pin_label.startswith("mirror:")
            if (prov == "mirror") == is_mirror:
                data = st.pin_repo.read_blob(expected)
                if data is not None:
                    yield st.pin_label, data
        elif prov == "wheel":
            for w in st.wheels:
                data = w.read(path)
                if data is not None:
                    yield w.label, data
        elif prov == "objects":
            for label, repo in st.object_stores:
                data = repo.read_blob(expected)
                if data is not None:
                    yield label.replace("mirror:", "objects:", 1), data

    def _why(self, st: _UpstreamState, expected: str | None) -> tuple[str, str]:
        """(reason, detail) of an unavailable file: the reason in stable wording (the same
        for the same cache online or offline; it goes into records), the detail with this
        run's provider failures added (also in `notes()`)."""
        parts = []
        if expected is None:
            parts.append(f"pin blob unknown: not in pins.lock and no git tree at {st.up.short}")
        else:
            parts.append(f"no provider holds blob {expected}")
        if not st.wheels:
            parts.append("no wheel maps this upstream")
        reason = "; ".join(dict.fromkeys(parts))
        for w in st.wheels:
            if w.error:
                parts.append(w.error)
        parts.extend(st.notes)
        return reason, "; ".join(dict.fromkeys(parts))

    def read(self, sf: SourceFile) -> bytes | None:
        """Bytes of a usable file; None for mismatch/unavailable (never another version)."""
        if not sf.status.usable or not sf.blob:
            return None
        return self.store.get_blob(sf.blob)

    def text(self, upstream: str, path: str) -> tuple[SourceFile, str | None]:
        sf = self.resolve(upstream, path)
        data = self.read(sf)
        return sf, (data.decode("utf-8", errors="replace") if data is not None else None)

    def known_paths(self, upstream: str) -> list[str]:
        """Every path this run can name for the upstream: git tree, lock, wheel maps."""
        st = self._st(upstream)
        self._load_identity(st)
        paths: set[str] = set(st.tree or {})
        paths.update(self.lock.paths(st.up))
        if st.tree is None and "wheel" in self.config.providers:
            for w in st.wheels:
                paths.update(w.files())
        return sorted(paths)

    def notes(self) -> dict[str, list[str]]:
        """This run's provider failures per upstream (git, mirrors, wheels), deduplicated."""
        return {name: list(dict.fromkeys([*st.notes, *(w.error for w in st.wheels if w.error)]))
                for name, st in sorted(self._state.items())}

    def save_index(self) -> None:
        """Remember which provider served each blob, so a cached run reports it."""
        for name in sorted(self._index_dirty):
            up = self.pins.get(name)
            current = self._cached_index(up).get("files", {})
            for (u, p), sf in self._resolved.items():
                if u == name and sf.status.usable and not sf.cached:
                    current[p] = {"blob": sf.blob, "provider": sf.provider}
            self.store.write_json(self._index_path(up), {"commit": up.commit, "files": current})
        self._index_dirty.clear()

    def close(self) -> None:
        for st in self._state.values():
            if st.pin_repo:
                st.pin_repo.close()
            for _, r in st.object_stores:
                r.close()


__all__ = ["SourceLayer", "SourceFile", "Status", "first_line"]
