"""Stream translation: every recorded stream into every format, against the non-streamed
translation, the official SDKs' stream accumulators, and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2
import pydantic
import pytest
from anthropic import Anthropic
from anthropic._streaming import Stream as AStream
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import RawMessageStreamEvent
from google.genai import types as gtypes
from msgspec import UNSET
from openai import OpenAI
from openai._streaming import Stream as OStream
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent

from minagent import providers
from minagent.providers import (
    ADAPTERS,
    StreamError,
    StreamTranslator,
    UnsupportedError,
    translate_stream,
)
from minagent.providers.translate import WRITERS, stream_body
from minagent.wire import ModelResponse, TextBlock, ThinkingBlock, ToolUseBlock

from .test_provider_recordings import RESPONSES, STREAMS, _provider, _rel, _wire_bytes

TARGETS = sorted(ADAPTERS)
CASES = [(path, target) for path in STREAMS for target in TARGETS]
INCONSISTENT = {"provider-real/openai_responses/stream_shell_container.chunks.txt": 25}
"""Recordings whose ``output_text.done`` text does not continue their deltas (a trimmed
fixture): the event index the translation refuses (the text was already sent)."""


SDK_REFUSES: dict[tuple[str, str], str] = {}
"""Translations the SDK refuses because the non-streamed translation already writes what
the SDK refuses (none since the Responses adapter maps a stop reason outside its statuses, such
as a Chat dialect's ``""``, to ``completed``)."""


def source_of(path: Path) -> tuple[str, bytes]:
    source = _provider(path)
    assert source is not None
    return source, _wire_bytes(path, source)


def case_id(case: Any) -> str:
    return case.name if isinstance(case, Path) else str(case)


def translated(
    data: bytes | list[bytes], source: str, target: str, **options: Any
) -> tuple[bytes, list[Any]]:
    dropped: list[Any] = []
    chunks = [data] if isinstance(data, bytes) else data
    out = b"".join(translate_stream(chunks, source, target, dropped=dropped, **options))
    return out, dropped


def expected(
    resp: ModelResponse, target: str, policy: str, **fields: Any
) -> tuple[ModelResponse, list[Any]]:
    """The non-streamed translation, decoded, in the target's stream shape (`stream_body`)."""
    adapter = providers.get(target)
    dropped: list[Any] = []
    data = adapter.encode_response(resp, unsupported=policy, dropped=dropped, **fields)
    body = json.loads(data)
    return adapter.decode_response(json.dumps(stream_body(target, body))), dropped


def test_every_pair_has_recordings() -> None:
    """51 recorded streams cover all four sources, so all 16 ordered pairs are exercised."""
    sources = {_provider(p) for p in STREAMS}
    assert (len(STREAMS), sources) == (51, set(TARGETS))


@pytest.mark.parametrize("policy", ["drop", "error"])
@pytest.mark.parametrize(("path", "target"), CASES, ids=case_id)
def test_accumulated_equals_non_streamed_translation(path: Path, target: str, policy: str) -> None:
    """The translated stream, accumulated by the target's own accumulator, equals the
    non-streamed translation of the accumulated source (and lists the same dropped entries);
    where the non-streamed translation raises, the stream raises the same error."""
    source, data = source_of(path)
    resp = providers.get(source).accumulate([data])
    # a fixed creation time for a source without one (no clock in play); a same-format stream
    # passes through unchanged, fields unused
    lacks = resp.created is UNSET and source != target
    fields = {"created": 1_700_000_000} if lacks else {}
    try:
        want, want_dropped = expected(resp, target, policy, **fields)
    except providers.UnsupportedError as err:
        with pytest.raises(UnsupportedError) as caught:
            translated(data, source, target, unsupported=policy)
        assert (str(caught.value), caught.value.path) == (str(err), err.path)
        return
    except Exception as err:  # a response the target cannot take without fields (id=)
        with pytest.raises(type(err), match="needs"):
            translated(data, source, target, unsupported=policy)
        return
    frame = INCONSISTENT.get(_rel(path))
    if frame is not None and source != target:
        with pytest.raises(StreamError) as failure:
            translated(data, source, target, unsupported=policy)
        assert failure.value.frame == frame
        return
    out, dropped = translated(data, source, target, unsupported=policy, **fields)
    assert providers.get(target).accumulate([out]) == want
    assert dropped == want_dropped


def test_expected_failures_are_few() -> None:
    """Most pairs translate: the drop policy raises for none, the error policy for the
    content the targets refuse (a count pinned so a change is seen)."""
    counts = {"drop": 0, "error": 0}
    for path, target in CASES:
        source, data = source_of(path)
        resp = providers.get(source).accumulate([data])
        for policy in counts:
            try:
                expected(resp, target, policy)
            except UnsupportedError:
                counts[policy] += 1
    assert counts == {"drop": 0, "error": 89}


def test_same_format_passes_through() -> None:
    """Source and target the same: the bytes come out as they went in, checked on the way."""
    for path in STREAMS:
        source, data = source_of(path)
        out, dropped = translated([data[:7], data[7:]], source, source)
        assert (out, dropped) == (data, [])


def test_anthropic_text_to_chat_exact() -> None:
    """A recorded Anthropic text stream becomes these exact Chat chunks."""
    data = _wire_bytes(STREAMS_BY["provider-streams/anthropic/text.sse"], "anthropic")
    out, dropped = translated(
        data, "anthropic", "openai_chat", unsupported="drop", created=1_700_000_000
    )
    top = (
        'data: {"id":"msg_4QpJur2dWWDjF6C758FbBw5vm12BaVipnK","object":"chat.completion.chunk",'
        '"created":1700000000,"model":"claude-3-opus-latest","choices":['
    )
    head = top + '{"index":0,"delta":'
    assert out.decode().split("\n\n") == [
        head + '{"role":"assistant"},"finish_reason":null}]}',
        head + '{"content":""},"finish_reason":null}]}',
        head + '{"content":"Hello"},"finish_reason":null}]}',
        head + '{"content":" there"},"finish_reason":null}]}',
        head + '{"content":"!"},"finish_reason":null}]}',
        top + '{"index":0,"logprobs":null,"delta":{},"finish_reason":"stop"}]}',
        top + '],"usage":{"prompt_tokens":11,"completion_tokens":6,"total_tokens":17}}',
        "data: [DONE]",
        "",
    ]
    assert [d.path for d in dropped] == ["$.stop_sequence"]


STREAMS_BY = {_rel(p): p for p in STREAMS}


def test_text_goes_out_as_it_arrives() -> None:
    """Each source text delta yields its target piece at once, before the source ends."""
    data = _wire_bytes(STREAMS_BY["provider-streams/anthropic/text.sse"], "anthropic")
    events = [e + b"\n\n" for e in data.split(b"\n\n") if e]
    for target, piece in [
        ("openai_chat", b'"content":" there"'),
        ("openai_responses", b'"delta":" there"'),
        ("gemini", b'"text":" there"'),
        ("anthropic", b'"text":" there"'),
    ]:
        translator = StreamTranslator("anthropic", target)
        outs = [translator.feed(e) for e in events]
        at = next(i for i, e in enumerate(events) if b'" there"' in e)
        assert piece in outs[at], target
        assert all(piece not in o for o in outs[:at]), target


def test_any_chunking_gives_the_same_bytes() -> None:
    """Split into single bytes, every recorded stream translates to the very bytes it gives
    whole (the output depends on the events, not on how the bytes were cut)."""
    for path in STREAMS[::5]:
        source, data = source_of(path)
        for target in TARGETS:
            if INCONSISTENT.get(_rel(path)) is not None:
                continue
            # a fixed `created`: a target stamps now when the source has none (Chat), and the
            # clock may tick between the two translations
            whole, _ = translated(data, source, target, unsupported="drop", created=1_700_000_000)
            bytewise, _ = translated(
                [data[i : i + 1] for i in range(len(data))],
                source,
                target,
                unsupported="drop",
                created=1_700_000_000,
            )
            assert bytewise == whole, (_rel(path), target)


# --- the official SDKs' stream accumulators ------------------------------------------------------


def _http(data: bytes, url: str) -> Any:
    return httpx2.Response(200, content=data, request=httpx2.Request("POST", url))


def sdk_anthropic(data: bytes) -> Any:
    snapshot: Any = None
    bufs: dict[int, bytes] = {}
    stream = AStream(
        cast_to=RawMessageStreamEvent,
        response=_http(data, "https://api.anthropic.com/v1/messages"),
        client=Anthropic(api_key="x"),
    )
    for event in stream:
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)
    return snapshot


