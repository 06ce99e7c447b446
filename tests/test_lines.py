"""JSON Lines: encode_lines / decode_lines / iter_lines / LineDecoder (minagent.wire.json)."""

from __future__ import annotations

import io
import itertools
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.wire.limits import Limits
from minagent.wire.stream import (
    LineDecoder,
    LineTooLongError,
    TruncatedError,
    iter_line_batches,
    iter_lines,
)
from tests.strategies import corpus_messages, messages_st

FAMILIES = ("tool-heavy", "text-heavy", "multilingual", "rich")


def lines_of(messages: list[wire.Message]) -> bytes:
    """The JSON Lines of ``messages``, one wire.json.encode call per message."""
    return b"".join(wire.json.encode(m) + b"\n" for m in messages)


@pytest.mark.parametrize("family", FAMILIES)
def test_round_trip_corpus(family: str) -> None:
    """A transcript survives encode_lines -> decode_lines, one message per line."""
    messages = corpus_messages(family, 300)
    data = wire.json.encode_lines(messages)
    assert data == lines_of(messages)
    assert data.count(b"\n") == 300 and data.endswith(b"\n")
    assert wire.json.decode_lines(data) == messages


def test_exports() -> None:
    """wire.json exports exactly encode/decode, decode_lazy and the three JSON Lines functions."""
    assert wire.json.__all__ == [
        "decode",
        "decode_lazy",
        "decode_lines",
        "encode",
        "encode_lines",
        "iter_lines",
    ]
    assert wire.msgpack.__all__ == ["decode", "decode_lazy", "encode"]


def test_model_responses() -> None:
    """ModelResponse lines round trip with type=wire.ModelResponse."""
    responses = [
        wire.ModelResponse(message=m, stop_reason="tool_use", usage={"input_tokens": i})
        for i, m in enumerate(corpus_messages("tool-heavy", 40))
    ]
    data = wire.json.encode_lines(responses)
    assert wire.json.decode_lines(data, type=wire.ModelResponse) == responses


def test_empty() -> None:
    """No items encode to no bytes; no bytes decode to no items."""
    assert wire.json.encode_lines([]) == b""
    assert wire.json.decode_lines(b"") == []
    assert list(wire.json.iter_lines(io.BytesIO(b""))) == []


def test_encode_lines_accepts_iterables_and_canonical() -> None:
    """A generator works, and canonical=True sorts keys on every line."""
    messages = corpus_messages("tool-heavy", 20)
    assert wire.json.encode_lines(iter(messages)) == lines_of(messages)
    canonical = wire.json.encode_lines(messages, canonical=True)
    assert canonical == b"".join(wire.json.encode(m, canonical=True) + b"\n" for m in messages)


def test_lenient_layout() -> None:
    """Blank lines, CRLF endings and a missing last newline are all read."""
    messages = corpus_messages("tool-heavy", 5)
    one = [wire.json.encode(m) for m in messages]
    data = b"\n" + one[0] + b"\r\n\n  \n" + one[1] + b"\n" + b"\n".join(one[2:])
    assert wire.json.decode_lines(data) == messages
    assert list(wire.json.iter_lines(io.BytesIO(data))) == messages
    assert wire.json.decode_lines(data.decode()) == messages


@pytest.mark.parametrize("batch", [1, 64, 4096, 1 << 20])
def test_iter_lines_matches_decode_lines(batch: int) -> None:
    """Streaming in any batch size gives what decoding everything at once gives."""
    messages = corpus_messages("rich", 120) + corpus_messages("multilingual", 120)
    data = wire.json.encode_lines(messages)
    assert list(wire.json.iter_lines(io.BytesIO(data), chunk_size=batch)) == messages


def test_iter_line_batches_are_bounded(tmp_path: Path) -> None:
    """A real file streams in batches of about chunk_size, never everything at once."""
    messages = corpus_messages("tool-heavy", 2000)
    path = tmp_path / "log.jsonl"
    path.write_bytes(wire.json.encode_lines(messages))
    with path.open("rb") as f:
        batches = list(iter_line_batches(f, chunk_size=4096))
    assert len(batches) > 20
    assert max(len(b) for b in batches) < 200
    assert list(itertools.chain.from_iterable(batches)) == messages


