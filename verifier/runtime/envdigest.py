"""What a runtime environment held when it was built, and whether it still does.

A runtime check runs claim-file code, and later checks import the same environment: a
snippet that appends code to `mujoco/__init__.py` (or drops a `.pth` file into
site-packages) would change what every later run's checks compute. So when an
environment is built, `record` writes `.verifier-env-digest.json` beside its marker:
every file and link below it (the kept Warp kernel cache aside) with its size, times,
inode and mode, and the SHA-256 of its bytes. Before every batch (and in `env list`)
`check` compares the files' stat with the record (~20k lstat calls: tens of ms); where
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
    """rel path -> [kind, size, mtime_ns, ctime_ns, inode, mode, link target]."""
    out: dict[str, list] = {}
    stack = [(env, "")]
    while stack:
        base, prefix = stack.pop()
        try:
            entries = list(os.scandir(base))
        except OSError:
            continue
        for e in entries:
            rel = prefix + e.name
            if not prefix and e.name in SKIP:
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                stack.append((Path(e.path), rel + "/"))
                continue
            link = os.readlink(e.path) if stat.S_ISLNK(st.st_mode) else None
            kind = "l" if link is not None else "f" if stat.S_ISREG(st.st_mode) else "o"
            out[rel] = [kind, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                        stat.S_IMODE(st.st_mode), link]
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
    try:
        body = json.loads((env / DIGEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(body, dict) or body.get("schema") != SCHEMA \
            or not isinstance(body.get("stat"), dict) or not isinstance(body.get("content"), dict):
        return None
    return body


def check(env: Path, *, full: bool = False) -> list[str]:
    """Problems of `env` against its digest ([] when it is as built). `full`: hash every
    file, not only those whose stat changed."""
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
    suspects = sorted(r for r in set(now) & set(recorded)
                      if full or now[r][:6] != list(recorded[r])[:6] or now[r][6] != recorded[r][6])
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
