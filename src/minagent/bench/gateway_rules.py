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
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ANTHROPIC_REQUEST_RULES",
    "FINISH_REASONS",
    "FORMATS",
    "GEMINI_BODY_KEYS",
    "GEMINI_FINISH_REASONS",
    "GEMINI_REQUEST_RULES",
    "ITEM_ID_PREFIXES",
    "OPENAI_CHAT_REQUEST_RULES",
    "OPENAI_RESPONSE_RULES",
    "REQUEST_RULES",
    "RESPONSES_REQUEST_RULES",
    "RESPONSE_RULES",
    "Verdict",
    "Violation",
    "anthropic_messages_non_empty",
    "anthropic_request",
    "chat_messages_non_empty",
    "chat_tool_calls_answered",
    "chat_tool_message_answers_call",
    "foreign_keys",
    "gemini_finish_reason",
    "gemini_function_response_pairing",
    "gemini_no_foreign_keys",
    "gemini_non_empty_parts",
    "gemini_roles",
    "max_tokens_required",
    "metadata_user_id_only",
    "no_empty_content",
    "no_empty_text_blocks",
    "no_trailing_whitespace_in_final_assistant",
    "openai_chunks",
    "openai_finish_reason",
    "openai_function_name_pattern",
    "openai_response",
    "request_verdict",
    "response_verdict",
    "responses_call_output_answers_call",
    "responses_item_id_prefix",
    "sdk_anthropic_request",
    "sdk_anthropic_stream",
    "sdk_gemini_request",
    "sdk_openai_chunks",
    "sdk_openai_response",
    "sdk_request",
    "sdk_response",
    "sdk_responses_stream",
    "sse_data",
    "stream_verdict",
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


def anthropic_messages_non_empty(body: dict[str, Any]) -> list[Violation]:
    """``messages`` holds at least one message: "messages: object[], Required. Input messages."
    (https://docs.anthropic.com/en/api/messages); an empty list is answered "messages: at least
    one message is required"."""
    if isinstance(body.get("messages"), list) and not body["messages"]:
        return [Violation("anthropic_messages_non_empty", "$.messages", "no messages")]
    return []


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
    anthropic_messages_non_empty,
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


_PARAMS = {
    "anthropic": "anthropic.types.message_create_params:MessageCreateParams",
    "openai_chat": "openai.types.chat.completion_create_params:CompletionCreateParams",
    "openai_responses": "openai.types.responses.response_create_params:ResponseCreateParams",
}
"""Per format, the SDK module and the prefix of its request TypedDicts (``...NonStreaming`` and
``...Streaming`` follow)."""


def _validator(name: str, fmt: str = "anthropic") -> Any:
    validator = _VALIDATORS.get(f"{fmt}:{name}")
    if validator is None:
        import importlib

        import pydantic
        import pydantic_core

        module = importlib.import_module(_PARAMS[fmt].split(":")[0])
        params = getattr(module, name)
        adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(params)
        validator = _VALIDATORS[f"{fmt}:{name}"] = pydantic_core.SchemaValidator(
            _eager(adapter.core_schema)
        )
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


def sdk_request(
    body: dict[str, Any], fmt: str = "anthropic"
) -> tuple[list[Violation], list[Violation]]:
    """The request against the SDK's request TypedDict of ``fmt`` (`_PARAMS`: anthropic's
    ``MessageCreateParams``, openai's ``CompletionCreateParams`` / ``ResponseCreateParams``),
    ``Streaming`` or ``NonStreaming`` by its ``stream``: the SDK's errors (first three) and the
    keys outside its types."""
    import pydantic_core

    prefix = _PARAMS[fmt].split(":")[1]
    name = prefix + ("Streaming" if body.get("stream") is True else "NonStreaming")
    try:
        checked = _validator(name, fmt).validate_python(body)
    except pydantic_core.ValidationError as error:
        return _errors(error), []
    return [], list(foreign_keys(body, checked))


def sdk_anthropic_request(body: dict[str, Any]) -> tuple[list[Violation], list[Violation]]:
    """The request against ``anthropic.types.MessageCreateParams(Non)Streaming`` (by its
    ``stream``): the SDK's errors (first three) and the keys outside its types."""
    return sdk_request(body, "anthropic")


