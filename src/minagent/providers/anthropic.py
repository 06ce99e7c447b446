"""Anthropic Messages API <-> the neutral protocol, both directions (mapping: docs/providers.md).

Anthropic's message and block shapes are the neutral protocol's own, so the adapter mostly moves
things between places:

- the top-level ``system`` (a string, or text blocks) is the leading ``role: "system"`` message;
- each ``tool_result`` block of a user message is a ``role: "tool"`` message (``tool_call_id``,
  ``is_error``, string or block content, other keys such as ``cache_control`` in its ``extra``);
  on the way back, tool messages and the user messages around them join into one user message, in
  order (Anthropic itself merges consecutive user turns, so this is the same request);
- a response's ``id``, ``model``, ``stop_sequence`` and any other key go to the response's
  ``extra``; ``usage`` integer counters (nested ones by dotted name) to ``usage``, the rest of the
  usage object (``service_tier``, ``null`` entries, ...) to ``extra["usage_extra"]``.

Everything else (thinking and its signature, redacted thinking, ``cache_control``, ``citations``,
server tool and MCP blocks) is carried unchanged. Content the Messages API cannot hold (a block
or key of another provider, a counter it has no name for) is refused with `UnsupportedError`, or
dropped and reported with ``unsupported="drop"``.

A request another adapter decoded is also made to pass the rules the API enforces on the server
(docs/providers.md, "Rules the target enforces"): ``max_tokens`` filled (`DEFAULT_MAX_TOKENS`,
or ``defaults=``), empty text and messages left out, a final prefill right-stripped, tool names
and ids fitted to the API's patterns (recorded in a `Renames` that ``decode_response(...,
renames=)`` reverses), tools derived for a tool history, ``metadata`` reduced to ``user_id``,
thinking fitted to ``max_tokens`` and its sampling rules. Settings map both ways where the API
has an equivalent: ``response_format`` (JSON Schema) <-> ``output_config.format``, reasoning
effort <-> thinking budget (``_toolkit.EFFORT_BUDGETS``), ``user`` <-> ``metadata.user_id``,
``stop`` <-> ``stop_sequences``, ``tool_choice`` + parallel <-> ``disable_parallel_tool_use``.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

import msgspec
from msgspec import UNSET

from ..wire import _codec, _lossless
from ..wire import blocks as wb
from ..wire.errors import ValidationError, WireError
from ..wire.extra import Extra
from ..wire.limits import DEFAULT as DEFAULT_LIMITS
from ..wire.limits import Limits
from ..wire.messages import Message, ModelResponse
from . import _toolkit as kit
from ._base import (
    Reasoning,
    Request,
    ResponseFormat,
    Tool,
    ToolChoice,
    Unsupported,
    UnsupportedError,
)
from ._toolkit import SettingsReader

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "MIN_THINKING_BUDGET",
    "NAME",
    "NAME_LIMIT",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
]

NAME = "anthropic"
"""This adapter's name (`providers.get`), and the `SOURCE` hint of data it decoded. The neutral
shape is this API's shape: a message or response without a `SOURCE` hint is written as it is."""

DEFAULT_MAX_TOKENS = 4096
"""The ``max_tokens`` written for another provider's request that set none, when the caller gave
no default either (``encode_request(req, defaults={"max_tokens": N})``, or a function of the
model name for a per-model table): the Messages API requires the key. 4096 is what every
Claude model can produce (LiteLLM's long-standing default too)."""

NAME_LIMIT = 64
"""The longest tool name the Messages API takes (``^[a-zA-Z0-9_-]{1,64}$``)."""

MIN_THINKING_BUDGET = 1024
"""The smallest ``thinking.budget_tokens`` the Messages API takes."""

# --- what the Messages API holds (from the anthropic SDK's types; tests compare) ---------------

BLOCK_KEYS: dict[type[Any], frozenset[str]] = {
    wb.TextBlock: frozenset({"cache_control", "citations"}),
    wb.ImageBlock: frozenset({"cache_control", "transformations"}),
    wb.DocumentBlock: frozenset({"cache_control", "citations", "context", "title"}),
    wb.ToolUseBlock: frozenset({"cache_control", "caller", "toolset_name"}),
    wb.ThinkingBlock: frozenset(),
    wb.RedactedThinkingBlock: frozenset(),
}
"""Keys beyond the neutral fields that each known block may carry on this API."""

OTHER_BLOCKS = frozenset(
    {
        "search_result",
        "tool_result",
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "container_upload",
        "mcp_tool_use",
        "mcp_tool_result",
    }
)
"""Anthropic block types the neutral protocol carries whole (unknown blocks, for now)."""

SOURCE_TYPES = frozenset({"text", "content", "file"})
"""Anthropic source types beyond ``base64`` and ``url``."""

TOOL_RESULT_KEYS = frozenset({"cache_control", "toolset_name"})
"""Keys of a ``tool_result`` block beyond ``tool_use_id``, ``content`` and ``is_error``."""

TOOL_RESULT_CONTENT = frozenset({"text", "image", "document", "search_result"})
"""Block types a ``tool_result``'s content may hold."""

RESPONSE_KEYS = frozenset(
    {"id", "model", "stop_sequence", "stop_details", "container", "diagnostics"}
)
"""Top-level response keys kept in `ModelResponse.extra` that this API knows."""

