"""Gateway-grade OpenAI Chat translation (issue 26): the Chat decoder reads what clients send so
other providers accept it, the Chat response encoder writes what the OpenAI SDK accepts, and the
LiteLLM-style extension carries thinking, citations and server blocks through Chat and back."""

from __future__ import annotations

import json
import time
from typing import Any

import msgspec
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from msgspec import UNSET
from openai.types.chat import ChatCompletion
from openai.types.chat import completion_create_params as ccp

from minagent import providers
from minagent.providers import anthropic, openai_chat
from minagent.providers._base import (
    Dropped,
    Reasoning,
    ResponseFormat,
    ToolChoice,
    UnsupportedError,
)
from minagent.providers.openai_chat_stream import accumulate
from minagent.wire import Extra, Message, ModelResponse
from minagent.wire.blocks import (
    ImageBlock,
    RedactedThinkingBlock,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    UnknownBlock,
    UrlSource,
    WebSearchToolResultBlock,
)

from .providers_sdk import validate_params
from .test_provider_contract import foreign_keys, recordings


def _body(messages: list[dict[str, Any]], **settings: Any) -> bytes:
    return json.dumps({"model": "m", "messages": messages, **settings}).encode()


USER = {"role": "user", "content": "hi"}


def _completion(message: dict[str, Any], finish: str, **top: Any) -> dict[str, Any]:
    """A chat.completion body with one choice holding ``message``."""
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
    return {
        "id": "r",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        **top,
        "choices": [choice],
    }


# --- decode side: Chat request -> neutral ---------------------------------------------------------


def test_max_completion_tokens_wins_over_the_deprecated_max_tokens() -> None:
    """With both spellings, max_completion_tokens (300) is the setting, and both come back."""
    data = _body([USER], max_tokens=50, max_completion_tokens=300)
    req = openai_chat.decode_request(data)
    assert req.max_tokens == 300
    assert req.options == {}
    assert json.loads(openai_chat.encode_request(req)) == json.loads(data)
    out = json.loads(anthropic.encode_request(req))
    assert out["max_tokens"] == 300


def test_max_tokens_alone_is_the_setting() -> None:
    """The deprecated spelling alone still sets max_tokens (and comes back as spelled)."""
    data = _body([USER], max_tokens=50)
    req = openai_chat.decode_request(data)
    assert req.max_tokens == 50
    assert json.loads(openai_chat.encode_request(req)) == json.loads(data)


CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def test_empty_content_beside_tool_calls_is_no_text_block() -> None:
    """An assistant "content": "" beside tool calls holds only the tool call (Anthropic gets no
    empty text block); the Chat round trip writes "" back exactly."""
    messages = [
        USER,
        {"role": "assistant", "content": "", "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    data = _body(messages)
    req = openai_chat.decode_request(data)
    assert req.messages[1].content == [ToolUseBlock(id="c1", name="f", input={})]
    assert json.loads(openai_chat.encode_request(req)) == json.loads(data)
    out = json.loads(anthropic.encode_request(req, max_tokens=8))
    assert out["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}],
    }


def test_empty_content_beside_tool_calls_in_a_response() -> None:
    """The same in a response: no empty text block, and "" written back."""
    body = _completion({"role": "assistant", "content": "", "tool_calls": [CALL]}, "tool_calls")
    resp = openai_chat.decode_response(json.dumps(body))
    assert resp.message.content == [ToolUseBlock(id="c1", name="f", input={})]
    assert json.loads(openai_chat.encode_response(resp)) == body


def test_tool_calls_with_index_are_tool_calls() -> None:
    """A tool call carrying a streaming `index` decodes as a tool call (index kept for the round
    trip, listed as metadata for Anthropic), so its tool result stays paired."""
    call = dict(CALL, index=0)
    messages = [
        USER,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    data = _body(messages)
    req = openai_chat.decode_request(data)
    block = req.messages[1].content[0]
    assert type(block) is ToolUseBlock
    assert block.extra == {"index": 0}
    assert json.loads(openai_chat.encode_request(req)) == json.loads(data)
    dropped: list[Dropped] = []
    out = json.loads(anthropic.encode_request(req, max_tokens=8, dropped=dropped))
    assert out["messages"][1]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "f", "input": {}}
    ]
    assert dropped == [
        Dropped("$.messages[1].content[0].index", "the key 'index' on a tool_use block", "metadata")
    ]


def test_image_part_with_cache_control_keeps_the_image() -> None:
    """A part-level cache_control on an image part keeps the image (typed cache_control), goes to
    Anthropic as the image's cache_control, and comes back at part level."""
    part = {
        "type": "image_url",
        "image_url": {"url": "https://example.com/a.png"},
        "cache_control": {"type": "ephemeral"},
    }
    data = _body([{"role": "user", "content": [part]}])
    req = openai_chat.decode_request(data)
    assert req.messages[0].content == [
        ImageBlock(
            source=UrlSource(url="https://example.com/a.png"), cache_control={"type": "ephemeral"}
        )
    ]
    assert json.loads(openai_chat.encode_request(req)) == json.loads(data)
    out = json.loads(anthropic.encode_request(req, max_tokens=8))
    assert out["messages"][0]["content"] == [
        {
            "type": "image",
            "source": {"type": "url", "url": "https://example.com/a.png"},
            "cache_control": {"type": "ephemeral"},
        }
    ]


def test_options_are_typed_settings() -> None:
    """reasoning_effort, user, response_format (json_schema), stop (string) and
    parallel_tool_calls become the neutral settings; an allowed_tools choice stays an option
    (content: another provider refuses or lists it by name)."""
    allowed = {
        "type": "allowed_tools",
        "allowed_tools": {
            "mode": "auto",
            "tools": [{"type": "function", "function": {"name": "f"}}],
        },
    }
    schema = {"name": "n", "schema": {"type": "object"}, "strict": True}
    data = _body(
        [USER],
        reasoning_effort="low",
        user="u1",
        stop="END",
        response_format={"type": "json_schema", "json_schema": schema},
        tool_choice=allowed,
        parallel_tool_calls=False,
    )
    req = openai_chat.decode_request(data)
    assert req.reasoning == Reasoning(effort="low")
    assert req.user == "u1"
    assert req.stop == ["END"]
    assert req.response_format == ResponseFormat(
        type="json_schema", name="n", schema={"type": "object"}, strict=True
    )
    assert req.tool_choice == ToolChoice(parallel=False)
    assert req.options == {"tool_choice": allowed}
    assert json.loads(openai_chat.encode_request(req)) == json.loads(data)


def test_tool_choice_forms() -> None:
    """Every tool_choice form with a neutral equivalent is typed: the mode strings and a named
    function."""
    forms = {
        "auto": ToolChoice(mode="auto"),
        "required": ToolChoice(mode="any"),
        "none": ToolChoice(mode="none"),
    }
    for value, expected in forms.items():
        assert openai_chat.decode_request(_body([USER], tool_choice=value)).tool_choice == expected
    named = {"type": "function", "function": {"name": "f"}}
    req = openai_chat.decode_request(_body([USER], tool_choice=named, parallel_tool_calls=True))
    assert req.tool_choice == ToolChoice(mode="tool", name="f", parallel=True)


def test_text_part_cache_control_stays_on_the_text() -> None:
    """A text part's cache_control is kept in the block's extra (Anthropic writes it)."""
    part = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    req = openai_chat.decode_request(_body([{"role": "user", "content": [part]}]))
    assert req.messages[0].content == [
        TextBlock("x", extra={"cache_control": {"type": "ephemeral"}})
    ]


# --- encode side: neutral -> Chat response ------------------------------------------------------

FOREIGN = [
    (name, path)
    for name in ("anthropic", "gemini", "openai_responses")
    for path in recordings(name, "response")
]


@pytest.mark.parametrize("extensions", [False, True])
@pytest.mark.parametrize(("name", "path"), FOREIGN, ids=[f"{n}:{p.name}" for n, p in FOREIGN])
def test_every_recorded_response_validates_as_a_chat_completion(
    name: str, path: Any, extensions: bool
) -> None:
    """Every recorded Anthropic, Gemini and Responses response written as a Chat response
    (content Chat cannot hold dropped and listed when refused) validates against the SDK's
    ChatCompletion with finish_reason inside the enum; without extensions no key is outside its
    schema, and all that is dropped by default is metadata."""
    resp = providers.get(name).decode_response(path.read_bytes())
    dropped: list[Dropped] = []
    try:
        body = openai_chat.encode_response(resp, extensions=extensions, dropped=dropped, id="x")
    except UnsupportedError:
        dropped = []
        body = openai_chat.encode_response(
            resp, extensions=extensions, unsupported="drop", dropped=dropped, id="x"
        )
        assert any(d.kind == "content" for d in dropped)
    else:
        assert {d.kind for d in dropped} <= {"metadata"}
    completion = ChatCompletion.model_validate_json(body)
    assert completion.choices[0].finish_reason in openai_chat.FINISH_ENUM
    if not extensions:
        assert foreign_keys(completion) == []


def _neutral(stop_reason: str, content: Any = "hi", **usage: int) -> ModelResponse:
    return ModelResponse(
        message=Message(role="assistant", content=content),
        stop_reason=stop_reason,
        usage=usage,
        id="msg_1",
        model="claude",
    )


@pytest.mark.parametrize(
    ("reason", "finish"),
    [
        ("end_turn", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("stop_sequence", "stop"),
        ("pause_turn", "length"),
        ("model_context_window_exceeded", "length"),
        ("MALFORMED_FUNCTION_CALL", "stop"),
        ("OTHER", "content_filter"),
        ("incomplete:max_output_tokens_of_the_future", "length"),
        ("something_new", "stop"),
    ],
)
def test_finish_reason_is_inside_the_enum(reason: str, finish: str) -> None:
    """Another provider's stop reason is written as the enum value meaning the same; one the
    reverse mapping would not give back is listed as metadata under its exact path."""
    dropped: list[Dropped] = []
    body = openai_chat.encode_response(_neutral(reason), dropped=dropped, created=1)
    assert json.loads(body)["choices"][0]["finish_reason"] == finish
    ChatCompletion.model_validate_json(body)
    exact = reason in ("end_turn", "max_tokens", "refusal")
    listed = [d for d in dropped if d.path == "$.stop_reason"]
    what = f"the stop reason {reason!r} (written as finish_reason {finish!r})"
    assert listed == ([] if exact else [Dropped("$.stop_reason", what, "metadata")])


def test_pause_turn_stop_reason_travels_in_the_extension() -> None:
    """With extensions=True the original stop reason goes in provider_specific_fields, not the
    dropped list."""
    dropped: list[Dropped] = []
    body = openai_chat.encode_response(
        _neutral("pause_turn"), extensions=True, dropped=dropped, created=1
    )
    message = json.loads(body)["choices"][0]["message"]
    assert message["provider_specific_fields"] == {"stop_reason": "pause_turn"}
    assert [d.path for d in dropped] == []


def test_a_tool_call_without_a_stop_reason_mapping_says_tool_calls() -> None:
    """An unknown stop reason on a message calling tools becomes tool_calls."""
    call = ToolUseBlock(id="t", name="f", input={})
    body = openai_chat.encode_response(_neutral("odd", [call]), created=1)
    assert json.loads(body)["choices"][0]["finish_reason"] == "tool_calls"


def test_thinking_tokens_are_reasoning_tokens() -> None:
    """Anthropic's output_tokens_details.thinking_tokens becomes
    completion_tokens_details.reasoning_tokens (the recorded count, 84)."""
    path = next(p for p in recordings("anthropic", "response") if "output_tokens_details" in p.name)
    resp = anthropic.decode_response(path.read_bytes())
    raw = json.loads(path.read_bytes())
    expected = raw["usage"]["output_tokens_details"]["thinking_tokens"]
    body = openai_chat.encode_response(resp, extensions=True)
    usage = json.loads(body)["usage"]
    assert usage["completion_tokens_details"] == {"reasoning_tokens": expected}
    assert usage["completion_tokens"] == raw["usage"]["output_tokens"]


def test_gemini_thoughts_count_as_completion_tokens() -> None:
    """Gemini counts thoughts apart from candidates; Chat's completion_tokens includes them and
    reasoning_tokens names them."""
    resp = _neutral("end_turn", output_tokens=10, reasoning_tokens=7, input_tokens=3)
    resp = ModelResponse(
        message=resp.message,
        stop_reason="end_turn",
        usage=resp.usage,
        id="r",
        model="gemini",
        extra={"from_provider": "gemini"},
    )
    usage = json.loads(openai_chat.encode_response(resp, created=1))["usage"]
    assert usage == {
        "prompt_tokens": 3,
        "completion_tokens": 17,
        "total_tokens": 20,
        "completion_tokens_details": {"reasoning_tokens": 7},
    }


def test_created_defaults_to_the_response_time_else_now() -> None:
    """created is the response's own time when it has one, else the time of the call: no
    bookkeeping from the caller."""
    timed = msgspec.structs.replace(_neutral("end_turn"), created=1700000000)
    assert json.loads(openai_chat.encode_response(timed))["created"] == 1700000000
    before = int(time.time())
    created = json.loads(openai_chat.encode_response(_neutral("end_turn")))["created"]
    assert before <= created <= int(time.time())


def test_thinking_is_refused_by_default() -> None:
    """The strict schema stays the default: a thinking block in a Chat response is refused by
    path unless extensions=True."""
    resp = _neutral("end_turn", [ThinkingBlock("hm", signature="s"), TextBlock("a")])
    with pytest.raises(UnsupportedError) as info:
        openai_chat.encode_response(resp)
    assert info.value.path == "$.message.content[0]"


# --- the extension: exact shapes -----------------------------------------------------------------

CITATION = {
    "type": "web_search_result_location",
    "cited_text": "Sunny",
    "url": "https://w.example/sf",
    "title": "SF",
    "encrypted_index": "e1",
}
RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [{"type": "web_search_result", "url": "https://w.example/sf", "title": "SF"}],
}
BLOCKS = [
    ThinkingBlock("Let me look.", signature="sig-1"),
    RedactedThinkingBlock("enc-2"),
    ServerToolUseBlock(id="srvtoolu_1", name="web_search", input={"query": "sf weather"}),
    WebSearchToolResultBlock(tool_use_id="srvtoolu_1", content=RESULT["content"]),
    TextBlock("It is sunny.", citations=[CITATION]),
    TextBlock(" Checking more."),
    ToolUseBlock(id="toolu_1", name="get_weather", input={"city": "SF"}, caller={"type": "direct"}),
]


def test_extension_shapes_are_litellms() -> None:
    """extensions=True writes reasoning_content, thinking_blocks and provider_specific_fields
    (citations with supported_text, server_tool_calls, web_search_results) exactly; the default
    order needs no minagent_order; a tool call's caller goes in its own
    provider_specific_fields."""
    dropped: list[Dropped] = []
    body = openai_chat.encode_response(
        _neutral("tool_use", BLOCKS), extensions=True, dropped=dropped, created=5
    )
    message = json.loads(body)["choices"][0]["message"]
    assert message == {
        "role": "assistant",
        "content": "It is sunny. Checking more.",
        "tool_calls": [
            {
                "id": "toolu_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"SF"}'},
                "provider_specific_fields": {"caller": {"type": "direct"}},
            }
        ],
        "reasoning_content": "Let me look.",
        "thinking_blocks": [
            {"type": "thinking", "thinking": "Let me look.", "signature": "sig-1"},
            {"type": "redacted_thinking", "data": "enc-2"},
        ],
        "provider_specific_fields": {
            "citations": [[{**CITATION, "supported_text": "It is sunny."}]],
            "server_tool_calls": [
                {
                    "id": "srvtoolu_1",
                    "type": "function",
                    "function": {"name": "web_search", "arguments": '{"query":"sf weather"}'},
                }
            ],
            "web_search_results": [RESULT],
        },
    }
    assert dropped == []
    ChatCompletion.model_validate_json(body)


def test_extension_writes_the_order_when_it_is_not_the_default() -> None:
    """Text before a server tool call is not the default order: minagent_order lists every
    block, and the client's message comes back as the same blocks."""
    blocks = [TextBlock("First. "), *BLOCKS[2:4], TextBlock("Then.")]
    body = openai_chat.encode_response(_neutral("end_turn", blocks), extensions=True, created=5)
    message = json.loads(body)["choices"][0]["message"]
    assert message["provider_specific_fields"]["minagent_order"] == [
        "text:7",
        "server_tool_use",
        "web_search_results",
        "text:5",
    ]
    request = openai_chat.decode_request(_body([USER, message]))
    assert request.messages[1] == Message(role="assistant", content=blocks)


def test_the_client_message_decodes_to_the_same_blocks() -> None:
    """A client sending the assistant message back gets the original blocks (signatures
    byte-equal, citations without supported_text), in a neutral message Anthropic writes as it
    is; the Chat request round trip is exact."""
    body = openai_chat.encode_response(_neutral("tool_use", BLOCKS), extensions=True, created=5)
    message = json.loads(body)["choices"][0]["message"]
    data = _body([USER, message, {"role": "tool", "tool_call_id": "toolu_1", "content": "20C"}])
    request = openai_chat.decode_request(data)
    assert request.messages[1] == Message(role="assistant", content=BLOCKS)
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)
    out = json.loads(anthropic.encode_request(request, max_tokens=8))
    assert out["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "Let me look.",
        "signature": "sig-1",
    }
    assert len(out["messages"][1]["content"]) == len(BLOCKS)