def sdk_chat(data: bytes) -> Any:
    state = ChatCompletionStreamState()
    stream = OStream(
        cast_to=ChatCompletionChunk,
        response=_http(data, "https://api.openai.com/v1/chat/completions"),
        client=OpenAI(api_key="x"),
    )
    for chunk in stream:
        state.handle_chunk(chunk)
    return state.current_completion_snapshot


_RESPONSES_EVENT: Any = pydantic.TypeAdapter(ResponseStreamEvent)


def sdk_responses(data: bytes) -> Any:
    from openai import omit

    state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
    snapshot = None
    for block in data.split(b"\n\n"):
        for line in block.split(b"\n"):
            if line.startswith(b"data: "):
                event = _RESPONSES_EVENT.validate_json(line[6:])
                state.handle_event(event)
                snapshot = event
    assert snapshot is not None
    return snapshot.response  # the terminal event's response


def sdk_gemini(data: bytes) -> list[Any]:
    return [
        gtypes.GenerateContentResponse.model_validate_json(line[6:])
        for line in data.split(b"\r\n\r\n")
        if line.startswith(b"data: ")
    ]


def _texts(resp: ModelResponse) -> tuple[str, list[tuple[str, str, Any]]]:
    content = resp.message.content
    blocks = [TextBlock(text=content)] if isinstance(content, str) else list(content)
    text = "".join(b.text for b in blocks if isinstance(b, TextBlock))
    calls = [(b.id, b.name, b.input) for b in blocks if isinstance(b, ToolUseBlock)]
    return text, calls


