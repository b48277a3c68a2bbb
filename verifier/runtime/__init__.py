"""Runtime confirmation: run claims' snippets against the pinned wheels.

    results, record = confirm(project, pairs, mode="sample", sample=None, seed=0)

`pairs` are (LoadedClaim, ClaimResult) from the static check. Claims with a
`[claim.runtime]` table are candidates; `sampling.select` picks which run. The
selected checks of each upstream run in one subprocess of that upstream's
environment (`envs.py`, `runner.py`); upstreams run side by side.

Each candidate's ClaimResult gains `runtime` (RuntimeResult):
    confirmed      the snippet's `result` equals `expected` (floats within tolerance)
    refuted        it ran and gave something else
    error          it raised, timed out, crashed, or could not run (reason in message)
    skipped        not sampled, needs CUDA on a machine without a GPU, or no env offline
    env-mismatch   the environment's installed versions differ from the pins

Merging static and runtime verdicts (`_merge`): the runtime decides when it can.
- a runtime-only claim (kind "runtime") takes its verdict from the runtime
  result (confirmed -> verified, refuted -> diverged, error -> error, else
  unavailable), except that a claim that is `stale` (its fragment left the
  lesson) or `error` (the claim itself is broken) keeps that verdict;
- static `verified` + runtime `refuted` -> `diverged` (the message says both);
- static `unavailable` + runtime `refuted` -> `diverged`, resting on the runtime:
  `expected`/`actual` are the runtime expectation and value, the message the
  first difference;
- static `stale` / `error` are kept whatever the runtime says; the other
  disagreements (static `diverged` but runtime `confirmed`, a runtime error under a
  decided verdict, static `unavailable` but runtime `confirmed`) are reported in
  the message without changing the verdict.
Everything kept from a run (value, message, output) has passed the batch's
sanitizer (token-like strings redacted, machine paths replaced by placeholders).
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifier.errors import VerifierError
from verifier.results import ClaimResult, RuntimeResult, Verdict
from verifier.runtime.envs import EnvSpec, RuntimeEnvError, create_env, use_lock
from verifier.runtime import sandbox
from verifier.runtime.contain import kept_value
from verifier.runtime.runner import BatchRun, CheckSpec, compare, run_batch
from verifier.runtime.sampling import MODES, Candidate, parse_sample, select

if TYPE_CHECKING:
    from verifier.claims.loader import LoadedClaim
    from verifier.project import Project

__all__ = ["confirm", "has_gpu", "MODES", "parse_sample", "prepare_environments"]


def has_gpu() -> bool:
    """True when a CUDA device is usable here ($VERIFIER_CUDA=0/1 overrides the probe)."""
    forced = os.environ.get("VERIFIER_CUDA")
    if forced is not None:
        return forced.strip().lower() in ("1", "true", "yes")
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia/version") \
        or shutil.which("nvidia-smi") is not None


def _upstream_of(lc: "LoadedClaim", res: ClaimResult) -> str:
    return getattr(lc, "upstream", None) or lc.claim.upstream or res.upstream


def _run_upstream(project: "Project", name: str, items: list[tuple[int, Any]],
                  ) -> tuple[dict[int, RuntimeResult], dict]:
    """Run the checks of one upstream. Returns {index: RuntimeResult}, a record entry."""
    out: dict[int, RuntimeResult] = {}
    rec: dict[str, Any] = {"upstream": name, "checks": len(items)}
    up = project.pins.upstream.get(name)

    def all_as(status: str, message: str) -> tuple[dict[int, RuntimeResult], dict]:
        for i, (_gid, check) in items:
            out[i] = RuntimeResult(status=status, expected=check.expected, message=message)
        rec["note"] = message
        return out, rec

    if up is None:
        return all_as("error", f"upstream {name!r} is not in pins.toml")
    if not up.runtime:
        return all_as("skipped", f"pins.toml gives upstream {name!r} no `runtime` requirements")
    spec = EnvSpec.from_upstream(up)
    rec["requirements"] = list(spec.requirements)
    try:
        info = create_env(project.store, spec, index_url=project.config.index_url,
                          offline=project.config.offline, notify=project.notify)
    except RuntimeEnvError as exc:
        if project.config.offline:
            return all_as("skipped", exc.render())
        return all_as("error", f"environment could not be built: {exc.render()}")
    except (VerifierError, OSError) as exc:
        text = exc.render() if isinstance(exc, VerifierError) else str(exc)
        return all_as("error", f"environment could not be built: {text}")
    rec["env"] = info.path.name
    checks = [CheckSpec(name=gid, code=c.code, setup=c.setup, timeout=c.timeout)
              for _, (gid, c) in items]
    # held shared while the batch runs: `env clean` / a rebuild wait for it (and it for
    # them); checked again under the lock, so a batch never starts in a removed env
    with project.store.lock(use_lock(info), shared=True):
        try:
            info = create_env(project.store, spec, build=False)     # still as built?
        except RuntimeEnvError as exc:
            return all_as("error", f"environment changed before its checks ran: {exc.render()}")
        batch: BatchRun = run_batch(info.python, spec, checks, env_dir=info.path,
                                    paths=_machine_paths(project),
                                    hide=(str(project.store.root),))
    san = batch.sanitizer
    rec.update({"python": batch.python, "installed": batch.installed,
                "import_s": batch.import_s, "wall_s": batch.wall_s,
                "isolation": batch.isolation})
    if batch.note:
        rec["note"] = batch.note
    for (i, (_gid, check)), run in zip(items, batch.runs, strict=True):
        if run.status == "ok":
            diff = compare(run.value, check.expected, check.tolerance,
                           subset=check.compare == "subset")
            status = "confirmed" if diff is None else "refuted"
            msg = None if diff is None else san.text(f"runtime value differs: {diff}")
        else:
            status, msg = run.status, run.message
        out[i] = RuntimeResult(status=status, value=kept_value(san.value(run.value)),
                               expected=check.expected, duration_s=run.duration_s,
                               message=msg, stdout=run.stdout, stderr=run.stderr)
    return out, rec


# A check that ran out of time runs once more with a longer limit: an environment built
# for this run starts cold (Warp compiles a kernel module on its first use: 2.5 min for
# one Newton module on a loaded 2-CPU machine, over a check's 60 s), and the compiled
# module is kept for every later check. Bounded: x10 the check's limit, and at most
# RETRY_BUDGET_S of limits per upstream and run (a snippet that never ends costs at most
# that much more; retries past the budget keep their first result).
RETRY_FACTOR = 10
RETRY_BUDGET_S = 600.0


def _timed_out(rt: RuntimeResult) -> bool:
    return rt.status == "error" and (rt.message or "").startswith("timed out")


def _run_with_retry(project: "Project", name: str, items: list[tuple[int, Any]],
                    ) -> tuple[dict[int, RuntimeResult], dict]:
    out, rec = _run_upstream(project, name, items)
    budget = RETRY_BUDGET_S
    again = []
    for i, (gid, check) in items:
        rt = out.get(i)
        if rt is None or not _timed_out(rt) or budget <= check.timeout:
            continue
        longer = min(check.timeout * RETRY_FACTOR, budget)
        budget -= longer
        again.append((i, (gid, check.model_copy(update={"timeout": longer}))))
    if not again:
        return out, rec
    got, _ = _run_upstream(project, name, again)
    for i, (_gid, check) in again:
        first = out[i]
        rt = got[i]
        said = (f"ran again with a {check.timeout:g} s limit after {first.message} (a cold "
                "environment compiles on first use)")
        out[i] = rt.model_copy(update={"message": f"{rt.message}; {said}" if rt.message
                                       else said})
    still = sum(1 for i, _ in again if _timed_out(got[i]))
    rec["retried"] = {"checks": len(again), "timed_out_again": still}
    return out, rec


def _machine_paths(project: "Project") -> dict[str, str]:
    """Absolute paths of this machine that kept output shows as placeholders."""
    paths: dict[str, str] = {}
    home = os.path.expanduser("~")
    if home and home != "/":
        paths[home] = "~"
    root = getattr(getattr(project, "store", None), "root", None)
    if root is not None:
        paths[str(root)] = "<cache>"
    proot = getattr(getattr(project, "pins", None), "root", None)
    if proot is not None:
        paths[str(proot)] = "<project>"
    return paths


def _merge(res: ClaimResult, kind: str, rt: RuntimeResult, negated: bool = False) -> ClaimResult:
    update: dict[str, Any] = {"runtime": rt}
    if negated and rt.status in ("confirmed", "refuted"):
        # the claim was derived from an edited sentence that negates what was reviewed:
        # the runtime's answer to the reviewed assertion decides the negated one
        was = rt.status
        rt = rt.model_copy(update={
            "status": "refuted" if was == "confirmed" else "confirmed",
            "message": f"runtime {was} the reviewed assertion, which the edited sentence "
                       "now negates" + (f" ({rt.message})" if rt.message else "")})
    if res.verdict in (Verdict.ERROR, Verdict.STALE):
        # the claim itself is broken, or its fragment left the lesson: the runtime
        # result says nothing about the lesson as it is now
        note = f"runtime {rt.status}" + (f": {rt.message}" if rt.message else "")
        update["message"] = f"{res.message}; {note}" if res.message else note
        return res.model_copy(update=update)
    if kind == "runtime":
        update["expected"] = rt.expected
        # what the static check said besides "runtime-only claim" (a followed sentence)
        said = "; ".join(p for p in (res.message or "").split("; ") if p and
                         p != "runtime-only claim")

        def said_and(text: str | None) -> str | None:
            return f"{said}; {text}" if said and text else (said or text)

        if rt.status == "confirmed":
            update.update(verdict=Verdict.VERIFIED, actual=rt.value,
                          message=said_and("confirmed at runtime"))
        elif rt.status == "refuted":
            update.update(verdict=Verdict.DIVERGED, actual=rt.value, message=said_and(rt.message))
        elif rt.status == "error":
            update.update(verdict=Verdict.ERROR,
                          message=said_and(f"runtime check failed: {rt.message}"))
        else:   # skipped / env-mismatch: nothing decided
            update.update(verdict=Verdict.UNAVAILABLE,
                          message=said_and(f"runtime-only claim; runtime {rt.status}: "
                                           f"{rt.message}"))
        return res.model_copy(update=update)
    static = res.verdict
    note = None
    if static == Verdict.VERIFIED and rt.status == "refuted":
        update["verdict"] = Verdict.DIVERGED
        note = f"static check verified, but runtime refuted it ({rt.message})"
    elif static == Verdict.UNAVAILABLE and rt.status == "refuted":
        # the verdict rests on the runtime alone: its expectation and value are the evidence
        update.update(verdict=Verdict.DIVERGED, expected=rt.expected, actual=rt.value)
        note = f"refuted at runtime ({rt.message}); the static check could not run"
    elif static == Verdict.UNAVAILABLE and rt.status == "confirmed":
        note = "runtime confirmed the expectation (the static check could not run)"
    elif static == Verdict.DIVERGED and rt.status == "confirmed":
        note = "static check diverged, but runtime confirmed the expectation"
    elif static in (Verdict.VERIFIED, Verdict.DIVERGED) and rt.status == "error":
        note = f"runtime check could not confirm: {rt.message}"
    elif static == Verdict.DIVERGED and rt.status == "refuted":
        note = "runtime refuted it too"
    if note:
        update["message"] = f"{res.message}; {note}" if res.message else note
    return res.model_copy(update=update)


def prepare_environments(project: "Project") -> list[str]:
    """Build (or find) the pinned environment of every upstream that has `runtime`
    requirements, side by side, before anything else of the run reads them. The pinned
    release surface that `lint` resolves names against includes introspection of these
    environments (`facts/release.py`), so a run that will build them anyway builds them
    first: its lint then sees the same surface as every later run, and a first run on a
    fresh machine gives the same findings as the second. Failures are left to `confirm`,
    which reports them against the checks; returns the upstreams that have no usable
    environment."""
    specs = default_env_specs(project)
    if not specs:
        return []

    def build(spec: EnvSpec) -> str | None:
        try:
            create_env(project.store, spec, index_url=project.config.index_url,
                       offline=project.config.offline, notify=project.notify)
        except (VerifierError, OSError):
            return spec.upstream
        return None

    workers = max(1, min(len(specs), os.cpu_count() or 1, 3))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        missing = list(pool.map(build, specs))
    return [m for m in missing if m]


def confirm(project: "Project", pairs: "list[tuple[LoadedClaim, ClaimResult]]",
            mode: str = "sample", sample: float | int | None = None, seed: int = 0,
            ) -> tuple[list[ClaimResult], dict]:
    """Run the sampled runtime checks; return results (same order) and the sampling record."""
    cands: list[Candidate] = []
    idx: dict[str, int] = {}
    for i, (lc, res) in enumerate(pairs):
        if lc.claim.runtime is None or getattr(lc, "problem", None):
            continue
        cands.append(Candidate(lc.gid, _upstream_of(lc, res), lc.claim.kind))
        idx[lc.gid] = i
    chosen, record = select(cands, mode, sample, seed)
    results = [res for _, res in pairs]
    if mode == "none":
        return results, record
    reasons = {e["id"]: e["reason"] for e in record["checks"]}
    gpu = has_gpu()
    groups: dict[str, list[tuple[int, tuple[str, Any]]]] = {}
    runtime: dict[int, RuntimeResult] = {}
    for c in cands:
        i = idx[c.gid]
        check = pairs[i][0].claim.runtime
        if c.gid not in chosen:
            runtime[i] = RuntimeResult(status="skipped", expected=check.expected,
                                       message=f"not in the sample ({reasons[c.gid]})")
        elif check.needs_cuda and not gpu:
            runtime[i] = RuntimeResult(status="skipped", expected=check.expected,
                                       message="needs CUDA; no GPU on this machine")
        else:
            groups.setdefault(c.upstream, []).append((i, (c.gid, check)))
    envs_rec = []
    if groups:
        workers = max(1, min(len(groups), os.cpu_count() or 1, 3))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futs = {name: pool.submit(_run_with_retry, project, name, items)
                    for name, items in sorted(groups.items())}
            for name in sorted(futs):
                got, rec = futs[name].result()
                runtime.update(got)
                envs_rec.append(rec)
    record["environments"] = envs_rec
    said = sandbox.note([e.get("isolation") for e in envs_rec if "isolation" in e])
    if said and project.notify is not None:      # once per run, not once per batch
        project.notify(said)
    counts: dict[str, int] = {}
    for i, rt in sorted(runtime.items()):
        lc, res = pairs[i]
        results[i] = _merge(res, lc.claim.kind, rt, getattr(lc, "negated", False))
        counts[rt.status] = counts.get(rt.status, 0) + 1
    record["outcomes"] = dict(sorted(counts.items()))
    return results, record


def default_env_specs(project: "Project", names: list[str] | None = None) -> list[EnvSpec]:
    """EnvSpecs of the upstreams that have runtime requirements (or the named ones)."""
    from verifier.errors import UsageError

    ups = project.pins.upstream
    if names:
        unknown = [n for n in names if n not in ups]
        if unknown:
            raise UsageError(f"unknown upstream {', '.join(unknown)} (pins.toml has: "
                             f"{', '.join(sorted(ups))})")
        return [EnvSpec.from_upstream(ups[n]) for n in names]
    return [EnvSpec.from_upstream(u) for _, u in sorted(ups.items()) if u.runtime]


def env_dir(project: "Project", name: str) -> Path:
    from verifier.runtime.envs import env_path

    return env_path(project.store, EnvSpec.from_upstream(project.pins.upstream[name]))