_GEMINI_FIELDS = {
    "contents": ("Content", True),
    "tools": ("Tool", True),
    "toolConfig": ("ToolConfig", False),
    "safetySettings": ("SafetySetting", True),
    "systemInstruction": ("Content", False),
    "generationConfig": ("GenerationConfig", False),
    "cachedContent": (None, False),
}
"""``generateContent`` body field -> the google-genai model of its value (a list of them)."""


def sdk_gemini_request(body: dict[str, Any]) -> tuple[list[Violation], list[Violation]]:
    """The request's fields against google-genai's models (``types.Content``, ``Tool``,
    ``ToolConfig``, ``SafetySetting``, ``GenerationConfig``), validated from JSON (bytes are
    base64 there, as on the wire). The models forbid keys they do not name, as the API does, so
    a key outside the schema is an SDK error here; top-level keys are `gemini_no_foreign_keys`'s
    to judge."""
    import pydantic
    from google.genai import types

    out: list[Violation] = []
    for key, value in body.items():
        camel = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)
        model_name, many = _GEMINI_FIELDS.get(camel, (None, False))
        if model_name is None:
            if camel == "cachedContent" and not isinstance(value, str):
                out.append(Violation("sdk", f"$.{key}", "string_type: a cached content name"))
            continue
        model = getattr(types, model_name)
        items = (
            [(f"$.{key}[{k}]", v) for k, v in enumerate(value)] if many else [(f"$.{key}", value)]
        )
        if many and not isinstance(value, list):
            out.append(Violation("sdk", f"$.{key}", "list_type: Input should be a valid list"))
            continue
        for path, item in items:
            try:
                model.model_validate_json(json.dumps(item))
            except pydantic.ValidationError as error:
                out.extend(Violation(v.rule, path + v.path[1:], v.message) for v in _errors(error))
        if len(out) >= 3:
            break
    return out[:3], []


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


# --- OpenAI Chat Completions requests ----------------------------------------------------------

FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""OpenAI's function name pattern (Chat Completions and Responses)."""


def chat_messages_non_empty(body: dict[str, Any]) -> list[Violation]:
    """``messages`` holds at least one message: "messages: array, Required. A list of messages
    comprising the conversation so far", a non-empty array
    (https://platform.openai.com/docs/api-reference/chat/create)."""
    if isinstance(body.get("messages"), list) and not body["messages"]:
        return [Violation("chat_messages_non_empty", "$.messages", "no messages")]
    return []


def chat_tool_message_answers_call(body: dict[str, Any]) -> list[Violation]:
    """A ``tool`` message answers a ``tool_calls`` id of the assistant message before it (only
    tool messages in between): the API answers "Invalid parameter: messages with role 'tool'
    must be a response to a preceeding message with 'tool_calls'" with ``param`` the tool
    message's role (https://platform.openai.com/docs/guides/function-calling; error text as in
    https://github.com/miurla/morphic/issues/136)."""
    out = []
    asked: set[Any] = set()
    for i, message in _messages(body):
        role = message.get("role")
        if role == "tool":
            ident = message.get("tool_call_id")
            if ident not in asked:
                out.append(
                    Violation(
                        "chat_tool_message_answers_call",
                        f"$.messages[{i}].tool_call_id",
                        f"no assistant tool call {ident!r} before this tool message",
                    )
                )
            continue
        calls = message.get("tool_calls") if role == "assistant" else None
        asked = {
            c.get("id")
            for c in (calls if isinstance(calls, list) else [])
            if isinstance(c, dict) and isinstance(c.get("id"), str)
        }
    return out


def chat_tool_calls_answered(body: dict[str, Any]) -> list[Violation]:
    """An assistant message with ``tool_calls`` is followed by a ``tool`` message for each call
    id: the API answers "An assistant message with 'tool_calls' must be followed by tool
    messages responding to each 'tool_call_id'. The following tool_call_ids did not have
    response messages: ..." (https://platform.openai.com/docs/guides/function-calling; error
    text as in https://github.com/microsoft/promptflow/pull/3130). A final assistant message
    (nothing after it) is not checked here: the API reads it as the model's turn."""
    messages = _messages(body)
    out = []
    for k, (i, message) in enumerate(messages):
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not isinstance(calls, list) or not calls or k == len(messages) - 1:
            continue
        answered = set()
        for _, after in messages[k + 1 :]:
            if after.get("role") != "tool":
                break
            answered.add(after.get("tool_call_id"))
        missing = [
            c.get("id") for c in calls if isinstance(c, dict) and c.get("id") not in answered
        ]
        if missing:
            out.append(
                Violation(
                    "chat_tool_calls_answered",
                    f"$.messages[{i}].tool_calls",
                    f"no tool message for {', '.join(map(repr, missing))}",
                )
            )
    return out


