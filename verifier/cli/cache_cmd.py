"""`verifier cache`: where the cache is, its sections and sizes, cleaning and collecting it.

The sections and their descriptions come from `verifier.cache.SECTIONS`."""

from __future__ import annotations

import argparse
import hashlib
import shutil
from typing import TYPE_CHECKING

from verifier.cli.common import choice

if TYPE_CHECKING:
    from verifier.project import Project

HELP = "show, clean or garbage-collect the content-addressed cache"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", type=choice("action", ["info", "clean", "gc"]), metavar="ACTION",
                   help="info: sections and sizes; clean: empty sections; gc: remove what no "
                        "current pin or environment needs")
    p.add_argument("--section", default="all", type=choice("cache section", _sections),
                   help="what to clean (default: all)")


def _sections() -> list[str]:
    from verifier.cache import cleanable_sections

    return ["all", *cleanable_sections()]


def run(args: argparse.Namespace) -> int:
    from verifier.cache import SECTIONS, Store, default_cache_dir
    from verifier.cli import output as o
    from verifier.cli.common import project_from
    from verifier.exitcodes import ExitCode

    if args.action == "gc":
        from verifier.facts.cache import fact_cache

        project = project_from(args)
        removed = project.store.gc(live_entries(project))
        for old in fact_cache(project.store).superseded():   # entries of older extractor code
            shutil.rmtree(old, ignore_errors=True)
            removed.setdefault("facts", []).append(old)
        n = sum(len(v) for v in removed.values())
        o.say(f"removed {n:,} entr{'y' if n == 1 else 'ies'} from {o.rel(project.store.root)}"
              + ("" if not n else ": " + ", ".join(f"{k} {len(v):,}"
                                                   for k, v in sorted(removed.items()))))
        return ExitCode.OK
    store = Store(getattr(args, "cache", None) or default_cache_dir())
    if args.action == "info":
        sizes = store.sizes()
        o.show(o.table(f"cache: {o.rel(store.root)}",
                       ["section", "size", "cleaned by `cache clean`", "holds"],
                       [[s.subdir + "/", f"{sizes[s.name] / 1e6:,.1f} MB",
                         "yes" if s.cleanable else "no", s.description] for s in SECTIONS],
                       right=["size"]))
        o.say(f"total: {store.size() / 1e6:,.1f} MB")
    else:
        removed = store.clean(args.section)
        o.say(f"cleaned {o.plural(len(removed), 'section')} of {o.rel(store.root)}")
    return ExitCode.OK


def live_entries(project: "Project") -> dict[str, set[str]]:
    """Top-level entry names per section that the current pins, lock and environments
    use (everything else in those sections is left over from older pins or code)."""
    from verifier.cache import BY_NAME
    from verifier.courses import cache_entries
    from verifier.facts.indexdb import INDEX_SUFFIX
    from verifier.runtime.envs import EnvSpec

    store, pins = project.store, project.pins
    live: dict[str, set[str]] = {name: set() for name in
                                 ("blobs", "wheels", "git", "trees", "index", "symbols", "envs",
                                  "courses")}
    for name, up in sorted(pins.upstream.items()):
        live["trees"].add(f"{up.commit}.json")
        live["trees"].add(f"{up.commit}.unreachable.json")
        live["index"].add(f"{name}-{up.commit}.json")
        live["git"].add(store.upstream_clone(up.slug).name)
        for where in project.config.mirrors.get(name, []):
            live["git"].add(f"mirror-{hashlib.sha1(where.encode()).hexdigest()[:12]}.git")
        for pattern in (f"{name}-{up.commit}-*{INDEX_SUFFIX}", f"release-{name}-*{INDEX_SUFFIX}"):
            newest = sorted(store.path("symbols").glob(pattern),
                            key=lambda p: (p.stat().st_mtime, p.name))
            if newest:
                live["symbols"].add(newest[-1].name)   # older digests: older extractor code
        for w in up.wheel:
            live["wheels"].add(w.requirement.replace("==", "-"))
        if up.runtime:
            live["envs"].add(EnvSpec.from_upstream(up).dirname)
        entry = project.lock.upstream.get(name)
        if entry is not None and entry.commit == up.commit:
            live["blobs"].update(entry.files.values())
        tree = store.read_json(store.path("trees", f"{up.commit}.json"))
        if isinstance(tree, dict) and isinstance(tree.get("files"), dict):
            live["blobs"].update(v for v in tree["files"].values() if isinstance(v, str))
        index = store.read_json(store.path("index", f"{name}-{up.commit}.json"))
        if isinstance(index, dict):
            live["blobs"].update(v.get("blob") for v in index.get("files", {}).values()
                                 if isinstance(v, dict) and isinstance(v.get("blob"), str))
        for w in up.wheel:
            manifest = store.read_json(store.path("wheels", w.requirement.replace("==", "-"),
                                                  "manifest.json"))
            if isinstance(manifest, dict):
                live["blobs"].update(v for v in manifest.get("files", {}).values()
                                     if isinstance(v, str))
    for course in pins.course.values():
        for section, names in cache_entries(course, project.config).items():
            live[section] |= names
    assert set(live) <= set(BY_NAME)
    return live
