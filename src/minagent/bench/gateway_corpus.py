"""The gateway bench's corpus: OpenAI Chat requests in, Anthropic responses and streams back.

- `requests`: hand-built OpenAI Chat Completions requests, one per shape a gateway meets that is
  hard to translate (`HAND_BUILT`: no ``max_tokens``, both token limits, ``"content": ""`` with
  tool calls, tool ids and names outside Anthropic's patterns, tool history without ``tools``, a
  prefill ending in whitespace, OpenAI-only ``metadata`` / ``tool_choice`` / custom tools, an
  image part with ``cache_control``, tool calls with ``index``, ``response_format``,
  ``reasoning_effort``, ``user``, ``stop``, ``parallel_tool_calls``, ...), then every recorded
  Chat request of the repository's ``tests/data`` (`RECORDED_REQUESTS`).
- `responses`: recorded Anthropic Messages responses (`RECORDED_RESPONSES`).
- `streams`: recorded Anthropic SSE streams (`RECORDED_STREAMS`; vercel/ai's ``.chunks.txt``
  files, one event's JSON per line, become the SSE bytes the API sends).
- `pair_requests` / `pair_responses` / `pair_streams`: for the tables of every ordered pair of
  the four formats, each source format's inputs: the Chat requests above, and the recorded
  requests, responses and streams of every format (`PAIR_REQUESTS`, `PAIR_RESPONSES`,
  `PAIR_STREAMS`).

Each item is ``(name, bytes)``; recorded ones are named by their path under ``tests/data``.
Without ``tests/data`` (an installed package) only the hand-built requests are there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .gateway_rules import TOOL_ID

__all__ = [
    "HAND_BUILT",
    "MAPPED",
    "PAIR_REQUESTS",
    "PAIR_RESPONSES",
    "PAIR_STREAMS",
    "RECORDED_REQUESTS",
    "RECORDED_RESPONSES",
    "RECORDED_STREAMS",
    "pair_requests",
    "pair_responses",
    "pair_streams",
    "requests",
    "responses",
    "sse_bytes",
    "streams",
]

_WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
_TIME: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
_ASK = {"role": "user", "content": "What is the weather in Paris?"}
_IMAGE = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
)


def _call(ident: str, name: str = "get_weather", args: str = '{"city": "Paris"}') -> dict[str, Any]:
    return {"id": ident, "type": "function", "function": {"name": name, "arguments": args}}


def _tool_turn(
    ident: str = "call_1", name: str = "get_weather", content: Any = None
) -> list[dict[str, Any]]:
    """A user question, an assistant tool call, its result."""
    return [
        _ASK,
        {"role": "assistant", "content": content, "tool_calls": [_call(ident, name)]},
        {"role": "tool", "tool_call_id": ident, "content": "18C, cloudy"},
    ]


def _req(messages: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    return {"model": "gpt-4.1", "messages": messages, **fields}


HAND_BUILT: dict[str, dict[str, Any]] = {
    "no_max_tokens": _req([{"role": "user", "content": "Say hello."}]),
    "max_completion_tokens": _req([{"role": "user", "content": "Hi"}], max_completion_tokens=256),
    "max_tokens_deprecated": _req([{"role": "user", "content": "Hi"}], max_tokens=512),
    "max_tokens_and_max_completion_tokens": _req(
        [{"role": "user", "content": "Hi"}], max_tokens=50, max_completion_tokens=300
    ),
    "empty_content_with_tool_calls": _req(_tool_turn(content=""), tools=[_WEATHER]),
    "null_content_with_tool_calls": _req(_tool_turn(content=None), tools=[_WEATHER]),
    "text_parts_with_tool_calls": _req(
        _tool_turn(content=[{"type": "text", "text": "Checking."}]), tools=[_WEATHER]
    ),
    "tool_id_functions_colon": _req(_tool_turn("functions.get_weather:0"), tools=[_WEATHER]),
    "tool_name_dotted": _req(
        _tool_turn("call_7", "weather.get"),
        tools=[{**_WEATHER, "function": {**_WEATHER["function"], "name": "weather.get"}}],
    ),
    "tool_name_slashed": _req(
        [{"role": "user", "content": "Open an issue"}],
        tools=[{**_WEATHER, "function": {**_WEATHER["function"], "name": "github/create_issue"}}],
        tool_choice={"type": "function", "function": {"name": "github/create_issue"}},
    ),
    "tool_history_without_tools": _req(
        [*_tool_turn(), {"role": "user", "content": "And in Rome?"}]
    ),
    "prefill_trailing_space": _req(
        [{"role": "user", "content": "Greet me."}, {"role": "assistant", "content": "Sure, "}]
    ),
    "prefill_trailing_newline": _req(
        [{"role": "user", "content": "JSON please"}, {"role": "assistant", "content": "Here:\n"}]
    ),
    "prefill_clean": _req(
        [{"role": "user", "content": "JSON please"}, {"role": "assistant", "content": "{"}]
    ),
    "metadata_extra_keys": _req(
        [{"role": "user", "content": "Hi"}],
        metadata={"trace_id": "t-81", "tenant": "acme"},
        store=True,
    ),
    "metadata_user_id": _req([{"role": "user", "content": "Hi"}], metadata={"user_id": "u-42"}),
    "tool_choice_allowed_tools": _req(
        [_ASK],
        tools=[_WEATHER, _TIME],
        tool_choice={
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "auto",
                "tools": [{"type": "function", "function": {"name": "get_weather"}}],
            },
        },
    ),
    "tool_choice_required": _req([_ASK], tools=[_WEATHER], tool_choice="required"),
    "tool_choice_none": _req([_ASK], tools=[_WEATHER], tool_choice="none"),
    "tool_choice_named": _req(
        [_ASK],
        tools=[_WEATHER],
        tool_choice={"type": "function", "function": {"name": "get_weather"}},
    ),
    "custom_tool": _req(
        [{"role": "user", "content": "Run print(1)"}],
        tools=[
            _WEATHER,
            {"type": "custom", "custom": {"name": "code_exec", "description": "Runs Python"}},
        ],
    ),
    "image_part_cache_control": _req(
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://example.com/cat.png"},
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            }
        ]
    ),
    "image_data_url_detail": _req(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": _IMAGE, "detail": "low"}},
                ],
            }
        ]
    ),
    "tool_calls_with_index": _req(
        [
            _ASK,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {**_call("call_a"), "index": 0},
                    {**_call("call_b", "get_time"), "index": 1},
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
            {"role": "tool", "tool_call_id": "call_b", "content": "14:05"},
        ],
        tools=[_WEATHER, _TIME],
    ),
    "parallel_tool_results": _req(
        [
            _ASK,
            {
                "role": "assistant",
                "content": "Two lookups.",
                "tool_calls": [_call("call_p1"), _call("call_p2", "get_time")],
            },
            {"role": "tool", "tool_call_id": "call_p1", "content": "18C"},
            {
                "role": "tool",
                "tool_call_id": "call_p2",
                "content": [{"type": "text", "text": "14:05"}],
            },
        ],
        tools=[_WEATHER, _TIME],
    ),
    "response_format_json_schema": _req(
        [{"role": "user", "content": "A city and its country."}],
        response_format={
            "type": "json_schema",
            "json_schema": {
                "name": "city",
                "strict": True,
                "schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
                    "required": ["city", "country"],
                    "additionalProperties": False,
                },
            },
        },
    ),
    "response_format_json_object": _req(
        [{"role": "user", "content": "Answer in JSON."}], response_format={"type": "json_object"}
    ),
    "reasoning_effort": _req(
        [{"role": "user", "content": "Prove there are infinitely many primes."}],
        reasoning_effort="high",
        max_completion_tokens=8000,
    ),
    "user": _req([{"role": "user", "content": "Hi"}], user="user-1234", max_tokens=100),
    "stop_string": _req([{"role": "user", "content": "Count"}], stop="\n\n", max_tokens=100),
    "stop_list": _req([{"role": "user", "content": "Count"}], stop=["END", "STOP"], max_tokens=100),
    "parallel_tool_calls_false": _req(
        [_ASK], tools=[_WEATHER, _TIME], parallel_tool_calls=False, max_tokens=200
    ),
    "strict_tool": _req(
        [_ASK],
        tools=[{**_WEATHER, "function": {**_WEATHER["function"], "strict": True}}],
        max_tokens=200,
    ),
    "sampling_options": _req(
        [{"role": "user", "content": "Hi"}],
        temperature=0.2,
        top_p=0.9,
        seed=7,
        frequency_penalty=0.5,
        presence_penalty=0.1,
        logprobs=True,
        n=1,
        max_tokens=64,
    ),
    "system_and_developer": _req(
        [
            {"role": "system", "content": "You are terse."},
            {"role": "developer", "content": "Answer in French."},
            {"role": "user", "content": "Hello"},
        ],
        max_tokens=64,
    ),
    "system_mid_conversation": _req(
        [
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi!"},
            {"role": "system", "content": "From now on, answer in German."},
            {"role": "user", "content": "How are you?"},
        ],
        max_tokens=64,
    ),
    "named_user": _req([{"role": "user", "name": "alice", "content": "Hi"}], max_tokens=64),
    "stream_with_usage": _req(
        [{"role": "user", "content": "Hi"}],
        stream=True,
        stream_options={"include_usage": True},
        max_tokens=64,
    ),
    "tool_result_then_user_text": _req(
        [*_tool_turn("call_9"), {"role": "user", "content": "Thanks, and tomorrow?"}],
        tools=[_WEATHER],
        max_tokens=300,
    ),
    "empty_user_content": _req(
        [{"role": "user", "content": ""}, {"role": "user", "content": "Hi"}], max_tokens=64
    ),
}
"""The hand-built requests, by name (all OpenAI Chat Completions bodies)."""

RECORDED_REQUESTS = (
    "provider-examples/openai/request_*.json",
    "provider-real/openai_chat/request_*.json",
    "provider-dialects/request_*.json",
)
"""Globs under ``tests/data`` of the recorded Chat requests (vendors' Chat dialects included)."""

RECORDED_RESPONSES = (
    "provider-examples/anthropic/response_*.json",
    "provider-real/anthropic/response_*.json",
)
RECORDED_STREAMS = (
    "provider-streams/anthropic/*.sse",
    "provider-real/anthropic/stream_*.sse",
    "provider-real/anthropic/stream_*.chunks.txt",
)


PAIR_REQUESTS: dict[str, tuple[str, ...]] = {
    "anthropic": (
        "provider-examples/anthropic/request_*.json",
        "provider-real/anthropic/request_*.json",
    ),
    "openai_responses": (
        "provider-examples-responses/request_*.json",
        "provider-real/openai_responses/request_*.json",
    ),
    "gemini": (
        "provider-examples-gemini/request_*.json",
        "provider-real/gemini/request_*.json",
    ),
}
"""Per source format other than OpenAI Chat (whose inputs are `requests`: hand-built and
recorded), the globs under ``tests/data`` of its recorded requests (vercel/ai's and
pydantic-ai's recordings, the SDKs' examples; see each folder's SOURCES.md)."""

PAIR_RESPONSES: dict[str, tuple[str, ...]] = {
    "anthropic": RECORDED_RESPONSES,
    "openai_chat": (
        "provider-examples/openai/response_*.json",
        "provider-real/openai_chat/response_*.json",
        "provider-dialects/response_*.json",
    ),
    "openai_responses": (
        "provider-examples-responses/response_*.json",
        "provider-real/openai_responses/response_*.json",
    ),
    "gemini": (
        "provider-examples-gemini/response_*.json",
        "provider-real/gemini/response_*.json",
    ),
}
"""Per source format, the globs under ``tests/data`` of its recorded responses (Chat: vendors'
Chat dialects included)."""


PAIR_STREAMS: dict[str, tuple[str, ...]] = {
    "anthropic": RECORDED_STREAMS,
    "openai_chat": (
        "provider-streams/openai/*.sse",
        "provider-real/openai_chat/stream_*.chunks.txt",
        "provider-dialects/stream_*.sse",
        "provider-dialects/stream_*.chunks.txt",
    ),
    "openai_responses": (
        "provider-examples-responses/stream_*.sse",
        "provider-real/openai_responses/stream_*.sse",
        "provider-real/openai_responses/stream_*.chunks.txt",
    ),
    "gemini": (
        "provider-examples-gemini/stream_*.sse",
        "provider-real/gemini/stream_*.sse",
        "provider-real/gemini/stream_*.chunks.txt",
    ),
}
"""Per source format, the globs under ``tests/data`` of its recorded streams."""


def pair_streams(data: Path | None) -> dict[str, list[tuple[str, bytes]]]:
    """The recorded streams of each source format (`PAIR_STREAMS`), as SSE bytes."""
    return {
        fmt: [(name, sse_bytes(path, fmt)) for name, path in _recorded(data, globs)]
        for fmt, globs in PAIR_STREAMS.items()
    }


def pair_requests(data: Path | None) -> dict[str, list[tuple[str, bytes]]]:
    """The requests of each source format, for the every-pair tables: OpenAI Chat's are
    `requests` (hand-built, then recorded), the others' their recordings (`PAIR_REQUESTS`)."""
    out = {"openai_chat": requests(data)}
    for fmt, globs in PAIR_REQUESTS.items():
        out[fmt] = [(name, path.read_bytes()) for name, path in _recorded(data, globs)]
    return out


def pair_responses(data: Path | None) -> dict[str, list[tuple[str, bytes]]]:
    """The recorded responses of each source format (`PAIR_RESPONSES`)."""
    return {
        fmt: [(name, path.read_bytes()) for name, path in _recorded(data, globs)]
        for fmt, globs in PAIR_RESPONSES.items()
    }


def _recorded(data: Path | None, globs: tuple[str, ...]) -> list[tuple[str, Path]]:
    if data is None:
        return []
    return [
        (str(path.relative_to(data)), path)
        for pattern in globs
        for path in sorted(data.glob(pattern))
    ]


def requests(data: Path | None) -> list[tuple[str, bytes]]:
    """The hand-built requests, then the recorded ones under ``data`` (``tests/data``)."""
    out = [(name, json.dumps(body).encode()) for name, body in HAND_BUILT.items()]
    return out + [(name, path.read_bytes()) for name, path in _recorded(data, RECORDED_REQUESTS)]


def responses(data: Path | None) -> list[tuple[str, bytes]]:
    """The recorded Anthropic responses under ``data``."""
    return [(name, path.read_bytes()) for name, path in _recorded(data, RECORDED_RESPONSES)]


def sse_bytes(path: Path, fmt: str = "anthropic") -> bytes:
    """A recorded stream of format ``fmt`` as the SSE bytes the API sends: ``.sse`` files as
    they are (with the closing blank line the SDK fixtures lack); a ``.chunks.txt`` file's lines
    (vercel/ai's: one event's JSON per line) each as ``data: <line>``, after ``event: <type>``
    for Anthropic and Responses (as those APIs send it), and ``data: [DONE]`` last for Chat."""
    raw = path.read_bytes()
    if path.name.endswith(".sse"):
        return raw if raw.endswith((b"\n\n", b"\r\n\r\n")) else raw.rstrip(b"\n") + b"\n\n"
    out = []
    for line in raw.splitlines():
        if line.strip():
            if fmt in ("anthropic", "openai_responses"):
                out.append(b"event: " + json.loads(line)["type"].encode() + b"\n")
            out.append(b"data: " + line + b"\n\n")
    if fmt == "openai_chat":
        out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def streams(data: Path | None) -> list[tuple[str, bytes]]:
    """The recorded Anthropic streams under ``data``, as SSE bytes."""
    return [(name, sse_bytes(path)) for name, path in _recorded(data, RECORDED_STREAMS)]


def _get(value: Any, *path: str | int) -> Any:
    for key in path:
        if isinstance(value, dict) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def _holds(value: Any, wanted: Any) -> bool:
    """Whether ``wanted`` is ``value`` or a value anywhere inside it."""
    if value == wanted:
        return True
    if isinstance(value, dict):
        return any(_holds(v, wanted) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, wanted) for v in value)
    return False


