"""A real TCP proxy on 127.0.0.1 in front of a redis-server that can lose replies on the way.

Every connection a client opens to the proxy gets its own connection to the server; bytes go
through unchanged both ways. `LossyProxy.drop_reply` arms it: the next request (one socket
read from the client) holding every given byte string is forwarded, the server runs it, and
its reply is swallowed: the proxy closes both sockets when the reply's first bytes arrive, as
a network that fails after the server answered. The client sees a closed connection
(redis-py: ``ConnectionError``), and its retry, if any, goes through the proxy again.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable

__all__ = ["LossyProxy"]


class LossyProxy:
    """A loopback proxy to ``127.0.0.1:upstream_port``; ``url`` is the address to give clients."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream = ("127.0.0.1", upstream_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._lock = threading.Lock()
        self._armed: list[tuple[bytes, ...]] = []
        self.dropped: list[bytes] = []
        """The requests whose replies were swallowed, in order."""
        self.requests: list[bytes] = []
        """Every request forwarded (one socket read each), in order."""
        self._sockets: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._start(self._accept)

    def drop_reply(self, *needles: bytes) -> None:
        """Swallow the reply to the next request holding every one of ``needles`` (RESP bytes,
        such as ``b"XREADGROUP"`` and ``b"\\r\\n>\\r\\n"``). Call again to drop more."""
        with self._lock:
            self._armed.append(needles)

    @property
    def armed(self) -> int:
        """How many armed drops have not happened yet."""
        with self._lock:
            return len(self._armed)

    def close(self) -> None:
        """Stop accepting, close every connection and wait for the proxy's threads to end
        (none is left running: a later fork() in the same process stays safe)."""
        self._closed = True
        _close(self._listener)  # shutdown wakes the thread blocked in accept()
        with self._lock:
            for sock in self._sockets:
                _close(sock)
        for thread in self._threads:
            thread.join(10)

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self._upstream)
            except OSError:  # the server is down: the client sees its connection closed
                _close(client)
                continue
            with self._lock:
                self._sockets += [client, server]
            drop = threading.Event()
            self._start(self._requests, client, server, drop)
            self._start(self._replies, server, client, drop)

    def _requests(
        self, client: socket.socket, server: socket.socket, drop: threading.Event
    ) -> None:
        def arm(data: bytes) -> None:
            with self._lock:
                self.requests.append(data)
                for i, needles in enumerate(self._armed):
                    if all(needle in data for needle in needles):
                        del self._armed[i]
                        self.dropped.append(data)
                        drop.set()  # before the server can answer
                        return

        _pump(client, server, arm, lambda: False)

    def _replies(self, server: socket.socket, client: socket.socket, drop: threading.Event) -> None:
        _pump(server, client, lambda data: None, drop.is_set)
        _close(client)
        _close(server)


def _pump(
    src: socket.socket, dst: socket.socket, seen: Callable[[bytes], None], lose: Callable[[], bool]
) -> None:
    """Copy ``src`` to ``dst`` until either closes; stop (without sending) once ``lose()``."""
    while True:
        try:
            data = src.recv(1 << 16)
        except OSError:
            break
        if not data:
            break
        seen(data)
        if lose():
            break
        try:
            dst.sendall(data)
        except OSError:
            break
    _close(src)
    _close(dst)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
