"""What the verifier does around a batch of runtime checks (see runner.py).

- `scrubbed_env`: the harness gets an allow-listed environment, never the
  verifier's own: no tokens, keys or credentials of the CI job reach a snippet.
- `Sanitizer`: every text that leaves a batch (stdout, stderr, messages,
  values) has token-like strings and the values of the verifier's own secret
  variables replaced by `[redacted]`, and the machine's absolute paths (scratch,
  environment, cache, project, home) replaced by stable placeholders, so that
  records are reproducible and publish nothing of the machine.
- `kill_marked`: after a batch, any process still carrying the batch's marker
  variable is killed (a backstop to the harness's subreaper).
- `protect_self`: before the first batch the verifier makes itself non-dumpable, so no
  process of the same user (a check where the sandbox is not available) can read its
  `/proc/<pid>/environ`, `cwd`, `fd` or memory.
- `value_problem` / `bounded_text` / `kept_value`: what a batch returns is bounded -
  a value nested deeper than `MAX_DEPTH` or larger than `MAX_VALUE` bytes of JSON is
  refused, messages and output are cut to `MAX_MESSAGE` / `MAX_OUTPUT` characters, and
  a record keeps at most `MAX_KEPT` bytes of a value (the comparison sees all of it).
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

# Variables passed to the harness as they are (when set); everything else is dropped.
PASS = ("PATH", "LANG", "LANGUAGE", "TZ", "MUJOCO_GL", "PYOPENGL_PLATFORM",
        "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "NVIDIA_VISIBLE_DEVICES",
        "NVIDIA_DRIVER_CAPABILITIES", "LD_LIBRARY_PATH")
PASS_PREFIX = ("LC_",)
EXTRA_VAR = "VERIFIER_RUNTIME_PASS_ENV"     # comma-separated names the user adds on purpose
MARKER_VAR = "VERIFIER_RT_RUN"

REDACTED = "[redacted]"
MAX_DEPTH = 64                # levels of a returned value (the harness refuses > 50)
MAX_VALUE = 16 << 20          # bytes of a returned value's JSON (the harness's own limit)
MAX_KEPT = 64 << 10           # bytes of a value kept in a record
MAX_MESSAGE = 4000            # characters of a check's message
MAX_OUTPUT = 24000            # characters of a check's stdout / stderr (harness keeps 20,000)
_PROTECTED = []
_SECRET_NAME = r"[A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|API_?KEY|_KEY)"
_PATTERNS = [
    # GitHub tokens: classic, OAuth, user-to-server, server-to-server, refresh; fine-grained
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{16,}"),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    # AWS access key ids
    re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b"),
    # Slack, Google API keys, JWTs, PEM private keys
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
               re.S),
]
# NAME=value / NAME: value / "NAME": "value" where NAME looks like a secret's name
_ASSIGN = re.compile(r"""(?P<name>["']?\b""" + _SECRET_NAME + r"""\b["']?\s*[:=]\s*)"""
                     r"""(?P<q>["']?)(?P<value>[^\s"',;}]+)""", re.I)
_BEARER = re.compile(r"(?P<name>\b(?:Bearer|Basic|token)\s+)(?P<value>[A-Za-z0-9\-._~+/]{12,}=*)",
                     re.I)
_SECRET_VAR = re.compile(r"(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|KEY|AUTH)", re.I)


def scrubbed_env(scratch: Path, env_dir: Path, marker: str,
                 base: dict[str, str] | None = None) -> dict[str, str]:
    """The harness's whole environment: an allow-list, HOME/TMPDIR in `scratch`."""
    src = dict(os.environ if base is None else base)
    extra = {n.strip() for n in src.get(EXTRA_VAR, "").split(",") if n.strip()}
    env = {k: v for k, v in src.items()
           if k in PASS or k in extra or k.startswith(PASS_PREFIX)}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    env.update({
        "HOME": str(scratch / "home"),
        "TMPDIR": str(scratch / "tmp"),
        "XDG_CACHE_HOME": str(scratch / "home" / ".cache"),
        "XDG_CONFIG_HOME": str(scratch / "home" / ".config"),
        "PYTHONNOUSERSITE": "1",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "WARP_CACHE_PATH": str(scratch / "warp-cache"),
        "VIRTUAL_ENV": str(env_dir),
        MARKER_VAR: marker,
    })
    return env


class Sanitizer:
    """Redacts secrets and normalises machine paths in everything a batch returns."""

    def __init__(self, paths: dict[str, str] | None = None, *,
                 environ: dict[str, str] | None = None, scratch: Path | None = None) -> None:
        env = os.environ if environ is None else environ
        # the literal values of the verifier's own secret-looking variables
        self.literals = sorted({v for k, v in env.items()
                                if _SECRET_VAR.search(k) and len(v) >= 8}, key=len, reverse=True)
        subs: list[tuple[re.Pattern[str], str]] = []
        if scratch is not None:
            s = re.escape(str(scratch))
            subs.append((re.compile(s + r"/checks/c\d+-[A-Za-z0-9_]+"), "<scratch>"))
        items = sorted(((str(k), v) for k, v in (paths or {}).items() if str(k) not in ("", "/")),
                       key=lambda kv: -len(kv[0]))
        if scratch is not None:
            items = sorted(items + [(str(scratch), "<scratch>")], key=lambda kv: -len(kv[0]))
        for path, label in items:
            subs.append((re.compile(re.escape(path) + r"(?![A-Za-z0-9_.-])"), label))
        self.subs = subs

    def text(self, s: str | None) -> str | None:
        if not s:
            return s
        for lit in self.literals:
            if lit in s:
                s = s.replace(lit, REDACTED)
        for pat in _PATTERNS:
            s = pat.sub(REDACTED, s)
        s = _ASSIGN.sub(lambda m: m.group("name") + m.group("q") + REDACTED, s)
        s = _BEARER.sub(lambda m: m.group("name") + REDACTED, s)
        for pat, label in self.subs:
            s = pat.sub(label, s)
        return s

    def value(self, v: Any) -> Any:
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(x) for k, x in v.items()}
        return v


