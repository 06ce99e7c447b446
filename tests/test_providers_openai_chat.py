"""The OpenAI Chat Completions adapter: round trips of every example, SDK agreement, mapping."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion
from openai.types.chat import completion_create_params as ccp

from minagent.providers import Request, openai_chat
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
)
from minagent.wire.errors import ValidationError

from .providers_sdk import examples, validate_params

CHAT = "openai_chat"
REQUESTS = examples("openai", "request")
RESPONSES = examples("openai", "response")


def params_type(body: bytes) -> Any:
    if json.loads(body).get("stream"):
        return ccp.CompletionCreateParamsStreaming
    return ccp.CompletionCreateParamsNonStreaming


def test_examples_are_there() -> None:
    """The provider examples hold 5 OpenAI requests and 4 responses."""
    assert (len(REQUESTS), len(RESPONSES)) == (5, 4)


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_round_trip(path: Path) -> None:
    """Every example request decoded and encoded again equals the original (parsed JSON)."""
    data = path.read_bytes()
    out = openai_chat.encode_request(openai_chat.decode_request(data))
    assert json.loads(out) == json.loads(data)


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_request_validates_with_sdk(path: Path) -> None:
    """Every re-encoded example request validates against the SDK's request params type."""
    out = openai_chat.encode_request(openai_chat.decode_request(path.read_bytes()))
    checked = validate_params(params_type(out), out)
    assert len(checked["messages"]) == len(json.loads(out)["messages"])


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_response_round_trip(path: Path) -> None:
    """encode_response(decode_response(b)) equals b (parsed JSON) for every example."""
    data = path.read_bytes()
    out = openai_chat.encode_response(openai_chat.decode_response(data))
    assert json.loads(out) == json.loads(data)


def sdk_view(completion: ChatCompletion) -> dict[str, Any]:
    """What the SDK decoded, in our neutral terms, for field-by-field comparison."""
    choice = completion.choices[0]
    msg = choice.message
    blocks: list[Any] = []
    if msg.tool_calls is not None:
        if msg.content is not None:
            blocks.append(("text", msg.content))
        for call in msg.tool_calls:
            fn = call.function  # type: ignore[union-attr]
            blocks.append(("tool_use", call.id, fn.name, json.loads(fn.arguments)))
    elif msg.content is not None:
        blocks = msg.content  # type: ignore[assignment]
    usage = completion.usage
    assert usage is not None
    cached = usage.prompt_tokens_details.cached_tokens if usage.prompt_tokens_details else None
    reasoning = (
        usage.completion_tokens_details.reasoning_tokens
        if usage.completion_tokens_details
        else None
    )
    return {
        "id": completion.id,
        "model": completion.model,
        "created": completion.created,
        "finish_reason": choice.finish_reason,
        "refusal": msg.refusal,
        "content": blocks,
        "input_tokens": usage.prompt_tokens - (cached or 0),
        "output_tokens": usage.completion_tokens,
        "cache_read_input_tokens": cached,
        "reasoning_tokens": reasoning,
    }


def our_view(resp: ModelResponse) -> dict[str, Any]:
    content = resp.message.content
    blocks: Any = content
    if isinstance(content, list):
        blocks = [
            ("text", b.text) if isinstance(b, TextBlock) else ("tool_use", b.id, b.name, b.input)
            for b in content
        ]
        if not blocks:
            blocks = []
    return {
        "id": resp.id,
        "model": resp.model,
        "created": resp.created,
        "finish_reason": {v: k for k, v in openai_chat.FINISH_REASONS.items()}.get(
            resp.stop_reason, resp.stop_reason
        ),
        "refusal": resp.message.extra.get("refusal") if resp.message.extra else None,
        "content": blocks,
        "input_tokens": resp.usage["input_tokens"],
        "output_tokens": resp.usage["output_tokens"],
        "cache_read_input_tokens": resp.usage.get("cache_read_input_tokens"),
        "reasoning_tokens": resp.usage.get("reasoning_tokens"),
    }


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_response_agrees_with_sdk(path: Path) -> None:
    """Our decode agrees field by field with ChatCompletion.model_validate_json."""
    data = path.read_bytes()
    sdk = sdk_view(ChatCompletion.model_validate_json(data))
    ours = our_view(openai_chat.decode_response(data))
    if sdk["content"] is None:
        sdk["content"] = []
    assert ours == sdk


