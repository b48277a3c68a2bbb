"""Opening an upstream's providers for the source layer (`sources/layer.py`): the
git partial clone of the upstream URL, configured mirrors (a local repository, or a URL
to partial-clone from) and local object stores; once per upstream and run.

Local providers (a local upstream repository, a mirror directory, object stores) need
no network and can be opened on their own (`remote=False`). Listing what exists (the
paths a symbol index enumerates) opens the remote ones only when no recent run failed
to reach the pin's tree with them (`tree_sought_recently`, remembered per commit for
`TREE_RETRY_S`); a needed file that is missing always tries them, and so does `refresh`.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from pathlib import Path
from typing import TYPE_CHECKING

from verifier.errors import AcquisitionError
from verifier.pins import Upstream
from verifier.sources.gitstore import CommitUnknown, GitRepo, PartialClone, is_local, local_path
from verifier.sources.models import Notice, Status
from verifier.sources.wheel import WheelSource

if TYPE_CHECKING:
    from verifier.cache import Store
    from verifier.config import UserConfig


class UpstreamState:
    """Per-upstream, per-run state: trees, git handles, wheels, what happened."""

    def __init__(self, up: Upstream) -> None:
        self.up = up
        self.tree: dict[str, str] | None = None      # path -> blob at the pin
        self.tree_from: str | None = None            # provider label that gave the tree
        self.pin_repo: GitRepo | None = None         # a repo that holds the pin's objects
        self.pin_label: str | None = None
        self.object_stores: list[tuple[str, GitRepo]] = []
        self.wheels: list[WheelSource] = []
        self.local_done = False                      # cached tree looked at
        self.git_opened = False                      # the upstream's git provider opened
        self.local_opened = False                    # local mirrors / object stores opened
        self.providers_done = False                  # git / mirrors / object stores opened
        self.notes: list[str] = []                   # provider failures (also in details)
        self.notices: list[Notice] = []
        self.gaps: dict[str, Status] = {}            # needed paths without a pin blob


class Providers:
    """The provider-opening half of `SourceLayer` (a mixin: it uses the layer's
    `config`, `store`, `_dead` and `_note`)."""

    config: "UserConfig"
    store: "Store"
    _dead: dict[str, str]

    def _open_providers(self, st: UpstreamState, *, remote: bool = True) -> None:
        """Open git, mirrors and object stores for this upstream, once per run (git
        first). `remote=False`: only what needs no network (a local upstream repository,
        mirror directories, object stores); the rest when asked for with `remote`."""
        if st.providers_done:
            return
        order = self.config.providers
        if "git" in order and not st.git_opened and (remote or is_local(st.up.repo)):
            st.git_opened = True
            self._open_git(st)
        if ("mirror" in order or "objects" in order) and not st.local_opened:
            st.local_opened = True
            self._open_mirrors(st, local=True, remote=False)
        if remote:
            st.providers_done = True
            if "mirror" in order:
                self._open_mirrors(st, local=False, remote=True)
            self._remember_tree_sought(st)

    # A pin's tree that every provider failed to reach is remembered for a while, so that
    # enumerating what exists (a symbol index) does not try the network on every warm
    # run; a needed file that is missing still tries it, and so does `--refresh`.
    TREE_RETRY_S = 6 * 3600

    def _unreachable_path(self, st: UpstreamState) -> Path:
        return self.store.path("trees", f"{st.up.commit}.unreachable.json")

    def _remember_tree_sought(self, st: UpstreamState) -> None:
        path = self._unreachable_path(st)
        if st.tree is not None:
            with contextlib.suppress(OSError):
                path.unlink()
        elif not self.config.offline:
            self.store.write_json(path, {"commit": st.up.commit, "checked": int(time.time()),
                                         "providers": list(self.config.providers)})

    def tree_sought_recently(self, st: UpstreamState) -> bool:
        """An earlier run opened every provider of this pin and reached no tree, within
        `TREE_RETRY_S`, with the same providers (never under `refresh`)."""
        if self.config.refresh:
            return False
        got = self.store.read_json(self._unreachable_path(st))
        return (isinstance(got, dict) and got.get("commit") == st.up.commit
                and got.get("providers") == list(self.config.providers)
                and isinstance(got.get("checked"), int)
                and 0 <= time.time() - got["checked"] < self.TREE_RETRY_S)

    def _adopt_pin_repo(self, st: UpstreamState, repo: GitRepo, label: str) -> None:
        if st.pin_repo is not None:
            return
        try:
            tree = repo.tree(st.up.commit)
        except AcquisitionError as exc:
            self._note(st, f"{st.up.name}: {label}: {exc.message}")
            return
        st.pin_repo, st.pin_label = repo, label
        st.tree, st.tree_from = tree, label
        self.store.write_json(self._tree_cache_path(st.up),
                              {"commit": st.up.commit, "from": label, "files": tree})

    def _clone(self, st: UpstreamState, clone_dir: Path, url: str, lock: str,
               label: str) -> PartialClone | None:
        """A partial clone holding the pin (constructed and fetched under the lock), or None.
        The remote is contacted only when the clone lacks the pin, or under `refresh`."""
        up = st.up
        exists = (clone_dir / "HEAD").exists()
        if not exists and (self.config.offline or url in self._dead):
            return None
        try:
            with self.store.lock(lock):
                clone = PartialClone(clone_dir, url, self.config.git_timeout)
                have = clone.has_commit(up.commit)
                if have and not self.config.refresh:
                    return clone
                if self.config.offline or url in self._dead:
                    if have:
                        return clone
                    clone.close()
                    return None
                try:
                    clone.ensure_commit(up.commit, refresh=self.config.refresh)
                except AcquisitionError as exc:
                    self._remote_failed(st, url, exc)
                    if have:
                        return clone
                    clone.close()
                    return None
                return clone
        except AcquisitionError as exc:
            self._remote_failed(st, url, exc)
        except OSError as exc:
            self._dead[url] = str(exc)
            self._note(st, f"{up.name}: {label}: cannot use the clone in {clone_dir}: {exc}; "
                           "falling back to other providers")
        return None

    def _remote_failed(self, st: UpstreamState, url: str, exc: AcquisitionError) -> None:
        up = st.up
        self._dead[url] = exc.message
        if isinstance(exc, CommitUnknown):
            self._note(st, f"{up.name}: {url} does not have the pinned commit {up.commit} "
                           f"({exc.message}); pins.toml pins a commit its upstream lacks",
                       code="commit-unknown", severity="warning")
        else:
            self._note(st, f"{up.name}: {exc.message}; falling back to other providers")

    def _open_git(self, st: UpstreamState) -> None:
        up = st.up
        clone_dir = self.store.upstream_clone(up.slug)
        clone = self._clone(st, clone_dir, up.repo, f"git-{up.slug}", f"git:{up.repo}")
        if clone is not None:
            self._adopt_pin_repo(st, clone, f"git:{up.repo}")

    def _open_mirrors(self, st: UpstreamState, *, local: bool, remote: bool) -> None:
        up = st.up
        for where in self.config.mirrors.get(up.name, []):
            label = f"mirror:{where}"
            if is_local(where):
                if not local:
                    continue
                if not local_path(where).exists():
                    self._note(st, f"{up.name}: mirror {where}: mirror path {where} does not "
                                   "exist")
                    continue
                try:
                    repo = GitRepo(local_path(where), self.config.git_timeout)
                except AcquisitionError as exc:
                    self._note(st, f"{up.name}: mirror {where}: {exc.message}")
                    continue
                if repo.has_commit(up.commit):
                    self._adopt_pin_repo(st, repo, label)
                else:
                    self._note(st, f"{up.name}: mirror {where} lacks commit {up.short}; "
                                   "using it only for blob lookup", code="mirror-lacks-commit")
                st.object_stores.append((label, repo))
                continue
            if self.config.offline or not remote:
                continue
            key = hashlib.sha1(where.encode()).hexdigest()[:12]
            clone = self._clone(st, self.store.path("git", f"mirror-{key}.git"), where,
                                f"mirror-{key}", label)
            if clone is not None:
                self._adopt_pin_repo(st, clone, label)
        if "objects" in self.config.providers and local:
            for where in self.config.objects:
                try:
                    st.object_stores.append((f"objects:{where}",
                                             GitRepo(local_path(where), self.config.git_timeout)))
                except AcquisitionError as exc:
                    self._note(st, f"{up.name}: object store {where}: {exc.message}")

    def _fetch_blobs(self, st: UpstreamState, blobs: list[str]) -> None:
        """Explicit, bounded fetch of blobs a partial clone lacks (never a lazy fetch)."""
        repo = st.pin_repo
        if not blobs or self.config.offline or not isinstance(repo, PartialClone):
            return
        if repo.url in self._dead:
            return
        try:
            repo.prefetch(sorted(set(blobs)))
        except AcquisitionError as exc:
            self._dead[repo.url] = exc.message
            self._note(st, f"{st.up.name}: {exc.message}")
