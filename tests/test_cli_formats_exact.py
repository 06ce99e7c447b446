"""The CLI's file formats pinned exactly, in-process: records, batches, errors, bytes.

The mutation run over ``minagent.cli._formats`` (docs/mutation.md, issue 30) found these
behaviours covered only by the tests that spawn ``python -m minagent.cli`` (which mutmut cannot
attribute) or by loose assertions: how the readers cut batches across chunks, the line, frame,
path and byte offset of every error, the exact bytes the writers write, the provider body
writers' policy and messages, and `_provider_formats` / `_balanced`, which run at import.
"""

from __future__ import annotations

import io
import re
import struct
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from minagent import providers, wire
from minagent.cli import _formats
from minagent.cli._common import UsageError
from minagent.cli._formats import ArraySplitter, ReadNotes, WriteOptions
from minagent.providers import Request
from minagent.wire.errors import DecodeError, EncodeError, WireError
from minagent.wire.limits import DEFAULT_MAX_FRAME
from minagent.wire.stream import FrameTooLargeError, LineTooLongError, TruncatedError

M1, M2, M3 = (wire.Message(role="user", content=t) for t in "abc")
R1 = wire.ModelResponse(
    message=wire.Message(role="assistant", content="hi"), stop_reason="end_turn"
)
UNSORTED = wire.Message(
    role="assistant", content=[wire.ToolUseBlock(id="c", name="f", input={"b": 1, "a": 2})]
)
TOO_BIG = wire.Message(
    role="assistant", content=[wire.ToolUseBlock(id="c", name="f", input={"a": 2**70})]
)
"""An integer MessagePack cannot hold."""
BIN = wire.msgpack.decode(
    b"\x82\xa4role\xa9assistant\xa7content\x91\x84\xa4type\xa8tool_use\xa2id\xa1c"
    b"\xa4name\xa1f\xa5input\x81\xa1b\xc4\x01\x00",
    type=wire.Message,
)
"""A record only MessagePack can hold (a bin value): JSON cannot."""
THINKING = wire.Message(
    role="user",
    content=[wire.TextBlock(text="hi"), wire.ThinkingBlock(thinking="t", signature="s")],
)
"""A Chat Completions request cannot hold a thinking block in a user message."""


def _json(obj: Any) -> bytes:
    return wire.json.encode(obj)


def _frame(obj: Any) -> bytes:
    payload = wire.msgpack.encode(obj)
    return struct.pack(">I", len(payload)) + payload


def _read(
    read: Callable[..., Iterator[list[Any]]], data: bytes, tp: Any = None
) -> tuple[list[list[Any]], list[str], int]:
    """The batches a reader yields, its errors as ``Class: text`` and the blank lines noted."""
    errors: list[WireError] = []
    notes = ReadNotes()
    batches = list(read(io.BytesIO(data), tp, errors.append, notes))
    return batches, [f"{type(e).__name__}: {e}" for e in errors], notes.blank_lines


# --- ReadNotes, _relocate, _shift -----------------------------------------------------------------


def test_read_notes_describe_says_nothing_for_zero_and_counts_otherwise() -> None:
    """No blank line: ``""``; one: ``"1 blank line skipped"``; three: the plural."""
    assert ReadNotes().describe() == ""
    assert ReadNotes(1).describe() == "1 blank line skipped"
    assert ReadNotes(3).describe() == "3 blank lines skipped"


def test_relocate_puts_the_element_index_first_and_keeps_frame_and_cause() -> None:
    """A path-less error moves to ``$[4]``, a ``$.x`` one to ``$[4].x``; class, message, frame
    and cause stay, the line is the one given."""
    cause = ValueError("inner")
    err = DecodeError("bad", frame=3, cause=cause)
    moved = _formats._relocate(err, 4, line=7)
    assert (type(moved), moved.message, moved.path, moved.line, moved.frame) == (
        DecodeError,
        "bad",
        "$[4]",
        7,
        3,
    )
    assert moved.__cause__ is cause
    assert _formats._relocate(DecodeError("bad", path="$.x"), 12).path == "$[12].x"


