"""The stream translator's fast paths give the bytes the general path gives: the Anthropic
accumulator's `snapshot` (each block decoded once) against `response`, the Chat adapter's
`stream_blocks` against `encode_response`, and exact Chat chunks for recorded streams cut
every way."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from minagent.providers import StreamError, anthropic, openai_chat, translate_stream
from minagent.providers.anthropic_stream import StreamAccumulator
from minagent.wire import Message, ModelResponse, TextBlock, _codec
from minagent.wire.extra import Extra

from .test_provider_recordings import RESPONSES, STREAMS, _provider, _rel, _wire_bytes

ANTHROPIC_STREAMS = [p for p in STREAMS if _provider(p) == "anthropic"]
ANTHROPIC_RESPONSES = [p for p in RESPONSES if _provider(p) == "anthropic"]


def events_of(data: bytes) -> list[bytes]:
    """The SSE events of ``data``, one chunk each."""
    return [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]


def sse(*events: dict[str, Any]) -> bytes:
    """Anthropic SSE bytes of ``events``."""
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def test_recordings_exist() -> None:
    """The checks below run over recorded Anthropic streams and responses."""
    assert len(ANTHROPIC_STREAMS) >= 10
    assert len(ANTHROPIC_RESPONSES) >= 10


@pytest.mark.parametrize("path", ANTHROPIC_STREAMS, ids=_rel)
def test_snapshot_is_the_response_at_every_event(path: Any) -> None:
    """After every event of a recorded stream, `snapshot` encodes to the very bytes
    `response` does (extra keys in the same order: the adapter's slow path where a block
    takes it), asked once per event and only at the end."""
    events = events_of(_wire_bytes(path, "anthropic"))
    every = StreamAccumulator()
    for i, event in enumerate(events):
        every.feed(event)
        if every._message is None:
            continue
        snap, whole = every.snapshot(), every.response()
        assert _codec.JSON.encode(snap, False) == _codec.JSON.encode(whole, False), i
    once = StreamAccumulator()
    for event in events:
        once.feed(event)
    last = once.close(snapshot=True)
    assert _codec.JSON.encode(last, False) == _codec.JSON.encode(every.close(), False)


START = {
    "type": "message_start",
    "message": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    },
}
STOP = {"type": "message_stop"}


def block(index: int, body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": index, "content_block": body},
        {"type": "content_block_stop", "index": index},
    ]


def test_snapshot_keeps_the_slow_paths_key_order() -> None:
    """An unknown block sends the whole response down the adapter's slow path, which keeps
    the body's key order (``container`` before ``stop_details`` here, the other way round on
    the fast path): the snapshot's extra has the slow path's order too, byte for byte."""
    delta = {
        "type": "message_delta",
        "delta": {
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "container": {"id": "c1"},
            "stop_details": {"k": 1},
        },
        "usage": {"output_tokens": 5},
    }
    data = sse(START, *block(0, {"type": "fallback", "to": "x"}), delta, STOP)
    acc = StreamAccumulator()
    acc.feed(data)
    snap, whole = acc.close(snapshot=True), acc.response()
    assert _codec.JSON.encode(snap, False) == _codec.JSON.encode(whole, False)
    assert list(whole.extra) == [
        "from_provider",
        "stop_sequence",
        "container",
        "stop_details",
    ]
    assert list(snap.extra) == list(whole.extra)


def test_snapshot_refuses_what_the_response_refuses() -> None:
    """A block the adapter refuses (a tool_use block whose id is not a string) makes
    `snapshot` raise the very `StreamError` `response` raises: same text, same event."""
    bad = {"type": "tool_use", "id": 5, "name": "f", "input": {}}
    data = sse(START, *block(0, bad))
    acc = StreamAccumulator()
    acc.feed(data)
    with pytest.raises(StreamError) as whole:
        acc.response()
    with pytest.raises(StreamError) as snap:
        acc.snapshot()
    assert (str(snap.value), snap.value.frame) == (str(whole.value), whole.value.frame)
    assert snap.value.frame == 3


def test_snapshot_blocks_decoded_once() -> None:
    """A stopped block is decoded once: the next snapshot holds the same block object."""
    data = sse(START, *block(0, {"type": "text", "text": "hi"}))
    acc = StreamAccumulator()
    acc.feed(data)
    first = acc.snapshot().message.content
    second = acc.snapshot().message.content
    assert first == second
    assert first is not second
    assert first[0] is second[0]


@pytest.mark.parametrize("path", ANTHROPIC_RESPONSES, ids=_rel)
@pytest.mark.parametrize("extensions", [False, True])
def test_stream_blocks_is_the_encoded_message(path: Any, extensions: bool) -> None:
    """`openai_chat.stream_blocks` writes the content and tool calls `encode_response`
    writes for a recorded Anthropic response (strict: the whole message), and drops or
    refuses what it drops or refuses."""
    response = anthropic.decode_response(path.read_bytes())
    for policy in ("drop", "error"):
        outs = []
        for encode in (openai_chat.encode_response, openai_chat.stream_blocks):
            dropped: list[Any] = []
            try:
                body = json.loads(
                    encode(
                        response,
                        unsupported=policy,
                        dropped=dropped,
                        extensions=extensions,
                        id="x",
                        model="m",
                        created=1,
                    )
                )
            except Exception as err:  # the same refusal from both
                outs.append((type(err), str(err)))
                continue
            message = body["choices"][0]["message"]
            content = [dropped_ for dropped_ in dropped if dropped_.kind == "content"]
            if extensions:
                message = {k: message.get(k) for k in ("content", "tool_calls")}
            outs.append((message, content))
        assert outs[0] == outs[1], policy


FALLBACK = "provider-real/anthropic/stream_fallback.chunks.txt"
TOOL_USE = "provider-streams/anthropic/tool_use.sse"
HEADS = {
    FALLBACK: (
        'data: {"id":"msg_01FallbackStreamAbcdefghij","object":"chat.completion.chunk",'
        '"created":1700000000,"model":"claude-fable-5","choices":['
    ),
    TOOL_USE: (
        'data: {"id":"msg_019Q1hrJbZG26Fb9BQhrkHEr","object":"chat.completion.chunk",'
        '"created":1700000000,"model":"claude-sonnet-4-20250514","choices":['
    ),
}
EXPECTED = {
    FALLBACK: (
        [
            '{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
            '{"index":0,"delta":{"content":""},"finish_reason":null}]}',
            '{"index":0,"delta":{"content":"The printing press was invented "},'
            '"finish_reason":null}]}',
            '{"index":0,"delta":{"content":"by Johannes Gutenberg around 1440."},'
            '"finish_reason":null}]}',
            '{"index":0,"logprobs":null,"delta":{},"finish_reason":"stop"}]}',
            '],"usage":{"prompt_tokens":412,"prompt_tokens_details":{"cached_tokens":0},'
            '"completion_tokens":264,"total_tokens":676}}',
        ],
        [
            ("$.stop_sequence", "metadata"),
            ("$.message.content[0]", "content"),
            ("$.usage_extra.iterations", "metadata"),
        ],
    ),
    TOOL_USE: (
        [
            '{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
            '{"index":0,"delta":{"content":""},"finish_reason":null}]}',
            '{"index":0,"delta":{"content":"I"},"finish_reason":null}]}',
            '{"index":0,"delta":{"content":"\'ll check the current weather in Paris for you."},'
            '"finish_reason":null}]}',
            '{"index":0,"delta":{"tool_calls":[{"id":"toolu_01NRLabsLyVHZPKxbKvkfSMn",'
            '"type":"function","function":{"name":"get_weather",'
            '"arguments":"{\\"location\\":\\"Paris\\"}"},"index":0}]},"finish_reason":null}]}',
            '{"index":0,"logprobs":null,"delta":{},"finish_reason":"tool_calls"}]}',
            '],"usage":{"prompt_tokens":377,"prompt_tokens_details":{"cached_tokens":0},'
            '"completion_tokens":65,"total_tokens":442}}',
        ],
        [
            ("$.stop_sequence", "metadata"),
            ("$.message.content[1].caller", "metadata"),
            ("$.usage_extra.service_tier", "metadata"),
        ],
    ),
}
STREAMS_BY = {_rel(p): p for p in STREAMS}


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("cut", ["whole", "events", "bytes"])
def test_exact_chat_chunks_however_cut(name: str, cut: str) -> None:
    """A recorded stream with an unknown block (dropped) or a tool call becomes these exact
    Chat chunks and this exact dropped list, whole, an event per chunk or a byte per chunk."""
    data = _wire_bytes(STREAMS_BY[name], "anthropic")
    chunks = {
        "whole": [data],
        "events": events_of(data),
        "bytes": [data[i : i + 1] for i in range(len(data))],
    }[cut]
    dropped: list[Any] = []
    out = b"".join(
        translate_stream(
            chunks,
            "anthropic",
            "openai_chat",
            unsupported="drop",
            dropped=dropped,
            created=1_700_000_000,
        )
    )
    lines, drops = EXPECTED[name]
    assert out.decode().split("\n\n") == [HEADS[name] + line for line in lines] + [
        "data: [DONE]",
        "",
    ]
    assert [(d.path, d.kind) for d in dropped] == drops


USAGES: dict[str, tuple[dict[str, int], dict[str, Any], str | None, str, list[str]]] = {
    "anthropic": (
        {
            "input_tokens": 12,
            "cache_creation_input_tokens": 3,
            "cache_read_input_tokens": 4,
            "cache_creation.ephemeral_5m_input_tokens": 3,
            "output_tokens": 29,
            "server_tool_use.web_search_requests": 2,
            "output_tokens_details.thinking_tokens": 7,
        },
        {"service_tier": "standard", "inference_geo": "x"},
        "anthropic",
        '{"prompt_tokens":19,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens":29,"completion_tokens_details":{"reasoning_tokens":7},"total_tokens":48}',
        [
            "$.usage.cache_creation.ephemeral_5m_input_tokens",
            "$.usage.server_tool_use.web_search_requests",
            "$.usage_extra.service_tier",
            "$.usage_extra.inference_geo",
        ],
    ),
    "collide": (
        {"prompt_tokens.extra": 1, "input_tokens": 2},
        {},
        None,
        '{"prompt_tokens":2,"completion_tokens":0,"total_tokens":2}',
        ["$.usage.prompt_tokens.extra"],
    ),
    "details": (
        {
            "input_tokens": 5,
            "output_tokens": 6,
            "cache_read_input_tokens": 1,
            "reasoning_tokens": 2,
        },
        {"prompt_tokens_details.audio_tokens": None},
        None,
        '{"prompt_tokens":6,"completion_tokens":6,"prompt_tokens_details":{"cached_tokens":1,"audio_tokens":null},"completion_tokens_details":{"reasoning_tokens":2},"total_tokens":12}',
        [],
    ),
    "own": (
        {
            "input_tokens": 5,
            "output_tokens": 6,
            "prompt_tokens_details.cached_tokens": 1,
            "x.y.z": 3,
        },
        {"weird": 1},
        "openai_chat",
        '{"prompt_tokens":5,"completion_tokens":6,"prompt_tokens_details":{"cached_tokens":1},"x":{"y":{"z":3}},"total_tokens":11,"weird":1}',
        [],
    ),
    "collide2": (
        {"prompt_tokens": 1, "prompt_tokens.x": 2},
        {},
        None,
        '{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}',
        ["$.usage.prompt_tokens.x"],
    ),
    "gemini": (
        {"input_tokens": 5, "output_tokens": 6, "reasoning_tokens": 2},
        {"traffic": "x"},
        "gemini",
        '{"prompt_tokens":5,"completion_tokens":8,"completion_tokens_details":{"reasoning_tokens":2},"total_tokens":13}',
        ["$.usage_extra.traffic"],
    ),
}
"""Usage shapes (counters, other entries, source) -> the Chat ``usage`` written and the paths
listed as metadata (as the per-counter walk wrote them before the plans)."""


@pytest.mark.parametrize("name", sorted(USAGES))
def test_usage_plans_write_the_usage_exactly(name: str) -> None:
    """The usage `_UsagePlan` writes (kept and renamed counters, folded cache creation,
    details groups, collisions, another provider's entries listed), exact bytes, twice (the
    second time from the plan kept for the shape), in a text answer written by `_plain_text`."""
    counters, other, source, usage, paths = USAGES[name]
    extra: dict[str, Any] = {"from_provider": source} if source else {}
    if other:
        extra["usage_extra"] = other
    response = ModelResponse(
        message=Message(role="assistant", content=[TextBlock(text="hi"), TextBlock(text=" you")]),
        stop_reason="end_turn",
        usage=counters,
        id="r",
        model="m",
        created=1,
        **({"extra": Extra._own(extra)} if extra else {}),
    )
    for _ in range(2):
        dropped: list[Any] = []
        body = json.loads(
            openai_chat.encode_response(response, unsupported="drop", dropped=dropped)
        )
        assert msgspec.json.encode(body["usage"]) == usage.encode()
        assert body["choices"][0]["message"] == {"role": "assistant", "content": "hi you"}
        assert [d.path for d in dropped] == paths
