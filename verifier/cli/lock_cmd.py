"""`verifier lock`: write pins.lock (path -> git blob at each pin)."""

from __future__ import annotations

import argparse

from verifier.cli.common import path_arg


HELP = ("write pins.lock from the git tree at each pin (online or from a mirror holding the pin), "
        "or import the course's sources.json manifests")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--import", dest="manifests", metavar="PATH", type=path_arg, nargs="+",
                   help="import blob manifests (course sources.json) instead of reading git")
    p.add_argument("--upstream", help="only this upstream")
    p.add_argument("--full", action="store_true",
                   help="lock every file of the tree, not only needed and wheel-mapped ones")
    p.add_argument("--check", action="store_true",
                   help="only compare pins.lock with the git tree; exit 1 on disagreement")


def run(args: argparse.Namespace) -> int:
    from verifier.cli import output as o
    from verifier.cli.common import project_from
    from verifier.exitcodes import ExitCode
    from verifier.pins import Lock, LockedUpstream, dump_lock, import_manifest
    from verifier.pipeline import check_upstream
    from verifier.claims.loader import claimed_files
    from verifier.sources.needs import needed_files

    from verifier.safewrite import Area

    project = project_from(args)
    check_upstream(project, args.upstream)
    lock = project.lock
    # pins.lock is what this command edits: its directory is checked before the work
    area = Area.edit(project.lock_path.parent, "pins.lock")
    if not args.check:
        area.preflight(files=(project.lock_path.name,))
    if args.manifests:
        for m in args.manifests:
            lock, name, added = import_manifest(lock, project.pins, m,
                                                tree_of=lambda n: project.sources.pin_tree(n)[0])
            o.say(f"imported {o.rel(m)}: {name}, {o.plural(added, 'new path')}")
        area.write(project.lock_path, dump_lock(lock))
        o.say(f"wrote {o.rel(project.lock_path)}")
        return ExitCode.OK

    layer = project.sources
    needed = needed_files(project, args.upstream, claimed=claimed_files(project))
    ups = [args.upstream] if args.upstream else sorted(project.pins.upstream)
    status = ExitCode.OK
    new = dict(lock.upstream)
    for name in ups:
        up = project.pins.get(name)
        tree, tree_from, notes = layer.pin_tree(name)
        if tree is None:
            o.say((f"{name}:", "yellow"), f" no git tree at {up.short} reachable "
                  f"({'; '.join(notes) or 'no git provider'}); lock unchanged for it")
            status = ExitCode.FINDINGS
            continue
        if args.check:
            problem = lock.problem(up)
            if problem and problem[0] not in ("lock-truncated", "lock-other-commit"):
                problem = None
            if problem:
                o.say((f"{name}:", "red"), f" {problem[1]}")
                status = ExitCode.FINDINGS
            old = lock.upstream.get(name)
            bad = [(p, b, tree.get(p)) for p, b in (old.files.items() if old else [])
                   if tree.get(p) != b]
            for p, b, t in bad:
                o.say((f"{name}:{p}", "red"), f" lock has {b}, tree at {up.short} has {t}")
                status = ExitCode.FINDINGS
            if not bad and not problem:
                o.say(f"{name}: pins.lock agrees with the tree at {up.short}")
            continue
        if args.full:
            paths = set(tree)
        else:
            paths = {p for u, p in needed if u == name}
            paths.update(layer.wheel_paths(name))
            old = lock.upstream.get(name)
            if old and old.commit == up.commit:
                paths.update(old.files)
        files = {p: tree[p] for p in sorted(paths) if p in tree}
        new[name] = LockedUpstream(commit=up.commit, source=[f"tree:{tree_from}"],
                                   count=len(files), complete=bool(args.full), files=files)
        o.say(f"{name}: locked {o.plural(len(files), 'path')} from {tree_from}")
    if not args.check:
        area.write(project.lock_path, dump_lock(Lock(upstream=new)))
        o.say(f"wrote {o.rel(project.lock_path)}")
    return status