def test_shift_adds_the_batch_start_to_the_first_index_only() -> None:
    """``$[2].input["a\\nb"][0]`` in a batch at 10 is ``$[12].input["a\\nb"][0]`` (a newline in
    a key included); message, class, line and cause stay; other paths come back as they are."""
    cause = ValueError("inner")
    err = EncodeError("boom", path='$[2].input["a\nb"][0]', line=9, cause=cause)
    moved = _formats._shift(err, 10)
    assert (type(moved), moved.message, moved.path, moved.line) == (
        EncodeError,
        "boom",
        '$[12].input["a\nb"][0]',
        9,
    )
    assert moved.__cause__ is cause
    for path in (None, "$.content", "$"):
        same = EncodeError("boom", path=path)
        assert _formats._shift(same, 10) is same


# --- JSON Lines -------------------------------------------------------------------------------


def test_jsonl_batches_end_at_the_last_newline_of_each_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chunks of 70 bytes over three 30-byte lines: the first batch holds both lines the chunk
    completes, typed Messages; the third line is the next batch."""
    monkeypatch.setattr(_formats, "CHUNK", 70)
    data = b"".join(_json(m) + b"\n" for m in (M1, M2, M3))
    assert len(_json(M1)) == 29
    assert _read(_formats._read_jsonl, data) == ([[M1, M2], [M3]], [], 0)


def test_jsonl_blank_lines_before_the_first_record_add_up_across_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Three newlines read two bytes at a time before any record: 3 blank lines, then the
    record on line 4."""
    monkeypatch.setattr(_formats, "CHUNK", 2)
    batches, errors, blank = _read(_formats._read_jsonl, b"\n\n\n" + _json(M1) + b"\n")
    assert ([r for b in batches for r in b], errors, blank) == ([M1], [], 3)


def test_jsonl_a_form_feed_line_is_a_record_not_a_blank_line() -> None:
    """Only space, tab and CR make a line blank: a form feed line is the first record (it
    selects Message and fails at line 1), so the ModelResponse on line 2 fails as a Message."""
    batches, errors, blank = _read(_formats._read_jsonl, b"\x0c\n" + _json(R1) + b"\n")
    assert (batches, blank) == ([[]], 0)
    assert errors == [
        "DecodeError: invalid JSON: JSON is malformed: invalid character (byte 0) (line 1, at $)",
        "ValidationError: Object missing required field `role` (line 2, at $)",
    ]


def test_jsonl_a_form_feed_after_the_last_newline_is_a_bad_record() -> None:
    """A form feed after the last newline is a record that fails at line 2, not a blank."""
    batches, errors, blank = _read(_formats._read_jsonl, _json(M1) + b"\n\x0c")
    assert (batches, blank) == ([[M1], []], 0)
    assert errors == [
        "DecodeError: invalid JSON: JSON is malformed: invalid character (byte 0) (line 2, at $)"
    ]


def test_jsonl_a_last_line_without_newline_alone_selects_the_type() -> None:
    """A file of one ModelResponse without a newline reads as that ModelResponse."""
    assert _read(_formats._read_jsonl, _json(R1)) == ([[R1]], [], 0)


def test_jsonl_the_last_line_without_newline_keeps_the_type_and_its_line() -> None:
    """After a Message line, a last ModelResponse line without newline is read as a Message
    (the type was chosen by line 1) and fails, located at line 2."""
    batches, errors, _ = _read(_formats._read_jsonl, _json(M1) + b"\n" + _json(R1))
    assert batches == [[M1], []]
    assert errors == ["ValidationError: Object missing required field `role` (line 2, at $)"]


def test_jsonl_a_line_over_the_limit_fails_at_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limit 10, chunks of 4: eleven bytes without a newline on line 2 raise
    LineTooLongError naming the limit and line 2."""
    monkeypatch.setattr(_formats, "CHUNK", 4)
    monkeypatch.setattr(_formats, "MAX_RECORD", 10)
    with pytest.raises(LineTooLongError) as caught:
        _read(_formats._read_jsonl, b"\n" + b"x" * 11)
    assert (str(caught.value), caught.value.line) == (
        "line longer than the limit of 10 bytes (line 2)",
        2,
    )


def test_jsonl_a_line_exactly_at_the_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record exactly as long as the limit, read in one chunk without its newline, is read."""
    size = len(_json(M1))
    monkeypatch.setattr(_formats, "CHUNK", size)
    monkeypatch.setattr(_formats, "MAX_RECORD", size)
    assert _read(_formats._read_jsonl, _json(M1) + b"\n") == ([[M1]], [], 0)


