"""A real ``redis-server`` for tests and benchmarks: 127.0.0.1, a free port, its own directory.

The append-only file is on with ``appendfsync always`` (every write is on disk before the reply)
and RDB snapshots are off, so a server killed with SIGKILL and started again in the same
directory holds exactly what it acknowledged.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import redis

__all__ = ["RedisServer"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """One redis-server process; `start`, `kill` (SIGKILL), `restart`, `stop`."""

    def __init__(self, directory: Path, *, fsync: str = "always") -> None:
        """``fsync``: the ``appendfsync`` policy (``always`` for the tests; benchmarks may use
        ``everysec``, Redis's default)."""
        exe = shutil.which("redis-server")
        if exe is None:
            raise RuntimeError(
                "redis-server is not installed: `apt-get install -y redis-server` "
                "(the nox tests session does this)"
            )
        self.exe = exe
        self.directory = directory
        self.fsync = fsync
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server and wait until it answers PING (raise with its log if it dies)."""
        log = self.directory / "redis.log"
        self.proc = subprocess.Popen(
            [
                *(self.exe, "--bind", "127.0.0.1", "--port", str(self.port)),
                *("--dir", str(self.directory), "--logfile", str(log), "--save", ""),
                *("--appendonly", "yes", "--appendfsync", self.fsync, "--daemonize", "no"),
            ],
            stdin=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=1)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                break
            except (redis.ConnectionError, redis.BusyLoadingError):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    text = log.read_text(errors="replace") if log.exists() else ""
                    raise RuntimeError(f"redis-server did not start:\n{text[-2000:]}") from None
                time.sleep(0.01)
        client.close()

    def kill(self) -> None:
        """SIGKILL the server: no shutdown, nothing flushed beyond what it already wrote."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            self.proc = None

    def restart(self) -> None:
        """Kill the server and start it again on the same port and directory."""
        self.kill()
        self.start()

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 10 s)."""
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
            self.proc = None