def _same_valid_id(out: Any) -> bool:
    ident = _get(out, "messages", 1, "content", -1, "id")
    return (
        isinstance(ident, str)
        and TOOL_ID.fullmatch(ident) is not None
        and _get(out, "messages", 2, "content", 0, "tool_use_id") == ident
    )


_SCHEMA = HAND_BUILT["response_format_json_schema"]["response_format"]["json_schema"]["schema"]

MAPPED: dict[str, tuple[str, Any]] = {
    "max_completion_tokens": (
        "max_completion_tokens -> max_tokens",
        lambda out: out.get("max_tokens") == 256,
    ),
    "max_tokens_and_max_completion_tokens": (
        "max_completion_tokens over the deprecated max_tokens",
        lambda out: out.get("max_tokens") == 300,
    ),
    "max_tokens_deprecated": ("max_tokens", lambda out: out.get("max_tokens") == 512),
    "user": (
        "user -> metadata.user_id",
        lambda out: _get(out, "metadata", "user_id") == "user-1234",
    ),
    "metadata_user_id": (
        "metadata.user_id kept",
        lambda out: _get(out, "metadata") == {"user_id": "u-42"},
    ),
    "stop_string": (
        "stop (string) -> stop_sequences",
        lambda out: out.get("stop_sequences") == ["\n\n"],
    ),
    "stop_list": (
        "stop (list) -> stop_sequences",
        lambda out: out.get("stop_sequences") == ["END", "STOP"],
    ),
    "reasoning_effort": (
        "reasoning_effort -> thinking or output_config.effort",
        lambda out: (
            _get(out, "thinking", "type") in ("enabled", "adaptive")
            or _get(out, "output_config", "effort") is not None
        ),
    ),
    "response_format_json_schema": (
        "response_format json_schema -> structured output (native or tool)",
        lambda out: _holds({k: v for k, v in out.items() if k != "messages"}, _SCHEMA),
    ),
    "parallel_tool_calls_false": (
        "parallel_tool_calls false -> disable_parallel_tool_use",
        lambda out: _get(out, "tool_choice", "disable_parallel_tool_use") is True,
    ),
    "tool_choice_required": (
        "tool_choice required -> any",
        lambda out: _get(out, "tool_choice", "type") == "any",
    ),
    "tool_choice_none": (
        "tool_choice none -> none",
        lambda out: _get(out, "tool_choice", "type") == "none",
    ),
    "tool_choice_named": (
        "tool_choice function -> tool",
        lambda out: _get(out, "tool_choice") == {"type": "tool", "name": "get_weather"},
    ),
    "strict_tool": ("tool strict kept", lambda out: _get(out, "tools", 0, "strict") is True),
    "tool_id_functions_colon": (
        "tool id rewritten to the pattern, the same in tool_use and tool_result",
        lambda out: _same_valid_id(out),
    ),
}
"""Hand-built requests whose option has a faithful Anthropic mapping: what it is, and a check
of the Anthropic request written for it (plain JSON in, True when the option arrived)."""