def test_lossless_unknown_blocks() -> None:
    """Unknown blocks and provider keys survive JSON Lines both ways, byte for byte."""
    data = wire.json.encode_lines(corpus_messages("rich", 60))
    decoded = wire.json.decode_lines(data)
    assert any(isinstance(b, wire.UnknownBlock) for m in decoded for b in m.content)
    assert wire.json.encode_lines(decoded) == data


def _bad(line: bytes, at: int, total: int = 3000) -> bytes:
    messages = corpus_messages("tool-heavy", total)
    lines = [wire.json.encode(m) for m in messages]
    lines[at - 1] = line
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("at", [1, 2, 1999, 3000])
def test_invalid_json_names_the_line(at: int) -> None:
    """Invalid JSON anywhere, deep into a large input, is reported with its line number."""
    data = _bad(b'{"role": "user", "content": "cut', at)
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_lines(data)
    assert info.value.line == at
    with pytest.raises(wire.DecodeError) as info:
        list(wire.json.iter_lines(io.BytesIO(data), chunk_size=1000))
    assert info.value.line == at


def test_wrong_shape_names_line_and_path() -> None:
    """A well-formed line of the wrong shape raises ValidationError with line and path."""
    data = _bad(b'{"role": "robot", "content": "hi"}', 1234)
    with pytest.raises(wire.ValidationError) as info:
        wire.json.decode_lines(data)
    assert (info.value.line, info.value.path) == (1234, "$.role")
    assert "line 1234" in str(info.value)


@pytest.mark.parametrize(
    "line",
    [
        b'{"role": "user"} {"role": "user"}',
        b'{"role": "user"},{"role": "user"}',
        b"[]",
        b'"text"',
    ],
)
def test_one_object_per_line(line: bytes) -> None:
    """Two objects on one line, or a line that is not an object, is an error at that line."""
    with pytest.raises(wire.WireError) as info:
        wire.json.decode_lines(_bad(line, 7, 20))
    assert info.value.line == 7


def test_object_split_over_lines_is_an_error() -> None:
    """An object spread over two lines is refused at its first line."""
    data = b'{"role": "user", "content": "a"}\n{"role": "user",\n "content": "b"}\n'
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_lines(data)
    assert info.value.line == 2


def test_truncated_last_line() -> None:
    """A last line cut short is a TruncatedError naming the line and its byte offset."""
    whole = wire.json.encode_lines(corpus_messages("tool-heavy", 10))
    data = whole + b'{"role": "assistant", "content": "I wi'
    with pytest.raises(TruncatedError) as info:
        wire.json.decode_lines(data)
    assert (info.value.line, info.value.offset) == (11, len(whole))
    with pytest.raises(TruncatedError):
        list(wire.json.iter_lines(io.BytesIO(data)))


def test_line_too_long() -> None:
    """A stream reader refuses a line that grows past max_line without ending."""
    data = b'{"role": "user", "content": "hi"}\n' + b'{"role": "user", "content": "' + b"x" * 5000
    with pytest.raises(LineTooLongError) as info:
        list(wire.json.iter_lines(io.BytesIO(data), limits=Limits(max_line=1000), chunk_size=512))
    assert (info.value.line, info.value.offset, info.value.limit) == (2, 34, 1000)


def test_encode_error_names_the_line() -> None:
    """A value JSON cannot hold is refused with the line it would have gone to."""
    messages = corpus_messages("tool-heavy", 5)
    bad = wire.Message(
        role="assistant",
        content=[wire.ToolUseBlock(id="c", name="f", input={"x": "\ud800"})],
    )
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode_lines([*messages, bad])
    assert info.value.line == 6
    assert info.value.path == "$.content[0].input.x"


def test_type_must_be_one_item_type() -> None:
    """type= takes Message or ModelResponse; anything else is a TypeError."""
    with pytest.raises(TypeError):
        wire.json.decode_lines(b"", type=list[wire.Message])


def test_line_decoder_counts_lines_and_offsets() -> None:
    """LineDecoder reports the next line number and byte offset as it goes."""
    decoder = LineDecoder()
    assert decoder.feed(b'{"role": "user"}\n{"role"') == [wire.Message(role="user")]
    assert (decoder.line, decoder.offset, decoder.pending) == (2, 17, 7)
    assert decoder.feed(b': "tool"}\n') == [wire.Message(role="tool")]
    assert decoder.finish() == []


