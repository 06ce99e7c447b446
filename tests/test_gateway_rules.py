"""Gateway-grade requests (issue 26): what each encoder writes for another provider's request
passes the target's SDK types *and* the server-side rules its API enforces (tests/gateway_rules.py
checks them independently of the encoders), settings map where a faithful mapping exists, and
responses need no bookkeeping from the caller."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anthropic.types as at
import pytest
from anthropic.types import message_create_params as mcp
from hypothesis import given
from hypothesis import strategies as st
from openai.types.responses import Response as SdkResponse

from minagent.providers import (
    Dropped,
    Reasoning,
    Renames,
    Request,
    ResponseFormat,
    ToolChoice,
    UnsupportedError,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
)
from minagent.providers import _toolkit as kit
from minagent.wire import Message, ModelResponse, TextBlock, ToolUseBlock

from .gateway_rules import GEMINI_KEYS, anthropic_violations, gemini_violations
from .providers_sdk import validate_params

DATA = Path(__file__).parent / "data"


def _sources() -> list[tuple[Any, Path]]:
    """Every recorded request of every provider, with the adapter that reads it."""
    out: list[tuple[Any, Path]] = []
    chat = [
        *sorted((DATA / "provider-real" / "openai_chat").glob("request*.json")),
        *sorted((DATA / "provider-examples" / "openai").glob("request*.json")),
        *sorted((DATA / "provider-dialects").glob("request*.json")),
    ]
    out += [(openai_chat, p) for p in chat]
    responses = [
        *sorted((DATA / "provider-real" / "openai_responses").glob("request*.json")),
        *sorted((DATA / "provider-examples-responses").glob("request*.json")),
    ]
    out += [(openai_responses, p) for p in responses]
    gem = [
        *sorted((DATA / "provider-real" / "gemini").glob("request*.json")),
        *sorted((DATA / "provider-examples-gemini").glob("request*.json")),
    ]
    out += [(gemini, p) for p in gem]
    claude = [
        *sorted((DATA / "provider-real" / "anthropic").glob("request*.json")),
        *sorted((DATA / "provider-examples" / "anthropic").glob("request*.json")),
    ]
    out += [(anthropic, p) for p in claude]
    return out


SOURCES = _sources()


def _crossing(target: Any) -> Any:
    """The recorded requests of every provider but ``target``, as pytest parameters."""
    return [
        pytest.param(mod, p, id=f"{mod.NAME}-{p.parent.name}-{p.stem}")
        for mod, p in SOURCES
        if mod is not target
    ]


def _chat(body: dict[str, Any]) -> Request:
    return openai_chat.decode_request(json.dumps(body).encode())


def _to_anthropic(req: Request, **options: Any) -> tuple[dict[str, Any], list[Dropped]]:
    dropped: list[Dropped] = []
    out = anthropic.encode_request(req, unsupported="drop", dropped=dropped, **options)
    validate_params(mcp.MessageCreateParamsNonStreaming, out)
    body = json.loads(out)
    assert anthropic_violations(body) == []
    return body, dropped


def test_the_checker_catches_each_rule() -> None:
    """The independent rule checker flags each rule it knows (so the corpus test can fail)."""
    body = {
        "model": "m",
        "metadata": {"user_id": "u", "team": "t"},
        "tool_choice": {"type": "tool", "name": "a.b"},
        "messages": [
            {"role": "user", "content": " "},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": ""},
                    {"type": "tool_use", "id": "x:0", "name": "a.b", "input": {}},
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x:0"}]},
            {"role": "assistant", "content": "Sure, "},
        ],
        "seed": 1,
    }
    assert anthropic_violations(body) == [
        "keys outside MessageCreateParams: ['seed']",
        "max_tokens missing",
        "messages[0]: empty content",
        "messages[0].content: whitespace-only text",
        "messages[1].content[0]: whitespace-only text",
        "messages[1]: tool_use id 'x:0'",
        "messages[1]: tool_use name 'a.b'",
        "messages[2]: tool_result id 'x:0'",
        "final assistant content ends with whitespace",
        "tool_use / tool_result blocks without tools",
        "tool_choice without tools",
        "tool_choice name 'a.b'",
        "metadata keys ['team']",
    ]
    orphan = {
        "model": "m",
        "max_tokens": 5,
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]}],
    }
    assert anthropic_violations(orphan) == [
        "messages[0]: tool_result 'a' answers no tool_use before it"
    ]
    assert gemini_violations({"model": "m", "contents": []}) == [
        "keys outside the generateContent body: ['model']"
    ]
    named = {"tools": [{"functionDeclarations": [{"name": "1a"}]}], "contents": []}
    assert gemini_violations(named) == ["function name '1a'"]


@pytest.mark.parametrize(("mod", "path"), _crossing(anthropic))
def test_recorded_requests_cross_to_anthropic_accepted(mod: Any, path: Path) -> None:
    """Every recorded request of another provider, crossed to Anthropic (drop policy, the model
    a gateway names), passes the SDK types and every Messages API rule."""
    req = mod.decode_request(path.read_bytes())
    body, dropped = _to_anthropic(req, model="claude-x")
    assert body["max_tokens"] == (req.max_tokens or anthropic.DEFAULT_MAX_TOKENS)
    assert all(d.path.startswith("$") for d in dropped)


@pytest.mark.parametrize(("mod", "path"), _crossing(gemini))
def test_recorded_requests_cross_to_gemini_with_its_keys_only(mod: Any, path: Path) -> None:
    """Every recorded request of another provider, crossed to Gemini, holds only the keys of
    a generateContent body (no model, no labels, no foreign option)."""
    req = mod.decode_request(path.read_bytes())
    body = json.loads(gemini.encode_request(req, unsupported="drop", dropped=[]))
    assert set(body) <= GEMINI_KEYS
    assert gemini_violations(body) == []


@pytest.mark.parametrize(("mod", "path"), _crossing(openai_responses))
def test_recorded_requests_cross_to_responses_without_foreign_ids(mod: Any, path: Path) -> None:
    """Crossed to Responses, input items carry no ``id`` (an item id must be the API's own:
    ``fc_``, ``msg_``, ``rs_``...); ids of other providers go only to ``call_id``."""
    req = mod.decode_request(path.read_bytes())
    body = json.loads(openai_responses.encode_request(req, unsupported="drop", dropped=[]))
    assert [item["id"] for item in body["input"] if "id" in item] == []


def test_responses_own_item_ids_are_kept() -> None:
    """A Responses request's own item ids (``fc_``, ``rs_``, ``msg_``) go back as they came."""
    path = DATA / "provider-examples-responses" / "request_reasoning_replay.json"
    req = openai_responses.decode_request(path.read_bytes())
    body = json.loads(openai_responses.encode_request(req))
    ids = [item["id"] for item in body["input"] if "id" in item]
    assert ids == [item["id"] for item in json.loads(path.read_bytes())["input"] if "id" in item]
    assert ids and all(i.startswith(("fc_", "rs_", "msg_")) for i in ids)


