"""Crossing providers: Anthropic <-> neutral <-> OpenAI Chat, with the unsupported policy."""

from __future__ import annotations

import json
from typing import Any

import anthropic.types as at
import msgspec
import pytest
from anthropic.types import message_create_params as mcp
from hypothesis import assume, given
from openai.types.chat import ChatCompletion
from openai.types.chat import completion_create_params as ccp

from minagent.providers import Dropped, UnsupportedError, anthropic, openai_chat
from minagent.wire import (
    Extra,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    UnknownBlock,
)

from .providers_sdk import examples, validate_params
from .test_providers_openai_chat import conversations as openai_conversations

THINKING = {
    "model": "claude",
    "max_tokens": 100,
    "system": [{"type": "text", "text": "S", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                {"type": "text", "text": "Hello"},
                {"type": "tool_use", "id": "t1", "name": "f", "input": {"x": 1}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "1"}]},
    ],
}


def test_thinking_into_chat_completions_is_refused_with_its_path() -> None:
    """A signed thinking block cannot go to Chat Completions: UnsupportedError names it and its
    path."""
    req = anthropic.decode_request(json.dumps(THINKING).encode())
    req = type(req)(messages=req.messages[1:], options=req.options)  # system aside
    with pytest.raises(UnsupportedError) as info:
        openai_chat.encode_request(req)
    assert info.value.path == "$.messages[1].content[0]"
    assert info.value.message == (
        "the target format cannot hold a thinking block in an assistant message"
    )


def test_drop_policy_drops_and_reports_each_item() -> None:
    """unsupported="drop" leaves out thinking, cache_control and the thinking budget (the typed
    reasoning setting, which Chat Completions spells only as an effort) and lists exactly
    those, with paths."""
    body = dict(THINKING, thinking={"type": "enabled", "budget_tokens": 50})
    req = anthropic.decode_request(json.dumps(body).encode())
    dropped: list[Dropped] = []
    out = openai_chat.encode_request(req, unsupported="drop", dropped=dropped)
    assert dropped == [
        Dropped("$.reasoning", "the setting 'reasoning' (no Chat Completions spelling)"),
        Dropped(
            "$.messages[0].content[0].cache_control",
            "the key 'cache_control' on a text block",
            "metadata",
        ),
        Dropped("$.messages[2].content[0]", "a thinking block in an assistant message"),
    ]
    assert json.loads(out) == {
        "model": "claude",
        "max_tokens": 100,
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "S"}]},
            {"role": "user", "content": "Hi"},
            {
                "role": "assistant",
                "content": "Hello",
                "tool_calls": [
                    {
                        "id": "t1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"x":1}'},
                    }
                ],
            },
            {"role": "tool", "content": "1", "tool_call_id": "t1"},
        ],
    }
    validate_params(ccp.CompletionCreateParamsNonStreaming, out)


def test_cache_control_into_openai_is_listed_as_metadata() -> None:
    """cache_control on a neutral text block is metadata to the OpenAI encoder: never refused,
    listed at its exact path, and not written."""
    msgs = [Message(role="user", content=[TextBlock("x", extra=Extra(cache_control={"t": 1}))])]
    dropped: list[Dropped] = []
    out = openai_chat.encode_request(msgs, model="m", dropped=dropped)
    assert json.loads(out)["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "x"}]}
    ]
    assert dropped == [
        Dropped(
            "$.messages[0].content[0].cache_control",
            "the key 'cache_control' on a text block",
            "metadata",
        )
    ]


def test_unknown_block_goes_to_anthropic_only() -> None:
    """An unknown block in a neutral message is in the Anthropic shape: Anthropic writes it back
    whole; OpenAI Chat refuses it, naming its type and path."""
    msgs = [Message(role="user", content=[UnknownBlock(Extra(type="hologram", x=1))])]
    body = json.loads(anthropic.encode_request(msgs, model="m", max_tokens=1))
    assert body["messages"] == [{"role": "user", "content": [{"type": "hologram", "x": 1}]}]
    with pytest.raises(UnsupportedError) as o:
        openai_chat.encode_request(msgs, model="m")
    assert o.value.path == "$.messages[0].content[0]"
    assert "'hologram'" in o.value.message


def test_openai_audio_part_into_anthropic_is_refused() -> None:
    """An OpenAI input_audio part cannot go to Anthropic."""
    req = openai_chat.decode_request(
        b'{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio",'
        b'"input_audio":{"data":"AA==","format":"wav"}}]}]}'
    )
    with pytest.raises(UnsupportedError) as info:
        anthropic.encode_request(req, max_tokens=5)
    assert info.value.path == "$.messages[0].content[0]"