@given(messages=messages_st, cuts=st.lists(st.integers(0, 10_000), max_size=30))
def test_line_decoder_any_chunking(messages: list[wire.Message], cuts: list[int]) -> None:
    """LineDecoder fed the bytes cut anywhere gives the same messages as decode_lines."""
    data = wire.json.encode_lines(messages)
    decoder = LineDecoder(batch_bytes=16)
    out = []
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    for a, b in itertools.pairwise(bounds):
        out += decoder.feed(data[a:b])
    out += decoder.finish()
    assert out == messages == wire.json.decode_lines(data)


def test_line_decoder_one_byte_at_a_time() -> None:
    """Feeding one byte at a time gives every message, in order."""
    messages = corpus_messages("multilingual", 12) + corpus_messages("rich", 12)
    data = wire.json.encode_lines(messages)
    decoder = LineDecoder()
    out = []
    for i in range(len(data)):
        out += decoder.feed(data[i : i + 1])
    assert out + decoder.finish() == messages


def test_line_readers_take_limits() -> None:
    """decode_lines and iter_lines enforce Limits: size of the input, nesting of each line."""
    deep: Any = "leaf"
    for _ in range(20):
        deep = [deep]
    line = (
        wire.json.encode(wire.Message("assistant", [wire.ToolUseBlock("c", "f", {"v": deep})]))
        + b"\n"
    )
    data = wire.json.encode_lines([wire.Message("user", "hi")]) + line
    assert len(wire.json.decode_lines(data)) == 2
    shallow = wire.Limits(max_depth=10)
    with pytest.raises(wire.DecodeError) as err:
        wire.json.decode_lines(data, limits=shallow)
    assert err.value.line == 2
    with pytest.raises(wire.DecodeError) as err:
        list(wire.json.iter_lines(io.BytesIO(data), limits=shallow))
    assert err.value.line == 2
    with pytest.raises(wire.DecodeError):
        wire.json.decode_lines(data, limits=wire.Limits(max_size=len(data) - 1))


# --- issue 12: no good line is lost before a bad one; limits on complete lines -------------------


def _hundred_then_bad() -> tuple[list[wire.Message], bytes, bytes]:
    messages = corpus_messages("tool-heavy", 103)
    lines = wire.json.encode_lines(messages[:100]) + b'{"role": "robot"}\n'
    return messages, lines, wire.json.encode_lines(messages[100:])


def test_good_lines_before_a_bad_one_are_delivered() -> None:
    """100 good lines and a bad one in one chunk: the 100 come out, then line 101's error,
    then the lines after it, numbered right."""
    messages, head, tail = _hundred_then_bad()
    decoder = LineDecoder()
    assert decoder.feed(head + tail[:10]) == messages[:100]
    with pytest.raises(wire.ValidationError) as info:
        decoder.feed(tail[10:])
    assert (info.value.line, info.value.path) == (101, "$.role")
    assert decoder.feed() == messages[100:]
    assert (decoder.line, decoder.offset, decoder.pending) == (105, len(head + tail), 0)
    assert decoder.finish() == []


def test_iter_lines_yields_good_lines_before_the_bad_one(tmp_path: Path) -> None:
    """iter_lines over a real file yields the 100 good lines, then raises for line 101."""
    messages, head, tail = _hundred_then_bad()
    path = tmp_path / "bad.jsonl"
    path.write_bytes(head + tail)
    out = []
    with path.open("rb") as f, pytest.raises(wire.ValidationError) as info:
        out.extend(wire.json.iter_lines(f, chunk_size=1 << 20))
    assert (out, info.value.line) == (messages[:100], 101)


