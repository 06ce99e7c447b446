"""The shared SSE parser: events from arbitrary byte splits, offsets, CR line ends, truncation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent.providers._sse import SSEEvent, SSEParser
from minagent.wire.errors import DecodeError

STREAM = (
    b'event: message_start\ndata: {"a":1}\n\n'
    b": a comment\n\n"
    b"event: ping\ndata: {}\n\n"
    b"data: line one\ndata:line two\nid: 7\n\n"
    b"data: [DONE]\n\n"
)
EXPECTED = [
    SSEEvent("message_start", b'{"a":1}', 0, 0),
    SSEEvent("ping", b"{}", 1, 49),
    SSEEvent("message", b"line one\nline two", 2, 71, "7"),
    SSEEvent("message", b"[DONE]", 3, 107),
]


def feed_all(parser: SSEParser, chunks: list[bytes]) -> list[SSEEvent]:
    out: list[SSEEvent] = []
    for chunk in chunks:
        out += parser.feed(chunk)
    return out + parser.close()


def test_whole_stream_gives_exact_events() -> None:
    """A stream fed at once yields each event's name, data, index and byte offset."""
    assert feed_all(SSEParser(), [STREAM]) == EXPECTED


def test_one_byte_at_a_time() -> None:
    """Feeding one byte at a time yields the same events as feeding the whole stream."""
    assert feed_all(SSEParser(), [STREAM[i : i + 1] for i in range(len(STREAM))]) == EXPECTED


@given(st.lists(st.integers(0, len(STREAM)), max_size=12))
def test_random_splits(cuts: list[int]) -> None:
    """Any split of the stream into chunks yields the same events."""
    cuts = sorted(cuts)
    chunks = [STREAM[a:b] for a, b in zip([0, *cuts], [*cuts, len(STREAM)], strict=False)]
    assert feed_all(SSEParser(), chunks) == EXPECTED


@given(st.lists(st.integers(0, len(STREAM)), max_size=12), st.sampled_from([b"\r\n", b"\r"]))
def test_cr_line_ends(cuts: list[int], eol: bytes) -> None:
    """CRLF and CR line ends give the same events, data and offsets in the CR stream."""
    stream = STREAM.replace(b"\n", eol)
    cuts = sorted(c * len(stream) // len(STREAM) for c in cuts)
    chunks = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=False)]
    got = feed_all(SSEParser(), chunks)
    assert [(e.event, e.data, e.index, e.id) for e in got] == [
        (e.event, e.data, e.index, e.id) for e in EXPECTED
    ]
    assert [e.offset for e in got] == [
        len(STREAM[: e.offset].replace(b"\n", eol)) for e in EXPECTED
    ]


def test_truncated_stream_raises_with_event_index_and_offset() -> None:
    """A stream cut inside an event raises DecodeError naming the next event index and byte."""
    parser = SSEParser()
    got = parser.feed(STREAM[:60])
    assert got == EXPECTED[:1]
    with pytest.raises(DecodeError) as info:
        parser.close()
    assert info.value.frame == 1
    assert info.value.message == (
        "the stream ended inside an event starting at byte 49 (11 bytes without the closing"
        " empty line)"
    )


def test_trailing_blank_lines_are_not_truncation() -> None:
    """Blank lines after the last event are fine at close."""
    parser = SSEParser()
    assert parser.feed(b"data: x\n\n\n\n") == [SSEEvent("message", b"x", 0, 0)]
    assert parser.close() == []
    assert parser.index == 1