def test_litellm_messages_keep_their_other_fields() -> None:
    """A message as LiteLLM writes it (citations: null and thinking_blocks repeated inside
    provider_specific_fields) reads its thinking; the other provider_specific_fields stay the
    message's own (written back to Chat; listed as metadata for Anthropic)."""
    thinking = [{"type": "thinking", "thinking": "hm", "signature": "s1"}]
    message = {
        "role": "assistant",
        "content": "ok",
        "reasoning_content": "hm",
        "thinking_blocks": thinking,
        "provider_specific_fields": {"citations": None, "thinking_blocks": thinking},
    }
    data = _body([USER, message])
    request = openai_chat.decode_request(data)
    assert request.messages[1].content == [ThinkingBlock("hm", signature="s1"), TextBlock("ok")]
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)
    dropped: list[Dropped] = []
    out = json.loads(anthropic.encode_request(request, max_tokens=8, dropped=dropped))
    assert out["messages"][1]["content"][0] == {**thinking[0]}
    assert [(d.path, d.kind) for d in dropped] == [
        ("$.messages[1].provider_specific_fields", "metadata")
    ]


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": "a", "reasoning_content": "x", "thinking_blocks": []},
        {"role": "assistant", "content": "a", "thinking_blocks": [{"type": "thinking"}]},
        {"role": "assistant", "content": "a", "provider_specific_fields": {"citations": [[{}]]}},
        {
            "role": "assistant",
            "content": "a",
            "provider_specific_fields": {"minagent_order": ["text:9"]},
        },
    ],
)
def test_extension_keys_that_are_not_its_shapes_stay_the_messages_own(
    message: dict[str, Any],
) -> None:
    """Keys that would not be written back identically (reasoning text not the thinking
    blocks', a malformed block, a citation group not in the text, an order that does not fit)
    are left as the message's own keys: the Chat round trip stays exact."""
    data = _body([USER, message])
    request = openai_chat.decode_request(data)
    keys = ("thinking_blocks", "provider_specific_fields")
    kept = {k: v for k, v in message.items() if k in keys}
    assert {k: v for k, v in request.messages[1].extra.items() if k in keys} == kept
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)