def openai_function_name_pattern(body: dict[str, Any]) -> list[Violation]:
    """Function tool names match ``^[a-zA-Z0-9_-]{1,64}$``: "The name of the function to be
    called. Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of
    64." (https://platform.openai.com/docs/api-reference/chat/create, ``tools[].function.name``;
    Responses: ``tools[].name``, https://platform.openai.com/docs/api-reference/responses/create).
    """
    out = []
    tools = body.get("tools")
    for k, tool in enumerate(tools if isinstance(tools, list) else []):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            continue
        fn = tool.get("function")
        path, name = (
            (f"$.tools[{k}].function.name", fn.get("name"))
            if isinstance(fn, dict)
            else (f"$.tools[{k}].name", tool.get("name"))
        )
        if not isinstance(name, str) or not FUNCTION_NAME.fullmatch(name):
            out.append(
                Violation(
                    "openai_function_name_pattern",
                    path,
                    f"{name!r} does not match ^[a-zA-Z0-9_-]{{1,64}}$",
                )
            )
    return out


OPENAI_CHAT_REQUEST_RULES: tuple[Callable[[dict[str, Any]], list[Violation]], ...] = (
    chat_messages_non_empty,
    chat_tool_message_answers_call,
    chat_tool_calls_answered,
    openai_function_name_pattern,
)
"""Every OpenAI Chat Completions request rule, in the order they are checked."""


# --- OpenAI Responses requests -----------------------------------------------------------------

ITEM_ID_PREFIXES = {
    "function_call": "fc",
    "message": "msg",
    "reasoning": "rs",
    "web_search_call": "ws",
    "file_search_call": "fs",
    "computer_call": "cu",
    "custom_tool_call": "ctc",
}
"""The id prefix the Responses API issues (and checks on input) per output item type."""


