"""The gateway's fast paths agree with the general code they shortcut (issue 26 speed work)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from minagent.providers import _toolkit as kit
from minagent.providers import openai_chat
from minagent.providers._base import Unsupported, UnsupportedError

from .budget import scaled

_NAMES = st.sampled_from(["a", "b", "a.b", "a.c", "b.x", "a.b.c", "prompt_tokens", "x.y.z"])


@given(st.dictionaries(_NAMES, st.integers(0, 9), max_size=6))
def test_one_level_usage_agrees_with_usage_object(kept: dict[str, int]) -> None:
    """`_one_level` builds exactly (same nesting, same key order) what `kit.usage_object`
    builds, or declines (None) where that one nests deeper or refuses a collision."""
    got = openai_chat._one_level(kept)
    try:
        want = kit.usage_object(kept, {})
    except UnsupportedError:
        assert got is None
        return
    if got is not None:
        assert got == want
        assert repr(got) == repr(want)  # key order included


def test_one_level_usage_declines_collisions_and_depth() -> None:
    """A name under a counter (a collision) and a two-dot name are left to usage_object."""
    assert openai_chat._one_level({"a": 1, "a.b": 2}) is None
    assert openai_chat._one_level({"a.b.c": 1}) is None
    assert openai_chat._one_level({"a.b": 1, "a": 2}) == {"a": 2}


def test_usage_plan_cache_gives_the_same_usage_and_drops_each_time() -> None:
    """The per-name usage decision, cached after the first response, writes the same usage
    and lists the same dropped counters in the same order on every later call."""
    counters = {
        "input_tokens": 3,
        "cache_creation_input_tokens": 418,
        "cache_read_input_tokens": 1111,
        "cache_creation.ephemeral_5m_input_tokens": 418,
        "output_tokens": 33,
        "server_tool_use.web_search_requests": 1,
    }
    runs = []
    for _ in range(3):
        dropped: list = []
        usage = openai_chat._usage_out(
            counters, {"service_tier": "standard"}, Unsupported("drop", dropped), False
        )
        runs.append((usage, [(d.path, d.what, d.kind) for d in dropped]))
    assert runs[0] == runs[1] == runs[2]
    assert runs[0][0] == {
        "prompt_tokens": 1532,
        "prompt_tokens_details": {"cached_tokens": 1111},
        "completion_tokens": 33,
        "total_tokens": 1565,
    }
    assert [path for path, _, _ in runs[0][1]] == [
        "$.usage.cache_creation.ephemeral_5m_input_tokens",
        "$.usage.server_tool_use.web_search_requests",
        "$.usage_extra.service_tier",
    ]


# --- the Anthropic stream parser's C-cut path (`SSEParser.feed_simple`) -------------------------

_EVENTS = [
    b'{"type":"message_start","message":{"id":"m","type":"message","role":"assistant",'
    b'"model":"c","content":[],"stop_reason":null,"usage":{"input_tokens":1}}}',
    b'{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}',
    b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"message_stop"}}',
    b'{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","c":"x"}}',
    b'{"type": "ping"}',
    b'{"type":"brand_new","x":[1,2]}',
    b'{"type":"content_block_stop","index":0   }',
    b'{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
    b'{"type":"message_stop"}',
    b'{"type":"content_block_delta","index":0',  # cut short: bad JSON
    b"[1]",  # not an object
    b"",  # no JSON at all
]
_PLAIN = b"event: x\ndata: %s\n\n"
_SHAPES = [
    b"data: %s\n\n",  # no event line
    b"\nevent: x\ndata: %s\n\n",  # a leading empty line
    b": comment\nevent: x\ndata: %s\n\n",
    b"event:x\ndata:%s\n\n",  # no space after the colons
    b"event: x\r\ndata: %s\r\n\r\n",  # CR line ends
    b"event: x\ndata: %s\nid: 7\n\n",
]
_BLOCKS = st.tuples(
    st.sampled_from(_EVENTS[:10] * 3 + _EVENTS[10:]),  # bad events rarer than good ones
    st.sampled_from([_PLAIN] * len(_SHAPES) + _SHAPES),  # the API's shape half of the time
)


def _outcomes(parser: object, feed: object, chunks: list[bytes]) -> list[object]:
    from minagent.providers._base import StreamError

    out: list[object] = []
    try:
        for chunk in chunks:
            out.append(feed(parser, chunk))  # type: ignore[operator]
        out.append(parser.close())  # type: ignore[attr-defined]
    except StreamError as err:
        out.append(("error", str(err), err.frame, getattr(err, "received", None)))
    return out


@settings(max_examples=scaled(200))
@given(st.lists(_BLOCKS, min_size=1, max_size=12), st.lists(st.integers(1, 400), max_size=8))
def test_anthropic_parser_fast_cut_agrees_with_the_general_path(
    blocks: list[tuple[bytes, bytes]], cuts: list[int]
) -> None:
    """Whatever the blocks (the API's shape or any other SSE spelling, unknown or bad
    events, "message_stop" inside a text, data after the end) and however the bytes are cut,
    `anthropic_stream.StreamParser.feed` gives the same events, indexes and errors (message,
    frame, events received) as the general `Parser.feed` it shortcuts."""
    from minagent.providers import anthropic_stream
    from minagent.providers._stream import Parser

    stream = b"".join(shape % data for data, shape in blocks)
    points = sorted({min(c, len(stream)) for c in cuts} | {0, len(stream)})
    chunks = [stream[a:b] for a, b in itertools.pairwise(points)]
    fast = _outcomes(anthropic_stream.StreamParser(), anthropic_stream.StreamParser.feed, chunks)
    general = _outcomes(anthropic_stream.StreamParser(), Parser.feed, chunks)
    assert fast == general


def test_anthropic_parser_fast_cut_examples() -> None:
    """The C-cut path itself: one call for a whole stream gives every event with its index;
    a text saying "message_stop" is only text; the end is the message_stop event's index;
    an unknown event stays whole (`UnknownEvent`) at its index; an event after the end is
    refused at its index."""
    from minagent.providers import anthropic_stream as s
    from minagent.providers._base import StreamError

    def sse(*datas: bytes) -> bytes:
        return b"".join(b"event: e\ndata: " + d + b"\n\n" for d in datas)

    parser = s.StreamParser()
    events = parser.feed(sse(_EVENTS[0], _EVENTS[1], _EVENTS[3], _EVENTS[6], _EVENTS[9]))
    assert [type(e).__name__ for e in events] == [
        "MessageStart",
        "ContentBlockStart",
        "ContentBlockDelta",
        "UnknownEvent",
        "MessageStop",
    ]
    assert events[2].delta.text == "message_stop"
    assert (events[3].type, events[3].index, events[3].data) == (
        "brand_new",
        3,
        {"type": "brand_new", "x": [1, 2]},
    )
    assert parser.ended == 4
    assert parser.close() == []
    parser = s.StreamParser()
    try:
        parser.feed(sse(_EVENTS[0], _EVENTS[9], _EVENTS[5]))
    except StreamError as err:
        assert (str(err), err.frame) == (
            "data after the end of the stream (message_stop at event 1) (frame 2)",
            2,
        )
        assert [type(e).__name__ for e in err.received] == ["MessageStart", "MessageStop"]
    else:
        raise AssertionError("data after message_stop was accepted")


# --- the Chat stream header (`openai_chat.stream_header`) ---------------------------------------


def _header_cases() -> list[tuple[object, dict[str, object]]]:
    from minagent.providers import anthropic
    from minagent.wire.extra import Extra
    from minagent.wire.messages import Message, ModelResponse

    chat_body = (
        b'{"id":"c1","object":"chat.completion","created":7,"model":"g","system_fingerprint":'
        b'"fp","service_tier":"default","choices":[{"index":0,"message":{"role":"assistant",'
        b'"content":"x"},"finish_reason":"stop","logprobs":null}],"usage":{"prompt_tokens":1,'
        b'"completion_tokens":2,"total_tokens":3}}'
    )
    anthropic_body = (
        b'{"id":"m1","type":"message","role":"assistant","model":"c","content":[],'
        b'"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,'
        b'"output_tokens":2,"service_tier":"standard"},"container":{"id":"k"}}'
    )
    neutral = ModelResponse(
        message=Message(role="assistant", content=[]),
        id="n",
        model="m",
        extra=Extra({"service_tier": "flex", "system_fingerprint": "s", "other": 1}),
    )
    bare = ModelResponse(message=Message(role="assistant", content=[]))
    return [
        (openai_chat.decode_response(chat_body), {}),
        (anthropic.decode_response(anthropic_body), {"created": 5}),
        (anthropic.decode_response(anthropic_body), {"id": "ignored", "model": "x", "created": 9}),
        (neutral, {"created": 1}),
        (bare, {"id": "f", "model": "fm", "created": 3, "extensions": True}),
    ]


def test_stream_header_is_what_encode_response_writes_at_the_top() -> None:
    """`stream_header` gives exactly the top-level keys and values `encode_response` writes
    for the same response and keywords, but choices and usage."""
    import json

    from minagent.wire.messages import Message

    for response, fields in _header_cases():
        shell = msgspec_replace(response, message=Message(role="assistant", content=[]))
        body = json.loads(openai_chat.encode_response(shell, unsupported="drop", **fields))
        want = {k: v for k, v in body.items() if k not in ("choices", "usage")}
        got = openai_chat.stream_header(response, fields)
        assert json.loads(json.dumps(got)) == want


def test_stream_header_refuses_what_encode_response_refuses() -> None:
    """No id (or model) and no id= (model=): the same EncodeError as encode_response; a bad
    extensions= value: the same TypeError."""
    import pytest

    from minagent.wire.errors import EncodeError
    from minagent.wire.messages import Message, ModelResponse

    bare = ModelResponse(message=Message(role="assistant", content=[]), model="m")
    with pytest.raises(EncodeError, match="needs 'id'"):
        openai_chat.encode_response(bare)
    with pytest.raises(EncodeError, match="needs 'id'"):
        openai_chat.stream_header(bare, {})
    with pytest.raises(TypeError, match="extensions= must be True or False"):
        openai_chat.stream_header(bare, {"id": "i", "extensions": "yes"})


def msgspec_replace(value: object, **changes: object) -> object:
    import msgspec

    return msgspec.structs.replace(value, **changes)  # type: ignore[type-var]