def test_lines_writer_writes_canonical_lines_and_locates_errors_by_output_line() -> None:
    """Canonical sorts the keys; a record JSON cannot hold, second of a batch written at 5,
    fails at output line 7 with its path."""
    out = io.BytesIO()
    writer = _formats._LinesWriter(out, WriteOptions(canonical=True))
    writer.write([M1], 0)
    writer.close()
    assert out.getvalue() == b'{"content":"a","role":"user"}\n'
    with pytest.raises(EncodeError) as caught:
        writer.write([M1, BIN], 5)
    assert str(caught.value) == (
        "cannot write JSON: binary data (MessagePack bin) cannot be written as JSON inside "
        "generic data (line 7, at $.content[0].input.b)"
    )


# --- JSON transcript ----------------------------------------------------------------------------


def test_balanced_matches_up_to_its_depth_with_brackets_by_kind_and_strings_whole() -> None:
    """Depth 3 matches ``[[[]]]`` and objects holding bracket characters in strings, not four
    levels nor a ``}`` closing ``[``; depth 1 matches flat objects only."""
    three = re.compile(_formats._balanced(3))
    for ok in (b"[[[]]]", b'[[{"a":"]}"}]]', b'{"x": [1, "[", {}], "y": "\\"]"}', b"[]"):
        assert three.fullmatch(ok), ok
    for bad in (b"[[[[]]]]", b"[}", b'{"a":[}', b'["]'):
        assert not three.fullmatch(bad), bad
    one = re.compile(_formats._balanced(1))
    assert one.fullmatch(b'{"a": "}"}')
    assert not one.fullmatch(b"[[]]")


def _split(*chunks: bytes) -> tuple[list[tuple[int, bytes]], ArraySplitter]:
    splitter = ArraySplitter()
    out = [element for chunk in chunks for element in splitter.feed(chunk)]
    return out, splitter


def _feed_error(*chunks: bytes) -> str:
    with pytest.raises(WireError) as caught:
        _split(*chunks)
    return f"{type(caught.value).__name__}: {caught.value}"


DEEP = b"[[[[[[[[{}]]]]]]]]"
"""An element nested deeper than the one-call regular expression (6)."""


def test_splitter_errors_name_the_line_of_the_offending_byte() -> None:
    """Not starting with ``[``, data after ``]`` and a ``}`` closing ``[`` each fail at the
    line of that byte, not the last line of the buffer."""
    assert _feed_error(b"\n\n x\n\n") == (
        "DecodeError: a JSON transcript is an array; it must start with '[' (line 3)"
    )
    assert _feed_error(b"[]\n x\n\n") == (
        "DecodeError: data after the end of the JSON transcript (line 2)"
    )
    assert _feed_error(b'[\n{"a":[}\n\n]') == (
        "DecodeError: invalid JSON transcript: '}' closes '[' (line 2)"
    )


def test_splitter_counts_deep_elements_one_each() -> None:
    """Two elements nested 9 deep then the end of input: 'after 2 elements'."""
    out, splitter = _split(b"[" + DEEP + b",\n" + DEEP)
    assert out == [(1, DEEP), (2, DEEP)]
    assert splitter.count == 2
    with pytest.raises(TruncatedError) as caught:
        splitter.finish()
    assert str(caught.value) == (
        "input ended inside the JSON transcript (after 2 elements) (line 2)"
    )


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64])
def test_splitter_cuts_the_same_elements_whatever_the_chunks(size: int) -> None:
    """Flat and deep elements fed in chunks of 1 to 64 bytes: the same elements with their
    start lines, and nothing held once the array is closed."""
    data = b'[{"a":"]"},\n' + DEEP + b',\n\n{"b":[1,{"c":"}"}]}, ' + DEEP + b"]\n"
    chunks = [data[i : i + size] for i in range(0, len(data), size)]
    out, splitter = _split(*chunks)
    assert out == [(1, b'{"a":"]"}'), (2, DEEP), (4, b'{"b":[1,{"c":"}"}]}'), (4, DEEP)]
    assert splitter.count == 4
    assert bytes(splitter._buf) == b""
    splitter.finish()


