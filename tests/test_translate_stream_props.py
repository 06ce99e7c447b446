"""Properties of stream translation: any chunking of any recorded stream, into any format, gives
the same bytes; random bytes in give our StreamError or nothing, never a foreign exception."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from minagent import providers
from minagent.providers import ADAPTERS, translate_stream
from minagent.providers.translate import stream_body
from minagent.wire.errors import WireError
from tests.budget import scaled

from .test_provider_recordings import STREAMS, _provider, _rel, _wire_bytes
from .test_translate_stream import INCONSISTENT

TARGETS = sorted(ADAPTERS)
USABLE = [p for p in STREAMS if _rel(p) not in INCONSISTENT]
_WHOLE: dict[tuple[str, str], bytes] = {}


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    cuts = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def whole(path_key: str, source: str, target: str, data: bytes) -> bytes:
    key = (path_key, target)
    if key not in _WHOLE:
        _WHOLE[key] = b"".join(translate_stream([data], source, target, unsupported="drop"))
    return _WHOLE[key]


@settings(max_examples=scaled(60), deadline=None)
@given(
    st.sampled_from(USABLE),
    st.sampled_from(TARGETS),
    st.lists(st.integers(0, 10**6), max_size=40),
)
def test_random_splits_give_the_same_bytes(path, target, cuts) -> None:  # type: ignore[no-untyped-def]
    """A recorded stream split at random points translates to exactly the bytes it gives whole."""
    source = _provider(path)
    assert source is not None
    data = _wire_bytes(path, source)
    out = b"".join(translate_stream(splits(data, cuts), source, target, unsupported="drop"))
    assert out == whole(_rel(path), source, target, data)


@settings(max_examples=scaled(60), deadline=None)
@given(
    st.sampled_from(USABLE),
    st.sampled_from(TARGETS),
    st.integers(0, 10**6),
    st.binary(min_size=1, max_size=8),
)
def test_corrupted_streams_raise_only_our_errors(path, target, at, junk) -> None:  # type: ignore[no-untyped-def]
    """Junk written into a recorded stream at a random point either still translates or raises
    one of our WireErrors (StreamError for the source's bytes); nothing else escapes."""
    source = _provider(path)
    assert source is not None
    data = _wire_bytes(path, source)
    at %= len(data) + 1
    bad = data[:at] + junk + data[at:]
    with contextlib.suppress(WireError):  # StreamError, UnsupportedError, ... are WireErrors
        b"".join(translate_stream([bad], source, target, unsupported="drop"))


# --- generated streams ----------------------------------------------------------------------------

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
_pieces = st.lists(_text, max_size=4)
_names = st.text("abcdefghij_", min_size=1, max_size=8)
_inputs = st.dictionaries(_names, st.one_of(st.integers(-5, 5), _text, st.booleans()), max_size=3)


def _sse(kind: str, data: dict[str, Any]) -> bytes:
    head = b"event: " + kind.encode() + b"\n" if kind else b""
    return head + b"data: " + json.dumps(data).encode() + b"\n\n"


def _cut(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


_anthropic_block = st.one_of(
    st.tuples(st.just("text"), _pieces),
    st.tuples(st.just("thinking"), _pieces, st.text("abcXYZ019+/=", min_size=1, max_size=12)),
    st.tuples(st.just("tool_use"), _names, _inputs, st.lists(st.integers(0, 99), max_size=3)),
)


@st.composite
def anthropic_streams(draw: Any) -> bytes:
    """An Anthropic Messages stream as the API sends one: text, thinking and tool_use blocks."""
    blocks = draw(st.lists(_anthropic_block, max_size=4))
    out = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-x",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 9, "output_tokens": 1},
                },
            },
        )
    ]
    for i, block in enumerate(blocks):
        if block[0] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in block[1]]
        elif block[0] == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in block[1]]
            deltas.append({"type": "signature_delta", "signature": block[2]})
        else:
            start = {"type": "tool_use", "id": f"toolu_{i}", "name": block[1], "input": {}}
            text = json.dumps(block[2]) if block[2] else ""
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in _cut(text, block[3])]
        out.append(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": i, "content_block": start},
            )
        )
        out += [
            _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            for d in deltas
        ]
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    stop = draw(st.sampled_from(["end_turn", "tool_use", "max_tokens", "stop_sequence"]))
    out.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": stop,
                    "stop_sequence": "##" if stop == "stop_sequence" else None,
                },
                "usage": {"output_tokens": draw(st.integers(0, 999))},
            },
        )
    )
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


@st.composite
def chat_streams(draw: Any) -> bytes:
    """An OpenAI Chat stream: optional reasoning_content first, text pieces, tool calls whose
    arguments arrive in pieces, a finish reason, a usage chunk, [DONE]."""
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 5, "model": "gpt-x"}

    def chunk(delta: dict[str, Any], finish: Any = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse("", dict(head, choices=[choice]))

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"reasoning_content": p}) for p in draw(_pieces) if p]
    out += [chunk({"content": p}) for p in draw(_pieces)]
    calls = draw(st.lists(st.tuples(_names, _inputs, st.lists(st.integers(0, 99))), max_size=3))
    for k, (name, args, cuts) in enumerate(calls):
        pieces = _cut(json.dumps(args), cuts)
        first = {"index": k, "id": f"call_{k}", "type": "function"}
        out.append(chunk({"tool_calls": [dict(first, function={"name": name, "arguments": ""})]}))
        out += [chunk({"tool_calls": [{"index": k, "function": {"arguments": p}}]}) for p in pieces]
    finish = draw(st.sampled_from(["stop", "length", "tool_calls", "content_filter"]))
    out.append(chunk({}, finish))
    usage = {"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6}
    out.append(_sse("", dict(head, choices=[], usage=usage)))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def _agrees(data: bytes, source: str, target: str) -> None:
    resp = providers.get(source).accumulate([data])
    adapter = providers.get(target)
    fields = {"created": 1_700_000_000} if source != target and resp.created is UNSET else {}
    want_dropped: list[Any] = []
    body = adapter.encode_response(resp, unsupported="drop", dropped=want_dropped, **fields)
    want = adapter.decode_response(json.dumps(stream_body(target, json.loads(body))))
    dropped: list[Any] = []
    out = b"".join(
        translate_stream([data], source, target, unsupported="drop", dropped=dropped, **fields)
    )
    assert adapter.accumulate([out]) == want
    assert dropped == want_dropped


@settings(max_examples=scaled(60), deadline=None)
@given(anthropic_streams(), st.sampled_from(TARGETS))
def test_generated_anthropic_streams_agree(data: bytes, target: str) -> None:
    """Generated Anthropic streams (any mix of text, signed thinking and tool calls, any stop
    reason) translate to every format as the non-streamed translation says."""
    _agrees(data, "anthropic", target)


@settings(max_examples=scaled(60), deadline=None)
@given(chat_streams(), st.sampled_from(TARGETS))
def test_generated_chat_streams_agree(data: bytes, target: str) -> None:
    """Generated Chat streams (reasoning first, text, tool calls in pieces, any finish reason)
    translate to every format as the non-streamed translation says."""
    _agrees(data, "openai_chat", target)
