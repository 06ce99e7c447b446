"""Exact values the mutation run found unpinned: refusal messages for values only MessagePack
holds, the accepted-types message, file readers' limits and read failures."""

from __future__ import annotations

import datetime
import errno
import io
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from minagent import wire
from minagent.wire import _depth
from minagent.wire.limits import DEFAULT
from minagent.wire.stream import (
    FrameTooLargeError,
    StreamIOError,
    encode_frames,
    iter_lines,
    read_frames,
)

from . import interpreter

_TIMESTAMP = msgspec.msgpack.Ext(-1, b"\x00\x00\x00\x01")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (float("nan"), "nan cannot be written as JSON"),
        (float("-inf"), "-inf cannot be written as JSON"),
        ({1: 2}, "object key 1 is not a string (JSON keys are strings)"),
        (_TIMESTAMP, "a MessagePack timestamp (ext type -1) cannot be written as JSON"),
        (msgspec.msgpack.Ext(5, b"x"), "MessagePack ext (type 5) cannot be written as JSON"),
        (b"\x01", "binary data (MessagePack bin) cannot be written as JSON inside generic data"),
    ],
)
def test_json_refuses_msgpack_only_values_with_exact_message_and_path(
    value: Any, reason: str
) -> None:
    """Each value only MessagePack holds, in a tool input or in unknown data: MessagePack writes
    it back byte for byte; JSON refuses it at its path with one message, in either place
    ("cannot write JSON: " and the reason; unknown data lacked the prefix, and a timestamp in a
    tool input was called an ext)."""
    for block, path in (
        (
            {"type": "tool_use", "id": "a", "name": "b", "input": {"v": value}},
            "$[0].content[0].input.v",
        ),
        ({"type": "future", "blob": {"v": value}}, "$[0].content[0].blob.v"),
    ):
        packed = msgspec.msgpack.encode([{"role": "user", "content": [block]}])
        decoded = wire.msgpack.decode(packed)
        assert wire.msgpack.encode(decoded) == packed
        with pytest.raises(wire.EncodeError) as info:
            wire.json.encode(decoded)
        assert (info.value.message, info.value.path) == ("cannot write JSON: " + reason, path)


def test_decode_names_the_accepted_types() -> None:
    """An unsupported ``type=`` is a TypeError listing exactly the accepted types."""
    for codec in (wire.json, wire.msgpack):
        with pytest.raises(TypeError) as info:
            codec.decode(b"[]", type=int)
        assert str(info.value) == (
            "type must be one of list[Message], Message, ModelResponse, list[ModelResponse]; "
            "got <class 'int'>"
        )


def test_read_frames_applies_max_frame_and_chunk_size() -> None:
    """read_frames applies ``limits.max_frame`` (the refusal names it), reads in any chunk size."""
    messages = [wire.Message("user", "x" * 50), wire.Message("assistant", "y")]
    data = encode_frames(messages)
    assert list(read_frames(io.BytesIO(data), chunk_size=3)) == messages
    with pytest.raises(FrameTooLargeError) as info:
        list(read_frames(io.BytesIO(data), limits=wire.Limits(max_frame=20)))
    assert (info.value.frame, info.value.size, info.value.limit, info.value.offset) == (
        0,
        len(wire.msgpack.encode(messages[0])),
        20,
        0,
    )


@pytest.mark.parametrize(
    ("read", "what"),
    [(read_frames, "reading frames"), (iter_lines, "reading JSON Lines")],
)
def test_file_readers_wrap_a_failing_read(tmp_path: Path, read: Any, what: str) -> None:
    """A read the OS refuses (EBADF: the file is open for writing only) is a StreamIOError."""
    path = tmp_path / "w.bin"
    f = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT), "rb", buffering=0)
    with f, pytest.raises(StreamIOError) as info:
        list(read(f))
    err = info.value
    assert (err.errno, err.offset) == (errno.EBADF, 0)
    assert str(err) == f"{what} at byte offset 0: {os.strerror(errno.EBADF)}"
    assert type(err.__cause__) is OSError and err.__cause__.errno == errno.EBADF


