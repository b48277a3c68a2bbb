"""The source layer: serve upstream files by repo path at pinned identity.

Identity first: the pin's blob for a path comes from the git tree at the pin when a git
provider can reach the commit (or a tree cached from an earlier run that could), else from
pins.lock. A file is then served only if some provider yields bytes with exactly that blob
(`pinned`). A file the pinned release's wheel holds, whose pin blob is unknown, is served as
`release` (weaker evidence). Everything else is `mismatch` (a provider had other bytes) or
`unavailable`; such files are never served.

Providers, tried in the configured order:
  git      blobless partial clone of the upstream URL at the pin (network)
  mirror   configured mirrors: a local repo holding the pin, or a URL to
           partial-clone from; a local mirror lacking the pin still lends its
           object store to `objects`
  wheel    the pinned wheel/sdist from the package index, mapped to repo paths
  objects  content-addressed lookup of the pin blob in local object stores

Warm runs: a file whose pin blob is known locally (cached tree, pins.lock) and whose
verified bytes are in the cache is served without opening any provider, so no network is
touched; providers are opened (once per upstream and run) only for something missing, or
for every upstream with `refresh`. A remote that failed once is not tried again in the run,
and listing an upstream's paths does not retry a pin tree no provider reached lately.

The layer keeps what it verified: bytes read at resolution are held (up to
`HOLD_BYTES`), and bytes that vanished from the cache since (a concurrent
`cache clean`) are re-acquired or reported. What the run has to say about
identity — locks that cannot prove it, needed files without a pin blob, a
commit the upstream lacks, cache repairs — is data: `notices()`."""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path

from verifier.cache import Store
from verifier.config import UserConfig
from verifier.gitblob import blob_sha
from verifier.pins import Lock, Pins, Upstream
from verifier.sources.gitstore import PartialClone
from verifier.sources.models import Notice, PathPresence, Presence, SourceFile, Status
from verifier.sources.notices import collect
from verifier.sources.providers import Providers, UpstreamState
from verifier.sources.wheel import WheelSource

Notify = Callable[[str], None]
HOLD_BYTES = 96 << 20


