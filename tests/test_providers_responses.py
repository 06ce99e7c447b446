"""The OpenAI Responses adapter: round trips, mapping points, and the official SDK as checker."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import msgspec
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET
from openai.types.responses import Response
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

from minagent.providers import openai_responses as R
from minagent.providers import openai_responses_stream as S
from minagent.providers._base import Dropped, Request, StreamError, UnsupportedError
from minagent.wire import (
    Base64Source,
    DocumentBlock,
    Extra,
    ImageBlock,
    Message,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    UnknownBlock,
    UrlSource,
    ValidationError,
)
from tests.budget import scaled
from tests.strategies import trees

DATA = Path(__file__).parent / "data" / "provider-examples-responses"
REQUESTS = sorted(DATA.glob("request_*.json"))
RESPONSES = sorted(DATA.glob("response_*.json"))


def _ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


# --- SDK checkers -------------------------------------------------------------------------------

_PARAMS = pydantic.TypeAdapter(ResponseCreateParamsNonStreaming)


def _consume(value: Any) -> None:
    """Walk a validated TypedDict value, draining the lazy iterators pydantic leaves for
    ``Iterable[...]`` fields (their items are only validated while being consumed)."""
    if isinstance(value, Mapping):
        for v in value.values():
            _consume(v)
    elif isinstance(value, (str, bytes)):
        return
    elif isinstance(value, Iterable):
        for v in list(value):
            _consume(v)


def sdk_validate_request(body: bytes) -> None:
    """Validate a request body against the SDK's ``ResponseCreateParamsNonStreaming``."""
    adapter = _PARAMS  # kept referenced while the lazy iterators are drained
    _consume(adapter.validate_python(json.loads(body)))


_MISSING_FIELD = ("usage", "input_tokens_details", "cache_write_tokens")


def sdk_parse(body: bytes) -> Response:
    """The SDK's parse of ``body``. The installed SDK requires ``cache_write_tokens``, which these
    2025 recordings predate; that one complaint (and only it) is answered by adding a ``0``."""
    try:
        return Response.model_validate_json(body)
    except pydantic.ValidationError as err:
        assert [(e["type"], e["loc"]) for e in err.errors()] == [("missing", _MISSING_FIELD)]
    obj = json.loads(body)
    obj["usage"]["input_tokens_details"]["cache_write_tokens"] = 0
    return Response.model_validate(obj)


def assert_agrees(ours: ModelResponse, sdk: Response) -> None:
    """Field by field: our decode says what the SDK's parse says."""
    blocks = ours.message.content
    assert isinstance(blocks, list)
    starts = [
        b
        for b in blocks
        if (type(b) is UnknownBlock and b.type != "refusal")
        or type(b) in (ToolUseBlock, ThinkingBlock)
        or R.ITEM_KEY in (getattr(b, "extra", None) or {})
    ]
    assert len(starts) == len(sdk.output)
    it = iter(blocks)
    for item in sdk.output:
        block = next(it)
        if item.type == "message":
            for j, part in enumerate(item.content):
                if j:
                    block = next(it)
                if part.type == "output_text":
                    assert type(block) is TextBlock and block.text == part.text
                    assert block.extra["annotations"] == [a.model_dump() for a in part.annotations]
                else:
                    assert type(block) is UnknownBlock and block.data["type"] == part.type
        elif item.type == "function_call":
            assert type(block) is ToolUseBlock
            assert (block.id, block.name) == (item.call_id, item.name)
            assert block.input == json.loads(item.arguments)
        elif item.type == "reasoning":
            assert type(block) is ThinkingBlock
            summary = "\n\n".join(s.text for s in item.summary)
            content = "\n\n".join(c.text for c in item.content or [])
            assert block.thinking == (content or summary)
            keys = block.extra[R.ITEM_KEY]
            assert keys.get("encrypted_content") == item.encrypted_content
            assert keys["id"] == item.id
        else:
            assert type(block) is UnknownBlock and block.type == item.type
            assert block.data["id"] == item.id
    assert next(it, None) is None
    usage = sdk.usage
    assert usage is not None
    cached = usage.input_tokens_details.cached_tokens
    assert ours.usage["input_tokens"] == usage.input_tokens - cached  # uncached, as Anthropic
    assert ours.usage["output_tokens"] == usage.output_tokens
    assert ours.usage["total_tokens"] == usage.total_tokens
    assert ours.usage["cache_read_input_tokens"] == usage.input_tokens_details.cached_tokens
    assert ours.usage["reasoning_tokens"] == usage.output_tokens_details.reasoning_tokens
    assert ours.id == sdk.id and ours.model == sdk.model
    assert ours.extra["status"] == sdk.status


