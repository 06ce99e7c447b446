"""Null-valued keys and provider bookkeeping across adapters: nothing is left out silently.

A key the target has no place for is refused (``unsupported="error"``) or dropped and reported;
a ``null`` there carries no content, so it is never refused but always listed in ``dropped``.
Where the target has the key, a ``null`` stays ``null``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from minagent.providers import anthropic, gemini, openai_chat, openai_responses
from minagent.providers._base import Dropped, Request, Tool, UnsupportedError
from minagent.wire import Base64Source, Extra, ImageBlock, Message, TextBlock, ToolUseBlock

PNG = b"\x89PNG\r\n\x1a\n"


def _enc(
    mod: Any, msgs: list[Message], policy: str = "error", **options: Any
) -> tuple[Any, list[Dropped]]:
    dropped: list[Dropped] = []
    data = mod.encode_request(
        Request(messages=msgs), unsupported=policy, dropped=dropped, **options
    )
    return json.loads(data), dropped


CHAT = "openai_chat"


def test_null_message_key_is_reported_not_refused() -> None:
    """A null message key of another provider's message that Anthropic has no place for is left
    out and listed as metadata, under "error" too."""
    msgs = [Message(role="user", content="hi", extra=Extra(name=None, from_provider=CHAT))]
    body, dropped = _enc(anthropic, msgs, model="m", max_tokens=8)
    assert body == {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    assert dropped == [Dropped("$.messages[0].name", "the message key 'name' (null)", "metadata")]


def test_null_kept_where_the_target_has_the_key() -> None:
    """OpenAI Chat has a message `name`: a null one is written as null, nothing dropped."""
    msgs = [Message(role="user", content="hi", extra=Extra(name=None))]
    body, dropped = _enc(openai_chat, msgs, model="m")
    assert body == {"model": "m", "messages": [{"role": "user", "content": "hi", "name": None}]}
    assert dropped == []


def test_non_null_content_key_still_refused() -> None:
    """A content key (a refusal text) the target cannot hold is still refused by path; a
    metadata key (a participant name) is listed."""
    msgs = [Message(role="assistant", content="hi", extra=Extra(refusal="no", from_provider=CHAT))]
    with pytest.raises(UnsupportedError) as err:
        _enc(anthropic, msgs, model="m", max_tokens=8)
    assert err.value.path == "$.messages[0].refusal"
    msgs = [Message(role="user", content="hi", extra=Extra(name="bob", from_provider=CHAT))]
    _, dropped = _enc(anthropic, msgs, model="m", max_tokens=8)
    assert dropped == [Dropped("$.messages[0].name", "the message key 'name'", "metadata")]


@pytest.mark.parametrize(
    ("mod", "options", "path"),
    [
        (openai_chat, {"model": "m"}, "$.messages[0].content[0].cache_control"),
        (openai_responses, {"model": "m"}, "$.messages[0].content[0].cache_control"),
        (gemini, {}, "$.messages[0].content[0].cache_control"),
    ],
    ids=["openai_chat", "openai_responses", "gemini"],
)
def test_null_block_key_is_listed(mod: Any, options: dict[str, Any], path: str) -> None:
    """A text block's null cache_control is listed in dropped by every target without it."""
    msgs = [
        Message(
            role="user", content=[TextBlock("a", extra=Extra(cache_control=None)), TextBlock("b")]
        )
    ]
    _, dropped = _enc(mod, msgs, **options)
    assert [d.path for d in dropped] == [path]
    assert dropped[0].what.endswith("(null)")


def test_every_source_key_is_reported() -> None:
    """Responses reports each extra key of an image source, not only the first non-null one."""
    src = Base64Source("image/png", PNG, extra=Extra(a=1, b=None, c=2))
    msgs = [Message(role="user", content=[ImageBlock(src)])]
    _, dropped = _enc(openai_responses, msgs, "drop", model="m")
    assert dropped == [
        Dropped("$.messages[0].content[0].source.a", "the key 'a' on a source", "metadata"),
        Dropped("$.messages[0].content[0].source.b", "the key 'b' on a source (null)", "metadata"),
        Dropped("$.messages[0].content[0].source.c", "the key 'c' on a source", "metadata"),
    ]