class SourceLayer(Providers):
    def __init__(self, pins: Pins, lock: Lock, config: UserConfig, store: Store,
                 notify: Notify | None = None) -> None:
        self.pins = pins
        self.lock = lock
        self.config = config
        self.store = store
        self.notify = notify or (lambda msg: None)
        self._state: dict[str, UpstreamState] = {}
        self._resolved: dict[tuple[str, str], SourceFile] = {}
        self._local_only: set[tuple[str, str]] = set()   # resolved without trying the network
        self._indexes: dict[str, dict] = {}          # upstream -> cached provenance index
        self._index_dirty: set[str] = set()
        self._held: dict[str, bytes] = {}
        self._held_bytes = 0
        self._dead: dict[str, str] = {}              # remote URL -> why it failed this run
        self._vanished: set[tuple[str, str]] = set()
        self._notices: list[Notice] = []
        self._check_config()

    # ------------------------------------------------------------------ helpers
    def _check_config(self) -> None:
        for name in sorted(set(self.config.mirrors) - set(self.pins.upstream)):
            near = difflib.get_close_matches(name, list(self.pins.upstream), n=1, cutoff=0.6)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            self._notices.append(Notice(
                severity="info", code="mirror-unknown-upstream",
                message=f"a mirror is configured for {name!r}, which is no upstream in "
                        f"pins.toml{hint}; it is not used"))

    def _st(self, name: str) -> UpstreamState:
        if name not in self._state:
            up = self.pins.get(name)
            st = UpstreamState(up)
            st.wheels = [WheelSource(self.store, w, offline=self.config.offline,
                                     index_url=self.config.index_url,
                                     timeout=self.config.download_timeout, notify=self.notify)
                         for w in up.wheel if w.map]
            self._state[name] = st
        return self._state[name]

    def _note(self, st: UpstreamState, msg: str, code: str = "provider-failed",
              severity: str = "info") -> None:
        st.notes.append(msg)
        st.notices.append(Notice(severity=severity, code=code,  # type: ignore[arg-type]
                                 upstream=st.up.name, message=msg))
        self.notify(msg)

    def _index_path(self, up: Upstream) -> Path:
        return self.store.path("index", f"{up.name}-{up.commit}.json")

    def _cached_index(self, up: Upstream) -> dict:
        """{'files': path -> {blob, provider} at this pin, 'blobs': blob -> provider at any
        pin}, read once per run."""
        if up.name not in self._indexes:
            data = self.store.read_json(self._index_path(up))
            files = (data.get("files") if isinstance(data, dict)
                     and data.get("commit") == up.commit else None)
            blobs = self.store.read_json(self.store.path("index", f"{up.name}-blobs.json"))
            self._indexes[up.name] = {"files": files if isinstance(files, dict) else {},
                                      "blobs": blobs if isinstance(blobs, dict) else {}}
        return self._indexes[up.name]

    def _provider_of(self, up: Upstream, path: str, blob: str) -> str:
        """Which provider acquired a cached blob (for this path at this pin, else at an
        earlier pin: a pin bump that keeps the file keeps its provenance)."""
        idx = self._cached_index(up)
        seen = idx["files"].get(path)
        if isinstance(seen, dict) and seen.get("blob") == blob and seen.get("provider"):
            return seen["provider"]
        return idx["blobs"].get(blob) or "cache"

    def _tree_cache_path(self, up: Upstream) -> Path:
        return self.store.path("trees", f"{up.commit}.json")

    def _hold(self, blob: str, data: bytes) -> None:
        if blob not in self._held and self._held_bytes + len(data) <= HOLD_BYTES:
            self._held[blob] = data
            self._held_bytes += len(data)

    def _have(self, blob: str) -> bool:
        """The bytes of `blob` are held by this run or stored (not read: every read
        verifies them)."""
        return blob in self._held or self.store.has_blob(blob)

    def _bytes(self, blob: str) -> bytes | None:
        data = self._held.get(blob)
        if data is None:
            data = self.store.get_blob(blob)
            if data is not None:
                self._hold(blob, data)
        return data

    # ------------------------------------------------------------------ identity
    def _local_identity(self, st: UpstreamState) -> None:
        """The pin's tree as cached by an earlier run (no git, no network), if the kind of
        provider that read it is configured."""
        if st.local_done:
            return
        st.local_done = True
        cached = self.store.read_json(self._tree_cache_path(st.up))
        order = self.config.providers
        kind = str(cached.get("from") or "").split(":", 1)[0] if isinstance(cached, dict) else ""
        allowed = ((kind == "git" and "git" in order)
                   or (kind == "mirror" and ("mirror" in order or "objects" in order)))
        if (allowed and isinstance(cached, dict) and cached.get("commit") == st.up.commit
                and isinstance(cached.get("files"), dict)):
            st.tree = dict(cached["files"])
            st.tree_from = cached.get("from")

    def _identity(self, st: UpstreamState, path: str, *, remote: bool = True
                  ) -> tuple[str | None, str | None]:
        self._local_identity(st)
        if self.config.refresh or (st.tree is None and not self.lock.blob(st.up, path)):
            self._open_providers(st, remote=remote)   # nothing local names its pin blob
        if st.tree is not None:
            return st.tree.get(path), "git-tree"
        blob = self.lock.blob(st.up, path)
        return (blob, "lock") if blob else (None, None)

    # ------------------------------------------------------------------ public
    def resolve(self, upstream: str, path: str, *, needed: bool = True) -> SourceFile:
        """The file at pinned identity. `needed=False` for bulk reads that no lesson or
        claim names (e.g. a symbol index over every known file): their missing pin blobs
        are not reported as identity gaps."""
        key = (upstream, path)
        sf = self._resolved.get(key)
        if sf is not None and needed and key in self._local_only:
            sf = None      # resolved for a bulk read without the network: now it is needed
        if sf is None:
            sf = self._resolve(upstream, path, remote=needed)
            self._resolved[key] = sf
            (self._local_only.discard if needed else self._local_only.add)(key)
            if sf.status.usable and not sf.cached:
                self._index_dirty.add(upstream)
        if needed and sf.expected_blob is None and sf.presence is not Presence.ABSENT:
            st = self._state[upstream]
            if st.tree is None:
                st.gaps[path] = sf.status
        return sf

    def present_pinned(self, upstream: str, paths: list[str]) -> dict[str, str]:
        """{path: pin blob} of the paths that `resolve(..., needed=False)` would serve as
        pinned from the store without a provider (the pin blob known locally, the store
        holding it), found without building a `SourceFile` each: a symbol index names
        its inputs by them. The other paths need `resolve`."""
        out: dict[str, str] = {}
        if self.config.refresh:
            return out
        st = self._st(upstream)
        for path in paths:
            sf = self._resolved.get((upstream, path))
            if sf is not None:
                if sf.status is Status.PINNED and sf.blob:
                    out[path] = sf.blob
                continue
            expected, _ = self._identity(st, path, remote=False)
            if expected and self._have(expected):
                out[path] = expected
        return out

    def resolve_many(self, items: Iterable[tuple[str, str]], *,
                     needed: bool = True) -> list[SourceFile]:
        items = list(dict.fromkeys(items))
        by_up: dict[str, list[str]] = {}
        for u, p in items:
            by_up.setdefault(u, []).append(p)
        for u, paths in by_up.items():
            self.prefetch(u, paths, needed=needed)
        out = [self.resolve(u, p, needed=needed) for u, p in items]
        self.save_index()
        return out

    def pin_tree(self, upstream: str) -> tuple[dict[str, str] | None, str | None, list[str]]:
        """(path -> blob at the pin, where it came from, notes) — tree None when unreachable."""
        st = self._st(upstream)
        self._local_identity(st)
        self._open_providers(st)
        return (dict(st.tree) if st.tree is not None else None, st.tree_from,
                list(dict.fromkeys(st.notes)))

    def wheel_paths(self, upstream: str) -> set[str]:
        """Repo paths the upstream's pinned wheels map (downloading them if needed)."""
        return {p for w in self._st(upstream).wheels for p in w.files()}

    def prefetch(self, upstream: str, paths: list[str], *, needed: bool = True) -> None:
        """One round trip for all blobs a partial clone lacks (nothing when all are cached);
        `needed=False`: a pin blob that nothing local knows is not sought on the network."""
        st = self._st(upstream)
        if self.config.offline:
            return
        wanted = []
        for p in paths:
            blob, _ = self._identity(st, p, remote=needed)
            if blob and not self._have(blob):
                wanted.append(blob)
        if wanted:
            self._open_providers(st)
            self._fetch_blobs(st, wanted)

    def _resolve(self, upstream: str, path: str, *, again: bool = False,
                 remote: bool = True) -> SourceFile:
        st = self._st(upstream)
        up = st.up
        expected, identity = self._identity(st, path, remote=remote)
        if expected and not again:
            # verified bytes at the pin's blob: no provider needed. A bulk listing
            # (`remote=False`: a symbol index, whose facts come by blob) only needs to
            # know the store holds them; every read verifies the bytes (`read`, which
            # acquires them again when they are missing or corrupt)
            present = self._have(expected) if not remote else self._bytes(expected) is not None
            if present:
                return SourceFile(upstream=up.name, path=path, status=Status.PINNED,
                                  blob=expected, expected_blob=expected, identity=identity,
                                  provider=self._provider_of(up, path, expected), cached=True)
        if expected:
            self._open_providers(st)
            if st.tree is not None and identity != "git-tree":
                expected, identity = st.tree.get(path), "git-tree"  # a tree reached just now
        if expected:
            return self._acquire(st, path, expected, identity)
        return self._unknown_blob(st, path, verify=again)

    def _acquire(self, st: UpstreamState, path: str, expected: str,
                 identity: str | None) -> SourceFile:
        up = st.up
        base = {"upstream": up.name, "path": path, "expected_blob": expected, "identity": identity}
        if (isinstance(st.pin_repo, PartialClone) and "git" in self.config.providers
                and not st.pin_repo.has_object(expected)):
            self._fetch_blobs(st, [expected])
        mismatches: list[tuple[str, str]] = []  # (provider, blob it has)
        for prov in self.config.providers:
            for label, data in self._candidates(st, prov, path, expected):
                got = blob_sha(data)
                if got == expected:
                    self.store.put_blob(data)
                    self._hold(got, data)
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

    def _unknown_blob(self, st: UpstreamState, path: str, *, verify: bool = False
                      ) -> SourceFile:
        """The pin's blob for `path` is unknown: absent at the pin, or the release serves it.
        The wheel's member is served by its blob; its bytes are read (verified) when asked
        for (`read`), and `verify` (a re-resolution after bytes went missing) re-extracts
        them from the wheel when the store lacks them."""
        up = st.up
        base = {"upstream": up.name, "path": path, "expected_blob": None, "identity": None}
        pres = self._presence(st, path)
        if pres.state is Presence.ABSENT:
            detail = f"no such path at {up.short} ({pres.basis})" + (
                f"; did you mean {' or '.join(pres.suggestions)}?" if pres.suggestions else "")
            return SourceFile(**base, status=Status.UNAVAILABLE, presence=pres.state,
                              suggestions=pres.suggestions, reason=detail, detail=detail)
        if "wheel" in self.config.providers:
            for w in st.wheels:
                blob = w.files().get(path)
                cached = bool(blob) and (not verify or self._have(blob))
                data = w.read(path) if blob and not cached else None
                if data is not None:
                    self._hold(blob, data)
                if cached or data is not None:
                    detail = "pin blob unknown (not in pins.lock); served from the pinned release"
                    return SourceFile(**base, status=Status.RELEASE, blob=blob,
                                      provider=w.label, reason=detail, detail=detail)
        if pres.state is Presence.NOT_IN_RELEASE:
            detail = pres.message()
            return SourceFile(**base, status=Status.UNAVAILABLE, presence=pres.state,
                              suggestions=pres.suggestions, reason=detail, detail=detail)
        skipped = next((w.skipped()[path] for w in st.wheels
                        if "wheel" in self.config.providers and path in w.skipped()), None)
        if skipped:
            return SourceFile(**base, status=Status.UNAVAILABLE, reason=skipped, detail=skipped)
        reason, detail = self._why(st, None)
        return SourceFile(**base, status=Status.UNAVAILABLE, reason=reason, detail=detail)

    def _candidates(self, st: UpstreamState, prov: str, path: str, expected: str):
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

    def _why(self, st: UpstreamState, expected: str | None) -> tuple[str, str]:
        """(reason, detail) of an unavailable file: the reason in stable wording (records),
        the detail with this run's provider failures added (also in `notes()`)."""
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

    # ------------------------------------------------------------------ presence
    def presence(self, upstream: str, path: str) -> PathPresence:
        """Is `path` at the pin: present, known absent (git tree, complete lock), not in
        the pinned release although a wheel map covers it, or unknown. Suggestions are
        the closest known paths when it is not present."""
        st = self._st(upstream)
        self._identity(st, path)   # local first; providers only when nothing local knows it
        return self._presence(st, path)

    def _presence(self, st: UpstreamState, path: str) -> PathPresence:
        up = st.up
        base = {"upstream": up.name, "path": path}
        if st.tree is not None:
            if path in st.tree:
                return PathPresence(**base, state=Presence.PRESENT, basis=f"git tree at "
                                    f"{up.short} ({st.tree_from})")
            return PathPresence(**base, state=Presence.ABSENT,
                                basis=f"git tree at {up.short}, {st.tree_from}",
                                suggestions=self._suggest(st, path))
        entry = self.lock.entry(up)
        if entry is not None and path in entry.files:
            return PathPresence(**base, state=Presence.PRESENT, basis="pins.lock")
        if entry is not None and entry.complete and self.lock.problem(up) is None:
            return PathPresence(**base, state=Presence.ABSENT,
                                basis=f"pins.lock lists the whole tree at {up.short}",
                                suggestions=self._suggest(st, path))
        if "wheel" in self.config.providers:
            for w in st.wheels:
                if path in w.files():
                    return PathPresence(**base, state=Presence.RELEASE, basis=w.label)
            for w in st.wheels:
                if w.covers(path) and not w.error and path not in w.skipped():
                    return PathPresence(**base, state=Presence.NOT_IN_RELEASE, basis=w.label,
                                        suggestions=self._suggest(st, path))
        return PathPresence(**base, state=Presence.UNKNOWN, suggestions=self._suggest(st, path))

    def _suggest(self, st: UpstreamState, path: str) -> list[str]:
        known = set(st.tree or ()) | set(self.lock.paths(st.up))
        if st.tree is None and "wheel" in self.config.providers:
            for w in st.wheels:
                known.update(w.files())
        known.discard(path)
        if not known:
            return []
        close = difflib.get_close_matches(path, sorted(known), n=3, cutoff=0.8)
        name = posixpath.basename(path)
        same = sorted(p for p in known if posixpath.basename(p) == name)
        return list(dict.fromkeys(close + same))[:3]

    # ------------------------------------------------------------------ reading
    def read(self, sf: SourceFile) -> bytes | None:
        """Bytes of a usable file; None for mismatch/unavailable (never another version).
        Bytes that vanished from the cache since resolution are acquired again."""
        if not sf.status.usable or not sf.blob:
            return None
        data = self._bytes(sf.blob)
        if data is None:
            again = self._resolve(sf.upstream, sf.path, again=True)
            if again.status.usable and again.blob == sf.blob:
                data = self._bytes(sf.blob)
            if data is None:
                self._vanished.add((sf.upstream, sf.path))
        return data

    def text(self, upstream: str, path: str) -> tuple[SourceFile, str | None]:
        sf = self.resolve(upstream, path)
        data = self.read(sf)
        if data is None and sf.status.usable:
            gone = f"blob {sf.blob} vanished from the cache during this run and could not be " \
                   "acquired again"
            reason, why = self._why(self._st(upstream), sf.blob)
            sf = sf.model_copy(update={"status": Status.UNAVAILABLE, "cached": False,
                                       "reason": f"{gone} ({reason})", "detail": f"{gone} ({why})"})
            self._resolved[(upstream, path)] = sf
        return sf, (data.decode("utf-8", errors="replace") if data is not None else None)

    def known_paths(self, upstream: str) -> list[str]:
        """Every path this run can name for the upstream: git tree, lock, wheel maps.
        A tree reached by an earlier run is cached; without one, the providers are
        opened to reach it, the remote ones only when no run has failed to reach it
        lately (`tree_sought_recently`: a warm run offline tries no network to list)."""
        st = self._st(upstream)
        self._local_identity(st)
        if st.tree is None:
            self._open_providers(st, remote=not self.tree_sought_recently(st))
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

    # ------------------------------------------------------------------ notices
    def notices(self) -> list[Notice]:
        """What this run must say about identity and the cache, deterministic order."""
        return collect(general=self._notices, states=self._state, lock=self.lock,
                       store=self.store, held=lambda b: b in self._held,
                       vanished=self._vanished)

    def save_index(self) -> None:
        """Remember which provider served each blob, so a cached run reports it."""
        for name in sorted(self._index_dirty):
            up = self.pins.get(name)
            idx = self._cached_index(up)
            before = (dict(idx["files"]), dict(idx["blobs"]))
            for (u, p), sf in self._resolved.items():
                if u == name and sf.status is Status.PINNED and not sf.cached and sf.blob:
                    idx["files"][p] = {"blob": sf.blob, "provider": sf.provider}
                    idx["blobs"][sf.blob] = sf.provider
                elif u == name and sf.status.usable and not sf.cached:
                    idx["files"][p] = {"blob": sf.blob, "provider": sf.provider}
            if (idx["files"], idx["blobs"]) == before:
                continue            # a warm run that learnt nothing writes nothing
            self.store.write_json(self._index_path(up), {"commit": up.commit,
                                                         "files": idx["files"]})
            self.store.write_json(self.store.path("index", f"{name}-blobs.json"), idx["blobs"])
        self._index_dirty.clear()

    def close(self) -> None:
        for st in self._state.values():
            if st.pin_repo:
                st.pin_repo.close()
            for _, r in st.object_stores:
                r.close()


__all__ = ["SourceLayer", "SourceFile", "Status", "Presence", "PathPresence", "Notice"]