@pytest.mark.parametrize(
    ("data", "error", "message", "path"),
    [
        (
            b'[{"role":"user","content":"\\ud800"}]',
            wire.DecodeError,
            "invalid JSON: a \\u escape is a lone surrogate (not valid Unicode), or the input is "
            "truncated",
            "$",
        ),
        (
            b'[{"role":"user","content":"ab',
            wire.DecodeError,
            "invalid JSON: Input data was truncated",
            "$",
        ),
        (
            b'[{"role":"user","content":[{"type":"tool_use","id":"a","name":"b",'
            b'"input":{"k":[1e400]}}]}]',
            wire.ValidationError,
            "Number out of range",
            "$[0].content[0].input.k[0]",
        ),
        (
            b'[{"role":"user","content":[{"type":"tool_use","id":"a","name":"b",'
            b'"input":{"k":[1.5,0.0,-2.5,-1e400]}}]}]',
            wire.ValidationError,
            "Number out of range",
            "$[0].content[0].input.k[3]",
        ),
    ],
)
def test_json_refusals_have_exact_message_and_path(
    data: bytes, error: type[wire.WireError], message: str, path: str
) -> None:
    """Lone surrogate escapes, truncation and numbers out of range: exact message and path
    (object keys named, not msgspec's ``[...]``)."""
    with pytest.raises(error) as info:
        wire.json.decode(data)
    assert (type(info.value), info.value.message, info.value.path) == (error, message, path)


def test_encode_refusals_have_exact_message_and_path() -> None:
    """What neither format can write: too deep (past the interpreter's recursion guard, which
    is measured, named at the first container past max_depth), unsupported type, lone
    surrogate; exact text, on every Python."""
    deep: list[Any] = []
    inner = deep
    for _ in range(interpreter.msgspec_guard() + DEFAULT.max_depth):
        inner.append([])
        inner = inner[0]
    too_deep = f"nesting deeper than max_depth={DEFAULT.max_depth} (decoding refuses it)"
    past = "$.content[0].input.k" + "[0]" * (DEFAULT.max_depth - 4)  # k sits at depth 5
    for codec, name in ((wire.json, "JSON"), (wire.msgpack, "MessagePack")):
        for value, reason, path in (
            (deep, too_deep, past),
            (object(), "values of type object are not supported", "$.content[0].input.k"),
            ("\ud800", "text holds a lone surrogate (not valid Unicode)", "$.content[0].input.k"),
        ):
            with pytest.raises(wire.EncodeError) as info:
                codec.encode(wire.Message("user", [wire.ToolUseBlock("a", "b", {"k": value})]))
            assert (info.value.message, info.value.path) == (f"cannot write {name}: {reason}", path)


def test_refusal_while_lowering_names_the_index_past_the_first_chunk() -> None:
    """An element refused while its unknown data is lowered, past the first chunk of 32, is
    named by its own index."""
    raw = [{"role": "user", "content": "p"}] * 40
    raw.append({"role": "user", "content": [{"type": "future", "blob": b"\x01"}]})
    decoded = wire.msgpack.decode(msgspec.msgpack.encode(raw))
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode(decoded)
    assert info.value.path == "$[40].content[0].blob"


def _tool_message(value: Any) -> wire.Message:
    return wire.Message(
        role="assistant",
        content=[wire.ToolUseBlock(id="t", name="f", input={"v": value})],
    )


def test_integers_at_the_64_bit_edges() -> None:
    """-2**63 and 2**64 - 1 are written by both formats (and not blamed for another value's
    refusal); one beyond either end is refused by MessagePack (naming the value and its path)
    and written exactly by JSON."""
    for edge in (-(2**63), 2**64 - 1):
        for fmt in (wire.json, wire.msgpack):
            data = fmt.encode([_tool_message(edge)])
            assert fmt.decode(data)[0].content[0].input == {"v": edge}
        with pytest.raises(wire.EncodeError) as info:  # the edge is not what is refused
            wire.msgpack.encode([_tool_message([edge, object()])])
        assert (info.value.message, info.value.path) == (
            "cannot write MessagePack: values of type object are not supported",
            "$[0].content[0].input.v[1]",
        )
    for beyond in (-(2**63) - 1, 2**64):
        with pytest.raises(wire.EncodeError) as info:
            wire.msgpack.encode([_tool_message([1.5, beyond])])
        assert (info.value.message, info.value.path) == (
            f"cannot write MessagePack: integer {beyond} does not fit in 64 bits "
            "(MessagePack's range)",
            "$[0].content[0].input.v[1]",
        )
        data = wire.json.encode([_tool_message([1.5, beyond])])
        assert wire.json.decode(data)[0].content[0].input == {"v": [1.5, beyond]}


