"""The server-side rules each target API enforces on a request body, checked explicitly (not by
our encoder's code): what docs/providers.md ("Rules the target enforces") lists, with sources.

`anthropic_violations(body)` and `gemini_violations(body)` return one line per broken rule
(empty: the body passes), for tests and the gateway bench alike.
"""

from __future__ import annotations

import re
from typing import Any

from anthropic.types import message_create_params as mcp

ID = re.compile(r"[a-zA-Z0-9_-]+")
NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_PARAMS = mcp.MessageCreateParamsNonStreaming
ANTHROPIC_KEYS = (
    _PARAMS.__required_keys__
    | _PARAMS.__optional_keys__
    | {
        "stream",
        "temperature",
        "top_k",
        "top_p",
    }
)
"""The keys of a Messages API request body: the SDK's ``MessageCreateParams``, plus the sampling
keys the API reference documents (https://docs.claude.com/en/api/messages), which this SDK
version no longer types."""
GEMINI_KEYS = frozenset(
    {
        "contents",
        "tools",
        "toolConfig",
        "safetySettings",
        "systemInstruction",
        "generationConfig",
        "cachedContent",
    }
)
"""The keys of a Gemini API ``generateContent`` body (the model is in the URL)."""


def _texts(content: Any, path: str) -> list[tuple[str, str]]:
    """Every (path, text) of a content value: a string, or text blocks (tool results' too)."""
    if isinstance(content, str):
        return [(path, content)]
    out = []
    for j, block in enumerate(content or []):
        where = f"{path}[{j}]"
        if block.get("type") == "text":
            out.append((where, block.get("text", "")))
        elif block.get("type") == "tool_result" and "content" in block:
            out.extend(_texts(block["content"], where + ".content"))
    return out


def anthropic_violations(body: dict[str, Any]) -> list[str]:
    """The Messages API rules ``body`` breaks."""
    bad: list[str] = []
    extra = set(body) - ANTHROPIC_KEYS
    if extra:
        bad.append(f"keys outside MessageCreateParams: {sorted(extra)}")
    if type(body.get("max_tokens")) is not int or body["max_tokens"] < 1:
        bad.append("max_tokens missing")
    system = body.get("system")
    if system is not None:
        for where, text in _texts(system, "system"):
            if not text.strip():
                bad.append(f"{where}: empty system text")
    messages = body.get("messages", [])
    tool_blocks = False
    for i, msg in enumerate(messages):
        content = msg.get("content")
        if not content or (isinstance(content, str) and not content.strip()):
            bad.append(f"messages[{i}]: empty content")
        for where, text in _texts(content, f"messages[{i}].content"):
            if not text.strip():
                bad.append(f"{where}: whitespace-only text")
        for block in content if isinstance(content, list) else []:
            kind = block.get("type")
            if kind == "tool_use":
                tool_blocks = True
                if not ID.fullmatch(block["id"]):
                    bad.append(f"messages[{i}]: tool_use id {block['id']!r}")
                if not NAME.fullmatch(block["name"]):
                    bad.append(f"messages[{i}]: tool_use name {block['name']!r}")
            elif kind == "tool_result":
                tool_blocks = True
                if not ID.fullmatch(block["tool_use_id"]):
                    bad.append(f"messages[{i}]: tool_result id {block['tool_use_id']!r}")
    for i, msg in enumerate(messages):
        content = msg.get("content")
        if msg["role"] != "user" or not isinstance(content, list):
            continue
        results = [b["tool_use_id"] for b in content if b.get("type") == "tool_result"]
        before = messages[i - 1] if i else {}
        asked = before.get("content") if before.get("role") == "assistant" else []
        calls = (
            [b["id"] for b in asked if b.get("type") == "tool_use"]
            if isinstance(asked, list)
            else []
        )
        for ident in results:
            if ident not in calls:
                bad.append(f"messages[{i}]: tool_result {ident!r} answers no tool_use before it")
    if messages and messages[-1]["role"] == "assistant":
        content = messages[-1]["content"]
        last = content if isinstance(content, str) else (content[-1] if content else {})
        text = (
            last
            if isinstance(last, str)
            else last.get("text")
            if last.get("type") == "text"
            else None
        )
        if text is not None and text != text.rstrip():
            bad.append("final assistant content ends with whitespace")
    tools = body.get("tools") or []
    for tool in tools:
        if tool.get("type", "custom") == "custom" and not NAME.fullmatch(tool["name"]):
            bad.append(f"tool name {tool['name']!r}")
        if tool.get("type", "custom") == "custom" and tool["input_schema"].get("type") != "object":
            bad.append(f"tool {tool['name']!r}: input_schema type is not object")
    if tool_blocks and not tools:
        bad.append("tool_use / tool_result blocks without tools")
    choice = body.get("tool_choice")
    if choice is not None and not tools:
        bad.append("tool_choice without tools")
    if choice is not None and choice.get("type") == "tool" and not NAME.fullmatch(choice["name"]):
        bad.append(f"tool_choice name {choice['name']!r}")
    metadata = body.get("metadata")
    if metadata is not None and set(metadata) - {"user_id"}:
        bad.append(f"metadata keys {sorted(set(metadata) - {'user_id'})}")
    thinking = body.get("thinking")
    if thinking is not None and thinking.get("type") == "enabled":
        budget = thinking["budget_tokens"]
        if not 1024 <= budget < body.get("max_tokens", 0):
            bad.append(f"thinking budget {budget} outside [1024, max_tokens)")
        if body.get("temperature", 1) != 1:
            bad.append("temperature beside thinking")
        if body.get("top_p", 1) < 0.95:
            bad.append("top_p below 0.95 beside thinking")
        if choice is not None and choice.get("type") in ("any", "tool"):
            bad.append("forced tool use beside thinking")
        turns = [m for m in messages if m["role"] == "assistant"]
        last = turns[-1]["content"] if turns else ""
        calls = isinstance(last, list) and any(b.get("type") == "tool_use" for b in last)
        if calls and last[0].get("type") not in ("thinking", "redacted_thinking"):
            bad.append("thinking beside a tool-calling assistant turn without thinking")
    return bad


GEMINI_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}")
"""A Gemini function name (https://ai.google.dev/api/caching#FunctionDeclaration)."""


def gemini_violations(body: dict[str, Any]) -> list[str]:
    """The Gemini API rules ``body`` breaks: only its own top-level keys, function names in
    its pattern."""
    bad = []
    extra = set(body) - GEMINI_KEYS
    if extra:
        bad.append(f"keys outside the generateContent body: {sorted(extra)}")
    names = [
        d["name"] for tool in body.get("tools", []) for d in tool.get("functionDeclarations", [])
    ]
    for content in body.get("contents", []):
        for part in content.get("parts", []):
            for key in ("functionCall", "functionResponse"):
                if key in part:
                    names.append(part[key]["name"])
    bad += [f"function name {n!r}" for n in names if not GEMINI_NAME.fullmatch(n)]
    return bad
