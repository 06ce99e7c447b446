"""The Anthropic Messages adapter: round trips of every example, SDK agreement, mapping points."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic.types as at
import msgspec
import pytest
from anthropic.types import message_create_params as mcp
from hypothesis import given
from hypothesis import strategies as st

from minagent.providers import anthropic
from minagent.providers._base import Request, UnsupportedError
from minagent.wire import (
    ContainerUploadBlock,
    Extra,
    McpToolUseBlock,
    Message,
    ModelResponse,
    RedactedThinkingBlock,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    UnknownBlock,
    WebSearchToolResultBlock,
)
from minagent.wire.errors import DecodeError, ValidationError

from .providers_sdk import examples, plain, validate_params

REQUESTS = examples("anthropic", "request")
RESPONSES = examples("anthropic", "response")


def params_type(body: bytes) -> Any:
    if json.loads(body).get("stream"):
        return mcp.MessageCreateParamsStreaming
    return mcp.MessageCreateParamsNonStreaming


def test_examples_are_there() -> None:
    """The provider examples hold 5 Anthropic requests and 7 responses."""
    assert (len(REQUESTS), len(RESPONSES)) == (5, 7)


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_round_trip(path: Path) -> None:
    """Every example request decoded and encoded again equals the original (parsed JSON)."""
    data = path.read_bytes()
    assert json.loads(anthropic.encode_request(anthropic.decode_request(data))) == json.loads(data)


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_validates_with_sdk(path: Path) -> None:
    """Every re-encoded example request validates against the SDK's request params type."""
    out = anthropic.encode_request(anthropic.decode_request(path.read_bytes()))
    checked = validate_params(params_type(out), out)
    assert len(checked["messages"]) == len(json.loads(out)["messages"])


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_response_round_trip(path: Path) -> None:
    """encode_response(decode_response(b)) equals b (parsed JSON) for every example."""
    data = path.read_bytes()
    out = anthropic.encode_response(anthropic.decode_response(data))
    assert json.loads(out) == json.loads(data)


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_response_agrees_with_sdk(path: Path) -> None:
    """Our decode agrees field by field with anthropic.types.Message.model_validate_json."""
    data = path.read_bytes()
    sdk = at.Message.model_validate_json(data)
    ours = anthropic.decode_response(data)
    assert ours.id == sdk.id
    assert ours.model == sdk.model
    assert ours.stop_reason == sdk.stop_reason
    assert ours.extra["stop_sequence"] == sdk.stop_sequence
    assert ours.message.role == sdk.role
    assert isinstance(ours.message.content, list)
    assert len(ours.message.content) == len(sdk.content)
    for block, sdk_block in zip(ours.message.content, sdk.content, strict=True):
        assert plain(block) == sdk_block.model_dump(mode="json", exclude_unset=True)
    sdk_usage = sdk.usage.model_dump(mode="json", exclude_unset=True)
    for name, value in ours.usage.items():
        node: Any = sdk_usage
        for part in name.split("."):
            node = node[part]
        assert node == value, name


def test_system_string_is_first_system_message() -> None:
    """A top-level system string becomes the first message, role system, content that string."""
    req = anthropic.decode_request(
        b'{"model":"m","max_tokens":5,"system":"Be brief.",'
        b'"messages":[{"role":"user","content":"Hi"}]}'
    )
    assert req.messages == [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Hi"),
    ]
    assert (req.model, req.max_tokens, req.options) == ("m", 5, {})


def test_system_blocks_keep_cache_control() -> None:
    """System text blocks with cache_control map to one system message and come back unchanged."""
    body = (
        b'{"model":"m","max_tokens":5,"system":[{"type":"text","text":"A"},'
        b'{"type":"text","text":"B","cache_control":{"type":"ephemeral"}}],'
        b'"messages":[{"role":"user","content":"Hi"}]}'
    )
    req = anthropic.decode_request(body)
    assert req.messages[0] == Message(
        role="system",
        content=[
            TextBlock("A"),
            TextBlock("B", cache_control={"type": "ephemeral"}),
        ],
    )
    assert json.loads(anthropic.encode_request(req)) == json.loads(body)


MIXED = {
    "model": "m",
    "max_tokens": 9,
    "messages": [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {"c": "P"}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "sunny"},
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "is_error": True,
                    "content": [{"type": "text", "text": "boom"}],
                    "cache_control": {"type": "ephemeral"},
                },
                {"type": "text", "text": "and now?"},
            ],
        },
    ],
}


def test_tool_results_map_to_tool_messages() -> None:
    """tool_result blocks become tool messages (id, is_error, string or block content, extra)
    and the text after them stays a user message, in order."""
    req = anthropic.decode_request(json.dumps(MIXED).encode())
    assert req.messages[2:] == [
        Message(role="tool", content="sunny", tool_call_id="t1"),
        Message(
            role="tool",
            content=[TextBlock("boom")],
            tool_call_id="t2",
            is_error=True,
            extra=Extra({"cache_control": {"type": "ephemeral"}}),
        ),
        Message(role="user", content=[TextBlock("and now?")]),
    ]


