"""Streaming: incremental parsers and accumulators for both providers, against recorded streams,
the SDKs' own accumulators, and the non-streamed responses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pytest
from anthropic import Anthropic
from anthropic._streaming import Stream as AStream
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import RawMessageStreamEvent
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import OpenAI
from openai._streaming import Stream as OStream
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from minagent.providers import StreamError, anthropic, anthropic_stream, openai_chat
from minagent.providers import openai_chat_stream as ostream
from minagent.wire import Extra, TextBlock, ThinkingBlock, ToolUseBlock
from tests.budget import scaled

from .providers_sdk import STREAMS, examples

A_STREAMS = sorted((STREAMS / "anthropic").glob("*.sse"))
O_STREAMS = sorted((STREAMS / "openai").glob("*.sse"))


def a_bytes(path: Path) -> bytes:
    """A stored Anthropic fixture with the closing empty line the API sends (SOURCES.md)."""
    return path.read_bytes() + b"\n\n"


def splits(data: bytes, cuts: list[int]) -> list[bytes]:
    cuts = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


def test_streams_are_there() -> None:
    """Four Anthropic and five OpenAI recorded streams are test data."""
    assert (len(A_STREAMS), len(O_STREAMS)) == (4, 5)


# --- Anthropic ---------------------------------------------------------------------------------


def sdk_anthropic(data: bytes) -> tuple[Any, dict[int, bytes]]:
    response = httpx2.Response(
        200, content=data, request=httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    )
    events = AStream(
        cast_to=RawMessageStreamEvent, response=response, client=Anthropic(api_key="x")
    )
    snapshot: Any = None
    bufs: dict[int, bytes] = {}
    for event in events:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
    return snapshot, bufs


@pytest.mark.parametrize("path", A_STREAMS, ids=lambda p: p.name)
def test_anthropic_one_byte_at_a_time_equals_whole(path: Path) -> None:
    """Feeding a recorded stream one byte at a time gives the same response as all at once."""
    data = a_bytes(path)
    whole = anthropic_stream.accumulate([data])
    assert anthropic_stream.accumulate([data[i : i + 1] for i in range(len(data))]) == whole


@settings(max_examples=scaled(15))
@given(st.sampled_from(A_STREAMS), st.lists(st.integers(0, 10**6), max_size=20))
def test_anthropic_random_splits(path: Path, cuts: list[int]) -> None:
    """Any split of a recorded stream gives the same response."""
    data = a_bytes(path)
    assert anthropic_stream.accumulate(splits(data, cuts)) == anthropic_stream.accumulate([data])


@pytest.mark.parametrize("path", A_STREAMS, ids=lambda p: p.name)
def test_anthropic_accumulator_agrees_with_sdk(path: Path) -> None:
    """Our accumulated response agrees field by field with the SDK's accumulate_event."""
    data = a_bytes(path)
    ours = anthropic_stream.accumulate([data])
    sdk, bufs = sdk_anthropic(data)
    assert ours.id == sdk.id
    assert ours.model == sdk.model
    assert ours.stop_reason == sdk.stop_reason
    assert ours.usage["output_tokens"] == sdk.usage.output_tokens
    assert ours.usage["input_tokens"] == sdk.usage.input_tokens
    content = ours.message.content
    assert isinstance(content, list)
    assert len(content) == len(sdk.content)
    for i, (block, theirs) in enumerate(zip(content, sdk.content, strict=True)):
        if isinstance(block, TextBlock):
            assert block.text == theirs.text
        elif isinstance(block, ThinkingBlock):
            assert (block.thinking, block.signature) == (theirs.thinking, theirs.signature)
        else:
            assert isinstance(block, ToolUseBlock)
            assert (block.id, block.name) == (theirs.id, theirs.name)
            if block.extra and "arguments" in block.extra:  # cut short: raw text kept
                assert block.extra["arguments"].encode() == bufs[i]
                assert block.input == {}
            else:
                assert block.input == theirs.input


def test_anthropic_truncated_input_keeps_raw_text() -> None:
    """A tool input cut off by max_tokens keeps its exact received text in extra["arguments"]."""
    resp = anthropic_stream.accumulate([a_bytes(STREAMS / "anthropic/incomplete_partial_json.sse")])
    block = resp.message.content[1]  # type: ignore[index]
    assert isinstance(block, ToolUseBlock)
    assert block.extra == Extra(
        arguments='{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR '
        'INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes'
    )
    assert resp.stop_reason == "max_tokens"


def sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def cut(text: str, piece: int) -> list[str]:
    return [text[j : j + piece] for j in range(0, len(text), piece)]


