"""Exact-value tests that kill mutants of `minagent.providers.openai_chat` (docs/mutation.md)."""

# ruff: noqa: E501

from __future__ import annotations

import json
from typing import Any

import pytest

from minagent.providers import anthropic
from minagent.providers import openai_chat as oc
from minagent.wire import ImageBlock, Message, TextBlock, ToolUseBlock, UrlSource
from minagent.wire.errors import DecodeError, ValidationError, WireError


def test_request_errors_are_located_at_the_top_an_option_and_the_messages() -> None:
    """Bad JSON in a Chat request is a DecodeError at `$`, `$.model` or `$.messages` exactly."""
    cases = [
        (b'{"messages": [1,', "$"),
        (b'{"messages": [], "model": "\xff"}', "$.model"),
        (b'{"messages": [{"role": "user", "content": "a\xff"}]}', "$.messages"),
    ]
    for body, path in cases:
        with pytest.raises(DecodeError) as err:
            oc.decode_request(body)
        assert err.value.path == path
        assert str(err.value).startswith("invalid ")


def _messages(messages: list[Any]) -> str:
    """The repr of the decoded messages of a request holding ``messages`` (or the error)."""
    try:
        return repr(oc.decode_request(json.dumps({"messages": messages}).encode()).messages)
    except WireError as err:
        return f"{type(err).__name__} {err.path} {err}"


_THINKING = [{"type": "thinking", "thinking": "r", "signature": "s"}]
_CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_REQUEST_MESSAGES = [
    (
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "hi"}],
                "reasoning_content": "r",
                "thinking_blocks": _THINKING,
            }
        ],
        "[Message(role='assistant', content=[ThinkingBlock(thinking='r', extra=Extra("
        "{'openai_reasoning': 'reasoning_content', 'content_list': True})), TextBlock(text='hi')],"
        " extra=Extra({'thinking_blocks': [{'type': 'thinking', 'thinking': 'r',"
        " 'signature': 's'}], 'from_provider': 'openai_chat'}))]",
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "reasoning_content": "r",
                "thinking_blocks": _THINKING,
            }
        ],
        "[Message(role='assistant', content=[ThinkingBlock(thinking='r', signature='s'),"
        " TextBlock(text='hi')])]",
    ),
    (
        [{"role": "assistant", "reasoning_content": "r", "thinking_blocks": _THINKING}],
        "[Message(role='assistant', content=[ThinkingBlock(thinking='r', signature='s')],"
        " extra=Extra({'content_absent': True}))]",
    ),
    (
        [
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "r",
                "thinking_blocks": _THINKING,
                "tool_calls": [_CALL],
            }
        ],
        "[Message(role='assistant', content=[ThinkingBlock(thinking='r', signature='s'),"
        " ToolUseBlock(id='c', name='f', input={})])]",
    ),
    (
        [{"role": "user", "content": "x", "tool_calls": [_CALL]}],
        "[Message(role='user', content='x', extra=Extra({'tool_calls': [{'id': 'c', 'type':"
        " 'function', 'function': {'name': 'f', 'arguments': '{}'}}],"
        " 'from_provider': 'openai_chat'}))]",
    ),
    (
        [{"role": "assistant", "content": "x", "refusal": "no"}],
        "[Message(role='assistant', content='x', extra=Extra({'refusal': 'no',"
        " 'from_provider': 'openai_chat'}))]",
    ),
    ([1], "ValidationError $.messages[0] Expected `object`, got `int` (at $.messages[0])"),
]


@pytest.mark.parametrize(("messages", "expected"), _REQUEST_MESSAGES)
def test_request_messages_decode_exactly(messages: list[Any], expected: str) -> None:
    """Each request message shape (extension keys, tool calls outside an assistant message,
    refusal, a non-object) decodes to exactly these messages or this located error."""
    assert _messages(messages) == expected


def test_request_messages_not_an_array_is_located() -> None:
    """`messages` that is an object is a ValidationError at `$.messages`."""
    with pytest.raises(ValidationError) as err:
        oc.decode_request(b'{"messages": {}}')
    assert err.value.path == "$.messages"


_CALLS = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": []},
        {"role": "assistant", "content": [], "tool_calls": _CALLS},
    ],
)
def test_assistant_empty_list_content_comes_back_a_list(message: dict[str, Any]) -> None:
    """An assistant message whose content is `[]` is written back as `[]` (the fast decoding
    path dropped the `content_list` hint the general path sets, and `null` came back)."""
    body = json.dumps({"messages": [message]}, separators=(",", ":")).encode()
    request = oc.decode_request(body)
    assert json.loads(oc.encode_request(request))["messages"] == [message]