# --- the hand-built cases ------------------------------------------------------------

GATEWAY_CHAT = {
    "model": "gpt-4o",
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "functions.get_weather:0",
                    "type": "function",
                    "function": {"name": "weather.get", "arguments": '{"city":"Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "functions.get_weather:0", "content": "sunny"},
    ],
    "tools": [
        {
            "type": "function",
            "function": {"name": "weather.get", "parameters": {"type": "object"}},
        }
    ],
}


def test_tool_ids_and_names_round_trip_through_a_gateway() -> None:
    """Chat request -> Anthropic request -> Anthropic response -> Chat response: ids and names
    outside Anthropic's patterns are rewritten alike in tools, tool_use and tool_result, and the
    client gets its own names back."""
    renames = Renames()
    req = _chat(GATEWAY_CHAT)
    body, dropped = _to_anthropic(req, renames=renames)
    assert body["tools"] == [{"name": "weather_get", "input_schema": {"type": "object"}}]
    assert body["messages"][1]["content"] == [
        {
            "type": "tool_use",
            "id": "functions_get_weather_0",
            "name": "weather_get",
            "input": {"city": "Paris"},
        }
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "functions_get_weather_0", "content": "sunny"}
    ]
    assert renames.names == {"weather_get": "weather.get"}
    assert renames.ids == {"functions_get_weather_0": "functions.get_weather:0"}
    assert dropped == []  # the client's "content": "" beside tool calls is no text block at all
    answer = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "weather_get", "input": {"city": "Nice"}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }
    resp = anthropic.decode_response(json.dumps(answer).encode(), renames=renames)
    assert resp.message.content == [
        ToolUseBlock(id="toolu_01", name="weather.get", input={"city": "Nice"})
    ]
    chat = json.loads(openai_chat.encode_response(resp))
    assert chat["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "weather.get"
    # the next turn of the same conversation is rewritten the same way, with a fresh Renames
    again, _ = _to_anthropic(_chat(GATEWAY_CHAT), renames=Renames())
    assert again == body


def test_renames_without_a_mapping_leave_the_response_alone() -> None:
    """decode_response without renames (or with an empty one) returns the names as sent."""
    answer = (
        b'{"id":"m","type":"message","role":"assistant","model":"c","content":[{"type":'
        b'"tool_use","id":"t","name":"weather_get","input":{}}],"stop_reason":"tool_use",'
        b'"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}'
    )
    plain = anthropic.decode_response(answer)
    assert anthropic.decode_response(answer, renames=Renames()) == plain
    assert plain.message.content[0].name == "weather_get"  # type: ignore[union-attr,index]


def test_rewrites_are_collision_free_and_bounded() -> None:
    """Two names rewriting alike, a valid name equal to a rewrite, and a name over 64
    characters each get a distinct name in the pattern (an 8-hex SHA-256 suffix)."""
    r = Renames()
    assert r.name("a_b") == "a_b"
    second = r.name("a.b")
    third = r.name("a:b")
    assert second.startswith("a_b_") and len(second) == 12
    assert len({"a_b", second, third}) == 3
    long = "x." * 40
    fitted = r.name(long)
    assert len(fitted) == 64 and fitted.startswith("x_x_")
    assert r.name(long) == fitted  # the same value, the same rewrite
    assert r.names == {second: "a.b", third: "a:b", fitted: long}
    assert r.id("") == "_"


def test_prefill_trailing_whitespace_is_stripped_and_listed() -> None:
    """A final assistant prefill "Sure, " is written "Sure," (listed); an earlier assistant
    turn keeps its whitespace."""
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": "b \n"},
                    {"role": "user", "content": "c"},
                    {"role": "assistant", "content": "Sure, "},
                ],
            }
        )
    )
    assert [m["content"] for m in body["messages"]] == ["a", "b \n", "c", "Sure,"]
    assert dropped == [
        Dropped(
            "$.messages[3].content",
            "the trailing whitespace of the final assistant turn (the API refuses it)",
            "metadata",
        )
    ]