USAGE_COUNTERS = frozenset(
    {"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
)
USAGE_GROUPS = ("cache_creation.", "server_tool_use.", "output_tokens_details.")
USAGE_OTHER = frozenset({"service_tier", "inference_geo", "speed"})
DERIVED_COUNTERS = frozenset({"total_tokens"})
"""Counters an encoder leaves out without a report: they are sums of the others."""


# --- decoding ----------------------------------------------------------------------------------

_TOP = msgspec.json.Decoder(dict[str, msgspec.Raw])


def _decode_request(data: Any, limits: Limits) -> Request:
    """Decode a Messages API request body into a `Request`.

    ``messages`` gets the ``system`` prompt first (if any), then the conversation with each
    ``tool_result`` block as a ``role: "tool"`` message; ``options`` gets every other key
    unchanged. Raises `DecodeError` / `ValidationError` with the JSON path.
    """
    top = kit.decode_json(data, "$", _TOP)
    raw_messages = top.pop("messages", None)
    if raw_messages is None:
        raise ValidationError("a request needs 'messages'", path="$")
    messages = kit.decode_messages(raw_messages, "$.messages", limits)
    if _mentions_base64(data):
        _keep_base64(messages, kit.decode_json(raw_messages, "$.messages"))
    out: list[Message] = []
    raw_system = top.pop("system", None)
    if raw_system is not None:
        out.append(_system_message(raw_system, limits))
    for i, msg in enumerate(messages):
        start = len(out)
        _split_user(msg, i, out)
        if start and start < len(out) and _would_join(out[start - 1], out[start]):
            out[start] = _hinted(out[start], kit.NEW_TURN)  # two user turns: keep them two
    options = {key: kit.decode_json(raw, f"$.{key}") for key, raw in top.items()}
    return kit.decoded_request(out, options, NAME, read_settings)


def _mentions_base64(data: Any) -> bool:
    """Whether the request text holds ``"base64"`` (else it has no base64 source)."""
    if type(data) is bytes or type(data) is bytearray:
        return b'"base64"' in data
    if type(data) is str:
        return '"base64"' in data
    return b'"base64"' in bytes(data)


def _keep_base64(messages: list[Message], raws: Any) -> None:
    """Give each base64 source of the decoded ``messages`` the text it was read from (``raws``:
    the same messages as plain JSON values), so that it is written back as it came
    (`wb.keep_base64`), with no encode: the wire codec reads base64 into bytes only."""
    if type(raws) is not list or len(raws) != len(messages):
        return
    for msg, raw in zip(messages, raws, strict=True):
        if type(raw) is dict:
            _keep_in(msg.content, raw.get("content"))


_NESTED = (wb.ToolResultBlock, wb.McpToolResultBlock, wb.SearchResultBlock)


def _keep_in(blocks: Any, raws: Any) -> None:
    if type(blocks) is not list or type(raws) is not list or len(blocks) != len(raws):
        return
    for block, raw in zip(blocks, raws, strict=True):
        if type(raw) is not dict:
            continue
        cls = type(block)
        if cls is wb.ImageBlock or cls is wb.DocumentBlock:
            source, raw_source = block.source, raw.get("source")
            if type(raw_source) is not dict:
                continue
            if type(source) is wb.Base64Source:
                wb.keep_base64(source, raw_source.get("data"))
            elif type(source) is wb.ContentSource:
                _keep_in(source.content, raw_source.get("content"))
        elif cls in _NESTED:
            _keep_in(block.content, raw.get("content"))


def _tool_ok(tool: Any) -> bool:
    return kit.tool_ok(tool, {"name", "input_schema"}, "input_schema")


def _choice_ok(choice: Any) -> bool:
    if not kit.has_keys(choice, {"type"}, {"name", "disable_parallel_tool_use"}):
        return False
    kind = choice["type"]
    if kind == "tool":
        named = kit.is_str(choice.get("name"))
    else:
        named = kind in ("auto", "any", "none") and "name" not in choice
    return named and type(choice.get("disable_parallel_tool_use", False)) is bool


def _choice_in(choice: dict[str, Any]) -> ToolChoice:
    disable = choice.get("disable_parallel_tool_use")
    return ToolChoice(
        mode=choice["type"],
        name=choice.get("name"),
        parallel=None if disable is None else not disable,
    )


def _thinking_ok(value: Any) -> bool:
    """Whether ``thinking`` is enabled with a budget (``disabled``, the API's default, stays an
    option: spelled as "no thinking" for another provider it could refuse a model that has no
    such switch)."""
    return (
        kit.has_keys(value, {"type", "budget_tokens"})
        and value["type"] == "enabled"
        and kit.is_int(value["budget_tokens"])
    )


def _thinking_in(value: dict[str, Any]) -> Reasoning:
    return Reasoning(budget_tokens=value["budget_tokens"])


def _output_ok(value: Any) -> bool:
    """Whether ``output_config`` holds just a JSON Schema answer shape (structured outputs)."""
    if not kit.has_keys(value, {"format"}):
        return False
    form = value["format"]
    return (
        kit.has_keys(form, {"type", "schema"})
        and form["type"] == "json_schema"
        and type(form["schema"]) is dict
    )


def _output_in(value: dict[str, Any]) -> ResponseFormat:
    return ResponseFormat(type="json_schema", schema=value["format"]["schema"])


def read_settings(options: dict[str, Any]) -> SettingsReader:
    """Move the options this API spells exactly like the neutral settings out of ``options``."""
    reader = SettingsReader(options)
    take = reader.take
    kit.take_same(reader, ("model", "max_tokens", "temperature", "top_p", "stream"))
    take("stop_sequences", "stop", kit.is_strings, list)
    kit.take_tools(reader, _tool_ok, lambda tool: kit.tool_from(tool, "input_schema"))
    take("tool_choice", "tool_choice", _choice_ok, _choice_in)
    take("thinking", "reasoning", _thinking_ok, _thinking_in)
    take("output_config", "response_format", _output_ok, _output_in)
    take(
        "metadata",
        "user",
        lambda v: kit.has_keys(v, {"user_id"}) and kit.is_str(v["user_id"]),
        lambda v: v["user_id"],
    )
    return reader


def write_settings(fields: dict[str, Any], policy: Unsupported) -> dict[str, Any]:
    """The neutral settings spelled for the Messages API (the mapping and the rules are in
    docs/providers.md); what it has no spelling for is reported."""
    out, rest = kit.spelled_alike(fields, ("model", "max_tokens", "temperature", "top_p", "stream"))
    for name, value in rest.items():
        if name == "tools":
            out["tools"] = [_tool_out(t, policy) for t in value]
        elif name == "stop":
            out["stop_sequences"] = list(value)
        elif name == "tool_choice":
            choice = _choice_out(value, policy)
            if choice is not None:
                out["tool_choice"] = choice
        elif name == "reasoning":
            _thinking_out(value, out, policy)
        elif name == "response_format":
            _format_out(value, out, policy)
        elif name == "user":
            out["metadata"] = {"user_id": value}
        elif name == "metadata":
            _metadata_out(value, out, policy)
        else:
            policy.report(f"$.{name}", f"the setting {name!r} (no Messages API spelling)")
    if "thinking" in out and out["thinking"]["type"] == "enabled":
        _with_thinking(out, policy)
    return out


def _tool_out(tool: Tool, policy: Unsupported) -> dict[str, Any]:
    """A `Tool` as a custom tool: its name fitted to the API's pattern, its schema an object
    schema (the API requires ``type: "object"``; a schema without a ``type``, such as OpenAI's
    ``{}``, describes the same object arguments with it added)."""
    out = kit.tool_fields(tool, "input_schema", {"type": "object", "properties": {}})
    out["name"] = policy.renaming().name(tool.name, NAME_LIMIT)
    schema = out["input_schema"]
    if "type" not in schema:
        out["input_schema"] = {"type": "object", **schema}
    return out


def _choice_out(choice: ToolChoice, policy: Unsupported) -> dict[str, Any] | None:
    if choice.mode is None and choice.parallel is None:
        return None
    out: dict[str, Any] = {"type": choice.mode or "auto"}
    if choice.mode == "tool":
        out["name"] = policy.renaming().name(choice.name or "", NAME_LIMIT)
    if choice.parallel is not None:
        if choice.mode == "none":
            policy.metadata("$.tool_choice.parallel", "parallel tool calls with no tool calls")
        else:
            out["disable_parallel_tool_use"] = not choice.parallel
    return out


def _thinking_out(reasoning: Reasoning, out: dict[str, Any], policy: Unsupported) -> None:
    """``thinking`` for a `Reasoning`: its budget, or the budget its effort names
    (`kit.EFFORT_BUDGETS`), kept at least `MIN_THINKING_BUDGET` and below ``max_tokens`` (the
    API's rules; a change is listed); a budget of 0 (effort ``none``) is ``disabled``."""
    tokens = kit.budget(reasoning, policy)
    if tokens is None:
        return
    if tokens == 0:
        out["thinking"] = {"type": "disabled"}
        return
    if tokens < 0:
        policy.metadata("$.reasoning.budget_tokens", "a dynamic thinking budget (no spelling here)")
        return
    limit = out.get("max_tokens")
    ceiling = limit - 1 if type(limit) is int else tokens
    if ceiling < MIN_THINKING_BUDGET:
        what = f"thinking (max_tokens {limit} leaves no room for a budget of {MIN_THINKING_BUDGET})"
        policy.metadata("$.reasoning", what)
        return
    fitted = min(max(tokens, MIN_THINKING_BUDGET), ceiling)
    if fitted != tokens:
        what = f"the thinking budget {tokens}, written as {fitted} (at least "
        policy.metadata(
            "$.reasoning.budget_tokens", what + f"{MIN_THINKING_BUDGET}, below max_tokens)"
        )
    out["thinking"] = {"type": "enabled", "budget_tokens": fitted}


def _with_thinking(out: dict[str, Any], policy: Unsupported) -> None:
    """Enforce what the API requires beside enabled thinking: no forced tool use (thinking is
    left out then), ``temperature`` only 1, ``top_p`` at least 0.95 (left out otherwise)."""
    choice = out.get("tool_choice")
    if choice is not None and choice["type"] in ("any", "tool"):
        del out["thinking"]
        policy.metadata("$.reasoning", "thinking beside a forced tool call (the API refuses both)")
        return
    if "temperature" in out and out["temperature"] != 1:
        del out["temperature"]
        policy.metadata("$.temperature", "the temperature (with thinking the API takes only 1)")
    if "top_p" in out and out["top_p"] < 0.95:
        del out["top_p"]
        policy.metadata("$.top_p", "top_p (with thinking the API takes 0.95 to 1)")


def _format_out(form: ResponseFormat, out: dict[str, Any], policy: Unsupported) -> None:
    """A `ResponseFormat` as structured outputs (``output_config.format``): a JSON Schema only."""
    if form.type == "text":
        return  # the API's own default: nothing to write
    if form.type != "json_schema" or form.schema is None:
        policy.report("$.response_format", "a JSON answer without a schema (the API takes one)")
        return
    out["output_config"] = {"format": {"type": "json_schema", "schema": form.schema}}
    if form.name is not None:
        policy.metadata("$.response_format.name", "the schema's name (no Messages API field)")
    if form.strict is False:
        policy.metadata("$.response_format.strict", "strict: false (the schema is always kept)")


def _metadata_out(metadata: dict[str, Any], out: dict[str, Any], policy: Unsupported) -> None:
    """``metadata`` holds only ``user_id`` (a string) here; every other key is listed."""
    for key, value in metadata.items():
        if key == "user_id" and type(value) is str and "metadata" not in out:
            out["metadata"] = {"user_id": value}
        elif key == "user_id" and "metadata" in out:
            policy.metadata("$.metadata.user_id", "metadata.user_id beside user (user wins)")
        else:
            what = f"the metadata key {key!r} (Messages API metadata holds only user_id)"
            policy.metadata(f"$.metadata.{key}", what)


def _system_message(raw: msgspec.Raw, limits: Limits) -> Message:
    data = b'{"role":"system","content":' + bytes(raw) + b"}"
    try:
        msg: Message = _codec.JSON.decode(data, Message, limits)
    except WireError as err:
        raise kit.prefixed(err, "$.system") from None
    return msg


def _split_user(msg: Message, i: int, out: list[Message]) -> None:
    """Append ``msg`` to ``out``, as several messages if it holds ``tool_result`` blocks."""
    role = msg.role
    if role == "tool" or msg.tool_call_id is not UNSET or msg.is_error is not UNSET:
        raise ValidationError(f"role {role!r} is not a Messages API role", path=f"$.messages[{i}]")
    content = msg.content
    if role != "user" or isinstance(content, str) or not any(map(_is_tool_result, content)):
        out.append(msg)
        return
    if msg.extra is not UNSET:
        raise ValidationError(
            f"unknown keys {sorted(msg.extra)} on a user message with tool results",
            path=f"$.messages[{i}]",
        )
    run: list[wb.ContentBlock] = []
    for j, block in enumerate(content):
        if _is_tool_result(block):
            if run:
                out.append(Message(role="user", content=run))
                run = []
            out.append(_tool_message(block, f"$.messages[{i}].content[{j}]"))
        else:
            run.append(block)
    if run:
        out.append(Message(role="user", content=run))


def _would_join(previous: Message, msg: Message) -> bool:
    """Whether `encode_request` would write ``msg`` into the same user turn as ``previous``."""
    if msg.role == "tool":
        return previous.role == "tool" or (previous.role == "user" and _listed(previous))
    return previous.role == "tool" and msg.role == "user" and _listed(msg)


def _listed(msg: Message) -> bool:
    if type(msg.content) is not list or not msg.content:
        return False
    return msg.extra is UNSET or all(key in kit.HINTS for key in msg.extra)


def _hinted(msg: Message, hint: str) -> Message:
    """``msg`` with the hint ``hint: true`` added to its ``extra``."""
    extra = dict(msg.extra.items()) if msg.extra is not UNSET else {}
    extra[hint] = True
    return msgspec.structs.replace(msg, extra=Extra._own(extra))


def _is_tool_result(block: wb.ContentBlock) -> bool:
    return _block_type(block) == "tool_result"


def _as_dict(block: Any) -> dict[str, Any]:
    """A block as the plain object it was on the wire (a new dict)."""
    if type(block) is wb.UnknownBlock:
        return block.data.to_dict()
    # a typed block (the provider catalog): let the wire codec write it, then read it back
    wrapped = _codec.JSON.encode(Message(role="user", content=[block]), False)
    value: dict[str, Any] = msgspec.json.decode(wrapped)["content"][0]
    return value


def _tool_message(block: Any, path: str) -> Message:
    """A ``tool_result`` block as a tool message."""
    if type(block) is wb.ToolResultBlock:  # the typed catalog block: its fields, no re-parse
        keys = kit.block_keys(block)
        body: Any = keys.pop("content", UNSET)
        if body is UNSET:
            body = ""
            keys["content_absent"] = True
        return Message(
            role="tool",
            content=body,
            tool_call_id=block.tool_use_id,
            is_error=keys.pop("is_error", UNSET),
            extra=Extra._own(keys) if keys else UNSET,
        )
    data = _as_dict(block)
    del data["type"]
    tool_use_id = data.pop("tool_use_id", None)
    if type(tool_use_id) is not str:
        raise ValidationError("a tool_result needs a string 'tool_use_id'", path=path)
    is_error = data.pop("is_error", UNSET)
    if is_error is not UNSET and type(is_error) is not bool:
        raise ValidationError("'is_error' must be a boolean", path=path + ".is_error")
    content: Any = data.pop("content", UNSET)
    if content is UNSET:
        content = ""
        data["content_absent"] = True
    elif type(content) is list:
        wrapped = {"role": "user", "content": content}
        content = _lossless.build(Message, wrapped, path).content
    elif not isinstance(content, str):
        raise ValidationError("'content' must be a string or an array", path=path + ".content")
    return Message(
        role="tool",
        content=content,
        tool_call_id=tool_use_id,
        is_error=is_error,
        extra=Extra._own(data) if data else UNSET,
    )


class _Response(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The common response shape, for the one-call fast path."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    model: str
    content: list[wb.ContentBlock]
    stop_reason: str
    stop_sequence: str | None
    usage: dict[str, Any]
    stop_details: Any = UNSET
    container: Any = UNSET


_FAST = msgspec.json.Decoder(_Response, dec_hook=_codec._dec_hook)


def _decode_response(data: Any, limits: Limits) -> ModelResponse:
    """Decode a Messages API response body into a `ModelResponse` (see the module docstring).

    Raises `DecodeError` / `ValidationError` with the JSON path.
    """
    try:
        fast = _FAST.decode(data)
    except (msgspec.ValidationError, RecursionError, UnicodeError):
        return _decode_response_slow(data)
    except msgspec.DecodeError:
        kit.decode_json(data, "$")  # raises the located DecodeError
        raise
    return _fast_response(fast)


def _fast_response(fast: _Response) -> ModelResponse:
    counters, other = kit.flatten_usage(fast.usage)
    extra: dict[str, Any] = {kit.SOURCE: NAME, "stop_sequence": fast.stop_sequence}
    if fast.stop_details is not UNSET:
        extra["stop_details"] = fast.stop_details
    if fast.container is not UNSET:
        extra["container"] = fast.container
    if other:
        extra[kit.USAGE_EXTRA] = other
    return ModelResponse(
        message=Message(role="assistant", content=fast.content),
        stop_reason=fast.stop_reason,
        usage=counters,
        id=fast.id,
        model=fast.model,
        extra=Extra._own(extra),
    )


_CONTENT = msgspec.json.Decoder(list[wb.ContentBlock], dec_hook=_codec._dec_hook)


def decode_blocks(data: bytes) -> tuple[list[Any], bool]:
    """The blocks of ``data`` (a JSON array of content blocks) exactly as `decode_response`
    reads them in a response's ``content``, and whether that read takes its slow path (a block
    of a shape the typed decode does not know: the response is then read the slow way whole).
    For a stream accumulator that decodes each block once; `WireError` for a bad block (the
    caller reads the whole response then, to say where)."""
    try:
        return _CONTENT.decode(data), False
    except (msgspec.ValidationError, RecursionError, UnicodeError):
        pass
    wrapped = b'{"role":"assistant","content":' + data + b"}"
    message: Message = _codec.JSON.decode(wrapped, Message)
    return list(message.content), True


def decode_shell(data: bytes, slow: bool) -> ModelResponse:
    """`decode_response` of ``data``, a response body whose ``content`` is ``[]``, taking the
    slow path when ``slow`` (its blocks, decoded apart with `decode_blocks`, took it): with
    those blocks put in, the response `decode_response` gives for the whole body."""
    if not slow:
        return _decode_response(data, DEFAULT_LIMITS)
    try:
        fast = _FAST.decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeError):
        return _decode_response_slow(data)
    if fast.stop_details is UNSET and fast.container is UNSET:
        # the slow path's extra then holds the same keys in the same order (the source, the
        # stop sequence, the usage's other entries): no need to read the body twice
        return _fast_response(fast)
    return _decode_response_slow(data)


def _decode_response_slow(data: Any) -> ModelResponse:
    top = kit.decode_json(data, "$", _TOP)
    raw_content = top.pop("content", None)
    if raw_content is None:
        raise ValidationError("a response needs 'content'", path="$")
    wrapped = b'{"role":"assistant","content":' + bytes(raw_content) + b"}"
    try:
        message: Message = _codec.JSON.decode(wrapped, Message)
    except WireError as err:
        raise kit.prefixed(err, "$") from None
    rest = {key: kit.decode_json(raw, f"$.{key}") for key, raw in top.items()}
    if rest.pop("type", "message") != "message":
        raise ValidationError("a response's 'type' must be 'message'", path="$.type")
    if rest.pop("role", "assistant") != "assistant":
        raise ValidationError("a response's 'role' must be 'assistant'", path="$.role")
    stop_reason = rest.pop("stop_reason", None)
    if type(stop_reason) is not str:
        raise ValidationError("'stop_reason' must be a string", path="$.stop_reason")
    usage = rest.pop("usage", {})
    if type(usage) is not dict:
        raise ValidationError("'usage' must be an object", path="$.usage")
    counters, other = kit.flatten_usage(usage)
    typed: dict[str, Any] = {}
    for key in ("id", "model"):
        if type(rest.get(key)) is str:
            typed[key] = rest.pop(key)
    if other:
        rest[kit.USAGE_EXTRA] = other
    return ModelResponse(
        message=message,
        stop_reason=stop_reason,
        usage=counters,
        extra=Extra._own({kit.SOURCE: NAME, **rest}),
        **typed,
    )


# --- encoding ----------------------------------------------------------------------------------


def _encode_request(req: Request, policy: Unsupported) -> bytes:
    """Write a Messages API request body: ``encode_request(req)`` or
    ``encode_request(messages, model=..., max_tokens=..., tools=..., **options)``.

    Keyword options add to and override ``request.options`` (and the request's settings);
    ``defaults=`` fill only what the request lacks. Messages in the neutral shape (no `SOURCE`
    hint: this API's own) are written as they are, unknown blocks and keys included. Another
    provider's data is mapped where this API has an exact equivalent; what it cannot hold
    raises `UnsupportedError` naming it and its path when it is content, or, with
    ``unsupported="drop"`` (and always for metadata), is left out and listed in ``dropped``.

    ``max_tokens`` is always written (`DEFAULT_MAX_TOKENS` when neither the request nor
    ``defaults`` set it), but for a request this adapter decoded, which is written back as it
    came. A request another adapter decoded is also made to pass the rules the API enforces
    (docs/providers.md, "Rules the target enforces"): empty text blocks,
    empty messages and the trailing whitespace of a final assistant turn are left out (listed);
    tool names and ids are fitted to the API's patterns (recorded in ``renames=``); tool calls
    in a history without ``tools`` get tool definitions derived from the calls (and
    ``tool_choice: none``). Messages built by hand (``provider=None``) are the neutral shape,
    this API's own: written as they are. The input is never changed.
    """
    if req.provider != NAME and req.max_tokens is None and "max_tokens" not in req.options:
        req = msgspec.structs.replace(req, max_tokens=DEFAULT_MAX_TOKENS)
    fix = req.provider is not None and req.provider != NAME
    body = kit.encode_settings(req, NAME, read_settings, write_settings, policy)
    messages = req.messages
    start = 0
    system: list[Any] = []
    while start < len(messages) and messages[start].role == "system":
        system.append(messages[start])
        start += 1
    if system:
        value = _system(system, policy, fix)
        if value is not None:
            body["system"] = value
    out: list[dict[str, Any]] = []
    joinable = False  # may the next tool message join out[-1]? (after a tool or a split user)
    after_tool = False
    last_path = "$"  # (fix) where the last message written came from
    calls: list[str] = []  # (fix) the unanswered tool use ids of the last assistant turn
    for i in range(start, len(messages)):
        msg = messages[i]
        path = f"$.messages[{i}]"
        role = msg.role
        extra = msg.extra
        own = extra is UNSET or kit.is_own(extra, NAME, neutral=True)
        new_turn = extra is not UNSET and extra.get(kit.NEW_TURN) is True
        if role == "tool":
            block = _tool_result(msg, path, policy, own, fix)
            if block is None:
                continue
            if fix:
                if block["tool_use_id"] not in calls:
                    what = "a tool result answering no tool call of the assistant turn before it"
                    policy.report(path, what + " (the API refuses it)")
                    continue
                calls.remove(block["tool_use_id"])
            if joinable and not new_turn:
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            joinable = after_tool = True
            continue
        keys = _message_keys(msg, path, policy, own)
        content = _content(msg.content, path, policy, own, fix)
        if fix and (not content or (type(content) is str and content.isspace())):
            policy.metadata(path, f"an empty {role} message (the API takes none)")
            continue
        listed = role == "user" and type(msg.content) is list and len(msg.content) > 0
        if listed and after_tool and not new_turn and not keys:
            out[-1]["content"].extend(content)
        else:
            if listed:  # tool results may join this turn: a list of its own, not the caller's
                content = list(content)
            item = {"role": role, "content": content}
            if keys:
                item.update(keys)
            out.append(item)
            if fix:
                calls = _call_ids(content) if role == "assistant" else []
                last_path = path
        joinable = listed and not keys
        after_tool = False
    if fix and out and out[-1]["role"] == "assistant":  # a prefill: no trailing whitespace
        final = _prefill(out[-1]["content"], last_path, policy)
        if final:
            out[-1] = {**out[-1], "content": final}
        else:
            policy.metadata(last_path, "an empty assistant message (the API takes none)")
            out.pop()
    if fix and not out:  # nothing the API would take: no request to send
        raise UnsupportedError(
            "the target format cannot hold a request with no messages (the Messages API "
            "needs at least one)",
            path="$.messages",
        )
    body["messages"] = out
    if fix:
        _tool_rules(body, messages, policy)
        _thinking_history(body, policy)
    return kit.encode_json(body)


def _tool_rules(body: dict[str, Any], messages: list[Message], policy: Unsupported) -> None:
    """Tool calls in the history need ``tools`` (the API refuses them otherwise): definitions
    derived from the calls' names (an object schema), with ``tool_choice: none`` since the
    client offered no tools this turn; a ``tool_choice`` without any tools is left out."""
    if "tools" not in body:
        names: dict[str, None] = {}
        for msg in messages:
            if msg.role == "assistant" and type(msg.content) is list:
                for block in msg.content:
                    if type(block) is wb.ToolUseBlock:
                        names[policy.renaming().name(block.name, NAME_LIMIT)] = None
        if names:
            body["tools"] = [{"name": n, "input_schema": _ANY_OBJECT} for n in names]
            if "tool_choice" in body:
                what = "a tool choice without tools (tools offered for the history only)"
                policy.metadata("$.tool_choice", what)
            body["tool_choice"] = {"type": "none"}
            return
    if "tool_choice" in body and not body.get("tools"):
        policy.metadata("$.tool_choice", "a tool choice without tools (the API refuses it)")
        del body["tool_choice"]


_ANY_OBJECT = {"type": "object"}


def _thinking_history(body: dict[str, Any], policy: Unsupported) -> None:
    """With thinking enabled, the last assistant turn holding tool calls must start with a
    thinking block (the API refuses it otherwise); a history from a client that never saw the
    thinking cannot provide one, so thinking is left out for this request (listed), as LiteLLM
    does."""
    thinking = body.get("thinking")
    if thinking is None or thinking.get("type") != "enabled":
        return
    for item in reversed(body["messages"]):
        if item["role"] != "assistant":
            continue
        content = item["content"]
        if type(content) is str or not _call_ids(content):
            return
        first = content[0]
        kind = first.get("type") if type(first) is dict else getattr(first, "type", None)
        if kind not in ("thinking", "redacted_thinking"):
            del body["thinking"]
            what = "thinking (the last tool-calling assistant turn has no thinking block)"
            policy.metadata("$.reasoning", what)
        return


def _call_ids(content: Any) -> list[str]:
    """The tool use ids of written content (blocks, or their lowered dicts), in order."""
    if type(content) is str:
        return []
    ids = []
    for block in content:
        if type(block) is wb.ToolUseBlock:
            ids.append(block.id)
        elif type(block) is dict and block.get("type") == "tool_use":
            ids.append(str(block.get("id")))
    return ids


def _prefill(content: Any, path: str, policy: Unsupported) -> Any:
    """A final assistant turn (a prefill) without trailing whitespace (the API refuses it)."""
    what = "the trailing whitespace of the final assistant turn (the API refuses it)"
    if type(content) is str:
        stripped = content.rstrip()
        if stripped != content:
            policy.metadata(path + ".content", what)
        return stripped
    if not content:
        return content
    end = content[-1]
    text = end.get("text") if type(end) is dict else getattr(end, "text", None)
    kind = end.get("type") if type(end) is dict else getattr(end, "type", None)
    if kind != "text" or type(text) is not str or text == text.rstrip():
        return content
    where = f"{path}.content[{len(content) - 1}]"
    policy.metadata(where, what)
    if not text.strip():
        return content[:-1]
    if type(end) is dict:
        end = {**end, "text": text.rstrip()}
    else:
        end = msgspec.structs.replace(end, text=text.rstrip())
    return [*content[:-1], end]


_NONE: frozenset[str] = frozenset()


def _message_keys(msg: Message, path: str, policy: Unsupported, own: bool) -> dict[str, Any]:
    """The message keys to write back (its own provider's), after reporting the others."""
    return {} if msg.extra is UNSET else kit.kept_keys(msg.extra, _NONE, own, policy, path)


def _system(messages: list[Message], policy: Unsupported, fix: bool = False) -> Any:
    """The ``system`` value for the leading system messages (``fix``: empty text left out)."""
    parts: list[Any] = []
    for i, msg in enumerate(messages):
        path = f"$.messages[{i}]"
        own = msg.extra is UNSET or kit.is_own(msg.extra, NAME, neutral=True)
        if _message_keys(msg, path, policy, own):
            policy.metadata(path, "message keys on a system message (the system prompt has none)")
        content = msg.content
        if isinstance(content, str) and fix and (not content or content.isspace()):
            policy.metadata(path, "an empty system prompt (the API refuses empty text)")
            continue
        if len(messages) == 1 and isinstance(content, str):
            return content
        if isinstance(content, str):
            parts.append({"type": "text", "text": content})
            continue
        kept = [
            b for j, b in enumerate(content) if _system_block(b, f"{path}.content[{j}]", policy)
        ]
        parts.extend(_content(kept, path, policy, own, fix))
    return parts if parts or not fix else None


def _system_block(block: wb.ContentBlock, path: str, policy: Unsupported) -> bool:
    if type(block) is wb.TextBlock:
        return True
    policy.report(path, f"a {_block_type(block)} block in the system prompt (text only)")
    return False


def _tool_result(
    msg: Message, path: str, policy: Unsupported, own: bool, fix: bool = False
) -> dict[str, Any] | None:
    if msg.tool_call_id is UNSET:
        policy.report(path, "a tool message without tool_call_id")
        return None
    ident = policy.renaming().id(msg.tool_call_id) if fix else msg.tool_call_id
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": ident}
    extra = msg.extra
    absent = extra is not UNSET and extra.get("content_absent") is True
    if fix and isinstance(msg.content, str) and (not msg.content or msg.content.isspace()):
        if msg.content:
            policy.metadata(path + ".content", "a tool result of whitespace only (no text)")
        absent = True  # "" and whitespace: the result without content (the key is optional)
    if not absent:
        content = msg.content
        if not isinstance(content, str):
            kept = []
            for j, b in enumerate(content):
                kind = _block_type(b)
                if own or kind in TOOL_RESULT_CONTENT:
                    kept.append(b)
                else:
                    policy.report(f"{path}.content[{j}]", f"{kit.a(kind)} block in a tool result")
            content = _content(kept, path, policy, own, fix)
        if content or not fix:
            block["content"] = content
    if msg.is_error is not UNSET:
        block["is_error"] = msg.is_error
    if extra is not UNSET:
        what = "the key {} on a tool result"
        block.update(kit.kept_keys(extra, TOOL_RESULT_KEYS, own, policy, path, what))
    return block


def _block_type(block: Any) -> str:
    return str(block.type)


def _content(
    content: str | list[wb.ContentBlock],
    path: str,
    policy: Unsupported,
    own: bool = True,
    fix: bool = False,
) -> Any:
    """Message content as this API writes it (blocks checked, lowered for msgspec). ``fix``
    (another provider's request): empty text blocks are left out (listed) and tool call names
    and ids fitted to the API's patterns."""
    if isinstance(content, str):
        return content
    media = False  # an image or document among them (its base64 is spliced in: `_spliced`)
    for block in content:  # the common case: plain blocks go to msgspec as they are
        cls = type(block)
        if cls in _PLAIN:
            if block.extra is UNSET and (
                cls is not wb.ThinkingBlock or block.signature is not UNSET
            ):  # type: ignore[union-attr]
                if not fix:
                    continue
                if cls is wb.TextBlock:
                    if block.text and not block.text.isspace():  # type: ignore[union-attr]
                        continue
                elif cls is not wb.ToolUseBlock or _fits(block, policy):
                    continue
        elif (cls is wb.ImageBlock or cls is wb.DocumentBlock) and block.extra is UNSET:  # type: ignore[union-attr]
            source = block.source  # type: ignore[union-attr]
            if type(source) in _PLAIN_SOURCES and source.extra is UNSET:  # type: ignore[union-attr]
                media = media or type(source) is wb.Base64Source
                if not fix or type(source) is not wb.Base64Source:
                    continue
                if source.media_type in _MEDIA[cls]:
                    continue
        break
    else:
        return _spliced_all(content) if media else content
    kept: list[Any] = []
    for j, block in enumerate(content):
        where = f"{path}.content[{j}]"
        cls = type(block)
        if cls is wb.ThinkingBlock and block.signature is UNSET:  # type: ignore[union-attr]
            policy.report(
                where,
                "a thinking block without a signature (Anthropic takes back only thinking it "
                "signed)",
            )
            continue
        if fix and cls is wb.TextBlock and (not block.text or block.text.isspace()):  # type: ignore[union-attr]
            policy.metadata(where, "an empty text block (the API refuses whitespace-only text)")
            continue
        if fix and (cls is wb.ImageBlock or cls is wb.DocumentBlock):
            block = _media(block, where, policy)
            if block is None:
                continue
        if fix and cls is wb.ToolUseBlock and not _fits(block, policy):
            renames = policy.renaming()
            block = msgspec.structs.replace(
                block,
                id=renames.id(block.id),  # type: ignore[union-attr]
                name=renames.name(block.name, NAME_LIMIT),  # type: ignore[union-attr]
            )
        if own:
            kept.append(block)
            continue
        if isinstance(block, wb.UnknownBlock):
            kit.foreign_block(policy, where, block.type, "another provider")
            continue
        block = _checked_block(block, where, policy)
        if block is not None:
            kept.append(block)
    return _spliced_all(kit.lowered(kept, path + ".content"))


class _Base64Out(msgspec.Struct, tag="base64", tag_field="type", gc=False):
    """A `wb.Base64Source` without extra keys as written: the same keys in the same order, its
    ``data`` a `Spliced` (`kit.base64_json`: the text it was read from, or its bytes encoded
    once, copied in after msgspec has written the rest)."""

    media_type: str
    data: Any


def _spliced(block: Any) -> Any:
    """``block`` (lowered: a Struct or a dict), or for an image or document whose source is a
    `wb.Base64Source` without extra keys, a copy writing that through `_Base64Out`."""
    cls = type(block)
    if cls is dict:
        source = block.get("source")
        if type(source) is wb.Base64Source and source.extra is UNSET:
            return {**block, "source": _Base64Out(source.media_type, kit.base64_json(source))}
        if type(source) is dict and type(source.get("content")) is list:  # a content source
            return {**block, "source": {**source, "content": _spliced_all(source["content"])}}
        return block
    if cls is not wb.ImageBlock and cls is not wb.DocumentBlock:
        return block
    source = block.source
    if type(source) is wb.ContentSource and type(source.content) is list:
        content = msgspec.structs.replace(source, content=_spliced_all(source.content))
        return msgspec.structs.replace(block, source=content)
    if type(source) is not wb.Base64Source or source.extra is not UNSET:
        return block
    data = kit.base64_json(source)
    return msgspec.structs.replace(block, source=_Base64Out(source.media_type, data))


def _spliced_all(blocks: list[Any]) -> list[Any]:
    return [_spliced(block) for block in blocks]


_MEDIA: dict[type[Any], frozenset[str]] = {
    wb.ImageBlock: frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"}),
    wb.DocumentBlock: frozenset({"application/pdf"}),
}
"""The media types a base64 image / document source may have on this API."""


def _media(block: Any, path: str, policy: Unsupported) -> Any:
    """An image or document whose base64 media type the API takes; a ``text/*`` document as the
    plain-text source the API takes for text (UTF-8); None (reported as content) otherwise."""
    source = block.source
    if type(source) is not wb.Base64Source or source.media_type in _MEDIA[type(block)]:
        return block
    kind = source.media_type
    if type(block) is wb.DocumentBlock and kind.startswith("text/"):
        try:
            text = source.data.decode("utf-8")
        except UnicodeDecodeError:
            policy.report(path, f"a {kind} document that is not UTF-8 text")
            return None
        if kind.split(";")[0] != "text/plain":
            policy.metadata(path + ".source.media_type", f"the media type {kind} (sent as text)")
        plain = wb.TextSource(media_type="text/plain", data=text, extra=source.extra)
        return msgspec.structs.replace(block, source=plain)
    policy.report(path, f"{kit.a(block.type)} block of type {kind} (no such media here)")
    return None


def _fits(block: Any, policy: Unsupported) -> bool:
    """Whether a tool call's id and name match the API's patterns (each is recorded, so a
    rewrite of another value never takes it)."""
    renames = policy.renaming()
    ident: str = block.id
    name: str = block.name
    return renames.id(ident) == ident and renames.name(name, NAME_LIMIT) == name


_PLAIN = frozenset({wb.TextBlock, wb.ToolUseBlock, wb.ThinkingBlock, wb.RedactedThinkingBlock})
_PLAIN_SOURCES = frozenset({wb.Base64Source, wb.UrlSource})


def _checked_block(block: Any, path: str, policy: Unsupported) -> Any:
    """Another provider's ``block``, or a copy without the keys this API cannot hold, or None to
    leave it out."""
    cls = type(block)
    if cls is wb.ImageBlock or cls is wb.DocumentBlock:
        source = block.source
        if type(source) is wb.UnknownSource and source.type not in SOURCE_TYPES:
            policy.report(path + ".source", f"a {source.type!r} source")
            return None
        if (type(source) is wb.Base64Source or type(source) is wb.UrlSource) and (
            source.extra is not UNSET
        ):
            for key, value in source.extra.items():
                kit.foreign_key(
                    policy, f"{path}.source.{key}", f"the key {key!r} on a source", key, value
                )
            source = msgspec.structs.replace(source, extra=UNSET)
            block = msgspec.structs.replace(block, source=source)
    allowed = BLOCK_KEYS.get(cls)
    if allowed is None:  # a typed block of the provider catalog: an Anthropic block or not
        if _block_type(block) in OTHER_BLOCKS:
            return block
        kit.foreign_block(policy, path, _block_type(block), "another provider")
        return None
    keys = kit.block_keys(block)
    if not keys:
        return block
    bad = {k for k in keys if k not in allowed}
    if not bad:
        return block
    for key, value in keys.items():
        if key in bad and not kit.block_hint(key, block):
            what = f"the key {key!r} on a {cls.type} block"
            kit.foreign_key(policy, f"{path}.{key}", what, key, value)
    return kit.without_keys(block, bad)


def _encode_response(response: ModelResponse, policy: Unsupported, fields: dict[str, Any]) -> bytes:
    """Write a Messages API response body for ``response`` (what a gateway returns to a client).

    ``fields`` supply top-level keys the response lacks (``id=``, ``model=``). A response decoded
    by `decode_response` is written back as it came. Another provider's keys, blocks and counters
    this API cannot hold are refused (content) or listed in ``dropped`` (metadata; content too
    with ``unsupported="drop"``); none is copied.
    """
    extra = dict(response.extra.items()) if response.extra is not UNSET else {}
    own = extra.pop(kit.SOURCE, NAME) == NAME
    usage_other = extra.pop(kit.USAGE_EXTRA, None)
    if type(usage_other) is not dict:
        if usage_other is not None:
            policy.metadata("$.usage_extra", "a usage that is not an object")
        usage_other = {}
    top: dict[str, Any] = {}
    if own:
        top = {k: v for k, v in extra.items() if k not in kit.HINTS}
    else:
        kit.foreign_extra(policy, extra, "$", "the response key")
    for key, value in fields.items():
        if key != "created":  # a Messages response has no creation time: listed below
            top.setdefault(key, value)
    msg = response.message
    msg_own = msg.extra is UNSET or kit.is_own(msg.extra, NAME, neutral=True)
    if _message_keys(msg, "$.message", policy, msg_own):
        policy.metadata("$.message", "message keys on a response message (it has none here)")
    content = msg.content
    if isinstance(content, str):
        content = [wb.TextBlock(content)] if content else []
    ident = response.id if response.id is not UNSET else top.pop("id", None)
    if ident is None:  # a Message needs an id: one of this API's form, made up here
        ident = "msg_" + uuid.uuid4().hex[:24]
    model = response.model if response.model is not UNSET else top.pop("model", None)
    top.pop("id", None)
    top.pop("model", None)
    if response.created is not UNSET or "created" in fields:
        policy.metadata("$.created", "the creation time (a Messages response has none)")
    body = {
        "id": ident,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _content(content, "$.message", policy, msg_own),
        "stop_reason": response.stop_reason
        if own
        else kit.enum_stop_reason(
            response.stop_reason,
            kit.ANTHROPIC_STOP_REASONS,
            kit.ANTHROPIC_FOREIGN_STOP,
            "end_turn",
            policy,
        ),
        "stop_sequence": top.pop("stop_sequence", None),
        "usage": _usage(response.usage, usage_other, policy, own),
    }
    body.update(top)
    return kit.encode_json(body)


def _usage(counters: dict[str, int], other: dict[str, Any], policy: Unsupported, own: bool) -> Any:
    if own:
        kept = dict(counters)
        rest = other
    else:
        kept = {}
        for name, value in counters.items():
            if name in USAGE_COUNTERS or name.startswith(USAGE_GROUPS):
                kept[name] = value
            elif name not in DERIVED_COUNTERS:
                policy.metadata(f"$.usage.{name}", f"the usage counter {name!r}")
        rest = {}
        for name, value in other.items():
            if name in USAGE_OTHER or name in _USAGE_OBJECTS or name.startswith(USAGE_GROUPS):
                rest[name] = value
            else:
                policy.metadata(f"$.usage_extra.{name}", f"the usage entry {name!r}")
    kept.setdefault("input_tokens", 0)
    kept.setdefault("output_tokens", 0)
    return kit.usage_object(kept, rest)


_USAGE_OBJECTS = frozenset({"cache_creation", "server_tool_use", "output_tokens_details"})


# --- the adapter contract (signatures: _toolkit) ----------------------------------------------

decode_request = kit.decoder(_decode_request, "decode_request")
"""`_decode_request` behind the contract's size check: ``decode_request(data, *, limits=)``."""
decode_response = kit.response_decoder(_decode_response)
"""`_decode_response` behind the contract: ``decode_response(data, *, limits=, renames=)``."""
encode_request = kit.request_encoder(_encode_request)
"""`_encode_request` behind the contract: ``encode_request(request_or_messages, *,
unsupported="error", dropped=None, defaults=None, renames=None, **settings)``."""
encode_response = kit.response_encoder(_encode_response)
"""`_encode_response` behind the contract: ``encode_response(response, *, unsupported="error",
dropped=None, **fields)``."""