@pytest.mark.parametrize("path", STREAMS, ids=case_id)
def test_official_sdks_accumulate_what_we_do(path: Path) -> None:
    """Into every other format, the translated stream passes that format's official SDK stream
    machinery (Anthropic accumulate_event, OpenAI ChatCompletionStreamState and
    ResponseStreamState, google-genai GenerateContentResponse per chunk), which agrees with our
    accumulator on the text, the tool calls and the stop reason."""
    source, data = source_of(path)
    if INCONSISTENT.get(_rel(path)) is not None:
        pytest.skip("the recording's deltas disagree with its done text (see INCONSISTENT)")
    for target in TARGETS:
        if target == source:
            continue
        out, _ = translated(data, source, target, unsupported="drop")
        ours = providers.get(target).accumulate([out])
        text, calls = _texts(ours)
        if target == "anthropic":
            sdk = sdk_anthropic(out)
            assert "".join(b.text for b in sdk.content if b.type == "text") == text
            assert [(b.id, b.name, b.input) for b in sdk.content if b.type == "tool_use"] == calls
            assert (sdk.stop_reason, sdk.id, sdk.model) == (ours.stop_reason, ours.id, ours.model)
            assert sdk.usage.output_tokens == ours.usage.get("output_tokens", 0)
            thinking = [b for b in ours.message.content if isinstance(b, ThinkingBlock)]  # type: ignore[union-attr]
            assert [(b.thinking, b.signature) for b in sdk.content if b.type == "thinking"] == [
                (b.thinking, b.signature) for b in thinking
            ]
        elif target == "openai_chat":
            sdk = sdk_chat(out)
            message = sdk.choices[0].message
            assert (message.content or "") == text
            body = json.loads(providers.get(target).encode_response(ours))
            assert [
                (c.id, c.function.name, c.function.arguments) for c in message.tool_calls or ()
            ] == [
                (c["id"], c["function"]["name"], c["function"]["arguments"])
                for c in body["choices"][0]["message"].get("tool_calls", ())
            ]
            assert [c[:2] for c in calls] == [
                (c.id, c.function.name) for c in message.tool_calls or ()
            ]
            assert (sdk.id, sdk.model) == (ours.id, ours.model)
            assert sdk.choices[0].finish_reason == body["choices"][0]["finish_reason"]
        elif target == "openai_responses":
            if (_rel(path), target) in SDK_REFUSES:
                with pytest.raises(pydantic.ValidationError, match=SDK_REFUSES[_rel(path), target]):
                    sdk_responses(out)
                continue
            sdk = sdk_responses(out)
            assert sdk.output_text == text
            body = json.loads(providers.get(target).encode_response(ours))
            assert [
                (i.call_id, i.name, i.arguments) for i in sdk.output if i.type == "function_call"
            ] == [
                (i["call_id"], i["name"], i["arguments"])
                for i in body["output"]
                if i["type"] == "function_call"
            ]
            assert [c[:2] for c in calls] == [
                (i.call_id, i.name) for i in sdk.output if i.type == "function_call"
            ]
            assert (sdk.id, sdk.model) == (ours.id, ours.model)
        else:
            chunks = sdk_gemini(out)
            parts = [
                p
                for c in chunks
                if c.candidates and c.candidates[0].content
                for p in c.candidates[0].content.parts or ()
            ]
            assert "".join(p.text for p in parts if p.text and not p.thought) == text
            assert [
                (p.function_call.id, p.function_call.name, p.function_call.args)
                for p in parts
                if p.function_call
            ] == [(i if i else None, n, a) for i, n, a in calls]
            assert chunks[-1].candidates[0].finish_reason is not None