def test_prefill_of_text_parts_and_whitespace_only_prefill() -> None:
    """The last text part of a final assistant turn is stripped; a whitespace-only final turn
    is left out (listed); the turn that becomes final when later ones are left out is
    stripped too."""
    body, _ = _to_anthropic(
        _chat(
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": [{"type": "text", "text": "x\t"}]},
                ],
            }
        )
    )
    assert body["messages"][1]["content"] == [{"type": "text", "text": "x"}]
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": "a"},
                    {"role": "assistant", "content": " "},
                ],
            }
        )
    )
    assert body["messages"] == [{"role": "user", "content": "a"}]
    late, _ = _to_anthropic(
        _chat(
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": "a "},
                    {"role": "user", "content": " "},
                ],
            }
        )
    )
    assert late["messages"][-1] == {"role": "assistant", "content": "a"}
    assert dropped == [
        Dropped("$.messages[1]", "an empty assistant message (the API takes none)", "metadata")
    ]


def test_empty_messages_and_tool_results() -> None:
    """An empty user message is left out (listed); an empty tool result is written without
    content (the key is optional)."""
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": ""},
                    {"role": "user", "content": "q"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": ""},
                ],
                "tools": [{"type": "function", "function": {"name": "f"}}],
            }
        )
    )
    assert body["messages"][0] == {"role": "user", "content": "q"}
    assert body["messages"][2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c1"}],
    }
    assert dropped == [
        Dropped("$.messages[0]", "an empty user message (the API takes none)", "metadata")
    ]


def test_tool_history_without_tools_gets_derived_definitions() -> None:
    """Tool calls in a history whose request has no tools: minimal definitions derived from the
    calls, and tool_choice none (the client offered no tools this turn)."""
    chat = {k: v for k, v in GATEWAY_CHAT.items() if k != "tools"}
    chat["tool_choice"] = "auto"
    body, dropped = _to_anthropic(_chat(chat))
    assert body["tools"] == [{"name": "weather_get", "input_schema": {"type": "object"}}]
    assert body["tool_choice"] == {"type": "none"}
    assert (
        Dropped(
            "$.tool_choice",
            "a tool choice without tools (tools offered for the history only)",
            "metadata",
        )
        in dropped
    )