def test_finite_floats_beside_a_nan_are_not_what_json_refuses() -> None:
    """A deep MessagePack tool input (past the typed levels) holding finite floats, zero and a
    NaN: the finite ones are kept as floats and JSON writes them; only the NaN is refused, at
    its own path."""
    deep: Any = [1.5, -2.0, 0.0]
    for _ in range(10):
        deep = [deep]
    packed = msgspec.msgpack.encode([{"role": "user", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": {"v": deep}}]}])  # fmt: skip
    decoded = wire.msgpack.decode(packed)
    assert wire.json.encode(decoded) == msgspec.json.encode(msgspec.msgpack.decode(packed))
    with_nan = packed.replace(msgspec.msgpack.encode(-2.0), msgspec.msgpack.encode(float("nan")))
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode(wire.msgpack.decode(with_nan))
    assert (info.value.message, info.value.path) == (
        "cannot write JSON: nan cannot be written as JSON",
        "$[0].content[0].input.v" + "[0]" * 10 + "[1]",
    )


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack])
def test_too_deep_refusals_say_which_limit(fmt: Any) -> None:
    """Nesting past max_depth: the whole message, naming the limit and the interpreter's."""
    data = (msgspec.json.encode if fmt is wire.json else msgspec.msgpack.encode)(
        [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f",
                                       "input": {"v": [[[[[[[[[[[[]]]]]]]]]]]]}}]}]
    )  # fmt: skip
    with pytest.raises(wire.DecodeError) as info:
        fmt.decode(data, limits=wire.Limits(max_depth=8))
    name = "JSON" if fmt is wire.json else "MessagePack"
    assert info.value.message == (
        f"invalid {name}: nesting deeper than max_depth=8 or the interpreter's recursion limit"
    )


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack])
def test_encoding_a_value_nested_past_the_recursion_limit_is_refused(fmt: Any) -> None:
    """A tool input nested deeper than the interpreter can recurse (up to CPython 3.11) or than
    its C recursion guard allows (3.12+): EncodeError at the first container past max_depth."""
    deep: Any = []
    for _ in range(20_000):
        deep = [deep]
    with pytest.raises(wire.EncodeError) as info:
        fmt.encode([_tool_message(deep)])
    name = "JSON" if fmt is wire.json else "MessagePack"
    assert (info.value.message, info.value.path) == (
        f"cannot write {name}: nesting deeper than max_depth={DEFAULT.max_depth} "
        "(decoding refuses it)",
        "$[0].content[0].input.v" + "[0]" * (DEFAULT.max_depth - 5),  # v sits at depth 6
    )


def _written_and_read(fmt: Any, levels: int) -> tuple[bool, bool]:
    """Whether a tool input of ``levels`` nested arrays (in a transcript: ``v`` sits at depth
    6) is written by ``fmt.encode``, and whether the same bytes, written by hand, decode with
    the default limits."""
    deep: Any = []
    for _ in range(levels - 1):
        deep = [deep]
    value = [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": {"v": None}}]}]  # fmt: skip
    if fmt is wire.json:  # the nesting written by hand: msgspec's own guard is no judge here
        raw = msgspec.json.encode(value).replace(b"null", b"[" * levels + b"]" * levels)
    else:
        raw = msgspec.msgpack.encode(value)[:-1] + b"\x91" * (levels - 1) + b"\x90"
    try:
        read = _depth.nesting(fmt.decode(raw)[0].content[0].input["v"]) == levels
    except wire.DecodeError:
        read = False
    try:
        written = fmt.encode([_tool_message(deep)]) == raw
    except wire.EncodeError:
        written = False
    return written, read


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack])
@pytest.mark.parametrize("within", [-1, 0, 1, 2])
def test_encode_writes_exactly_what_decode_reads(fmt: Any, within: int) -> None:
    """Around max_depth, a tool input is written exactly when its bytes decode: nothing we
    write is refused on reading, on every Python (up to CPython 3.11 msgspec's guard is the
    recursion limit, held at max_depth; from 3.12 the encoder caps the C recursion count that
    guard draws on, `_depth.encode_budget`, or measures its output where it cannot)."""
    written, read = _written_and_read(fmt, DEFAULT.max_depth - 5 + within)
    assert read == (within <= 0)
    assert written == read


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack])
def test_encode_refuses_past_the_guard_on_every_python(fmt: Any) -> None:
    """Just past both max_depth and where this interpreter's guard stops msgspec (measured),
    encoding is refused, and decoding the same bytes is refused too."""
    levels = max(interpreter.msgspec_guard(), DEFAULT.max_depth) + 10
    written, read = _written_and_read(fmt, levels)
    assert (written, read) == (False, False)


def test_write_frame_wraps_a_failing_write(tmp_path: Path) -> None:
    """A write the OS refuses (EBADF: the file is open for reading only) is a StreamIOError
    saying what failed, with the errno and the OSError as its cause."""
    from minagent.wire.stream import write_frame

    path = tmp_path / "r.bin"
    path.write_bytes(b"")
    f = os.fdopen(os.open(path, os.O_RDONLY), "wb", buffering=0)
    with f, pytest.raises(StreamIOError) as info:
        write_frame(f, wire.Message("user", "x"))
    err = info.value
    assert str(err) == f"writing frames: {os.strerror(errno.EBADF)}"
    assert (err.errno, err.offset) == (errno.EBADF, None)
    assert type(err.__cause__) is OSError and err.__cause__.errno == errno.EBADF