def call_message(arguments: str) -> bytes:
    return json.dumps(
        {
            "model": "m",
            "messages": [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": arguments},
                        }
                    ],
                }
            ],
        }
    ).encode()


@pytest.mark.parametrize(
    ("arguments", "value", "raw"),
    [
        ('{"a":1}', {"a": 1}, None),
        ('{"a": 1}', {"a": 1}, '{"a": 1}'),
        ('{"a": 1, "b": [tr', {}, '{"a": 1, "b": [tr'),
        ("[1, 2]", {}, "[1, 2]"),
        ("", {}, ""),
    ],
)
def test_tool_arguments_parse_and_raw_text_is_kept(arguments: str, value: Any, raw: Any) -> None:
    """arguments parse into input; text that is not a JSON object, or spelled otherwise than
    compact JSON, is kept in extra["arguments"] and written back byte-exact."""
    data = call_message(arguments)
    req = openai_chat.decode_request(data)
    (block,) = req.messages[0].content
    assert isinstance(block, ToolUseBlock)
    assert block.input == value
    assert block.extra == (Extra({"arguments": raw}) if raw is not None else msgspec.UNSET)
    out = openai_chat.encode_request(req)
    assert json.loads(out)["messages"][0]["tool_calls"][0]["function"]["arguments"] == arguments


def test_changed_input_wins_over_stale_raw_arguments() -> None:
    """If input no longer matches the raw text, the arguments are written from input."""
    block = ToolUseBlock(id="c", name="f", input={"a": 2}, extra=Extra({"arguments": '{"a": 1}'}))
    out = openai_chat.encode_request([Message(role="assistant", content=[block])], model="m")
    assert json.loads(out)["messages"][0]["tool_calls"][0]["function"]["arguments"] == '{"a":2}'


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant", "tool_calls": []},
        {"role": "assistant", "content": None},
        {"role": "assistant"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": "", "tool_calls": []},
    ],
)
def test_null_and_absent_content_come_back_as_they_came(message: dict[str, Any]) -> None:
    """content null, content absent and content "" each come back exactly."""
    body = {"model": "m", "messages": [message]}
    req = openai_chat.decode_request(json.dumps(body).encode())
    assert json.loads(openai_chat.encode_request(req)) == body


def test_null_and_absent_content_decode_differently() -> None:
    """null content decodes as [] and absent content as "" with the content_absent hint."""
    null = openai_chat.decode_request(b'{"messages":[{"role":"assistant","content":null}]}')
    absent = openai_chat.decode_request(b'{"messages":[{"role":"assistant"}]}')
    assert null.messages == [Message(role="assistant", content=[])]
    assert absent.messages == [
        Message(
            role="assistant",
            content="",
            extra=Extra({"content_absent": True, "from_provider": "openai_chat"}),
        )
    ]


