"""The adapter contract, one parametrized suite over every adapter in `providers.ADAPTERS`:
round trips, SDK validation, the content/metadata policy, no mutation, limits, and no foreign
exception for any input."""

from __future__ import annotations

import ast
import contextlib
import copy
import json
import sys
from pathlib import Path
from typing import Any

import anthropic.types as at
import google.genai.types as gt
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from minagent import providers
from minagent.providers import Dropped, Request, Tool, ToolChoice, UnsupportedError
from minagent.wire import (
    Extra,
    Message,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    UnknownBlock,
)
from minagent.wire.errors import DecodeError, WireError
from minagent.wire.limits import Limits

NAMES = list(providers.ADAPTERS)
DATA = Path(__file__).parent / "data"
SRC = Path(providers.__file__).parent

FOLDERS = {
    "anthropic": [DATA / "provider-examples" / "anthropic", DATA / "provider-real" / "anthropic"],
    "openai_chat": [
        DATA / "provider-examples" / "openai",
        DATA / "provider-real" / "openai_chat",
        DATA / "provider-dialects",
    ],
    "openai_responses": [
        DATA / "provider-examples-responses",
        DATA / "provider-real" / "openai_responses",
    ],
    "gemini": [DATA / "provider-examples-gemini", DATA / "provider-real" / "gemini"],
}
"""Where each provider's recorded bodies are (the dialect folder holds OpenAI-compatible
vendors' Chat Completions bodies)."""


def recordings(name: str, kind: str) -> list[Path]:
    """The recorded ``kind`` (request / response) bodies of provider ``name``."""
    out: list[Path] = []
    for folder in FOLDERS[name]:
        out += sorted(folder.glob(f"{kind}_*.json"))
    return out


def _cases(kind: str) -> list[tuple[str, Path]]:
    return [(name, path) for name in NAMES for path in recordings(name, kind)]


def _id(case: tuple[str, Path]) -> str:
    return f"{case[0]}:{case[1].parent.name}/{case[1].name}"


SDK_RESPONSE: dict[str, Any] = {
    "anthropic": at.Message,
    "openai_chat": ChatCompletion,
    "openai_responses": Response,
    "gemini": gt.GenerateContentResponse,
}
"""Each provider's official SDK response type."""

OPTIONS: dict[str, dict[str, Any]] = {
    "anthropic": {"model": "m", "max_tokens": 8},
    "openai_chat": {"model": "m"},
    "openai_responses": {"model": "m"},
    "gemini": {},
}
"""The settings each provider's request needs."""


def foreign_keys(model: Any, path: str = "$") -> list[str]:
    """The keys anywhere in a validated SDK model that its schema does not name."""
    found: list[str] = []
    if isinstance(model, pydantic.BaseModel):
        for key in model.model_extra or {}:
            found.append(f"{path}.{key}")
        for name in type(model).model_fields:
            found += foreign_keys(getattr(model, name), f"{path}.{name}")
    elif isinstance(model, (list, tuple)):
        for i, item in enumerate(model):
            found += foreign_keys(item, f"{path}[{i}]")
    return found


# --- registry ----------------------------------------------------------------------------------


def test_registry_names_every_adapter() -> None:
    """ADAPTERS names the four formats in a fixed order; get() returns them and refuses an
    unknown name with ValueError listing the known ones."""
    assert NAMES == ["anthropic", "openai_chat", "openai_responses", "gemini"]
    assert all(providers.get(n) is providers.ADAPTERS[n] for n in NAMES)
    assert all(n == providers.get(n).module.NAME for n in NAMES)
    with pytest.raises(ValueError, match="known: anthropic, openai_chat"):
        providers.get("cohere")