# --- the recorded examples ----------------------------------------------------------------------


@pytest.mark.parametrize("path", REQUESTS, ids=_ids(REQUESTS))
def test_request_round_trip(path: Path) -> None:
    """Every recorded request decodes and encodes back equal (parsed JSON)."""
    data = path.read_bytes()
    assert json.loads(R.encode_request(R.decode_request(data))) == json.loads(data)


_SDK_REFUSES = "request_function_call_output.json"


@pytest.mark.parametrize(
    "path",
    [p for p in REQUESTS if p.name != _SDK_REFUSES],
    ids=_ids(REQUESTS[:0]) or [p.stem for p in REQUESTS if p.name != _SDK_REFUSES],
)
def test_request_validates_against_sdk(path: Path) -> None:
    """Every request we write back validates against the SDK's request parameter type."""
    sdk_validate_request(R.encode_request(R.decode_request(path.read_bytes())))


def test_recorded_null_status_kept_though_sdk_refuses() -> None:
    """The one recorded request the SDK refuses carries ``"status": null`` on a function_call
    (sent by pydantic-ai, accepted by the API); we write back what came, and invent no null."""
    data = (DATA / _SDK_REFUSES).read_bytes()
    out = R.encode_request(R.decode_request(data))
    assert json.loads(out)["input"][1]["status"] is None
    with pytest.raises(pydantic.ValidationError):
        sdk_validate_request(out)
    body = json.loads(data)
    del body["input"][1]["status"]
    sdk_validate_request(R.encode_request(R.decode_request(json.dumps(body).encode())))


@pytest.mark.parametrize("path", RESPONSES, ids=_ids(RESPONSES))
def test_response_round_trip(path: Path) -> None:
    """Every recorded response decodes and encodes back equal (parsed JSON)."""
    data = path.read_bytes()
    assert json.loads(R.encode_response(R.decode_response(data))) == json.loads(data)


@pytest.mark.parametrize("path", RESPONSES, ids=_ids(RESPONSES))
def test_response_agrees_with_sdk(path: Path) -> None:
    """Our decode of each recorded response agrees with the SDK's parse of the same bytes."""
    data = path.read_bytes()
    assert_agrees(R.decode_response(data), sdk_parse(data))


def test_examples_count() -> None:
    """The example set is the one SOURCES.md lists: 10 requests, 8 responses, 3 streams."""
    assert (len(REQUESTS), len(RESPONSES), len(list(DATA.glob("*.sse")))) == (10, 8, 3)


# --- mapping points -----------------------------------------------------------------------------


def test_items_map_in_order() -> None:
    """Input items map to messages in order; a run of assistant-side items is one message."""
    req = R.decode_request((DATA / "request_web_search_replay.json").read_bytes())
    assert [m.role for m in req.messages] == ["system", "user", "assistant", "user"]
    blocks = req.messages[2].content
    assert [type(b).__name__ for b in blocks] == [
        "ThinkingBlock",
        "UnknownBlock",
        "ThinkingBlock",
        "TextBlock",
    ]
    assert blocks[1].type == "web_search_call"
    assert blocks[1].data["action"] == {"query": "weather: San Francisco, CA", "type": "search"}
    assert req.messages[0].content == "You are a helpful assistant."
    assert req.options["include"] == ["reasoning.encrypted_content"]
    assert req.options["previous_response_id"] is None


def test_function_call_and_output() -> None:
    """function_call -> tool_use with parsed arguments; function_call_output -> tool message."""
    req = R.decode_request((DATA / "request_function_call_output.json").read_bytes())
    call = req.messages[1].content[0]
    assert call == ToolUseBlock(
        id="call_YfwRsW8sUxDKipwyhWTzOXCA",
        name="get_capital",
        input={"country": "PotatoLand"},
        extra=Extra({R.ITEM_KEY: {"status": None}}),  # the recording's null, kept
    )
    assert req.messages[2] == Message(
        role="tool", content="Potato City", tool_call_id="call_YfwRsW8sUxDKipwyhWTzOXCA"
    )


