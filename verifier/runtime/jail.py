"""Start the harness where its checks cannot reach the verifier (standard library only).

    python -I jail.py PLAN.json -- PYTHON -I HARNESS CONFIG EVENT_FD 0

Run by the runner with the environment's own interpreter, before anything of a claim
exists. It builds what the machine allows, in this order, then executes the harness:

- a new PID namespace (the harness is its init: a check sees no process outside it,
  so it cannot signal or read the verifier - `/proc/<pid>/environ`, `/proc/<pid>/cwd`
  - and everything in it dies with the harness), a new mount namespace with a fresh
  /proc, and a new network namespace (loopback only: no network);
- in the mount namespace: the user's home, /tmp, /var/tmp, /dev/shm, the cache and the
  state directory are replaced by empty private file systems, the environment and the
  interpreter it is built on mounted back; then every mount is made read-only except the
  batch's scratch directory and the private /tmp and /dev/shm: a check cannot write into
  the project, the cache or the environment a later check imports;
- as root: the harness runs as a separate user id no other process has (it cannot
  touch root's files or processes; the kernel's process limit applies to it); as
  another user: in a new user namespace whose root has every capability dropped (and
  the no-new-privileges bit), so the mounts cannot be undone.

What was achieved is reported as the first event on EVENT_FD,
`{"event": "sandbox", "have": [...], "missing": {"what": "why"}}`; the verifier says once
per run what is missing. A step the machine refuses is skipped, never fatal: the
harness's own containment (nonce, forked checks, limits, allow-listed environment)
still applies.

PLAN.json: {"scratch": dir, "keep": [dirs mounted back read-only], "hide": [dirs],
            "uid": a separate uid (root only) or null, "parent": verifier pid,
            "event_fd": EVENT_FD}
"""

import ctypes
import json
import os
import signal
import sys

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MOUNT_ATTR_RDONLY, AT_RECURSIVE, AT_FDCWD = 0x1, 0x8000, -100
SYS_MOUNT_SETATTR = 442                      # x86_64 and aarch64 alike
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP = 1, 38, 24
PR_SET_SECUREBITS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 28, 47, 4
SECBITS_LOCKED_NOROOT = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x20   # noroot, no fixup, no keep
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1

libc = ctypes.CDLL(None, use_errno=True)


class MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _err(what):
    code = ctypes.get_errno()
    return "%s: %s" % (what, os.strerror(code) if code else "failed")


def _call(fn, *args, what=""):
    if fn(*args) != 0:
        raise OSError(ctypes.get_errno(), _err(what))


def _mount(src, target, fstype, flags, data=None, what=None):
    enc = lambda s: None if s is None else os.fsencode(s)  # noqa: E731
    _call(libc.mount, enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data),
          what=what or "mount %s" % target)


def _setattr(path, set_=0, clr=0, recursive=True):
    attr = MountAttr(set_, clr, 0, 0)
    r = libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, os.fsencode(path),
                     AT_RECURSIVE if recursive else 0, ctypes.byref(attr), ctypes.sizeof(attr))
    if r != 0:
        raise OSError(ctypes.get_errno(), _err("mount_setattr %s" % path))


def _all_read_only():
    """Every mount read-only: mount_setattr (Linux >= 5.12), else a remount of each."""
    try:
        _setattr("/", set_=MOUNT_ATTR_RDONLY)
        return
    except OSError:
        pass
    with open("/proc/self/mountinfo") as fh:
        points = [line.split()[4] for line in fh]
    for mp in sorted(set(points), key=len):
        try:
            _mount(None, mp, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
        except OSError:
            for extra in (MS_NOSUID, MS_NOSUID | MS_NODEV, MS_NOSUID | MS_NODEV | MS_NOEXEC):
                try:
                    _mount(None, mp, None, MS_REMOUNT | MS_BIND | MS_RDONLY | extra)
                    break
                except OSError:
                    continue


def _writable(path):
    try:
        _setattr(path, clr=MOUNT_ATTR_RDONLY, recursive=False)
    except OSError:
        _mount(None, path, None, MS_REMOUNT | MS_BIND)


def _write(path, text):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _loopback_up():
    import fcntl
    import socket
    import struct
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ifr = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, ifr))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))
    finally:
        s.close()


def _drop_capabilities():
    _call(libc.prctl, PR_SET_SECUREBITS, ctypes.c_ulong(SECBITS_LOCKED_NOROOT), 0, 0, 0,
          what="securebits")
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) == 0:
        cap += 1
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    _call(libc.capset, ctypes.byref(header), ctypes.byref(data), what="capset")


def _chown_tree(root, uid):
    for dirpath, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            try:
                os.lchown(os.path.join(dirpath, name), uid, uid)
            except OSError:
                pass
    os.lchown(root, uid, uid)


