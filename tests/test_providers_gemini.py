"""The Gemini adapter: round trips, mapping points, and google-genai's types as checker."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest
from google.genai import types as gt
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from minagent.providers import gemini as G
from minagent.providers import gemini_stream as S
from minagent.providers._base import Dropped, Request, StreamError, UnsupportedError
from minagent.wire import (
    Base64Source,
    DocumentBlock,
    Extra,
    ImageBlock,
    Message,
    ModelResponse,
    ServerToolUseBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    UnknownBlock,
    UrlSource,
    ValidationError,
)
from tests.budget import scaled
from tests.strategies import trees

DATA = Path(__file__).parent / "data" / "provider-examples-gemini"
REQUESTS = sorted(DATA.glob("request_*.json"))
RESPONSES = sorted(DATA.glob("response_*.json"))

# --- SDK checkers -------------------------------------------------------------------------------

_CHECKS: dict[str, Any] = {
    "contents": pydantic.TypeAdapter(list[gt.Content]),
    "systemInstruction": pydantic.TypeAdapter(gt.Content),
    "tools": pydantic.TypeAdapter(list[gt.Tool]),
    "toolConfig": pydantic.TypeAdapter(gt.ToolConfig),
    "generationConfig": pydantic.TypeAdapter(gt.GenerationConfig),
    "safetySettings": pydantic.TypeAdapter(list[gt.SafetySetting]),
    "cachedContent": pydantic.TypeAdapter(str),
    "labels": pydantic.TypeAdapter(dict[str, str]),
}


def sdk_validate_request(body: bytes) -> None:
    """Validate each top-level key of a request against google-genai's types (extra="forbid",
    so an invented key fails); a top-level key with no type here fails too."""
    obj = json.loads(body)
    for key, value in obj.items():
        assert key in _CHECKS, f"unknown top-level key {key!r}"
        _CHECKS[key].validate_json(json.dumps(value))


_SDK_REFUSES = {"response_max_tokens.json": ("usageMetadata", "serviceTier")}
"""Recorded responses this google-genai version refuses, and the key it does not know."""


def assert_agrees(ours: ModelResponse, sdk: gt.GenerateContentResponse) -> None:
    """Field by field: our decode says what the SDK's parse says."""
    cand = sdk.candidates[0]
    parts = cand.content.parts or [] if cand.content else []
    blocks = ours.message.content
    assert isinstance(blocks, list) and len(blocks) == len(parts)
    for block, part in zip(blocks, parts, strict=True):
        sig = getattr(block, "extra", None) or {}
        if part.thought_signature is None:
            assert "thoughtSignature" not in sig
        else:
            assert base64.b64decode(sig["thoughtSignature"]) == part.thought_signature
        if part.function_call is not None:
            assert type(block) is ToolUseBlock
            assert (block.name, block.input) == (part.function_call.name, part.function_call.args)
        elif part.thought:
            assert type(block) is ThinkingBlock and block.thinking == part.text
        elif part.text is not None:
            assert type(block) is TextBlock and block.text == part.text
        elif part.inline_data is not None:
            assert block.source.data == part.inline_data.data
        else:
            assert type(block) is UnknownBlock
    um = sdk.usage_metadata
    cached = um.cached_content_token_count or 0
    assert ours.usage.get("input_tokens") == um.prompt_token_count - cached  # uncached input
    assert ours.usage.get("output_tokens") == um.candidates_token_count
    assert ours.usage.get("total_tokens") == um.total_token_count
    assert ours.usage.get("reasoning_tokens") == um.thoughts_token_count
    assert ours.id == sdk.response_id
    assert ours.model == sdk.model_version
    assert G.FINISH_REASONS.get(cand.finish_reason.value, cand.finish_reason.value) in (
        ours.stop_reason,
        "end_turn" if ours.stop_reason == "tool_use" else None,
    )


# --- the recorded examples ----------------------------------------------------------------------


@pytest.mark.parametrize("path", REQUESTS, ids=[p.stem for p in REQUESTS])
def test_request_round_trip(path: Path) -> None:
    """Every recorded request decodes and encodes back equal (parsed JSON)."""
    data = path.read_bytes()
    assert json.loads(G.encode_request(G.decode_request(data))) == json.loads(data)