def test_requests_can_carry_the_extension_too() -> None:
    """encode_request(extensions=True) writes another provider's thinking for a Chat server that
    reads the extension; the request validates against the SDK's params."""
    messages = [Message(role="user", content="q"), Message(role="assistant", content=BLOCKS[:1])]
    body = openai_chat.encode_request(messages, model="m", extensions=True)
    assert json.loads(body)["messages"][1] == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "Let me look.",
        "thinking_blocks": [{"type": "thinking", "thinking": "Let me look.", "signature": "sig-1"}],
    }
    validate_params(ccp.CompletionCreateParamsNonStreaming, body)
    with pytest.raises(TypeError):
        openai_chat.encode_request(messages, model="m", extensions="yes")


# --- Anthropic -> Chat client -> Anthropic: every recorded case --------------------------------

EXTENDED = [
    path
    for path in recordings("anthropic", "response")
    if any(
        b["type"] not in ("text", "tool_use") or b.get("citations")
        for b in json.loads(path.read_bytes())["content"]
    )
]


def test_the_recorded_cases_with_thinking_citations_or_server_blocks() -> None:
    """11 recorded Anthropic responses hold thinking, citations, server-tool or other Anthropic
    blocks."""
    assert len(EXTENDED) == 11


def _client_turn(message: dict[str, Any]) -> list[dict[str, Any]]:
    turn = [message]
    for call in message.get("tool_calls") or []:
        turn.append({"role": "tool", "tool_call_id": call["id"], "content": "done"})
    return turn