_MORE_MESSAGES = [
    (
        [
            {
                "role": "assistant",
                "content": "",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={})], extra=Extra({'content_absent': '', 'thinking_blocks': [{'type"
            "': 'thinking', 'thinking': 'r', 'signature': 's'}], 'from_provider': '"
            "openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "",
                "reasoning_content": "r",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', signat"
            "ure='s'), ToolUseBlock(id='c', name='f', input={})], extra=Extra({'con"
            "tent_absent': '', 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "assistant", "content": "hi", "thinking_blocks": [{"type": "thinking"}]}],
        (
            "[Message(role='assistant', content='hi', extra=Extra({'thinking_blocks"
            "': [{'type': 'thinking'}], 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "provider_specific_fields": {"x": 1},
            }
        ],
        (
            "[Message(role='assistant', content='hi', extra=Extra({'thinking_blocks"
            "': [{'type': 'thinking', 'thinking': 'r', 'signature': 's'}], 'provide"
            "r_specific_fields': {'x': 1}, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "assistant", "content": "hi", "provider_specific_fields": {"citations": 1}}],
        (
            "[Message(role='assistant', content='hi', extra=Extra({'provider_specif"
            "ic_fields': {'citations': 1}, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={})], extra=Extra({'content_absent': '', 'from_provider': 'openai_c"
            "hat'}))]"
        ),
    ),
    ([{"role": "assistant", "content": None}], "[Message(role='assistant', content=[])]"),
    (
        [{"role": "assistant", "content": None, "reasoning_content": "r"}],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', extra="
            "Extra({'openai_reasoning': 'reasoning_content'}))], extra=Extra({'cont"
            "ent_absent': None, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": [],
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={})], extra=Extra({'content_list': True, 'from_provider': 'openai_c"
            "hat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}],
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[TextBlock(text='a'), ToolUseBlock("
            "id='c', name='f', input={})])]"
        ),
    ),
    (
        [{"role": "assistant", "tool_calls": None}],
        (
            "[Message(role='assistant', extra=Extra({'tool_calls': None, 'content_a"
            "bsent': True, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "assistant", "tool_calls": []}],
        (
            "[Message(role='assistant', content=[], extra=Extra({'content_absent': "
            "True, 'tool_calls': [], 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "assistant", "tool_calls": 3}],
        (
            "ValidationError $.messages[0].tool_calls 'tool_calls' must be an array"
            " (at $.messages[0].tool_calls)"
        ),
    ),
    (
        [{"role": "assistant", "content": 3}],
        (
            "ValidationError $.messages[0] 'content' must be a string, an array or "
            "null (at $.messages[0])"
        ),
    ),
    (
        [{"role": "tool", "content": "x"}],
        (
            "ValidationError $.messages[0] a tool message needs a string 'tool_call"
            "_id' (at $.messages[0])"
        ),
    ),
    (
        [{"role": "robot", "content": "x"}],
        "ValidationError $.messages[0].role unsupported role 'robot' (at $.messages[0].role)",
    ),
    (
        [{"role": "developer", "content": "x"}],
        (
            "[Message(role='system', content='x', extra=Extra({'developer': True, '"
            "from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "developer", "content": "x", "weird": 1}],
        (
            "[Message(role='system', content='x', extra=Extra({'developer': True, '"
            "weird': 1, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "https://a/b.png", "detail": "low"}}
                ],
            }
        ],
        (
            "[Message(role='user', content=[ImageBlock(source=UrlSource(url='https:"
            "//a/b.png'), extra=Extra({'detail': 'low'}))], extra=Extra({'from_prov"
            "ider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,QQ=="}}
                ],
            }
        ],
        (
            "[Message(role='user', content=[ImageBlock(source=Base64Source(media_ty"
            "pe='image/png', data=b'A'))])]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64,QQ=="},
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
        (
            "[Message(role='user', content=[ImageBlock(source=Base64Source(media_ty"
            "pe='image/png', data=b'A'), cache_control={'type': 'ephemeral'})], ext"
            "ra=Extra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "file",
                        "file": {
                            "file_data": "data:application/pdf;base64,QQ==",
                            "filename": "a.pdf",
                        },
                    }
                ],
            }
        ],
        (
            "[Message(role='user', content=[DocumentBlock(source=Base64Source(media"
            "_type='application/pdf', data=b'A'), extra=Extra({'filename': 'a.pdf'}"
            "))], extra=Extra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_audio", "input_audio": {"data": "QQ==", "format": "wav"}}
                ],
            }
        ],
        (
            "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'input"
            "_audio', 'input_audio': {'data': 'QQ==', 'format': 'wav'}}))], extra=E"
            "xtra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "user", "content": [{"type": "text", "text": "a", "x": 1}]}],
        (
            "[Message(role='user', content=[TextBlock(text='a', extra=Extra({'x': 1"
            "}))], extra=Extra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "user", "content": [3]}],
        (
            "ValidationError $.messages[0].content[0] a content part must be an obj"
            "ect with a string 'type' (at $.messages[0].content[0])"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{ }"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={}, extra=Extra({'arguments': '{ }'}))], extra=Extra({'content_abse"
            "nt': True, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "[1]"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={}, extra=Extra({'arguments': '[1]'}))], extra=Extra({'content_abse"
            "nt': True, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "type": "custom", "custom": {"name": "f", "input": "x"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[UnknownBlock(data=Extra({'id': 'c'"
            ", 'type': 'custom', 'custom': {'name': 'f', 'input': 'x'}}))], extra=E"
            "xtra({'content_absent': True, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "assistant", "tool_calls": [3]}],
        (
            "ValidationError $.messages[0].tool_calls[0] a tool call must be an obj"
            "ect (at $.messages[0].tool_calls[0])"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "extra": 1,
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={}, extra=Extra({'extra': 1}))], extra=Extra({'content_absent': Tru"
            "e, 'from_provider': 'openai_chat'}))]"
        ),
    ),
]


@pytest.mark.parametrize(("messages", "expected"), _MORE_MESSAGES)
def test_more_request_messages_decode_exactly(messages: list[Any], expected: str) -> None:
    """Message shapes of both decoding paths (empty text beside calls, null content, reasoning,
    every part kind, bad roles, content and calls, raw arguments) decode to exactly this."""
    assert _messages(messages) == expected


def test_a_tool_name_past_64_characters_is_fitted_to_64() -> None:
    """A 70-character tool name from another format is written as 64 characters (`NAME_LIMIT`)."""
    body = json.dumps(
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "x"}],
            "tools": [{"name": "a" * 70, "input_schema": {}}],
        }
    ).encode()
    out = json.loads(oc.encode_request(anthropic.decode_request(body)))
    assert out["tools"][0]["function"]["name"] == "a" * 55 + "_6bd5e503"