def test_roles_names_and_parts() -> None:
    """developer/system roles, name, refusal, image_url (data URL and URL), input_audio and file
    parts, and tool messages map as documented."""
    png = b"\x89PNG\r\n\x1a\n\x00"
    pdf = b"%PDF-1.4 x"
    body = {
        "model": "m",
        "messages": [
            {"role": "developer", "content": "dev"},
            {"role": "system", "content": [{"type": "text", "text": "sys"}], "name": "boss"},
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {
                            "url": "data:image/png;base64," + base64.b64encode(png).decode(),
                            "detail": "low",
                        },
                    },
                    {"type": "image_url", "image_url": {"url": "https://x/y.jpg"}},
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                    {
                        "type": "file",
                        "file": {
                            "file_data": "data:application/pdf;base64,"
                            + base64.b64encode(pdf).decode(),
                            "filename": "a.pdf",
                        },
                    },
                    {"type": "file", "file": {"file_id": "file-1"}},
                ],
            },
            {"role": "assistant", "content": None, "refusal": "no"},
            {"role": "tool", "tool_call_id": "c1", "content": "42"},
        ],
    }
    req = openai_chat.decode_request(json.dumps(body).encode())
    assert req.messages == [
        Message(role="system", content="dev", extra=Extra(developer=True, from_provider=CHAT)),
        Message(
            role="system", content=[TextBlock("sys")], extra=Extra(name="boss", from_provider=CHAT)
        ),
        Message(
            role="user",
            content=[
                ImageBlock(Base64Source("image/png", png), extra=Extra({"detail": "low"})),
                ImageBlock(UrlSource("https://x/y.jpg")),
                UnknownBlock(Extra(body["messages"][2]["content"][2])),
                DocumentBlock(Base64Source("application/pdf", pdf), extra=Extra(filename="a.pdf")),
                UnknownBlock(Extra(body["messages"][2]["content"][4])),
            ],
            extra=Extra(from_provider=CHAT),
        ),
        Message(role="assistant", content=[], extra=Extra(refusal="no", from_provider=CHAT)),
        Message(role="tool", content="42", tool_call_id="c1"),
    ]
    out = openai_chat.encode_request(req)
    assert json.loads(out) == body
    validate_params(ccp.CompletionCreateParamsNonStreaming, out)


def test_non_canonical_data_url_stays_a_url() -> None:
    """A data URL whose base64 would not be written back the same is kept as a URL."""
    url = "data:image/png;base64,iVBORw0KGgo"  # missing padding
    req = openai_chat.decode_request(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}
                ]
            }
        ).encode()
    )
    assert req.messages[0].content == [ImageBlock(UrlSource(url))]


N3 = {
    "id": "c",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [
        {
            "index": i,
            "message": {"role": "assistant", "content": f"answer {i}", "refusal": None},
            "logprobs": None,
            "finish_reason": "stop" if i else "length",
        }
        for i in range(3)
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 9, "total_tokens": 14},
}


def test_n_choices_are_kept_and_listed() -> None:
    """With n=3, the first choice is the message, the other two are kept and written back, and
    decode_choices gives all three."""
    data = json.dumps(N3).encode()
    resp = openai_chat.decode_response(data)
    assert resp.message == Message(
        role="assistant", content="answer 0", extra=Extra(refusal=None, from_provider=CHAT)
    )
    assert resp.stop_reason == "max_tokens"
    assert resp.extra["choices"] == N3["choices"][1:]
    assert json.loads(openai_chat.encode_response(resp)) == N3
    every = openai_chat.decode_choices(data)
    assert [(r.message.content, r.stop_reason) for r in every] == [
        ("answer 0", "max_tokens"),
        ("answer 1", "end_turn"),
        ("answer 2", "end_turn"),
    ]
    assert [r.usage for r in every] == [
        {"input_tokens": 5, "output_tokens": 9, "total_tokens": 14},
        {},
        {},
    ]


@pytest.mark.parametrize(
    ("finish", "stop"),
    [
        ("stop", "end_turn"),
        ("tool_calls", "tool_use"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        ("function_call", "function_call"),
        ("brand_new", "brand_new"),
    ],
)
def test_finish_reasons_map_both_ways(finish: str, stop: str) -> None:
    """finish_reason maps to the neutral stop reason, unknown values kept, and back."""
    body = dict(N3, choices=[dict(N3["choices"][0], finish_reason=finish)])  # type: ignore[call-overload]
    resp = openai_chat.decode_response(json.dumps(body).encode())
    assert resp.stop_reason == stop
    assert json.loads(openai_chat.encode_response(resp))["choices"][0]["finish_reason"] == finish


def test_usage_gets_neutral_names() -> None:
    """prompt/completion/cached/reasoning tokens get neutral names; input_tokens is uncached."""
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "prompt_tokens_details": {"cached_tokens": 60, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 7, "audio_tokens": None},
    }
    body = dict(N3, choices=N3["choices"][:1], usage=usage)
    resp = openai_chat.decode_response(json.dumps(body).encode())
    assert resp.usage == {
        "input_tokens": 40,
        "output_tokens": 20,
        "total_tokens": 120,
        "cache_read_input_tokens": 60,
        "prompt_tokens_details.audio_tokens": 0,
        "reasoning_tokens": 7,
    }
    assert resp.extra["usage_extra"] == {"completion_tokens_details.audio_tokens": None}
    assert json.loads(openai_chat.encode_response(resp)) == body