def _imports(path: Path) -> set[str]:
    """The sibling modules ``path`` imports anywhere in it, function-level imports included."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module)
            else:
                out.update(alias.name for alias in node.names)
    return out


def test_no_module_in_providers_imports_one_that_imports_it_back() -> None:
    """No import cycle in providers/ (function-level imports count), and adapters never import
    their stream modules."""
    graph = {p.stem: _imports(p) for p in SRC.glob("*.py")}
    for module, deps in graph.items():
        seen, todo = set(), list(deps)
        while todo:
            dep = todo.pop()
            assert dep != module, f"{module} imports itself back through {sorted(seen)}"
            if dep not in seen:
                seen.add(dep)
                todo += graph.get(dep, set())
    for name in NAMES:
        assert f"{name}_stream" not in graph[name]


# --- round trips and SDK validation ------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("request"), ids=_id)
def test_request_round_trip(case: tuple[str, Path]) -> None:
    """encode_request(decode_request(b)) == b (parsed JSON), through the registry."""
    name, path = case
    adapter = providers.get(name)
    data = path.read_bytes()
    assert json.loads(adapter.encode_request(adapter.decode_request(data))) == json.loads(data)


@pytest.mark.parametrize("case", _cases("response"), ids=_id)
def test_response_round_trip(case: tuple[str, Path]) -> None:
    """encode_response(decode_response(b)) == b (parsed JSON), through the registry."""
    name, path = case
    adapter = providers.get(name)
    data = path.read_bytes()
    assert json.loads(adapter.encode_response(adapter.decode_response(data))) == json.loads(data)


ANTHROPIC_RESPONSES = recordings("anthropic", "response")
CROSS = [(path, target) for path in ANTHROPIC_RESPONSES for target in NAMES[1:]]


@pytest.mark.parametrize(("path", "target"), CROSS, ids=[f"{p.name}->{t}" for p, t in CROSS])
def test_real_anthropic_responses_cross_under_the_default_policy(path: Path, target: str) -> None:
    """Every real Anthropic response goes to every other provider under the default policy:
    the body validates against that provider's SDK response type with no key outside its
    schema, and every dropped item is metadata. Only content the target has no place for (a
    server tool call, a block only Anthropic knows) is refused, naming a content block; then
    unsupported="drop" writes a valid body and lists that content as content."""
    response = providers.get("anthropic").decode_response(path.read_bytes())
    adapter = providers.get(target)
    dropped: list[Dropped] = []
    try:
        body = adapter.encode_response(response, dropped=dropped)
    except UnsupportedError as err:
        assert err.path.startswith("$.message.content[")
        block = response.message.content[int(err.path.split("[")[1].split("]")[0])]
        assert type(block) is not TextBlock and type(block) is not ToolUseBlock
        dropped = []
        body = adapter.encode_response(response, unsupported="drop", dropped=dropped)
        assert any(d.kind == "content" for d in dropped)
    else:
        assert {d.kind for d in dropped} <= {"metadata"}
    sdk = SDK_RESPONSE[target].model_validate_json(body)
    assert foreign_keys(sdk) == []


@pytest.mark.parametrize("name", NAMES)
def test_metadata_never_raises(name: str) -> None:
    """Another provider's metadata (tiers, counters, a cache hint, a null) the target has no
    place for is listed with kind="metadata" under the default policy, never refused; Anthropic
    has the cache hint, spelled alike, and keeps it."""
    source = "gemini" if name != "gemini" else "openai_chat"
    response = ModelResponse(
        message=Message(
            role="assistant",
            content=[TextBlock("hi", extra=Extra(cache_control={"type": "ephemeral"}))],
            extra=Extra(from_provider=source),
        ),
        usage={"input_tokens": 1, "output_tokens": 2, "odd_counter": 3},
        id="r1",
        model="m",
        extra=Extra(from_provider=source, service_tier="x", trace_id=None),
    )
    dropped: list[Dropped] = []
    body = providers.get(name).encode_response(response, dropped=dropped)
    assert json.loads(body)
    assert {d.kind for d in dropped} == {"metadata"}
    paths = {d.path for d in dropped}
    assert {"$.service_tier", "$.trace_id", "$.usage.odd_counter"} <= paths
    cache = "$.message.content[0].cache_control"
    assert (cache in paths) is (name != "anthropic")
    assert (b'"cache_control"' in body) is (name == "anthropic")


@pytest.mark.parametrize("name", NAMES)
def test_foreign_content_is_refused_by_name_and_path(name: str) -> None:
    """Another provider's content with no place in the target (an unknown block of its own) is
    refused with its path, and with unsupported="drop" left out and listed as content; it is
    never copied into the body."""
    source = "gemini" if name != "gemini" else "openai_chat"
    block = UnknownBlock(Extra(type="hologram", shape="cube"))
    msgs = [
        Message(role="user", content=[TextBlock("a"), block], extra=Extra(from_provider=source))
    ]
    adapter = providers.get(name)
    with pytest.raises(UnsupportedError) as err:
        adapter.encode_request(msgs, **OPTIONS[name])
    assert err.value.path == "$.messages[0].content[1]"
    assert "'hologram'" in err.value.message
    dropped: list[Dropped] = []
    body = adapter.encode_request(msgs, unsupported="drop", dropped=dropped, **OPTIONS[name])
    assert b"hologram" not in body
    assert dropped == [
        Dropped(
            "$.messages[0].content[1]",
            "a 'hologram' block from another provider (no such block here)",
            "content",
        )
    ]


# --- encoders never change their input ---------------------------------------------------------


CONVERSATION = [
    Message(role="system", content="be brief"),
    Message(role="user", content=[TextBlock("look")]),
    Message(role="assistant", content=[ToolUseBlock(id="c", name="f", input={"a": [1, {"b": 2}]})]),
    Message(role="tool", content="42", tool_call_id="c"),
    Message(role="user", content=[TextBlock("and?")]),
    Message(role="tool", content=[TextBlock("43")], tool_call_id="c"),
]


@pytest.mark.parametrize("name", NAMES)
def test_encoders_never_change_their_input(name: str) -> None:
    """encode_request and encode_response leave the messages, blocks and settings they are
    given exactly as they were (the issue's case: a user message before a tool message)."""
    adapter = providers.get(name)
    req = Request(
        messages=copy.deepcopy(CONVERSATION),
        tools=[Tool(name="f", parameters={"type": "object"})],
        tool_choice=ToolChoice(mode="auto", parallel=False),
        **OPTIONS[name],
    )
    before = copy.deepcopy(req)
    first = [m.content for m in req.messages]
    adapter.encode_request(req, unsupported="drop")
    assert req == before
    assert [m.content for m in req.messages] == first
    response = ModelResponse(
        message=Message(role="assistant", content=[TextBlock("x"), ThinkingBlock("t", "s")]),
        usage={"input_tokens": 1},
        id="i",
        model="m",
    )
    kept = copy.deepcopy(response)
    adapter.encode_response(response, unsupported="drop")
    assert response == kept


@pytest.mark.parametrize("name", NAMES)
def test_a_tool_result_joining_a_user_turn_leaves_the_user_message_alone(name: str) -> None:
    """The review's case: a user message then a tool message; the user message's content list
    holds exactly its one text block after encoding (Anthropic joins the two into one turn)."""
    look = [TextBlock("look")]
    msgs = [
        Message(role="user", content=look),
        Message(role="tool", content="42", tool_call_id="c"),
    ]
    providers.get(name).encode_request(msgs, unsupported="drop", **OPTIONS[name])
    assert msgs[0].content is look and look == [TextBlock("look")]


@pytest.mark.parametrize("case", _cases("request"), ids=_id)
def test_own_and_cross_encodes_leave_a_decoded_request_unchanged(case: tuple[str, Path]) -> None:
    """Every recorded request, decoded, is unchanged by encoding it to every adapter."""
    name, path = case
    req = providers.get(name).decode_request(path.read_bytes())
    before = copy.deepcopy(req)
    for target in NAMES:
        with contextlib.suppress(WireError):
            providers.get(target).encode_request(req, unsupported="drop", **OPTIONS[target])
        assert req == before, target


# --- limits and hostile input ------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_max_size_is_applied_by_every_decoder(name: str) -> None:
    """Every decoder refuses input longer than Limits.max_size before parsing it."""
    adapter = providers.get(name)
    data = b'{"messages": [], "contents": [], "input": []}' + b" " * 100
    small = Limits(max_size=64)
    for decode in (adapter.decode_request, adapter.decode_response):
        with pytest.raises(DecodeError) as err:
            decode(data, limits=small)
        assert "Limits.max_size" in err.value.message


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def test_deep_tool_arguments_are_kept_as_text_not_a_recursion_error() -> None:
    """Arguments nested 1,000 deep (deeper than the JSON parser takes) decode: the call keeps the
    text, and it goes back to Chat Completions unchanged and to Responses as text."""
    arguments = _nested(1000)
    body = {
        "model": "m",
        "messages": [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c",
                        "type": "function",
                        "function": {"name": "f", "arguments": arguments},
                    }
                ],
            }
        ],
    }
    chat = providers.get("openai_chat")
    req = chat.decode_request(json.dumps(body).encode())
    assert json.loads(chat.encode_request(req)) == body
    out = json.loads(providers.get("openai_responses").encode_request(req))
    assert out["input"][0]["arguments"] == arguments