_CALL_FIELD_MESSAGES = [
    (
        [
            {
                "role": "assistant",
                "content": "x",
                "reasoning_content": "r",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"cache_control": {"type": "ephemeral"}},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', extra="
            "Extra({'openai_reasoning': 'reasoning_content'})), TextBlock(text='x')"
            ", ToolUseBlock(id='c', name='f', input={}, cache_control={'type': 'eph"
            "emeral'})], extra=Extra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "r",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"cache_control": {"type": "ephemeral"}},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', extra="
            "Extra({'openai_reasoning': 'reasoning_content'})), ToolUseBlock(id='c'"
            ", name='f', input={}, cache_control={'type': 'ephemeral'})], extra=Ext"
            "ra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": "x",
                "name": "n",
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        (
            "[Message(role='user', content='x', extra=Extra({'name': 'n', 'tool_cal"
            "ls': [{'id': 'c', 'type': 'function', 'function': {'name': 'f', 'argum"
            "ents': '{}'}}], 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "x",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"x": 1},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[TextBlock(text='x'), ToolUseBlock("
            "id='c', name='f', input={}, extra=Extra({'provider_specific_fields': {"
            "'x': 1}}))], extra=Extra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"x": 1},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={}, extra=Extra({'provider_specific_fields': {'x': 1}}))], extra=Ex"
            "tra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "x",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"x": 1},
                    },
                    3,
                ],
            }
        ],
        (
            "ValidationError $.messages[0].tool_calls[1] a tool call must be an obj"
            "ect (at $.messages[0].tool_calls[1])"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "r",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
            }
        ],
        "[Message(role='assistant', content=[ThinkingBlock(thinking='r', signature='s')])]",
    ),
    (
        [
            {
                "role": "assistant",
                "content": "",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
            }
        ],
        (
            "[Message(role='assistant', extra=Extra({'thinking_blocks': [{'type': '"
            "thinking', 'thinking': 'r', 'signature': 's'}], 'from_provider': 'open"
            "ai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "provider_specific_fields": {},
            }
        ],
        (
            "[Message(role='assistant', content='hi', extra=Extra({'thinking_blocks"
            "': [{'type': 'thinking', 'thinking': 'r', 'signature': 's'}], 'provide"
            "r_specific_fields': {}, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "reasoning_content": "r",
                "thinking_blocks": [{"type": "thinking", "thinking": "q", "signature": "s"}],
            }
        ],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', extra="
            "Extra({'openai_reasoning': 'reasoning_content'})), TextBlock(text='hi'"
            ")], extra=Extra({'thinking_blocks': [{'type': 'thinking', 'thinking': "
            "'q', 'signature': 's'}], 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "name": "n",
            }
        ],
        (
            "[Message(role='assistant', content='hi', extra=Extra({'thinking_blocks"
            "': [{'type': 'thinking', 'thinking': 'r', 'signature': 's'}], 'name': "
            "'n', 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "x",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"cache_control": {"type": "ephemeral"}},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[TextBlock(text='x'), ToolUseBlock("
            "id='c', name='f', input={}, cache_control={'type': 'ephemeral'})])]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"cache_control": {"type": "ephemeral"}},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={}, cache_control={'type': 'ephemeral'})])]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"cache_control": {"type": "ephemeral"}},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={}, cache_control={'type': 'ephemeral'})], extra=Extra({'content_ab"
            "sent': True}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": "{}"},
                        "provider_specific_fields": {"cache_control": {"type": "ephemeral"}},
                    }
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={}, cache_control={'type': 'ephemeral'})], extra=Extra({'content_ab"
            "sent': '', 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "reasoning_content": "r",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "provider_specific_fields": {"citations": [], "other": 1},
            }
        ],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', extra="
            "Extra({'openai_reasoning': 'reasoning_content'})), TextBlock(text='hi'"
            ")], extra=Extra({'thinking_blocks': [{'type': 'thinking', 'thinking': "
            "'r', 'signature': 's'}], 'provider_specific_fields': {'citations': [],"
            " 'other': 1}, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "hi"}],
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
            }
        ],
        (
            "[Message(role='assistant', content=[TextBlock(text='hi')], extra=Extra"
            "({'thinking_blocks': [{'type': 'thinking', 'thinking': 'r', 'signature"
            "': 's'}], 'from_provider': 'openai_chat'}))]"
        ),
    ),
]


@pytest.mark.parametrize(("messages", "expected"), _CALL_FIELD_MESSAGES)
def test_call_field_and_extension_messages_decode_exactly(
    messages: list[Any], expected: str
) -> None:
    """Tool calls carrying `provider_specific_fields` (typed keys lifted, others kept), reasoning
    beside them, calls outside an assistant message, extension keys the reader refuses."""
    assert _messages(messages) == expected


