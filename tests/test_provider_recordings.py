"""Every real recording in tests/data goes back to its own provider exactly (issue 25, "Done when").

Requests and responses: ``encode_X(decode_X(b))`` equals ``b`` as parsed JSON. Streams: the
accumulated response encodes to the provider's final object where the recording has one (Responses'
``response.completed``); otherwise its encoding is a fixed point of decode/encode. The recordings
come from public test suites (see each folder's SOURCES.md); ``NEWER`` pins, per file, the blocks
and keys newer than the catalog that it carries, by exact JSON path and value.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"

# Folder (relative to tests/data) -> the provider whose adapter the recordings belong to.
FOLDERS: dict[str, str] = {
    "provider-examples/anthropic": "anthropic",
    "provider-examples/openai": "openai_chat",
    "provider-examples-responses": "openai_responses",
    "provider-examples-gemini": "gemini",
    "provider-streams/anthropic": "anthropic",
    "provider-streams/openai": "openai_chat",
    "provider-dialects": "openai_chat",
    "provider-real/anthropic": "anthropic",
    "provider-real/openai_chat": "openai_chat",
    "provider-real/openai_responses": "openai_responses",
    "provider-real/gemini": "gemini",
}
NOT_RECORDINGS = {"SOURCES.md", "README.md"}
STREAM_SUFFIXES = (".sse", ".chunks.txt")
# Final-object events of a Responses stream: their "response" is the whole final body.
FINAL_EVENTS = {"response.completed", "response.incomplete", "response.failed"}


def _files() -> list[Path]:
    out: list[Path] = []
    for top in sorted(DATA.glob("provider-*")):
        out.extend(
            p
            for p in sorted(top.rglob("*"))
            if p.is_file() and p.name not in NOT_RECORDINGS and "licenses" not in p.parts
        )
    return out


def _rel(path: Path) -> str:
    return path.relative_to(DATA).as_posix()


def _provider(path: Path) -> str | None:
    return FOLDERS.get(path.parent.relative_to(DATA).as_posix())


def _kind(path: Path) -> str | None:
    if path.name.endswith(STREAM_SUFFIXES):
        return "stream"
    for kind in ("request", "response"):
        if path.name.startswith(kind + "_") and path.suffix == ".json":
            return kind
    return None


ALL = _files()
REQUESTS = [p for p in ALL if _kind(p) == "request"]
RESPONSES = [p for p in ALL if _kind(p) == "response"]
STREAMS = [p for p in ALL if _kind(p) == "stream"]


def _adapter(provider: str) -> ModuleType:
    return importlib.import_module(f"minagent.providers.{provider}")


def _stream_module(provider: str) -> ModuleType:
    return importlib.import_module(f"minagent.providers.{provider}_stream")


def _event_lines(path: Path) -> list[bytes]:
    """The JSON text of every event of a stream recording, in order ([DONE] left out)."""
    raw = path.read_bytes()
    if path.name.endswith(".chunks.txt"):
        return [line for line in raw.splitlines() if line.strip()]
    out = []
    for line in raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
        if line.startswith(b"data:"):
            value = line[5:].removeprefix(b" ")
            if value != b"[DONE]":
                out.append(value)
    return out


def _wire_bytes(path: Path, provider: str) -> bytes:
    """The recording as the SSE bytes the API sends.

    ``.sse`` files are the recorded bodies; one without its closing blank line (the Anthropic SDK
    fixtures) gets it. ``.chunks.txt`` files (vercel/ai) hold one event's JSON per line: each
    becomes ``data: <line>`` (after ``event: <type>`` for Anthropic and Responses, as those APIs
    send it), and a Chat stream ends with ``data: [DONE]``.
    """
    raw = path.read_bytes()
    if path.name.endswith(".sse"):
        return raw if raw.endswith((b"\n\n", b"\r\n\r\n", b"\r\r")) else raw + b"\n\n"
    out = []
    for line in _event_lines(path):
        if provider in ("anthropic", "openai_responses"):
            out.append(b"event: " + json.loads(line)["type"].encode() + b"\n")
        out.append(b"data: " + line + b"\n\n")
    if provider == "openai_chat":
        out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def _final_object(path: Path) -> Any:
    """The provider's own final response object carried by the stream, or None."""
    for line in reversed(_event_lines(path)):
        event = json.loads(line)
        if isinstance(event, dict) and event.get("type") in FINAL_EVENTS:
            return event["response"]
    return None


# --- discovery --------------------------------------------------------------------------------


def test_every_recording_is_classified() -> None:
    """Every file under tests/data/provider-* is a request, response or stream of a provider."""
    unclassified = [_rel(p) for p in ALL if _provider(p) is None or _kind(p) is None]
    assert unclassified == []


