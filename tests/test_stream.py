"""Framed MessagePack: encode_frames, write_frame / read_frames, FrameDecoder, limits."""

from __future__ import annotations

import io
import itertools
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.wire import stream
from minagent.wire.limits import Limits
from minagent.wire.stream import (
    FrameDecoder,
    FrameTooLargeError,
    TruncatedError,
    encode_frames,
    read_frames,
    write_frame,
)
from tests.strategies import corpus_messages, messages_st


def test_public_names() -> None:
    """minagent.wire.stream exports exactly this list of names."""
    assert stream.__all__ == [
        "DEFAULT_BATCH_BYTES", "DEFAULT_CHUNK_SIZE", "HEADER_SIZE", "FrameDecoder",
        "FrameTooLargeError", "LineDecoder", "LineTooLongError", "LogChangedError",
        "LogLockedError", "LogMovedError", "SessionLog", "StreamIOError", "TornTail",
        "TornTailError", "TruncatedError", "decode_lines", "encode_frames", "encode_lines",
        "iter_line_batches", "iter_lines", "read_frames", "receive", "receive_lines", "send",
        "send_lines", "write_frame",
    ]  # fmt: skip
    for name in stream.__all__:
        assert hasattr(stream, name), name


def test_frame_layout() -> None:
    """Each frame is a 4-byte big-endian length, then the message's MessagePack bytes."""
    messages = corpus_messages("tool-heavy", 30)
    expected = b"".join(
        struct.pack(">I", len(p)) + p for p in (wire.msgpack.encode(m) for m in messages)
    )
    assert encode_frames(messages) == expected
    assert encode_frames(messages[0]) == expected[: 4 + len(wire.msgpack.encode(messages[0]))]
    assert encode_frames([]) == b""


@pytest.mark.parametrize("family", ["tool-heavy", "multilingual", "rich"])
def test_file_round_trip(family: str, tmp_path: Path) -> None:
    """write_frame then read_frames over a real file gives back every message, in order."""
    messages = corpus_messages(family, 300)
    path = tmp_path / "frames.bin"
    with path.open("wb") as f:
        write_frame(f, messages[:100])
        for m in messages[100:]:
            write_frame(f, m)
    with path.open("rb") as f:
        assert list(read_frames(f, chunk_size=1000)) == messages


def test_model_responses() -> None:
    """Frames of ModelResponses read back with type=wire.ModelResponse."""
    responses = [
        wire.ModelResponse(message=m, usage={"output_tokens": i})
        for i, m in enumerate(corpus_messages("text-heavy", 20))
    ]
    got = list(read_frames(io.BytesIO(encode_frames(responses)), type=wire.ModelResponse))
    assert got == responses


def test_one_byte_at_a_time() -> None:
    """FrameDecoder fed one byte at a time yields every message exactly once, in order."""
    messages = corpus_messages("rich", 40)
    data = encode_frames(messages)
    decoder = FrameDecoder()
    out = []
    for i in range(len(data)):
        got = decoder.feed(data[i : i + 1])
        assert len(got) <= 1
        out += got
    assert out == messages
    assert decoder.finish() == [] and decoder.frames == 40 and decoder.offset == len(data)


@given(messages=messages_st, cuts=st.lists(st.integers(0, 100_000), max_size=30))
def test_any_chunking(messages: list[wire.Message], cuts: list[int]) -> None:
    """FrameDecoder fed the bytes cut at any points gives the same messages."""
    data = encode_frames(messages)
    decoder = FrameDecoder()
    out = []
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    for a, b in itertools.pairwise(bounds):
        out += decoder.feed(memoryview(data)[a:b])
    assert out + decoder.finish() == messages


def test_too_large_is_refused_before_reading() -> None:
    """A header over max_frame is refused at once, after the good frames before it."""
    good = encode_frames(corpus_messages("tool-heavy", 3))
    decoder = FrameDecoder(limits=Limits(max_frame=1000))
    assert len(decoder.feed(good + struct.pack(">I", 2**32 - 1))) == 3
    with pytest.raises(FrameTooLargeError) as info:
        decoder.feed(b"\x00" * 10)
    err = info.value
    assert (err.frame, err.offset, err.size, err.limit) == (3, len(good), 2**32 - 1, 1000)
    assert decoder.pending < 100
    with pytest.raises(FrameTooLargeError):
        decoder.feed(b"")


def test_default_limit_comes_from_limits() -> None:
    """Without max_frame the reader uses wire.limits.Limits().max_frame."""

    assert FrameDecoder().max_frame == Limits().max_frame
    assert FrameDecoder(limits=Limits(max_frame=10)).max_frame == 10