_GENERAL_PATH_MESSAGES = [
    (
        [{"role": "assistant", "x": 1}],
        (
            "[Message(role='assistant', extra=Extra({'content_absent': True, 'x': 1"
            ", 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "x": 1,
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            }
        ],
        (
            "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', inp"
            "ut={})], extra=Extra({'content_absent': True, 'x': 1, 'from_provider':"
            " 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "user", "x": 1}],
        (
            "[Message(role='user', extra=Extra({'content_absent': True, 'x': 1, 'fr"
            "om_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}],
                "reasoning_content": "r",
                "x": 1,
            }
        ],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', extra="
            "Extra({'openai_reasoning': 'reasoning_content', 'content_list': True})"
            "), TextBlock(text='a')], extra=Extra({'x': 1, 'from_provider': 'openai"
            "_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}],
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
                "x": 1,
            }
        ],
        (
            "[Message(role='assistant', content=[TextBlock(text='a'), ToolUseBlock("
            "id='c', name='f', input={})], extra=Extra({'content_list': True, 'x': "
            "1, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
                "x": 1,
            }
        ],
        (
            "[Message(role='assistant', content=[TextBlock(text='a'), TextBlock(tex"
            "t='b'), ToolUseBlock(id='c', name='f', input={})], extra=Extra({'x': 1"
            ", 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "assistant", "content": [{"type": "text", "text": "a"}], "x": 1}],
        (
            "[Message(role='assistant', content=[TextBlock(text='a')], extra=Extra("
            "{'x': 1, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": [{"type": "image_url", "image_url": {"url": "u"}}],
                "tool_calls": [
                    {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
                "x": 1,
            }
        ],
        (
            "[Message(role='assistant', content=[ImageBlock(source=UrlSource(url='u"
            "')), ToolUseBlock(id='c', name='f', input={})], extra=Extra({'x': 1, '"
            "from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [{"role": "assistant", "content": [], "x": 1}],
        (
            "[Message(role='assistant', content=[], extra=Extra({'content_list': Tr"
            "ue, 'x': 1, 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64,QQ=="},
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
        (
            "[Message(role='user', content=[ImageBlock(source=Base64Source(media_ty"
            "pe='image/png', data=b'A'), cache_control={'type': 'ephemeral'})], ext"
            "ra=Extra({'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://a/b.png"},
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
        (
            "[Message(role='user', content=[ImageBlock(source=UrlSource(url='https:"
            "//a/b.png'), cache_control={'type': 'ephemeral'})], extra=Extra({'from"
            "_provider': 'openai_chat'}))]"
        ),
    ),
]


@pytest.mark.parametrize(("messages", "expected"), _GENERAL_PATH_MESSAGES)
def test_general_path_messages_decode_exactly(messages: list[Any], expected: str) -> None:
    "Messages the fast path leaves to the general one (an unknown key): absent content, list content beside reasoning or calls, part-level cache_control."
    assert _messages(messages) == expected


_NAMED_EXTENSION_MESSAGES = [
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "name": "n",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "provider_specific_fields": {},
            }
        ],
        (
            "[Message(role='assistant', content='hi', extra=Extra({'name': 'n', 'th"
            "inking_blocks': [{'type': 'thinking', 'thinking': 'r', 'signature': 's"
            "'}], 'provider_specific_fields': {}, 'from_provider': 'openai_chat'}))"
            "]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "name": "n",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
            }
        ],
        (
            "[Message(role='assistant', content='hi', extra=Extra({'name': 'n', 'th"
            "inking_blocks': [{'type': 'thinking', 'thinking': 'r', 'signature': 's"
            "'}], 'from_provider': 'openai_chat'}))]"
        ),
    ),
    (
        [
            {
                "role": "assistant",
                "content": "hi",
                "name": "n",
                "reasoning_content": "r",
                "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                "provider_specific_fields": {"x": 1},
            }
        ],
        (
            "[Message(role='assistant', content=[ThinkingBlock(thinking='r', signat"
            "ure='s'), TextBlock(text='hi')], extra=Extra({'name': 'n', 'provider_s"
            "pecific_fields': {'x': 1}, 'from_provider': 'openai_chat'}))]"
        ),
    ),
]


@pytest.mark.parametrize(("messages", "expected"), _NAMED_EXTENSION_MESSAGES)
def test_named_extension_messages_decode_exactly(messages: list[Any], expected: str) -> None:
    "An assistant message with a name beside extension keys: thinking blocks without reasoning text stay the message's own, with it they are read."
    assert _messages(messages) == expected


_PART_MESSAGES = [
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://a/b.png"},
                        "cache_control": "x",
                    }
                ],
            }
        ],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'image_url', 'image_url': {'url': 'https://a/b.png'}, 'cache_control': 'x'}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {
                            "url": "https://a/b.png",
                            "cache_control": {"type": "ephemeral"},
                        },
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'image_url', 'image_url': {'url': 'https://a/b.png', 'cache_control': {'type': 'ephemeral'}}, 'cache_control': {'type': 'ephemeral'}}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": "https://a/b.png"}, "other": 1}
                ],
            }
        ],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'image_url', 'image_url': {'url': 'https://a/b.png'}, 'other': 1}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": 3}}]}],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'image_url', 'image_url': {'url': 3}}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [{"role": "user", "content": [{"type": "text", "text": 3}]}],
        "ValidationError $.messages[0].content[0].text a text part needs a string 'text' (at $.messages[0].content[0].text)",
    ),
    (
        [{"role": "user", "content": [{"type": "file", "file": {"file_data": "https://x"}}]}],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'file', 'file': {'file_data': 'https://x'}}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [{"role": "user", "content": [{"type": "file", "file": {"file_id": "f"}}]}],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'file', 'file': {'file_id': 'f'}}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [{"role": "user", "content": [{"type": "thinking", "thinking": "t"}]}],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'openai_chat_part', 'part': {'type': 'thinking', 'thinking': 't'}}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "file",
                        "file": {"file_data": "data:application/pdf;base64,QQ=="},
                        "x": 1,
                    }
                ],
            }
        ],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'file', 'file': {'file_data': 'data:application/pdf;base64,QQ=='}, 'x': 1}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
]


