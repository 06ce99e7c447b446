"""What a target API accepts, checked without a network: the gateway bench's referee.

Two kinds of checks, both on plain JSON values (``json.loads`` of what a library wrote):

- **SDK types**: the official SDK's request TypedDict (``anthropic``'s ``MessageCreateParams``,
  validated with pydantic's ``TypeAdapter``, lazy ``Iterable`` fields made eager lists) or
  response model (``openai.types.chat.ChatCompletion`` / ``ChatCompletionChunk``). The types
  accept keys they do not name (TypedDicts ignore them, the response models keep them as
  extras); `foreign_keys` lists those separately, as "keys outside the target schema".
- **Documented server-side rules** the SDK types cannot express: one function per rule below,
  each with the public source of the rule in its docstring. Rules that only the API's error
  texts document cite those texts as users reported them.

Every check returns a list of `Violation` (empty: accepted), each naming the rule, the JSON path
and what is wrong, so a table can count them and a person can read them.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ANTHROPIC_REQUEST_RULES",
    "FINISH_REASONS",
    "OPENAI_RESPONSE_RULES",
    "Violation",
    "anthropic_request",
    "foreign_keys",
    "max_tokens_required",
    "metadata_user_id_only",
    "no_empty_content",
    "no_empty_text_blocks",
    "no_trailing_whitespace_in_final_assistant",
    "openai_chunks",
    "openai_finish_reason",
    "openai_response",
    "sdk_anthropic_request",
    "sdk_openai_chunks",
    "sdk_openai_response",
    "tool_history_needs_tools",
    "tool_id_pattern",
    "tool_name_pattern",
    "tool_result_follows_tool_use",
]


@dataclass(frozen=True)
class Violation:
    """One thing the target would reject (or, for ``foreign key``, not recognise)."""

    rule: str
    """The rule's name: a rule function's name, ``sdk`` for the SDK types, ``foreign key``."""
    path: str
    """JSON path of the offending value, like ``$.messages[2].content[0].id``."""
    message: str
    """What is wrong, for people."""

    def __str__(self) -> str:
        return f"{self.rule}: {self.message} at {self.path}"


# --- Anthropic Messages requests: the documented rules -----------------------------------------

TOOL_ID = re.compile(r"[a-zA-Z0-9_-]+")
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,128}")
SERVER_TOOL_PREFIXES = (
    "bash_",
    "code_execution_",
    "computer_",
    "memory_",
    "text_editor_",
    "tool_search_",
    "web_fetch_",
    "web_search_",
    "mcp_toolset",
    "advisor_",
)
"""``tools[].type`` prefixes of Anthropic's server and client-defined tools (fixed names)."""