@pytest.mark.parametrize("chunk", [1000, 1 << 21])
def test_complete_long_line_is_refused(chunk: int) -> None:
    """A complete 1 MiB line is over max_line=1000 (and over max_size=1000) in any chunking:
    the line before it is delivered, the one after it can still be read."""
    short = wire.Message(role="user", content="hi")
    long = wire.Message(role="user", content="x" * (1 << 20))
    data = wire.json.encode_lines([short, long, short])
    for limits in (Limits(max_line=1000), Limits(max_size=1000)):
        decoder = LineDecoder(limits=limits)
        out: list[Any] = []
        with pytest.raises(LineTooLongError) as info:
            for i in range(0, len(data), chunk):
                out += decoder.feed(data[i : i + chunk])
            decoder.finish()
        assert (out, info.value.line, info.value.offset, info.value.limit) == ([short], 2, 31, 1000)
        with pytest.raises(LineTooLongError):
            list(wire.json.iter_lines(io.BytesIO(data), limits=limits))
        with pytest.raises(LineTooLongError) as info:
            wire.json.decode_lines(data, limits=Limits(max_line=1000))
        assert info.value.line == 2
    decoder = LineDecoder(limits=Limits(max_line=1000))
    assert decoder.feed(data[:31]) == [short]
    with pytest.raises(LineTooLongError):
        decoder.feed(data[31:])
    assert decoder.feed() == [short]


def test_line_of_exactly_max_line_is_accepted() -> None:
    """max_line counts the bytes before the newline: a line of exactly max_line passes."""
    line = wire.json.encode(wire.Message(role="user", content="x" * 100))
    limits = Limits(max_line=len(line))
    assert LineDecoder(limits=limits).feed(line + b"\n") == [
        wire.json.decode(line, type=wire.Message)
    ]
    with pytest.raises(LineTooLongError):
        LineDecoder(limits=Limits(max_line=len(line) - 1)).feed(line + b"\n")


class _CountingBuffer(bytearray):
    """A bytearray that counts the bytes its ``rfind`` / ``find`` calls search."""

    searched = 0

    def rfind(self, sub: Any, start: Any = 0, end: Any = None) -> int:  # type: ignore[override]
        stop = len(self) if end is None else end
        _CountingBuffer.searched += max(0, stop - (start or 0))
        return super().rfind(sub, start, stop)

    def find(self, sub: Any, start: Any = 0, end: Any = None) -> int:  # type: ignore[override]
        stop = len(self) if end is None else end
        _CountingBuffer.searched += max(0, stop - (start or 0))
        return super().find(sub, start, stop)


def test_long_line_is_searched_once() -> None:
    """A 4 MiB line fed in 1 KiB chunks: the decoder searches each byte for a newline a
    bounded number of times (main searched the whole unfinished line on every feed)."""
    message = wire.Message(role="user", content="x" * (4 << 20))
    data = wire.json.encode_lines([message])
    decoder = LineDecoder()
    assert decoder.feed(data[:1024]) == []
    decoder._buf = _CountingBuffer(decoder._buf)
    _CountingBuffer.searched = 0
    out = []
    for i in range(1024, len(data), 1024):
        out += decoder.feed(data[i : i + 1024])
    assert out + decoder.finish() == [message]
    assert _CountingBuffer.searched <= 3 * len(data)


@pytest.mark.parametrize("lazy", [False, True])
def test_a_last_line_without_newline_counts_and_keeps_its_limits(lazy: bool) -> None:
    """A last line without its newline is decoded (lazily too: its bytes read on use) and
    counted; exactly ``max_line`` bytes pass, one more is `LineTooLongError` naming its line,
    the limit and where it starts; a bad one is `TruncatedError` with line, path and offset."""
    first = b'{"role":"user","content":"hi"}\n'
    last = b'{"role":"assistant","content":"yo"}'
    decoder = LineDecoder(limits=Limits(max_line=len(last)), lazy=lazy)
    assert len(decoder.feed(first + last)) == 1
    (got,) = decoder.finish()
    assert (got.message if lazy else got) == wire.Message(role="assistant", content="yo")
    assert (decoder.line, decoder.finish()) == (3, [])

    with pytest.raises(LineTooLongError) as long_info:
        wire.json.decode_lines(first + last + b" ", limits=Limits(max_line=len(last)))
    err = long_info.value
    assert (err.line, err.limit, err.offset) == (2, len(last), len(first))
    assert err.message == (
        f"line longer than the limit of {len(last)} bytes, starting at byte offset {len(first)}"
    )

    bad = b'{"role":"user","content":"y'
    decoder = LineDecoder(lazy=lazy)
    assert len(decoder.feed(first + bad)) == 1
    with pytest.raises(TruncatedError) as cut_info:
        decoder.finish()
    cut = cut_info.value
    assert (cut.line, cut.path, cut.offset) == (2, "$", len(first))
    assert cut.message == (
        f"input ended inside line 2 at byte offset {len(first) + len(bad)} "
        "(no trailing newline): invalid JSON: Input data was truncated"
    )
    assert type(cut.__cause__) is wire.DecodeError
    assert decoder.line == 3