def _hide_and_keep(plan, have, missing):
    """tmpfs over the hidden directories, the kept ones bound back (read-only later),
    the scratch directory bound onto itself (writable later)."""
    keep = [p for p in plan.get("keep", []) if os.path.isdir(p)]
    scratch = plan["scratch"]
    fds = {}
    for p in [*keep, scratch]:
        try:
            fds[p] = os.open(p, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            missing["keep %s" % p] = str(exc)
    hidden = []
    for p in sorted(set(plan.get("hide", [])), key=len):
        if p in ("", "/") or not os.path.isdir(p) or os.path.islink(p):
            continue
        if any(p == h or p.startswith(h.rstrip("/") + "/") for h in hidden):
            continue                            # already under a hidden one
        try:
            _mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV,
                   "mode=1777,size=64m" if p in ("/tmp", "/var/tmp", "/dev/shm") else "mode=0755,size=1m")
            hidden.append(p)
        except OSError as exc:
            missing["hide %s" % p] = str(exc)
    for p, fd in fds.items():
        try:
            os.makedirs(p, exist_ok=True)
            _mount("/proc/self/fd/%d" % fd, p, None, MS_BIND | MS_REC)
        except OSError as exc:
            missing["bind %s" % p] = str(exc)
        finally:
            os.close(fd)
    if hidden:
        have.append("hidden: " + ", ".join(hidden))
    return hidden


def _inside(plan, report, have, missing, as_root):
    """In the new namespaces, as their init: mounts, then who the harness runs as."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE, what="make mounts private")
    try:
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        have.append("pid")
    except OSError as exc:
        missing["fresh /proc"] = str(exc)
    hidden = _hide_and_keep(plan, have, missing)
    try:
        _all_read_only()
        for p in [plan["scratch"], *[h for h in ("/tmp", "/dev/shm") if h in hidden]]:
            _writable(p)
        try:
            _setattr("/dev", clr=MOUNT_ATTR_RDONLY, recursive=True)
        except OSError:
            pass
        have.append("read-only")
    except OSError as exc:
        missing["read-only file system"] = str(exc)
    try:
        _loopback_up()
    except OSError:
        pass
    uid = plan.get("uid")
    if as_root and uid:
        try:
            _chown_tree(plan["scratch"], uid)
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            have.append("user %d" % uid)
        except OSError as exc:
            missing["separate user"] = str(exc)
    elif not as_root:
        try:
            _drop_capabilities()
            have.append("no capabilities")
        except OSError as exc:
            missing["drop capabilities"] = str(exc)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    report(have, missing)


def _wait(pid):
    """Wait for `pid` with SIGTERM/SIGINT/SIGHUP passed on to it; its wait status."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, f: os.kill(pid, s))
    while True:
        try:
            return os.waitpid(pid, 0)[1]
        except InterruptedError:
            continue
        except ChildProcessError:
            return 1 << 8


def _exit_as(status):
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _separate_user(plan, have, missing):
    """As root without namespaces: the harness runs as a separate uid all the same."""
    try:
        _chown_tree(plan["scratch"], plan["uid"])
        os.setgroups([])
        os.setgid(plan["uid"])
        os.setuid(plan["uid"])
        have.append("user %d" % plan["uid"])
    except OSError as exc:
        missing["separate user"] = str(exc)


def _confine(plan, cmd, report):
    """The launcher's child: unshare, then fork the harness's process as the init of
    the new PID namespace (or exec it as it is when the machine refuses)."""
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    have, missing = [], {}
    as_root = os.geteuid() == 0
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | (0 if as_root else CLONE_NEWUSER)
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(flags) != 0:
        missing["namespaces"] = _err("unshare")
        if as_root and plan.get("uid"):
            _separate_user(plan, have, missing)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        report(have, missing)
        os.execv(cmd[0], cmd)
    have.extend(["mount", "net"])
    if not as_root:
        try:
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", "0 %d 1" % uid)
            _write("/proc/self/gid_map", "0 %d 1" % gid)
            have.append("user namespace")
        except OSError as exc:
            missing["user namespace"] = str(exc)
    pid = os.fork()
    if pid == 0:
        try:
            _inside(plan, report, have, missing, as_root)
        except BaseException as exc:  # noqa: BLE001 - reported, the harness still starts
            missing["setup"] = "%s: %s" % (type(exc).__name__, exc)
            report(have, missing)
        try:
            os.execv(cmd[0], cmd)
        finally:
            os._exit(127)
    _exit_as(_wait(pid))


def main(argv):
    """The launcher stays in the verifier's namespaces: when the verifier dies it removes
    the batch's scratch directory, which only it can still see as it is."""
    sep = argv.index("--")
    with open(argv[1], encoding="utf-8") as fh:
        plan = json.load(fh)
    cmd = argv[sep + 1:]
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)   # the verifier died: end the batch
    if plan.get("parent") and os.getppid() != plan["parent"]:
        return 0                                # the verifier is gone already
    fd = int(plan["event_fd"])

    def report(have, missing):
        line = json.dumps({"event": "sandbox", "have": have, "missing": missing}) + "\n"
        try:
            os.write(fd, line.encode())
        except OSError:
            pass

    pid = os.fork()
    if pid == 0:
        try:
            _confine(plan, cmd, report)
        finally:
            os._exit(127)
    os.close(fd)
    status = _wait(pid)
    if plan.get("parent") and os.getppid() != plan["parent"]:
        import shutil                       # the verifier died: nobody else removes it
        shutil.rmtree(plan["scratch"], ignore_errors=True)
    _exit_as(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