# --- errors ---------------------------------------------------------------------------------------


def test_bad_source_bytes_name_the_event() -> None:
    """Bad JSON in the source raises our StreamError with the index of the bad event, after the
    target bytes of the events before it were given."""
    data = _wire_bytes(STREAMS_BY["provider-streams/anthropic/text.sse"], "anthropic")
    events = data.split(b"\n\n")
    events[3] = b"event: content_block_delta\ndata: {oops"
    bad = b"\n\n".join(events)
    translator = StreamTranslator("anthropic", "openai_chat")
    with pytest.raises(StreamError) as failure:
        translator.feed(bad)
    assert failure.value.frame == 3
    assert "invalid JSON" in str(failure.value)


def test_cut_source_stream_is_refused_at_close() -> None:
    """A source stream cut before its end raises StreamError at close, naming the events."""
    data = _wire_bytes(STREAMS_BY["provider-streams/openai/text.sse"], "openai_chat")
    cut = data[: data.index(b"data: [DONE]")]
    translator = StreamTranslator("openai_chat", "anthropic")
    assert b"message_start" in translator.feed(cut)
    with pytest.raises(StreamError, match=r"before data: \[DONE\]") as failure:
        translator.close()
    assert failure.value.frame == 4  # after the 4 chunks received


def test_error_event_in_the_source() -> None:
    """An error event in the source stream raises StreamError with the provider's error."""
    data = (
        b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message",'
        b'"role":"assistant","model":"c","content":[],"stop_reason":null,"usage":'
        b'{"input_tokens":1,"output_tokens":0}}}\n\n'
        b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        b'"message":"Overloaded"}}\n\n'
    )
    with pytest.raises(StreamError, match="Overloaded") as failure:
        translated(data, "anthropic", "gemini")
    assert (failure.value.frame, failure.value.error["type"]) == (1, "overloaded_error")  # type: ignore[attr-defined]