_A = b'{"role":"user","content":"a"}'


@pytest.mark.parametrize("blank", [b" ", b"\t", b"\r", b" \t\r "])
def test_a_blank_last_line_without_newline_is_nothing(blank: bytes) -> None:
    """A last line of JSON whitespace only (space, tab, CR) and no newline yields nothing."""
    assert wire.json.decode_lines(_A + b"\n" + blank) == [wire.Message("user", "a")]


@pytest.mark.parametrize("other", [b"\x0b", b"\x0c", b"\x1c"])
def test_a_last_line_of_other_whitespace_is_cut_not_skipped(other: bytes) -> None:
    """Vertical tab, form feed and other characters Python calls whitespace are not JSON's: a last
    line of them is reported as cut (TruncatedError on line 2), not skipped as blank."""
    with pytest.raises(TruncatedError) as info:
        wire.json.decode_lines(_A + b"\n" + other)
    assert (info.value.line, info.value.offset) == (2, len(_A) + 1)


def test_the_last_line_without_newline_is_held_to_the_callers_limits() -> None:
    """A last line without newline is decoded within the decoder's limits (not the defaults):
    nested past ``max_depth`` it is refused as cut, naming its line and the too-deep path."""
    deep = (
        b'{"role":"user","content":[{"type":"tool_use","id":"t","name":"f",'
        b'"input":{"v":[[[[[1]]]]]}}]}'
    )
    limits = Limits(max_depth=6)
    decoder = LineDecoder(limits=limits)
    assert decoder.feed(_A + b"\n" + deep) == [wire.Message("user", "a")]
    with pytest.raises(TruncatedError) as info:
        decoder.finish()
    assert info.value.line == 2
    assert "deeper than max_depth=6" in info.value.message
    assert len(wire.json.decode_lines(deep)) == 1  # within the default limits


def test_feeding_after_finish_goes_on_counting_lines_and_bytes() -> None:
    """After finish() took a last line without newline, more input continues the same stream:
    a newline at its first byte is a line, and offsets count from the bytes already read."""
    decoder = LineDecoder(limits=Limits(max_line=40))
    decoder.feed(_A)
    assert decoder.finish() == [wire.Message("user", "a")]
    assert decoder.feed(b"\n") == []
    assert decoder.line == 3
    with pytest.raises(LineTooLongError) as info:
        decoder.feed(b"x" * 50)
    assert (info.value.line, info.value.offset) == (3, len(_A) + 1)