def test_tool_choice_without_tools_is_left_out() -> None:
    """A tool_choice with no tools at all (and no tool history) is left out, listed."""
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "tool_choice": "required",
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert "tool_choice" not in body
    assert dropped == [
        Dropped("$.tool_choice", "a tool choice without tools (the API refuses it)", "metadata")
    ]


def test_metadata_holds_only_user_id() -> None:
    """Chat metadata: user_id is written, every other key listed as metadata; user wins over
    metadata.user_id."""
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "metadata": {"user_id": "u-1", "team": "a", "run": "7"},
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert body["metadata"] == {"user_id": "u-1"}
    assert [(d.path, d.kind) for d in dropped] == [
        ("$.metadata.team", "metadata"),
        ("$.metadata.run", "metadata"),
    ]
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "user": "u-2",
                "metadata": {"user_id": "u-1"},
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert body["metadata"] == {"user_id": "u-2"}
    assert [d.path for d in dropped] == ["$.metadata.user_id"]


def test_openai_only_shapes_are_refused_never_copied() -> None:
    """A custom tool and tool_choice allowed_tools are OpenAI's alone: refused as content by
    default, dropped and listed under drop, never copied."""
    chat = {
        "model": "m",
        "tools": [{"type": "custom", "custom": {"name": "c"}}],
        "tool_choice": {
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "auto",
                "tools": [{"type": "custom", "custom": {"name": "c"}}],
            },
        },
        "messages": [{"role": "user", "content": "q"}],
    }
    with pytest.raises(UnsupportedError) as info:
        anthropic.encode_request(_chat(chat))
    assert info.value.path == "$.options.tools"
    body, dropped = _to_anthropic(_chat(chat))
    assert "tools" not in body and "tool_choice" not in body
    assert [(d.path, d.kind) for d in dropped] == [
        ("$.options.tools", "content"),
        ("$.options.tool_choice", "content"),
    ]


def test_image_media_types_the_api_does_not_take_are_refused() -> None:
    """A base64 image of a type the Messages API does not take (image/heic) is refused by
    path; a text/plain document becomes a plain-text source."""
    req = gemini.decode_request(
        json.dumps(
            {
                "contents": [
                    {
                        "role": "user",
                        "parts": [
                            {"text": "x"},
                            {"inlineData": {"mimeType": "image/heic", "data": "AAAA"}},
                            {"inlineData": {"mimeType": "text/plain", "data": "aGkgdGhlcmU="}},
                        ],
                    }
                ]
            }
        ).encode()
    )
    with pytest.raises(UnsupportedError) as info:
        anthropic.encode_request(req, model="m")
    assert info.value.path == "$.messages[0].content[1]"
    body, _ = _to_anthropic(req, model="m")
    assert body["messages"][0]["content"][1] == {
        "type": "document",
        "source": {"type": "text", "media_type": "text/plain", "data": "hi there"},
    }


# --- max_tokens: required, and whose value wins --------------------------------------------------


def test_max_tokens_precedence() -> None:
    """Client value > defaults=; no value anywhere: DEFAULT_MAX_TOKENS; keyword max_tokens= is
    the caller's explicit override."""
    client = {
        "model": "m",
        "max_completion_tokens": 256,
        "messages": [{"role": "user", "content": "q"}],
    }
    none = {"model": "m", "messages": [{"role": "user", "content": "q"}]}
    assert _to_anthropic(_chat(client), defaults={"max_tokens": 4096})[0]["max_tokens"] == 256
    assert _to_anthropic(_chat(none), defaults={"max_tokens": 1000})[0]["max_tokens"] == 1000
    assert _to_anthropic(_chat(none))[0]["max_tokens"] == anthropic.DEFAULT_MAX_TOKENS == 4096
    assert _to_anthropic(_chat(client), max_tokens=50)[0]["max_tokens"] == 50


def test_max_tokens_per_model_defaults() -> None:
    """defaults= may be a function of the model name (a per-model table)."""
    table = {"claude-big": 64000}

    def per_model(model: str | None) -> dict[str, Any]:
        return {"max_tokens": table.get(model or "", 2048)}

    none = {"model": "gpt", "messages": [{"role": "user", "content": "q"}]}
    assert (
        _to_anthropic(_chat(none), model="claude-big", defaults=per_model)[0]["max_tokens"] == 64000
    )
    assert _to_anthropic(_chat(none), model="claude-s", defaults=per_model)[0]["max_tokens"] == 2048