@pytest.mark.parametrize(("messages", "expected"), _PART_MESSAGES)
def test_parts_decode_exactly(messages: list[Any], expected: str) -> None:
    "Content parts the typed blocks do not hold (a cache_control that is no object or is written twice, extra keys, a non-string URL or text, files by URL or id, a neutral-named part) decode to exactly this."
    assert _messages(messages) == expected


_FILE_MESSAGES = [
    (
        [
            {
                "role": "user",
                "content": [
                    {"type": "custom", "file": {"file_data": "data:application/pdf;base64,QQ=="}}
                ],
            }
        ],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'custom', 'file': {'file_data': 'data:application/pdf;base64,QQ=='}}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {"type": "file", "file": {"file_data": "data:application/pdf;base64,QQ=="}}
                ],
            }
        ],
        "[Message(role='user', content=[DocumentBlock(source=Base64Source(media_type='application/pdf', data=b'A'))])]",
    ),
    (
        [{"role": "user", "content": [{"type": "openai_chat_part", "part": {}}]}],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'openai_chat_part', 'part': {}}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
    (
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "file",
                        "file": {"file_data": "data:application/pdf;base64,QQ=="},
                        "x": 1,
                    }
                ],
            }
        ],
        "[Message(role='user', content=[UnknownBlock(data=Extra({'type': 'file', 'file': {'file_data': 'data:application/pdf;base64,QQ=='}, 'x': 1}))], extra=Extra({'from_provider': 'openai_chat'}))]",
    ),
]


@pytest.mark.parametrize(("messages", "expected"), _FILE_MESSAGES)
def test_file_parts_decode_exactly(messages: list[Any], expected: str) -> None:
    """A file part: only a two-key  part with a data URL is a document (no filename: no extra); a  key in another part, or a third key, stays whole."""
    assert _messages(messages) == expected