def test_deep_logprobs_are_a_decode_error() -> None:
    """A Chat response whose logprobs nest 100,000 deep is refused with DecodeError."""
    body = (
        b'{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,'
        b'"message":{"role":"assistant","content":"x"},"finish_reason":"stop","logprobs":'
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}]}"
    )
    with pytest.raises(DecodeError):
        providers.get("openai_chat").decode_response(body)


def _at_depth(frames: int, call: Any) -> Any:
    if frames:
        return _at_depth(frames - 1, call)
    return call()


@pytest.mark.parametrize("name", NAMES)
def test_a_deep_tool_input_encodes_from_deep_in_the_stack(name: str) -> None:
    """A tool input nested as deep as the decoder allows encodes from 60 frames down (inside a
    web handler) for every adapter; the interpreter's limit is measured, not assumed."""
    depth = sys.getrecursionlimit() - 100
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    msgs = [Message(role="assistant", content=[ToolUseBlock(id="c", name="f", input=value)])]
    adapter = providers.get(name)
    body = _at_depth(60, lambda: adapter.encode_request(msgs, **OPTIONS[name]))
    assert body.count(b'{"a":') + body.count(b'{\\"a\\":') == depth  # an object, or text


ISSUE_INPUTS = [
    ("openai_chat", "decode_request", b'{"messages":[{"role":[],"content":"x"}]}'),
    (
        "openai_responses",
        "decode_request",
        b'{"input":[{"type":"message","role":"assistant","content":'
        b'[{"type":"output_text","text":null}]}]}',
    ),
    (
        "openai_chat",
        "decode_request",
        b'{"messages":[{"role":"user","content":[{"type":"text"}]}]}',
    ),
    ("gemini", "decode_request", b'{"contents":[{"role":{},"parts":[]}]}'),
    ("anthropic", "decode_response", b'{"content":[],"stop_reason":"end_turn","usage":5}'),
    ("openai_responses", "decode_request", b'"\xff"'),
    ("openai_chat", "decode_response", b"[" * 5000 + b"]" * 5000),
]
"""Minimal inputs that raised a foreign exception (TypeError, RecursionError, ...)."""


