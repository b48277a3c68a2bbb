"""Benchmark of runtime confirmation with warm environments (not a timed test).

    python -m verifier.runtime.bench [--repeat 3] [--upstream NAME ...] [--format markdown|json]

For each upstream with runtime checks in the claim files:
- builds (or reuses) its environment;
- runs one warm-up batch of all its checks (fills e.g. Warp's kernel cache),
  which is not counted;
- then `--repeat` times: an empty batch (interpreter start + imports only) and
  a batch of all its checks.

Reported per upstream (medians over the repeats): `startup_s` (empty batch,
wall), `import_s` (the harness's own import time), `batch_s` (all checks, wall),
per-check median / p90 / max in ms, and `per_check_s` = (batch - startup) /
checks, the marginal cost of one check. Target: batch_s ~ import + n x 50 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    vs = sorted(values)
    k = min(len(vs) - 1, max(0, round(q * (len(vs) - 1))))
    return vs[k]


def bench(project, upstreams: list[str] | None = None, repeat: int = 3) -> dict:
    from verifier.claims.loader import load_claims
    from verifier.runtime.envs import EnvSpec, create_env
    from verifier.runtime.runner import CheckSpec, compare, run_batch

    by_up: dict[str, list] = {}
    for lc in load_claims(project):
        if lc.claim.runtime is None or lc.problem:
            continue
        up = lc.upstream or lc.claim.upstream
        by_up.setdefault(up, []).append(lc)
    out = {"repeat": repeat, "upstreams": []}
    for name in sorted(by_up):
        if upstreams and name not in upstreams:
            continue
        spec = EnvSpec.from_upstream(project.pins.upstream[name])
        info = create_env(project.store, spec, index_url=project.config.index_url,
                          offline=project.config.offline, notify=project.notify)
        lcs = by_up[name]
        checks = [CheckSpec(lc.gid, lc.claim.runtime.code, lc.claim.runtime.setup,
                            lc.claim.runtime.timeout) for lc in lcs]
        run_batch(info.python, spec, checks, env_dir=info.path)          # warm-up
        startups, imports, batches, per_check = [], [], [], {c.name: [] for c in checks}
        failures: set[str] = set()
        for _ in range(repeat):
            empty = run_batch(info.python, spec, [], env_dir=info.path)
            startups.append(empty.wall_s)
            b = run_batch(info.python, spec, checks, env_dir=info.path)
            imports.append(b.import_s or 0.0)
            batches.append(b.wall_s)
            for lc, c, r in zip(lcs, checks, b.runs, strict=True):
                per_check[c.name].append(r.duration_s or 0.0)
                if r.status != "ok" or compare(r.value, lc.claim.runtime.expected,
                                               lc.claim.runtime.tolerance):
                    failures.add(c.name)
        meds = {k: statistics.median(v) for k, v in per_check.items()}
        startup, batch = statistics.median(startups), statistics.median(batches)
        slowest = sorted(meds.items(), key=lambda kv: -kv[1])[:3]
        out["upstreams"].append({
            "upstream": name, "checks": len(checks), "env": info.path.name,
            "python": info.marker.get("python"),
            "startup_s": round(startup, 3), "import_s": round(statistics.median(imports), 3),
            "batch_s": round(batch, 3),
            "per_check_s": round((batch - startup) / len(checks), 4),
            "check_ms_median": round(1000 * statistics.median(meds.values()), 2),
            "check_ms_p90": round(1000 * _pct(list(meds.values()), 0.9), 2),
            "check_ms_max": round(1000 * max(meds.values()), 2),
            "slowest": [{"id": k, "ms": round(1000 * v, 2)} for k, v in slowest],
            "not_confirmed": sorted(failures)})
    return out


def to_markdown(data: dict) -> str:
    lines = [f"Warm environments, medians of {data['repeat']} runs.", "",
             "| upstream | checks | startup + import (s) | import (s) | all checks (s) | "
             "marginal per check (ms) | per check median / p90 / max (ms) | slowest |",
             "|---|---:|---:|---:|---:|---:|---|---|"]
    for u in data["upstreams"]:
        slow = ", ".join(f"{s['id'].rsplit('/', 1)[-1]} {s['ms']:.0f}" for s in u["slowest"])
        lines.append(f"| {u['upstream']} | {u['checks']} | {u['startup_s']:.2f} | "
                     f"{u['import_s']:.2f} | {u['batch_s']:.2f} | {1000 * u['per_check_s']:.1f} "
                     f"| {u['check_ms_median']:.1f} / {u['check_ms_p90']:.1f} / "
                     f"{u['check_ms_max']:.1f} | {slow} |")
    bad = [f"{u['upstream']}: {', '.join(u['not_confirmed'])}" for u in data["upstreams"]
           if u["not_confirmed"]]
    if bad:
        lines += ["", "Not confirmed: " + "; ".join(bad)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from verifier.cli.common import err_console
    from verifier.errors import VerifierError
    from verifier.project import load_project

    ap = argparse.ArgumentParser(prog="python -m verifier.runtime.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pins", type=Path, default=None)
    ap.add_argument("--upstream", action="append", default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--format", choices=["markdown", "json"], default="markdown")
    args = ap.parse_args(argv)
    try:
        project = load_project(args.pins, notify=lambda m: err_console.print(f"note: {m}"))
        data = bench(project, args.upstream, max(1, args.repeat))
    except VerifierError as exc:
        err_console.print(f"error: {exc.render()}")
        return exc.exit_code
    print(json.dumps(data, indent=2, sort_keys=True) if args.format == "json"
          else to_markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
