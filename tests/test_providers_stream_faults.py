"""Stream faults, one regression test each: what the adversarial review and the mutation probe
found in the four stream readers and the SSE layer, with exact errors and exact results."""

from __future__ import annotations

import json
from typing import Any

import pytest

from minagent.providers import StreamError
from minagent.providers import anthropic_stream as A
from minagent.providers import gemini_stream as G
from minagent.providers import openai_chat_stream as C
from minagent.providers import openai_responses_stream as R
from minagent.providers._sse import SSEEvent, SSEParser
from minagent.providers._stream import UnknownEvent
from minagent.wire import TextBlock, ThinkingBlock
from minagent.wire.limits import DEFAULT_MAX_EVENT, Limits

from .providers_sdk import DATA, STREAMS

# --- builders ------------------------------------------------------------------------------------


def sse(data: dict[str, Any], event: str | None = None) -> bytes:
    """One SSE event (named after the object's type unless ``event`` says otherwise)."""
    name = event if event is not None else data.get("type")
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def a_start(usage: Any = None) -> bytes:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1} if usage is None else usage,
    }
    return sse({"type": "message_start", "message": message})


def a_block(index: int, block: dict[str, Any]) -> bytes:
    return sse({"type": "content_block_start", "index": index, "content_block": block})


def a_delta(index: int, delta: dict[str, Any]) -> bytes:
    return sse({"type": "content_block_delta", "index": index, "delta": delta})


def a_stop(index: int) -> bytes:
    return sse({"type": "content_block_stop", "index": index})


def a_end(usage: dict[str, Any] | None = None, reason: str = "end_turn") -> bytes:
    delta = {"stop_reason": reason, "stop_sequence": None}
    return sse(
        {"type": "message_delta", "delta": delta, "usage": usage or {"output_tokens": 5}}
    ) + sse({"type": "message_stop"})


TEXT = {"type": "text", "text": ""}
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}
THINK = {"type": "thinking", "thinking": "", "signature": ""}


def refused(acc: Any, data: bytes) -> StreamError:
    """Feed ``data`` (then close) and return the StreamError it raised."""
    with pytest.raises(StreamError) as info:
        acc.feed(data)
        acc.close()
    return info.value


# --- Anthropic -----------------------------------------------------------------------------------


def test_anthropic_invalid_utf8_is_a_stream_error() -> None:
    """Invalid UTF-8 inside an event's JSON is a StreamError at that event, not msgspec's."""
    err = refused(A.StreamAccumulator(), a_start() + b'event: ping\ndata: {"type":"p\xff"}\n\n')
    assert err.frame == 1
    assert err.message.startswith("event 'ping': invalid JSON: ")


@pytest.mark.parametrize(
    ("block", "delta", "message"),
    [
        (
            TOOL,
            {"type": "text_delta", "text": "x"},
            "a text_delta for block 0, a tool_use block (it goes to a text block)",
        ),
        (
            TEXT,
            {"type": "thinking_delta", "thinking": "x"},
            "a thinking_delta for block 0, a text block (it goes to a thinking block)",
        ),
        (
            TEXT,
            {"type": "signature_delta", "signature": "c2ln"},
            "a signature_delta for block 0, a text block (it goes to a thinking block)",
        ),
        (
            TEXT,
            {"type": "input_json_delta", "partial_json": "{}"},
            "a input_json_delta for block 0, a text block"
            " (it goes to a mcp_tool_use or server_tool_use or tool_use block)",
        ),
        (
            THINK,
            {"type": "citations_delta", "citation": {"type": "char_location"}},
            "a citations_delta for block 0, a thinking block (it goes to a text block)",
        ),
    ],
)
def test_anthropic_delta_into_the_wrong_block_is_refused(
    block: dict[str, Any], delta: dict[str, Any], message: str
) -> None:
    """A delta for a block of another kind is refused by name and event index, not attached
    silently nor a KeyError; the block as started stays in the partial response."""
    acc = A.StreamAccumulator()
    err = refused(acc, a_start() + a_block(0, block) + a_delta(0, delta))
    assert (err.frame, err.message) == (2, message)
    assert acc.events == 3


