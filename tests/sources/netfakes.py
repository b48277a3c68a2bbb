"""Local misbehaving servers for acquisition tests (never the network).

    with BlackHole() as bh:      # accepts connections, never answers
        url = bh.url + "/x/demo"
    with Trickle() as tr:        # answers 200 and trickles an endless body
        ...
    bh.connections               # how many clients connected
"""

from __future__ import annotations

import socket
import threading
import time


class _Server:
    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._clients: list[socket.socket] = []
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            self._clients.append(conn)
            t = threading.Thread(target=self.serve, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def serve(self, conn: socket.socket) -> None:  # pragma: no cover - overridden
        pass

    def __enter__(self):
        t = threading.Thread(target=self._accept_loop, daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for c in self._clients:
            try:
                c.close()
            except OSError:
                pass
        self.sock.close()
        for t in self._threads:
            t.join(timeout=2)


class BlackHole(_Server):
    """Accepts, reads the request, never answers."""

    def serve(self, conn: socket.socket) -> None:
        conn.settimeout(0.2)
        while not self._stop.is_set():
            try:
                if not conn.recv(4096):
                    return
            except TimeoutError:
                continue
            except OSError:
                return


class Trickle(_Server):
    """Answers `200 OK` with a chunked body that never ends (a few KB/s: faster than
    git's low-speed limit, so only a real deadline stops the client)."""

    def serve(self, conn: socket.socket) -> None:
        conn.settimeout(0.5)
        try:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-"
                         b"advertisement\r\nTransfer-Encoding: chunked\r\n\r\n")
            while not self._stop.is_set():
                conn.sendall(b"800\r\n" + b"a" * 0x800 + b"\r\n")
                time.sleep(0.25)
        except OSError:
            return
