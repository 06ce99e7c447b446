"""Exact-value tests that kill mutants of `minagent.providers.openai_chat` (docs/mutation.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from minagent.providers import openai_chat as oc
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