def test_anthropic_delta_after_block_stop_is_refused() -> None:
    """A delta for a block that already stopped is refused (its text would change after the
    block was complete)."""
    data = a_start() + a_block(0, TEXT) + a_delta(0, {"type": "text_delta", "text": "a"})
    data += a_stop(0) + a_delta(0, {"type": "text_delta", "text": "b"})
    acc = A.StreamAccumulator()
    err = refused(acc, data)
    assert (err.frame, err.message) == (4, "content_block_delta for block 0, which has stopped")
    assert acc.response().message.content == [TextBlock("a")]


def test_anthropic_usage_null_then_usage_delta() -> None:
    """message_start with usage null, then a message_delta with usage: the counters are set."""
    resp = A.accumulate([a_start(usage=None) + a_end({"output_tokens": 7})])
    assert resp.usage == {"input_tokens": 10, "output_tokens": 7}
    start = a_start(usage={"input_tokens": 1, "output_tokens": 1}).replace(
        b'"usage": {"input_tokens": 1, "output_tokens": 1}', b'"usage": null'
    )
    resp = A.accumulate([start + a_end({"output_tokens": 7, "input_tokens": 3})])
    assert resp.usage == {"output_tokens": 7, "input_tokens": 3}


def test_anthropic_null_usage_counters_keep_message_start_values() -> None:
    """A message_delta whose counters are null keeps message_start's input and cache counts,
    as the SDK does; non-null counters replace them (they are cumulative)."""
    usage = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 20,
        "cache_read_input_tokens": 30,
        "output_tokens": 1,
    }
    delta = {
        "input_tokens": None,
        "cache_creation_input_tokens": None,
        "cache_read_input_tokens": None,
        "output_tokens": 9,
    }
    resp = A.accumulate([a_start(usage=usage) + a_end(delta)])
    assert resp.usage == {
        "input_tokens": 10,
        "cache_creation_input_tokens": 20,
        "cache_read_input_tokens": 30,
        "output_tokens": 9,
    }


def test_anthropic_partial_json_nested_too_deep_is_kept_raw() -> None:
    """partial_json nested 100,000 deep is no RecursionError: the text is kept as it came."""
    deep = "[" * 100_000
    data = (
        a_start()
        + a_block(0, TOOL)
        + a_delta(0, {"type": "input_json_delta", "partial_json": deep})
    )
    resp = A.accumulate([data + a_stop(0) + a_end(reason="max_tokens")])
    (block,) = resp.message.content  # type: ignore[misc]
    assert (block.input, block.extra["arguments"]) == ({}, deep)  # type: ignore[union-attr]


def test_anthropic_event_after_message_stop_is_refused() -> None:
    """A delta after message_stop is refused, never added to the finished message."""
    data = a_start() + a_block(0, TEXT) + a_delta(0, {"type": "text_delta", "text": "hi"})
    data += a_stop(0) + a_end() + a_delta(0, {"type": "text_delta", "text": "late"})
    parser = A.StreamParser()
    with pytest.raises(StreamError) as info:
        parser.feed(data)
    assert info.value.frame == 6
    assert info.value.message == "data after the end of the stream (message_stop at event 5)"
    assert len(info.value.received) == 6
    acc = A.StreamAccumulator()
    err = refused(acc, data)
    assert err.frame == 6
    assert acc.response().message.content == [TextBlock("hi")]


def test_anthropic_unknown_event_kept_with_provenance() -> None:
    """An event type the module does not know is yielded whole and listed in ``unknown`` with
    its provider and index; the message is built as without it."""
    odd = {"type": "message_annotation", "note": {"a": [1, 2]}}
    data = a_start() + sse(odd) + a_block(0, TEXT) + a_delta(0, {"type": "text_delta", "text": "x"})
    acc = A.StreamAccumulator()
    acc.feed(data + a_stop(0) + a_end())
    resp = acc.close()
    assert acc.unknown == [UnknownEvent("message_annotation", odd, "anthropic", 1)]
    assert resp.message.content == [TextBlock("x")]


