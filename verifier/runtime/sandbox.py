"""Where a batch's harness runs: the plan `jail.py` carries out (see there), and the one
note a run gives when the machine cannot isolate runtime checks fully.

- `plan(...)`: the directories to hide from the checks (the user's home, /tmp,
  /var/tmp, /dev/shm, /run/user/<uid>, the cache, the state directory with the cache's
  signing keys, $TMPDIR), the ones mounted back read-only (the environment, the
  interpreter it is built on), the scratch directory (the only writable place), and
  as root a separate uid for the harness. None when `VERIFIER_SANDBOX=0` turns the
  sandbox off or the platform has no namespaces (not Linux).
- `note(...)`: one sentence for the run's notes when some protection was missing in a
  batch (once per run, whatever the number of batches).
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
import threading
from pathlib import Path

JAIL = Path(__file__).with_name("jail.py")
UID_BASE = 0x7A000000         # separate uids for harnesses started by root: far above users'


def disabled_reason() -> str | None:
    """Why there is no sandbox here (None: there is one to try)."""
    if os.environ.get("VERIFIER_SANDBOX", "1").strip().lower() in ("0", "off", "no", "false"):
        return "turned off by VERIFIER_SANDBOX=0"
    if not sys.platform.startswith("linux"):
        return f"no Linux namespaces on {sys.platform}"
    return None


def _prefix_of(python: Path) -> list[str]:
    """The installation the environment's interpreter comes from (pyvenv.cfg `home`, the
    resolved interpreter), which the harness needs to start."""
    out = []
    cfg = python.parent.parent / "pyvenv.cfg"
    try:
        for line in cfg.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() in ("home", "executable") and value.strip():
                p = Path(value.strip())
                home = p if key.strip() == "home" else p.parent
                out.append(os.path.realpath(home.parent))
    except OSError:
        pass
    real = Path(os.path.realpath(python))
    out.append(str(real.parent.parent))
    return sorted(set(out))


def _free_uid() -> int:
    """A uid no process uses now (so the kernel's process limit counts this harness only)."""
    used = set()
    try:
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    used.add(os.stat("/proc/" + name).st_uid)
                except OSError:
                    pass
    except OSError:
        pass
    uid = UID_BASE + (os.getpid() * 64) % (1 << 20) + 1
    while uid in used:
        uid += 1
    return uid


_TAKEN: set[int] = set()
_LOCK = threading.Lock()


def plan(scratch: Path, env_dir: Path, python: Path, event_fd: int,
         hide_also: tuple[str, ...] = ()) -> dict | None:
    if disabled_reason() is not None:
        return None
    from verifier.cache import default_cache_dir, state_dir

    home = os.path.realpath(os.path.expanduser("~"))
    uid_env = os.getuid()
    hide = [home, "/tmp", "/var/tmp", "/dev/shm", f"/run/user/{uid_env}",
            os.path.realpath(tempfile.gettempdir()), os.path.realpath(default_cache_dir()),
            os.path.realpath(state_dir()), *(os.path.realpath(h) for h in hide_also)]
    keep = sorted({os.path.realpath(env_dir), *_prefix_of(python)})
    uid = None
    if os.geteuid() == 0:
        with _LOCK:                 # batches of several upstreams are planned side by side
            uid = _free_uid()
            while uid in _TAKEN:
                uid += 1
            _TAKEN.add(uid)
        # the checks run as another uid: a directory it cannot traverse above a kept one
        # (/root, mode 0700, above ~/.pyenv when HOME is elsewhere) is hidden too, and the
        # kept directory bound back onto the hiding tmpfs
        for k in keep:
            a = os.path.dirname(k)
            while a not in ("/", ""):
                try:
                    if not os.stat(a).st_mode & stat.S_IXOTH:
                        hide.append(a)
                except OSError:
                    pass
                a = os.path.dirname(a)
    return {"scratch": os.path.realpath(scratch), "keep": keep,
            "hide": [h for h in dict.fromkeys(hide) if h and h != "/"],
            "uid": uid, "parent": os.getpid(), "event_fd": event_fd}


def command(python: Path, plan_: dict, scratch: Path, harness: list[str]) -> list[str]:
    path = scratch / "sandbox.json"
    path.write_text(json.dumps(plan_), encoding="utf-8")
    return [str(python), "-I", str(JAIL), str(path), "--", *harness]


def release(plan_: dict | None) -> None:
    if plan_ and plan_.get("uid"):
        with _LOCK:
            _TAKEN.discard(plan_["uid"])


# what each protection stops, for the note
_WHAT = {"namespaces": "checks run in the verifier's PID, mount and network namespaces "
                       "(they could see and signal its processes and use the network)",
         "fresh /proc": "checks see every process's /proc",
         "read-only file system": "checks could write where the user can (the project, the "
                                  "cache, the environments later runs import)",
         "separate user": "checks run as root",
         "drop capabilities": "checks keep capabilities in their namespace",
         "sandbox": "no sandbox"}


def note(isolations: list[dict | None]) -> str | None:
    """One sentence when any batch missed a protection (None when every batch had all)."""
    missing: dict[str, str] = {}
    for iso in isolations:
        if iso is None:
            missing.setdefault("sandbox", "the harness reported nothing")
            continue
        for k, v in (iso.get("missing") or {}).items():
            missing.setdefault(k, v)
    if not missing:
        return None
    parts = []
    for k, v in sorted(missing.items()):
        head = k.split(" ", 1)[0] if k.startswith(("hide ", "bind ", "keep ")) else k
        parts.append(f"{k} ({v})" + (f": {_WHAT[head]}" if head in _WHAT else ""))
    return ("runtime isolation is incomplete on this machine: " + "; ".join(parts)
            + ". Runtime checks still run forked, with the harness's limits, an allow-listed "
              "environment and the verifier not dumpable; for untrusted pull requests use "
              "--runtime none")