def test_recording_counts() -> None:
    """The discovered set: requests, responses and streams per provider, old and new folders."""
    counts: dict[tuple[str, str], int] = {}
    for p in ALL:
        key = (str(_provider(p)), str(_kind(p)))
        counts[key] = counts.get(key, 0) + 1
    assert counts == {
        ("anthropic", "request"): 12,
        ("anthropic", "response"): 14,
        ("anthropic", "stream"): 10,
        ("openai_chat", "request"): 21,
        ("openai_chat", "response"): 31,
        ("openai_chat", "stream"): 23,
        ("openai_responses", "request"): 13,
        ("openai_responses", "response"): 16,
        ("openai_responses", "stream"): 10,
        ("gemini", "request"): 12,
        ("gemini", "response"): 12,
        ("gemini", "stream"): 8,
    }


def test_every_folder_has_sources_and_license() -> None:
    """Each top-level data folder names its sources and carries the upstream license texts."""
    for top in sorted(DATA.glob("provider-*")):
        sources = (top / "SOURCES.md").read_text(encoding="utf-8")
        licenses = sorted((top / "licenses").glob("*.LICENSE"))
        assert licenses, top.name
        for lic in licenses:
            assert f"licenses/{lic.name}" in sources, (top.name, lic.name)


def test_new_recordings_are_listed_in_sources() -> None:
    """Every file in the new folders has its row in its folder's SOURCES.md."""
    for top in ("provider-dialects", "provider-real"):
        sources = (DATA / top / "SOURCES.md").read_text(encoding="utf-8")
        missing = [
            _rel(p) for p in ALL if _rel(p).startswith(top + "/") and
            f"`{p.relative_to(DATA / top).as_posix()}`" not in sources
        ]  # fmt: skip
        assert missing == []


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", REQUESTS, ids=_rel)
def test_request_round_trips(path: Path) -> None:
    """A recorded request decodes and encodes back to the same JSON through its own adapter."""
    adapter = _adapter(str(_provider(path)))
    data = path.read_bytes()
    assert json.loads(adapter.encode_request(adapter.decode_request(data))) == json.loads(data)


@pytest.mark.parametrize("path", RESPONSES, ids=_rel)
def test_response_round_trips(path: Path) -> None:
    """A recorded response decodes and encodes back to the same JSON through its own adapter."""
    adapter = _adapter(str(_provider(path)))
    data = path.read_bytes()
    assert json.loads(adapter.encode_response(adapter.decode_response(data))) == json.loads(data)


@pytest.mark.parametrize("path", STREAMS, ids=_rel)
def test_stream_accumulates_to_its_final_object(path: Path) -> None:
    """A stream's accumulated response encodes to its final object, else to a fixed point."""
    provider = str(_provider(path))
    adapter = _adapter(provider)
    response = _stream_module(provider).accumulate([_wire_bytes(path, provider)])
    body = adapter.encode_response(response)
    final = _final_object(path)
    if final is not None:
        assert json.loads(body) == final
    else:
        again = adapter.encode_response(adapter.decode_response(body))
        assert json.loads(again) == json.loads(body)


def _expected_outline(path: Path, provider: str) -> Any:
    """What the recorded events say the final response holds, read off the events alone:
    Anthropic's started block types in order and its last stop reason; each Chat choice's text
    (its ``content`` deltas' text joined, `_chat_text`) and finish reason (compared only where
    the events name one); Gemini as `_gemini_outline`. Guards against content lost silently."""
    events = [json.loads(line) for line in _event_lines(path)]
    if provider == "anthropic":
        starts = {e["index"]: e["content_block"]["type"] for e in events
                  if e.get("type") == "content_block_start"}  # fmt: skip
        stops = [e["delta"]["stop_reason"] for e in events if e.get("type") == "message_delta"]
        return [starts[i] for i in sorted(starts)], stops[-1]
    if provider == "gemini":
        return _gemini_outline(events)
    choices: dict[int, list[Any]] = {}
    for event in events:
        for choice in event.get("choices") or []:
            text, finish = choices.setdefault(choice["index"], ["", None])
            content = (choice.get("delta") or {}).get("content")
            choices[choice["index"]] = [
                text + _chat_text(content),
                choice.get("finish_reason") or finish,
            ]
    return choices