@pytest.mark.parametrize("path", REQUESTS, ids=[p.stem for p in REQUESTS])
def test_request_validates_against_sdk(path: Path) -> None:
    """Every request we write back validates against google-genai's types."""
    sdk_validate_request(G.encode_request(G.decode_request(path.read_bytes())))


@pytest.mark.parametrize("path", RESPONSES, ids=[p.stem for p in RESPONSES])
def test_response_round_trip(path: Path) -> None:
    """Every recorded response decodes and encodes back equal (parsed JSON)."""
    data = path.read_bytes()
    assert json.loads(G.encode_response(G.decode_response(data))) == json.loads(data)


@pytest.mark.parametrize("path", RESPONSES, ids=[p.stem for p in RESPONSES])
def test_response_agrees_with_sdk(path: Path) -> None:
    """Our decode agrees with GenerateContentResponse's parse of the same bytes; the one file
    this SDK version refuses (a key it does not know yet) is pinned, and checked without it."""
    data = path.read_bytes()
    if path.name in _SDK_REFUSES:
        with pytest.raises(pydantic.ValidationError) as err:
            gt.GenerateContentResponse.model_validate_json(data)
        assert [e["loc"] for e in err.value.errors()] == [_SDK_REFUSES[path.name]]
        obj = json.loads(data)
        outer, inner = _SDK_REFUSES[path.name]
        del obj[outer][inner]
        data = json.dumps(obj).encode()
    assert_agrees(G.decode_response(data), gt.GenerateContentResponse.model_validate_json(data))


def test_examples_count() -> None:
    """The example set is the one SOURCES.md lists: 6 requests, 5 responses, 3 streams."""
    assert (len(REQUESTS), len(RESPONSES), len(list(DATA.glob("*.sse")))) == (6, 5, 3)


# --- mapping points -----------------------------------------------------------------------------


def test_model_role_and_thoughts() -> None:
    """role "model" is the assistant; thought parts are thinking; signatures stay on their part."""
    data = (DATA / "response_thought_signature.json").read_bytes()
    resp = G.decode_response(data)
    thinking, text = resp.message.content
    parts = json.loads(data)["candidates"][0]["content"]["parts"]
    assert type(thinking) is ThinkingBlock and thinking.thinking == parts[0]["text"]
    assert thinking.extra is UNSET
    assert type(text) is TextBlock and text.text == parts[1]["text"]
    assert text.extra == Extra({"thoughtSignature": parts[1]["thoughtSignature"]})
    req = G.decode_request((DATA / "request_thought_replay.json").read_bytes())
    assert [m.role for m in req.messages] == ["system", "user", "assistant", "user"]


def test_parallel_calls_keep_the_one_signature() -> None:
    """With parallel calls only the first carries a thoughtSignature, and only it gets it back."""
    data = (DATA / "response_parallel_function_calls.json").read_bytes()
    resp = G.decode_response(data)
    calls = resp.message.content
    assert [c.id for c in calls] == [f"{G.ID_PREFIX}0-{j}" for j in range(3)]
    assert [("thoughtSignature" in (c.extra or {})) for c in calls] == [True, False, False]
    assert resp.stop_reason == "tool_use"
    # to a request, as the next turn: the signature is on the first call only, no ids invented
    msgs = [Message(role="user", content="go"), resp.message]
    msgs += [Message(role="tool", content=f"r{j}", tool_call_id=c.id) for j, c in enumerate(calls)]
    body = json.loads(G.encode_request(msgs))
    sent = body["contents"][1]["parts"]
    original = json.loads(data)["candidates"][0]["content"]["parts"]
    assert sent == original
    assert body["contents"][2] == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "generate_topic", "response": {"output": f"r{j}"}}}
            for j in range(3)
        ],
    }
    sdk_validate_request(G.encode_request(msgs))