def test_refused_content_is_refused_when_its_block_completes() -> None:
    """Under unsupported='error', a signed thinking block into Chat is refused as soon as the
    block is complete, naming its path in the whole response; with 'drop' it is left out and
    listed."""
    data = _wire_bytes(STREAMS_BY["provider-streams/anthropic/thinking_signature.sse"], "anthropic")
    translator = StreamTranslator("anthropic", "openai_chat")
    events = [e + b"\n\n" for e in data.split(b"\n\n") if e]
    stop = next(i for i, e in enumerate(events) if b"content_block_stop" in e)
    for event in events[:stop]:
        translator.feed(event)
    with pytest.raises(UnsupportedError) as refused:
        translator.feed(events[stop])
    assert refused.value.path == "$.message.content[0]"
    out, dropped = translated(data, "anthropic", "openai_chat", unsupported="drop")
    assert [(d.path, d.kind) for d in dropped if d.kind == "content"] == [
        ("$.message.content[0]", "content")
    ]
    assert b"thinking" not in out


def test_bad_arguments() -> None:
    """Unknown formats and policies, and text instead of bytes, are refused by name."""
    with pytest.raises(ValueError, match="unknown target format 'openai'"):
        StreamTranslator("anthropic", "openai")
    with pytest.raises(ValueError, match="unknown source format 'claude'"):
        list(translate_stream([b""], "claude", "gemini"))
    with pytest.raises(TypeError, match="a stream chunk must be bytes, not str"):
        StreamTranslator("anthropic", "gemini").feed("data: {}")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unsupported must be"):
        StreamTranslator("anthropic", "gemini", unsupported="ignore")  # type: ignore[arg-type]


# --- each writer alone ----------------------------------------------------------------------------

REPLAY_GAPS = {
    "provider-dialects/response_alibaba_tool_call_index.json": "tool call 'index' key, empty text",
    "provider-dialects/response_deepseek_tool_call_index.json": "tool call 'index' key",
    "provider-dialects/response_mistral_text.json": "message keys a chunk delta joins",
    "provider-dialects/response_mistral_tool_call_no_type.json": "tool call without 'type'",
    "provider-dialects/response_nebius_reasoning_content.json": "'tool_calls': [] on the message",
    "provider-examples-gemini/response_text.json": "candidate without 'index'",
    "provider-real/gemini/response_vertex_grounding.json": "candidate without 'index'",
    "provider-real/gemini/response_vertex_tool_combination.json": "candidate without 'index'",
}
"""Non-streamed bodies of a vendor's own shape that its stream format cannot say the same way
(the stream adds or lacks the key named). Translation never meets them: a body a writer gets is
the target adapter's encoding of another provider's response, and same-format streams pass
through."""


@pytest.mark.parametrize("path", RESPONSES, ids=case_id)
def test_writer_replays_a_body_of_its_format(path: Path) -> None:
    """A writer given a recorded non-streamed body of its own format (begin, all its blocks,
    finish) writes a stream that accumulates to that body, in stream shape: response-level,
    choice-level and message-level keys, usage and every block survive."""
    target = _provider(path)
    assert target is not None
    body = json.loads(path.read_bytes())
    adapter = providers.get(target)
    want = adapter.decode_response(json.dumps(stream_body(target, body)))
    writer = WRITERS[target]()
    writer.begin(body)
    writer.blocks(body)
    writer.finish(body)
    got = adapter.accumulate([writer.take()])
    if _rel(path) in REPLAY_GAPS:
        assert got != want
    else:
        assert got == want