def _chat_text(content: Any) -> str:
    """The answer text of Chat content: a string, or the ``text`` parts of a list (Mistral sends
    thinking and text parts as lists); other parts carry no answer text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if p.get("type") == "text")
    return ""


def _gemini_outline(chunks: list[Any]) -> dict[int, list[Any]]:
    """Per candidate: its answer text (non-thought text parts joined), its thought text, and the
    last finish reason."""
    out: dict[int, list[Any]] = {}
    for chunk in chunks:
        for candidate in chunk.get("candidates") or []:
            entry = out.setdefault(candidate.get("index", 0), ["", "", None])
            for part in (candidate.get("content") or {}).get("parts") or []:
                if isinstance(part.get("text"), str):
                    entry[1 if part.get("thought") else 0] += part["text"]
            entry[2] = candidate.get("finishReason", entry[2])
    return out


def _outline(body: dict[str, Any], provider: str) -> Any:
    if provider == "gemini":
        return _gemini_outline([body])
    if provider == "anthropic":
        return [b["type"] for b in body["content"]], body["stop_reason"]
    return {
        c["index"]: [_chat_text(c["message"].get("content")), c["finish_reason"]]
        for c in body["choices"]
    }


OUTLINED = [p for p in STREAMS if _provider(p) in ("anthropic", "openai_chat", "gemini")]


@pytest.mark.parametrize("path", OUTLINED, ids=_rel)
def test_stream_keeps_what_its_events_say(path: Path) -> None:
    """The accumulated response holds what the events say it holds (see `_expected_outline`)."""
    provider = str(_provider(path))
    response = _stream_module(provider).accumulate([_wire_bytes(path, provider)])
    body = json.loads(_adapter(provider).encode_response(response))
    expected = _expected_outline(path, provider)
    got = _outline(body, provider)
    if provider == "openai_chat":  # a choice whose events never name a finish reason pins none
        for index, (_, finish) in expected.items():
            if finish is None and index in got:
                got[index][1] = None
    assert got == expected


def _response_ids(path: Path, provider: str) -> set[Any]:
    events = [json.loads(line) for line in _event_lines(path)]
    if provider == "anthropic":
        return {e["message"]["id"] for e in events if e.get("type") == "message_start"}
    if provider == "openai_responses":
        return {e["response"]["id"] for e in events if e.get("type") == "response.created"}
    if provider == "gemini":
        return {e.get("responseId") for e in events}
    return {e.get("id") for e in events if e.get("choices")}


@pytest.mark.parametrize("path", STREAMS, ids=_rel)
def test_each_stream_is_one_response(path: Path) -> None:
    """A stream recording is one response, not several agent steps concatenated."""
    assert len(_response_ids(path, str(_provider(path)))) == 1


def test_streams_with_a_final_object() -> None:
    """The streams whose recording carries the provider's final object (compared exactly)."""
    assert [_rel(p) for p in STREAMS if _final_object(p) is not None] == [
        "provider-examples-responses/stream_function_call.sse",
        "provider-examples-responses/stream_reasoning_web_search.sse",
        "provider-examples-responses/stream_text.sse",
        "provider-real/openai_responses/stream_azure_content_filters.chunks.txt",
        "provider-real/openai_responses/stream_compaction.sse",
        "provider-real/openai_responses/stream_custom_tool.chunks.txt",
        "provider-real/openai_responses/stream_moderation.sse",
        "provider-real/openai_responses/stream_phase.chunks.txt",
        "provider-real/openai_responses/stream_reasoning_encrypted_content.sse",
        "provider-real/openai_responses/stream_shell_container.chunks.txt",
    ]


# --- newer than the catalog -------------------------------------------------------------------

# File -> (event index or None for a whole body, dotted JSON path, exact value) of the blocks and
# keys it carries that are newer than the catalog (PROTOCOL.md's provider catalog, version 1.1).
# ``Prefix("...")`` stands for a long opaque string (a signature, an encrypted blob) by its start.


class Prefix(str):
    """An expected string given by its first characters."""


_MISTRAL_CALL = {"id": "gSIMJiOkT", "function": {"name": "weather",
                 "arguments": '{"location": "San Francisco"}'}}  # no "type"  # fmt: skip