_RESPONSES = [
    (b'{"choices": [1,', "DecodeError $ invalid JSON: Input data was truncated (at $)"),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi", "tool_calls": [{"id": "c", "type": "custom", "custom": {"name": "f", "input": "x"}}]}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='hi'), UnknownBlock(data=Extra({'id': 'c', 'type': 'custom', 'custom': {'name': 'f', 'input': 'x'}}))], extra=Extra({'from_provider': 'openai_chat'})), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi", "tool_calls": [{"type": "custom", "custom": {"name": "f", "input": "x"}}]}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='hi'), UnknownBlock(data=Extra({'type': 'openai_chat_tool_call', 'call': {'type': 'custom', 'custom': {'name': 'f', 'input': 'x'}}}))], extra=Extra({'from_provider': 'openai_chat'})), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": 3}}]}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='hi'), UnknownBlock(data=Extra({'type': 'openai_chat_tool_call', 'call': {'id': 'c', 'type': 'function', 'function': {'name': 'f', 'arguments': 3}}}))], extra=Extra({'from_provider': 'openai_chat'})), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi", "tool_calls": [{"id": "c", "type": "openai_chat_tool_call", "x": 1}]}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='hi'), UnknownBlock(data=Extra({'type': 'openai_chat_tool_call', 'call': {'id': 'c', 'type': 'openai_chat_tool_call', 'x': 1}}))], extra=Extra({'from_provider': 'openai_chat'})), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[ToolUseBlock(id='c', name='f', input={})], extra=Extra({'content_absent': '', 'from_provider': 'openai_chat'})), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='a'), ToolUseBlock(id='c', name='f', input={})]), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a", "annotations": [], "refusal": null}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content='a', extra=Extra({'refusal': None, 'annotations': [], 'from_provider': 'openai_chat'})), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "refusal": "no"}, "finish_reason": "stop", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[], extra=Extra({'refusal': 'no', 'from_provider': 'openai_chat'})), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop", "logprobs": null}], "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7, "prompt_tokens_details": {"cached_tokens": 1, "x": {"y": 2}, "z": {}, "s": "t"}, "completion_tokens_details": {"reasoning_tokens": 1}}}',
        "ModelResponse(message=Message(role='assistant', content='a'), usage={'input_tokens': 4, 'output_tokens': 2, 'total_tokens': 7, 'cache_read_input_tokens': 1, 'prompt_tokens_details.x.y': 2, 'reasoning_tokens': 1}, id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_extra': {'prompt_tokens_details.z': {}, 'prompt_tokens_details.s': 't'}}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop", "logprobs": null}], "usage": {"prompt_tokens": 5, "prompt_tokens_details": {"deep": {"a": 1, "b": "c"}}}}',
        "ModelResponse(message=Message(role='assistant', content='a'), usage={'input_tokens': 5, 'prompt_tokens_details.deep.a': 1}, id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_extra': {'prompt_tokens_details.deep.b': 'c'}}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop", "logprobs": null}], "usage": null}',
        "ModelResponse(message=Message(role='assistant', content='a'), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_extra': {'': None}}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop", "logprobs": null}], "service_tier": "default", "system_fingerprint": "fp"}',
        "ModelResponse(message=Message(role='assistant', content='a'), id='i', model='m', created=1, extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'service_tier': 'default', 'system_fingerprint': 'fp', 'usage_absent': True}))",
    ),
    (b'{"choices": []}', "ValidationError $ a response needs a non-empty 'choices' array (at $)"),
    (
        b'{"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop"}]}',
        "ModelResponse(message=Message(role='assistant', content='a'), extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'usage_absent': True}))",
    ),
    (
        b'{"choices": [{"index": 1, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop"}]}',
        "ValidationError $.choices[0] the first choice must have index 0 (at $.choices[0])",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "user", "content": "a"}, "finish_reason": "stop"}]}',
        "ValidationError $ a choice's message must be an assistant message (at $)",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": null}]}',
        "ValidationError $.choices[0].finish_reason 'finish_reason' must be a string (at $.choices[0].finish_reason)",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}]}, "finish_reason": "length"}], "usage": 3}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='a')], extra=Extra({'content_list': True, 'from_provider': 'openai_chat'})), stop_reason='max_tokens', extra=Extra({'from_provider': 'openai_chat', 'usage_extra': {'': 3}}))",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "tool_calls", "x": 1}, {"index": 1, "message": {"role": "assistant", "content": "b"}, "finish_reason": "stop"}], "id": 3, "created": "x"}',
        "ModelResponse(message=Message(role='assistant', content='a'), stop_reason='tool_use', extra=Extra({'from_provider': 'openai_chat', 'id': 3, 'created': 'x', 'choice_extra': {'x': 1}, 'choices': [{'index': 1, 'message': {'role': 'assistant', 'content': 'b'}, 'finish_reason': 'stop'}], 'usage_absent': True}))",
    ),
    (
        b'{"choices": [3]}',
        "ValidationError $.choices[0] a choice needs a 'message' object (at $.choices[0])",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "tool", "content": "a"}, "finish_reason": "stop", "logprobs": null}]}',
        "ValidationError $.choices[0] the first choice must be an assistant message (at $.choices[0])",
    ),
    (b'{"id": "i",', "DecodeError $ invalid JSON: Input data was truncated (at $)"),
    (b'{"id": "\xff"}', "DecodeError $ invalid JSON: Invalid UTF-8 encoded string (at $)"),
    (
        b'{"id": "i", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop"}]}',
        "ModelResponse(message=Message(role='assistant', content='a'), id='i', extra=Extra({'from_provider': 'openai_chat', 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a", "tool_calls": [{"id": "c", "type": "custom", "function": {"name": "f", "arguments": "{}"}}]}, "finish_reason": "stop"}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='a'), UnknownBlock(data=Extra({'id': 'c', 'type': 'custom', 'function': {'name': 'f', 'arguments': '{}'}}))], extra=Extra({'from_provider': 'openai_chat'})), id='i', extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{ }"}}]}, "finish_reason": "tool_calls", "logprobs": null}]}',
        "ModelResponse(message=Message(role='assistant', content=[ToolUseBlock(id='c', name='f', input={}, extra=Extra({'arguments': '{ }'}))], extra=Extra({'from_provider': 'openai_chat'})), stop_reason='tool_use', id='i', extra=Extra({'from_provider': 'openai_chat', 'object': 'chat.completion', 'logprobs': None, 'usage_absent': True}))",
    ),
    (
        b'{"id": "i", "model": "m", "created": 5, "choices": [{"index": 0, "message": {"role": "assistant", "content": "a", "x": 1}, "finish_reason": "stop"}]}',
        "ModelResponse(message=Message(role='assistant', content='a', extra=Extra({'x': 1, 'from_provider': 'openai_chat'})), id='i', model='m', created=5, extra=Extra({'from_provider': 'openai_chat', 'usage_absent': True}))",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}], "name": "n"}, "finish_reason": "stop"}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='a', extra=Extra({'cache_control': {'type': 'ephemeral'}}))], extra=Extra({'name': 'n', 'from_provider': 'openai_chat', 'content_list': True})), extra=Extra({'from_provider': 'openai_chat', 'usage_absent': True}))",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "a", "tool_calls": [3]}, "finish_reason": "stop"}]}',
        "ValidationError $.choices[0].message.tool_calls[0] a tool call must be an object (at $.choices[0].message.tool_calls[0])",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "robot", "content": "a"}, "finish_reason": "stop"}]}',
        "ValidationError $.choices[0].message.role unsupported role 'robot' (at $.choices[0].message.role)",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "a", "tool_calls": [{"id": "c", "type": "text"}]}, "finish_reason": "stop"}]}',
        "ValidationError $.choices[0].message.tool_calls[0] not a valid 'text' object: 'text' is a known block type; use its own class (at $.choices[0].message.tool_calls[0])",
    ),
    (
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "image", "x": 1}]}, "finish_reason": "stop"}]}',
        "ModelResponse(message=Message(role='assistant', content=[TextBlock(text='a'), UnknownBlock(data=Extra({'type': 'openai_chat_part', 'part': {'type': 'image', 'x': 1}}))], extra=Extra({'from_provider': 'openai_chat', 'content_list': True})), extra=Extra({'from_provider': 'openai_chat', 'usage_absent': True}))",
    ),
]


def _response(body: bytes) -> str:
    """The repr of the decoded Chat response ``body`` (or the error)."""
    try:
        return repr(oc.decode_response(body))
    except WireError as err:
        return f"{type(err).__name__} {err.path} {err}"


@pytest.mark.parametrize(("body", "expected"), _RESPONSES)
def test_responses_decode_exactly(body: bytes, expected: str) -> None:
    """Responses of both paths (custom and malformed tool calls, empty text beside calls,
    refusal, annotations, usage at three levels, top keys, further choices, bad shapes and
    bad JSON with its path) decode to exactly this."""
    assert _response(body) == expected