@pytest.mark.parametrize(("name", "fn", "data"), ISSUE_INPUTS)
def test_minimal_hostile_inputs_raise_wire_errors(name: str, fn: str, data: bytes) -> None:
    """Each minimal input of the review raises a WireError naming a path, no foreign error."""
    with pytest.raises(WireError) as err:
        getattr(providers.get(name), fn)(data)
    assert err.value.path.startswith("$")


def test_settings_that_fail_to_map_never_raise_a_foreign_error() -> None:
    """tools: null and tool_choice {"type": []} stay Anthropic options: back to Anthropic exactly,
    to Chat Completions reported by path (tools are content), never a TypeError."""
    body = {
        "model": "m",
        "max_tokens": 1,
        "tools": None,
        "tool_choice": {"type": []},
        "messages": [{"role": "user", "content": "x"}],
    }
    req = providers.get("anthropic").decode_request(json.dumps(body).encode())
    assert json.loads(providers.get("anthropic").encode_request(req)) == body
    dropped: list[Dropped] = []
    out = providers.get("openai_chat").encode_request(req, unsupported="drop", dropped=dropped)
    assert [(d.path, d.kind) for d in dropped] == [
        ("$.options.tools", "metadata"),
        ("$.options.tool_choice", "content"),
    ]
    assert json.loads(out) == {
        "model": "m",
        "max_tokens": 1,
        "messages": [{"role": "user", "content": "x"}],
    }