def test_session_log_stat_failure_is_a_stream_error(tmp_path: Path) -> None:
    """The log's path cannot be checked (its folder was moved away and a file put in its place:
    ENOTDIR): the append is refused with StreamIOError naming the path; nothing is written."""
    from minagent.wire.stream import SessionLog

    folder = tmp_path / "d"
    folder.mkdir()
    path = folder / "log.jsonl"
    with SessionLog(path) as log:
        folder.rename(tmp_path / "moved")
        folder.write_bytes(b"")
        with pytest.raises(StreamIOError) as info:
            log.append(wire.Message("user", "x"))
    assert str(info.value) == (
        f"cannot stat session log {str(path)!r}: {os.strerror(errno.ENOTDIR)}"
    )
    assert info.value.errno == errno.ENOTDIR
    assert (tmp_path / "moved" / "log.jsonl").read_bytes() == b""


def test_frame_refusals_have_exact_texts() -> None:
    """A frame over max_frame, a stream cut inside a header and one cut inside a payload: the
    exact text, frame index, sizes and byte offsets."""
    from minagent.wire.stream import FrameDecoder, TruncatedError

    first = encode_frames(wire.Message("user", "a"))
    second = encode_frames(wire.Message("user", "x" * 40))
    big = len(second) - 4
    decoder = FrameDecoder(limits=wire.Limits(max_frame=big - 1))
    assert len(decoder.feed(first)) == 1
    with pytest.raises(FrameTooLargeError) as info:
        decoder.feed(second)
    assert info.value.message == (
        f"frame of {big} bytes exceeds the limit of {big - 1} bytes "
        f"(header at byte offset {len(first)}); refused before reading it"
    )
    for cut, what, missing in (
        (2, "inside the header of frame 1: at least 2 bytes missing", 2),
        (10, f"inside frame 1 of {big} bytes: {big - 6} of its bytes missing", big - 6),
    ):
        decoder = FrameDecoder()
        assert len(decoder.feed(first + second[:cut])) == 1
        with pytest.raises(TruncatedError) as cut_info:
            decoder.finish()
        err = cut_info.value
        assert err.message == f"stream ended {what} (frame starts at byte offset {len(first)})"
        assert (err.frame, err.missing, err.offset) == (1, missing, len(first))


def test_a_bad_frame_after_good_ones_keeps_the_limits_for_each_frame() -> None:
    """Once a batch of frames fails and they are decoded one by one, each frame is still held
    to ``limits`` (a frame nested deeper than max_depth is refused at its own index)."""
    from minagent.wire.stream import FrameDecoder

    deep: Any = []
    for _ in range(20):
        deep = [deep]
    frames = encode_frames([wire.Message("user", "a"), _tool_message(deep)])
    bad = (3).to_bytes(4, "big") + b"\xc1\xc1\xc1"  # never-used MessagePack byte
    decoder = FrameDecoder(limits=wire.Limits(max_depth=12))
    assert len(decoder.feed(frames + bad)) == 1
    with pytest.raises(wire.DecodeError) as info:
        decoder.feed(b"")
    assert (info.value.frame, info.value.path) == (1, "$.content[0].input.v" + "[0]" * 8)


def _with_extra(**keys: Any) -> wire.Message:
    message = wire.Message("user", "a")
    message.extra = wire.Extra(keys)
    return message


@pytest.mark.parametrize(
    ("obj", "reason", "path"),
    [
        (_tool_message(wire.MsgpackOnly(5)),
         "a MessagePack-only value cannot be written as JSON", "$.content[0].input.v"),
        (_with_extra(when=datetime.datetime(2020, 1, 1)),
         "a MessagePack timestamp cannot be written as JSON", "$.when"),
        (_with_extra(k=(1, b"\x00")),
         "binary data (MessagePack bin) cannot be written as JSON inside generic data", "$.k[1]"),
        (_with_extra(k=(1, _tool_message(float("inf")))),
         "inf cannot be written as JSON", "$.k[1].content[0].input.v"),
        ([wire.Message("user", [
            wire.ImageBlock(source=wire.Base64Source(media_type="image/png", data=b"\x89PNG")),
            wire.ToolUseBlock("t", "f", {"k": object()})])],
         "values of type object are not supported", "$[0].content[1].input.k"),
    ],
)  # fmt: skip
def test_json_refusals_of_values_set_by_hand(obj: Any, reason: str, path: str) -> None:
    """Values a caller sets by hand: a MessagePack-only wrapper of a JSON value, a datetime or a
    tuple holding bin or a Struct with infinity in unknown keys, an unsupported value after a
    base64 image (its bytes are typed, never blamed): refused at their path."""
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode(obj)
    assert (info.value.message, info.value.path) == ("cannot write JSON: " + reason, path)
