"""Properties over transcripts that reach every path (`tests.strategies.raw_transcripts`): every
block type, unknown blocks and keys, binary data, deep tool inputs, long and non-ASCII text,
MessagePack-only values, and now and then one element of the wrong shape, placed anywhere across
the codec's chunks. Whole and chunked reads, and whole and element-wise writes, must agree: the
same values, the same bytes, the same error at the same place."""

from __future__ import annotations

import itertools
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minagent import wire
from minagent.wire.stream import FrameDecoder, LineDecoder
from tests import strategies as s
from tests.budget import scaled

CODECS = {"json": wire.json, "msgpack": wire.msgpack}
cuts = st.lists(st.integers(0, 1 << 20), max_size=12)
few = settings(max_examples=scaled(20))
"""Each example is a whole transcript of rich messages: a third of the profile's count."""


def _frame(fmt: str, items: list[Any]) -> bytes:
    """Elements already encoded (by msgspec) framed as one array of ``fmt``."""
    if fmt == "json":
        return b"[" + b",".join(items) + b"]"
    n = len(items)
    header = bytes([0x90 | n]) if n < 16 else b"\xdc" + struct.pack(">H", n)
    return header + b"".join(items)


def _bad_path(items: list[dict[str, Any]], index: int) -> str:
    """The error path inside the bad element at ``index``."""
    return next(path for bad, path in s.BAD_MESSAGES if bad is items[index])


def _pieces(data: bytes, points: list[int]) -> list[bytes]:
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in points)})
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
@few
@given(case=st.data())
def test_list_decode_and_encode_agree_with_each_element(fmt: str, case: st.DataObject) -> None:
    """Decoding a transcript equals decoding each element on its own (or fails at the bad
    element, with its index in the path); encoding it gives exactly the elements' bytes framed."""
    items, bad = case.draw(s.raw_transcripts(fmt, bad=True))
    codec = CODECS[fmt]
    data = s.encode_raw(fmt, items)
    if bad is not None:
        with pytest.raises(wire.ValidationError) as info:
            codec.decode(data)
        assert info.value.path == f"$[{bad}]" + _bad_path(items, bad)[1:]
        return
    whole = codec.decode(data)
    each = [codec.decode(s.encode_raw(fmt, m), type=wire.Message) for m in items]
    assert len(whole) == len(items)
    assert wire.msgpack.encode(whole) == wire.msgpack.encode(each)  # NaN-safe equality
    encoded = codec.encode(whole)
    assert encoded == _frame(fmt, [codec.encode(m) for m in whole])
    assert codec.encode(codec.decode(encoded)) == encoded
    assert wire.msgpack.encode(whole) == _frame("msgpack", [wire.msgpack.encode(m) for m in whole])


@few
@given(case=st.data(), points=cuts)
def test_json_lines_chunked_agree_with_whole(case: st.DataObject, points: list[int]) -> None:
    """JSON Lines fed to LineDecoder in any pieces give what decode_lines gives: the same
    messages, or the same error at the same line and path."""
    items, bad = case.draw(s.raw_transcripts("json", bad=True))
    data = b"".join(s.encode_raw("json", m) + b"\n" for m in items)
    decoder = LineDecoder(batch_bytes=64)
    if bad is not None:
        for call in (lambda: wire.json.decode_lines(data), lambda: _feed(decoder, data, points)):
            with pytest.raises(wire.ValidationError) as info:
                call()
            assert (info.value.line, info.value.path) == (bad + 1, _bad_path(items, bad))
        return
    got = _feed(decoder, data, points)
    assert wire.json.encode_lines(got) == wire.json.encode_lines(wire.json.decode_lines(data))
    assert wire.json.encode_lines(got) == b"".join(wire.json.encode(m) + b"\n" for m in got)
    assert len(got) == len(items)


def _feed(decoder: Any, data: bytes, points: list[int]) -> list[Any]:
    out: list[Any] = []
    for piece in _pieces(data, points):
        out += decoder.feed(piece)
    while rest := decoder.finish():
        out += rest
    return out


@few
@given(case=st.data(), points=cuts)
def test_frames_chunked_agree_with_whole(case: st.DataObject, points: list[int]) -> None:
    """Frames (MessagePack-only values included) fed to FrameDecoder in any pieces give each
    element's own decode, or the bad element's error with its frame index and inner path."""
    items, bad = case.draw(s.raw_transcripts("msgpack", bad=True))
    payloads = [s.encode_raw("msgpack", m) for m in items]
    data = b"".join(struct.pack(">I", len(p)) + p for p in payloads)
    if bad is not None:
        with pytest.raises(wire.ValidationError) as info:
            _feed(FrameDecoder(), data, points)
        assert (info.value.frame, info.value.path) == (bad, _bad_path(items, bad))
        return
    got = _feed(FrameDecoder(), data, points)
    each = [wire.msgpack.decode(p, type=wire.Message) for p in payloads]
    assert wire.msgpack.encode(got) == wire.msgpack.encode(each)
    assert wire.stream.encode_frames(got) == b"".join(
        struct.pack(">I", len(b)) + b for b in (wire.msgpack.encode(m) for m in got)
    )


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
@pytest.mark.parametrize("size", s.EDGE_SIZES)
def test_one_odd_element_anywhere_at_edge_sizes(fmt: str, size: int) -> None:
    """A transcript of ``size`` messages with one unknown-key message at each chunk edge decodes
    and re-encodes to exactly the bytes of its elements framed."""
    codec = CODECS[fmt]
    plain = {"role": "user", "content": "p"}
    odd = {"role": "assistant", "content": "o", "x-trace": {"k": [1, "ü"]}}
    for at in sorted({0, 15, 16, 31, 32, 33, size - 1} - set(range(size, 70))):
        items = [plain] * size
        items[at] = odd
        whole = codec.decode(s.encode_raw(fmt, items))
        assert whole[at].extra == wire.Extra({"x-trace": {"k": [1, "ü"]}})
        parts = [s.encode_raw(fmt, m) for m in items]
        assert codec.encode(whole) == _frame(fmt, parts), (size, at)


def test_msgpack_array_header_at_65536_elements() -> None:
    """A transcript of exactly 65,536 messages (the 5-byte MessagePack array header starts
    there) with one unknown-key message re-encodes to msgspec's own bytes."""
    items: list[dict[str, Any]] = [{"role": "user", "content": "p"}] * 0x10000
    items[-1] = {"role": "user", "content": "o", "x-trace": 1}
    data = s.encode_raw("msgpack", items)
    assert data[:5] == b"\xdd\x00\x01\x00\x00"
    assert wire.msgpack.encode(wire.msgpack.decode(data)) == data