@pytest.mark.parametrize("path", EXTENDED, ids=lambda p: p.name)
def test_anthropic_blocks_survive_a_chat_client(path: Any) -> None:
    """Anthropic response -> Chat (extensions) -> the client's next request -> Anthropic
    request: the assistant turn holds exactly the response's content blocks (every signature
    byte-equal), and the Chat request round trip is exact."""
    raw = json.loads(path.read_bytes())
    resp = anthropic.decode_response(path.read_bytes())
    chat = json.loads(openai_chat.encode_response(resp, extensions=True))
    ChatCompletion.model_validate(chat)
    data = _body([USER, *_client_turn(chat["choices"][0]["message"])])
    request = openai_chat.decode_request(data)
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)
    dropped: list[Dropped] = []
    out = json.loads(anthropic.encode_request(request, max_tokens=8, dropped=dropped))
    content = out["messages"][1]["content"]
    # Anthropic refuses whitespace-only text blocks: those alone are left out, and listed
    blank = [
        i for i, b in enumerate(raw["content"]) if b["type"] == "text" and not b["text"].strip()
    ]
    kept = [b for i, b in enumerate(raw["content"]) if i not in blank]
    assert content == kept
    assert [d.path for d in dropped] == [f"$.messages[1].content[{i}]" for i in blank]
    signatures = [b.get("signature") or b.get("data") for b in kept]
    assert [b.get("signature") or b.get("data") for b in content] == signatures