@pytest.mark.parametrize("raw", ['{"a": 1}', '{"a":1', "not json", "[1,2]", '{"b":2,"a":1} ', ""])
def test_arguments_kept_byte_exact(raw: str) -> None:
    """Arguments that are not the compact JSON of an object are kept and written back exactly."""
    item = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": raw}
    body = json.dumps({"model": "m", "input": [item]}).encode()
    req = R.decode_request(body)
    block = req.messages[0].content[0]
    assert block.extra["arguments"] == raw
    assert json.loads(R.encode_request(req))["input"][0]["arguments"] == raw


def test_changed_input_wins_over_kept_arguments() -> None:
    """When the input was changed after decode, the arguments are encoded from the new input."""
    block = ToolUseBlock(id="c1", name="f", input={"a": 2}, extra=Extra({"arguments": '{"a": 1}'}))
    body = json.loads(R.encode_request([Message(role="assistant", content=[block])], model="m"))
    assert body["input"] == [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a":2}'}
    ]


def test_reasoning_item_survives_exactly() -> None:
    """A reasoning item (summary, encrypted_content, id) comes back exactly as it came."""
    data = (DATA / "request_reasoning_replay.json").read_bytes()
    original = json.loads(data)["input"][1]
    req = R.decode_request(data)
    block = req.messages[2].content[0]
    assert type(block) is ThinkingBlock
    assert block.thinking == "\n\n".join(s["text"] for s in original["summary"])
    assert json.loads(R.encode_request(req))["input"][1] == original


def test_foreign_thinking_is_refused_or_dropped() -> None:
    """Thinking not issued by OpenAI is refused by path, or dropped and reported."""
    msgs = [
        Message(role="user", content="hi"),
        Message(
            role="assistant",
            content=[ThinkingBlock(thinking="t", signature="sig"), TextBlock("ok")],
        ),
    ]
    with pytest.raises(UnsupportedError) as err:
        R.encode_request(msgs, model="m")
    assert err.value.path == "$.messages[1].content[0]"
    dropped: list[Dropped] = []
    body = json.loads(R.encode_request(msgs, model="m", unsupported="drop", dropped=dropped))
    assert dropped == [
        Dropped(
            "$.messages[1].content[0]",
            "thinking with a signature not issued by OpenAI (a reasoning item needs its id)",
        )
    ]
    assert body["input"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "ok"},
    ]


def test_instructions_and_developer() -> None:
    """instructions -> first system message; a developer item -> system with the hint; back."""
    body = {
        "model": "gpt-5",
        "instructions": "Be brief.",
        "input": [
            {"role": "developer", "content": "Use metric."},
            {"role": "user", "content": "x"},
        ],
        "store": False,
    }
    req = R.decode_request(json.dumps(body).encode())
    assert req.messages[:2] == [
        Message(role="system", content="Be brief."),
        Message(
            role="system",
            content="Use metric.",
            extra=Extra({"developer": True, "from_provider": "openai_responses"}),
        ),
    ]
    assert (req.model, req.options) == ("gpt-5", {"store": False})
    assert json.loads(R.encode_request(req)) == body


def test_input_string_normalised() -> None:
    """A string ``input`` is one user message; it is written back as a one-item list."""
    req = R.decode_request(b'{"model":"m","input":"hello"}')
    assert req.messages == [Message(role="user", content="hello")]
    assert json.loads(R.encode_request(req)) == {
        "model": "m",
        "input": [{"role": "user", "content": "hello"}],
    }


def test_images_and_files() -> None:
    """input_image / input_file: data URLs become raw bytes, URLs stay URLs, and back."""
    req = R.decode_request((DATA / "request_input_file.json").read_bytes())
    doc = req.messages[1].content[1]
    assert type(doc) is DocumentBlock and type(doc.source) is Base64Source
    assert doc.source.media_type == "application/pdf" and doc.source.data[:5] == b"%PDF-"
    assert doc.extra == Extra({"filename": "filename.pdf"})
    req = R.decode_request((DATA / "request_image_url.json").read_bytes())
    img = req.messages[1].content[1]
    assert type(img) is ImageBlock and type(img.source) is UrlSource
    assert img.extra is UNSET  # detail "auto" is the default the encoder writes back
    neutral = [Message(role="user", content=[ImageBlock(Base64Source("image/png", b"\x89PNG"))])]
    body = json.loads(R.encode_request(neutral, model="m"))
    assert body["input"][0]["content"] == [
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw==", "detail": "auto"}
    ]
    sdk_validate_request(R.encode_request(neutral, model="m"))