def kill_marked(marker: str) -> int:
    """SIGKILL every process of this user whose environment carries the marker."""
    needle = f"{MARKER_VAR}={marker}".encode()
    me = os.getpid()
    killed = 0
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if needle in data.split(b"\0"):
            try:
                os.kill(int(name), signal.SIGKILL)
                killed += 1
            except OSError:
                pass
    return killed


def protect_self() -> None:
    """Make this process non-dumpable (once): its /proc/<pid>/environ, cwd, fd, mem and
    ptrace are then closed to every other process of the same user without
    CAP_SYS_PTRACE - a check run where the sandbox is not available included."""
    if _PROTECTED:
        return
    _PROTECTED.append(True)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, ctypes.c_ulong(0), 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        pass


def bounded_text(s: Any, limit: int) -> str | None:
    """`s` as text of at most `limit` characters (head and tail, the cut said)."""
    if s is None:
        return None
    if not isinstance(s, str):
        s = str(s)
    if len(s) <= limit:
        return s
    half = limit // 2
    return f"{s[:half]}\n[... {len(s):,} characters in all; middle left out ...]\n{s[-half:]}"


def value_problem(v: Any) -> str | None:
    """Why a returned value is refused (nested too deeply, too large), or None."""
    stack = [(v, 0)]
    size = 0
    while stack:
        x, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"the result is nested more than {MAX_DEPTH} levels deep"
        if isinstance(x, dict):
            stack.extend((y, depth + 1) for y in x.values())
            size += sum(len(str(k)) + 4 for k in x)
        elif isinstance(x, list):
            stack.extend((y, depth + 1) for y in x)
            size += 2 + len(x)
        elif isinstance(x, str):
            size += len(x) + 2
        else:
            size += 24
        if size > MAX_VALUE:
            return f"the result is larger than {MAX_VALUE >> 20} MiB"
    return None


def kept_value(v: Any) -> Any:
    """What a record keeps of a returned value: all of it up to `MAX_KEPT` bytes of JSON,
    else a string saying how large it was with its first characters."""
    try:
        text = json.dumps(v, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return "[a value that cannot be shown]"
    if len(text) <= MAX_KEPT:
        return v
    return f"[a value of {len(text):,} bytes as JSON, not kept in the record; it begins: {text[:400]}]"
