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
    _log,
    encode_frames,
    receive,
    receive_lines,
)
from minagent.wire.stream._errors import TAIL_KEPT

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


def _write_then_fail(monkeypatch: pytest.MonkeyPatch, first: int) -> None:
    """os.write writes ``first`` bytes for real, then fails with ENOSPC (a disk filling up
    between two writes of one append)."""
    real = os.write
    calls = 0

    def write(fd: int, data: bytes) -> int:
        nonlocal calls
        calls += 1
        if calls > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data[:first])

    monkeypatch.setattr(os, "write", write)


def _failing(code: int) -> Callable[..., Any]:
    def fail(*args: Any) -> Any:
        raise OSError(code, os.strerror(code))

    return fail


def test_durable_append_cut_short_is_undone_and_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A durable append whose second write fails: the file is cut back to its old size and that
    cut is fsynced on the log's own descriptor; the error names the old size."""
    path = tmp_path / "s.jsonl"
    with SessionLog(path, durable=True) as log:
        log.append(M1)
        before = path.read_bytes()
        fd = log._fd
        _write_then_fail(monkeypatch, 5)
        fsyncs = _count_fsyncs(monkeypatch)
        with pytest.raises(StreamIOError) as info:
            log.append(M2)
        assert (info.value.errno, info.value.offset) == (errno.ENOSPC, len(before))
        assert fsyncs == [fd]
        assert path.read_bytes() == before
        assert log.tail is None


def test_append_whose_undo_fails_reports_the_written_bytes_as_a_torn_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second write fails and so does cutting the file back: the 5 bytes that reached the
    file are the log's torn tail (offset, bytes, line), so that the next append is refused."""
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(M1)
        size = path.stat().st_size
        _write_then_fail(monkeypatch, 5)
        monkeypatch.setattr(os, "ftruncate", _failing(errno.EIO))
        with pytest.raises(StreamIOError) as info:
            log.append(M2)
        assert info.value.errno == errno.ENOSPC
        tail = log.tail
        assert tail is not None
        assert (tail.offset, tail.data, tail.line, tail.size) == (size, b'{"rol', 2, 5)


def test_append_whose_undo_and_tail_check_fail_raises_the_write_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When even reading the file back fails after a failed undo, the append still raises the
    write's StreamIOError (ENOSPC), not the later one."""
    with SessionLog(tmp_path / "s.jsonl") as log:
        _write_then_fail(monkeypatch, 5)
        monkeypatch.setattr(os, "ftruncate", _failing(errno.EIO))
        monkeypatch.setattr(_log, "_pread", _failing(errno.EIO))
        with pytest.raises(StreamIOError) as info:
            log.append(M2)
        assert (info.value.errno, info.value.offset) == (errno.ENOSPC, 0)
        assert str(info.value) == (
            "cannot append to the session log at byte offset 0: " + os.strerror(errno.ENOSPC)
        )


def test_failed_repair_is_a_stream_io_error_at_the_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """repair() whose truncate fails raises StreamIOError naming the tail's offset, with the
    errno and the OSError as cause; the tail stays reported."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(wire.json.encode_lines([M1]) + b'{"role":')
    with SessionLog(path) as log:
        offset = path.stat().st_size - len(b'{"role":')
        monkeypatch.setattr(os, "ftruncate", _failing(errno.EIO))
        with pytest.raises(StreamIOError) as info:
            log.repair()
        err = info.value
        assert str(err) == (
            f"cannot repair the session log at byte offset {offset}: " + os.strerror(errno.EIO)
        )
        assert (err.errno, err.offset) == (errno.EIO, offset)
        assert type(err.__cause__) is OSError and err.__cause__.errno == errno.EIO
        assert log.tail is not None and log.tail.offset == offset


def test_failed_read_is_a_stream_io_error_naming_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read of the log that the OS refuses raises StreamIOError saying what failed, where."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(wire.json.encode_lines([M1, M2]))
    with SessionLog(path) as log:
        monkeypatch.setattr(_log, "_pread", _failing(errno.EIO))
        for reading in (log.read, lambda: list(log)):
            with pytest.raises(StreamIOError) as info:
                reading()
            assert str(info.value) == (
                "cannot read the session log at byte offset 0: " + os.strerror(errno.EIO)
            )
            assert (info.value.errno, info.value.offset) == (errno.EIO, 0)


@pytest.mark.parametrize(
    ("content", "offset"),
    [
        (b'{"role":"us', 0),  # no newline at all
        (b"\n" + b"x" * _log._SCAN, 1),  # the newline is byte 0, a whole window before the end
        (b"\n" + b"x" * 10, 1),  # the newline is byte 0, in the first window read
        (b'{"role":"user","content":"a"}\n' + b"y" * (2 * _log._SCAN), 30),
    ],
    ids=["no-newline", "newline-at-0-window-edge", "newline-at-0", "two-windows"],
)
def test_the_torn_tail_starts_just_after_the_last_newline(
    tmp_path: Path, content: bytes, offset: int
) -> None:
    """The torn tail's offset is found however far back (in 64 KiB windows) the last newline
    is, including at byte 0 and at a window's first byte; its line number counts the lines
    before it."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(content)
    with SessionLog(path) as log:
        tail = log.tail
        assert tail is not None
        assert (tail.offset, tail.line, tail.size) == (
            offset,
            content.count(b"\n") + 1,
            len(content) - offset,
        )
        assert tail.data == content[offset : offset + TAIL_KEPT]