def test_thinking_and_tools_across_a_multi_turn_conversation() -> None:
    """Two Anthropic tool turns with thinking go through a Chat client: the final Anthropic
    request holds both assistant turns with their thinking first and signatures byte-equal."""
    path = next(p for p in EXTENDED if p.name == "response_thinking_tool_use.json")
    raw = json.loads(path.read_bytes())
    history: list[dict[str, Any]] = [USER]
    turns = []
    for n in range(2):
        turn = json.loads(json.dumps(raw))
        for block in turn["content"]:
            if block["type"] == "tool_use":
                block["id"] += f"_{n}"
            if block["type"] == "thinking":
                block["signature"] += f"-{n}"
        turns.append(turn["content"])
        resp = anthropic.decode_response(json.dumps(turn))
        chat = json.loads(openai_chat.encode_response(resp, extensions=True))
        history += _client_turn(chat["choices"][0]["message"])
    out = json.loads(
        anthropic.encode_request(openai_chat.decode_request(_body(history)), max_tokens=8)
    )
    assistant = [m["content"] for m in out["messages"] if m["role"] == "assistant"]
    assert assistant == turns
    assert [c[0]["type"] for c in assistant] == ["thinking", "thinking"]


# --- the stream accumulator reads the extension's deltas ------------------------------------------


def _chunk(delta: dict[str, Any], finish: Any = None) -> bytes:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


def test_stream_thinking_blocks_deltas_accumulate_into_signed_thinking() -> None:
    """reasoning_content and thinking_blocks deltas (LiteLLM's stream shape: text pieces, then
    the signature, by block index) accumulate into the message the non-streamed body gives."""
    stream = [
        _chunk(
            {
                "role": "assistant",
                "reasoning_content": "Let ",
                "thinking_blocks": [{"type": "thinking", "thinking": "Let ", "index": 0}],
            }
        ),
        _chunk(
            {
                "reasoning_content": "me look.",
                "thinking_blocks": [{"type": "thinking", "thinking": "me look.", "index": 0}],
            }
        ),
        _chunk(
            {
                "thinking_blocks": [
                    {"type": "thinking", "thinking": "", "signature": "sig-1", "index": 0}
                ]
            }
        ),
        _chunk({"content": "Done."}),
        _chunk({}, "stop"),
        b"data: [DONE]\n\n",
    ]
    resp = accumulate(stream)
    assert resp.message.content == [
        ThinkingBlock("Let me look.", signature="sig-1"),
        TextBlock("Done."),
    ]
    message = {
        "role": "assistant",
        "content": "Done.",
        "refusal": None,
        "reasoning_content": "Let me look.",
        "thinking_blocks": [{"type": "thinking", "thinking": "Let me look.", "signature": "sig-1"}],
    }
    body = _completion(message, "stop", id="c")
    assert resp == openai_chat.decode_response(json.dumps(body))


def test_unknown_anthropic_blocks_stay_anthropic_blocks() -> None:
    """A block only Anthropic knows (compaction) travels whole in compaction_blocks and comes
    back as the same unknown block."""
    block = UnknownBlock(Extra({"type": "compaction", "content": "summary"}))
    body = openai_chat.encode_response(
        _neutral("end_turn", [block, TextBlock("Hi")]), extensions=True, created=1
    )
    message = json.loads(body)["choices"][0]["message"]
    assert message["provider_specific_fields"] == {"compaction_blocks": [block.data.to_dict()]}
    request = openai_chat.decode_request(_body([USER, message]))
    assert request.messages[1] == Message(role="assistant", content=[block, TextBlock("Hi")])


# --- property: any order of extension blocks comes back ------------------------------------------

_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)
_ids = st.text("abcdef0123", min_size=1, max_size=4)
_citation = st.builds(
    lambda t: {"type": "char_location", "cited_text": t, "document_index": 0},
    _texts,
)