def test_null_stop_option_is_listed() -> None:
    """OpenAI `stop: null` is no typed setting: it stays a Chat option, and going to Anthropic it
    is left out and listed as metadata, never copied."""
    req = openai_chat.decode_request(
        b'{"model":"m","stop":null,"messages":[{"role":"user","content":"x"}]}'
    )
    assert (req.stop, req.options) == (None, {"stop": None})
    body, dropped = _enc_request(anthropic, req, max_tokens=8)
    assert body == {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "x"}]}
    assert dropped == [
        Dropped(
            "$.options.stop", "the openai_chat option 'stop' (no spelling here) (null)", "metadata"
        )
    ]


def test_tool_with_keys_beyond_the_neutral_ones_stays_an_option() -> None:
    """An Anthropic tool with a key the neutral Tool does not name (cache_control) keeps all
    tools in Anthropic's options: back to Anthropic exactly; to Chat Completions refused by
    path (tools are content), or dropped and listed."""
    tool = {"name": "t", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}
    data = json.dumps(
        {
            "model": "m",
            "max_tokens": 8,
            "tools": [tool],
            "messages": [{"role": "user", "content": "x"}],
        }
    ).encode()
    req = anthropic.decode_request(data)
    assert (req.tools, req.options) == (None, {"tools": [tool]})
    assert json.loads(anthropic.encode_request(req)) == json.loads(data)
    with pytest.raises(UnsupportedError) as err:
        _enc_request(openai_chat, req)
    assert err.value.path == "$.options.tools"
    body, dropped = _enc_request(openai_chat, req, "drop")
    assert "tools" not in body
    assert dropped == [
        Dropped("$.options.tools", "the anthropic option 'tools' (no spelling here)")
    ]


# --- Responses item bookkeeping crossing providers ------------------------------------------------

RESPONSES_TOOL_TURN = {
    "model": "gpt-x",
    "input": [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "status": "completed",
            "call_id": "call_1",
            "name": "weather",
            "arguments": '{"city":"Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
    ],
}


def test_responses_tool_calls_cross_without_refusal() -> None:
    """Item id/status of Responses items are bookkeeping: the tool turn crosses to Anthropic,
    Chat Completions and Gemini under unsupported="error", exactly, with nothing dropped."""
    req = openai_responses.decode_request(json.dumps(RESPONSES_TOOL_TURN).encode())
    msgs = req.messages
    body, dropped = _enc(anthropic, msgs, model="m", max_tokens=8)
    assert body["messages"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "call_1", "name": "weather", "input": {"city": "Paris"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "18C"}],
        },
    ]
    assert dropped == [
        Dropped(
            "$.messages[1].content[0].annotations",
            "the key 'annotations' on a text block (empty list)",
            "metadata",
        )
    ]
    body, dropped = _enc(openai_chat, msgs, model="m")
    assert body["messages"][1:] == [
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "content": "18C", "tool_call_id": "call_1"},
    ]
    assert [d.path for d in dropped] == ["$.messages[1].content[0].annotations"]
    body, dropped = _enc(gemini, msgs)
    assert body["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"text": "Checking."},
                {"functionCall": {"name": "weather", "args": {"city": "Paris"}, "id": "call_1"}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_1",
                        "name": "weather",
                        "response": {"output": "18C"},
                    }
                }
            ],
        },
    ]
    assert [d.path for d in dropped] == ["$.messages[1].content[0].annotations"]


@pytest.mark.parametrize("mod", [gemini, openai_responses], ids=["gemini", "openai_responses"])
def test_typed_block_fields_are_not_lost(mod: Any) -> None:
    """Typed optional fields of catalog blocks (citations, cache_control, caller) are checked
    like extra keys: refused by path, or dropped and listed, never left out silently."""
    msgs = [
        Message(
            role="user",
            content=[
                TextBlock("a", citations=[{"type": "x"}], cache_control={"type": "ephemeral"})
            ],
        ),
        Message(
            role="assistant",
            content=[ToolUseBlock(id="c", name="n", input={}, caller={"type": "direct"})],
        ),
    ]
    model = {} if mod is gemini else {"model": "m"}  # (Gemini: the model is in the URL)
    with pytest.raises(UnsupportedError) as err:
        _enc(mod, msgs, **model)
    assert err.value.path == "$.messages[0].content[0].citations"
    _, dropped = _enc(mod, msgs, "drop", **model)
    assert dropped == [
        Dropped("$.messages[0].content[0].citations", "the key 'citations' on a text block"),
        Dropped(
            "$.messages[0].content[0].cache_control",
            "the key 'cache_control' on a text block",
            "metadata",
        ),
        Dropped(
            "$.messages[1].content[0].caller", "the key 'caller' on a tool_use block", "metadata"
        ),
    ]