def test_tool_messages_merge_back_into_one_user_message() -> None:
    """Consecutive tool messages and the user text after them encode as one user message."""
    req = anthropic.decode_request(json.dumps(MIXED).encode())
    assert json.loads(anthropic.encode_request(req)) == MIXED


def test_text_before_tool_results_keeps_its_place() -> None:
    """A user message with text, then a tool result, then text round-trips in that order."""
    body = {
        "model": "m",
        "max_tokens": 1,
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "tool_result", "tool_use_id": "x"},
                    {"type": "text", "text": "b"},
                ],
            }
        ],
    }
    req = anthropic.decode_request(json.dumps(body).encode())
    assert [m.role for m in req.messages] == ["user", "tool", "user"]
    assert req.messages[1].extra == {"content_absent": True}
    assert json.loads(anthropic.encode_request(req)) == body


def test_thinking_signature_and_redacted_thinking_come_back_byte_exact() -> None:
    """A thinking signature and a redacted_thinking payload are written back byte for byte."""
    sig = "EqQBCgIYAhIM+/=\\u00e9"
    msgs = [
        Message(role="user", content="q"),
        Message(
            role="assistant",
            content=[ThinkingBlock("hmm", signature=sig), RedactedThinkingBlock("ZW5j+/==")],
        ),
    ]
    out = anthropic.encode_request(msgs, model="m", max_tokens=3)
    assert b'"signature":"EqQBCgIYAhIM+/=\\\\u00e9"' in out
    assert b'{"type":"redacted_thinking","data":"ZW5j+/=="}' in out
    assert anthropic.decode_request(out).messages == msgs


def test_response_keeps_id_model_stop_sequence_and_whole_usage() -> None:
    """id, model, stop_sequence and nested usage (cache_creation, server_tool_use,
    service_tier) are all kept, as counters and usage_extra."""
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "stop_sequence",
        "stop_sequence": "END",
        "usage": {
            "input_tokens": 3,
            "output_tokens": 4,
            "cache_creation": {"ephemeral_5m_input_tokens": 5, "ephemeral_1h_input_tokens": 0},
            "server_tool_use": {"web_search_requests": 2},
            "service_tier": "standard",
            "cache_read_input_tokens": None,
        },
    }
    resp = anthropic.decode_response(json.dumps(body).encode())
    assert resp.usage == {
        "input_tokens": 3,
        "output_tokens": 4,
        "cache_creation.ephemeral_5m_input_tokens": 5,
        "cache_creation.ephemeral_1h_input_tokens": 0,
        "server_tool_use.web_search_requests": 2,
    }
    assert (resp.id, resp.model) == ("msg_1", "claude-x")
    assert resp.extra == {
        "from_provider": "anthropic",
        "stop_sequence": "END",
        "usage_extra": {"service_tier": "standard", "cache_read_input_tokens": None},
    }
    assert resp.stop_reason == "stop_sequence"
    assert json.loads(anthropic.encode_response(resp)) == body


def test_server_tool_and_mcp_blocks_survive() -> None:
    """server_tool_use, web_search_tool_result and mcp_tool_use blocks decode to their typed
    catalog blocks and round-trip whole."""
    blocks = [
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "x"}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
        {"type": "mcp_tool_use", "id": "m1", "name": "f", "server_name": "srv", "input": {}},
        {"type": "text", "text": "t", "citations": [{"type": "web_search_result_location"}]},
    ]
    body = {"model": "m", "max_tokens": 1, "messages": [{"role": "assistant", "content": blocks}]}
    req = anthropic.decode_request(json.dumps(body).encode())
    assert req.messages[0].content == [
        ServerToolUseBlock(id="s1", name="web_search", input={"query": "x"}),
        WebSearchToolResultBlock(tool_use_id="s1", content=[]),
        McpToolUseBlock(id="m1", name="f", server_name="srv", input={}),
        TextBlock("t", citations=[{"type": "web_search_result_location"}]),
    ]
    assert json.loads(anthropic.encode_request(req)) == body


def test_keyword_form_matches_request_form() -> None:
    """encode_request(messages, model=..., max_tokens=...) equals encoding the same Request,
    and keyword options override the request's own."""
    msgs = [Message(role="user", content="Hi")]
    req = Request(messages=msgs, options={"model": "a", "max_tokens": 1})
    assert anthropic.encode_request(msgs, model="a", max_tokens=1) == anthropic.encode_request(req)
    assert json.loads(anthropic.encode_request(req, model="b"))["model"] == "b"


def test_bad_role_is_located() -> None:
    """A tool role inside messages is refused with the path of the message."""
    with pytest.raises(ValidationError) as info:
        anthropic.decode_request(b'{"messages":[{"role":"user","content":"a"},{"role":"tool"}]}')
    assert info.value.path == "$.messages[1]"
    assert info.value.message == "role 'tool' is not a Messages API role"