def test_iterating_and_reading_give_messages_unless_lazy_is_asked(tmp_path: Path) -> None:
    """``list(log)`` and ``log.read()`` give wire Messages; ``read(lazy=True)`` LazyMessages."""
    from minagent.wire.lazy import LazyMessage

    path = tmp_path / "s.jsonl"
    path.write_bytes(wire.json.encode_lines([M1, M2]))
    with SessionLog(path) as log:
        assert [type(m) for m in log] == [wire.Message, wire.Message]
        assert [type(m) for m in log.read()] == [wire.Message, wire.Message]
        assert [type(m) for m in log.read(lazy=True)] == [LazyMessage, LazyMessage]


def test_repr_says_open_torn_or_closed(tmp_path: Path) -> None:
    """repr(log) names the path and its state: open, torn (a torn tail) or closed."""
    path = tmp_path / "s.jsonl"
    log = SessionLog(path)
    assert repr(log) == f"<SessionLog {str(path)!r} open>"
    log.close()
    assert repr(log) == f"<SessionLog {str(path)!r} closed>"
    path.write_bytes(b'{"role":')
    with SessionLog(path) as torn:
        assert repr(torn) == f"<SessionLog {str(path)!r} torn>"


# --- sockets ----------------------------------------------------------------------------------


async def _connect(payload: bytes, *, reset: bool) -> tuple[Any, Any, asyncio.Server]:
    """Reader, writer and server: a server on 127.0.0.1 that writes ``payload`` to the client,
    then closes (with ``reset``: an RST, by SO_LINGER 0)."""

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
    return reader, writer, server


async def _over_socket(
    payload: bytes, consume: Callable[[asyncio.StreamReader], AsyncIterator[Any]], *, reset: bool
) -> list[Any]:
    """`_connect`; the client collects what ``consume(reader)`` yields."""
    reader, writer, server = await _connect(payload, reset=reset)
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
    assert str(info.value) == "cannot receive frames at byte offset 0: " + os.strerror(
        errno.ECONNRESET
    )


def test_receive_and_receive_lines_pass_type_and_lazy_on() -> None:
    """Over a real socket, ``type=ModelResponse`` gives ModelResponses (frames and lines) and
    ``lazy=True`` LazyMessages, equal to what was sent."""
    from minagent.wire.lazy import LazyMessage
    from minagent.wire.stream import encode_frames

    resp = wire.ModelResponse(M2, stop_reason="end_turn", usage={"input_tokens": 3})
    frames = encode_frames([resp, resp])
    lines = wire.json.encode_lines([resp, resp])
    got = asyncio.run(
        _over_socket(frames, lambda r: receive(r, type=wire.ModelResponse), reset=False)
    )
    assert got == [resp, resp]
    got = asyncio.run(
        _over_socket(lines, lambda r: receive_lines(r, type=wire.ModelResponse), reset=False)
    )
    assert got == [resp, resp]
    for payload, read in (
        (encode_frames([M1, M2]), receive),
        (wire.json.encode_lines([M1, M2]), receive_lines),
    ):
        got = asyncio.run(
            _over_socket(payload, lambda r, read=read: read(r, lazy=True), reset=False)
        )
        assert [type(m) for m in got] == [LazyMessage, LazyMessage]
        assert [(m.role, m.content) for m in got] == [("user", "first"), ("assistant", "second")]


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


@pytest.mark.parametrize("how", ["frames", "JSON Lines"])
def test_sending_to_a_reset_connection_is_a_stream_io_error(how: str) -> None:
    """send / send_lines to a peer that reset the connection (SO_LINGER 0 on a real socket)
    raise StreamIOError saying what could not be sent, with the OSError as cause."""
    from minagent.wire.stream import send, send_lines

    sender = send if how == "frames" else send_lines

    async def run() -> StreamIOError:
        _, writer, server = await _connect(b"", reset=True)
        await asyncio.sleep(0.05)  # let the RST arrive
        batch = [wire.Message("user", "x" * 65536)] * 16
        try:
            for _ in range(200):  # bounded: the reset shows on the first sends
                await sender(writer, batch)
        except StreamIOError as err:
            return err
        finally:
            writer.close()
            server.close()
        raise AssertionError("no send failed")

    err = asyncio.run(run())
    assert err.errno in (errno.ECONNRESET, errno.EPIPE)  # which one: the kernel's timing
    assert str(err) == f"cannot send {how}: {os.strerror(err.errno)}"
    assert isinstance(err.__cause__, OSError) and err.__cause__.errno == err.errno


def test_session_log_os_failures_say_what_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each OS failure of the session log is a StreamIOError with its own text, the errno and
    the OSError as cause: lock (not a lock conflict), stat, reading the tail at open; a closed
    log names its path."""
    path = tmp_path / "s.jsonl"

    def expect(call: Callable[[], Any], text: str, code: int) -> None:
        with pytest.raises(StreamIOError) as info:
            call()
        assert str(info.value) == f"{text}: {os.strerror(code)}"
        assert info.value.errno == code
        assert type(info.value.__cause__) is OSError and info.value.__cause__.errno == code

    with monkeypatch.context() as patch:
        patch.setattr(_log, "_lock", _failing(errno.ENOLCK))
        expect(lambda: SessionLog(path), f"cannot lock session log {str(path)!r}", errno.ENOLCK)
    path.write_bytes(b'{"role":')
    with monkeypatch.context() as patch:
        patch.setattr(_log, "_pread", _failing(errno.EIO))
        expect(lambda: SessionLog(path), "cannot read the session log", errno.EIO)
    path.write_bytes(wire.json.encode_lines([M1]))
    log = SessionLog(path)
    with monkeypatch.context() as patch:
        patch.setattr(os, "fstat", _failing(errno.EIO))
        expect(log.read, "cannot stat the session log", errno.EIO)
    log.close()
    with pytest.raises(StreamIOError) as info:
        log.read()
    assert str(info.value) == f"session log {str(path)!r} is closed"