def test_defaults_fill_options_too_and_refuse_non_mappings() -> None:
    """A default that is not a typed setting fills an absent option; a non-mapping is a
    TypeError naming it."""
    msgs = [Message(role="user", content="q")]
    out = json.loads(anthropic.encode_request(msgs, model="m", defaults={"top_k": 5}))
    assert out["top_k"] == 5
    with pytest.raises(TypeError, match="defaults= must be a mapping"):
        anthropic.encode_request(msgs, defaults=lambda model: 3)  # type: ignore[arg-type,return-value]


def test_anthropic_own_request_without_max_tokens_is_written_back() -> None:
    """A request the Anthropic adapter decoded is written back as it came, even without
    max_tokens (the client's own body)."""
    data = b'{"model":"m","messages":[{"role":"user","content":"q"}]}'
    assert anthropic.encode_request(anthropic.decode_request(data)) == data


# --- options mapped both ways ------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def test_response_format_to_and_from_structured_outputs() -> None:
    """Chat json_schema -> Anthropic output_config.format (name listed); Anthropic's
    output_config.format -> a ResponseFormat, written for Chat as json_schema."""
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "city", "schema": SCHEMA, "strict": True},
                },
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert dropped == [
        Dropped("$.response_format.name", "the schema's name (no Messages API field)", "metadata")
    ]
    req = anthropic.decode_request(json.dumps({**body, "messages": body["messages"]}).encode())
    assert req.response_format == ResponseFormat(type="json_schema", schema=SCHEMA)
    assert anthropic.encode_request(req) == json.dumps(body, separators=(",", ":")).encode()
    chat = json.loads(openai_chat.encode_request(req))
    assert chat["response_format"]["type"] == "json_schema"
    assert chat["response_format"]["json_schema"]["schema"] == SCHEMA


def test_json_object_has_no_anthropic_spelling() -> None:
    """json_object (JSON without a schema) is refused by path (content: the answer's shape)."""
    req = _chat(
        {
            "model": "m",
            "response_format": {"type": "json_object"},
            "messages": [{"role": "user", "content": "q"}],
        }
    )
    with pytest.raises(UnsupportedError) as info:
        anthropic.encode_request(req)
    assert info.value.path == "$.response_format"