def test_splitter_holds_only_the_unfinished_element() -> None:
    """Inside an element it keeps the bytes from its first bracket; between elements, from
    the end of the last one."""
    out, splitter = _split(b'[{"a":1}, ')
    assert (out, bytes(splitter._buf)) == ([(1, b'{"a":1}')], b", ")
    out = splitter.feed(b"\n[[[[[[[[")
    assert (out, bytes(splitter._buf)) == ([], b"[[[[[[[[")
    assert splitter.feed(b"]]]]]]]],{}]") == [(2, b"[[[[[[[[]]]]]]]]"), (2, b"{}")]
    assert bytes(splitter._buf) == b""


def test_splitter_limits_an_unfinished_element_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limit 16: an unfinished element holding 17 bytes fails at the line it starts on (not the
    last line); 16 bytes, a long run of blanks before an element, or a long string outside any
    element do not."""
    monkeypatch.setattr(_formats, "MAX_RECORD", 16)
    assert _feed_error(b'[\n{"a":"' + b"x" * 9 + b"\n\n") == (
        "DecodeError: an element longer than the limit of 16 bytes (line 2)"
    )
    out, splitter = _split(b'[{"a":"' + b"x" * 10)
    assert (out, len(splitter._buf)) == ([], 16)
    out, splitter = _split(b"[" + b" " * 20 + b'{"a":"xx')
    assert (out, bytes(splitter._buf)) == ([], b'{"a":"xx')
    out, splitter = _split(b'[ "' + b"a" * 30)
    assert out == []


def test_read_json_cuts_batches_at_the_batch_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """29-byte elements: batch size 58 flushes every second element, 59 every third, 1 each
    one, the rest at the end; records are typed Messages."""
    data = _json([M1, M2, M3, M1, M2, M3])
    for batch, sizes in ((58, [2, 2, 2]), (59, [3, 3]), (1, [1] * 6), (1000, [6])):
        monkeypatch.setattr(_formats, "BATCH", batch)
        batches, errors, _ = _read(_formats._read_json, data)
        assert ([len(b) for b in batches], errors) == (sizes, []), batch
        assert [r for b in batches for r in b] == [M1, M2, M3, M1, M2, M3]


def test_read_json_detects_the_type_from_the_first_flushed_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Batches of one ModelResponse each: all three are read as ModelResponses."""
    monkeypatch.setattr(_formats, "BATCH", 1)
    assert _read(_formats._read_json, _json([R1, R1, R1])) == ([[R1], [R1], [R1]], [], 0)


def test_read_json_locates_errors_in_later_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of one: a bad element at index 2 on line 3 is ``$[2].role`` at line 3; the
    type chosen by the first batch stays (a ModelResponse last fails as a Message at $[3])."""
    monkeypatch.setattr(_formats, "BATCH", 1)
    data = b'[{"role":"user","content":"a"},\n{"role":"user","content":"b"},\n{"role":1},\n'
    batches, errors, _ = _read(_formats._read_json, data + _json(R1) + b"]")
    assert batches == [[M1], [M2], [], []]
    assert errors == [
        "ValidationError: Expected `str`, got `int` (line 3, at $[2].role)",
        "ValidationError: Object missing required field `role` (line 4, at $[3])",
    ]


def test_read_json_the_last_batch_keeps_the_type_of_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long Message flushed alone, then a shorter ModelResponse left for the final batch:
    read as a Message, it fails at ``$[1]``."""
    long = wire.Message(role="user", content="x" * 100)
    monkeypatch.setattr(_formats, "BATCH", len(_json(long)))
    assert len(_json(R1)) < len(_json(long))
    batches, errors, _ = _read(_formats._read_json, _json([long, R1]))
    assert batches == [[long], []]
    assert errors == ["ValidationError: Object missing required field `role` (line 1, at $[1])"]