def test_gemini_args_absent_is_bookkeeping() -> None:
    """A Gemini functionCall without args crosses to Anthropic as input {} with nothing refused
    or listed (args_absent is a block hint), and goes back to Gemini without args."""
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "now?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "clock"}}]},
        ]
    }
    req = gemini.decode_request(json.dumps(body).encode())
    out, dropped = _enc(anthropic, req.messages, model="m", max_tokens=8)
    assert out["messages"][1]["content"][0]["input"] == {}
    assert out["messages"][1]["content"][0]["name"] == "clock"
    assert dropped == []
    assert json.loads(gemini.encode_request(req)) == body


# --- settings of another provider's request -------------------------------------------------------

ANTHROPIC_TOOL = {"name": "w", "description": "weather", "input_schema": {"type": "object"}}
RESPONSES_TOOL = {"type": "function", "name": "w", "parameters": {"type": "object"}, "strict": True}


def _enc_request(
    mod: Any, req: Request, policy: str = "error", **options: Any
) -> tuple[Any, list[Dropped]]:
    dropped: list[Dropped] = []
    data = mod.encode_request(req, unsupported=policy, dropped=dropped, **options)
    return json.loads(data), dropped


def test_anthropic_settings_into_responses() -> None:
    """Anthropic's model, token limit and function tools are typed settings, spelled for
    Responses; its option without a neutral spelling (thinking disabled) is listed as metadata."""
    data = json.dumps(
        {
            "model": "m",
            "max_tokens": 9,
            "tools": [ANTHROPIC_TOOL],
            "thinking": {"type": "disabled"},
            "messages": [{"role": "user", "content": "hi"}],
        }
    ).encode()
    req = anthropic.decode_request(data)
    assert req.tools == [Tool(name="w", description="weather", parameters={"type": "object"})]
    body, dropped = _enc_request(openai_responses, req)
    assert body == {
        "model": "m",
        "max_output_tokens": 9,
        "tools": [
            {
                "type": "function",
                "name": "w",
                "description": "weather",
                "parameters": {"type": "object"},
                "strict": False,  # required here, and true when left out
            }
        ],
        "input": [{"role": "user", "content": "hi"}],
    }
    assert dropped == [
        Dropped(
            "$.options.thinking", "the anthropic option 'thinking' (no spelling here)", "metadata"
        )
    ]


def test_chat_settings_into_gemini() -> None:
    """Chat's token limit, stop and tools become generationConfig and functionDeclarations; the
    model (in Gemini's URL) and a Chat option Gemini has no spelling for (seed) are listed as
    metadata, never copied."""
    data = json.dumps(
        {
            "model": "m",
            "max_completion_tokens": 9,
            "stop": "END",
            "seed": 3,
            "tools": [
                {"type": "function", "function": {"name": "w", "parameters": {"type": "object"}}}
            ],
            "messages": [{"role": "user", "content": "hi"}],
        }
    ).encode()
    req = openai_chat.decode_request(data)
    assert (req.max_tokens, req.stop, req.options) == (9, ["END"], {"seed": 3})
    body, dropped = _enc_request(gemini, req)
    assert body == {
        "generationConfig": {"maxOutputTokens": 9, "stopSequences": ["END"]},
        "tools": [{"functionDeclarations": [{"name": "w", "parameters": {"type": "object"}}]}],
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    }
    assert dropped == [
        Dropped("$.model", "the model (Gemini takes it in the URL)", "metadata"),
        Dropped("$.options.seed", "the openai_chat option 'seed' (no spelling here)", "metadata"),
    ]
    assert json.loads(openai_chat.encode_request(req)) == json.loads(data)


def test_responses_tools_into_anthropic_and_chat() -> None:
    """A Responses function tool (flat) is a typed Tool, spelled for Anthropic and Chat."""
    data = json.dumps(
        {"model": "m", "tools": [RESPONSES_TOOL], "input": [{"role": "user", "content": "hi"}]}
    ).encode()
    req = openai_responses.decode_request(data)
    body, dropped = _enc_request(anthropic, req, max_tokens=8)
    assert body["tools"] == [{"name": "w", "input_schema": {"type": "object"}, "strict": True}]
    body, dropped = _enc_request(openai_chat, req)
    assert body["tools"] == [
        {
            "type": "function",
            "function": {"name": "w", "parameters": {"type": "object"}, "strict": True},
        }
    ]
    assert dropped == []
    assert json.loads(openai_responses.encode_request(req)) == json.loads(data)