def test_decode_choices_errors_are_located() -> None:
    """`decode_choices`: bad JSON at `$`, a bad second choice at `$.choices[1]`, two good
    choices as two responses with their own texts."""
    with pytest.raises(DecodeError) as err:
        oc.decode_choices(b'{"choices": [1,')
    assert err.value.path == "$"
    good = {"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop"}
    body = {"id": "i", "choices": [good, {**good, "index": 1, "message": {"role": "user"}}]}
    with pytest.raises(ValidationError) as verr:
        oc.decode_choices(json.dumps(body).encode())
    assert verr.value.path == "$.choices[1]"
    body["choices"][1] = {**good, "index": 1, "message": {"role": "robot", "content": "b"}}
    with pytest.raises(ValidationError) as verr:
        oc.decode_choices(json.dumps(body).encode())
    assert (verr.value.path, verr.value.message) == ("$.choices[1]", "unsupported role 'robot'")
    body["choices"][1] = {**good, "index": 1, "message": {"role": "assistant", "content": "b"}}
    out = oc.decode_choices(json.dumps(body).encode())
    assert [(r.id, r.message.content) for r in out] == [("i", "a"), ("i", "b")]


_ENCODED = [
    (
        "openai_chat",
        {
            "model": "m",
            "messages": [{"role": "user", "content": "x"}],
            "temperature": 0.5,
            "max_tokens": 3,
            "extensions": True,
        },
        {},
        b'{"model":"m","temperature":0.5,"max_tokens":3,"messages":[{"role":"user","content":"x"}]}',
    ),
    (
        "openai_chat",
        {
            "model": "m",
            "messages": [{"role": "user", "content": "x"}],
            "temperature": 0.5,
            "max_tokens": 3,
        },
        {"extensions": True},
        b'{"model":"m","temperature":0.5,"max_tokens":3,"messages":[{"role":"user","content":"x"}]}',
    ),
    (
        "openai_chat",
        {
            "model": "m",
            "messages": [{"role": "user", "content": "x"}],
            "temperature": 0.5,
            "max_tokens": 3,
            "max_completion_tokens": 4,
            "stop": "x",
            "top_p": 1,
            "seed": 3,
            "n": 2,
            "response_format": {"type": "json_object"},
            "tool_choice": "auto",
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        },
        {},
        b'{"model":"m","temperature":0.5,"top_p":1,"max_completion_tokens":4,"max_tokens":3,"stop":"x","tools":[{"type":"function","function":{"name":"f","parameters":{}}}],"tool_choice":"auto","response_format":{"type":"json_object"},"seed":3,"n":2,"messages":[{"role":"user","content":"x"}]}',
    ),
    (
        "anthropic",
        {
            "model": "m",
            "max_tokens": 5,
            "temperature": 0.5,
            "stop_sequences": ["a"],
            "top_p": 0.5,
            "top_k": 3,
            "messages": [{"role": "user", "content": "x"}],
        },
        {},
        b'{"model":"m","max_tokens":5,"temperature":0.5,"top_p":0.5,"stop":["a"],"messages":[{"role":"user","content":"x"}]}',
    ),
    (
        "anthropic",
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [{"role": "user", "content": "x"}],
            "system": "s",
        },
        {},
        b'{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"s"},{"role":"user","content":"x"}]}',
    ),
    (
        "openai_chat",
        {
            "model": "m",
            "messages": [
                {"role": "tool", "tool_call_id": "c", "content": "r"},
                {"role": "user", "content": "x"},
            ],
        },
        {},
        b'{"model":"m","messages":[{"role":"tool","content":"r","tool_call_id":"c"},{"role":"user","content":"x"}]}',
    ),
    (
        "openai_chat",
        {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": "hi",
                    "reasoning_content": "r",
                    "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                    "provider_specific_fields": {"other": 1},
                },
            ]
        },
        {},
        b'{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"hi","reasoning_content":"r","thinking_blocks":[{"type":"thinking","thinking":"r","signature":"s"}],"provider_specific_fields":{"other":1}}]}',
    ),
    (
        "openai_chat",
        {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": "hi",
                    "reasoning_content": "r",
                    "thinking_blocks": [{"type": "thinking", "thinking": "r", "signature": "s"}],
                    "provider_specific_fields": {"citations": []},
                },
            ]
        },
        {},
        b'{"messages":[{"role":"user","content":"x"},{"role":"assistant","reasoning_content":"r","content":"hi","thinking_blocks":[{"type":"thinking","thinking":"r","signature":"s"}],"provider_specific_fields":{"citations":[]}}]}',
    ),
    (
        "openai_chat",
        {
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": "x",
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                            "provider_specific_fields": {"cache_control": {"type": "ephemeral"}},
                        }
                    ],
                    "name": "n",
                },
            ]
        },
        {},
        b'{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"x","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"provider_specific_fields":{"cache_control":{"type":"ephemeral"}}}],"name":"n"}]}',
    ),
    (
        "openai_chat",
        {
            "messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": "x", "tool_calls": None},
            ]
        },
        {},
        b'{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":null,"content":"x"}]}',
    ),
    (
        "openai_chat",
        {
            "messages": [
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": "x", "tool_calls": [], "audio": {"id": "a"}},
            ]
        },
        {},
        b'{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"x","tool_calls":[],"audio":{"id":"a"}}]}',
    ),
    (
        "anthropic",
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "t", "signature": "s"},
                        {"type": "text", "text": "a"},
                    ],
                },
            ],
        },
        {"extensions": True},
        b'{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"a","reasoning_content":"t","thinking_blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}]}',
    ),
    (
        "anthropic",
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "t", "signature": "s"},
                        {"type": "text", "text": "a"},
                    ],
                },
            ],
        },
        {"unsupported": "drop"},
        b'{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"text","text":"a"}]}]}',
    ),
    (
        "anthropic",
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "text",
                            "text": "a",
                            "citations": [
                                {
                                    "type": "char_location",
                                    "cited_text": "c",
                                    "document_index": 0,
                                    "start_char_index": 0,
                                    "end_char_index": 1,
                                }
                            ],
                        }
                    ],
                },
            ],
        },
        {"extensions": True},
        b'{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"a","provider_specific_fields":{"citations":[[{"type":"char_location","cited_text":"c","document_index":0,"start_char_index":0,"end_char_index":1,"supported_text":"a"}]]}}]}',
    ),
    (
        "anthropic",
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}},
                        {"type": "web_search_tool_result", "tool_use_id": "s", "content": []},
                        {"type": "text", "text": "a"},
                    ],
                },
            ],
        },
        {"extensions": True},
        b'{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"a","provider_specific_fields":{"server_tool_calls":[{"id":"s","type":"function","function":{"name":"web_search","arguments":"{}"}}],"web_search_results":[{"type":"web_search_tool_result","tool_use_id":"s","content":[]}]}}]}',
    ),
    (
        "anthropic",
        {
            "model": "m",
            "max_tokens": 5,
            "messages": [
                {"role": "user", "content": "x"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "c",
                            "name": "f",
                            "input": {},
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
            ],
        },
        {"extensions": True},
        b'{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"provider_specific_fields":{"cache_control":{"type":"ephemeral"}}}]}]}',
    ),
]