def test_array_writer_joins_batches_with_one_comma_and_shifts_error_paths() -> None:
    """Batches of 1, 0 and 2 records make one array; a record JSON cannot hold, second of a
    batch at 4, fails at ``$[5]...``."""
    out = io.BytesIO()
    writer = _formats._ArrayWriter(out, WriteOptions())
    writer.write([M1], 0)
    writer.write([], 1)
    writer.write([M2, M3], 1)
    writer.close()
    assert out.getvalue() == _json([M1, M2, M3])
    with pytest.raises(EncodeError) as caught:
        _formats._ArrayWriter(io.BytesIO(), WriteOptions()).write([M1, BIN], 4)
    assert caught.value.path == "$[5].content[0].input.b"


# --- framed MessagePack ---------------------------------------------------------------------------


def test_frames_batches_number_frames_and_offsets_across_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chunks that end inside frames: each batch decodes typed records, a bad frame in a
    later batch is numbered in the whole file, the type chosen first stays, and a truncated
    last frame names its number and byte offset."""
    frames = [_frame(M1), _frame(M2), _frame({"role": 1}), _frame(R1)]
    size = len(frames[0])
    monkeypatch.setattr(_formats, "CHUNK", size + 2)
    data = b"".join(frames)
    with pytest.raises(TruncatedError) as caught:
        _read(_formats._read_frames, data + b"\x00\x00\x00\x05ab")
    offset = len(data)
    assert str(caught.value) == (
        f"input ended inside frame 4 (it starts at byte offset {offset}) (frame 4)"
    )
    batches, errors, _ = _read(_formats._read_frames, data)
    assert [r for b in batches for r in b] == [M1, M2]
    assert len(batches) > 2
    assert errors == [
        "ValidationError: Expected `str`, got `int` (frame 2, at $.role)",
        "ValidationError: Object missing required field `role` (frame 3, at $)",
    ]


def test_frames_an_empty_last_frame_is_a_record_that_fails() -> None:
    """A header of length 0 ending the file is frame 1, which does not decode; no truncation."""
    batches, errors, _ = _read(_formats._read_frames, _frame(M1) + b"\x00\x00\x00\x00")
    assert batches == [[M1]]
    assert errors == ["DecodeError: invalid MessagePack: Input data was truncated (frame 1, at $)"]


def test_frames_a_header_over_the_limit_names_frame_and_offset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A header one over the limit after two frames, in a later chunk: frame 2, at the byte
    offset of that header; a header exactly at the limit only truncates."""
    first, second = _frame(M1), _frame(M2)
    monkeypatch.setattr(_formats, "CHUNK", len(first) + 2)
    bad = struct.pack(">I", DEFAULT_MAX_FRAME + 1)
    with pytest.raises(FrameTooLargeError) as caught:
        _read(_formats._read_frames, first + second + bad)
    at = len(first) + len(second)
    assert (str(caught.value), caught.value.frame) == (
        f"frame of {DEFAULT_MAX_FRAME + 1} bytes exceeds the limit of {DEFAULT_MAX_FRAME} "
        f"bytes (header at byte offset {at}) (frame 2)",
        2,
    )
    monkeypatch.setattr(_formats, "CHUNK", 1 << 16)
    with pytest.raises(FrameTooLargeError) as caught:
        _read(_formats._read_frames, first + bad)
    assert caught.value.frame == 1
    with pytest.raises(TruncatedError) as truncated:
        _read(_formats._read_frames, struct.pack(">I", DEFAULT_MAX_FRAME))
    assert str(truncated.value) == (
        "input ended inside frame 0 (it starts at byte offset 0) (frame 0)"
    )


def test_frames_writer_canonical_sorts_keys_and_numbers_bad_frames() -> None:
    """Canonical frames hold the sorted-key encoding (unlike the plain ones); a record
    MessagePack cannot hold, second of a batch at 3, fails as frame 4, either way."""
    out = io.BytesIO()
    writer = _formats._FramesWriter(out, WriteOptions(canonical=True))
    writer.write([UNSORTED, M1], 0)
    writer.close()
    payloads = [wire.msgpack.encode(m, canonical=True) for m in (UNSORTED, M1)]
    expected = b"".join(struct.pack(">I", len(p)) + p for p in payloads)
    assert out.getvalue() == expected
    assert expected != _frame(UNSORTED) + _frame(M1)
    for canonical in (True, False):
        plain = _formats._FramesWriter(io.BytesIO(), WriteOptions(canonical=canonical))
        with pytest.raises(EncodeError) as caught:
            plain.write([M1, TOO_BIG], 3)
        assert (caught.value.frame, caught.value.path) == (4, "$.content[0].input.a"), canonical


