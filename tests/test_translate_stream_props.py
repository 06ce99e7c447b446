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
_FIXED = {"unsupported": "drop", "created": 1_700_000_000}
"""Options of every translation compared byte for byte: a fixed ``created`` (a Chat or Responses
target writes the time of the translation when the source gives none)."""


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    cuts = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def whole(path_key: str, source: str, target: str, data: bytes) -> bytes:
    key = (path_key, target)
    if key not in _WHOLE:
        _WHOLE[key] = b"".join(translate_stream([data], source, target, **_FIXED))
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
    out = b"".join(translate_stream(splits(data, cuts), source, target, **_FIXED))
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


_gemini_part = st.one_of(
    st.builds(lambda t: {"text": t}, _text),
    st.builds(lambda t: {"text": t, "thought": True}, _text),
    st.builds(lambda t, s: {"text": t, "thoughtSignature": s}, _text, st.just("c2lnbg==")),
    st.builds(
        lambda n, a: {"functionCall": {"name": n, "args": a}},
        _names,
        _inputs,
    ),
)


@st.composite
def gemini_streams(draw: Any) -> bytes:
    """A Gemini alt=sse stream: chunks of text, thought, signed and functionCall parts; the
    last chunk has the finish reason and usage."""
    chunks = draw(st.lists(st.lists(_gemini_part, max_size=3), max_size=5))
    top = {"modelVersion": "gemini-x", "responseId": "r1"}
    out = [
        _sse("", dict(top, candidates=[{"content": {"role": "model", "parts": parts}, "index": 0}]))
        for parts in chunks
    ]
    finish = draw(st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY"]))
    last = {"content": {"role": "model", "parts": draw(st.lists(_gemini_part, max_size=1))}}
    usage = {"promptTokenCount": 3, "candidatesTokenCount": 5, "totalTokenCount": 8}
    out.append(
        _sse(
            "",
            dict(top, candidates=[dict(last, finishReason=finish, index=0)], usageMetadata=usage),
        )
    )
    return b"".join(out)


@settings(max_examples=scaled(60), deadline=None)
@given(gemini_streams(), st.sampled_from(TARGETS))
def test_generated_gemini_streams_agree(data: bytes, target: str) -> None:
    """Generated Gemini streams (text, thoughts, signed parts, function calls, in any chunking
    of parts) translate to every format as the non-streamed translation says."""
    _agrees(data, "gemini", target)


_responses_item = st.one_of(
    st.tuples(st.just("message"), st.lists(_pieces, min_size=1, max_size=2)),
    st.tuples(st.just("function_call"), _names, _inputs, st.lists(st.integers(0, 99), max_size=3)),
    st.tuples(st.just("reasoning"), _pieces),
)


@st.composite
def responses_streams(draw: Any) -> bytes:
    """A Responses stream: message items (output_text parts), function calls (arguments in
    pieces) and reasoning items (summary text), each added, grown and done, then
    response.completed carrying them."""
    seq = iter(range(10_000))
    out: list[bytes] = []

    def event(kind: str, **data: Any) -> None:
        out.append(_sse(kind, dict(data, type=kind, sequence_number=next(seq))))

    base = {"id": "resp_1", "object": "response", "created_at": 3, "model": "gpt-x", "output": []}
    base |= {"parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    event("response.created", response=dict(base, status="in_progress"))
    final = []
    for at, item in enumerate(draw(st.lists(_responses_item, max_size=3))):
        if item[0] == "message":
            added = {"id": f"msg_{at}", "type": "message", "status": "in_progress"}
            added |= {"role": "assistant", "content": []}
            event("response.output_item.added", output_index=at, item=added)
            parts = []
            for c, pieces in enumerate(item[1]):
                where = {"item_id": f"msg_{at}", "output_index": at, "content_index": c}
                empty = {"type": "output_text", "text": "", "annotations": []}
                event("response.content_part.added", **where, part=empty)
                for p in pieces:
                    event("response.output_text.delta", **where, delta=p, logprobs=[])
                part = dict(empty, text="".join(pieces))
                event("response.output_text.done", **where, text=part["text"], logprobs=[])
                event("response.content_part.done", **where, part=part)
                parts.append(part)
            done = dict(added, status="completed", content=parts)
        elif item[0] == "function_call":
            added = {"id": f"fc_{at}", "type": "function_call", "status": "in_progress"}
            added |= {"call_id": f"call_{at}", "name": item[1], "arguments": ""}
            event("response.output_item.added", output_index=at, item=added)
            text = json.dumps(item[2])
            for p in _cut(text, item[3]):
                event(
                    "response.function_call_arguments.delta",
                    item_id=f"fc_{at}",
                    output_index=at,
                    delta=p,
                )
            done = dict(added, status="completed", arguments=text)
        else:
            added = {"id": f"rs_{at}", "type": "reasoning", "summary": []}
            event("response.output_item.added", output_index=at, item=added)
            where = {"item_id": f"rs_{at}", "output_index": at, "summary_index": 0}
            event(
                "response.reasoning_summary_part.added",
                **where,
                part={"type": "summary_text", "text": ""},
            )
            for p in item[1]:
                event("response.reasoning_summary_text.delta", **where, delta=p)
            summary = {"type": "summary_text", "text": "".join(item[1])}
            event("response.reasoning_summary_part.done", **where, part=summary)
            done = dict(added, summary=[summary])
        event("response.output_item.done", output_index=at, item=done)
        final.append(done)
    usage = {"input_tokens": 2, "output_tokens": 3, "total_tokens": 5}
    event("response.completed", response=dict(base, status="completed", output=final, usage=usage))
    return b"".join(out)


@settings(max_examples=scaled(60), deadline=None)
@given(responses_streams(), st.sampled_from(TARGETS))
def test_generated_responses_streams_agree(data: bytes, target: str) -> None:
    """Generated Responses streams (messages of one or two text parts, function calls in
    pieces, reasoning summaries) translate to every format as the non-streamed translation
    says."""
    _agrees(data, "openai_responses", target)