@st.composite
def _extended_blocks(draw: st.DrawFn) -> list[Any]:
    kinds = st.sampled_from(["thinking", "redacted", "text", "cited", "server", "call", "other"])
    out: list[Any] = []
    for n, kind in enumerate(draw(st.lists(kinds, min_size=1, max_size=7))):
        if kind == "thinking":
            out.append(ThinkingBlock(draw(_texts), signature=draw(_texts)))
        elif kind == "redacted":
            out.append(RedactedThinkingBlock(draw(_texts)))
        elif kind == "text":
            out.append(TextBlock(draw(_texts)))
        elif kind == "cited":
            out.append(TextBlock(draw(_texts), citations=draw(st.lists(_citation, max_size=2))))
        elif kind == "server":
            ident = f"srv{n}"
            out.append(ServerToolUseBlock(id=ident, name="web_search", input={"q": draw(_texts)}))
            if draw(st.booleans()):
                out.append(WebSearchToolResultBlock(tool_use_id=ident, content=[]))
        elif kind == "call":
            out.append(ToolUseBlock(id=f"t{n}{draw(_ids)}", name="f", input={"a": draw(_texts)}))
        else:
            out.append(UnknownBlock(Extra({"type": "compaction", "content": draw(_texts)})))
    return out


def _cited(block: Any) -> bool:
    return getattr(block, "citations", UNSET) is not UNSET


@settings(max_examples=300, deadline=None)
@given(_extended_blocks())
def test_any_extended_message_comes_back_as_its_blocks(blocks: list[Any]) -> None:
    """Any sequence of thinking, redacted thinking, plain and cited text, server calls and
    results, tool calls and Anthropic-only blocks, written with extensions=True and sent back by
    a client, decodes to the same blocks (adjacent plain texts, which one Chat string cannot
    separate, included), and the Chat request round trip is exact. (A message of plain text and
    tool calls alone follows Chat's own rules: providers.md.)"""
    assume(any(type(b) not in (TextBlock, ToolUseBlock) or _cited(b) for b in blocks))
    resp = _neutral("end_turn", blocks)
    chat = json.loads(openai_chat.encode_response(resp, extensions=True, created=1))
    ChatCompletion.model_validate(chat)
    data = _body([USER, *_client_turn(chat["choices"][0]["message"])])
    request = openai_chat.decode_request(data)
    assert request.messages[1] == Message(role="assistant", content=blocks)
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | _texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_texts, inner, max_size=3),
    max_leaves=8,
)
_entry = st.fixed_dictionaries(
    {"type": st.sampled_from(["thinking", "redacted_thinking", "x"])},
    optional={"thinking": _texts, "signature": _texts, "data": _texts, "index": st.integers(0, 2)},
)
_psf = st.dictionaries(
    st.sampled_from(
        ["citations", "server_tool_calls", "web_search_results", "tool_results", "minagent_order"]
    ),
    _json | st.lists(st.sampled_from(["thinking", "text:1", "cited:0", "tool_use", "x:y"])),
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {"role": st.just("assistant"), "content": st.none() | _texts},
        optional={
            "reasoning_content": _texts | _json,
            "thinking_blocks": st.lists(_entry, max_size=3) | _json,
            "provider_specific_fields": _psf | _json,
            "tool_calls": st.just([CALL]),
        },
    )
)
def test_any_extension_keys_decode_exactly_or_stay_the_messages_own(
    message: dict[str, Any],
) -> None:
    """Whatever a client puts in the extension's keys, decoding raises nothing foreign and the
    Chat request round trip is exact (read as blocks, or kept as the message's own keys)."""
    messages = [USER, message]
    if "tool_calls" in message:
        messages.append({"role": "tool", "tool_call_id": "c1", "content": "ok"})
    data = _body(messages)
    request = openai_chat.decode_request(data)
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)


@pytest.mark.parametrize("content", ["", None])
def test_reasoning_beside_empty_or_null_content_round_trips(content: Any) -> None:
    """A reasoning_content message whose content is "" or null comes back as it was, in a
    request and in a response (the content_absent hint holds null; "" is the default)."""
    message = {"role": "assistant", "content": content, "reasoning_content": "think"}
    data = _body([USER, message])
    assert json.loads(openai_chat.encode_request(openai_chat.decode_request(data))) == json.loads(
        data
    )
    body = _completion(message, "stop")
    resp = openai_chat.decode_response(json.dumps(body))
    assert resp.message.content == [
        ThinkingBlock("think", extra={"openai_reasoning": "reasoning_content"})
    ]
    assert json.loads(openai_chat.encode_response(resp)) == body