# --- provider bodies --------------------------------------------------------------------------


def _body(module: str, what: str, batches: list[list[Any]], **options: Any) -> bytes:
    out = io.BytesIO()
    writer = _formats._BodyWriter(out, providers.get(module), what, WriteOptions(**options))
    for index, batch in enumerate(batches):
        writer.write(batch, index)
    writer.close()
    return out.getvalue()


def test_body_writer_makes_one_request_from_every_batch() -> None:
    """Messages from two batches (and one alone) make one request body with all of them."""
    chat = providers.get("openai_chat")
    assert _body("openai_chat", "request", [[M1], [M2, M3]]) == chat.encode_request(
        Request(messages=[M1, M2, M3])
    )
    assert _body("openai_chat", "request", [[M1]]) == chat.encode_request(Request(messages=[M1]))


def test_body_writer_passes_the_unsupported_policy_for_requests() -> None:
    """With ``drop``, a thinking block a Chat request cannot hold is dropped and listed,
    from Messages and from a Request alike; with ``error`` it fails."""
    for items in ([THINKING], [Request(messages=[THINKING])]):
        dropped: list[Any] = []
        body = _body("openai_chat", "request", [items], unsupported="drop", dropped=dropped)
        assert body == b'{"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}'
        assert [(d.path, d.kind) for d in dropped] == [("$.messages[0].content[1]", "content")]
        with pytest.raises(WireError):
            _body("openai_chat", "request", [items])


def test_body_writer_refuses_what_is_not_one_body() -> None:
    """A request from a ModelResponse, and a response from two records or from a Message,
    fail with UsageError messages that count the records."""
    with pytest.raises(UsageError) as caught:
        _body("gemini", "request", [[R1]])
    assert str(caught.value) == "a request body is made from Messages (a transcript)"
    for items, count in (([R1], [R1]), "2 records"), (([M1],), "1 record"):
        with pytest.raises(UsageError) as caught:
            _body("gemini", "response", list(items))
        assert str(caught.value) == (
            "a response body holds exactly one ModelResponse; the input has " + count
        )


def test_provider_formats_registers_a_request_and_a_response_format() -> None:
    """``_provider_formats("gemini", "gemini")``: names, no extensions, help lines, not
    streaming; the readers decode one body, the writers encode one with the options given."""
    gemini = providers.get("gemini")
    request_fmt, response_fmt = _formats._provider_formats("gemini", "gemini")
    assert [(f.name, f.extensions, f.summary, f.streams) for f in (request_fmt, response_fmt)] == [
        ("gemini-request", (), "gemini request body (minagent.providers.gemini)", False),
        ("gemini-response", (), "gemini response body (minagent.providers.gemini)", False),
    ]
    assert request_fmt.streams is False and response_fmt.streams is False
    request_body = gemini.encode_request(Request(messages=[M1, M2]))
    response_body = gemini.encode_response(R1)
    assert _read(request_fmt.read, request_body) == (
        [[gemini.decode_request(request_body)]],
        [],
        0,
    )
    assert _read(response_fmt.read, response_body) == (
        [[gemini.decode_response(response_body)]],
        [],
        0,
    )
    out = io.BytesIO()
    writer = request_fmt.writer(out, WriteOptions())
    writer.write([M1, M2], 0)
    writer.close()
    assert out.getvalue() == request_body
    redacted = wire.ModelResponse(
        message=wire.Message(
            role="assistant",
            content=[wire.RedactedThinkingBlock(data="zz"), wire.TextBlock(text="hi")],
        ),
        stop_reason="end_turn",
    )
    out, dropped = io.BytesIO(), []
    writer = response_fmt.writer(out, WriteOptions(unsupported="drop", dropped=dropped))
    writer.write([redacted], 0)
    writer.close()
    assert out.getvalue() == gemini.encode_response(R1)
    assert [(d.path, d.kind) for d in dropped] == [("$.message.content[0]", "metadata")]
