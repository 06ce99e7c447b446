"""The cross-provider matrix: the same neutral conversations through every pair of the four
request formats (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses, Gemini).

For a conversation C and a pair (A, B): C is encoded for A and decoded back, then that result is
encoded for B and decoded back. Where A and B can both hold C, what comes out is C. Where one
cannot, the encoder raises `UnsupportedError` naming the path, and under ``unsupported="drop"``
drops exactly that and reports it. Provider-opaque data (Anthropic thinking signatures, Responses
reasoning items with ``encrypted_content``, Gemini ``thoughtSignature``) goes back only to the
provider that issued it. ``docs/providers-responses-gemini.md`` shows the same table.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from minagent.providers import anthropic, gemini, openai_chat, openai_responses
from minagent.providers._base import Dropped, Request, UnsupportedError
from minagent.wire import (
    Base64Source,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)

FORMATS: dict[str, Any] = {
    "anthropic": anthropic,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
    "gemini": gemini,
}
OPTIONS: dict[str, dict[str, Any]] = {
    "anthropic": {"model": "claude-x", "max_tokens": 64},
    "openai_chat": {"model": "gpt-x"},
    "openai_responses": {"model": "gpt-x"},
    "gemini": {},
}
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(16))

CONVERSATIONS: dict[str, list[Message]] = {
    "text, multi-turn": [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Hi"),
        Message(role="assistant", content="Hello!"),
        Message(role="user", content="Bye"),
    ],
    "image": [
        Message(
            role="user",
            content=[TextBlock("What is this?"), ImageBlock(Base64Source("image/png", PNG))],
        )
    ],
    "tool calls and results": [
        Message(role="user", content="Weather?"),
        Message(
            role="assistant",
            content=[
                TextBlock("Checking."),
                ToolUseBlock(id="call_1", name="weather", input={"city": "Paris"}),
                ToolUseBlock(id="call_2", name="weather", input={"city": "Rome"}),
            ],
        ),
        Message(role="tool", content="18C", tool_call_id="call_1"),
        Message(role="tool", content="24C", tool_call_id="call_2"),
        Message(role="assistant", content="Paris 18C, Rome 24C."),
    ],
    "tool error": [
        Message(role="user", content="Weather?"),
        Message(
            role="assistant",
            content=[ToolUseBlock(id="call_1", name="weather", input={"city": "X"})],
        ),
        Message(role="tool", content="unknown city", tool_call_id="call_1", is_error=True),
    ],
    "thinking (unsigned)": [
        Message(role="user", content="2+2?"),
        Message(role="assistant", content=[ThinkingBlock(thinking="Add them."), TextBlock("4")]),
        Message(role="user", content="thanks"),
    ],
}

HOLDS: dict[str, set[str]] = {
    "text, multi-turn": set(FORMATS),
    "image": set(FORMATS),
    "tool calls and results": set(FORMATS),
    "tool error": {"anthropic", "gemini"},
    "thinking (unsigned)": {"gemini"},
}
"""Which formats can hold each conversation (the rest refuse it)."""

REFUSED_AT: dict[str, str] = {
    "tool error": "$.messages[2].is_error",
    "thinking (unsigned)": "$.messages[1].content[0]",
}
"""Where the refusal points, for the conversations some formats cannot hold."""


def _without_refused(name: str, msgs: list[Message]) -> list[Message]:
    """The conversation as a target that drops the refused item holds it."""
    out = list(msgs)
    if name == "tool error":
        out[2] = msgspec.structs.replace(out[2], is_error=UNSET)
    elif name == "thinking (unsigned)":
        out[1] = Message(role="assistant", content="4")
    return out


def normal(msgs: list[Message]) -> list[Message]:
    """A content of one plain text block and its string are the same turn on every wire."""
    out = []
    for m in msgs:
        c = m.content
        if type(c) is list and len(c) == 1 and type(c[0]) is TextBlock and c[0].extra is UNSET:
            m = msgspec.structs.replace(m, content=c[0].text)
        out.append(m)
    return out


def through(fmt: str, msgs: list[Message], **kw: Any) -> list[Message]:
    """``msgs`` encoded for ``fmt`` and decoded back."""
    mod = FORMATS[fmt]
    data = mod.encode_request(Request(messages=msgs), **OPTIONS[fmt], **kw)
    messages: list[Message] = mod.decode_request(data).messages
    return messages


PAIRS = [(a, b) for a in FORMATS for b in FORMATS]


@pytest.mark.parametrize("name", list(CONVERSATIONS))
@pytest.mark.parametrize(("src", "dst"), PAIRS, ids=[f"{a}->{b}" for a, b in PAIRS])
def test_matrix(name: str, src: str, dst: str) -> None:
    """Content both formats hold comes back identical; otherwise the refusal names the path,
    and under unsupported="drop" exactly that is dropped and reported."""
    conv = CONVERSATIONS[name]
    holds = HOLDS[name]
    if src not in holds:
        with pytest.raises(UnsupportedError) as err:
            through(src, conv)
        assert err.value.path == REFUSED_AT[name]
        return
    mid = through(src, conv)
    assert normal(mid) == normal(conv)
    if dst in holds:
        assert normal(through(dst, mid)) == normal(conv)
        return
    with pytest.raises(UnsupportedError) as err:
        through(dst, mid)
    assert err.value.path == REFUSED_AT[name]
    dropped: list[Dropped] = []
    out = through(dst, mid, unsupported="drop", dropped=dropped)
    assert [d.path for d in dropped] == [REFUSED_AT[name]]
    assert normal(out) == normal(_without_refused(name, conv))


# --- provider-opaque data -----------------------------------------------------------------------

DATA = Path(__file__).parent / "data"
OPAQUE = {
    "anthropic": DATA / "provider-examples" / "anthropic" / "request_thinking_tool_result.json",
    "openai_responses": DATA / "provider-examples-responses" / "request_reasoning_replay.json",
    "gemini": DATA / "provider-examples-gemini" / "request_thought_replay.json",
}
OPAQUE_DROPPED = {
    ("anthropic", "openai_chat"): [("$.messages[1].content[0]", "content")],
    ("anthropic", "openai_responses"): [("$.messages[1].content[0]", "content")],
    ("anthropic", "gemini"): [("$.messages[1].content[0].signature", "metadata")],
    ("openai_responses", "anthropic"): [("$.messages[2].content[0]", "content")],
    ("openai_responses", "openai_chat"): [("$.messages[2].content[0]", "content")],
    ("openai_responses", "gemini"): [("$.messages[2].content[0].openai_item", "metadata")],
    ("gemini", "anthropic"): [
        ("$.messages[2].content[0]", "content"),
        ("$.messages[2].content[1].thoughtSignature", "metadata"),
    ],
    ("gemini", "openai_chat"): [
        ("$.messages[2].content[0]", "content"),
        ("$.messages[2].content[1].thoughtSignature", "metadata"),
    ],
    ("gemini", "openai_responses"): [
        ("$.messages[2].content[0]", "content"),
        ("$.messages[2].content[1].thoughtSignature", "metadata"),
    ],
}
"""What each target refuses (the content) and drops (all, with their kind) of another provider's
opaque data: the reasoning block itself (content), or the provider's key on it (``signature``,
``openai_item`` holding the reasoning item with ``encrypted_content``, ``thoughtSignature``:
metadata, since only their issuer can read them and the thinking text maps on its own). A function
call's item id and status (``openai_item`` on a tool_use block) are bookkeeping (`BLOCK_HINTS`).
Anthropic takes back only thinking it signed, so an unsigned block (Responses reasoning, a Gemini
thought) is refused whole; Chat Completions has no place for thinking."""

OPAQUE_PAIRS = [(a, b) for a in OPAQUE for b in FORMATS]


@pytest.mark.parametrize(("src", "dst"), OPAQUE_PAIRS, ids=[f"{a}->{b}" for a, b in OPAQUE_PAIRS])
def test_opaque_data_goes_back_only_to_its_issuer(src: str, dst: str) -> None:
    """A recorded request with opaque reasoning data round-trips to its own provider exactly; every
    other refuses it by path, and under unsupported="drop" drops and reports exactly that."""
    data = OPAQUE[src].read_bytes()
    req = FORMATS[src].decode_request(data)
    if src == dst:
        assert json.loads(FORMATS[dst].encode_request(req)) == json.loads(data)
        return
    expected = OPAQUE_DROPPED[(src, dst)]
    content = [path for path, kind in expected if kind == "content"]
    if content:
        with pytest.raises(UnsupportedError) as err:
            FORMATS[dst].encode_request(Request(messages=req.messages), **OPTIONS[dst])
        assert err.value.path == content[0]
    else:
        listed: list[Dropped] = []
        FORMATS[dst].encode_request(Request(messages=req.messages), **OPTIONS[dst], dropped=listed)
        assert [(d.path, d.kind) for d in listed] == expected
    dropped: list[Dropped] = []
    FORMATS[dst].encode_request(
        Request(messages=req.messages), **OPTIONS[dst], unsupported="drop", dropped=dropped
    )
    assert [(d.path, d.kind) for d in dropped] == expected