NEWER: dict[str, list[tuple[int | None, str, Any]]] = {
    # OpenAI-compatible dialects (openai_chat)
    "provider-dialects/request_cerebras_reasoning_replay.json": [
        (None, "messages.1.reasoning", Prefix("User asks simple"))],
    "provider-dialects/request_crusoe_reasoning_tool_call.json": [
        (None, "messages.1.reasoning", Prefix("The user wants to know the weather in Paris")),
        (None, "messages.1.tool_calls.0.id", "chatcmpl-tool-bbb91941bf76335c")],
    "provider-dialects/request_deepseek_reasoning_content_replay.json": [
        (None, "messages.3.reasoning_content", Prefix("The user wants to play a dice game"))],
    "provider-dialects/request_mistral_tool_call_index_prefix.json": [
        (None, "messages.1.prefix", False), (None, "messages.1.content", []),
        (None, "messages.1.tool_calls.0.index", 0)],
    "provider-dialects/request_openrouter_cache_control_messages.json": [
        (None, "messages.3.content.0.cache_control", {"ttl": "5m", "type": "ephemeral"})],
    "provider-dialects/request_openrouter_cache_control_text_parts.json": [
        (None, "messages.0.content.0.type", "text"),
        (None, "messages.0.content.0.cache_control", {"ttl": "1h", "type": "ephemeral"})],
    "provider-dialects/request_openrouter_cache_control_tool.json": [
        (None, "tools.0.cache_control", {"ttl": "5m", "type": "ephemeral"})],
    "provider-dialects/request_snowflake_reasoning_details_replay.json": [
        (None, "messages.1.reasoning_details.0.type", "reasoning.text"),
        (None, "messages.1.reasoning_details.0.signature", Prefix("EvABCmcIDxABGAIqQFM/"))],
    "provider-dialects/request_zai_reasoning_content_replay.json": [
        (None, "messages.1.reasoning_content", Prefix("\nThe user is asking for the product")),
        (None, "thinking", {"clear_thinking": False, "type": "enabled"})],
    "provider-dialects/response_openrouter_cache_usage.json": [
        (None, "choices.0.native_finish_reason", "stop"), (None, "usage.cost", 0.00219855)],
    "provider-dialects/response_snowflake_reasoning_details.json": [
        (None, "choices.0.message.reasoning_details.0.format", "anthropic-claude-v1")],
    "provider-dialects/response_zai_reasoning_content.json": [
        (None, "choices.0.message.reasoning_content", Prefix("\n1.  **Identify the user"))],
    "provider-dialects/stream_snowflake_thinking.sse": [
        (0, "choices.0.delta.reasoning_details.0.text", "15")],
    "provider-dialects/stream_zai_thinking.sse": [(0, "choices.0.delta.reasoning_content", "\n1")],
    "provider-dialects/request_openrouter_reasoning_option.json": [
        (None, "reasoning", {"effort": "high", "enabled": True})],
    "provider-dialects/response_alibaba_reasoning_content.json": [
        (None, "choices.0.message.reasoning_content", Prefix("We are asked: \"How many 'r's"))],
    "provider-dialects/response_alibaba_tool_call_index.json": [
        (None, "choices.0.message.tool_calls.0.index", 0)],
    "provider-dialects/response_azure_content_filter_results.json": [
        (None, "prompt_filter_results.0.content_filter_results.jailbreak",
         {"detected": False, "filtered": False}),
        (None, "choices.0.content_filter_results.protected_material_code",
         {"detected": False, "filtered": False})],
    "provider-dialects/response_azure_content_filter_reasoning.json": [
        (None, "prompt_filter_results", None), (None, "choices.0.content_filter_results", {}),
        (None, "choices.0.message.reasoning_content", Prefix("We need to invent a new holiday"))],
    "provider-dialects/response_deepseek_reasoning_content.json": [
        (None, "choices.0.message.reasoning_content", Prefix("We are asked: \"How many 'r's")),
        (None, "usage.prompt_cache_hit_tokens", 0)],
    "provider-dialects/response_deepseek_tool_call_index.json": [
        (None, "choices.0.message.tool_calls.0.index", 0),
        (None, "choices.0.message.reasoning_content", Prefix("The user is asking for"))],
    "provider-dialects/response_groq_reasoning_x_groq.json": [
        (None, "x_groq", {"id": "req_01kh52n6v2fr2b5m32125xqb7b", "seed": 1186842417}),
        (None, "usage_breakdown", None),
        (None, "choices.0.message.reasoning", Prefix("Okay, so the user is asking"))],
    "provider-dialects/response_groq_tool_call.json": [
        (None, "x_groq", {"id": "req_01kh52madzem68scv0bcz3vm00", "seed": 1790130236})],
    "provider-dialects/response_groq_web_search.json": [
        (None, "x_groq", {"id": "stub"}),
        (None, "choices.0.message.executed_tools.0.type", "search")],
    "provider-dialects/response_mistral_reasoning.json": [
        (None, "choices.0.message.content.0.type", "thinking"),
        (None, "choices.0.message.content.0.thinking.0.type", "text")],
    "provider-dialects/response_mistral_text.json": [(None, "choices.0.message.tool_calls", None)],
    "provider-dialects/response_mistral_tool_call_no_type.json": [
        (None, "choices.0.message.tool_calls.0", _MISTRAL_CALL)],
    "provider-dialects/response_moonshotai_reasoning_content.json": [
        (None, "choices.0.message.reasoning_content", "Let me count the letters carefully."),
        (None, "usage.cached_tokens", 10)],
    "provider-dialects/response_nebius_reasoning_content.json": [
        (None, "choices.0.message.reasoning_content", None),
        (None, "choices.0.message.annotations", None)],
    "provider-dialects/response_openrouter_annotations.json": [
        (None, "choices.0.message.annotations.0.type", "url_citation"),
        (None, "provider", "OpenAI")],
    "provider-dialects/response_openrouter_reasoning_details.json": [
        (None, "choices.0.message.reasoning", Prefix("1.  **Deconstruct the User's Prompt:**")),
        (None, "choices.0.message.reasoning_details.0.format", "unknown"),
        (None, "provider", "BaseTen")],
    "provider-dialects/response_perplexity_citations.json": [
        (None, "citations.0", "https://populationstat.com/united-states/san-francisco")],
    "provider-dialects/response_perplexity_text.json": [
        (None, "citations.0", Prefix("https://www.modernchristmastrees.com/"))],
    "provider-dialects/response_xai_reasoning_content.json": [
        (None, "choices.0.message.reasoning_content", Prefix("First, the user said")),
        (None, "usage.cost_in_usd_ticks", 1641500)],
    "provider-dialects/response_xai_tool_call.json": [
        (None, "choices.0.message.reasoning_content", Prefix("First, the user is asking")),
        (None, "usage.cost_in_usd_ticks", 1777000)],
    "provider-dialects/stream_alibaba_tool_call.chunks.txt": [
        (1, "choices.0.delta.tool_calls.0.id", ""), (1, "choices.0.delta.tool_calls.0.index", 0)],
    "provider-dialects/stream_azure_content_filter.chunks.txt": [
        (0, "choices", []), (0, "prompt_filter_results.0.prompt_index", 0),
        (1, "obfuscation", "D3WbtIxo1Q2j1Q")],
    "provider-dialects/stream_deepseek_reasoning.sse": [
        (1, "choices.0.delta.reasoning_content", "H")],
    "provider-dialects/stream_deepseek_tool_call.chunks.txt": [
        (0, "choices.0.delta.reasoning_content", "")],
    "provider-dialects/stream_groq_reasoning.sse": [
        (0, "x_groq", {"id": "req_01k5csb2e4eskv0qcffjqbscqj"})],
    "provider-dialects/stream_groq_tool_call.chunks.txt": [
        (0, "x_groq", {"id": "req_01kh52nj5yfcat8hrmvrk2j2hj", "seed": 689520654})],
    "provider-dialects/stream_mistral_incremental_tool_call.chunks.txt": [
        (0, "choices.0.delta.index", 0), (1, "choices.0.delta.tool_calls.0.function.name", "")],
    "provider-dialects/stream_mistral_reasoning.chunks.txt": [
        (0, "choices.0.delta.content.0.type", "thinking")],
    "provider-dialects/stream_mistral_thinking.sse": [
        (2, "choices.0.delta.content.0.type", "thinking")],
    "provider-dialects/stream_mistral_tool_call.chunks.txt": [
        (1, "choices.0.delta.tool_calls.0", _MISTRAL_CALL)],
    "provider-dialects/stream_moonshotai.chunks.txt": [
        (0, "choices.0.delta.reasoning_content", "Thinking ")],
    "provider-dialects/stream_openrouter_annotations.sse": [
        (0, "choices.0.delta.annotations.0.type", "url_citation"), (0, "provider", "OpenAI")],
    "provider-dialects/stream_openrouter_reasoning.sse": [
        (0, "choices.0.delta.reasoning_details", []), (0, "provider", "Google")],
    "provider-dialects/stream_perplexity_citations.chunks.txt": [
        (0, "citations.0", "https://populationstat.com/united-states/san-francisco")],
    "provider-dialects/stream_xai_tool_call.chunks.txt": [
        (0, "choices.0.delta.reasoning_content", "First")],
    # Anthropic
    "provider-real/anthropic/request_advisor_replay.json": [
        (None, "messages.1.content.3.type", "advisor_tool_result")],
    "provider-real/anthropic/request_compaction_replay.json": [
        (None, "messages.1.content.0.type", "compaction"),
        (None, "context_management.edits.0.trigger", {"type": "input_tokens", "value": 50000})],
    "provider-real/anthropic/request_container_reuse.json": [
        (None, "container", "container_011Caqgq9X3d68B2So2LZGmk")],
    "provider-real/anthropic/request_tool_addition.json": [
        (None, "messages.3.content.0.type", "tool_addition"),
        (None, "messages.3.content.0.tool.type", "tool_reference")],
    "provider-real/anthropic/request_tool_reference_in_tool_result.json": [
        (None, "messages.4.content.0.type", "tool_result"),
        (None, "messages.4.content.0.content.0.type", "tool_reference")],
    "provider-real/anthropic/response_advisor_tool_result.json": [
        (None, "content.1.type", "advisor_tool_result"), (None, "stop_details", None),
        (None, "usage.inference_geo", "global")],
    "provider-real/anthropic/response_compaction.json": [
        (None, "content.0.type", "compaction"), (None, "context_management", {"applied_edits": []}),
        (None, "usage.iterations.0.input_tokens", 60385)],
    "provider-real/anthropic/response_container.json": [
        (None, "container.id", "container_011CU6rVteVhydYXRyNs6G1M")],
    "provider-real/anthropic/response_context_management.json": [
        (None, "context_management", {"applied_edits": []}),
        (None, "usage.inference_geo", "not_available")],
    "provider-real/anthropic/response_fallback.json": [
        (None, "content.0.type", "fallback"), (None, "usage.iterations.0.model", "claude-fable-5")],
    "provider-real/anthropic/response_output_tokens_details.json": [
        (None, "usage.output_tokens_details", {"thinking_tokens": 139}),
        (None, "stop_details", None)],
    "provider-real/anthropic/response_tool_search_tool_reference.json": [
        (None, "content.2.content.tool_references.0.type", "tool_reference")],
    "provider-real/anthropic/stream_advisor.chunks.txt": [
        (6, "content_block.type", "advisor_tool_result"), (0, "message.stop_details", None)],
    "provider-real/anthropic/stream_compaction.chunks.txt": [
        (1, "content_block.type", "compaction"), (3, "delta.type", "compaction_delta"),
        (747, "context_management", {"applied_edits": []})],
    "provider-real/anthropic/stream_compaction_usage.sse": [
        (1, "content_block.type", "compaction"), (3, "delta.type", "compaction_delta"),
        (10, "context_management", {"applied_edits": []})],
    "provider-real/anthropic/stream_container.chunks.txt": [
        (48, "delta.container.id", "container_011CYgdezfe66pcmCprMd28x"),
        (1, "content_block.caller", {"type": "direct"})],
    "provider-real/anthropic/stream_context_management.chunks.txt": [
        (20, "context_management", {"applied_edits": []})],
    "provider-real/anthropic/stream_fallback.chunks.txt": [(1, "content_block.type", "fallback")],
    # OpenAI Chat
    "provider-real/openai_chat/request_file_part.json": [
        (None, "messages.0.content.1.type", "file"),
        (None, "messages.0.content.1.file.file_data", Prefix("data:application/pdf;base64,"))],
    "provider-real/openai_chat/request_input_audio.json": [
        (None, "messages.0.content.1.type", "input_audio"),
        (None, "messages.0.content.1.input_audio.format", "mp3")],
    "provider-real/openai_chat/request_prompt_cache_key.json": [
        (None, "prompt_cache_key", "pydantic-ai-prompt-cache-e2e-chat"),
        (None, "messages.0.content.0.prompt_cache_breakpoint", {"mode": "explicit"})],
    "provider-real/openai_chat/request_reasoning_effort.json": [(None, "reasoning_effort", "high")],
    "provider-real/openai_chat/request_web_search_options.json": [
        (None, "web_search_options", {"search_context_size": "low"})],
    "provider-real/openai_chat/response_annotations_service_tier.json": [
        (None, "choices.0.message.annotations", []), (None, "service_tier", "default"),
        (None, "usage.completion_tokens_details.accepted_prediction_tokens", 0)],
    "provider-real/openai_chat/response_moderation.json": [
        (None, "moderation.input.type", "moderation_results")],
    "provider-real/openai_chat/response_reasoning_tokens.json": [
        (None, "usage.completion_tokens_details.reasoning_tokens", 1792),
        (None, "choices.0.message.annotations", [])],
    "provider-real/openai_chat/response_web_search_annotations.json": [
        (None, "model", "gpt-4o-search-preview-2025-03-11"),
        (None, "choices.0.message.annotations", []),
        (None, "usage.completion_tokens_details.rejected_prediction_tokens", 0)],
    "provider-real/openai_chat/stream_text_obfuscation.chunks.txt": [
        (0, "obfuscation", "Qup1BsQ3"), (0, "service_tier", "default")],
    # OpenAI Responses
    "provider-real/openai_responses/request_code_interpreter_replay.json": [
        (None, "input.1.encrypted_content", Prefix("gAAAAABozcObDtILWy0NV2ScSSNv")),
        (None, "input.2.type", "code_interpreter_call")],
    "provider-real/openai_responses/request_compaction_replay.json": [
        (None, "input.0.type", "compaction"),
        (None, "input.0.encrypted_content", Prefix("gAAAAABpzfWE_k5OtOa3sTEbupue"))],
    "provider-real/openai_responses/response_azure_content_filters.json": [
        (None, "content_filters", None),
        (None, "output.0.encrypted_content", Prefix("gAAAAABpPLg7YtHo-XROa4SQaGVD"))],
    "provider-real/openai_responses/response_azure_content_filters_text.json": [
        (None, "content_filters.0.source_type", "prompt"),
        (None, "content_filters.1.source_type", "completion")],
    "provider-real/openai_responses/response_compaction.json": [
        (None, "output.1.type", "compaction"), (None, "completed_at", 1771353083)],
    "provider-real/openai_responses/response_custom_tool.json": [
        (None, "output.0.type", "custom_tool_call")],
    "provider-real/openai_responses/response_phase.json": [(None, "output.0.phase", "commentary")],
    "provider-real/openai_responses/response_reasoning_encrypted_content.json": [
        (None, "output.0.encrypted_content", Prefix("gAAAAABpPMlcH0HHEv5_ozHwP5Gx")),
        (None, "prompt_cache_retention", None)],
    "provider-real/openai_responses/response_shell_container.json": [
        (None, "output.0.type", "shell_call"), (None, "output.1.type", "shell_call_output")],
    "provider-real/openai_responses/response_tool_search.json": [
        (None, "output.0.type", "tool_search_call"), (None, "output.1.type", "tool_search_output")],
    "provider-real/openai_responses/stream_azure_content_filters.chunks.txt": [
        (0, "response.content_filters", None),
        (8, "response.content_filters.1.source_type", "completion")],
    "provider-real/openai_responses/stream_compaction.sse": [
        (0, "response.prompt_cache_retention", None), (0, "response.completed_at", None)],
    "provider-real/openai_responses/stream_custom_tool.chunks.txt": [
        (2, "item.type", "custom_tool_call"), (3, "type", "response.custom_tool_call_input.delta")],
    "provider-real/openai_responses/stream_phase.chunks.txt": [(2, "item.phase", "commentary")],
    "provider-real/openai_responses/stream_moderation.sse": [
        (0, "response.moderation", None), (0, "response.prompt_cache_retention", "in_memory"),
        (2, "item.encrypted_content", Prefix("gAAAAABqX6NTF9B3VMwzG1Wl"))],
    "provider-real/openai_responses/stream_reasoning_encrypted_content.sse": [
        (2, "item.type", "reasoning"),
        (2, "item.encrypted_content", Prefix("gAAAAABoyXusnBzv6TRLFFsi"))],
    "provider-real/openai_responses/stream_shell_container.chunks.txt": [
        (2, "item.type", "shell_call"), (15, "item.type", "shell_call_output")],
    # Gemini
    "provider-real/gemini/request_file_search_thought_signature.json": [
        (None, "tools.0.fileSearch.file_search_store_names.0",
         Prefix("fileSearchStores/testfilesearchgrounding-")),
        (None, "contents.1.parts.0.thoughtSignature", Prefix("Ep8ECpwECAISlwQBDDnWx3nx"))],
    "provider-real/gemini/request_google_search_with_functions.json": [
        (None, "tools.0.googleSearch", {}),
        (None, "toolConfig.functionCallingConfig", {"mode": "AUTO"})],
    "provider-real/gemini/request_image_config.json": [
        (None, "generationConfig.imageConfig.imageOutputOptions",
         {"compressionQuality": 85, "mimeType": "image/jpeg"})],
    "provider-real/gemini/request_response_json_schema.json": [
        (None, "generationConfig.responseJsonSchema.properties.amount.anyOf.0",
         {"type": "number"})],
    "provider-real/gemini/request_tool_call_thought_signature.json": [
        (None, "contents.1.parts.0.thoughtSignature", Prefix("EpwICpkIAXLI2nxlU6gsWZaZ"))],
    "provider-real/gemini/request_url_context.json": [(None, "tools.0.urlContext", {})],
    "provider-real/gemini/response_grounding_file_search.json": [
        (None, "candidates.0.groundingMetadata.groundingChunks.0.retrievedContext.fileSearchStore",
         Prefix("fileSearchStores/")),
        (None, "usageMetadata.toolUsePromptTokenCount", 288)],
    "provider-real/gemini/response_grounding_web_search.json": [
        (None, "candidates.0.groundingMetadata.groundingChunks.0.web.title",
         Prefix("Weather information for San Francisco")),
        (None, "usageMetadata.toolUsePromptTokenCount", 119)],
    "provider-real/gemini/response_thought_signature_gemini3.json": [
        (None, "candidates.0.content.parts.0.thoughtSignature", Prefix("EswFCskFAb4+9vu5+eCedpmc")),
        (None, "usageMetadata.promptTokensDetails", [{"modality": "TEXT", "tokenCount": 9}])],
    "provider-real/gemini/response_tool_call_gemini3.json": [
        (None, "candidates.0.content.parts.0.thoughtSignature", Prefix("Eqo+Cqc+Ab4+9vtg"))],
    "provider-real/gemini/response_url_context.json": [
        (None, "candidates.0.urlContextMetadata.urlMetadata.0.retrievedUrl", "https://ai.pydantic.dev"),
        (None, "usageMetadata.toolUsePromptTokenCount", 2395)],
    "provider-real/gemini/response_vertex_grounding.json": [
        (None, "candidates.0.groundingMetadata", {}),
        (None, "usageMetadata.trafficType", "ON_DEMAND"),
        (None, "createTime", "2026-06-15T18:18:30.977177Z")],
    "provider-real/gemini/response_vertex_tool_combination.json": [
        (None, "candidates.0.groundingMetadata.groundingChunks.0.web.title", "google.com"),
        (None, "usageMetadata.candidatesTokensDetails", [{"modality": "TEXT", "tokenCount": 250}])],
    "provider-real/gemini/stream_service_tier_flex.sse": [
        (0, "usageMetadata.trafficType", "ON_DEMAND_FLEX")],
    "provider-real/gemini/stream_thought_signature.sse": [
        (0, "candidates.0.content.parts.0.thoughtSignature", Prefix("EpwICpkIAXLI2nxlU6gsWZaZ"))],
    "provider-real/gemini/stream_tool_call_gemini3.chunks.txt": [
        (0, "candidates.0.content.parts.0.thoughtSignature", Prefix("EpEgCo4gAb4+9vvWwdN+NkNi"))],
    "provider-real/gemini/stream_vertex_partial_args.chunks.txt": [
        (0, "candidates.0.content.parts.0.functionCall.willContinue", True),
        (1, "candidates.0.content.parts.0.functionCall.partialArgs.0.jsonPath",
         "$.recipe.ingredients[0].amount")],
    "provider-real/gemini/stream_web_search.sse": [
        (0, "candidates.0.groundingMetadata", {}),
        (0, "usageMetadata.toolUsePromptTokenCount", 102)],
}  # fmt: skip