def test_bad_block_is_located() -> None:
    """A malformed known block inside messages reports its full JSON path."""
    with pytest.raises(ValidationError) as info:
        anthropic.decode_request(
            b'{"messages":[{"role":"user","content":[{"type":"text","text":1}]}]}'
        )
    assert info.value.path == "$.messages[0].content[0].text"


def test_invalid_json_is_a_decode_error() -> None:
    """Truncated JSON raises our DecodeError, for requests and responses alike."""
    with pytest.raises(DecodeError):
        anthropic.decode_request(b'{"messages":[')
    with pytest.raises(DecodeError):
        anthropic.decode_response(b'{"id":"x","content":[')


def test_response_without_stop_reason_is_refused() -> None:
    """A response whose stop_reason is null is refused at $.stop_reason (not guessed)."""
    with pytest.raises(ValidationError) as info:
        anthropic.decode_response(
            b'{"id":"i","type":"message","role":"assistant","model":"m","content":[],'
            b'"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}'
        )
    assert info.value.path == "$.stop_reason"


texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
ids = st.text("abcdef0123", min_size=1, max_size=6)
inputs = st.dictionaries(texts, st.one_of(st.integers(-5, 5), texts, st.booleans()), max_size=3)
assistant_blocks = st.lists(
    st.one_of(
        st.builds(TextBlock, texts),
        st.builds(ToolUseBlock, id=ids, name=ids, input=inputs),
        st.builds(ThinkingBlock, texts, signature=texts),
    ),
    min_size=1,
    max_size=3,
)


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    if draw(st.booleans()):
        out.append(Message(role="system", content=draw(texts)))
    for _ in range(draw(st.integers(1, 4))):
        out.append(Message(role="user", content=draw(texts)))
        out.append(Message(role="assistant", content=draw(assistant_blocks)))
        for _ in range(draw(st.integers(0, 2))):
            out.append(
                Message(
                    role="tool",
                    content=draw(st.one_of(texts, st.lists(st.builds(TextBlock, texts)))),
                    tool_call_id=draw(ids),
                    is_error=draw(st.sampled_from([True, False, msgspec_unset()])),
                )
            )
    return out


def msgspec_unset() -> Any:
    import msgspec

    return msgspec.UNSET


@given(conversations())
def test_neutral_conversations_round_trip(messages: list[Message]) -> None:
    """Generated neutral conversations go to an Anthropic request and back unchanged."""
    body = anthropic.encode_request(messages, model="m", max_tokens=5)
    assert anthropic.decode_request(body).messages == messages


@given(assistant_blocks, st.sampled_from(["end_turn", "tool_use", "pause_turn", "odd"]))
def test_neutral_responses_round_trip(blocks: list[Any], stop: str) -> None:
    """Generated responses go to an Anthropic response body and back unchanged."""
    resp = ModelResponse(
        message=Message(role="assistant", content=blocks),
        stop_reason=stop,
        usage={"input_tokens": 1, "output_tokens": 2},
        id="msg",
        model="m",
        extra=Extra({"from_provider": "anthropic", "stop_sequence": None}),
    )
    assert anthropic.decode_response(anthropic.encode_response(resp)) == resp


def test_unknown_block_is_kept_in_request() -> None:
    """A catalog block (container_upload) decodes typed and goes back unchanged; a block type
    this protocol does not name decodes as an UnknownBlock and goes back unchanged too (it is
    Anthropic's own); the same block in a message another provider produced is refused by path."""
    upload = {"type": "container_upload", "file_id": "f"}
    body = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [upload]}]}
    req = anthropic.decode_request(json.dumps(body).encode())
    assert req.messages[0].content == [ContainerUploadBlock(file_id="f")]
    assert json.loads(anthropic.encode_request(req)) == body
    body["messages"][0]["content"].append({"type": "compaction", "content": "c"})
    req = anthropic.decode_request(json.dumps(body).encode())
    assert req.messages[0].content[1] == UnknownBlock(Extra({"type": "compaction", "content": "c"}))
    assert json.loads(anthropic.encode_request(req)) == body
    foreign = Message(
        role="user",
        content=req.messages[0].content,
        extra=Extra({"from_provider": "openai_responses"}),
    )
    with pytest.raises(UnsupportedError) as err:
        anthropic.encode_request([foreign], model="m", max_tokens=1)
    assert err.value.path == "$.messages[0].content[1]"


def test_created_has_no_place_in_a_messages_response() -> None:
    """A `created=` keyword (as a stream translator passes to every target) or another
    provider's creation time is not written into an Anthropic response body, whose schema
    has no such key: one `$.created` metadata entry in `dropped`, whichever gave it."""
    foreign = ModelResponse(
        message=Message(role="assistant", content=[TextBlock(text="hi")]), id="r", model="m"
    )
    timed = msgspec.structs.replace(foreign, created=5)
    for response, fields in ((foreign, {"created": 9}), (timed, {}), (timed, {"created": 9})):
        dropped: list[Any] = []
        body = json.loads(
            anthropic.encode_response(response, unsupported="drop", dropped=dropped, **fields)
        )
        assert "created" not in body
        assert [(d.path, d.kind) for d in dropped] == [("$.created", "metadata")]