def _messages(body: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    return [(i, m) for i, m in enumerate(messages) if isinstance(m, dict)]


def _blocks(message: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [(j, b) for j, b in enumerate(content) if isinstance(b, dict)]


def max_tokens_required(body: dict[str, Any]) -> list[Violation]:
    """``max_tokens`` is required: "max_tokens: integer, Required. The maximum number of tokens
    to generate before stopping." (https://docs.anthropic.com/en/api/messages)."""
    if isinstance(body.get("max_tokens"), int) and not isinstance(body["max_tokens"], bool):
        return []
    return [Violation("max_tokens_required", "$.max_tokens", "max_tokens is missing")]


def no_empty_content(body: dict[str, Any]) -> list[Violation]:
    """Every message has content, except an optional final assistant message: the API answers
    "messages.N: all messages must have non-empty content except for the optional final
    assistant message" (https://docs.anthropic.com/en/api/messages, ``messages``; error text
    as in https://github.com/anthropics/claude-code/issues/3196)."""
    messages = _messages(body)
    out = []
    for i, message in messages:
        last_assistant = i == len(body["messages"]) - 1 and message.get("role") == "assistant"
        content = message.get("content")
        if content in ("", []) and not last_assistant:
            out.append(Violation("no_empty_content", f"$.messages[{i}].content", "empty content"))
    return out


def no_empty_text_blocks(body: dict[str, Any]) -> list[Violation]:
    """A ``text`` block holds at least one character: the API answers "messages: text content
    blocks must be non-empty" (https://docs.anthropic.com/en/api/messages, ``TextBlockParam``;
    error text as in https://github.com/stackblitz/bolt.new/issues/7426)."""
    out = []
    for i, message in _messages(body):
        for j, block in _blocks(message):
            if block.get("type") == "text" and block.get("text") == "":
                path = f"$.messages[{i}].content[{j}].text"
                out.append(Violation("no_empty_text_blocks", path, "empty text block"))
    system = body.get("system")
    if isinstance(system, list):
        for j, block in enumerate(system):
            if isinstance(block, dict) and block.get("text") == "":
                out.append(
                    Violation("no_empty_text_blocks", f"$.system[{j}].text", "empty text block")
                )
    return out


def tool_id_pattern(body: dict[str, Any]) -> list[Violation]:
    """``tool_use.id`` and ``tool_result.tool_use_id`` match ``^[a-zA-Z0-9_-]+$``: the API
    answers "messages.N.content.M.tool_use.id: String should match pattern
    '^[a-zA-Z0-9_-]+$'" (https://docs.anthropic.com/en/api/messages, ``ToolUseBlockParam``;
    error text as in https://github.com/RooCodeInc/Roo-Code/pull/10649)."""
    out = []
    for i, message in _messages(body):
        for j, block in _blocks(message):
            key = {"tool_use": "id", "tool_result": "tool_use_id"}.get(block.get("type", ""))
            if key is None:
                continue
            value = block.get(key)
            if not isinstance(value, str) or not TOOL_ID.fullmatch(value):
                out.append(
                    Violation(
                        "tool_id_pattern",
                        f"$.messages[{i}].content[{j}].{key}",
                        f"{value!r} does not match ^[a-zA-Z0-9_-]+$",
                    )
                )
    return out


def tool_name_pattern(body: dict[str, Any]) -> list[Violation]:
    """Custom tool names (``tools[].name``, ``tool_use.name``, ``tool_choice.name``) match
    ``^[a-zA-Z0-9_-]{1,128}$`` (https://docs.anthropic.com/en/api/messages, ``tools.name``:
    "maxLength 128, minLength 1"; the API answers "tools.7.custom.name: String should match
    pattern '^[a-zA-Z0-9_-]{1,64}$'" with the older limit of 64 characters,
    https://github.com/apify/tester-mcp-client/issues/11)."""
    places: list[tuple[str, Any]] = []
    tools = body.get("tools")
    if isinstance(tools, list):
        for k, tool in enumerate(tools):
            if isinstance(tool, dict) and not str(tool.get("type", "")).startswith(
                SERVER_TOOL_PREFIXES
            ):
                places.append((f"$.tools[{k}].name", tool.get("name")))
    for i, message in _messages(body):
        for j, block in _blocks(message):
            if block.get("type") == "tool_use":
                places.append((f"$.messages[{i}].content[{j}].name", block.get("name")))
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "tool":
        places.append(("$.tool_choice.name", choice.get("name")))
    return [
        Violation("tool_name_pattern", path, f"{name!r} does not match ^[a-zA-Z0-9_-]{{1,128}}$")
        for path, name in places
        if not isinstance(name, str) or not TOOL_NAME.fullmatch(name)
    ]


def tool_history_needs_tools(body: dict[str, Any]) -> list[Violation]:
    """A request whose messages hold ``tool_use`` or ``tool_result`` blocks defines ``tools``:
    the API answers "Requests which include `tool_use` or `tool_result` blocks must define
    tools." (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use;
    error text as in https://github.com/anthropics/anthropic-sdk-python/issues/494)."""
    if body.get("tools"):
        return []
    for i, message in _messages(body):
        for j, block in _blocks(message):
            if block.get("type") in ("tool_use", "tool_result"):
                return [
                    Violation(
                        "tool_history_needs_tools",
                        f"$.messages[{i}].content[{j}]",
                        f"a {block['type']} block in a request without tools",
                    )
                ]
    return []


def tool_result_follows_tool_use(body: dict[str, Any]) -> list[Violation]:
    """Each ``tool_use`` is answered by a ``tool_result`` in the very next message, whose
    content starts with the results; each ``tool_result`` answers a ``tool_use`` of the message
    before. "Tool result blocks must immediately follow their corresponding tool use blocks in
    the message history" and "tool_result blocks must come FIRST in the content array"
    (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use); the API
    answers "`tool_use` ids were found without `tool_result` blocks immediately after"
    (https://github.com/anthropics/claude-code/issues/3512) and "Did not find 1 tool_result
    block(s) at the beginning of this message"
    (https://github.com/anthropics/anthropic-sdk-typescript/issues/653)."""
    out = []
    asked: set[str] = set()
    for i, message in _messages(body):
        blocks = _blocks(message)
        results = [(j, b) for j, b in blocks if b.get("type") == "tool_result"]
        for j, block in results:
            if block.get("tool_use_id") not in asked:
                out.append(
                    Violation(
                        "tool_result_follows_tool_use",
                        f"$.messages[{i}].content[{j}].tool_use_id",
                        f"no tool_use {block.get('tool_use_id')!r} in the message before",
                    )
                )
        if any(b.get("type") != "tool_result" for _, b in blocks[: len(results)]):
            out.append(
                Violation(
                    "tool_result_follows_tool_use",
                    f"$.messages[{i}].content",
                    "tool_result blocks do not come first",
                )
            )
        missing = sorted(asked - {b.get("tool_use_id") for _, b in results})
        if missing:
            out.append(
                Violation(
                    "tool_result_follows_tool_use",
                    f"$.messages[{i}]",
                    f"no tool_result for {', '.join(map(repr, missing))}",
                )
            )
        asked = {
            b["id"]
            for _, b in blocks
            if b.get("type") == "tool_use" and isinstance(b.get("id"), str)
        }
    return out


def no_trailing_whitespace_in_final_assistant(body: dict[str, Any]) -> list[Violation]:
    """A final assistant message (a prefill) does not end with whitespace: the API answers
    "messages: final assistant content cannot end with trailing whitespace"
    (https://docs.anthropic.com/en/docs/build-with-claude/prompt-engineering/prefill-claudes-response;
    error text as in https://github.com/tailcallhq/forgecode/issues/1872)."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return []
    last = messages[-1]
    if last.get("role") != "assistant":
        return []
    content = last.get("content")
    path = f"$.messages[{len(messages) - 1}].content"
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        path = f"{path}[{len(content) - 1}].text"
        content = content[-1].get("text")
    if isinstance(content, str) and content != content.rstrip():
        return [
            Violation(
                "no_trailing_whitespace_in_final_assistant",
                path,
                f"final assistant content ends with whitespace: {content[-12:]!r}",
            )
        ]
    return []


def metadata_user_id_only(body: dict[str, Any]) -> list[Violation]:
    """``metadata`` holds ``user_id`` only: "metadata: object. An object describing metadata
    about the request. user_id: ..." is the only field, and the API answers
    "metadata.<key>: Extra inputs are not permitted" (https://docs.anthropic.com/en/api/messages,
    ``metadata``)."""
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        return []
    return [
        Violation("metadata_user_id_only", f"$.metadata.{key}", f"metadata key {key!r}")
        for key in metadata
        if key != "user_id"
    ]


ANTHROPIC_REQUEST_RULES: tuple[Callable[[dict[str, Any]], list[Violation]], ...] = (
    max_tokens_required,
    no_empty_content,
    no_empty_text_blocks,
    tool_id_pattern,
    tool_name_pattern,
    tool_history_needs_tools,
    tool_result_follows_tool_use,
    no_trailing_whitespace_in_final_assistant,
    metadata_user_id_only,
)
"""Every Anthropic request rule, in the order they are checked."""


# --- OpenAI Chat Completions responses ----------------------------------------------------------

FINISH_REASONS = frozenset({"stop", "length", "tool_calls", "content_filter", "function_call"})
"""``choices[].finish_reason``'s enum (https://platform.openai.com/docs/api-reference/chat/object)."""


def openai_finish_reason(body: dict[str, Any]) -> list[Violation]:
    """``finish_reason`` is one of ``stop``, ``length``, ``tool_calls``, ``content_filter``,
    ``function_call`` (https://platform.openai.com/docs/api-reference/chat/object; a chunk's
    may also be null, https://platform.openai.com/docs/api-reference/chat-streaming)."""
    chunk = body.get("object") == "chat.completion.chunk"
    out = []
    for k, choice in enumerate(body.get("choices") or []):
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        if (reason is None and chunk) or reason in FINISH_REASONS:
            continue
        out.append(
            Violation(
                "openai_finish_reason",
                f"$.choices[{k}].finish_reason",
                f"{reason!r} is not in the finish_reason enum",
            )
        )
    return out


OPENAI_RESPONSE_RULES: tuple[Callable[[dict[str, Any]], list[Violation]], ...] = (
    openai_finish_reason,
)


# --- the SDK types -----------------------------------------------------------------------------

_VALIDATORS: dict[str, Any] = {}


def _eager(schema: Any) -> Any:
    """A copy of a pydantic core schema with lazy ``Iterable`` (generator) validators made
    lists, so validation checks every item at once."""

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "generator":
                node["type"] = "list"
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    schema = copy.deepcopy(schema)
    walk(schema)
    return schema


def _validator(name: str) -> Any:
    validator = _VALIDATORS.get(name)
    if validator is None:
        import pydantic
        import pydantic_core
        from anthropic.types import message_create_params as mcp

        params = getattr(mcp, name)
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(params)
        validator = _VALIDATORS[name] = pydantic_core.SchemaValidator(_eager(adapter.core_schema))
    return validator


def _path(loc: tuple[Any, ...]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _errors(error: Any, limit: int = 3) -> list[Violation]:
    return [
        Violation("sdk", _path(e["loc"]), f"{e['type']}: {e['msg']}")
        for e in error.errors(include_url=False)[:limit]
    ]


def foreign_keys(value: Any, checked: Any, path: str = "$") -> Iterator[Violation]:
    """Keys of ``value`` (plain JSON) that the SDK types do not name, found by comparing it with
    what the SDK made of it (``checked``): a TypedDict drops unknown keys, a response model keeps
    them in ``model_extra``."""
    import pydantic

    if isinstance(checked, pydantic.BaseModel):
        extra = checked.model_extra or {}
        for key in extra:
            yield Violation("foreign key", f"{path}.{key}", f"key {key!r} outside the schema")
        if not isinstance(value, dict):
            return
        for name, field in type(checked).model_fields.items():
            key = field.alias or name
            if key in value and key not in extra:
                yield from foreign_keys(value[key], getattr(checked, name), f"{path}.{key}")
    elif isinstance(checked, dict) and isinstance(value, dict):
        for key, item in value.items():
            if key not in checked:
                yield Violation("foreign key", f"{path}.{key}", f"key {key!r} outside the schema")
            else:
                yield from foreign_keys(item, checked[key], f"{path}.{key}")
    elif isinstance(checked, (list, tuple)) and isinstance(value, list):
        for k, (item, done) in enumerate(zip(value, checked, strict=False)):
            yield from foreign_keys(item, done, f"{path}[{k}]")


def sdk_anthropic_request(body: dict[str, Any]) -> tuple[list[Violation], list[Violation]]:
    """The request against ``anthropic.types.MessageCreateParams(Non)Streaming`` (by its
    ``stream``): the SDK's errors (first three) and the keys outside its types."""
    import pydantic_core

    name = (
        "MessageCreateParamsStreaming"
        if body.get("stream") is True
        else ("MessageCreateParamsNonStreaming")
    )
    try:
        checked = _validator(name).validate_python(body)
    except pydantic_core.ValidationError as error:
        return _errors(error), []
    return [], list(foreign_keys(body, checked))


def sdk_openai_response(body: dict[str, Any]) -> tuple[list[Violation], list[Violation]]:
    """The response against ``openai.types.chat.ChatCompletion``: errors and foreign keys."""
    import pydantic
    from openai.types.chat import ChatCompletion

    try:
        checked = ChatCompletion.model_validate(body)
    except pydantic.ValidationError as error:
        return _errors(error), []
    return [], list(foreign_keys(body, checked))


def sdk_openai_chunks(chunks: list[dict[str, Any]]) -> tuple[list[Violation], list[Violation]]:
    """Stream chunks against ``ChatCompletionChunk``, then through the SDK's own accumulator
    (``ChatCompletionStreamState``): errors (paths start ``$[<chunk index>]``) and foreign
    keys (distinct paths, chunk index left out)."""
    import pydantic
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    foreign: dict[str, Violation] = {}
    for k, body in enumerate(chunks):
        try:
            chunk = ChatCompletionChunk.model_validate(body)
        except pydantic.ValidationError as error:
            return [Violation(v.rule, f"$[{k}]{v.path[1:]}", v.message) for v in _errors(error)], []
        for v in foreign_keys(body, chunk):
            foreign.setdefault(v.path, v)
        try:
            state.handle_chunk(chunk)
        except Exception as error:  # the SDK's accumulator raises its own and plain errors
            why = f"accumulator: {type(error).__name__}: {error}"
            return [Violation("sdk", f"$[{k}]", why)], []
    if not chunks:
        return [Violation("sdk", "$", "no chunks")], []
    # the snapshot, not get_final_completion(): that one raises for finish_reason "length" or
    # "content_filter" by design (a parse helper's refusal), not because the stream is invalid
    state.current_completion_snapshot  # noqa: B018 (raises if the stream built nothing)
    return [], list(foreign.values())


# --- one verdict per output --------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What the target makes of one output: SDK errors, rule violations, foreign keys."""

    sdk: list[Violation]
    rules: list[Violation]
    foreign: list[Violation]

    @property
    def accepted(self) -> bool:
        """Accepted by the SDK types and by every rule (foreign keys are counted apart)."""
        return not self.sdk and not self.rules


def anthropic_request(body: bytes | dict[str, Any]) -> Verdict:
    """An Anthropic request body against the SDK types and every rule."""
    value = json.loads(body) if isinstance(body, (bytes, str)) else body
    if not isinstance(value, dict):
        return Verdict([Violation("sdk", "$", "not a JSON object")], [], [])
    sdk, foreign = sdk_anthropic_request(value)
    rules = [v for rule in ANTHROPIC_REQUEST_RULES for v in rule(value)]
    return Verdict(sdk, rules, foreign)


def openai_response(body: bytes | dict[str, Any]) -> Verdict:
    """An OpenAI Chat response body against ``ChatCompletion`` and the finish-reason rule."""
    value = json.loads(body) if isinstance(body, (bytes, str)) else body
    if not isinstance(value, dict):
        return Verdict([Violation("sdk", "$", "not a JSON object")], [], [])
    sdk, foreign = sdk_openai_response(value)
    rules = [v for rule in OPENAI_RESPONSE_RULES for v in rule(value)]
    return Verdict(sdk, rules, foreign)


def openai_chunks(sse: bytes) -> Verdict:
    """An OpenAI Chat SSE stream (``data: {...}`` lines, ``data: [DONE]`` last) against
    ``ChatCompletionChunk``, the SDK accumulator and the finish-reason rule."""
    chunks = []
    for line in sse.replace(b"\r\n", b"\n").split(b"\n"):
        if line.startswith(b"data:"):
            data = line[5:].strip()
            if data != b"[DONE]":
                chunks.append(json.loads(data))
    sdk, foreign = sdk_openai_chunks(chunks)
    rules = [
        Violation(v.rule, f"$[{k}]{v.path[1:]}", v.message)
        for k, chunk in enumerate(chunks)
        for rule in OPENAI_RESPONSE_RULES
        for v in rule(chunk)
    ]
    return Verdict(sdk, rules, foreign)