OPENAI_REQ = {
    "model": "gpt-4o",
    "max_completion_tokens": 50,
    "stop": "END",
    "tool_choice": "required",
    "parallel_tool_calls": False,
    "tools": [
        {
            "type": "function",
            "function": {
                "name": "f",
                "description": "F",
                "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
            },
        }
    ],
    "messages": [
        {"role": "developer", "content": "Be terse."},
        {"role": "user", "content": "x?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}},
                {"id": "c2", "type": "function", "function": {"name": "f", "arguments": '{"x":2}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
    ],
}

ANTHROPIC_REQ = {
    "model": "claude-x",
    "max_tokens": 50,
    "stop_sequences": ["END"],
    "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    "tools": [
        {
            "name": "f",
            "description": "F",
            "input_schema": {"type": "object", "properties": {"x": {"type": "integer"}}},
        }
    ],
    "system": "Be terse.",
    "messages": [
        {"role": "user", "content": "x?"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "c1", "name": "f", "input": {"x": 1}},
                {"type": "tool_use", "id": "c2", "name": "f", "input": {"x": 2}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "one"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "two"},
            ],
        },
    ],
}


def test_openai_request_to_anthropic() -> None:
    """An OpenAI request (developer prompt, tools, parallel calls, tool messages) becomes the
    equivalent Anthropic request, which the Anthropic SDK accepts."""
    req = openai_chat.decode_request(json.dumps(OPENAI_REQ).encode())
    out = anthropic.encode_request(req, model="claude-x")
    assert json.loads(out) == ANTHROPIC_REQ
    validate_params(mcp.MessageCreateParamsNonStreaming, out)


def test_anthropic_request_to_openai() -> None:
    """The Anthropic request maps back to the OpenAI one (developer hint aside: a plain system
    message), which the OpenAI SDK accepts."""
    req = anthropic.decode_request(json.dumps(ANTHROPIC_REQ).encode())
    out = json.loads(openai_chat.encode_request(req, model="gpt-4o"))
    expected: dict[str, Any] = {
        "model": "gpt-4o",
        "max_tokens": 50,
        "stop": ["END"],
        "tool_choice": "required",
        "parallel_tool_calls": False,
        "tools": OPENAI_REQ["tools"],
        "messages": [
            {"role": "system", "content": "Be terse."},
            *OPENAI_REQ["messages"][1:],
        ],
    }
    assert out == expected
    validate_params(ccp.CompletionCreateParamsNonStreaming, json.dumps(out).encode())


@pytest.mark.parametrize("path", examples("anthropic", "response"), ids=lambda p: p.name)
def test_anthropic_responses_to_openai(path: Any) -> None:
    """Every Anthropic response example becomes a Chat Completions response the SDK accepts
    (with unsupported="drop"); text and tool calls arrive, and what was dropped is listed."""
    resp = anthropic.decode_response(path.read_bytes())
    dropped: list[Dropped] = []
    out = openai_chat.encode_response(resp, unsupported="drop", dropped=dropped, created=0)
    sdk = ChatCompletion.model_validate_json(out)
    msg = sdk.choices[0].message
    texts = [b.text for b in resp.message.content if isinstance(b, TextBlock)]  # type: ignore[union-attr]
    kept_text = "".join(texts) if texts else None
    if len(texts) <= 1:
        assert msg.content == kept_text
    calls = resp.message.tool_calls
    assert [c.id for c in msg.tool_calls or []] == [c.id for c in calls]
    content = resp.message.content
    assert isinstance(content, list)
    thinking = [
        f"$.message.content[{i}]"
        for i, b in enumerate(content)
        if isinstance(b, (ThinkingBlock, RedactedThinkingBlock))
    ]
    assert [d.path for d in dropped if "thinking block" in d.what] == thinking


@pytest.mark.parametrize("path", examples("openai", "response"), ids=lambda p: p.name)
def test_openai_responses_to_anthropic(path: Any) -> None:
    """Every OpenAI response example becomes an Anthropic response the SDK accepts."""
    resp = openai_chat.decode_response(path.read_bytes())
    dropped: list[Dropped] = []
    out = anthropic.encode_response(resp, unsupported="drop", dropped=dropped)
    sdk = at.Message.model_validate_json(out)
    assert sdk.id == resp.id
    assert [b.id for b in sdk.content if b.type == "tool_use"] == [
        c.id for c in resp.message.tool_calls
    ]
    assert sdk.usage.input_tokens == resp.usage["input_tokens"]
    assert {d.path for d in dropped} >= {"$.object", "$.created"}