def test_function_role_is_refused_with_path() -> None:
    """The deprecated function role is refused (not guessed) at its path."""
    with pytest.raises(ValidationError) as info:
        openai_chat.decode_request(b'{"messages":[{"role":"function","name":"f","content":"x"}]}')
    assert info.value.path == "$.messages[0].role"


texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
ids = st.text("abcdef0123", min_size=1, max_size=6)
inputs = st.dictionaries(texts, st.one_of(st.integers(-5, 5), texts, st.booleans()), max_size=3)


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    out: list[Message] = []
    if draw(st.booleans()):
        out.append(Message(role="system", content=draw(texts)))
    for _ in range(draw(st.integers(1, 3))):
        out.append(Message(role="user", content=draw(texts)))
        calls = draw(st.lists(st.builds(ToolUseBlock, id=ids, name=ids, input=inputs), max_size=2))
        text = draw(st.one_of(st.none(), texts))
        if calls:
            # an empty text beside tool calls is no block (the content_absent "" hint)
            content: Any = ([TextBlock(text)] if text else []) + calls
        else:
            content = text if text is not None else []
        out.append(Message(role="assistant", content=content))
        out.extend(Message(role="tool", content=draw(texts), tool_call_id=c.id) for c in calls)
    return out


@given(conversations())
def test_neutral_conversations_round_trip(messages: list[Message]) -> None:
    """Generated neutral conversations go to a Chat Completions request and back unchanged."""
    body = openai_chat.encode_request(messages, model="m")
    assert openai_chat.decode_request(body).messages == messages


def test_single_text_part_with_tool_calls_is_written_as_a_string() -> None:
    """Documented normalisation: assistant content parts holding one text part next to tool
    calls come back as a plain string (same meaning; the neutral form cannot tell them apart)."""
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    body = {
        "messages": [
            {"role": "assistant", "content": [{"type": "text", "text": "x"}], "tool_calls": [call]}
        ]
    }
    req = openai_chat.decode_request(json.dumps(body).encode())
    out = json.loads(openai_chat.encode_request(req))
    assert out["messages"][0] == {"role": "assistant", "content": "x", "tool_calls": [call]}


def messages_raw(data: bytes) -> bytes:
    return json.dumps(json.loads(data)["messages"]).encode()


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_fast_and_general_request_paths_agree(path: Path) -> None:
    """The Struct fast path and the general path decode every example request alike."""
    data = path.read_bytes()
    general = openai_chat._messages_from_dicts(messages_raw(data))
    assert openai_chat.decode_request(data).messages == general


def test_fast_path_takes_the_common_shapes() -> None:
    """All five example requests take the Struct fast path; audio and file parts do not."""
    fast = 0
    for path in REQUESTS:
        try:
            openai_chat._REQUEST_FAST.decode(messages_raw(path.read_bytes()))
            fast += 1
        except msgspec.ValidationError:
            pass
    assert fast == 5
    audio = (
        b'[{"role":"user","content":'
        b'[{"type":"input_audio","input_audio":{"data":"","format":"wav"}}]}]'
    )
    with pytest.raises(msgspec.ValidationError):
        openai_chat._REQUEST_FAST.decode(audio)