def test_function_responses_map_to_tool_messages() -> None:
    """functionResponse parts become tool messages, answering their call by id."""
    req = G.decode_request((DATA / "request_parallel_function_responses.json").read_bytes())
    calls = req.messages[2].content
    tools = req.messages[3:]
    assert [t.tool_call_id for t in tools] == [c.id for c in calls]
    assert tools[0] == Message(
        role="tool",
        content='{"return_value":"cars"}',
        tool_call_id="pyd_ai_df5891897e434a16add992cc09f10172",
        extra=Extra({"gemini_response": "object", "from_provider": "gemini"}),
    )


def test_output_and_error_responses() -> None:
    """{"output": s} is plain text, {"error": s} the same with is_error; both come back."""
    msgs = [
        Message(role="assistant", content=[ToolUseBlock(id="a1", name="f", input={"x": 1})]),
        Message(role="tool", content="fine", tool_call_id="a1"),
        Message(role="assistant", content=[ToolUseBlock(id="a2", name="g", input={})]),
        Message(role="tool", content="boom", tool_call_id="a2", is_error=True),
    ]
    data = G.encode_request(msgs)
    body = json.loads(data)
    assert body["contents"][1]["parts"] == [
        {"functionResponse": {"id": "a1", "name": "f", "response": {"output": "fine"}}}
    ]
    assert body["contents"][3]["parts"][0]["functionResponse"]["response"] == {"error": "boom"}
    assert G.decode_request(data).messages == msgs
    sdk_validate_request(data)


def test_calls_without_ids() -> None:
    """Calls without id get minagent-gemini-<content>-<part>; responses match by name, in order."""
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "a", "args": {}}},
                    {"functionCall": {"name": "b", "args": {"k": 1}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "b", "response": {"output": "B"}}},
                    {"functionResponse": {"name": "a", "response": {"output": "A"}}},
                ],
            },
        ]
    }
    req = G.decode_request(json.dumps(body).encode())
    assert [(m.role, m.tool_call_id) for m in req.messages[2:]] == [
        ("tool", "minagent-gemini-1-1"),
        ("tool", "minagent-gemini-1-0"),
    ]
    assert json.loads(G.encode_request(req)) == body


def test_inline_and_file_data() -> None:
    """inlineData -> image/document with raw bytes; fileData -> URL source; both come back."""
    req = G.decode_request((DATA / "request_inline_data.json").read_bytes())
    doc = req.messages[1].content[1]
    assert doc == DocumentBlock(Base64Source("text/plain", b"This is a test document."))
    req = G.decode_request((DATA / "request_file_data.json").read_bytes())
    part = json.loads((DATA / "request_file_data.json").read_bytes())["contents"][0]["parts"][1]
    # this recording spells fileData's keys in snake_case (file_uri): kept whole, not mapped
    assert req.messages[0].content[1] == UnknownBlock(Extra({"type": G.PART_TYPE, **part}))
    neutral = [
        Message(
            role="user",
            content=[
                ImageBlock(Base64Source("image/png", b"\x89PNG")),
                ImageBlock(UrlSource("https://example.com/cat.jpg")),
            ],
        )
    ]
    data = G.encode_request(neutral)
    assert json.loads(data)["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw=="}},
        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/cat.jpg"}},
    ]
    assert G.decode_request(data).messages == neutral
    sdk_validate_request(data)


def test_system_instruction() -> None:
    """systemInstruction -> the first system message; its other keys stay in the options."""
    req = G.decode_request((DATA / "request_max_tokens.json").read_bytes())
    assert req.messages[0] == Message(role="system", content="You are a helpful chatbot.")
    assert req.options["systemInstruction"] == {"role": "user"}


def test_usage_and_finish_reasons() -> None:
    """usageMetadata gets neutral names (the rest kept); finishReason maps and comes back."""
    data = (DATA / "response_max_tokens.json").read_bytes()
    resp = G.decode_response(data)
    assert resp.stop_reason == "max_tokens"
    assert resp.usage == {"output_tokens": 5, "input_tokens": 15, "total_tokens": 20}
    assert resp.extra["usage_extra"] == {
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 15}],
        "serviceTier": "standard",
    }
    base = json.loads((DATA / "response_text.json").read_bytes())
    for finish, reason in [
        ("STOP", "end_turn"),
        ("MAX_TOKENS", "max_tokens"),
        ("SAFETY", "refusal"),
        ("RECITATION", "refusal"),
        ("MALFORMED_FUNCTION_CALL", "MALFORMED_FUNCTION_CALL"),
    ]:
        body = json.loads(json.dumps(base))
        body["candidates"][0]["finishReason"] = finish
        resp = G.decode_response(json.dumps(body).encode())
        assert resp.stop_reason == reason
        assert json.loads(G.encode_response(resp)) == body