@pytest.mark.parametrize("cut", [1, 3, 4, 5, 50])
def test_truncated_stream(cut: int) -> None:
    """A stream that ends inside a frame raises TruncatedError with the missing byte count."""
    messages = corpus_messages("tool-heavy", 4)
    data = encode_frames(messages)
    last = len(encode_frames(messages[3]))
    cut_data = data[: len(data) - last + cut]
    with pytest.raises(TruncatedError) as info:
        list(read_frames(io.BytesIO(cut_data)))
    err = info.value
    assert (err.frame, err.offset) == (3, len(data) - last)
    assert err.missing == (4 - cut if cut < 4 else last - cut)


def test_bad_frame_names_its_index_and_the_rest_still_reads() -> None:
    """An undecodable frame raises with its index; the frames after it are still returned."""
    messages = corpus_messages("tool-heavy", 6)
    frames = [encode_frames(m) for m in messages]
    frames[2] = struct.pack(">I", 3) + b"\xc1\xc1\xc1"  # 0xc1 is never valid MessagePack
    decoder = FrameDecoder()
    assert decoder.feed(b"".join(frames)) == messages[:2]
    with pytest.raises(wire.DecodeError) as info:
        decoder.feed(b"")
    assert info.value.frame == 2
    assert decoder.feed(b"") == messages[3:]


def test_wrong_shape_path_is_inside_the_frame() -> None:
    """A frame of the wrong shape raises ValidationError with its frame and in-frame path."""
    good = encode_frames(corpus_messages("tool-heavy", 5))
    bad = b"\x81\xa4role\xa5robot"  # {"role": "robot"}
    with pytest.raises(wire.ValidationError) as info:
        list(read_frames(io.BytesIO(good + struct.pack(">I", len(bad)) + bad)))
    assert (info.value.frame, info.value.path) == (5, "$.role")


def test_encode_error_names_the_frame() -> None:
    """A value MessagePack cannot hold is refused with the frame index it would have had."""
    messages = corpus_messages("tool-heavy", 4)
    bad = wire.Message(
        role="assistant", content=[wire.ToolUseBlock(id="c", name="f", input={"n": 2**70})]
    )
    with pytest.raises(wire.EncodeError) as info:
        encode_frames([*messages, bad])
    assert (info.value.frame, info.value.path) == (4, "$.content[0].input.n")


def test_file_errors_are_wire_errors(tmp_path: Path) -> None:
    """A failing write is a StreamIOError (a WireError and an OSError)."""
    path = tmp_path / "f.bin"
    path.write_bytes(b"")
    with path.open("rb") as f, pytest.raises(stream.StreamIOError) as info:
        write_frame(f, wire.Message(role="user"))  # type: ignore[arg-type]
    assert isinstance(info.value, wire.WireError) and isinstance(info.value, OSError)


# --- issue 12: no frame is lost around a bad one -------------------------------------------------

BAD_FRAME = struct.pack(">I", 3) + b"\x92\x01\x02"  # a 2-item array: not a Message


def test_chunk_after_a_bad_frame_is_kept() -> None:
    """Frames m0, bad, m1, then a chunk of m2-m4 ending mid-frame: every good frame comes out,
    in order, with the error (frame 1) between; the stream keeps its sync."""
    m = corpus_messages("tool-heavy", 5)
    first = encode_frames(m[0]) + BAD_FRAME + encode_frames(m[1])
    rest = encode_frames(m[2:])
    decoder = FrameDecoder()
    assert decoder.feed(first) == [m[0]]
    with pytest.raises(wire.ValidationError) as info:
        decoder.feed(rest[:-7])  # buffered before the error is raised
    assert (info.value.frame, info.value.path) == (1, "$")
    assert decoder.feed(rest[-7:]) == m[1:]
    assert (decoder.frames, decoder.offset, decoder.pending) == (6, len(first + rest), 0)
    assert decoder.finish() == []


def test_read_frames_yields_the_frames_before_a_bad_one(tmp_path: Path) -> None:
    """read_frames over a real file yields every frame before the bad one, then raises."""
    m = corpus_messages("tool-heavy", 4)
    path = tmp_path / "bad.bin"
    path.write_bytes(encode_frames(m[:3]) + BAD_FRAME + encode_frames(m[3]))
    out = []
    with path.open("rb") as f, pytest.raises(wire.ValidationError) as info:
        out.extend(read_frames(f, chunk_size=1 << 20))
    assert (out, info.value.frame) == (m[:3], 3)


def test_frame_over_max_size_is_refused_on_every_path() -> None:
    """A frame is one input: max_size bounds it as max_frame does, batch or not."""
    m = corpus_messages("tool-heavy", 3)
    small = Limits(max_size=len(wire.msgpack.encode(m[1])) - 1)
    decoder = FrameDecoder(limits=small)
    assert decoder.max_frame == small.max_size
    with pytest.raises(FrameTooLargeError) as info:
        decoder.feed(encode_frames(m[1:]))
    assert (info.value.frame, info.value.limit) == (0, small.max_size)