def test_replay_covers_every_format() -> None:
    """The replayed bodies cover all four formats, most of them exactly."""
    formats = {_provider(p) for p in RESPONSES}
    assert formats == set(TARGETS)
    assert (len(RESPONSES), len(REPLAY_GAPS)) == (73, 8)


# --- a Chat source with thinking first ------------------------------------------------------------


def chat_events(*deltas: dict[str, Any], finish: str = "stop") -> list[bytes]:
    """A Chat stream, one event per delta, then the finish chunk and [DONE]."""
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 7, "model": "m"}
    out = [
        b"data: "
        + json.dumps(dict(head, choices=[{"index": 0, "delta": d, "finish_reason": None}])).encode()
        + b"\n\n"
        for d in deltas
    ]
    last = dict(head, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])
    return [*out, b"data: " + json.dumps(last).encode() + b"\n\n", b"data: [DONE]\n\n"]


def test_chat_thinking_goes_before_the_live_text() -> None:
    """DeepSeek-style reasoning_content first: the thinking is sent whole when the text starts
    (a Gemini thought part), then the text piece by piece, and the whole equals the
    non-streamed translation."""
    events = chat_events(
        {"role": "assistant", "reasoning_content": "Let me"},
        {"reasoning_content": " think."},
        {"content": "Hi"},
        {"content": " there"},
    )
    translator = StreamTranslator("openai_chat", "gemini")
    outs = [translator.feed(e) for e in events]
    assert b"thought" not in b"".join(outs[:2])
    assert outs[2].count(b"data: ") == 2  # the thought part, then the first text piece
    assert b'"thought":true' in outs[2].split(b"\r\n\r\n")[0]
    assert b'"text":" there"' in outs[3]
    out = b"".join(outs) + translator.close()
    resp = providers.get("openai_chat").accumulate(events)
    want, _ = expected(resp, "gemini", "error")
    assert providers.get("gemini").accumulate([out]) == want
    assert [type(b).__name__ for b in want.message.content] == ["ThinkingBlock", "TextBlock"]  # type: ignore[union-attr]


def test_chat_thinking_dropped_for_anthropic_text_still_live() -> None:
    """Into Anthropic (which takes back only thinking it signed) with unsupported='drop', the
    unsigned thinking is dropped and listed, and the text still goes out as it arrives."""
    events = chat_events({"reasoning_content": "hmm"}, {"content": "Hi"}, {"content": "!"})
    dropped: list[Any] = []
    translator = StreamTranslator("openai_chat", "anthropic", unsupported="drop", dropped=dropped)
    outs = [translator.feed(e) for e in events]
    assert b'"text":"!"' in outs[2]
    out = b"".join(outs) + translator.close()
    content = providers.get("anthropic").accumulate([out]).message.content
    assert content == [TextBlock(text="Hi!")]
    assert [(d.path, d.kind) for d in dropped if d.kind == "content"] == [
        ("$.message.content[0]", "content")
    ]


def test_chat_thinking_after_the_text_is_refused() -> None:
    """Thinking that arrives after the text started belongs before it, where nothing can be
    added any more: StreamError naming that chunk, never a silently reordered message."""
    events = chat_events({"content": "Hi"}, {"reasoning_content": "late"})
    with pytest.raises(StreamError, match="after the text started") as failure:
        translated(b"".join(events), "openai_chat", "gemini")
    assert failure.value.frame == 1


