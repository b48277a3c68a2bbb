"""Benchmark of runtime confirmation with warm environments (not a timed test).

    verifier bench --only runtime [--runtime-repeat 3] [--upstream NAME ...]

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

import statistics
from typing import TYPE_CHECKING, Any

from verifier.claims.loader import load_claims
from verifier.runtime.envs import EnvSpec, create_env
from verifier.runtime.runner import CheckSpec, compare, run_batch

if TYPE_CHECKING:
    from verifier.project import Project


def bench_runtime(project: "Project", repeat: int = 1,
                  upstreams: list[str] | None = None) -> dict[str, Any]:
    """The runtime section, or `{"skipped": reason}` when nothing can be measured."""
    try:
        loaded = load_claims(project)
        with_runtime = sum(1 for lc in loaded if lc.claim.runtime is not None)
        if not with_runtime:
            return {"skipped": f"not measured: no claim has a runtime check (0 of "
                               f"{len(loaded)} claims has [claim.runtime])"}
        out = measure(project, loaded, upstreams, max(1, repeat))
        out["claims_with_runtime"] = with_runtime
        return out
    except Exception as exc:  # noqa: BLE001 - reported as not measured, with the reason
        msg = exc.render() if hasattr(exc, "render") else f"{type(exc).__name__}: {exc}"
        return {"skipped": f"not measured: {msg}"}


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    vs = sorted(values)
    k = min(len(vs) - 1, max(0, round(q * (len(vs) - 1))))
    return vs[k]


def measure(project: "Project", loaded: list, upstreams: list[str] | None = None,
            repeat: int = 3) -> dict[str, Any]:
    """Per upstream: start + import, all checks, per-check times (medians of `repeat`)."""
    by_up: dict[str, list] = {}
    for lc in loaded:
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