def test_tool_error_flag_refused() -> None:
    """is_error=True on a tool result has no Responses spelling: refused, or dropped, reported."""
    msgs = [
        Message(role="assistant", content=[ToolUseBlock(id="c", name="f", input={})]),
        Message(role="tool", content="boom", tool_call_id="c", is_error=True),
    ]
    with pytest.raises(UnsupportedError) as err:
        R.encode_request(msgs, model="m")
    assert err.value.path == "$.messages[1].is_error"
    dropped: list[Dropped] = []
    body = json.loads(R.encode_request(msgs, model="m", unsupported="drop", dropped=dropped))
    assert body["input"][1] == {"type": "function_call_output", "call_id": "c", "output": "boom"}
    assert [d.path for d in dropped] == ["$.messages[1].is_error"]


def test_no_none_written() -> None:
    """A neutral request encodes without a single null (None is never invented)."""
    msgs = [
        Message(role="system", content="s"),
        Message(role="user", content=[TextBlock("q")]),
        Message(
            role="assistant", content=[TextBlock("a"), ToolUseBlock(id="c", name="f", input={})]
        ),
        Message(role="tool", content="r", tool_call_id="c"),
    ]
    data = R.encode_request(msgs, model="gpt-5", max_output_tokens=5)
    assert b"null" not in data
    assert json.loads(data) == {
        "model": "gpt-5",
        "max_output_tokens": 5,
        "instructions": "s",
        "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "q"}]},
            {"role": "assistant", "content": "a"},
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "r"},
        ],
    }
    sdk_validate_request(data)