def test_anthropic_malformed_known_event_is_refused() -> None:
    """A known event type in a shape the module cannot read is refused, never skipped."""
    bad = {"type": "content_block_delta", "index": None, "delta": {"type": "text_delta"}}
    err = refused(A.StreamAccumulator(), a_start() + a_block(0, TEXT) + sse(bad))
    assert err.frame == 2
    assert err.message.startswith("a content_block_delta event of the wrong shape: ")


def test_anthropic_thinking_and_signature_joined() -> None:
    """Thinking pieces join and the signature delta sets the signature."""
    data = a_start() + a_block(0, THINK)
    data += a_delta(0, {"type": "thinking_delta", "thinking": "a"})
    data += a_delta(0, {"type": "thinking_delta", "thinking": "b"})
    data += a_delta(0, {"type": "signature_delta", "signature": "c2ln"}) + a_stop(0) + a_end()
    assert A.accumulate([data]).message.content == [ThinkingBlock("ab", signature="c2ln")]


# --- OpenAI Chat ---------------------------------------------------------------------------------

CHAT = (STREAMS / "openai/text.sse").read_bytes()


def chat_chunk(delta: dict[str, Any], finish: str | None = None, **more: Any) -> bytes:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    body = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return b"data: " + json.dumps(dict(body, choices=[choice], **more)).encode() + b"\n\n"


@pytest.mark.parametrize("eol", [b"\r", b"\r\n"])
def test_chat_cr_streams_accumulate(eol: bytes) -> None:
    """A Chat stream with CR-only (or CRLF) line ends accumulates exactly as with LF: the final
    ``[DONE]``, completed only by close(), is not thrown away."""
    assert C.accumulate([CHAT.replace(b"\n", eol)]) == C.accumulate([CHAT])


def test_chat_chunk_after_done_is_refused() -> None:
    """A chunk after ``data: [DONE]`` is refused with its index; the response stays as before."""
    late = chat_chunk({"content": "late"})
    acc = C.StreamAccumulator()
    err = refused(acc, CHAT + late)
    assert (err.frame, err.message) == (
        5,
        "data after the end of the stream (data: [DONE] at event 4)",
    )
    assert acc.response() == C.accumulate([CHAT])


def test_chat_finish_length_is_max_tokens() -> None:
    """finish_reason ``length`` accumulates to stop_reason ``max_tokens``; ``stop`` to
    ``end_turn``."""
    for finish, reason in [("length", "max_tokens"), ("stop", "end_turn")]:
        data = chat_chunk({"role": "assistant", "content": "a"}) + chat_chunk({}, finish)
        assert C.accumulate([data + b"data: [DONE]\n\n"]).stop_reason == reason


def test_chat_unknown_delta_keys_are_merged() -> None:
    """A vendor's ``reasoning_content`` deltas are joined, as the SDK joins them, and the
    chunk's unknown top-level key is kept: neither is dropped."""
    data = chat_chunk({"role": "assistant", "reasoning_content": "thi"}, x_groq={"id": "g"})
    data += chat_chunk({"reasoning_content": "nk"}) + chat_chunk({"content": "ok"})
    data += chat_chunk({}, "stop") + b"data: [DONE]\n\n"
    acc = C.StreamAccumulator()
    acc.feed(data)
    assert acc.body() == {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "ok",
                    "refusal": None,
                    "reasoning_content": "think",
                },
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "x_groq": {"id": "g"},
    }


def test_chat_error_chunk_keeps_its_object() -> None:
    """An error object mid-stream is a StreamError carrying it, at its index."""
    first = CHAT.split(b"\n\n")[0] + b"\n\n"
    err = refused(C.StreamAccumulator(), first + b'data: {"error":{"message":"boom"}}\n\n')
    assert (err.frame, err.error) == (1, {"message": "boom"})


# --- OpenAI Responses ----------------------------------------------------------------------------

R_TEXT = (DATA / "provider-examples-responses/stream_text.sse").read_bytes()


def r_events(data: bytes) -> list[bytes]:
    return [b + b"\n\n" for b in data.split(b"\n\n") if b.strip()]


def r_event(data: dict[str, Any]) -> bytes:
    return sse(data)