def test_foreign_content_refused_or_dropped() -> None:
    """A server tool block cannot go to Gemini: refused, or dropped and listed as content; the
    Anthropic signature of a thinking block (metadata here: the text maps to a thought part) is
    always dropped and listed as metadata."""
    msgs = [
        Message(role="user", content="hi"),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="t", signature="sig"),
                ServerToolUseBlock(id="x", name="web_search", input={}),
                TextBlock("ok"),
            ],
        ),
    ]
    with pytest.raises(UnsupportedError) as err:
        G.encode_request(msgs)
    assert err.value.path == "$.messages[1].content[1]"
    dropped: list[Dropped] = []
    body = json.loads(G.encode_request(msgs, unsupported="drop", dropped=dropped))
    assert [(d.path, d.kind) for d in dropped] == [
        ("$.messages[1].content[0].signature", "metadata"),
        ("$.messages[1].content[1]", "content"),
    ]
    assert body["contents"][1] == {
        "role": "model",
        "parts": [{"text": "t", "thought": True}, {"text": "ok"}],
    }


def test_neutral_response_is_sdk_valid() -> None:
    """A response from another provider encodes to a GenerateContentResponse the SDK accepts."""
    resp = ModelResponse(
        message=Message(role="assistant", content=[TextBlock("hi")]),
        stop_reason="max_tokens",
        usage={"input_tokens": 3, "output_tokens": 4},
    )
    data = G.encode_response(resp)
    sdk = gt.GenerateContentResponse.model_validate_json(data)
    assert sdk.text == "hi" and sdk.candidates[0].finish_reason == gt.FinishReason.MAX_TOKENS
    back = G.decode_response(data)
    assert (back.message, back.stop_reason, back.usage) == (resp.message, "max_tokens", resp.usage)


def test_errors_name_the_path() -> None:
    """Malformed contents raise our ValidationError naming where."""
    with pytest.raises(ValidationError) as err:
        G.decode_request(b'{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"x"}]}')
    assert err.value.path == "$.contents[1].role"


_text = st.text(max_size=20)
_json = trees(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | _text, depth=3, width=3, keys=_text
)


@st.composite
def conversations(draw: Any) -> list[Message]:
    """Neutral conversations Gemini can hold (thinking without signature included)."""
    msgs: list[Message] = []
    if draw(st.booleans()):
        msgs.append(Message(role="system", content=draw(_text)))
    for turn in range(draw(st.integers(1, 3))):
        msgs.append(Message(role="user", content=draw(_text)))
        blocks: list[Any] = []
        if draw(st.booleans()):
            blocks.append(ThinkingBlock(thinking=draw(_text)))
        blocks.append(TextBlock(draw(_text)))
        calls = draw(st.lists(st.dictionaries(_text, _json, max_size=3), max_size=2))
        for k, args in enumerate(calls):
            blocks.append(ToolUseBlock(id=f"c{turn}_{k}", name=f"tool{k}", input=args))
        msgs.append(Message(role="assistant", content=blocks))
        for k in range(len(calls)):
            error = draw(st.sampled_from([True, None]))
            msgs.append(
                Message(
                    role="tool",
                    content=draw(_text),
                    tool_call_id=f"c{turn}_{k}",
                    **({"is_error": True} if error else {}),
                )
            )
    return msgs


def _normal(msgs: list[Message]) -> list[Message]:
    """A one-text-block content and its string are the same turn on this wire."""
    out = []
    for m in msgs:
        c = m.content
        if type(c) is list and len(c) == 1 and type(c[0]) is TextBlock and c[0].extra is UNSET:
            m = Message(role=m.role, content=c[0].text)
        out.append(m)
    return out