@pytest.mark.parametrize(
    ("effort", "budget"),
    [("minimal", 1024), ("low", 1024), ("medium", 2048), ("high", 4096)],
)
def test_reasoning_effort_to_thinking_budget(effort: str, budget: int) -> None:
    """reasoning_effort -> thinking.budget_tokens by the documented table."""
    body, _ = _to_anthropic(
        _chat(
            {
                "model": "m",
                "max_completion_tokens": 9000,
                "reasoning_effort": effort,
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert kit.EFFORT_BUDGETS[effort] == budget


def test_reasoning_effort_none_disables_thinking() -> None:
    """reasoning_effort none -> thinking disabled."""
    body, _ = _to_anthropic(
        _chat(
            {
                "model": "m",
                "reasoning_effort": "none",
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert body["thinking"] == {"type": "disabled"}


@pytest.mark.parametrize(
    ("budget", "effort"),
    [(0, "none"), (1024, "low"), (2047, "low"), (2048, "medium"), (4096, "high"), (32000, "high")],
)
def test_thinking_budget_to_effort(budget: int, effort: str) -> None:
    """A thinking budget -> an effort by the same table (Responses' reasoning.effort)."""
    assert kit.effort(Reasoning(budget_tokens=budget), _policy()) == effort
    req = Request(
        messages=[Message(role="user", content="q")],
        reasoning=Reasoning(budget_tokens=budget),
        provider="anthropic",
    )
    body = json.loads(openai_responses.encode_request(req, unsupported="drop", dropped=[]))
    assert body["reasoning"] == {"effort": effort}


def _policy() -> Any:
    from minagent.providers._base import Unsupported

    return Unsupported("drop")


def test_thinking_budget_fits_max_tokens() -> None:
    """The budget is kept below max_tokens (lowered, listed) and thinking is left out when
    max_tokens leaves no room for 1024."""
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "max_completion_tokens": 3000,
                "reasoning_effort": "high",
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2999}
    assert [d.path for d in dropped] == ["$.reasoning.budget_tokens"]
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "max_completion_tokens": 256,
                "reasoning_effort": "low",
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert "thinking" not in body
    assert [d.path for d in dropped] == ["$.reasoning"]


def test_thinking_rules_on_sampling_and_forced_tools() -> None:
    """With thinking: temperature other than 1 and top_p below 0.95 are left out (listed); a
    forced tool choice leaves thinking out (listed)."""
    body, dropped = _to_anthropic(
        _chat(
            {
                "model": "m",
                "reasoning_effort": "low",
                "temperature": 0.2,
                "top_p": 0.5,
                "messages": [{"role": "user", "content": "q"}],
            }
        )
    )
    assert body["thinking"]["type"] == "enabled"
    assert "temperature" not in body and "top_p" not in body
    assert [d.path for d in dropped] == ["$.temperature", "$.top_p"]
    chat = {**GATEWAY_CHAT, "reasoning_effort": "low", "tool_choice": "required"}
    body, dropped = _to_anthropic(_chat(chat))
    assert "thinking" not in body and body["tool_choice"] == {"type": "any"}
    assert "$.reasoning" in [d.path for d in dropped]


def test_user_stop_and_tool_choice_forms_both_ways() -> None:
    """user <-> metadata.user_id, stop <-> stop_sequences, every tool_choice form with
    parallel_tool_calls <-> disable_parallel_tool_use, there and back."""
    base = {k: v for k, v in GATEWAY_CHAT.items() if k != "messages"}
    base["messages"] = [{"role": "user", "content": "q"}]
    cases = [
        ("auto", None, {"type": "auto"}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("none", None, {"type": "none"}),
        (
            {"type": "function", "function": {"name": "weather.get"}},
            True,
            {"type": "tool", "name": "weather_get", "disable_parallel_tool_use": False},
        ),
    ]
    for choice, parallel, expected in cases:
        chat = {**base, "user": "u", "stop": ["END"], "tool_choice": choice}
        if parallel is not None:
            chat["parallel_tool_calls"] = parallel
        renames = Renames()
        body, _ = _to_anthropic(_chat(chat), renames=renames)
        assert body["tool_choice"] == expected
        assert (body["metadata"], body["stop_sequences"]) == ({"user_id": "u"}, ["END"])
        back = anthropic.decode_request(json.dumps(body).encode())
        assert back.user == "u" and back.stop == ["END"]
        modes = {"auto": "auto", "required": "any", "none": "none"}
        assert back.tool_choice == ToolChoice(
            mode=modes[choice] if isinstance(choice, str) else "tool",  # type: ignore[arg-type]
            name="weather_get" if isinstance(choice, dict) else None,
            parallel=parallel,
        )


def test_parallel_only_and_none_with_parallel() -> None:
    """parallel_tool_calls alone -> auto + disable_parallel_tool_use; with tool_choice none the
    switch has no meaning here (listed)."""
    base = {**GATEWAY_CHAT, "messages": [{"role": "user", "content": "q"}]}
    body, _ = _to_anthropic(_chat({**base, "parallel_tool_calls": False}))
    assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    body, dropped = _to_anthropic(
        _chat({**base, "parallel_tool_calls": False, "tool_choice": "none"})
    )
    assert body["tool_choice"] == {"type": "none"}
    assert [d.path for d in dropped] == ["$.tool_choice.parallel"]


def test_gemini_settings_mapped() -> None:
    """Gemini gets effort as thinkingBudget, a JSON Schema as responseJsonSchema, and reads
    them back; the model is listed (it goes in the URL)."""
    req = _chat(
        {
            "model": "m",
            "reasoning_effort": "medium",
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "c", "schema": SCHEMA},
            },
            "stop": "END",
            "messages": [{"role": "user", "content": "q"}],
        }
    )
    dropped: list[Dropped] = []
    body = json.loads(gemini.encode_request(req, unsupported="drop", dropped=dropped))
    assert body["generationConfig"] == {
        "stopSequences": ["END"],
        "responseMimeType": "application/json",
        "responseJsonSchema": SCHEMA,
        "thinkingConfig": {"thinkingBudget": 2048},
    }
    assert [d.path for d in dropped] == ["$.model", "$.response_format.name"]
    back = gemini.decode_request(json.dumps(body).encode())
    assert back.response_format == ResponseFormat(type="json_schema", schema=SCHEMA)
    assert back.reasoning == Reasoning(budget_tokens=2048)
    assert json.loads(gemini.encode_request(back)) == body


# --- responses need no bookkeeping ----------------------------------------------------------------


def _neutral_response(**fields: Any) -> ModelResponse:
    return ModelResponse(
        message=Message(role="assistant", content=[TextBlock("hi")]),
        stop_reason="end_turn",
        usage={"input_tokens": 1, "output_tokens": 2},
        **fields,
    )


def test_responses_created_at_is_the_responses_own_time_else_now() -> None:
    """created_at: the response's created; without one, now (no created= needed)."""
    out = json.loads(openai_responses.encode_response(_neutral_response(created=1700000000)))
    assert out["created_at"] == 1700000000
    before = int(time.time())
    out = json.loads(openai_responses.encode_response(_neutral_response(id="resp_1", model="m")))
    assert before <= out["created_at"] <= int(time.time())
    SdkResponse.model_validate(out)


def test_anthropic_response_without_id_gets_one() -> None:
    """An Anthropic response body needs an id: msg_ + 24 hex when the response has none."""
    out = json.loads(anthropic.encode_response(_neutral_response(model="m"), dropped=[]))
    assert out["id"].startswith("msg_") and len(out["id"]) == 28
    at.Message.model_validate(out)


# --- property: generated Chat conversations with awkward ids always pass -------------------------

awkward = st.text("ab.:/ -_0é", min_size=1, max_size=8)
texts = st.text(" \tab\n", max_size=4)


@st.composite
def chat_requests(draw: st.DrawFn) -> dict[str, Any]:
    """Chat requests with empty and whitespace texts, ids and names outside Anthropic's
    patterns, tools present or not, a final assistant turn or not."""
    messages: list[dict[str, Any]] = []
    names: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(texts) or "q"})
        calls = draw(st.lists(st.tuples(awkward, awkward), max_size=2, unique_by=lambda c: c[0]))
        entry: dict[str, Any] = {"role": "assistant", "content": draw(st.one_of(st.none(), texts))}
        if calls:
            entry["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
                for i, n in calls
            ]
            names += [n for _, n in calls]
        elif entry["content"] is None:
            entry["content"] = draw(texts)
        messages.append(entry)
        messages += [{"role": "tool", "tool_call_id": i, "content": draw(texts)} for i, _ in calls]
    if draw(st.booleans()):
        messages.append({"role": "assistant", "content": draw(texts) + "x" + draw(texts)})
    body: dict[str, Any] = {"model": "m", "messages": messages}
    if names and draw(st.booleans()):
        body["tools"] = [
            {"type": "function", "function": {"name": n}} for n in dict.fromkeys(names)
        ]
    return body


@given(chat_requests())
def test_generated_chat_requests_pass_every_anthropic_rule(chat: dict[str, Any]) -> None:
    """Any such Chat request crosses to Anthropic (default policy: nothing refused) as a body
    the SDK and every rule accept, losing only listed metadata; the renames map the ids and
    names back. The one refusal: a request whose every turn was left out as empty (each
    listed), which has no message to send."""
    dropped: list[Dropped] = []
    renames = Renames()
    request = _chat(chat)
    try:
        out = anthropic.encode_request(request, dropped=dropped, renames=renames)
    except UnsupportedError as err:
        assert (err.message, err.path) == (
            "the target format cannot hold a request with no messages (the Messages API needs "
            "at least one)",
            "$.messages",
        )
        turns = {f"$.messages[{i}]" for i, m in enumerate(request.messages) if m.role != "system"}
        assert turns <= {d.path for d in dropped}
        return
    validate_params(mcp.MessageCreateParamsNonStreaming, out)
    body = json.loads(out)
    assert anthropic_violations(body) == []
    assert all(d.kind == "metadata" for d in dropped)
    sent = [
        (b["id"], b["name"])
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    original = [
        (c["id"], c["function"]["name"]) for m in chat["messages"] for c in m.get("tool_calls", [])
    ]
    assert [(renames.ids.get(i, i), renames.names.get(n, n)) for i, n in sent] == original


def test_accumulated_stream_gets_the_client_names_back() -> None:
    """A recorded Anthropic stream accumulated with renames gives tool calls the names the
    client sent (the same restore as decode_response)."""
    from minagent.providers import get

    renames = Renames()
    assert renames.name("get.weather") == "get_weather"
    stored = DATA / "provider-streams" / "anthropic" / "tool_use.sse"
    chunks = [stored.read_bytes() + b"\n\n"]  # the closing empty line (SOURCES.md)
    plain = get("anthropic").accumulate(chunks)
    restored = get("anthropic").accumulate(chunks, renames=renames)
    calls = [b for b in restored.message.content if isinstance(b, ToolUseBlock)]  # type: ignore[union-attr]
    assert [(c.id, c.name) for c in calls] == [("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get.weather")]
    assert renames.restore(plain) == restored


def test_a_tool_result_whose_call_is_gone_goes_too() -> None:
    """A tool result answering no call of the assistant turn before it (its custom tool call
    dropped, or no call at all) is refused as content, dropped and listed under drop."""
    chat = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": "ok",
                "tool_calls": [
                    {"id": "c1", "type": "custom", "custom": {"name": "x", "input": "i"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
            {"role": "user", "content": "next"},
        ],
    }
    with pytest.raises(UnsupportedError) as info:
        anthropic.encode_request(_chat(chat))
    assert info.value.path == "$.messages[1].content[1]"  # the custom call itself, first
    body, dropped = _to_anthropic(_chat(chat))
    assert body["messages"] == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        {"role": "user", "content": "next"},
    ]
    assert [(d.path, d.kind) for d in dropped] == [
        ("$.messages[1].content[1]", "content"),
        ("$.messages[2]", "content"),
    ]


def test_tool_schemas_are_object_schemas() -> None:
    """A Chat function whose parameters are {} (or lack a type) gets type object (the API
    requires it); a function without parameters gets the empty object schema."""
    chat = {
        "model": "m",
        "tools": [
            {"type": "function", "function": {"name": "a", "parameters": {}}},
            {"type": "function", "function": {"name": "b", "parameters": {"properties": {}}}},
            {"type": "function", "function": {"name": "c"}},
        ],
        "messages": [{"role": "user", "content": "q"}],
    }
    body, dropped = _to_anthropic(_chat(chat))
    assert [t["input_schema"] for t in body["tools"]] == [
        {"type": "object"},
        {"type": "object", "properties": {}},
        {"type": "object", "properties": {}},
    ]
    assert dropped == []
    assert anthropic_violations({**body, "tools": [{"name": "a", "input_schema": {}}]}) == [
        "tool 'a': input_schema type is not object"
    ]


def test_thinking_needs_thinking_before_the_last_tool_calls() -> None:
    """With reasoning on, a history whose last tool-calling assistant turn has no thinking
    block (a Chat client never saw it) leaves thinking out for the request (listed)."""
    chat = {**GATEWAY_CHAT, "reasoning_effort": "low"}
    body, dropped = _to_anthropic(_chat(chat))
    assert "thinking" not in body
    assert (
        Dropped(
            "$.reasoning",
            "thinking (the last tool-calling assistant turn has no thinking block)",
            "metadata",
        )
        in dropped
    )
    plain = {**GATEWAY_CHAT, "reasoning_effort": "low", "messages": GATEWAY_CHAT["messages"][:1]}
    assert _to_anthropic(_chat(plain))[0]["thinking"] == {"type": "enabled", "budget_tokens": 1024}


def test_gemini_function_names_are_fitted_and_restored() -> None:
    """Names Gemini refuses (a leading digit, a slash) are fitted alike in declarations, calls
    and responses; decode_response with the renames gives them back."""
    chat = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "2fa/code", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "123456"},
        ],
        "tools": [{"type": "function", "function": {"name": "2fa/code"}}],
        "tool_choice": {"type": "function", "function": {"name": "2fa/code"}},
    }
    renames = Renames()
    body = json.loads(gemini.encode_request(_chat(chat), renames=renames, dropped=[]))
    assert gemini_violations(body) == []
    assert renames.names == {"_2fa_code": "2fa/code"}
    assert body["tools"][0]["functionDeclarations"][0]["name"] == "_2fa_code"
    assert body["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"] == ["_2fa_code"]
    assert body["contents"][1]["parts"][0]["functionCall"]["name"] == "_2fa_code"
    assert body["contents"][2]["parts"][0]["functionResponse"]["name"] == "_2fa_code"
    answer = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "_2fa_code", "args": {}}}],
                },
                "finishReason": "STOP",
            }
        ]
    }
    resp = gemini.decode_response(json.dumps(answer).encode(), renames=renames)
    assert [b.name for b in resp.message.content] == ["2fa/code"]  # type: ignore[union-attr]