@pytest.mark.parametrize(("source", "body", "options", "expected"), _ENCODED)
def test_requests_encode_exactly(
    source: str, body: dict[str, Any], options: dict[str, Any], expected: bytes
) -> None:
    """Requests (this adapter's and Anthropic's; `extensions` as an option or a keyword, never
    written) encode to exactly these bytes."""
    adapter = {"openai_chat": oc, "anthropic": anthropic}[source]
    request = adapter.decode_request(json.dumps(body).encode())
    assert oc.encode_request(request, **options) == expected


_DROPPED = [
    (
        "[Message(role='user', content='x'), Message(role='tool', content='r')]",
        {"unsupported": "drop"},
        'b\'{"model":"m","messages":[{"role":"user","content":"x"}]}\' [Dropped(path=\'$.messages[1]\', what=\'a tool message without tool_call_id\', kind=\'content\')]',
    ),
    (
        "[Message(role='user', content='x'), Message(role='tool', content='r')]",
        {},
        "UnsupportedError $.messages[1] the target format cannot hold a tool message without tool_call_id (at $.messages[1])",
    ),
    (
        "[Message(role='user', content='x'), Message(role='tool', content=[TextBlock(text='r'), TextBlock(text='s')], tool_call_id='c', is_error=True)]",
        {"unsupported": "drop"},
        'b\'{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","content":[{"type":"text","text":"r"},{"type":"text","text":"s"}],"tool_call_id":"c"}]}\' [Dropped(path=\'$.messages[1].is_error\', what=\'is_error: true (tool messages have no error flag)\', kind=\'content\')]',
    ),
    (
        "[Message(role='user', content='x'), Message(role='tool', content=[TextBlock(text='r'), ImageBlock(source=UrlSource(url='u'))], tool_call_id='c')]",
        {"unsupported": "drop"},
        'b\'{"model":"m","messages":[{"role":"user","content":"x"},{"role":"tool","content":[{"type":"text","text":"r"}],"tool_call_id":"c"}]}\' [Dropped(path=\'$.messages[1].content[1]\', what=\'an image block in a tool message\', kind=\'content\')]',
    ),
    (
        "[Message(role='user', content='x'), Message(role='tool', content=[TextBlock(text='r'), ImageBlock(source=UrlSource(url='u'))], tool_call_id='c')]",
        {},
        "UnsupportedError $.messages[1].content[1] the target format cannot hold an image block in a tool message (at $.messages[1].content[1])",
    ),
    (
        "[Message(role='user', content='x', tool_call_id='c')]",
        {},
        'b\'{"model":"m","messages":[{"role":"user","content":"x"}]}\' '
        "[Dropped(path='$.messages[0].tool_call_id', what='a tool_call_id on a user message "
        "(only tool messages carry one)', kind='metadata')]",
    ),
    (
        "[Message(role='tool', content='x')]",
        {"unsupported": "drop"},
        "b'{\"model\":\"m\",\"messages\":[]}' [Dropped(path='$.messages[0]', what='a tool message without tool_call_id', kind='content')]",
    ),
    (
        "[Message(role='assistant', content=[ToolUseBlock(id='c', name='f', input={'a': 1})])]",
        {},
        'b\'{"model":"m","messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\\\\"a\\\\":1}"}}]}]}\' []',
    ),
    (
        "[Message(role='assistant', content=[])]",
        {},
        'b\'{"model":"m","messages":[{"role":"assistant","content":null}]}\' []',
    ),
]


_NAMES = {
    "Message": Message,
    "TextBlock": TextBlock,
    "ImageBlock": ImageBlock,
    "UrlSource": UrlSource,
    "ToolUseBlock": ToolUseBlock,
}


@pytest.mark.parametrize(("messages", "options", "expected"), _DROPPED)
def test_neutral_messages_encode_with_exactly_these_drops(
    messages: str, options: dict[str, Any], expected: str
) -> None:
    """Neutral tool, user and assistant messages: the bytes written and every `Dropped` (path
    and reason), or the UnsupportedError with its path, exactly."""
    dropped: list[Any] = []
    try:
        out = repr(oc.encode_request(eval(messages, _NAMES), model="m", dropped=dropped, **options))
        got = f"{out} {dropped!r}"
    except WireError as err:
        got = f"{type(err).__name__} {err.path} {err}"
    assert got == expected