def test_thinking_goes_out_as_it_arrives_where_the_target_has_a_place() -> None:
    """Anthropic thinking into Gemini (thought parts) and Responses (a reasoning item's
    reasoning_text) is sent piece by piece, each piece from the feed of its own event; into
    Chat (no place for it) it is left out whole, listed."""
    data = _wire_bytes(STREAMS_BY["provider-streams/anthropic/thinking_signature.sse"], "anthropic")
    events = [e + b"\n\n" for e in data.split(b"\n\n") if e.strip()]
    at = next(i for i, e in enumerate(events) if b'"thinking":"Simple educ"' in e)
    for target, piece in [
        ("gemini", b'{"text":"Simple educ","thought":true}'),
        ("openai_responses", b'"type":"response.reasoning_text.delta"'),
    ]:
        translator = StreamTranslator("anthropic", target, unsupported="drop")
        outs = [translator.feed(e) for e in events]
        assert piece in outs[at], target
        assert all(piece not in o for o in outs[:at]), target
        if target == "openai_responses":
            assert b'"delta":"Simple educ"' in outs[at]
    out, dropped = translated(data, "anthropic", "openai_chat", unsupported="drop")
    assert b"Simple educ" not in out
    assert [d.path for d in dropped if d.kind == "content"] == ["$.message.content[0]"]


def test_gemini_array_framing_source() -> None:
    """A Gemini stream in the JSON-array framing (sse=False) translates to what its alt=sse
    form gives (into Gemini it passes through as it came); sse=False for another source is
    refused."""
    path = STREAMS_BY["provider-real/gemini/stream_thought_signature.sse"]
    data = _wire_bytes(path, "gemini")
    chunks = [
        line[6:] for line in data.replace(b"\r\n", b"\n").split(b"\n") if line[:6] == b"data: "
    ]
    array = b"[" + b",\r\n".join(chunks) + b"]"
    fixed = {"unsupported": "drop", "created": 1_700_000_000}  # Chat stamps now without it
    for target in TARGETS:
        want, _ = translated(data, "gemini", target, **fixed)
        pieces = [array[i : i + 50] for i in range(0, len(array), 50)]
        got, _ = translated(pieces, "gemini", target, sse=False, **fixed)
        assert got == (array if target == "gemini" else want)  # same format: passed through
    with pytest.raises(ValueError, match="Gemini source only"):
        StreamTranslator("anthropic", "gemini", sse=False)


def test_events_before_a_failure_are_yielded_first() -> None:
    """translate_stream yields the target bytes of the source events before a bad one, then
    raises; StreamTranslator keeps them for pending()."""
    data = _wire_bytes(STREAMS_BY["provider-streams/anthropic/text.sse"], "anthropic")
    events = data.split(b"\n\n")
    at = next(i for i, e in enumerate(events) if b'"text":"!"' in e)
    bad = b"\n\n".join([*events[:at], b"event: content_block_delta\ndata: {oops", *events[at:]])
    got: list[bytes] = []
    with pytest.raises(StreamError) as failure:
        got.extend(translate_stream([bad], "anthropic", "openai_chat"))
    assert failure.value.frame == at
    assert b"".join(got).count(b"data: ") == 4  # role, "", "Hello", " there"
    assert b'"content":" there"' in got[-1]
    translator = StreamTranslator("anthropic", "openai_chat")
    with pytest.raises(StreamError):
        translator.feed(bad)
    assert translator.pending() == b"".join(got)
    assert translator.pending() == b""


def test_a_late_response_created_starts_nothing_twice() -> None:
    """A Responses source whose response.created comes after its text started (as after a
    response.queued) gives one start in the target, not two."""
    data = _wire_bytes(
        STREAMS_BY["provider-examples-responses/stream_text.sse"], "openai_responses"
    )
    events = [e for e in data.split(b"\n\n") if e.strip()]
    created = next(e for e in events if b"event: response.created" in e)
    events.remove(created)
    part = next(i for i, e in enumerate(events) if b"response.output_text.delta" in e)
    events.insert(part + 1, created)
    late = b"\n\n".join(events) + b"\n\n"
    for target, start in (("anthropic", b"event: message_start"), ("openai_chat", b'"role"')):
        out, _ = translated(late, "openai_responses", target, unsupported="drop")
        assert out.count(start) == 1
        want, _ = translated(data, "openai_responses", target, unsupported="drop")
        assert out == want