def test_importing_wire_loads_no_session_log_fcntl_or_asyncio() -> None:
    """`import minagent.wire` (in a fresh interpreter) loads neither the session log, fcntl
    nor asyncio beyond what msgspec itself loads (on CPython 3.10 its uuid import brings
    fcntl, through platform and subprocess); the stream names still resolve on first use."""
    import subprocess
    import sys

    code = (
        "import sys, msgspec\n"
        "before = set(sys.modules)\n"
        "import minagent.wire\n"
        "print(sorted(m for m in set(sys.modules) - before if m in ('fcntl', 'asyncio') "
        "or m.startswith(('minagent.wire.stream._log', 'minagent.wire.stream._aio'))))\n"
        "from minagent.wire.stream import SessionLog, receive\n"
        "print(SessionLog.__module__, receive.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "[]\nminagent.wire.stream._log minagent.wire.stream._aio\n"


def test_stream_errors_keep_fields_and_cause_when_located() -> None:
    """located() copies a stream error with its own fields and its cause; fields go in through
    the constructor, and an unknown one is a TypeError."""
    from minagent.wire.stream import LineTooLongError, TruncatedError

    cause = ValueError("inner")
    err = TruncatedError("cut", frame=2, missing=7, offset=40)
    err.__cause__ = cause
    moved = err.located(frame=5)
    assert (type(moved), moved.frame, moved.missing, moved.offset) == (TruncatedError, 5, 7, 40)
    assert moved.__cause__ is cause
    with pytest.raises(TypeError, match="no field 'size'"):
        LineTooLongError("long", size=3)


def test_lazy_names_of_the_stream_package_load_on_first_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`SessionLog` and the asyncio helpers are found in their modules on first use and kept;
    an unknown name is an AttributeError naming the package and the name."""
    from minagent.wire import stream
    from minagent.wire.stream import _aio, _log

    expected = {
        "SessionLog": _log.SessionLog,
        "receive": _aio.receive,
        "receive_lines": _aio.receive_lines,
        "send": _aio.send,
        "send_lines": _aio.send_lines,
    }
    for name, value in expected.items():
        monkeypatch.delitem(stream.__dict__, name, raising=False)
        assert getattr(stream, name) is value
        assert stream.__dict__[name] is value  # kept: the next lookup is a plain global
    with pytest.raises(AttributeError) as info:
        stream.no_such_thing  # noqa: B018
    assert str(info.value) == "module 'minagent.wire.stream' has no attribute 'no_such_thing'"


def test_a_frame_over_the_header_limit_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A message whose encoding is longer than a 4-byte header can state is refused before
    anything is written, naming its index; exactly the limit is fine (limit lowered here)."""
    from minagent.wire.stream import _frames

    msgs = [wire.Message("user", "a"), wire.Message("user", "a" * 40), wire.Message("user", "b")]
    sizes = [len(wire.msgpack.encode(m)) for m in msgs]
    monkeypatch.setattr(_frames, "_MAX_LENGTH", sizes[0])  # the first exactly at the limit
    with pytest.raises(wire.EncodeError) as info:
        stream.encode_frames(msgs)
    assert (info.value.message, info.value.frame) == (f"a frame holds at most {sizes[0]} bytes", 1)
    monkeypatch.setattr(_frames, "_MAX_LENGTH", sizes[1])
    assert list(stream.read_frames(io.BytesIO(stream.encode_frames(msgs)))) == msgs


def test_frame_decoder_limits_type_and_numbering() -> None:
    """A frame of exactly ``max_frame`` bytes is read; lazy reading takes Messages only (the
    refusal says so); after each bad frame the numbering goes on, so each error names its own
    frame."""
    good = stream.encode_frames([wire.Message("user", "a")])
    bad = struct.pack(">I", 1) + b"\xc1"
    size = len(good) - 4
    decoder = stream.FrameDecoder(limits=wire.Limits(max_frame=size))
    assert decoder.feed(good * 3) == [wire.Message("user", "a")] * 3
    with pytest.raises(TypeError) as lazy:
        stream.FrameDecoder(type=wire.ModelResponse, lazy=True)
    assert str(lazy.value) == "lazy=True reads Messages only"
    for lazy in (False, True):
        decoder = stream.FrameDecoder(lazy=lazy)
        got: list[object] = []
        frames: list[int | None] = []
        data = good + good + bad + good + good + bad + good
        got += decoder.feed(data)
        for _ in range(4):
            try:
                got += decoder.feed()
            except wire.DecodeError as err:
                frames.append(err.frame)
        assert (frames, len(got)) == ([2, 5], 5), lazy


def test_read_frames_reads_in_chunk_size_pieces() -> None:
    """read_frames asks the file for ``chunk_size`` bytes at a time."""
    sizes: list[int] = []

    class Recording(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            sizes.append(-1 if size is None else size)
            return super().read(size)

    msgs = [wire.Message("user", "a")] * 3
    assert list(stream.read_frames(Recording(stream.encode_frames(msgs)), chunk_size=5)) == msgs
    assert set(sizes) == {5}