def test_plain_items_are_encoded_in_one_call_never_line_by_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Messages that JSON holds unchanged (nulls included) are written by one msgspec call:
    the line-by-line path is not taken; a generator gives the same bytes, canonical sorted."""
    from minagent.wire.stream import _lines

    def line_by_line(items: Any, canonical: bool) -> bytes:
        raise AssertionError("took the line-by-line path")

    block = wire.ToolUseBlock(id="t", name="f", input={"b": None, "a": [1, 2.5]})
    items = [wire.Message("user", "a"), wire.Message("assistant", [block])]
    expected = b"".join(wire.json.encode(m) + b"\n" for m in items)
    canonical = b"".join(wire.json.encode(m, canonical=True) + b"\n" for m in items)
    with monkeypatch.context() as patch:
        patch.setattr(_lines, "_encode_each", line_by_line)
        assert wire.json.encode_lines(items) == expected
        assert wire.json.encode_lines(m for m in items) == expected
        assert wire.json.encode_lines(items, canonical=True) == canonical
    assert canonical != expected


def test_line_by_line_encoding_keeps_canonical_order() -> None:
    """Messages with unknown keys (the lossless path, line by line) are written with sorted keys
    when canonical, in their own order otherwise."""
    msg = wire.json.decode(b'{"zeta":1,"role":"user","content":"a","alpha":2}', type=wire.Message)
    assert wire.json.encode_lines([msg, msg], canonical=True) == (
        b'{"alpha":2,"content":"a","role":"user","zeta":1}\n' * 2
    )
    assert wire.json.encode_lines((msg,)) == wire.json.encode(msg) + b"\n"


@pytest.mark.parametrize("lazy", [False, True])
def test_lines_exactly_max_line_long_are_read(lazy: bool) -> None:
    """Every line exactly ``max_line`` bytes long (the batch longer than that) is read, lazily
    when asked; one byte more is refused, naming the line and its offset."""
    from minagent.wire.lazy import LazyMessage

    lines = [wire.json.encode(wire.Message("user", c)) for c in ("aa", "bb", "cc")]
    limits = Limits(max_line=len(lines[0]))
    data = b"\n".join(lines) + b"\n"
    decoder = LineDecoder(limits=limits, lazy=lazy)
    got = decoder.feed(data)
    assert [type(m) for m in got] == [LazyMessage if lazy else wire.Message] * 3
    assert [m.content for m in got] == ["aa", "bb", "cc"]
    longer = data + wire.json.encode(wire.Message("user", "ddd")) + b"\n"
    decoder = LineDecoder(limits=limits, lazy=lazy)
    assert len(decoder.feed(longer)) == 3  # the good lines first, then the error
    with pytest.raises(LineTooLongError) as info:
        decoder.feed()
    assert (info.value.line, info.value.offset) == (4, len(data))


def test_a_line_of_form_feed_in_the_middle_is_bad_not_blank() -> None:
    """Inside the input, a line holding only a form feed is not a blank line (JSON's whitespace
    is space, tab, CR): it is reported as line 2; blank lines of those are skipped."""
    a = wire.json.encode(wire.Message("user", "a"))
    assert wire.json.decode_lines(a + b"\n \t\r\n" + a + b"\n") == [wire.Message("user", "a")] * 2
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_lines(a + b"\n\x0c\n" + a + b"\n")
    assert info.value.line == 2


def test_decode_lines_inputs_and_size_limit() -> None:
    """decode_lines takes a memoryview and a str; input exactly max_size is read, one byte more
    is refused with the sizes; anything else is a TypeError naming what it got; a too-long line
    names its offset from the start of the input."""
    data = wire.json.encode_lines([wire.Message("user", "a")] * 2)
    assert wire.json.decode_lines(memoryview(data)) == [wire.Message("user", "a")] * 2
    assert wire.json.decode_lines(data.decode()) == [wire.Message("user", "a")] * 2
    assert len(wire.json.decode_lines(data, limits=Limits(max_size=len(data)))) == 2
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_lines(data, limits=Limits(max_size=len(data) - 1))
    assert info.value.message == (
        f"JSON Lines input of {len(data)} bytes is over the limit max_size={len(data) - 1}"
    )
    with pytest.raises(TypeError) as bad:
        wire.json.decode_lines(12345)  # type: ignore[call-overload]
    assert str(bad.value) == "data must be bytes, bytearray, memoryview or str; got 12345"
    long = data + b'{"role":"user","content":"' + b"x" * 50 + b'"}\n'
    with pytest.raises(LineTooLongError) as too_long:
        wire.json.decode_lines(long, limits=Limits(max_line=40))
    assert (too_long.value.line, too_long.value.offset) == (3, len(data))


def test_a_newline_at_the_first_byte_counts_as_a_line() -> None:
    """A new decoder fed a lone newline has read line 1; after a bad line, an empty line right
    behind it is counted too."""
    decoder = LineDecoder()
    assert decoder.feed(b"\n") == []
    assert decoder.line == 2
    decoder = LineDecoder()
    with pytest.raises(wire.ValidationError) as info:
        decoder.feed(b'{"role":"robot","content":"a"}\n\n')
    assert info.value.line == 1
    assert decoder.feed(b"") == [] and decoder.line == 3


def test_iter_lines_passes_type_chunk_size_and_lazy_on(tmp_path: Path) -> None:
    """iter_lines / iter_line_batches read ModelResponses with ``type=``, in reads of
    ``chunk_size`` bytes, and give Messages unless ``lazy=True``."""
    resp = wire.ModelResponse(wire.Message("assistant", "a"), stop_reason="end_turn")
    path = tmp_path / "r.jsonl"
    path.write_bytes(wire.json.encode_lines([resp] * 3))
    sizes: list[int] = []

    class Recording(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            sizes.append(-1 if size is None else size)
            return super().read(size)

    assert (
        list(iter_lines(Recording(path.read_bytes()), type=wire.ModelResponse, chunk_size=7))
        == [resp] * 3
    )
    assert set(sizes) == {7}
    path.write_bytes(wire.json.encode_lines([wire.Message("user", "a")]))
    with path.open("rb") as f:
        assert [type(m) for batch in iter_line_batches(f) for m in batch] == [wire.Message]


@pytest.mark.parametrize("as_generator", [False, True])
def test_encode_lines_refuses_nan_from_a_list_or_a_generator(as_generator: bool) -> None:
    """A NaN in a tool input is refused (JSON has none; msgspec would write null), naming the
    line and path, whether the messages come as a list or as a generator."""
    bad = wire.Message("assistant", [wire.ToolUseBlock(id="t", name="f", input={"x": math.nan})])
    items = [wire.Message("user", "a"), bad]
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode_lines((m for m in items) if as_generator else items)
    assert (info.value.line, info.value.path) == (2, "$.content[0].input.x")


def test_a_growing_too_long_line_fails_the_decoder_without_buffering_more() -> None:
    """A line that passes ``max_line`` before its newline fails the decoder for good: the same
    error again on every later feed, nothing consumed, and no more bytes buffered."""
    decoder = LineDecoder(limits=Limits(max_line=40))
    with pytest.raises(LineTooLongError) as first:
        decoder.feed(b'{"role":"user","content":"' + b"x" * 50)
    assert (decoder.offset, decoder.pending) == (0, 76)
    for _ in range(3):
        with pytest.raises(LineTooLongError) as again:
            decoder.feed(b"y" * 1000 + b"\n")
        assert again.value is first.value
    assert (decoder.offset, decoder.pending) == (0, 76)


def test_line_readers_say_which_types_they_take() -> None:
    """A type other than Message / ModelResponse, or lazy reading of responses, is a TypeError
    whose text says what is accepted."""
    from minagent.wire.stream import LineDecoder

    with pytest.raises(TypeError) as bad_type:
        LineDecoder(type=int)
    assert str(bad_type.value) == "type must be Message or ModelResponse; got <class 'int'>"
    with pytest.raises(TypeError) as lazy:
        LineDecoder(type=wire.ModelResponse, lazy=True)
    assert str(lazy.value) == "lazy=True reads Messages only"


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_a_line_just_over_max_line_after_a_short_one_is_refused(lazy: bool) -> None:
    """A span longer than ``max_line`` is measured line by line from each line's first byte: a
    second line one byte over the limit is refused (after the good line is handed out) with
    its number and offset, eagerly and lazily."""
    from minagent.wire.stream import LineDecoder

    first = b'{"role":"user","content":"a"}\n'
    second = b'{"role":"user","content":"' + b"x" * 20 + b'"}'
    limit = len(second) - 1
    decoder = LineDecoder(limits=Limits(max_line=limit), lazy=lazy)
    assert [m.content for m in decoder.feed(first + second + b"\n")] == ["a"]  # good lines first
    with pytest.raises(LineTooLongError) as info:
        decoder.feed(b"")
    assert (info.value.line, info.value.offset, info.value.limit) == (2, len(first), limit)


def test_lazy_lines_stay_lazy_in_a_span_longer_than_max_line() -> None:
    """Lazy reading hands out LazyMessage objects also when the bytes fed at once are longer
    than ``max_line`` (each line within it)."""
    from minagent.wire.lazy import LazyMessage
    from minagent.wire.stream import LineDecoder

    line = b'{"role":"user","content":"hello"}\n'
    decoder = LineDecoder(limits=Limits(max_line=len(line)), lazy=True)
    items = decoder.feed(line * 3)
    assert [type(item) for item in items] == [LazyMessage] * 3
    assert [item.content for item in items] == ["hello"] * 3