def test_stop_reasons() -> None:
    """status / incomplete_details map to neutral stop reasons and back."""
    base = json.loads((DATA / "response_text.json").read_bytes())
    cases = [
        ({"status": "completed"}, "end_turn"),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            "max_tokens",
        ),
        ({"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}, "refusal"),
        ({"status": "failed"}, "failed"),
    ]
    for patch, reason in cases:
        body = {**base, **patch}
        resp = R.decode_response(json.dumps(body).encode())
        assert resp.stop_reason == reason
        assert json.loads(R.encode_response(resp)) == body
    resp = R.decode_response((DATA / "response_function_call.json").read_bytes())
    assert resp.stop_reason == "tool_use"


def test_neutral_response_is_sdk_valid() -> None:
    """A response from another provider is filled into a Response the SDK accepts."""
    resp = ModelResponse(
        message=Message(
            role="assistant",
            content=[TextBlock("hi"), ToolUseBlock(id="c1", name="f", input={"x": 1})],
        ),
        stop_reason="max_tokens",
        usage={"input_tokens": 3, "output_tokens": 4},
    )
    data = R.encode_response(resp)
    body = json.loads(data)
    assert body["status"] == "incomplete"
    assert body["incomplete_details"] == {"reason": "max_output_tokens"}
    assert body["usage"] == {
        "input_tokens": 3,
        "output_tokens": 4,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 7,
    }
    assert body["output"][1] == {
        "type": "function_call",
        "call_id": "c1",
        "name": "f",
        "arguments": '{"x":1}',
    }
    sdk = Response.model_validate(body)
    assert sdk.output_text == "hi"
    back = R.decode_response(data)
    assert back.stop_reason == "max_tokens"
    assert back.usage == {
        "input_tokens": 3,
        "output_tokens": 4,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "reasoning_tokens": 0,
        "total_tokens": 7,
    }


def test_errors_name_the_path() -> None:
    """Malformed items raise our ValidationError naming where."""
    with pytest.raises(ValidationError) as err:
        R.decode_request(b'{"input":[{"role":"user","content":"x"},{"type":"function_call"}]}')
    assert err.value.path == "$.input[1].call_id"


_text = st.text(max_size=20)
_json = trees(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _text, depth=3, width=3, keys=_text
)


@st.composite
def conversations(draw: Any) -> list[Message]:
    """Neutral conversations the Responses API can hold."""
    msgs: list[Message] = []
    if draw(st.booleans()):
        msgs.append(Message(role="system", content=draw(_text)))
    for turn in range(draw(st.integers(1, 3))):
        msgs.append(Message(role="user", content=draw(_text)))
        blocks: list[Any] = [TextBlock(draw(_text))]
        calls = draw(st.lists(st.dictionaries(_text, _json, max_size=3), max_size=2))
        for k, args in enumerate(calls):
            blocks.append(ToolUseBlock(id=f"c{turn}_{k}", name="tool", input=args))
        msgs.append(Message(role="assistant", content=blocks))
        for k in range(len(calls)):
            msgs.append(Message(role="tool", content=draw(_text), tool_call_id=f"c{turn}_{k}"))
    return msgs


def _normal(msgs: list[Message]) -> list[Message]:
    """A one-text-block assistant content and its string are the same turn on this wire."""
    out = []
    for m in msgs:
        c = m.content
        if m.role == "assistant" and type(c) is list and len(c) == 1 and type(c[0]) is TextBlock:
            m = Message(role="assistant", content=c[0].text)
        out.append(m)
    return out


@settings(max_examples=scaled(30), deadline=None)
@given(conversations())
def test_neutral_round_trip(msgs: list[Message]) -> None:
    """Generated conversations go to Responses and back unchanged, and validate with the SDK."""
    data = R.encode_request(Request(messages=msgs, options={"model": "gpt-5"}))
    sdk_validate_request(data)
    assert _normal(R.decode_request(data).messages) == _normal(msgs)


# --- streaming ----------------------------------------------------------------------------------


STREAMS = sorted(DATA.glob("*.sse"))


def _final_snapshot(data: bytes) -> dict[str, Any]:
    events = S.StreamParser().feed(data)
    (last,) = [e for e in events if e.type == "response.completed"]
    return last.data["response"]


@pytest.mark.parametrize("path", STREAMS, ids=[p.stem for p in STREAMS])
def test_stream_one_byte_at_a_time(path: Path) -> None:
    """Fed one byte at a time, the accumulator gives the response of the terminal snapshot."""
    data = path.read_bytes()
    acc = S.StreamAccumulator()
    for i in range(len(data)):
        acc.feed(data[i : i + 1])
    resp = acc.close()
    final = _final_snapshot(data)
    assert resp == R.decode_response(json.dumps(final).encode())
    assert acc.events == data.count(b"\nevent: ") + 1


@pytest.mark.parametrize("path", STREAMS, ids=[p.stem for p in STREAMS])
def test_stream_items_from_deltas(path: Path) -> None:
    """The items built from the delta events equal the final output, except that the API
    re-encrypts each reasoning item's encrypted_content in the terminal snapshot."""
    data = path.read_bytes()
    acc = S.StreamAccumulator()
    acc.feed(data)
    final = _final_snapshot(data)["output"]
    built = acc.output()
    differ = [k for a, b in zip(built, final, strict=True) for k in a if a[k] != b.get(k)]
    assert len(built) == len(final)
    assert differ == ["encrypted_content"] * sum(1 for i in final if i["type"] == "reasoning")


_SDK_REFUSES_STREAM = "stream_reasoning_web_search.sse"
_SDK_CHECKED = [p for p in STREAMS if p.name != _SDK_REFUSES_STREAM]


@pytest.mark.parametrize("path", _SDK_CHECKED, ids=[p.stem for p in _SDK_CHECKED])
def test_stream_agrees_with_sdk(path: Path) -> None:
    """The accumulated response agrees with the SDK's parse of the terminal snapshot."""
    data = path.read_bytes()
    final = json.dumps(_final_snapshot(data)).encode()
    assert_agrees(S.accumulate([data]), sdk_parse(final))


def test_stream_sdk_refuses_web_search_source() -> None:
    """The SDK refuses the web-search stream's snapshot: its web_search_call action lists a source
    of type "api", which the SDK's types do not know; we keep it whole."""
    data = (DATA / _SDK_REFUSES_STREAM).read_bytes()
    final = _final_snapshot(data)
    with pytest.raises(pydantic.ValidationError) as err:
        Response.model_validate(final)
    locs = {e["loc"] for e in err.value.errors()}
    assert (
        "output",
        1,
        "ResponseFunctionWebSearch",
        "action",
        "ActionSearch",
        "sources",
        0,
        "type",
    ) in locs
    block = S.accumulate([data]).message.content[1]
    assert block == UnknownBlock(Extra(final["output"][1]))
    assert block.data["action"]["sources"] == [{"type": "api", "name": "oai-weather"}]


@settings(max_examples=scaled(30), deadline=None)
@given(st.data())
def test_stream_random_splits(data: Any) -> None:
    """Random chunk boundaries give the same events as the whole stream at once."""
    raw = STREAMS[0].read_bytes()
    cuts = sorted(data.draw(st.lists(st.integers(0, len(raw)), max_size=12)))
    parser = S.StreamParser()
    events = []
    for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True):
        events += parser.feed(raw[a:b])
    assert events == S.StreamParser().feed(raw)