@given(conversations())
def test_fast_and_general_paths_agree_on_generated(messages: list[Message]) -> None:
    """On generated conversations the two request paths agree."""
    data = openai_chat.encode_request(messages, model="m")
    general = openai_chat._messages_from_dicts(messages_raw(data))
    assert openai_chat.decode_request(data).messages == general == messages


@pytest.mark.parametrize("media", ["image/png", 'image/"odd\\'])
def test_data_url_written_exactly(media: str) -> None:
    """Base64 bytes go out as a data URL, the media type JSON-escaped where it must be."""
    msgs = [Message(role="user", content=[ImageBlock(Base64Source(media, b"xy\xff"))])]
    body = json.loads(openai_chat.encode_request(msgs, model="m"))
    url = body["messages"][0]["content"][0]["image_url"]["url"]
    assert url == f"data:{media};base64,eHn/"


# --- OpenAI-compatible dialects (recordings in tests/data/provider-dialects) ---------------------

DIALECTS = Path(__file__).parent / "data" / "provider-dialects"


def _dialect(name: str) -> tuple[bytes, Any]:
    data = (DIALECTS / name).read_bytes()
    return data, openai_chat.decode_response(data)


def test_reasoning_content_is_an_unsigned_thinking_block() -> None:
    """DeepSeek's reasoning_content is the first block, an unsigned ThinkingBlock with the
    openai_reasoning hint; the response comes back exactly; Anthropic refuses the unsigned
    thinking by path, and drops it listed as content."""
    from minagent.providers import Dropped, UnsupportedError, anthropic

    data, resp = _dialect("response_deepseek_reasoning_content.json")
    body = json.loads(data)
    first = resp.message.content[0]
    assert type(first) is ThinkingBlock and first.signature is msgspec.UNSET
    assert first.thinking == body["choices"][0]["message"]["reasoning_content"]
    assert first.extra == Extra(openai_reasoning="reasoning_content")
    assert json.loads(openai_chat.encode_response(resp)) == body
    with pytest.raises(UnsupportedError) as err:
        anthropic.encode_response(resp)
    assert err.value.path == "$.message.content[0]"
    dropped: list[Dropped] = []
    anthropic.encode_response(resp, unsupported="drop", dropped=dropped)
    assert ("$.message.content[0]", "content") in [(d.path, d.kind) for d in dropped]


def test_openrouter_reasoning_is_a_thinking_block_and_details_stay_keys() -> None:
    """OpenRouter's reasoning text is a thinking block (hint: reasoning); reasoning_details stays
    a message key of Chat's own; both come back exactly."""
    data, resp = _dialect("response_openrouter_reasoning_details.json")
    body = json.loads(data)
    message = body["choices"][0]["message"]
    assert resp.message.content[0] == ThinkingBlock(
        thinking=message["reasoning"], extra=Extra(openai_reasoning="reasoning")
    )
    assert resp.message.extra["reasoning_details"] == message["reasoning_details"]
    assert json.loads(openai_chat.encode_response(resp)) == body


def test_mistral_tool_call_without_type_is_a_tool_use_block() -> None:
    """A Mistral tool call without "type" decodes as a tool_use block with the type_absent hint,
    goes back without a type, and to Anthropic as a plain tool_use."""
    from minagent.providers import anthropic

    data, resp = _dialect("response_mistral_tool_call_no_type.json")
    call = json.loads(data)["choices"][0]["message"]["tool_calls"][0]
    block = resp.message.tool_calls[0]
    assert (block.id, block.name) == (call["id"], call["function"]["name"])
    assert block.extra["type_absent"] is True
    assert json.loads(openai_chat.encode_response(resp)) == json.loads(data)
    out = json.loads(anthropic.encode_response(resp))
    assert out["content"][-1] == {
        "type": "tool_use",
        "id": call["id"],
        "name": call["function"]["name"],
        "input": json.loads(call["function"]["arguments"]),
    }