def _anthropic_holds(messages: list[Message]) -> bool:
    """Whether the Messages API's rules leave ``messages`` as they are: no empty or
    whitespace-only text (messages, blocks, tool results), no trailing whitespace at the end
    of a final assistant turn."""
    for msg in messages:
        content = msg.content
        texts = (
            [content]
            if isinstance(content, str)
            else [b.text for b in content if isinstance(b, TextBlock)]
        )
        if not content or any(not t.strip() for t in texts):
            return False
    last = messages[-1]
    if last.role == "assistant" and isinstance(last.content, str):
        return last.content == last.content.rstrip()
    if last.role == "assistant" and isinstance(last.content[-1], TextBlock):
        return last.content[-1].text == last.content[-1].text.rstrip()
    return True


@given(openai_conversations())
def test_conversations_cross_both_ways_unchanged(messages: list[Message]) -> None:
    """Generated conversations both APIs can hold (the Messages API's rules change nothing in
    them) go neutral -> OpenAI -> neutral -> Anthropic -> neutral unchanged."""
    assume(_anthropic_holds(messages))
    via_openai = openai_chat.decode_request(openai_chat.encode_request(messages, model="m"))
    assert via_openai.messages == messages
    body = anthropic.encode_request(via_openai, max_tokens=5)
    assert anthropic.decode_request(body).messages == messages


def test_several_and_late_system_messages_into_anthropic() -> None:
    """Leading system and developer messages join one system list of text blocks; a system
    message later in the conversation stays in place; the SDK accepts the result."""
    req = openai_chat.decode_request(
        b'{"model":"m","messages":[{"role":"system","content":"A"},'
        b'{"role":"developer","content":[{"type":"text","text":"B"}]},'
        b'{"role":"user","content":"q"},{"role":"system","content":"C"}]}'
    )
    out = anthropic.encode_request(req, max_tokens=9)
    assert json.loads(out) == {
        "model": "m",
        "max_tokens": 9,
        "system": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}],
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "system", "content": "C"},
        ],
    }
    validate_params(mcp.MessageCreateParamsNonStreaming, out)


_CHAT_OWN = {
    "model": "m",
    "tools": [{"type": "function", "function": {"name": "f.g", "parameters": {}}}],
    "messages": [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f.g", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ],
}
_RESPONSES_OWN = {
    "model": "m",
    "tools": [{"type": "function", "name": "f.g", "parameters": {}, "strict": False}],
    "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c1", "name": "f.g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ],
}


def _names(adapter: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The function names of a Chat or Responses body's tools, and of its calls."""
    if adapter == "openai_chat":
        tools = [t["function"]["name"] for t in body["tools"]]
        calls = [c["function"]["name"] for m in body["messages"] for c in m.get("tool_calls", [])]
    else:
        tools = [t["name"] for t in body["tools"]]
        calls = [i["name"] for i in body["input"] if i.get("type") == "function_call"]
    return tools, calls


@pytest.mark.parametrize(
    ("adapter", "own"), [("openai_chat", _CHAT_OWN), ("openai_responses", _RESPONSES_OWN)]
)
def test_tool_names_are_fitted_in_tools_and_calls_alike(adapter: str, own: dict[str, Any]) -> None:
    """A Chat or Responses request names a tool the same in its tools and its calls: its own
    request (decoded by the same adapter, settings unchanged or changed) keeps the client's
    ``f.g`` in both, with no rename recorded; the same request from another format (the other
    OpenAI adapter) gets ``f_g`` in both, recorded for the way back."""
    from minagent.providers import Renames, get

    target = get(adapter)
    source = get("openai_responses" if adapter == "openai_chat" else "openai_chat")
    foreign_body = _CHAT_OWN if adapter == "openai_responses" else _RESPONSES_OWN
    mine = target.decode_request(json.dumps(own).encode())
    changed = msgspec.structs.replace(mine, temperature=0.5)
    for request in (mine, changed):
        renames = Renames()
        body = json.loads(target.encode_request(request, renames=renames))
        assert (_names(adapter, body), renames.names) == ((["f.g"], ["f.g"]), {})
    renames = Renames()
    foreign = source.decode_request(json.dumps(foreign_body).encode())
    body = json.loads(target.encode_request(foreign, renames=renames, unsupported="drop"))
    assert (_names(adapter, body), renames.names) == ((["f_g"], ["f_g"]), {"f_g": "f.g"})