def test_stream_function_call_arguments() -> None:
    """Arguments arriving in pieces are joined into the call's input."""
    resp = S.accumulate([(DATA / "stream_function_call.sse").read_bytes()])
    assert resp.stop_reason == "tool_use"
    (call,) = resp.message.content
    assert (call.name, call.input) == ("get_capital", {"country": "France"})


def test_stream_errors_keep_what_came() -> None:
    """An error event, bad JSON or a cut stream raise StreamError with the event index; the
    events before stay applied."""
    raw = (DATA / "stream_text.sse").read_bytes()
    blocks = raw.split(b"\n\n")
    error = b'event: error\ndata: {"type":"error","code":"server_error","message":"boom"}'
    acc = S.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(b"\n\n".join([*blocks[:5], error, b""]))
    assert (err.value.frame, err.value.error["message"]) == (5, "boom")
    assert acc.events == 6
    acc = S.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(b"\n\n".join([*blocks[:3], b"data: {nope", b""]))
    assert err.value.frame == 3 and acc.events == 3
    acc = S.StreamAccumulator()
    acc.feed(raw[: len(raw) // 2])
    with pytest.raises(StreamError):
        acc.close()
    partial = acc.response()  # what came before the cut is kept
    assert partial.message.text == "The capital of"
    assert partial.extra["status"] == "in_progress"


def test_stream_deltas_alone_build_the_items() -> None:
    """Without the *.done events and the terminal snapshot, the deltas alone build the text and
    the function call arguments."""
    for name, key in [("stream_function_call.sse", "arguments"), ("stream_text.sse", "content")]:
        data = (DATA / name).read_bytes()
        events = S.StreamParser().feed(data)
        final = _final_snapshot(data)["output"][0]
        acc = S.StreamAccumulator()
        for event in events:
            if event.type.endswith(".done") or event.type == "response.completed":
                if event.type != "response.output_item.done":
                    continue
                event = S.ResponsesEvent("skipped", event.index, {})
            acc.apply(event)
        built = acc.output()[0]
        if key == "arguments":
            assert built["arguments"] == final["arguments"] == '{"country":"France"}'
        else:
            assert built["content"][0]["text"] == final["content"][0]["text"]


def test_changed_reasoning_text_refused() -> None:
    """A reasoning block whose text was changed no longer matches its item: refused by path."""
    req = R.decode_request((DATA / "request_reasoning_replay.json").read_bytes())
    blocks = list(req.messages[2].content)
    blocks[0] = msgspec.structs.replace(blocks[0], thinking="edited")
    msgs = [*req.messages[:2], Message(role="assistant", content=blocks), *req.messages[3:]]
    with pytest.raises(UnsupportedError) as err:
        R.encode_request(Request(messages=msgs, options=req.options))
    assert err.value.path == "$.messages[2].content[0].thinking"


def test_consecutive_text_blocks_are_one_output_message() -> None:
    """A response's consecutive text blocks are the parts of one output message item (not one
    item each); a tool call between them starts a new one."""
    resp = ModelResponse(
        message=Message(
            role="assistant",
            content=[
                TextBlock("a"),
                TextBlock("b"),
                ToolUseBlock(id="c", name="f", input={}),
                TextBlock("z"),
            ],
        )
    )
    out = json.loads(R.encode_response(resp))["output"]
    assert [item["type"] for item in out] == ["message", "function_call", "message"]
    assert [p["text"] for p in out[0]["content"]] == ["a", "b"]
    assert [p["text"] for p in out[2]["content"]] == ["z"]


def test_non_canonical_base64_data_url_stays_text() -> None:
    """A data URL whose base64 is not canonical ("QR==") stays a URL, so it comes back as
    written, not rewritten ("QQ==")."""
    body = {
        "input": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,QR==",
                        "detail": "auto",
                    }
                ],
            }
        ]
    }
    req = R.decode_request(json.dumps(body).encode())
    assert req.messages[0].content[0].source == UrlSource("data:image/png;base64,QR==")
    assert json.loads(R.encode_request(req)) == body