def test_stream_thinking_blocks_by_index_and_without() -> None:
    """Two thinking blocks and a redacted one, streamed by index and interleaved, come out whole
    in index order of arrival; pieces without an index continue the last unsigned thinking
    block."""
    stream = [
        _chunk(
            {
                "role": "assistant",
                "thinking_blocks": [{"type": "thinking", "thinking": "A", "index": 0}],
            }
        ),
        _chunk({"thinking_blocks": [{"type": "redacted_thinking", "data": "R", "index": 1}]}),
        _chunk({"thinking_blocks": [{"type": "thinking", "thinking": "B", "index": 2}]}),
        _chunk({"thinking_blocks": [{"type": "thinking", "thinking": "a", "index": 0}]}),
        _chunk(
            {
                "thinking_blocks": [
                    {"type": "thinking", "thinking": "", "signature": "s0", "index": 0}
                ]
            }
        ),
        _chunk(
            {
                "thinking_blocks": [
                    {"type": "thinking", "thinking": "", "signature": "s2", "index": 2}
                ]
            }
        ),
        _chunk({"reasoning_content": "AaB", "content": "ok"}, "stop"),
        b"data: [DONE]\n\n",
    ]
    assert accumulate(stream).message.content == [
        ThinkingBlock("Aa", signature="s0"),
        RedactedThinkingBlock("R"),
        ThinkingBlock("B", signature="s2"),
        TextBlock("ok"),
    ]
    plain = [
        _chunk({"role": "assistant", "thinking_blocks": [{"type": "thinking", "thinking": "x"}]}),
        _chunk({"thinking_blocks": [{"type": "thinking", "thinking": "y"}]}),
        _chunk({"thinking_blocks": [{"type": "thinking", "signature": "sx"}]}),
        _chunk({"reasoning_content": "xy", "content": "ok"}, "stop"),
        b"data: [DONE]\n\n",
    ]
    assert accumulate(plain).message.content == [
        ThinkingBlock("xy", signature="sx"),
        TextBlock("ok"),
    ]


def test_thinking_entries_with_litellms_stream_index_are_read() -> None:
    """A thinking entry with other keys (LiteLLM's streamed "index") is still signed thinking:
    the key stays on the block (back to Chat as it came; listed as metadata for Anthropic)."""
    entry = {"type": "thinking", "thinking": "hm", "signature": "s1", "index": 0}
    message = {
        "role": "assistant",
        "content": "ok",
        "reasoning_content": "hm",
        "thinking_blocks": [entry],
    }
    data = _body([USER, message])
    request = openai_chat.decode_request(data)
    assert request.messages[1].content == [
        ThinkingBlock("hm", signature="s1", extra={"index": 0}),
        TextBlock("ok"),
    ]
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)
    dropped: list[Dropped] = []
    out = json.loads(anthropic.encode_request(request, max_tokens=8, dropped=dropped))
    assert out["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "hm",
        "signature": "s1",
    }
    assert dropped == [
        Dropped("$.messages[1].content[0].index", "the key 'index' on a thinking block", "metadata")
    ]


def test_tools_without_type_are_function_tools() -> None:
    """Tools without "type" (Mistral's clients) are typed Tools, so Anthropic gets them; the
    Chat round trip keeps them as spelled."""
    tool = {"function": {"name": "get_image", "parameters": {"type": "object"}}}
    data = _body([USER], tools=[tool])
    request = openai_chat.decode_request(data)
    assert request.tools is not None
    assert [t.name for t in request.tools] == ["get_image"]
    assert request.options == {}
    assert json.loads(openai_chat.encode_request(request)) == json.loads(data)
    out = json.loads(anthropic.encode_request(request, max_tokens=8))
    assert out["tools"] == [{"name": "get_image", "input_schema": {"type": "object"}}]


def test_a_litellm_proxy_response_reads_as_signed_thinking() -> None:
    """A Chat response carrying the extension (what a LiteLLM proxy returns for Claude) decodes
    to signed thinking, goes to an Anthropic client as a thinking block, and is written back to
    Chat exactly."""
    thinking = {"type": "thinking", "thinking": "hm", "signature": "s1"}
    message = {
        "role": "assistant",
        "content": "ok",
        "reasoning_content": "hm",
        "thinking_blocks": [thinking],
    }
    usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    body = _completion(message, "stop", id="chatcmpl-1", model="claude", usage=usage)
    resp = openai_chat.decode_response(json.dumps(body))
    assert resp.message.content == [ThinkingBlock("hm", signature="s1"), TextBlock("ok")]
    assert json.loads(openai_chat.encode_response(resp)) == body
    out = json.loads(anthropic.encode_response(resp))
    assert out["content"] == [thinking, {"type": "text", "text": "ok"}]