def test_usage_of_the_wrong_type_is_listed_not_an_attribute_error() -> None:
    """A Responses body with "usage": 5 goes to Anthropic with the usage listed as metadata."""
    resp = providers.get("openai_responses").decode_response(
        b'{"id":"r","object":"response","status":"completed","output":[],"usage":5}'
    )
    dropped: list[Dropped] = []
    out = providers.get("anthropic").encode_response(resp, unsupported="drop", dropped=dropped)
    assert json.loads(out)["usage"] == {"input_tokens": 0, "output_tokens": 0}
    assert ("$.usage_extra", "metadata") in [(d.path, d.kind) for d in dropped]


# --- random JSON of every shape ----------------------------------------------------------------

_KEYS = st.sampled_from(
    [
        "role", "content", "type", "text", "messages", "input", "contents", "parts", "choices",
        "message", "output", "candidates", "tool_calls", "function", "arguments", "id", "name",
        "usage", "tool_use_id", "call_id", "functionCall", "functionResponse", "args",
        "response", "image_url", "url", "source", "data", "inlineData", "mimeType", "thinking",
        "signature", "tools", "tool_choice", "stop", "finish_reason", "stop_reason", "status",
        "systemInstruction", "instructions", "reasoning_content", "index", "model",
        "max_tokens", "generationConfig", "toolConfig", "usageMetadata", "summary", "system",
        "is_error", "prompt_tokens_details", "cached_tokens", "thought", "annotations",
        "refusal", "parallel_tool_calls", "response_format", "text", "reasoning", "metadata",
    ]
)  # fmt: skip
_LEAVES = st.one_of(
    st.sampled_from(
        [
            "user", "assistant", "model", "tool", "system", "developer", "text", "tool_use",
            "tool_result", "image", "function", "function_call", "function_call_output",
            "message", "reasoning", "output_text", "input_text", "input_image", "image_url",
            "thinking", "base64", "auto", "required", "any", "ANY", "json_schema",
            "data:image/png;base64,QR==", "{}", '{"a":1}', "[1", "STOP", "completed",
        ]
    ),
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    st.text(max_size=4),
)  # fmt: skip
_JSON = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=5),
    max_leaves=25,
)
_TOP = st.dictionaries(
    st.sampled_from(["messages", "input", "contents", "choices", "output", "candidates",
                     "content", "usage", "model", "tools", "tool_choice", "system"]),
    _JSON,
    max_size=4,
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_TOP, _JSON), st.sampled_from(NAMES), st.sampled_from(["request", "response"]))
def test_random_json_gives_only_wire_errors(value: Any, name: str, kind: str) -> None:
    """Random JSON of every shape into every adapter's decoder, and whatever decodes into every
    adapter's encoder under both policies: only WireError subclasses are raised."""
    data = json.dumps(value).encode()
    adapter = providers.get(name)
    try:
        decoded = getattr(adapter, f"decode_{kind}")(data)
    except WireError:
        return
    for target in NAMES:
        for policy in ("error", "drop"):
            try:
                if kind == "request":
                    providers.get(target).encode_request(decoded, unsupported=policy)
                else:
                    providers.get(target).encode_response(
                        decoded, unsupported=policy, id="x", model="m"
                    )
            except WireError:
                pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=64), st.sampled_from(NAMES), st.sampled_from(["request", "response"]))
def test_random_bytes_give_only_wire_errors(data: bytes, name: str, kind: str) -> None:
    """Random bytes (invalid JSON, invalid UTF-8) into every decoder: only WireError."""
    with contextlib.suppress(WireError):
        getattr(providers.get(name), f"decode_{kind}")(data)
