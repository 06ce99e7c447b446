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
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

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
        """Stop accepting and close every connection."""
        self._closed = True
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                _close(sock)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self._upstream)
            with self._lock:
                self._sockets += [client, server]
            drop = threading.Event()
            threading.Thread(
                target=self._requests, args=(client, server, drop), daemon=True
            ).start()
            threading.Thread(target=self._replies, args=(server, client, drop), daemon=True).start()

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
