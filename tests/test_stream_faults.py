"""Faults on the stream paths: failed writes and fsyncs in the session log, errors of
``receive_lines`` over a real socket, ``receive`` cancelled mid-stream."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import stat
import struct
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from minagent import wire
from minagent.wire.stream import (
    LineTooLongError,
    SessionLog,
    StreamIOError,
    TruncatedError,
    encode_frames,
    receive,
    receive_lines,
)

M1 = wire.Message("user", "first")
M2 = wire.Message("assistant", "second")


def _device(tmp_path: Path, name: str, minor: int) -> str:
    """A private node of the memory device ``1:minor`` (3 null, 7 full), so that the session
    log's lock is not shared with anyone else using /dev/null; /dev/<name> if mknod is refused."""
    node = tmp_path / name
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except (PermissionError, AttributeError):
        return f"/dev/{name}"
    return str(node)


# --- the session log: fsync and failing writes ------------------------------------------------


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count os.fsync calls (the one spy the suite allows: fsync has no observable effect)."""
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return calls


def test_durable_log_fsyncs_directory_each_append_and_repair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """durable=True: one fsync of the directory on create, one per append, one per repair."""
    calls = _count_fsyncs(monkeypatch)
    path = tmp_path / "s.jsonl"
    with SessionLog(path, durable=True) as log:
        assert len(calls) == 1  # the new file's directory entry
        log.append(M1)
        log.append([M1, M2])
        assert len(calls) == 3
    with path.open("ab") as f:
        f.write(b'{"role":"us')
    with SessionLog(path, durable=True) as log:  # exists: no directory fsync
        assert len(calls) == 3
        assert log.repair() is not None
        assert len(calls) == 4
        log.append(M2)
        assert len(calls) == 5
        assert log.read() == [M1, M1, M2, M2]


def test_log_without_durable_never_fsyncs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """durable=False (the default): no fsync at all, on create, append or repair."""
    calls = _count_fsyncs(monkeypatch)
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append([M1, M2])
    with path.open("ab") as f:
        f.write(b"{")
    with SessionLog(path) as log:
        log.repair()
        log.append(M1)
    assert calls == []


def test_failed_write_is_a_stream_io_error(tmp_path: Path) -> None:
    """A write the device refuses (ENOSPC on a full device) raises StreamIOError with the
    errno, the offset and the OSError as cause; the log stays usable and says the same again."""
    with SessionLog(_device(tmp_path, "full", 7)) as log:
        for _ in range(2):
            with pytest.raises(StreamIOError) as info:
                log.append(M1)
            err = info.value
            assert str(err) == "cannot append to the session log at byte offset 0: " + os.strerror(
                errno.ENOSPC
            )
            assert (err.errno, err.strerror, err.offset) == (
                errno.ENOSPC,
                os.strerror(errno.ENOSPC),
                0,
            )
            assert type(err.__cause__) is OSError and err.__cause__.errno == errno.ENOSPC
            assert isinstance(err, OSError) and isinstance(err, wire.WireError)
            assert log.tail is None


def test_failed_fsync_is_a_stream_io_error(tmp_path: Path) -> None:
    """A durable append whose fsync fails (EINVAL on the null device) raises StreamIOError."""
    with (
        SessionLog(_device(tmp_path, "null", 3), durable=True) as log,
        pytest.raises(StreamIOError) as info,
    ):
        log.append(M1)
    err = info.value
    assert (err.errno, err.offset) == (errno.EINVAL, 0)
    assert str(err) == "cannot append to the session log at byte offset 0: " + os.strerror(
        errno.EINVAL
    )
    assert type(err.__cause__) is OSError and err.__cause__.errno == errno.EINVAL


# --- sockets ----------------------------------------------------------------------------------


async def _over_socket(
    payload: bytes, consume: Callable[[asyncio.StreamReader], AsyncIterator[Any]], *, reset: bool
) -> list[Any]:
    """A server on 127.0.0.1 writes ``payload`` then closes (with ``reset``: an RST, by
    SO_LINGER 0); the client collects what ``consume(reader)`` yields."""

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(payload)
        await writer.drain()
        if reset:
            sock = writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    got: list[Any] = []
    try:
        if reset:
            await asyncio.sleep(0.05)  # let the RST arrive before the first read
        async for item in consume(reader):
            got.append(item)
        return got
    finally:
        writer.close()
        server.close()
        await server.wait_closed()


def _lines(payload: bytes, **options: Any) -> list[Any]:
    return asyncio.run(_over_socket(payload, lambda r: receive_lines(r, **options), reset=False))


def test_receive_lines_bad_line_names_its_line() -> None:
    """A line of the wrong shape arriving on a socket raises ValidationError at that line."""
    good = wire.json.encode_lines([M1, M2])
    with pytest.raises(wire.ValidationError) as info:
        _lines(good + b'{"role":"user","content":7}\n' + good)
    assert (info.value.line, info.value.path) == (3, "$.content")
    with pytest.raises(wire.DecodeError) as bad:
        _lines(good + b"{nope\n")
    assert (type(bad.value), bad.value.line, bad.value.path) == (wire.DecodeError, 3, "$")


def test_receive_lines_line_too_long() -> None:
    """A line past max_line arriving on a socket raises LineTooLongError with line and offset."""
    first = wire.json.encode_lines([M1])
    with pytest.raises(LineTooLongError) as info:
        _lines(first + b'{"role":"user","content":"' + b"x" * 200, limits=wire.Limits(max_line=100))
    err = info.value
    assert (err.line, err.limit, err.offset) == (2, 100, len(first))


def test_receive_lines_peer_closes_inside_a_line() -> None:
    """The peer closing inside a line that is not a whole object raises TruncatedError."""
    first = wire.json.encode_lines([M1])
    with pytest.raises(TruncatedError) as info:
        _lines(first + b'{"role":"us')
    assert (info.value.line, info.value.offset) == (2, len(first))


def test_receive_lines_connection_reset_is_a_stream_io_error() -> None:
    """A connection reset by the peer raises StreamIOError (ECONNRESET), an OSError too."""
    with pytest.raises(StreamIOError) as info:
        asyncio.run(_over_socket(b"", lambda r: receive_lines(r), reset=True))
    assert info.value.errno == errno.ECONNRESET
    assert str(info.value) == "cannot receive JSON Lines at byte offset 0: " + os.strerror(
        errno.ECONNRESET
    )


def test_receive_frames_connection_reset_is_a_stream_io_error() -> None:
    """The same for frames: a reset peer gives StreamIOError with ECONNRESET."""
    with pytest.raises(StreamIOError) as info:
        asyncio.run(_over_socket(b"", lambda r: receive(r), reset=True))
    assert info.value.errno == errno.ECONNRESET


def test_cancelling_receive_mid_stream_loses_nothing_at_a_frame_boundary() -> None:
    """Cancelling a task blocked in ``receive`` raises CancelledError there (nothing wrapped);
    a new ``receive`` on the same connection then gets the next frame whole."""

    async def scenario() -> tuple[list[Any], bool, list[Any]]:
        more = asyncio.Event()

        async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(encode_frames(M1))
            await writer.drain()
            await more.wait()
            writer.write(encode_frames(M2))
            await writer.drain()
            writer.close()

        server = await asyncio.start_server(handler, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        first: list[Any] = []
        got_one = asyncio.Event()

        async def consume() -> None:
            async for item in receive(reader):
                first.append(item)
                got_one.set()

        task = asyncio.create_task(consume())
        await got_one.wait()
        await asyncio.sleep(0.01)  # the task is now waiting in reader.read()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        cancelled = task.cancelled()
        more.set()
        rest = [item async for item in receive(reader)]
        writer.close()
        server.close()
        await server.wait_closed()
        return first, cancelled, rest

    first, cancelled, rest = asyncio.run(scenario())
    assert (first, cancelled, rest) == ([M1], True, [M2])


# --- values that only MessagePack holds, Extra ------------------------------------------------


def test_msgpack_only_sent_to_the_json_encoder_names_its_path() -> None:
    """A MsgpackOnly in a tool input: MessagePack writes it back, JSON refuses it at its path
    (message, list and ModelResponse)."""
    block = wire.ToolUseBlock("a", "b", {"ok": 1, "b": wire.MsgpackOnly(b"\x01")})
    message = wire.Message("assistant", [block])
    expected = "cannot write JSON: binary data (MessagePack bin) cannot be written as JSON"
    for obj, path in (
        (message, "$.content[0].input.b"),
        ([M1, message], "$[1].content[0].input.b"),
        (wire.ModelResponse(message), "$.message.content[0].input.b"),
    ):
        with pytest.raises(wire.EncodeError) as info:
            wire.json.encode(obj)
        assert info.value.path == path
        assert info.value.message == expected + " inside generic data"
    packed = wire.msgpack.encode(message)
    assert packed.endswith(b"\xa2ok\x01\xa1b\xc4\x01\x01")
    assert wire.msgpack.decode(packed, type=wire.Message) == message


def test_extra_to_dict_is_a_new_plain_dict() -> None:
    """Extra.to_dict returns a new plain dict, equal in keys and values, not shared."""
    extra = wire.Extra({"id": "m1", "meta": {"k": [1, 2]}})
    first = extra.to_dict()
    assert type(first) is dict and first == {"id": "m1", "meta": {"k": [1, 2]}}
    first["id"] = "changed"
    del first["meta"]
    assert extra.to_dict() == {"id": "m1", "meta": {"k": [1, 2]}}
    assert extra.to_dict() is not extra.to_dict()
    assert wire.Extra().to_dict() == {}
