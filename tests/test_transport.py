"""Messages over real loopback sockets (asyncio, 127.0.0.1) and the stream examples."""

from __future__ import annotations

import asyncio
import itertools
import struct
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from minagent import wire
from minagent.bench import corpus
from minagent.wire.limits import Limits
from minagent.wire.stream import (
    FrameTooLargeError,
    LineTooLongError,
    TruncatedError,
    encode_frames,
    receive,
    receive_lines,
    send,
    send_lines,
)

ROOT = Path(__file__).resolve().parent.parent
Send = Callable[[asyncio.StreamWriter, Any], Awaitable[None]]
Receive = Callable[..., AsyncIterator[Any]]


def medium_corpus(n: int) -> list[wire.Message]:
    """``n`` messages cycling through the 300-message transcripts of every corpus family."""
    pool: list[wire.Message] = []
    for family in ("tool-heavy", "text-heavy", "multilingual", "rich"):
        pool += wire.json.decode(corpus.json_bytes(corpus.transcript(family, 300)))
    return list(itertools.islice(itertools.cycle(pool), n))


async def echo_round_trip(messages: list[Any], send_: Send, receive_: Receive) -> list[Any]:
    """Send ``messages`` to an echo server on 127.0.0.1 and collect what comes back."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        batch: list[Any] = []
        async for message in receive_(reader):
            batch.append(message)
            if len(batch) == 500:
                await send_(writer, batch)
                batch = []
        await send_(writer, batch)
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def produce() -> None:
        for start in range(0, len(messages), 1000):
            await send_(writer, messages[start : start + 1000])
        writer.write_eof()

    producer = asyncio.create_task(produce())
    echoed = [m async for m in receive_(reader)]
    await producer
    writer.close()
    server.close()
    await server.wait_closed()
    return echoed


@pytest.mark.parametrize(
    ("send_", "receive_"), [(send, receive), (send_lines, receive_lines)], ids=["frames", "lines"]
)
def test_ten_thousand_messages_echo(send_: Send, receive_: Receive) -> None:
    """10,000 corpus messages go to an echo server and all come back equal and in order."""
    messages = medium_corpus(10_000)
    echoed = asyncio.run(asyncio.wait_for(echo_round_trip(messages, send_, receive_), 120))
    assert len(echoed) == 10_000
    assert echoed == messages


def test_single_message_send() -> None:
    """send() takes one message as well as a list."""
    message = wire.Message(role="user", content="solo")

    async def one(writer: asyncio.StreamWriter, obj: Any) -> None:
        for m in obj:
            await send(writer, m)

    assert asyncio.run(echo_round_trip([message] * 3, one, receive)) == [message] * 3


async def _serve_bytes(
    payload: bytes, receive_: Receive = receive, got: list[Any] | None = None, **options: Any
) -> list[Any]:
    """A server writes ``payload`` raw and closes; the client reads it with ``receive_``,
    collecting into ``got`` (kept when an error ends the read)."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(payload)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    got = [] if got is None else got
    try:
        async for m in receive_(reader, **options):
            got.append(m)
        return got
    finally:
        writer.close()
        server.close()
        await server.wait_closed()


def test_socket_closed_mid_frame() -> None:
    """A peer that closes inside a frame gives TruncatedError with the missing byte count."""
    whole = wire.msgpack.encode(wire.Message(role="user", content="x" * 100))
    payload = struct.pack(">I", len(whole)) + whole[:40]
    with pytest.raises(TruncatedError) as info:
        asyncio.run(_serve_bytes(payload))
    assert (info.value.missing, info.value.frame, info.value.offset) == (len(whole) - 40, 0, 0)


def test_socket_frame_over_limit() -> None:
    """A frame header over max_frame is refused before its payload is read."""
    with pytest.raises(FrameTooLargeError) as info:
        asyncio.run(_serve_bytes(struct.pack(">I", 1 << 30), limits=Limits(max_frame=1 << 20)))
    assert (info.value.size, info.value.limit) == (1 << 30, 1 << 20)


@pytest.mark.parametrize("name", ["session_resume.py", "socket_echo.py"])
def test_examples_run(name: str) -> None:
    """The README's stream examples run and print what they promise."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    expected = "resumed with 3 messages" if name == "session_resume.py" else "equal: True"
    assert expected in out.stdout


def test_receive_lines_delivers_good_lines_then_names_the_bad_one() -> None:
    """Over a real socket, 100 good lines then a bad one: the 100 arrive, then line 101's error."""
    messages = medium_corpus(100)
    payload = wire.json.encode_lines(messages) + b'{"role": "robot"}\n' + b'{"role": "user"}\n'
    got: list[Any] = []
    with pytest.raises(wire.ValidationError) as info:
        asyncio.run(_serve_bytes(payload, receive_lines, got))
    assert (got, info.value.line, info.value.path) == (messages, 101, "$.role")


def test_receive_lines_takes_limits() -> None:
    """receive_lines(limits=) refuses a line over max_line, after the good line before it."""
    short = wire.Message(role="user", content="hi")
    payload = wire.json.encode_lines([short, wire.Message(role="user", content="x" * 5000)])
    got: list[Any] = []
    with pytest.raises(LineTooLongError) as info:
        asyncio.run(_serve_bytes(payload, receive_lines, got, limits=Limits(max_line=1000)))
    assert (got, info.value.line, info.value.offset, info.value.limit) == ([short], 2, 31, 1000)


def test_receive_frames_after_a_bad_frame() -> None:
    """Over a real socket, the frames before a bad one arrive, then its error with its index."""
    messages = medium_corpus(10)
    bad = struct.pack(">I", 3) + b"\x92\x01\x02"
    got: list[Any] = []
    with pytest.raises(wire.ValidationError) as info:
        asyncio.run(_serve_bytes(encode_frames(messages) + bad + encode_frames(messages), got=got))
    assert (got, info.value.frame) == (messages, 10)