def _at(value: Any, path: str) -> Any:
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _objects(path: Path) -> list[Any]:
    if _kind(path) == "stream":
        return [json.loads(line) for line in _event_lines(path)]
    return [json.loads(path.read_bytes())]


@pytest.mark.parametrize("name", sorted(NEWER), ids=str)
def test_newer_than_catalog_features_are_there(name: str) -> None:
    """Each listed newer block or key sits at its path with its recorded value."""
    objects = _objects(DATA / name)
    for index, where, expected in NEWER[name]:
        got = _at(objects[0 if index is None else index], where)
        if type(expected) is Prefix:
            assert isinstance(got, str) and got.startswith(expected), (index, where, got)
        else:
            assert got == expected, (index, where)


def test_newer_than_catalog_counts() -> None:
    """At least five newer-than-catalog recordings per provider; the numbers added are pinned."""
    per_provider: dict[str, int] = {}
    per_folder: dict[tuple[str, str], int] = {}
    for name in NEWER:
        provider = str(_provider(DATA / name))
        per_provider[provider] = per_provider.get(provider, 0) + 1
        key = (name.split("/")[0], provider)
        per_folder[key] = per_folder.get(key, 0) + 1
    assert min(per_provider.values()) >= 5
    assert per_folder == {
        ("provider-dialects", "openai_chat"): 50,
        ("provider-real", "anthropic"): 18,
        ("provider-real", "openai_chat"): 10,
        ("provider-real", "openai_responses"): 17,
        ("provider-real", "gemini"): 18,
    }


