"""Properties of every stream reader: random bytes and random JSON events of every shape, in any
chunking and with any line ends, give our own errors (`WireError` subclasses) or a response,
never another exception; and a stream's events are the same however it is split."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minagent.providers import anthropic_stream as A
from minagent.providers import gemini_stream as G
from minagent.providers import openai_chat_stream as C
from minagent.providers import openai_responses_stream as R
from minagent.providers._sse import SSEParser
from minagent.wire.errors import WireError
from minagent.wire.limits import Limits
from tests.budget import scaled

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Any JSON value, small."""

SMALL = st.integers(-1, 3)
TEXT = st.text(max_size=6)


def obj(**keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """An object with any subset of ``keys`` (each value mostly plausible, sometimes any JSON),
    or now and then any JSON value at all."""
    fields = {k: st.one_of(v, v, v, JSON) for k, v in keys.items()}
    return st.one_of(
        st.fixed_dictionaries({}, optional=fields), st.fixed_dictionaries({}, optional=fields), JSON
    )


def typed(types: list[str], **keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """An object whose ``type`` is one of ``types`` (or another string), with ``keys``."""
    return st.builds(
        lambda t, rest: dict(rest, type=t) if type(rest) is dict else rest,
        st.one_of(st.sampled_from(types), st.sampled_from(types), st.sampled_from(types), TEXT),
        obj(**keys),
    )


A_BLOCK = typed(
    [
        "text",
        "thinking",
        "tool_use",
        "server_tool_use",
        "redacted_thinking",
        "web_search_tool_result",
    ],
    text=TEXT,
    thinking=TEXT,
    signature=TEXT,
    id=TEXT,
    name=TEXT,
    input=JSON,
    citations=st.none() | st.lists(JSON, max_size=2),
)
A_DELTA = typed(
    ["text_delta", "thinking_delta", "signature_delta", "input_json_delta", "citations_delta"],
    text=TEXT,
    thinking=TEXT,
    signature=TEXT,
    partial_json=st.sampled_from(['{"a":', "1}", "[", "{}", '"x"', ""]) | TEXT,
    citation=JSON,
)
COUNTS = st.dictionaries(
    st.sampled_from(["input_tokens", "output_tokens", "cache_read_input_tokens"]), st.none() | SMALL
)
A_EVENT = typed(
    [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    ],
    index=SMALL,
    message=obj(
        id=TEXT,
        model=TEXT,
        role=st.just("assistant"),
        content=st.lists(A_BLOCK, max_size=2),
        stop_reason=st.none() | TEXT,
        usage=st.none() | COUNTS,
    ),
    content_block=A_BLOCK,
    delta=A_DELTA
    | obj(stop_reason=st.sampled_from(["end_turn", "max_tokens"]), stop_sequence=st.none()),
    usage=st.none() | COUNTS,
    error=JSON,
)

C_CALL = obj(
    index=SMALL,
    id=TEXT,
    type=st.just("function"),
    function=obj(name=TEXT, arguments=TEXT),
    extra_content=JSON,
)
C_CHOICE = obj(
    index=SMALL,
    delta=obj(
        role=st.just("assistant"),
        content=st.none() | TEXT,
        refusal=st.none() | TEXT,
        reasoning_content=TEXT,
        tool_calls=st.lists(C_CALL, max_size=2),
    ),
    logprobs=st.none() | obj(content=st.lists(JSON, max_size=2)),
    finish_reason=st.none() | st.sampled_from(["stop", "length", "tool_calls"]),
    native=JSON,
)
C_CHUNK = obj(
    id=TEXT,
    object=st.just("chat.completion.chunk"),
    created=SMALL,
    model=TEXT,
    choices=st.lists(C_CHOICE, max_size=2),
    usage=st.none() | COUNTS,
    error=JSON,
    x_groq=JSON,
)

R_PART = typed(
    ["output_text", "refusal", "reasoning_text", "summary_text"],
    text=TEXT,
    refusal=TEXT,
    annotations=st.lists(JSON, max_size=2),
)
R_ITEM = typed(
    ["message", "function_call", "reasoning", "custom_tool_call", "web_search_call"],
    id=TEXT,
    role=st.just("assistant"),
    content=st.lists(R_PART, max_size=2),
    summary=st.lists(R_PART, max_size=2),
    arguments=TEXT,
    name=TEXT,
    call_id=TEXT,
    status=st.just("completed"),
)
R_RESPONSE = obj(
    id=TEXT,
    object=st.just("response"),
    created_at=SMALL,
    model=TEXT,
    status=st.sampled_from(["completed", "incomplete", "in_progress"]),
    output=st.lists(R_ITEM, max_size=2),
    incomplete_details=st.none() | obj(reason=st.just("max_output_tokens")),
    usage=st.none() | COUNTS,
)
R_EVENT = typed(
    [
        "response.created",
        "response.in_progress",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.reasoning_summary_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.refusal.delta",
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.custom_tool_call_input.delta",
        "response.output_text.annotation.added",
        "response.web_search_call.searching",
        "error",
    ],
    response=R_RESPONSE,
    output_index=SMALL,
    content_index=SMALL,
    summary_index=SMALL,
    annotation_index=SMALL,
    item=R_ITEM,
    part=R_PART,
    delta=TEXT,
    text=TEXT,
    arguments=TEXT,
    annotation=JSON,
)

G_PART = obj(
    text=TEXT, thought=st.booleans(), thoughtSignature=TEXT, functionCall=obj(name=TEXT, args=JSON)
)
G_CANDIDATE = obj(
    index=SMALL,
    content=obj(role=st.just("model"), parts=st.lists(G_PART, max_size=3)),
    finishReason=st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY"]),
)
G_CHUNK = obj(
    candidates=st.lists(G_CANDIDATE, max_size=2),
    usageMetadata=obj(promptTokenCount=SMALL, candidatesTokenCount=SMALL),
    modelVersion=TEXT,
    responseId=TEXT,
    promptFeedback=obj(blockReason=TEXT),
    error=JSON,
)


def sse_stream(events: list[Any], names: list[str], eol: bytes) -> bytes:
    out = []
    for i, event in enumerate(events):
        name = names[i % len(names)] if names else ""
        head = f"event: {name}{eol.decode()}".encode() if name else b""
        out.append(head + b"data: " + json.dumps(event).encode() + eol + eol)
    return b"".join(out)


def array_stream(events: list[Any], eol: bytes) -> bytes:
    return b"[" + (b"," + eol).join(json.dumps(e).encode() for e in events) + b"]"


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


READERS: dict[str, Callable[[], Any]] = {
    "anthropic": lambda: A.StreamAccumulator(Limits(max_event=4096)),
    "openai_chat": lambda: C.StreamAccumulator(Limits(max_event=4096)),
    "openai_responses": lambda: R.StreamAccumulator(Limits(max_event=4096)),
    "gemini": lambda: G.StreamAccumulator(limits=Limits(max_event=4096)),
    "gemini_array": lambda: G.StreamAccumulator(sse=False, limits=Limits(max_event=4096)),
}
EVENTS = {
    "anthropic": A_EVENT,
    "openai_chat": C_CHUNK | st.just("[DONE]"),
    "openai_responses": R_EVENT,
    "gemini": G_CHUNK,
    "gemini_array": G_CHUNK,
}


PREFIX = {
    "anthropic": [
        {
            "type": "message_start",
            "message": {"id": "m", "model": "c", "role": "assistant", "content": [], "usage": {}},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
    ],
    "openai_chat": [
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"role": "assistant"}}],
        }
    ],
    "openai_responses": [
        {"type": "response.created", "response": {"id": "r", "object": "response", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "role": "assistant", "content": []},
        },
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": ""},
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"type": "function_call", "arguments": ""},
        },
    ],
    "gemini": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]}],
    "gemini_array": [{"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]}],
}
"""A valid start per reader, so that random events meet open blocks, items and parts."""


def only_our_errors(acc: Any, chunks: list[bytes]) -> None:
    """Feed, close, then ask for the response and body: anything but a WireError fails."""
    try:
        for chunk in chunks:
            acc.feed(chunk)
        acc.close()
    except WireError:
        pass
    for ask in (acc.response, acc.body):
        with contextlib.suppress(WireError):
            ask()


EOLS = st.sampled_from([b"\n", b"\r\n", b"\r"])
CUTS = st.lists(st.integers(0, 10**6), max_size=8)


@pytest.mark.parametrize("reader", sorted(READERS))
@settings(max_examples=scaled(200), deadline=None)
@given(st.data(), EOLS, CUTS)
def test_random_events_give_only_our_errors(
    reader: str, data: Any, eol: bytes, cuts: list[int]
) -> None:
    """Random JSON events of every shape, in any chunking, with any line ends, give a response
    or a WireError from every accumulator, never a foreign exception."""
    events = data.draw(st.lists(EVENTS[reader], max_size=8))
    if data.draw(st.booleans()):
        events = PREFIX[reader] + events
    if reader == "gemini_array":
        stream = array_stream(events, eol)
    else:
        raw = [e if e != "[DONE]" else None for e in events]
        stream = sse_stream(raw, data.draw(st.lists(TEXT, max_size=2)), eol)
        stream = stream.replace(b"data: null", b"data: [DONE]")
    only_our_errors(READERS[reader](), split(stream, cuts))


@settings(max_examples=scaled(100), deadline=None)
@given(st.sampled_from(sorted(READERS)), st.binary(max_size=300), CUTS)
def test_random_bytes_give_only_our_errors(reader: str, data: bytes, cuts: list[int]) -> None:
    """Random bytes, in any chunking, give only WireErrors from every accumulator."""
    only_our_errors(READERS[reader](), split(data, cuts))


@settings(max_examples=scaled(100), deadline=None)
@given(st.sampled_from(sorted(READERS)), st.lists(st.binary(max_size=40), max_size=6), EOLS, CUTS)
def test_random_event_payloads_give_only_our_errors(
    reader: str, payloads: list[bytes], eol: bytes, cuts: list[int]
) -> None:
    """Well-framed events whose data are random bytes (bad JSON, bad UTF-8) give only
    WireErrors."""
    if reader == "gemini_array":
        stream = b"[" + b",".join(b"{" + p + b"}" for p in payloads) + b"]"
    else:
        stream = b"".join(
            b"data: " + p.replace(b"\n", b"").replace(b"\r", b"") + eol + eol for p in payloads
        )
    only_our_errors(READERS[reader](), split(stream, cuts))


@pytest.mark.parametrize("reader", sorted(READERS))
@settings(max_examples=scaled(60), deadline=None)
@given(st.data(), EOLS, CUTS)
def test_chunking_does_not_change_the_outcome(
    reader: str, data: Any, eol: bytes, cuts: list[int]
) -> None:
    """The same stream gives the same events applied and the same response or error message
    whether it comes whole or split anywhere."""
    events = data.draw(st.lists(EVENTS[reader], max_size=6))
    if reader == "gemini_array":
        stream = array_stream(events, eol)
    else:
        stream = sse_stream(events, [], eol).replace(b'data: "[DONE]"', b"data: [DONE]")

    def outcome(chunks: list[bytes]) -> Any:
        acc = READERS[reader]()
        try:
            for chunk in chunks:
                acc.feed(chunk)
            result: Any = acc.close()
        except WireError as err:
            result = (type(err).__name__, err.message, getattr(err, "frame", None))
        return acc.events, result

    assert outcome(split(stream, cuts)) == outcome([stream])


@settings(max_examples=scaled(100), deadline=None)
@given(st.binary(max_size=200), st.integers(1, 64), CUTS)
def test_sse_any_bytes_any_limit(data: bytes, limit: int, cuts: list[int]) -> None:
    """The SSE parser takes any bytes under any max_event: events whose lines fit, or a
    StreamError; the same events whole or split."""

    def run(chunks: list[bytes]) -> Any:
        parser = SSEParser(Limits(max_event=limit))
        got: list[Any] = []
        try:
            for chunk in chunks:
                got += parser.feed(chunk)
            got += parser.close()
        except WireError as err:
            got += err.received  # type: ignore[attr-defined]
            return got, err.message
        return got, None

    whole = run([data])
    assert run(split(data, cuts))[0] == whole[0] or whole[1] is not None


@pytest.mark.parametrize("reader", sorted(READERS))
@settings(max_examples=scaled(200), deadline=None)
@given(st.data(), EOLS)
def test_one_random_event_after_a_valid_start(reader: str, data: Any, eol: bytes) -> None:
    """One random event after a valid start (open blocks, items, parts), then the stream's end
    or not: every accumulator gives a response or a WireError, and so does asking for the
    response and the body afterwards."""
    events = [*PREFIX[reader], data.draw(EVENTS[reader])]
    if data.draw(st.booleans()):
        events.append(data.draw(EVENTS[reader]))
    if reader == "gemini_array":
        stream = array_stream(events, eol)
    else:
        stream = sse_stream(events, [], eol).replace(b'data: "[DONE]"', b"data: [DONE]")
    only_our_errors(READERS[reader](), [stream])