def test_responses_snapshot_not_an_object_is_refused() -> None:
    """``response.completed`` with ``"response": 5`` is refused by name, not AttributeError."""
    err = refused(R.StreamAccumulator(), r_event({"type": "response.completed", "response": 5}))
    assert (err.frame, err.message) == (
        0,
        "response.completed: 'response' must be an object, not int",
    )


def test_responses_output_index_null_is_refused() -> None:
    """An ``output_index`` of null is refused by name, not TypeError."""
    bad = {"type": "response.output_item.added", "output_index": None, "item": {}}
    err = refused(R.StreamAccumulator(), r_event(bad))
    assert err.message == "response.output_item.added: 'output_index' must be an integer, not null"


def test_responses_delta_into_the_wrong_part_is_refused() -> None:
    """An output_text delta for a refusal part, or arguments for a message item, is refused."""
    item = {"type": "message", "id": "m", "role": "assistant", "content": []}
    head = r_event({"type": "response.output_item.added", "output_index": 0, "item": item})
    head += r_event(
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "refusal", "refusal": ""},
        }
    )
    text = {
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 0,
        "delta": "x",
    }
    err = refused(R.StreamAccumulator(), head + r_event(text))
    assert (err.frame, err.message) == (
        2,
        "response.output_text.delta for part 0 of its item, a 'refusal' part"
        " (it goes to a 'output_text' part)",
    )
    args = {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{"}
    err = refused(R.StreamAccumulator(), head + r_event(args))
    assert err.message == (
        "response.function_call_arguments.delta for output item 0, a 'message' item"
        " (it goes to a 'function_call' item)"
    )


def test_responses_incomplete_is_final_with_max_tokens() -> None:
    """A stream ending in ``response.incomplete`` (max_output_tokens) is complete and
    accumulates to stop_reason ``max_tokens``."""
    events = r_events(R_TEXT)
    last = json.loads(events[-1].split(b"data: ", 1)[1])
    assert last["type"] == "response.completed"
    last["type"] = "response.incomplete"
    last["response"]["status"] = "incomplete"
    last["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
    resp = R.accumulate([b"".join(events[:-1]) + r_event(last)])
    assert resp.stop_reason == "max_tokens"


def test_responses_event_after_completed_is_refused() -> None:
    """An event after the terminal one is refused with its index."""
    late = {
        "type": "response.output_text.delta",
        "output_index": 0,
        "content_index": 0,
        "delta": "x",
    }
    n = len(r_events(R_TEXT))
    err = refused(R.StreamAccumulator(), R_TEXT + r_event(late))
    assert (err.frame, err.message) == (
        n,
        f"data after the end of the stream (the terminal response event at event {n - 1})",
    )


def test_responses_unknown_event_kept() -> None:
    """An unknown event type is kept whole with provenance, not applied; progress events of
    built-in tools are not listed."""
    odd = {"type": "response.audio.delta", "delta": "AAAA"}
    progress = {"type": "response.web_search_call.searching", "output_index": 0}
    events = r_events(R_TEXT)
    acc = R.StreamAccumulator()
    acc.feed(events[0] + r_event(odd) + r_event(progress) + b"".join(events[1:]))
    acc.close()
    assert acc.unknown == [UnknownEvent("response.audio.delta", odd, "openai_responses", 1)]


# --- Gemini --------------------------------------------------------------------------------------


def g_chunk(parts: list[dict[str, Any]], finish: str | None = None, **more: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return dict({"candidates": [candidate]}, **more)


def g_sse(chunks: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)


def g_array(chunks: list[dict[str, Any]]) -> bytes:
    return ("[" + ",\r\n".join(json.dumps(c) for c in chunks) + "]").encode()


def test_gemini_stream_cut_between_chunks_is_an_error() -> None:
    """An SSE stream that stops between two chunks, before any finishReason, is an error (not a
    complete-looking end_turn); the text so far stays in the partial response."""
    acc = G.StreamAccumulator()
    err = refused(acc, g_sse([g_chunk([{"text": "The capital"}])]))
    assert (err.frame, err.message) == (
        1,
        "the stream ended before any candidate's finishReason (the stream was cut between chunks)",
    )
    assert acc.response().message.content == [TextBlock("The capital")]


def test_gemini_stop_is_end_turn_and_max_tokens() -> None:
    """finishReason STOP accumulates to end_turn, MAX_TOKENS to max_tokens (SSE and array)."""
    for finish, reason in [("STOP", "end_turn"), ("MAX_TOKENS", "max_tokens")]:
        chunks = [g_chunk([{"text": "a"}]), g_chunk([{"text": "b"}], finish)]
        assert G.accumulate([g_sse(chunks)]).stop_reason == reason
        assert G.accumulate([g_array(chunks)], sse=False).stop_reason == reason


def test_gemini_thought_then_text_stay_two_parts() -> None:
    """A thought chunk followed by a text chunk stays two parts (thinking, then text)."""
    chunks = [
        g_chunk([{"text": "plan", "thought": True}]),
        g_chunk([{"text": "answer"}], "STOP"),
    ]
    resp = G.accumulate([g_sse(chunks)])
    assert [type(b).__name__ for b in resp.message.content] == ["ThinkingBlock", "TextBlock"]
    assert resp.message.content[1] == TextBlock("answer")  # type: ignore[index]


def test_gemini_array_without_closing_bracket_is_refused() -> None:
    """A JSON-array stream missing its closing ``]`` is refused at close."""
    data = g_array([g_chunk([{"text": "a"}], "STOP")])
    acc = G.StreamAccumulator(sse=False)
    err = refused(acc, data[:-1])
    assert (err.frame, err.message) == (1, "the stream ended before the closing ']'")
    assert acc.chunks == 1


def test_gemini_every_candidate_is_kept() -> None:
    """Two candidates streamed interleaved are merged by index; the second is not dropped."""
    first = {"candidates": [{"index": 0, "content": {"role": "model", "parts": [{"text": "a"}]}}]}
    second = {"candidates": [{"index": 1, "content": {"role": "model", "parts": [{"text": "b"}]}}]}
    end = {
        "candidates": [
            {
                "index": 0,
                "content": {"role": "model", "parts": [{"text": "c"}]},
                "finishReason": "STOP",
            },
            {
                "index": 1,
                "content": {"role": "model", "parts": [{"text": "d"}]},
                "finishReason": "STOP",
            },
        ]
    }
    acc = G.StreamAccumulator()
    acc.feed(g_sse([first, second, end]))
    resp = acc.close()
    assert resp.message.content == [TextBlock("ac")]
    assert acc._candidates[1].body() == {
        "index": 1,
        "finishReason": "STOP",
        "content": {"role": "model", "parts": [{"text": "bd"}]},
    }


def test_gemini_data_after_closing_bracket_is_refused() -> None:
    """Bytes after the array's closing ``]`` are refused."""
    data = g_array([g_chunk([{"text": "a"}], "STOP")]) + b"{}"
    err = refused(G.StreamAccumulator(sse=False), data)
    assert (err.frame, err.message) == (1, "data after the closing ']'")


# --- SSE -----------------------------------------------------------------------------------------


def test_max_event_default_and_limit() -> None:
    """Limits.max_event defaults to 16 MiB and is capped by max_size."""
    assert Limits().max_event == DEFAULT_MAX_EVENT == 16 << 20
    assert Limits(max_size=100).event_limit == 100
    assert Limits(max_event=50).event_limit == 50
    with pytest.raises(ValueError, match=r"^Limits\.max_event must be a positive int, got 0$"):
        Limits(max_event=0)


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_event_that_never_ends_is_refused_at_the_limit(eol: bytes) -> None:
    """An event still arriving past max_event is refused as soon as the buffer passes it,
    whatever the line ends; the event before it is returned in ``received``."""
    parser = SSEParser(Limits(max_event=100))
    first = b"data: ok" + eol + eol
    got = parser.feed(first) + parser.feed(b"data: " + b"x" * 50)
    with pytest.raises(StreamError) as info:
        parser.feed(b"x" * 45 + eol + b"data: y")
    assert got + info.value.received == [SSEEvent("message", b"ok", 0, 0)]
    assert info.value.frame == 1
    assert info.value.message.startswith(
        f"the event starting at byte {len(first)} is longer than the limit of 100 bytes"
    )


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_event_at_the_limit_is_accepted(eol: bytes) -> None:
    """An event exactly max_event bytes long (line ends included) is accepted."""
    body = b"data: " + b"x" * 10 + eol
    parser = SSEParser(Limits(max_event=len(body)))
    got = parser.feed(body + eol) + parser.close()  # a final lone \r completes only at close
    assert got == [SSEEvent("message", b"x" * 10, 0, 0)]
    parser = SSEParser(Limits(max_event=len(body) - 1))
    with pytest.raises(StreamError):
        parser.feed(body + eol)
        parser.close()


def test_stream_readers_take_limits() -> None:
    """Every accumulator applies the limits it is given to its events."""
    small = Limits(max_event=64)
    big = b"data: " + json.dumps({"type": "ping", "pad": "x" * 100}).encode() + b"\n\n"
    for acc in (
        A.StreamAccumulator(small),
        C.StreamAccumulator(small),
        R.StreamAccumulator(small),
        G.StreamAccumulator(limits=small),
    ):
        with pytest.raises(StreamError, match="longer than the limit of 64 bytes"):
            acc.feed(big)
    with pytest.raises(StreamError, match="longer than the limit of 64 bytes"):
        G.StreamAccumulator(sse=False, limits=small).feed(b"[" + big[6:])


def test_stream_longer_than_max_size_is_refused() -> None:
    """An accumulator refuses a stream longer than max_size in all."""
    acc = C.StreamAccumulator(Limits(max_size=len(CHAT) - 1))
    with pytest.raises(StreamError, match=f"longer than the limit of {len(CHAT) - 1} bytes"):
        acc.feed(CHAT)


@pytest.mark.parametrize("eol", [b"\r\n", b"\r"])
def test_multi_line_event_in_many_chunks(eol: bytes) -> None:
    """A multi-line CRLF/CR event fed in small chunks gives its data once, joined by LF."""
    lines = [b"data: line %d" % i for i in range(2000)]
    stream = eol.join(lines) + eol + eol
    parser = SSEParser()
    got: list[SSEEvent] = []
    for i in range(0, len(stream), 7):
        got += parser.feed(stream[i : i + 7])
    got += parser.close()
    assert got == [SSEEvent("message", b"\n".join(line[6:] for line in lines), 0, 0)]


def test_anthropic_unnamed_delta_type_merges_into_its_block() -> None:
    """A delta type the module does not name (``compaction_delta``) appends its strings to
    its block, as the SDK's generic accumulate does; nothing is dropped."""
    block = {"type": "compaction", "content": ""}
    data = a_start() + a_block(0, block)
    data += a_delta(0, {"type": "compaction_delta", "content": "sum"})
    data += a_delta(0, {"type": "compaction_delta", "content": "mary"})
    acc = A.StreamAccumulator()
    acc.feed(data + a_stop(0) + a_end())
    acc.close()
    assert acc.body()["content"] == [{"type": "compaction", "content": "summary"}]


def test_chat_content_parts_and_index_less_calls() -> None:
    """Mistral's list-of-parts content is kept in order, and tool calls without ``index`` are
    each a new call (one continuing the last call's id joins it)."""
    call = {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    other = dict(call, id="b")
    data = chat_chunk({"role": "assistant", "content": [{"type": "thinking", "thinking": "t"}]})
    data += chat_chunk({"content": [{"type": "text", "text": "x"}]})
    data += chat_chunk({"tool_calls": [call]}) + chat_chunk({"tool_calls": [other]})
    data += chat_chunk({}, "tool_calls") + b"data: [DONE]\n\n"
    acc = C.StreamAccumulator()
    acc.feed(data)
    acc.close()
    message = acc.body()["choices"][0]["message"]
    assert message["content"] == [
        {"type": "thinking", "thinking": "t"},
        {"type": "text", "text": "x"},
    ]
    assert message["tool_calls"] == [call, other]