def _input_items(body: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    items = body.get("input")
    if not isinstance(items, list):
        return []
    return [(i, item) for i, item in enumerate(items) if isinstance(item, dict)]


def responses_call_output_answers_call(body: dict[str, Any]) -> list[Violation]:
    """A ``function_call_output`` (``custom_tool_call_output``) answers a ``function_call``
    (``custom_tool_call``) with the same ``call_id`` earlier in ``input`` (without
    ``previous_response_id``, which holds calls the body does not show): the API answers "No
    tool call found for function call output with call_id call_..." with ``param`` ``input``
    (https://platform.openai.com/docs/guides/function-calling; error text as in
    https://github.com/continuedev/continue/issues/10092)."""
    if body.get("previous_response_id") or body.get("conversation"):
        return []
    out = []
    calls: set[Any] = set()
    for i, item in _input_items(body):
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call"):
            calls.add(item.get("call_id"))
        elif (
            kind in ("function_call_output", "custom_tool_call_output")
            and item.get("call_id") not in calls
        ):
            out.append(
                Violation(
                    "responses_call_output_answers_call",
                    f"$.input[{i}].call_id",
                    f"no function call {item.get('call_id')!r} before this output",
                )
            )
    return out


def responses_item_id_prefix(body: dict[str, Any]) -> list[Violation]:
    """An input item's ``id``, where written, is one the API issued for that item type:
    ``fc_`` for a function call, ``msg_`` for an output message, ``rs_`` for reasoning (and
    ``ws_``, ``fs_``, ``cu_``, ``ctc_``); the API answers "Invalid 'input[N].id': '...'.
    Expected an ID that begins with 'fc'." with code ``invalid_id_prefix``
    (https://platform.openai.com/docs/api-reference/responses/create, ``input`` items' ``id``:
    "The unique ID of the ..."; error text as in
    https://github.com/BigPizzaV3/CodexPlusPlus/issues/1796). Input messages written with a
    ``role`` and no ``type`` (EasyInputMessage) have no id."""
    out = []
    for i, item in _input_items(body):
        kind = item.get("type")
        prefix = ITEM_ID_PREFIXES.get(kind) if isinstance(kind, str) else None
        if prefix is None or "id" not in item:
            continue
        if kind == "message" and item.get("role") != "assistant":
            continue
        ident = item["id"]
        if not isinstance(ident, str) or not ident.startswith(prefix):
            out.append(
                Violation(
                    "responses_item_id_prefix",
                    f"$.input[{i}].id",
                    f"{ident!r} does not begin with {prefix!r}",
                )
            )
    return out


RESPONSES_REQUEST_RULES: tuple[Callable[[dict[str, Any]], list[Violation]], ...] = (
    responses_call_output_answers_call,
    responses_item_id_prefix,
    openai_function_name_pattern,
)
"""Every OpenAI Responses request rule, in the order they are checked."""


# --- Gemini generateContent requests -----------------------------------------------------------

GEMINI_BODY_KEYS = frozenset(
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
"""The fields of a ``generateContent`` request body (the model is in the URL)."""
_SNAKE = {re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key) for key in GEMINI_BODY_KEYS}


def gemini_no_foreign_keys(body: dict[str, Any]) -> list[Violation]:
    """The body holds only ``contents``, ``tools``, ``toolConfig``, ``safetySettings``,
    ``systemInstruction``, ``generationConfig``, ``cachedContent`` (or their proto names,
    ``tool_config``, ...): "Request body: The request body contains data with the following
    structure" (https://ai.google.dev/api/generate-content#request-body); any other key is
    answered "Invalid JSON payload received. Unknown name \\"model\\": Cannot find field."
    (the Google API JSON mapping, https://cloud.google.com/apis/design/errors)."""
    return [
        Violation("gemini_no_foreign_keys", f"$.{key}", f"key {key!r} outside the request body")
        for key in body
        if key not in GEMINI_BODY_KEYS and key not in _SNAKE
    ]


def _contents(body: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    contents = body.get("contents")
    if not isinstance(contents, list):
        return []
    return [(i, c) for i, c in enumerate(contents) if isinstance(c, dict)]


def _parts(content: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    parts = content.get("parts")
    if not isinstance(parts, list):
        return []
    return [(j, p) for j, p in enumerate(parts) if isinstance(p, dict)]


def gemini_non_empty_parts(body: dict[str, Any]) -> list[Violation]:
    """``contents`` is not empty and every content (and the system instruction) has at least
    one part: the API answers "GenerateContentRequest.contents: contents is not specified" and
    "GenerateContentRequest.contents[N].parts: contents.parts must not be empty"
    (https://ai.google.dev/api/caching#Content, ``parts[]``: "Ordered Parts that constitute a
    single message"; error texts as in https://github.com/vercel/ai/issues/3775)."""
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        return [Violation("gemini_non_empty_parts", "$.contents", "contents is not specified")]
    out = []
    places = [(f"$.contents[{i}]", c) for i, c in _contents(body)]
    system = body.get("systemInstruction", body.get("system_instruction"))
    if isinstance(system, dict):
        places.append(("$.systemInstruction", system))
    for path, content in places:
        if not content.get("parts"):
            out.append(
                Violation("gemini_non_empty_parts", f"{path}.parts", "parts must not be empty")
            )
    return out


def gemini_roles(body: dict[str, Any]) -> list[Violation]:
    """A content's ``role`` is ``user`` or ``model``: "role: Optional. The producer of the
    content. Must be either 'user' or 'model'." (https://ai.google.dev/api/caching#Content); the
    API answers "Please use a valid role: user, model."."""
    return [
        Violation("gemini_roles", f"$.contents[{i}].role", f"role {c['role']!r}")
        for i, c in _contents(body)
        if "role" in c and c["role"] not in ("user", "model")
    ]


def _kinds(content: dict[str, Any], key: str) -> int:
    return sum(key in part or _snake(key) in part for _, part in _parts(content))


def _snake(key: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def gemini_function_response_pairing(body: dict[str, Any]) -> list[Violation]:
    """A content with ``functionResponse`` parts comes right after a ``model`` content with
    ``functionCall`` parts, with as many responses as there were calls: the API answers "Please
    ensure that function response turn comes immediately after a function call turn." and
    "Please ensure that the number of function response parts is equal to the number of
    function call parts of the function call turn." (https://ai.google.dev/gemini-api/docs/function-calling;
    error texts as in https://github.com/langchain-ai/langchain/issues/27799 and
    https://github.com/google-gemini/gemini-cli/issues/4217)."""
    out = []
    contents = _contents(body)
    calls = 0
    for i, content in contents:
        responses = _kinds(content, "functionResponse")
        if responses:
            if not calls:
                why = "function response turn does not come right after a function call turn"
                out.append(Violation("gemini_function_response_pairing", f"$.contents[{i}]", why))
            elif responses != calls:
                why = f"{responses} function responses for {calls} function calls"
                out.append(
                    Violation("gemini_function_response_pairing", f"$.contents[{i}].parts", why)
                )
        calls = _kinds(content, "functionCall") if content.get("role") == "model" else 0
    return out


GEMINI_REQUEST_RULES: tuple[Callable[[dict[str, Any]], list[Violation]], ...] = (
    gemini_no_foreign_keys,
    gemini_non_empty_parts,
    gemini_roles,
    gemini_function_response_pairing,
)
"""Every Gemini ``generateContent`` request rule, in the order they are checked."""


GEMINI_FINISH_REASONS = frozenset(
    {
        "FINISH_REASON_UNSPECIFIED",
        "STOP",
        "MAX_TOKENS",
        "SAFETY",
        "RECITATION",
        "LANGUAGE",
        "OTHER",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "MALFORMED_FUNCTION_CALL",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_OTHER",
        "NO_IMAGE",
        "IMAGE_RECITATION",
        "UNEXPECTED_TOOL_CALL",
        "TOO_MANY_TOOL_CALLS",
        "MISSING_THOUGHT_SIGNATURE",
        "MALFORMED_RESPONSE",
    }
)
"""``Candidate.finishReason``'s enum (https://ai.google.dev/api/generate-content#FinishReason)."""


def gemini_finish_reason(body: dict[str, Any]) -> list[Violation]:
    """A candidate's ``finishReason`` is one of the documented enum values
    (https://ai.google.dev/api/generate-content#FinishReason). google-genai's
    ``types.FinishReason`` only warns on another value ("is not a valid FinishReason") and keeps
    it, so its clients meet a value no code of theirs handles: the rule makes it a failure."""
    out = []
    candidates = body.get("candidates")
    for k, candidate in enumerate(candidates if isinstance(candidates, list) else []):
        if not isinstance(candidate, dict) or "finishReason" not in candidate:
            continue
        reason = candidate["finishReason"]
        if reason is not None and reason not in GEMINI_FINISH_REASONS:
            out.append(
                Violation(
                    "gemini_finish_reason",
                    f"$.candidates[{k}].finishReason",
                    f"{reason!r} is not in the finishReason enum",
                )
            )
    return out


# --- every format: one verdict per request or response ------------------------------------------

FORMATS = ("anthropic", "openai_chat", "openai_responses", "gemini")
"""The four wire formats, in the registry's order (`minagent.providers.ADAPTERS`)."""

REQUEST_RULES: dict[str, tuple[Callable[[dict[str, Any]], list[Violation]], ...]] = {
    "anthropic": ANTHROPIC_REQUEST_RULES,
    "openai_chat": OPENAI_CHAT_REQUEST_RULES,
    "openai_responses": RESPONSES_REQUEST_RULES,
    "gemini": GEMINI_REQUEST_RULES,
}
"""Per target format, its documented request rules."""

RESPONSE_RULES: dict[str, tuple[Callable[[dict[str, Any]], list[Violation]], ...]] = {
    "anthropic": (),
    "openai_chat": OPENAI_RESPONSE_RULES,
    "openai_responses": (),
    "gemini": (gemini_finish_reason,),
}
"""Per target format, the rules on a response beyond its SDK model (the Anthropic and Responses
models already hold their enums and required ids)."""

_RESPONSE_MODELS = {
    "anthropic": "anthropic.types:Message",
    "openai_chat": "openai.types.chat:ChatCompletion",
    "openai_responses": "openai.types.responses:Response",
    "gemini": "google.genai.types:GenerateContentResponse",
}
"""Per format, the SDK's response model (what its client parses a response into)."""


def sdk_response(body: dict[str, Any], fmt: str) -> tuple[list[Violation], list[Violation]]:
    """A response body against the SDK's response model of ``fmt`` (`_RESPONSE_MODELS`): errors
    and the keys outside the model. google-genai's models forbid keys they do not name (those
    are errors) and read bytes as base64, so they validate from JSON text."""
    import importlib

    import pydantic

    module, name = _RESPONSE_MODELS[fmt].split(":")
    model = getattr(importlib.import_module(module), name)
    try:
        if fmt == "gemini":
            with warnings.catch_warnings():  # an unknown enum value: `gemini_finish_reason`'s
                warnings.simplefilter("ignore", UserWarning)
                checked = model.model_validate_json(json.dumps(body))
        else:
            checked = model.model_validate(body)
    except pydantic.ValidationError as error:
        return _errors(error), []
    return [], list(foreign_keys(body, checked))


def _object(body: bytes | dict[str, Any]) -> Any:
    return json.loads(body) if isinstance(body, (bytes, str)) else body


def request_verdict(fmt: str, body: bytes | dict[str, Any]) -> Verdict:
    """A request body of format ``fmt`` against its SDK types and every rule of `REQUEST_RULES`."""
    value = _object(body)
    if not isinstance(value, dict):
        return Verdict([Violation("sdk", "$", "not a JSON object")], [], [])
    if fmt == "gemini":
        sdk, foreign = sdk_gemini_request(value)
    else:
        sdk, foreign = sdk_request(value, fmt)
    rules = [v for rule in REQUEST_RULES[fmt] for v in rule(value)]
    return Verdict(sdk, rules, foreign)


def response_verdict(fmt: str, body: bytes | dict[str, Any]) -> Verdict:
    """A response body of format ``fmt`` against its SDK model and `RESPONSE_RULES`."""
    value = _object(body)
    if not isinstance(value, dict):
        return Verdict([Violation("sdk", "$", "not a JSON object")], [], [])
    sdk, foreign = sdk_response(value, fmt)
    rules = [v for rule in RESPONSE_RULES[fmt] for v in rule(value)]
    return Verdict(sdk, rules, foreign)


# --- streams of every format ---------------------------------------------------------------------


def sse_data(sse: bytes) -> list[Any]:
    """The JSON value of each SSE event's data (its ``data:`` lines joined), ``[DONE]`` left
    out; a value that is not JSON raises ``ValueError``."""
    out = []
    text = sse.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    for event in text.split(b"\n\n"):
        lines = [
            line[5:].removeprefix(b" ") for line in event.split(b"\n") if line.startswith(b"data:")
        ]
        if lines and lines != [b"[DONE]"]:
            out.append(json.loads(b"\n".join(lines)))
    return out


_STREAM_ADAPTERS: dict[str, Any] = {}


def _stream_adapter(fmt: str) -> Any:
    """The SDK's event union of ``fmt``, and its member model per event ``type`` (so an error
    names the fields of the event's own type, not of every member)."""
    adapter = _STREAM_ADAPTERS.get(fmt)
    if adapter is None:
        import typing

        import pydantic

        if fmt == "anthropic":
            from anthropic.types import RawMessageStreamEvent as event_type
        else:
            from openai.types.responses import ResponseStreamEvent as event_type
        union = typing.get_args(event_type)[0]
        members = {}
        for model in typing.get_args(union):
            for kind in typing.get_args(model.model_fields["type"].annotation):
                members[kind] = model
        adapter = _STREAM_ADAPTERS[fmt] = (pydantic.TypeAdapter(event_type), members)
    return adapter


def _stream_events(
    fmt: str, events: list[Any], skip: frozenset[str]
) -> tuple[list[tuple[int, Any]], list[Violation], dict[str, Violation]]:
    """Each event (but the ``skip`` types) validated by the SDK's event union: the typed events
    with their index, the first error, the distinct foreign keys."""
    import pydantic

    adapter, members = _stream_adapter(fmt)
    typed: list[tuple[int, Any]] = []
    foreign: dict[str, Violation] = {}
    for k, event in enumerate(events):
        if isinstance(event, dict) and event.get("type") in skip:
            continue
        if isinstance(event, dict) and event.get("type") == "error":
            return typed, [Violation("sdk", f"$[{k}]", f"an error event: {event.get('error')}")], {}
        model = members.get(event.get("type")) if isinstance(event, dict) else None
        try:
            value = (model.model_validate if model else adapter.validate_python)(event)
        except pydantic.ValidationError as error:
            return (
                typed,
                [Violation(v.rule, f"$[{k}]{v.path[1:]}", v.message) for v in _errors(error)],
                {},
            )
        for v in foreign_keys(event, value):
            path = re.sub(r"^\$", "$[]", v.path)
            foreign.setdefault(path, Violation(v.rule, path, v.message))
        typed.append((k, value))
    return typed, [], foreign


def sdk_anthropic_stream(events: list[Any]) -> tuple[list[Violation], list[Violation]]:
    """Anthropic stream events against ``anthropic.types.RawMessageStreamEvent`` (``ping``
    skipped, as the SDK does; an ``error`` event fails), then through the SDK's own
    accumulator (``anthropic.lib.streaming._messages.accumulate_event``), which must end on
    ``message_stop`` with a message."""
    from anthropic.lib.streaming._messages import accumulate_event

    typed, errors, foreign = _stream_events("anthropic", events, frozenset({"ping"}))
    if errors:
        return errors, []
    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for k, event in typed:
        try:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        except Exception as error:  # the SDK's accumulator raises its own and plain errors
            return [
                Violation("sdk", f"$[{k}]", f"accumulator: {type(error).__name__}: {error}")
            ], []
    if snapshot is None or not typed or typed[-1][1].type != "message_stop":
        return [Violation("sdk", "$", "the stream does not end with message_stop")], []
    return [], list(foreign.values())


_FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


def sdk_responses_stream(events: list[Any]) -> tuple[list[Violation], list[Violation]]:
    """Responses stream events against ``openai.types.responses.ResponseStreamEvent``, then
    through the SDK's own accumulator (``ResponseStreamState.handle_event``); the stream ends
    with the final ``response.completed`` (or ``incomplete`` / ``failed``) event, whose
    ``response`` the event type validates as a ``Response``."""
    from openai import omit
    from openai.lib.streaming.responses._responses import ResponseStreamState

    typed, errors, foreign = _stream_events("openai_responses", events, frozenset())
    if errors:
        return errors, []
    state = ResponseStreamState(input_tools=omit, text_format=omit)
    for k, event in typed:
        try:
            state.handle_event(event)
        except Exception as error:  # the SDK's accumulator raises its own and plain errors
            return [
                Violation("sdk", f"$[{k}]", f"accumulator: {type(error).__name__}: {error}")
            ], []
    if not typed or typed[-1][1].type not in _FINAL:
        return [Violation("sdk", "$", "the stream does not end with a final response event")], []
    return [], list(foreign.values())


def stream_verdict(fmt: str, sse: bytes) -> Verdict:
    """A stream of format ``fmt`` (SSE bytes) against the SDK's event types and accumulator
    (Chat: `openai_chunks`; Gemini: each chunk a ``GenerateContentResponse``) and the target's
    response rules on each event that is a response (Chat chunks, Gemini chunks)."""
    if fmt == "openai_chat":
        return openai_chunks(sse)
    try:
        events = sse_data(sse)
    except ValueError as error:
        return Verdict([Violation("sdk", "$", f"not JSON: {error}")], [], [])
    if not events:
        return Verdict([Violation("sdk", "$", "no events")], [], [])
    if fmt == "anthropic":
        sdk, foreign = sdk_anthropic_stream(events)
        return Verdict(sdk, [], foreign)
    if fmt == "openai_responses":
        sdk, foreign = sdk_responses_stream(events)
        return Verdict(sdk, [], foreign)
    sdk, rules = [], []
    for k, chunk in enumerate(events):
        verdict = response_verdict("gemini", chunk)
        sdk += [Violation(v.rule, f"$[{k}]{v.path[1:]}", v.message) for v in verdict.sdk]
        rules += [Violation(v.rule, f"$[{k}]{v.path[1:]}", v.message) for v in verdict.rules]
    return Verdict(sdk[:3], rules, [])
