"""What a runtime environment held when it was built, and whether it still does.

A runtime check runs claim-file code, and later checks import the same environment: a
snippet that appends code to `mujoco/__init__.py` (or drops a `.pth` file into
site-packages) would change what every later run's checks compute. So when an
environment is built, `record` writes `.verifier-env-digest.json` beside its marker:
every file and link below it (the kept Warp kernel cache aside) with its size, times,
inode and mode, and the SHA-256 of its bytes. Before every batch (and in `env list`)
`check` compares the files' stat with the record (5,000-9,000 lstat calls: 0.1-0.3 s per
environment here); where
they differ (a restored CI cache gives every file a new ctime) the bytes are hashed and
compared, and an environment whose bytes changed, or which gained or lost a file, is
`tampered`: it is rebuilt, never used. `env list --check` hashes everything (`full`).

Where the runtime sandbox is available (`jail.py`) the environment is mounted read-only
for the checks anyway; this digest is what protects it where it is not, and what notices
a change made by anything else.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

DIGEST = ".verifier-env-digest.json"
SCHEMA = 1
# not part of an environment's identity: the verifier's own marker and digest, and the
# Warp kernel cache the verifier adds to after batches (runner.py)
SKIP = {".verifier-env.json", DIGEST, ".warp-cache"}


def _walk(env: Path) -> dict[str, list]:
    """rel path -> [kind, size, mtime_ns, ctime_ns, inode, mode, link target] (directories
    are walked, not listed: a file added or removed shows as a path of its own)."""
    out: dict[str, list] = {}
    stack = [(os.fspath(env), "")]
    lnk, reg = stat.S_ISLNK, stat.S_ISREG
    while stack:
        base, prefix = stack.pop()
        try:
            it = os.scandir(base)
        except OSError:
            continue
        with it:
            for e in it:
                if not prefix and e.name in SKIP:
                    continue
                if e.is_dir(follow_symlinks=False):
                    stack.append((e.path, prefix + e.name + "/"))
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                m = st.st_mode
                link = os.readlink(e.path) if lnk(m) else None
                out[prefix + e.name] = ["l" if link is not None else "f" if reg(m) else "o",
                                        st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                                        m & 0o7777, link]
    return out


def _sha(path: Path) -> str | None:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def _identity(env: Path, rel: str, entry: list) -> str | None:
    """What a file's content is: its bytes' SHA-256, a link's target, else its kind."""
    if entry[0] == "f":
        return _sha(env / rel)
    return f"{entry[0]}:{entry[6]}"


def record(env: Path) -> dict:
    """Write the digest of `env` as it is now (right after a build); returns it."""
    files = _walk(env)
    body = {"schema": SCHEMA, "stat": files,
            "content": {rel: _identity(env, rel, e) for rel, e in sorted(files.items())}}
    _store(env, body)
    return body


def _store(env: Path, body: dict) -> None:
    from verifier.safewrite import Area

    Area.edit(env, "the runtime environment").write(
        env / DIGEST, json.dumps(body, sort_keys=True, separators=(",", ":")))


def _load(env: Path) -> dict | None:
    import orjson

    try:
        body = orjson.loads((env / DIGEST).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or body.get("schema") != SCHEMA \
            or not isinstance(body.get("stat"), dict) or not isinstance(body.get("content"), dict):
        return None
    return body


_CONFIRMED: set[str] = set()      # environments this process found as built


def check(env: Path, *, full: bool = False, reuse: bool = False) -> list[str]:
    """Problems of `env` against its digest ([] when it is as built). `full`: hash every
    file, not only those whose stat changed; `reuse`: an environment this process already
    found as built is not walked again (the check right before a batch never reuses)."""
    key = os.fspath(env)
    if reuse and not full and key in _CONFIRMED:
        return []
    _CONFIRMED.discard(key)
    problems = _check(env, full)
    if not problems:
        _CONFIRMED.add(key)
    return problems


def _check(env: Path, full: bool) -> list[str]:
    body = _load(env)
    if body is None:
        return [f"{DIGEST} is missing or unreadable (the environment's contents cannot be "
                "confirmed)"]
    recorded, content = body["stat"], body["content"]
    now = _walk(env)
    problems: list[str] = []
    added = sorted(set(now) - set(recorded))
    removed = sorted(set(recorded) - set(now))
    if added:
        problems.append(_some("added", added))
    if removed:
        problems.append(_some("removed", removed))
    suspects = sorted(r for r, e in now.items() if r in recorded and (full or e != recorded[r]))
    changed = [r for r in suspects if _identity(env, r, now[r]) != content.get(r)]
    if changed:
        problems.append(_some("changed", changed))
    if not problems and suspects and not full:
        # same bytes, new stat (a restored or copied cache): remember the new stat
        body["stat"] = {**recorded, **{r: now[r] for r in suspects}}
        try:
            _store(env, body)
        except Exception:  # noqa: BLE001 - only the next check's speed
            pass
    return problems


def _some(what: str, rels: list[str]) -> str:
    shown = ", ".join(rels[:3]) + (f" and {len(rels) - 3} more" if len(rels) > 3 else "")
    return f"{len(rels)} file(s) {what} since it was built ({shown})"