def anthropic_stream_of(body: dict[str, Any], piece: int = 5) -> bytes:
    """The event stream the API sends for a non-streamed response body (deltas ``piece`` long)."""
    shell = dict(body, content=[], stop_reason=None, stop_sequence=None)
    out = [sse("message_start", {"type": "message_start", "message": shell})]
    for i, block in enumerate(body["content"]):
        kind = block["type"]
        start = dict(block)
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            start["text"] = ""
            deltas = [{"type": "text_delta", "text": t} for t in cut(block["text"], piece)]
            if "citations" in block:
                start["citations"] = []
                cites = block["citations"] or []
                deltas += [{"type": "citations_delta", "citation": c} for c in cites]
        elif kind == "thinking":
            start["thinking"], start["signature"] = "", ""
            deltas = [
                {"type": "thinking_delta", "thinking": t} for t in cut(block["thinking"], piece)
            ]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "tool_use":
            start["input"] = {}
            text = json.dumps(block["input"])
            deltas = [{"type": "input_json_delta", "partial_json": t} for t in cut(text, piece)]
        head = {"type": "content_block_start", "index": i, "content_block": start}
        out.append(sse("content_block_start", head))
        for d in deltas:
            out.append(
                sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})
            )
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    delta = {"stop_reason": body["stop_reason"], "stop_sequence": body["stop_sequence"]}
    usage = {"output_tokens": body["usage"]["output_tokens"]}
    out.append(sse("message_delta", {"type": "message_delta", "delta": delta, "usage": usage}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


@pytest.mark.parametrize("path", examples("anthropic", "response"), ids=lambda p: p.name)
def test_anthropic_stream_equals_non_streamed(path: Path) -> None:
    """The stream of each example response accumulates to exactly its non-streamed decode
    (text, thinking and signature, citations, tool input JSON in pieces, usage)."""
    body = json.loads(path.read_bytes())
    data = anthropic_stream_of(body)
    assert anthropic_stream.accumulate([data]) == anthropic.decode_response(path.read_bytes())


STREAM = (STREAMS / "anthropic/text.sse").read_bytes() + b"\n\n"
ERROR = (
    b'event: error\ndata: {"type":"error",'
    b'"error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
)


def test_anthropic_error_event_raises_with_index_and_keeps_partial() -> None:
    """An error event raises StreamError with its event index and error object; the text
    received before it stays in the accumulator."""
    cut = STREAM.index(b"event: content_block_stop")
    acc = anthropic_stream.StreamAccumulator()
    with pytest.raises(StreamError) as info:
        acc.feed(STREAM[:cut] + ERROR)
    assert info.value.frame == 6
    assert info.value.error == {"type": "overloaded_error", "message": "Overloaded"}
    assert acc.response().message.content == [TextBlock("Hello there!")]


def test_anthropic_bad_json_raises_with_index() -> None:
    """An event whose data is not JSON raises StreamError naming the event index."""
    cut = STREAM.index(b"event: content_block_stop")
    parser = anthropic_stream.StreamParser()
    with pytest.raises(StreamError) as info:
        parser.feed(STREAM[:cut] + b'event: content_block_stop\ndata: {"type":\n\n')
    assert info.value.frame == 6
    assert len(info.value.received) == 6


def test_anthropic_truncated_stream_raises_at_close() -> None:
    """The stored fixture (no closing empty line) is reported as truncated at event 8."""
    acc = anthropic_stream.StreamAccumulator()
    acc.feed((STREAMS / "anthropic/text.sse").read_bytes())
    with pytest.raises(StreamError) as info:
        acc.close()
    assert info.value.frame == 8
    assert acc.response().stop_reason == "end_turn"


# --- OpenAI ------------------------------------------------------------------------------------


def sdk_openai(data: bytes) -> Any:
    response = httpx2.Response(
        200,
        content=data,
        request=httpx2.Request("POST", "https://api.openai.com/v1/chat/completions"),
    )
    state = ChatCompletionStreamState()
    for chunk in OStream(
        cast_to=ChatCompletionChunk, response=response, client=OpenAI(api_key="x")
    ):
        state.handle_chunk(chunk)
    return state.current_completion_snapshot  # get_final_completion refuses finish "length"


@pytest.mark.parametrize("path", O_STREAMS, ids=lambda p: p.name)
def test_openai_one_byte_at_a_time_equals_whole(path: Path) -> None:
    """Feeding a recorded stream one byte at a time gives the same response as all at once."""
    data = path.read_bytes()
    whole = ostream.accumulate([data])
    assert ostream.accumulate([data[i : i + 1] for i in range(len(data))]) == whole


@settings(max_examples=scaled(15))
@given(st.sampled_from(O_STREAMS), st.lists(st.integers(0, 10**6), max_size=20))
def test_openai_random_splits(path: Path, cuts: list[int]) -> None:
    """Any split of a recorded stream gives the same response."""
    data = path.read_bytes()
    assert ostream.accumulate(splits(data, cuts)) == ostream.accumulate([data])


@pytest.mark.parametrize("path", O_STREAMS, ids=lambda p: p.name)
def test_openai_accumulator_agrees_with_sdk(path: Path) -> None:
    """Every choice we accumulate agrees field by field with ChatCompletionStreamState."""
    data = path.read_bytes()
    sdk = sdk_openai(data)
    acc = ostream.StreamAccumulator()
    acc.feed(data)
    ours = acc.close()
    body = json.loads(openai_chat.encode_response(ours))
    assert (body["id"], body["model"], body["created"]) == (sdk.id, sdk.model, sdk.created)
    assert len(body["choices"]) == len(sdk.choices)
    for mine, theirs in zip(body["choices"], sdk.choices, strict=True):
        assert mine["finish_reason"] == theirs.finish_reason
        assert mine["message"]["content"] == theirs.message.content
        assert mine["message"]["refusal"] == theirs.message.refusal
        calls = [
            (c.id, c.function.name, c.function.arguments) for c in theirs.message.tool_calls or []
        ]
        mine_calls = [
            (c["id"], c["function"]["name"], c["function"]["arguments"])
            for c in mine["message"].get("tool_calls", [])
        ]
        assert mine_calls == calls
    assert sdk.usage is not None
    assert body["usage"] == sdk.usage.model_dump(mode="json", exclude_unset=True)


def openai_stream_of(body: dict[str, Any], piece: int = 4) -> bytes:
    """The chunk stream for a non-streamed response body (content and arguments in pieces)."""
    head = {k: body[k] for k in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"

    def chunk(choices: list[Any], **more: Any) -> bytes:
        return b"data: " + json.dumps(dict(head, choices=choices, **more)).encode() + b"\n\n"

    out = []
    for choice in body["choices"]:
        i, msg = choice["index"], choice["message"]
        first: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
        out.append(chunk([{"index": i, "delta": first, "logprobs": None, "finish_reason": None}]))
        for key in ("content", "refusal"):
            text = msg.get(key)
            if text is not None:
                for j in range(0, max(len(text), 1), piece):
                    out.append(chunk([{"index": i, "delta": {key: text[j : j + piece]}}]))
        for n, call in enumerate(msg.get("tool_calls") or []):
            fn = call["function"]
            start = {
                "index": n,
                "id": call["id"],
                "type": "function",
                "function": {"name": fn["name"], "arguments": ""},
            }
            out.append(chunk([{"index": i, "delta": {"tool_calls": [start]}}]))
            for text in cut(fn["arguments"], piece):
                more = {"index": n, "function": {"arguments": text}}
                out.append(chunk([{"index": i, "delta": {"tool_calls": [more]}}]))
        last = {"index": i, "delta": {}, "logprobs": None, "finish_reason": choice["finish_reason"]}
        out.append(chunk([last]))
    out.append(chunk([], usage=body["usage"]))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


@pytest.mark.parametrize("path", examples("openai", "response"), ids=lambda p: p.name)
def test_openai_stream_equals_non_streamed(path: Path) -> None:
    """The chunk stream of each example response accumulates to its non-streamed decode
    (streams carry no annotations and no service_tier/system_fingerprint in these chunks)."""
    body = json.loads(path.read_bytes())
    for choice in body["choices"]:
        choice["message"].pop("annotations", None)
        choice["message"].setdefault("refusal", None)
    body.pop("service_tier", None)
    body.pop("system_fingerprint", None)
    expected = openai_chat.decode_response(json.dumps(body).encode())
    assert ostream.accumulate([openai_stream_of(body)]) == expected


def test_openai_error_object_raises_with_index_and_keeps_partial() -> None:
    """An error object mid-stream raises StreamError with its index; earlier text stays."""
    data = (STREAMS / "openai/text.sse").read_bytes()
    cut = data.index(b"data: [DONE]")
    acc = ostream.StreamAccumulator()
    with pytest.raises(StreamError) as info:
        acc.feed(data[:cut] + b'data: {"error":{"message":"boom","type":"server_error"}}\n\n')
    assert info.value.frame == 4
    assert info.value.error == {"message": "boom", "type": "server_error"}
    assert acc.response().message.content == '{"'


def test_openai_stream_without_done_is_truncated() -> None:
    """A stream that stops before [DONE] raises StreamError at close."""
    data = (STREAMS / "openai/text.sse").read_bytes()
    acc = ostream.StreamAccumulator()
    acc.feed(data[: data.index(b"data: [DONE]")])
    with pytest.raises(StreamError) as info:
        acc.close()
    assert info.value.message == "the stream ended before data: [DONE]"
    assert info.value.frame == 4


def test_anthropic_signature_delta_replaces_the_placeholder() -> None:
    """signature_delta sets the signature byte-exact, replacing the start's placeholder."""
    stream = b"".join(
        [
            sse(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "m",
                        "model": "c",
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 1, "output_tokens": 1},
                    },
                },
            ),
            sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {
                        "type": "thinking",
                        "thinking": "",
                        "signature": "PLACEHOLDER",
                    },
                },
            ),
            sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "signature_delta", "signature": "EqQB+/=="},
                },
            ),
            sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
            sse("message_stop", {"type": "message_stop"}),
        ]
    )
    resp = anthropic_stream.accumulate([stream])
    assert resp.message.content == [ThinkingBlock("", signature="EqQB+/==")]
