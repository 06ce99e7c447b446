"""Gateway-grade OpenAI Chat translation (issue 26): the Chat decoder reads what clients send so
other providers accept it, the Chat response encoder writes what the OpenAI SDK accepts, and the
LiteLLM-style extension carries thinking, citations and server blocks through Chat and back."""

from __future__ import annotations

import json
from typing import Any

from minagent.providers import anthropic, openai_chat
from minagent.providers._base import Dropped, Reasoning, ResponseFormat, ToolChoice
from minagent.wire.blocks import ImageBlock, TextBlock, ToolUseBlock, UrlSource


def _body(messages: list[dict[str, Any]], **settings: Any) -> bytes:
    return json.dumps({"model": "m", "messages": messages, **settings}).encode()


USER = {"role": "user", "content": "hi"}

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
    body = {
        "id": "r",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "", "tool_calls": [CALL]},
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
    }
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