# Recordings added for their shape rather than new keys: the exact role sequence of their
# messages (consecutive same-role messages must stay separate).
SHAPES: dict[str, tuple[str, list[str]]] = {
    "provider-real/anthropic/request_consecutive_user_messages.json": (
        "messages", ["user", "user"]),
    "provider-real/anthropic/request_mid_conversation_system.json": (
        "messages", ["user", "assistant", "user", "user", "system", "system"]),
    "provider-real/openai_chat/request_consecutive_user_messages.json": (
        "messages", ["user", "user"]),
    "provider-real/openai_responses/request_consecutive_assistant_messages.json": (
        "input", ["user", "assistant", "assistant", "user"]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SHAPES), ids=str)
def test_shape_recordings_have_their_roles(name: str) -> None:
    """Each shape recording has exactly the pinned role sequence."""
    key, roles = SHAPES[name]
    body = json.loads((DATA / name).read_bytes())
    assert [m["role"] for m in body[key]] == roles


def test_every_new_recording_is_pinned() -> None:
    """Every file added in provider-dialects and provider-real is in NEWER or SHAPES."""
    new = ("provider-dialects/", "provider-real/")
    added = sorted(_rel(p) for p in ALL if _rel(p).startswith(new))
    assert added == sorted([*NEWER, *SHAPES])
    assert not set(NEWER) & set(SHAPES)
