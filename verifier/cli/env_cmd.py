"""`verifier env list|create|clean`: the per-upstream runtime environments."""

from __future__ import annotations

import argparse
import json
import time

from verifier.cli.common import TEXT, add_format, choice

HELP = "list, build or remove the isolated runtime environments (one per upstream)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", type=choice("action", ["list", "create", "clean"]),
                   metavar="ACTION", help="list | create | clean")
    p.add_argument("upstreams", nargs="*", metavar="UPSTREAM",
                   help="upstreams to act on (default: every upstream with `runtime` pins)")
    p.add_argument("--check", action="store_true",
                   help="list: also import each ready environment and compare versions "
                        "with the pins (health check)")
    p.add_argument("--force", action="store_true", help="create: rebuild even if ready")
    p.add_argument("--stale", action="store_true",
                   help="clean: remove only directories no current pin uses")
    add_format(p, [TEXT, "json"])


def run(args: argparse.Namespace) -> int:
    from verifier.cache import dir_size
    from verifier.cli import output as o
    from verifier.cli.common import project_from, quiet
    from verifier.exitcodes import ExitCode
    from verifier.runtime import default_env_specs
    from verifier.runtime.envs import create_env, health_check, list_envs, remove_env

    project = project_from(args)
    specs = default_env_specs(project, args.upstreams or None)

    if args.action == "list":
        infos, stale = list_envs(project.store, specs, full=args.check)
        rows = []
        code = ExitCode.OK
        for info in infos:
            row = {"upstream": info.spec.upstream, "requirements": list(info.spec.requirements),
                   "python_requirement": info.spec.python, "status": info.status,
                   "path": str(info.path), "python": info.marker.get("python"),
                   "tool": info.marker.get("tool"), "installed": info.installed}
            if info.status == "tampered":       # changed since it was built: never used
                row["health"] = {"ok": False, "problems": info.problems, "import_s": 0.0}
                code = ExitCode.FINDINGS
            if args.check and info.status == "ready":
                h = health_check(info)
                row["health"] = h
                if not h["ok"]:
                    row["status"] = "env-mismatch" if any(
                        "pinned" in p for p in h["problems"]) else "broken"
                    code = ExitCode.FINDINGS
            rows.append(row)
        stale_rows = [{"path": str(p), "size_mb": round(dir_size(p) / 1e6, 1)} for p in stale]
        if args.format == "json":
            print(json.dumps({"environments": rows, "stale": stale_rows}, indent=2,
                             sort_keys=True))
            return code
        if not rows:
            o.say("no environments: no upstream in pins.toml has `runtime` requirements")
        for r in rows:
            extra = f" python {r['python']}" if r.get("python") else ""
            if r.get("health"):
                h = r["health"]
                extra += f"; import {h['import_s']:.2f}s" + (
                    f"; problems: {'; '.join(h['problems'])}" if h["problems"] else "")
            o.say(f"{r['upstream']:<8} {r['status']:<12} {' '.join(r['requirements'])}{extra}")
            o.say(f"         {o.rel(r['path'])}")
        for s in stale_rows:
            o.say(f"stale    {o.rel(s['path'])} ({s['size_mb']} MB; `verifier env clean --stale`)")
        return code

    if args.action == "create":
        code = ExitCode.OK
        progress = o.RichProgress(quiet(args), stages=True)
        for spec in specs:
            t0 = time.perf_counter()
            progress.begin(f"environment {spec.upstream}: {' '.join(spec.requirements)}")
            try:
                info = create_env(project.store, spec, index_url=project.config.index_url,
                                  offline=project.config.offline, force=args.force,
                                  notify=project.notify)
                h = health_check(info)
            finally:
                progress.end()
            status = "ready" if h["ok"] else "broken: " + "; ".join(h["problems"])
            if not h["ok"]:
                code = ExitCode.FINDINGS
            o.say(f"{spec.upstream:<8} {status} ({time.perf_counter() - t0:.1f}s; import "
                  f"{h['import_s']:.2f}s) {o.rel(info.path)}")
        return code

    # clean
    infos, stale = list_envs(project.store, specs)
    targets = list(stale) if args.stale else [i.path for i in infos if i.status != "missing"]
    if not args.stale and not args.upstreams:
        targets += stale
    for path in targets:
        remove_env(path, project.store)
        o.say(f"removed {o.rel(path)}")
    if not targets:
        o.say("nothing to remove")
    return ExitCode.OK