@settings(max_examples=scaled(30), deadline=None)
@given(conversations())
def test_neutral_round_trip(msgs: list[Message]) -> None:
    """Generated conversations go to Gemini and back unchanged, and validate with the SDK."""
    data = G.encode_request(Request(messages=msgs))
    sdk_validate_request(data)
    assert _normal(G.decode_request(data).messages) == _normal(msgs)


# --- streaming ----------------------------------------------------------------------------------


STREAMS = sorted(DATA.glob("*.sse"))


def _chunks(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(b[6:]) for b in data.split(b"\r\n\r\n") if b.startswith(b"data: ")]


def _as_array(data: bytes) -> bytes:
    """The same chunks framed the way the non-SSE endpoint writes them (a JSON array)."""
    return ("[" + "\r\n,\r\n".join(json.dumps(c) for c in _chunks(data)) + "]").encode()


@pytest.mark.parametrize("path", STREAMS, ids=[p.stem for p in STREAMS])
def test_stream_sse_and_array_agree(path: Path) -> None:
    """SSE fed one byte at a time and the JSON-array framing give the same response."""
    data = path.read_bytes()
    one = S.accumulate([data[i : i + 1] for i in range(len(data))])
    arr = _as_array(data)
    assert S.accumulate([arr[i : i + 1] for i in range(len(arr))], sse=False) == one
    assert S.accumulate([data]) == one


def test_stream_text_joined() -> None:
    """Text deltas join into one part; the last chunk's usage and finishReason win."""
    data = (DATA / "stream_text.sse").read_bytes()
    resp = S.accumulate([data])
    last = _chunks(data)[-1]
    expected = {
        **last,
        "candidates": [
            {
                "content": {
                    "parts": [{"text": "The capital of Mexico is Mexico City."}],
                    "role": "model",
                },
                "finishReason": "STOP",
                "index": 0,
            }
        ],
    }
    assert resp == G.decode_response(json.dumps(expected).encode())


def test_stream_signature_stays_on_its_part() -> None:
    """A functionCall's thoughtSignature stays on that call after accumulation."""
    data = (DATA / "stream_function_call_signature.sse").read_bytes()
    resp = S.accumulate([data])
    (call,) = resp.message.content
    sig = _chunks(data)[0]["candidates"][0]["content"]["parts"][0]["thoughtSignature"]
    assert call.extra == Extra({"thoughtSignature": sig})
    assert resp.stop_reason == "tool_use" and resp.usage["reasoning_tokens"] == 202


def test_stream_signature_on_trailing_text_part() -> None:
    """A signature that arrives on a later text piece lands on the joined text part."""
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}}]},
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"text": "lo", "thoughtSignature": "c2ln"}],
                    }
                }
            ]
        },
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "!"}]}, "finishReason": "STOP"}
            ]
        },
    ]
    raw = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
    resp = S.accumulate([raw])
    assert resp.message.content == [
        TextBlock("Hello", extra=Extra({"thoughtSignature": "c2ln"})),
        TextBlock("!"),
    ]


def test_stream_errors() -> None:
    """Bad JSON, an error object, a cut array: StreamError with the chunk index; chunks before
    stay applied."""
    data = (DATA / "stream_text.sse").read_bytes()
    good = data.split(b"\r\n\r\n")[0] + b"\r\n\r\n"
    acc = S.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(good + b"data: {oops\r\n\r\n")
    assert err.value.frame == 1 and acc.chunks == 1
    acc = S.StreamAccumulator(sse=False)
    with pytest.raises(StreamError) as err:
        acc.feed(b'[{"candidates":[]},{"error":{"code":429,"message":"quota"}}]')
    assert (err.value.frame, err.value.error["code"], acc.chunks) == (1, 429, 1)
    acc = S.StreamAccumulator(sse=False)
    acc.feed(_as_array(data)[:-5])
    with pytest.raises(StreamError):
        acc.close()


