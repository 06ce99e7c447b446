"""Messages over loopback, and reading a big JSON Lines log: pytest-benchmark groups.

``loopback <family>``: a client on 127.0.0.1 sends N messages to an asyncio server that decodes
every one and answers with the count; one round is the whole transfer. Three implementations:
``frames`` (minagent framed MessagePack: `send` / `receive`), ``lines`` (minagent JSON Lines:
`send_lines` / `receive_lines`) and ``reference`` (the dataclass reference: ``json.dumps`` of
``to_wire()`` per line; the server splits lines and runs ``json.loads`` + ``from_wire``). Rate:
N / round time.

``jsonl-read <family>``: the same 15,000-message log read three ways: streamed in cache-sized
batches that are dropped as they go (`iter_line_batches`), decoded whole in memory
(`decode_lines`), and, for scale, a 300-message slice decoded in memory (timed per message).

Under ``--benchmark-disable`` (the test session) every case runs once with few messages.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from minagent import types as ref
from minagent import wire
from minagent.bench.corpus import json_bytes, transcript
from minagent.wire.stream import (
    iter_line_batches,
    receive,
    receive_lines,
    send,
    send_lines,
)

FAMILIES = ("tool-heavy", "text-heavy", "multilingual")
TIMED_MESSAGES = 10_000
QUICK_MESSAGES = 300


def _disabled(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("benchmark_disable", False))


# --- the reference: json.dumps lines ------------------------------------------------------------


async def _ref_send(writer: asyncio.StreamWriter, batch: list[ref.Message]) -> None:
    lines = "".join(json.dumps(m.to_wire(), ensure_ascii=False) + "\n" for m in batch)
    writer.write(lines.encode("utf-8"))
    await writer.drain()


async def _ref_receive(reader: asyncio.StreamReader) -> AsyncIterator[ref.Message]:
    rest = b""
    while True:
        data = await reader.read(65536)
        if not data:
            break
        *lines, rest = (rest + data).split(b"\n")
        for line in lines:
            yield ref.Message.from_wire(json.loads(line))


Sender = Callable[[asyncio.StreamWriter, list[Any]], Awaitable[None]]
Receiver = Callable[[asyncio.StreamReader], AsyncIterator[Any]]

IMPLEMENTATIONS: dict[str, tuple[Sender, Receiver, bool]] = {
    "frames": (send, receive, False),
    "lines": (send_lines, receive_lines, False),
    "reference": (_ref_send, _ref_receive, True),
}


class Loopback:
    """An asyncio server on 127.0.0.1 that decodes everything it receives and acks the count."""

    def __init__(self, receive_: Receiver) -> None:
        self.loop = asyncio.new_event_loop()
        self.receive = receive_
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0)
        )
        self.port = self.server.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        count = 0
        async for _ in self.receive(reader):
            count += 1
        writer.write(str(count).encode())
        await writer.drain()
        writer.close()

    async def _transfer(self, send_: Sender, messages: list[Any]) -> int:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        for start in range(0, len(messages), 1000):
            await send_(writer, messages[start : start + 1000])
        writer.write_eof()
        count = int(await reader.read())
        writer.close()
        return count

    def transfer(self, send_: Sender, messages: list[Any]) -> int:
        """Send every message; return how many the server decoded."""
        return self.loop.run_until_complete(self._transfer(send_, messages))

    def close(self) -> None:
        """Stop the server and the loop."""
        self.server.close()
        self.loop.run_until_complete(self.server.wait_closed())
        self.loop.close()


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("impl", list(IMPLEMENTATIONS))
def test_loopback(benchmark: Any, request: pytest.FixtureRequest, impl: str, family: str) -> None:
    """Messages per second through a loopback socket, decoded on arrival."""
    n = QUICK_MESSAGES if _disabled(request) else TIMED_MESSAGES
    t = transcript(family, 300)
    send_, receive_, reference = IMPLEMENTATIONS[impl]
    pool: list[Any] = t.reference if reference else wire.json.decode(json_bytes(t))  # type: ignore[assignment]
    messages = list(itertools.islice(itertools.cycle(pool), n))
    benchmark.group = f"loopback {family} x{n}"
    benchmark.extra_info["messages"] = n
    loopback = Loopback(receive_)
    try:
        count = benchmark.pedantic(loopback.transfer, (send_, messages), rounds=5, iterations=1)
    finally:
        loopback.close()
    assert count == n


# --- streaming a big JSON Lines log -------------------------------------------------------------


def _stream(data: bytes) -> int:
    count = 0
    for batch in iter_line_batches(io.BytesIO(data)):
        count += len(batch)
    return count


@pytest.mark.parametrize("family", ("tool-heavy", "text-heavy", "rich"))
@pytest.mark.parametrize("how", ["stream", "memory", "memory-300"])
def test_jsonl_read(benchmark: Any, request: pytest.FixtureRequest, how: str, family: str) -> None:
    """Reading a 15,000-message JSON Lines log: streamed batches against in-memory decodes."""
    n = QUICK_MESSAGES if _disabled(request) else 15_000
    messages = wire.json.decode(json_bytes(transcript(family, n)))
    data = wire.json.encode_lines(messages)
    benchmark.group = f"jsonl-read {family} x{n}"
    if how == "stream":
        count = benchmark(_stream, data)
    elif how == "memory":
        count = len(benchmark(wire.json.decode_lines, data))
    else:  # 300 messages at a time, each result dropped: the in-cache figure, scaled to n
        small = wire.json.encode_lines(messages[:300])
        repeat = n // 300
        count = benchmark(lambda: sum(len(wire.json.decode_lines(small)) for _ in range(repeat)))
    benchmark.extra_info["messages"] = n
    assert count == n