def test_tool_call_index_is_kept_on_the_block_and_listed_elsewhere() -> None:
    """A tool call's "index" (histories rebuilt from streams) rides on the tool_use block: back
    to Chat exactly; to Anthropic listed as metadata, not written."""
    from minagent.providers import Dropped, anthropic

    data, resp = _dialect("response_deepseek_tool_call_index.json")
    assert json.loads(openai_chat.encode_response(resp)) == json.loads(data)
    block = resp.message.tool_calls[0]
    assert "index" in block.extra
    dropped: list[Dropped] = []
    out = anthropic.encode_response(resp, unsupported="drop", dropped=dropped)  # its reasoning
    assert b'"index"' not in out
    path = f"$.message.content[{resp.message.content.index(block)}].index"
    assert (path, "metadata") in [(d.path, d.kind) for d in dropped]


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("response_groq_reasoning_x_groq.json", "x_groq"),
        ("response_perplexity_citations.json", "citations"),
        ("response_azure_content_filter_results.json", "prompt_filter_results"),
    ],
)
def test_vendor_response_keys_come_back_and_are_never_copied(name: str, key: str) -> None:
    """Groq x_groq, Perplexity citations and Azure prompt_filter_results are Chat response keys
    of their own: back exactly; Gemini never writes them (citations are content: refused)."""
    from minagent.providers import Dropped, UnsupportedError, gemini

    data, resp = _dialect(name)
    assert json.loads(openai_chat.encode_response(resp)) == json.loads(data)
    assert resp.extra[key] == json.loads(data)[key]
    dropped: list[Dropped] = []
    if key == "citations":
        with pytest.raises(UnsupportedError) as err:
            gemini.encode_response(resp)
        assert err.value.path == "$.citations"
        out = gemini.encode_response(resp, unsupported="drop", dropped=dropped)
    else:
        out = gemini.encode_response(resp, dropped=dropped)
    assert key.encode() not in out
    assert f"$.{key}" in [d.path for d in dropped]


def test_text_parts_with_cache_control_and_annotations_decode_as_text() -> None:
    """Text parts carrying cache_control (OpenRouter, LiteLLM) or annotations: [] are text
    blocks with those keys; back to Chat exactly, to Anthropic with cache_control (spelled
    alike) and annotations listed."""
    from minagent.providers import Dropped, anthropic

    parts = [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b", "annotations": []},
    ]
    body = {"model": "m", "messages": [{"role": "user", "content": parts}]}
    req = openai_chat.decode_request(json.dumps(body).encode())
    assert req.messages[0].content == [
        TextBlock("a", extra=Extra(cache_control={"type": "ephemeral"})),
        TextBlock("b", extra=Extra(annotations=[])),
    ]
    assert json.loads(openai_chat.encode_request(req)) == body
    dropped: list[Dropped] = []
    out = json.loads(anthropic.encode_request(req, max_tokens=5, dropped=dropped))
    assert out["messages"][0]["content"] == [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b"},
    ]
    assert [(d.path, d.kind) for d in dropped] == [
        ("$.messages[0].content[1].annotations", "metadata")
    ]


@pytest.mark.parametrize("role", ["user", "assistant", "system"])
@pytest.mark.parametrize("content", ["x", [TextBlock("x")]], ids=["text", "parts"])
def test_a_tool_call_id_off_a_tool_message_is_listed(role: str, content: Any) -> None:
    """A neutral message of another role carrying a ``tool_call_id`` (Chat has a place for one
    only on tool messages) is written without it and listed in ``dropped`` as metadata at its
    path, never silently."""
    dropped: list[Any] = []
    odd = Message(role=role, content=content, tool_call_id="c")
    msgs = [Message(role="user", content="q"), odd]
    body = json.loads(
        openai_chat.encode_request(
            Request(messages=msgs, model="m"), unsupported="drop", dropped=dropped
        )
    )
    assert "tool_call_id" not in body["messages"][1]
    assert [(d.path, d.kind) for d in dropped] == [("$.messages[1].tool_call_id", "metadata")]