def test_idless_calls_of_one_name_are_answered_in_order() -> None:
    """Two functionCalls of the same name without ids are answered, in order, by two id-less
    functionResponses: the first response answers the first call."""
    body = {
        "contents": [
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "f", "args": {"x": 1}}},
                    {"functionCall": {"name": "f", "args": {"x": 2}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "f", "response": {"output": "one"}}},
                    {"functionResponse": {"name": "f", "response": {"output": "two"}}},
                ],
            },
        ]
    }
    req = G.decode_request(json.dumps(body).encode())
    calls = req.messages[0].content
    assert [(c.id, c.input) for c in calls] == [
        ("minagent-gemini-0-0", {"x": 1}),
        ("minagent-gemini-0-1", {"x": 2}),
    ]
    assert [(m.tool_call_id, m.content) for m in req.messages[1:]] == [
        ("minagent-gemini-0-0", "one"),
        ("minagent-gemini-0-1", "two"),
    ]
    assert json.loads(G.encode_request(req)) == body


def test_non_canonical_base64_inline_data_stays_as_written() -> None:
    """inlineData whose base64 is not canonical ("QR==") is kept whole, so it comes back as
    written, not rewritten ("QQ==")."""
    body = {
        "contents": [
            {"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "QR=="}}]}
        ]
    }
    req = G.decode_request(json.dumps(body).encode())
    assert json.loads(G.encode_request(req)) == body


def test_a_function_call_streamed_in_pieces_is_kept_whole() -> None:
    """A functionCall part without a name (Vertex partialArgs pieces) is kept whole as a
    gemini_part block and written back unchanged, not refused."""
    piece = {
        "functionCall": {
            "partialArgs": [
                {"jsonPath": "$.recipe.name", "stringValue": "Lasagna", "willContinue": True}
            ]
        }
    }
    body = {"candidates": [{"content": {"role": "model", "parts": [piece]}, "index": 0}]}
    resp = G.decode_response(json.dumps(body).encode())
    assert resp.message.content == [UnknownBlock(Extra({"type": "gemini_part", **piece}))]
    assert json.loads(G.encode_response(resp)) == body


def test_a_foreign_response_without_usage_extra_lists_none() -> None:
    """Another provider's response with usage counters but no usage entries beyond them is
    written with its counters and lists no `$.usage_extra` (absent is not "a usage that is not
    an object")."""
    from minagent.providers import openai_chat

    body = (
        b'{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,'
        b'"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],'
        b'"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}'
    )
    dropped: list[Any] = []
    out = json.loads(
        G.encode_response(openai_chat.decode_response(body), unsupported="drop", dropped=dropped)
    )
    assert out["usageMetadata"] == {
        "promptTokenCount": 3,
        "candidatesTokenCount": 2,
        "totalTokenCount": 5,
    }
    assert [d.path for d in dropped] == ["$.object", "$.created"]


@pytest.mark.parametrize("usage", [3, "x", [1], None], ids=["int", "str", "list", "null"])
def test_own_usage_metadata_that_is_no_object_goes_back_as_it_came(usage: Any) -> None:
    """A Gemini response whose ``usageMetadata`` is not an object (a number, text, a list or
    null) is written back byte for byte (it was written as ``{}``)."""
    body = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "hi"}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": usage,
        "modelVersion": "g",
    }
    data = json.dumps(body, separators=(",", ":")).encode()
    assert G.encode_response(G.decode_response(data)) == data


def test_a_file_uri_implies_its_media_type_by_its_name_on_every_python() -> None:
    """``fileData`` keeps ``mimeType`` only when the URI's file name does not imply it, the same
    on every CPython: ``gs://`` URIs included (from 3.13 `mimetypes.guess_type` of a whole URL
    of a scheme `urllib` does not know gives None)."""
    guesses = [
        G._guess(u)
        for u in ("gs://b/c.pdf", "gs://b.pdf", "https://x/y/b.png?x=1", "https://x/", "gs://b/f")
    ]
    assert guesses == ["application/pdf", "application/pdf", "image/png", None, None]
    part = {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/c.pdf"}}
    body = {"contents": [{"role": "user", "parts": [part]}]}
    data = json.dumps(body, separators=(",", ":")).encode()
    request = G.decode_request(data)
    assert request.messages[0].content[0].source.extra is UNSET  # type: ignore[union-attr]
    assert G.encode_request(request) == data
