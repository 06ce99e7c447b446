"""OpenAI Responses API (``POST /v1/responses``) <-> the neutral protocol.

Mapping (the full table is in ``docs/providers-responses-gemini.md``):

- ``instructions`` (a string) is the first message, ``role: "system"``; ``input`` items follow in
  order. A ``developer`` item is a system message with the ``developer`` hint.
- ``message`` items of users and systems are one message each; ``input_text`` parts are text
  blocks, ``input_image`` parts image blocks, ``input_file`` parts document blocks (data URLs
  become raw bytes; a URL stays a URL).
- A run of assistant-side items (assistant ``message``, ``reasoning``, ``function_call``, built-in
  tool calls such as ``web_search_call``) is one assistant message, its blocks in item order:
  ``output_text`` parts are text blocks, ``function_call`` a ``tool_use`` block (``call_id`` is
  its ``id``), ``reasoning`` a thinking block, every other item an `UnknownBlock` holding it whole.
  Item-level keys (``id``, ``status``, ...) ride on the item's first block, in
  ``extra["openai_item"]``, which also marks where an item begins.
- ``function_call`` ``arguments`` (a JSON *string*) are parsed into ``input``; a string that is
  not the compact JSON of its value (spacing, invalid or truncated JSON) is kept in
  ``extra["arguments"]`` and written back byte-exact while ``input`` is unchanged.
- A ``reasoning`` item is kept whole in ``extra["openai_item"]`` (``id``, ``summary``,
  ``content``, ``encrypted_content``, ...) and goes back exactly; the block's ``thinking`` is its
  ``reasoning_text`` content, else its summary texts, joined by blank lines.
- ``function_call_output`` is a ``role: "tool"`` message (``tool_call_id`` = ``call_id``).
- Everything else at the top level stays in `Request.options` unchanged.

Responses: ``output`` items are the assistant message; ``status`` / ``incomplete_details`` give
the stop reason (``tool_use`` when a function was called); the ``usage`` counters get neutral
names; every other top-level key is kept in ``ModelResponse.extra``.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
from msgspec import UNSET

from ..wire import blocks as wb
from ..wire.errors import ValidationError
from ..wire.extra import Extra
from ..wire.limits import Limits
from ..wire.messages import Message, ModelResponse
from . import _toolkit as kit
from ._base import Reasoning, Request, ResponseFormat, Tool, Unsupported
from ._toolkit import SettingsReader

__all__ = [
    "ITEM_KEY",
    "NAME",
    "NAME_LIMIT",
    "RESPONSES_ITEM_TYPES",
    "STATUSES",
    "USAGE_NAMES",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "stop_reason",
]

NAME = "openai_responses"
"""This adapter's registry name (`providers.get`); the `SOURCE` hint on what it decodes."""

ITEM_KEY = "openai_item"
"""Block ``extra`` key holding the item-level keys of the Responses item the block starts."""

USAGE_NAMES = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "input_tokens_details.cached_tokens": "cache_read_input_tokens",
    "input_tokens_details.cache_write_tokens": "cache_creation_input_tokens",
    "output_tokens_details.reasoning_tokens": "reasoning_tokens",
}
"""Responses usage counters (dotted) -> neutral names; other counters keep their dotted name.
``input_tokens`` is the API's ``input_tokens`` minus ``cached_tokens`` (uncached input, as on
Anthropic); the encoder adds it back."""

_USAGE_BACK = {v: k for k, v in USAGE_NAMES.items()}

RESPONSES_ITEM_TYPES = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "computer_call",
        "computer_call_output",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "custom_tool_call",
        "custom_tool_call_output",
        "tool_search_call",
        "tool_search_output",
        "compaction",
        "item_reference",
    }
)
"""Item types (besides ``message``, ``reasoning``, ``function_call``) that travel whole, as an
`UnknownBlock` of an assistant message; unknown ``*_call`` types are treated the same way."""

_PART_TYPES = frozenset(
    {"input_text", "input_image", "input_file", "input_audio", "output_text", "refusal"}
)
_TEXT_PART_KEYS = frozenset({"annotations", "logprobs"})
_MESSAGE_KEYS = frozenset({"type", "id", "status", "phase"})
_TOOL_OUTPUT_KEYS = frozenset({"id", "status"})
_ROLES: dict[str, Any] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
}


# --- decoding -----------------------------------------------------------------------------------


def _decode_request(data: Any, limits: Limits) -> Request:
    """Decode a Responses request body into a `Request` (see the module docstring)."""
    body = kit.want_dict(kit.decode_json(data, "$"), "$")
    options = dict(body)
    messages: list[Message] = []
    instructions = options.get("instructions", kit.MISSING)
    if type(instructions) is str:
        del options["instructions"]
        messages.append(Message(role="system", content=instructions))
    if "input" in options:
        items = options.pop("input")
        if type(items) is str:
            messages.append(Message(role="user", content=items))
        else:
            _decode_items(kit.want_list(items, "$.input"), "$.input", messages)
    return kit.decoded_request(messages, options, NAME, read_settings)


def _tool_ok(tool: Any) -> bool:
    return kit.tool_ok(tool, {"type", "name"}, "parameters") and tool["type"] == "function"


def _named_ok(choice: Any) -> bool:
    return (
        kit.has_keys(choice, {"type", "name"})
        and choice["type"] == "function"
        and kit.is_str(choice["name"])
    )


def _text_ok(text: Any) -> bool:
    if not kit.has_keys(text, {"format"}):
        return False
    fmt = text["format"]
    if kit.has_keys(fmt, {"type"}):
        return fmt["type"] in ("text", "json_object")
    return (
        kit.has_keys(fmt, {"type", "name", "schema"}, {"strict"})
        and fmt["type"] == "json_schema"
        and kit.is_str(fmt["name"])
        and type(fmt["schema"]) is dict
        and type(fmt.get("strict", True)) is bool
    )


def _text_in(text: dict[str, Any]) -> ResponseFormat:
    fmt = text["format"]
    if fmt["type"] == "text":
        return ResponseFormat(type="text")
    if fmt["type"] == "json_object":
        return ResponseFormat(type="json")
    return ResponseFormat(
        type="json_schema", name=fmt["name"], schema=fmt["schema"], strict=fmt.get("strict")
    )


def read_settings(options: dict[str, Any]) -> SettingsReader:
    """Move the options the Responses API spells exactly like the neutral settings out of
    ``options``."""
    reader = SettingsReader(options)
    take = reader.take
    kit.take_same(reader, ("model", "temperature", "top_p", "user", "metadata", "stream"))
    take("max_output_tokens", "max_tokens", kit.is_int)
    kit.take_tools(reader, _tool_ok, lambda tool: kit.tool_from(tool, "parameters"))
    kit.take_openai_choice(reader, _named_ok, lambda choice: choice["name"])
    take("text", "response_format", _text_ok, _text_in)
    take(
        "reasoning",
        "reasoning",
        lambda v: kit.has_keys(v, {"effort"}) and kit.is_str(v["effort"]),
        lambda v: Reasoning(effort=v["effort"]),
    )
    return reader


def write_settings(fields: dict[str, Any], policy: Unsupported) -> dict[str, Any]:
    """The neutral settings spelled for the Responses API; what it has no spelling for is
    reported."""
    out, rest = kit.spelled_alike(
        fields, ("model", "temperature", "top_p", "user", "metadata", "stream")
    )
    for name, value in rest.items():
        if name == "max_tokens":
            out["max_output_tokens"] = value
        elif name == "tools":
            out["tools"] = [_tool_out(t, policy) for t in value]
        elif name == "tool_choice":
            kit.put_openai_choice(
                value, lambda tool: {"type": "function", "name": _name(tool, policy)}, out
            )
        elif name == "response_format":
            out["text"] = {"format": _format_out(value)}
        elif name == "reasoning":
            level = kit.effort(value, policy)  # a budget alone: the effort it reaches
            if level is not None:
                out["reasoning"] = {"effort": level}
        elif name == "stop":
            policy.metadata("$.stop", "stop sequences (the Responses API has none)")
        else:
            policy.report(f"$.{name}", f"the setting {name!r} (no Responses API spelling)")
    return out


NAME_LIMIT = 64
"""The most characters of a function name (``^[a-zA-Z0-9_-]{1,64}$``, as on Chat Completions)."""


def _name(name: str, policy: Unsupported) -> str:
    """A tool name fitted to the API's pattern (`NAME_LIMIT`; ``weather.get`` ->
    ``weather_get``), recorded in the call's `Renames` when changed. A request this adapter
    decoded keeps its names (`Unsupported.keep_names`): its tools are written as they came."""
    return name if policy.keep_names else policy.renaming().name(name, NAME_LIMIT)


def _tool_out(tool: Tool, policy: Unsupported) -> dict[str, Any]:
    """A function tool: its name fitted (`_name`); ``parameters`` and ``strict`` are required
    keys here (``strict`` defaults to true on this API, so a tool that sets none, the default
    of every other format, is written ``strict: false``)."""
    fields = kit.tool_fields(tool, "parameters")
    fields["name"] = _name(tool.name, policy)
    fields.setdefault("strict", False)
    return {"type": "function", **fields, "parameters": tool.parameters}  # required, null or not


def _format_out(value: ResponseFormat) -> dict[str, Any]:
    if value.type == "text":
        return {"type": "text"}
    if value.type == "json":
        return {"type": "json_object"}
    out: dict[str, Any] = {
        "type": "json_schema",
        "name": value.name or "response",
        "schema": value.schema if value.schema is not None else {},
    }
    if value.strict is not None:
        out["strict"] = value.strict
    return out


def _is_assistant_side(item: dict[str, Any]) -> bool:
    kind = item.get("type", "message")
    if kind == "message":
        return item.get("role") == "assistant"
    return bool(kind != "function_call_output")


def _decode_items(items: list[Any], path: str, out: list[Message]) -> None:
    run: list[wb.ContentBlock] = []
    single: dict[str, Any] | None = None  # a lone easy assistant message with string content
    for i, raw in enumerate(items):
        where = f"{path}[{i}]"
        item = kit.want_dict(raw, where)
        if _is_assistant_side(item):
            if not run and single is None and _easy_string(item):
                single = item
                continue
            if single is not None:
                run.extend(_assistant_blocks(single, where))
                single = None
            run.extend(_assistant_blocks(item, where))
            continue
        _flush(run, single, out)
        run, single = [], None
        if item.get("type", "message") == "function_call_output":
            out.append(_tool_message(item, where))
        else:
            out.append(_input_message(item, where))
    _flush(run, single, out)


def _easy_string(item: dict[str, Any]) -> bool:
    return item.get("type", "message") == "message" and type(item.get("content")) is str


def _flush(run: list[wb.ContentBlock], single: dict[str, Any] | None, out: list[Message]) -> None:
    if single is not None:
        rest = {k: v for k, v in single.items() if k not in ("role", "content")}
        out.append(
            Message(role="assistant", content=single["content"], extra=kit.tagged(rest, "", NAME))
        )
    elif run:
        out.append(Message(role="assistant", content=run, extra=kit.tagged({}, run, NAME)))


def _input_message(item: dict[str, Any], path: str) -> Message:
    role = item.get("role")
    if type(role) is not str or role not in ("user", "system", "developer"):
        raise ValidationError(f"unknown message role {role!r}", path=path + ".role")
    rest = {k: v for k, v in item.items() if k not in ("role", "content")}
    if role == "developer":
        rest["developer"] = True
    content = item.get("content", kit.MISSING)
    if content is kit.MISSING:
        raise ValidationError("a message needs 'content'", path=path)
    if type(content) is not str:
        content = [
            _part(p, f"{path}.content[{j}]") for j, p in enumerate(kit.want_list(content, path))
        ]
    return Message(role=_ROLES[role], content=content, extra=kit.tagged(rest, content, NAME))


def _tool_message(item: dict[str, Any], path: str) -> Message:
    call_id = kit.want_str(item.get("call_id"), path + ".call_id")
    output = item.get("output", kit.MISSING)
    if output is kit.MISSING:
        raise ValidationError("a function_call_output needs 'output'", path=path)
    if type(output) is not str:
        output = [
            _part(p, f"{path}.output[{j}]")
            for j, p in enumerate(kit.want_list(output, path + ".output"))
        ]
    rest = {k: v for k, v in item.items() if k not in ("type", "call_id", "output")}
    return Message(
        role="tool", content=output, tool_call_id=call_id, extra=kit.tagged(rest, output, NAME)
    )


def _part(raw: Any, path: str) -> wb.ContentBlock:
    part = kit.want_dict(raw, path)
    kind = part.get("type")
    if kind in ("input_text", "output_text"):
        text = part.get("text")
        if type(text) is not str:
            raise ValidationError(f"an {kind} part needs a string 'text'", path=path + ".text")
        rest = {k: v for k, v in part.items() if k not in ("type", "text")}
        return wb.TextBlock(text=text, extra=kit.extra_or_unset(rest))
    if kind == "input_image" and type(part.get("image_url")) is str:
        source = _source(part["image_url"])
        rest = {k: v for k, v in part.items() if k not in ("type", "image_url")}
        if rest.get("detail") == "auto":  # the default, written back by the encoder
            del rest["detail"]
        return wb.ImageBlock(source=source, extra=kit.extra_or_unset(rest))
    if kind == "input_file":
        if type(part.get("file_data")) is str:
            base64 = kit.parse_data_url(part["file_data"])
            if base64 is not None:
                rest = {k: v for k, v in part.items() if k not in ("type", "file_data")}
                return wb.DocumentBlock(source=base64, extra=kit.extra_or_unset(rest))
        elif type(part.get("file_url")) is str:
            rest = {k: v for k, v in part.items() if k not in ("type", "file_url")}
            return wb.DocumentBlock(
                source=wb.UrlSource(url=part["file_url"]), extra=kit.extra_or_unset(rest)
            )
    if type(kind) is not str:
        raise ValidationError("a content part needs a string 'type'", path=path + ".type")
    return _unknown(part, path)


def _unknown(obj: dict[str, Any], path: str) -> wb.UnknownBlock:
    return kit.unknown_block(obj, path)


def _source(url: str) -> wb.Base64Source | wb.UrlSource:
    base64 = kit.parse_data_url(url)
    return base64 if base64 is not None else wb.UrlSource(url=url)


def _with_item(block: Any, item_keys: dict[str, Any]) -> Any:
    if type(block) is wb.UnknownBlock:  # a part held whole (refusal, ...): the item keys inside
        return wb.UnknownBlock(Extra._own({**block.data.to_dict(), ITEM_KEY: item_keys}))
    extra = kit.extra_dict(block)
    extra = {ITEM_KEY: item_keys, **extra}
    return msgspec.structs.replace(block, extra=Extra._own(extra))


def _assistant_blocks(item: dict[str, Any], path: str) -> list[wb.ContentBlock]:
    kind = item.get("type", "message")
    if kind == "message":
        content = item.get("content", kit.MISSING)
        keys = {k: v for k, v in item.items() if k not in ("role", "content")}
        if type(content) is str:
            if not keys:  # an easy message: written back as such from a plain text block
                return [wb.TextBlock(text=content)]
            return [
                wb.TextBlock(text=content, extra=Extra._own({ITEM_KEY: {**keys, "content": ""}}))
            ]
        if type(content) is list and content:
            blocks = [_part(p, f"{path}.content[{j}]") for j, p in enumerate(content)]
            blocks[0] = _with_item(blocks[0], keys)
            return blocks
        return [_unknown(item, path)]  # no content to map: keep the item whole
    if kind == "function_call":
        return [_function_call(item, path)]
    if kind == "reasoning":
        return [_reasoning(item, path)]
    if type(kind) is not str:
        raise ValidationError("an item needs a string 'type'", path=path + ".type")
    return [_unknown(item, path)]


def _function_call(item: dict[str, Any], path: str) -> wb.ToolUseBlock:
    call_id = kit.want_str(item.get("call_id"), path + ".call_id")
    name = kit.want_str(item.get("name"), path + ".name")
    raw = kit.want_str(item.get("arguments"), path + ".arguments")
    args, keep = kit.parse_arguments(raw)
    keys = {k: v for k, v in item.items() if k not in ("type", "call_id", "name", "arguments")}
    extra: dict[str, Any] = {ITEM_KEY: keys} if keys else {}
    if keep is not None:
        extra["arguments"] = keep
    return wb.ToolUseBlock(id=call_id, name=name, input=args, extra=kit.extra_or_unset(extra))


def reasoning_text(item: dict[str, Any]) -> str:
    """The text of a ``reasoning`` item: its ``reasoning_text`` content, else its summaries."""
    content = item.get("content")
    parts = content if type(content) is list and content else item.get("summary")
    if type(parts) is not list:
        return ""
    return "\n\n".join(p["text"] for p in parts if type(p) is dict and type(p.get("text")) is str)


def _reasoning(item: dict[str, Any], path: str) -> wb.ThinkingBlock:
    keys = {k: v for k, v in item.items() if k != "type"}
    return wb.ThinkingBlock(thinking=reasoning_text(item), extra=Extra._own({ITEM_KEY: keys}))


def stop_reason(body: dict[str, Any], blocks: list[wb.ContentBlock]) -> str:
    """The neutral stop reason of a Responses ``response`` object with these output blocks."""
    status = body.get("status")
    if status == "completed":
        if any(type(b) is wb.ToolUseBlock for b in blocks):
            return "tool_use"
        return "end_turn"
    if status == "incomplete":
        details = body.get("incomplete_details")
        reason = details.get("reason") if type(details) is dict else None
        if reason == "max_output_tokens":
            return "max_tokens"
        if reason == "content_filter":
            return "refusal"
        return f"incomplete:{reason}" if type(reason) is str else "incomplete"
    return status if type(status) is str else "end_turn"


def _decode_response(data: Any, limits: Limits) -> ModelResponse:
    """Decode a Responses ``response`` object into a `ModelResponse`."""
    return response_from_dict(kit.want_dict(kit.decode_json(data, "$"), "$"))


_TYPED = (("id", "id", str), ("model", "model", str), ("created_at", "created", int))
"""Response keys that are typed `ModelResponse` fields."""


def response_from_dict(body: dict[str, Any]) -> ModelResponse:
    """The `ModelResponse` of an already decoded ``response`` object (used by the stream)."""
    extra = dict(body)
    output = kit.want_list(extra.pop("output", []), "$.output")
    blocks: list[wb.ContentBlock] = []
    for i, item in enumerate(output):
        blocks.extend(_assistant_blocks(kit.want_dict(item, f"$.output[{i}]"), f"$.output[{i}]"))
    counters = kit.usage_in(extra, "usage", USAGE_NAMES)
    typed = kit.typed_fields(extra, _TYPED)
    extra[kit.SOURCE] = NAME
    return ModelResponse(
        message=Message(role="assistant", content=blocks, extra=kit.tagged({}, blocks, NAME)),
        stop_reason=stop_reason(body, blocks),
        usage=counters,
        extra=Extra._own(extra),
        **typed,
    )


# --- encoding -----------------------------------------------------------------------------------


def _encode_request(req: Request, policy: Unsupported, direct: bool = True) -> bytes:
    """Encode a `Request` (or messages plus keyword options) as a Responses request body.

    The first message, when it is a plain system message with string content, becomes
    ``instructions``. Content the Responses API cannot hold (thinking from another provider,
    ``is_error`` on a tool result, blocks of other providers) raises `UnsupportedError` naming its
    path, or under ``unsupported="drop"`` is left out and recorded in ``dropped``.

    The commonest messages are written by `_direct_items`; ``direct=False`` writes every one
    through the general path instead (the same bytes: the tests compare the two).
    """
    policy.keep_names = req.provider == NAME  # the client's own names, as its tools spell them
    body: dict[str, Any] = kit.encode_settings(req, NAME, read_settings, write_settings, policy)
    items: list[Any] = []
    for i, msg in enumerate(req.messages):
        role = msg.role
        content = msg.content
        if msg.extra is UNSET and type(content) is str and role != "tool":  # the commonest
            if i or role != "system" or "instructions" in body:
                items.append({"role": role, "content": content})
            else:
                body["instructions"] = content
            continue
        written = _direct_items(msg, i, policy) if direct else None
        if written is not None:
            items += written
            continue
        _encode_message(msg, f"$.messages[{i}]", policy, items)
    body["input"] = items
    return kit.encode_json(body)


def _direct_items(msg: Message, i: int, policy: Unsupported) -> list[Any] | None:
    """The items `_encode_message` writes for the commonest messages with blocks or keys,
    written directly (None for any other, which the general path then writes): messages
    without extra keys or tagged as this adapter's alone (``extra`` holding `SOURCE` only),
    whose blocks carry no typed optional field and only the keys the general path writes
    back as they are. It never reports: whatever the general path would report or refuse
    goes there."""
    extra = msg.extra
    if extra is UNSET:
        own = False
    elif len(extra) == 1 and extra.get(kit.SOURCE) == NAME:
        own = True
    else:
        return None
    role = msg.role
    content = msg.content
    if role == "assistant":
        if type(content) is str:
            return [{"role": role, "content": content}]
        return _direct_assistant(content, own, i, policy)  # type: ignore[arg-type]
    if type(content) is not str:
        content = _direct_parts(content, own)  # type: ignore[arg-type]
        if content is None:
            return None
    if role != "tool":
        return [{"role": role, "content": content}]
    if msg.tool_call_id is UNSET or msg.is_error is True:
        return None
    return [{"type": "function_call_output", "call_id": msg.tool_call_id, "output": content}]


def _direct_url(source: Any) -> Any:
    """An image's ``image_url`` (a data URL for base64) when its source is one `_source_ok`
    takes without a report; else None."""
    kind = type(source)
    if kind is wb.UrlSource and source.extra is UNSET:
        return source.url
    if kind is wb.Base64Source and source.extra is UNSET:
        return kit.data_url(source)
    return None


def _direct_parts(blocks: list[wb.ContentBlock], own: bool) -> list[Any] | None:
    """What `_input_parts` writes for plain text, image, file and (own) unknown parts; None
    when a block is another kind, carries a typed optional field, or a key the general path
    would report."""
    parts: list[Any] = []
    for block in blocks:
        kind = type(block)
        if kind is wb.TextBlock:
            if block.citations is not UNSET or block.cache_control is not UNSET:  # type: ignore[union-attr]
                return None
            part = {"type": "input_text", "text": block.text}  # type: ignore[union-attr]
            extra = block.extra  # type: ignore[union-attr]
            if extra is not UNSET:
                if not own:
                    return None
                part.update(extra.items())
        elif kind is wb.ImageBlock:
            if block.transformations is not UNSET or block.cache_control is not UNSET:  # type: ignore[union-attr]
                return None
            url = _direct_url(block.source)  # type: ignore[union-attr]
            if url is None:
                return None
            extra = block.extra  # type: ignore[union-attr]
            if extra is UNSET:
                part = {"type": "input_image", "image_url": url, "detail": "auto"}
            elif own or _IMAGE_KEYS.issuperset(extra):
                part = {"type": "input_image", "image_url": url}
                part.update(extra.items())
                part.setdefault("detail", "auto")
            else:
                return None
        elif kind is wb.DocumentBlock:
            part = _direct_file(block, own)  # type: ignore[arg-type]
            if part is None:
                return None
        elif kind is wb.UnknownBlock and own:
            part = block.data.to_dict()  # type: ignore[union-attr]
        else:
            return None
        parts.append(part)
    return parts


def _direct_file(block: wb.DocumentBlock, own: bool) -> dict[str, Any] | None:
    if (
        block.title is not UNSET
        or block.context is not UNSET
        or block.citations is not UNSET
        or block.cache_control is not UNSET
    ):
        return None
    source = block.source
    kind = type(source)
    if source.extra is not UNSET or kind not in (wb.Base64Source, wb.UrlSource):  # type: ignore[union-attr]
        return None
    if kind is wb.Base64Source:
        part = {"type": "input_file", "file_data": kit.data_url(source)}  # type: ignore[arg-type]
    else:
        part = {"type": "input_file", "file_url": source.url}  # type: ignore[union-attr]
    extra = block.extra
    if extra is not UNSET:
        if not own and not _FILE_KEYS.issuperset(extra):
            return None
        part.update(extra.items())
    return part


def _direct_assistant(
    blocks: list[wb.ContentBlock], own: bool, i: int, policy: Unsupported
) -> list[Any] | None:
    """The items `_encode_assistant` writes (in a request) for a turn of text, tool calls,
    reasoning items and (own) built-in tool items; None when a block is another kind, carries a
    typed optional field, or the general path would report or refuse something in it."""
    items: list[Any] = []
    current: dict[str, Any] | None = None  # the message item text parts are appended to
    for j, block in enumerate(blocks):
        kind = type(block)
        if kind is wb.TextBlock:
            if block.citations is not UNSET or block.cache_control is not UNSET:  # type: ignore[union-attr]
                return None
            part = {"type": "output_text", "text": block.text}  # type: ignore[union-attr]
            keys: Any = kit.MISSING
            extra = block.extra  # type: ignore[union-attr]
            if extra is not UNSET:
                if not own:
                    return None
                for key, value in extra.items():
                    if key == ITEM_KEY:
                        keys = value
                    else:
                        part[key] = value
            if keys is not kit.MISSING:
                if type(keys) is not dict or keys.get("content") == "":
                    return None
                current = {**keys, "role": "assistant"}
                current["content"] = [part]
                items.append(current)
            elif current is not None:
                current["content"].append(part)
            elif len(part) == 2:
                items.append({"role": "assistant", "content": part["text"]})
            else:
                current = {"role": "assistant", "content": [part]}
                items.append(current)
            continue
        current = None
        if kind is wb.ThinkingBlock:
            extra = block.extra  # type: ignore[union-attr]
            if block.signature is not UNSET or extra is UNSET or len(extra) != 1:  # type: ignore[union-attr]
                return None
            keys = extra.get(ITEM_KEY)
            if type(keys) is not dict:
                return None
            item = {"type": "reasoning", **keys}
            if reasoning_text(item) != block.thinking:  # type: ignore[union-attr]
                return None
            items.append(item)
        elif kind is wb.ToolUseBlock:
            call = _direct_call(block, own, f"$.messages[{i}].content[{j}]", policy)  # type: ignore[arg-type]
            if call is None:
                return None
            items.append(call)
        elif kind is wb.UnknownBlock and own:
            data = block.data  # type: ignore[union-attr]
            if data.get("type") in _PART_TYPES:
                return None
            item = data.to_dict()
            item.pop(ITEM_KEY, None)
            items.append(item)
        else:
            return None
    return items


def _direct_call(
    block: wb.ToolUseBlock, own: bool, path: str, policy: Unsupported
) -> dict[str, Any] | None:
    """A ``function_call`` item as `_encode_assistant` writes it, for a call without typed
    optional fields whose extra keys (own) are the item's keys and its raw ``arguments``."""
    if (
        block.caller is not UNSET
        or block.toolset_name is not UNSET
        or block.cache_control is not UNSET
    ):
        return None
    extra = block.extra
    if extra is UNSET:  # a call built neutrally: its name fitted to the API's pattern
        name = _name(block.name, policy)
        arguments = kit.tool_arguments(block, path)
        return {"type": "function_call", "call_id": block.id, "name": name, "arguments": arguments}
    if not own:
        return None
    keys = extra.get(ITEM_KEY, kit.MISSING)
    if len(extra) != (keys is not kit.MISSING) + ("arguments" in extra):
        return None
    if keys is not kit.MISSING and type(keys) is not dict:
        return None
    arguments = kit.tool_arguments(block, path)
    item = {
        "type": "function_call",
        "call_id": block.id,
        "name": block.name,
        "arguments": arguments,
    }
    if keys is not kit.MISSING:
        item.update(keys)
    return item


def _encode_message(msg: Message, path: str, policy: Unsupported, items: list[Any]) -> None:
    if msg.role == "tool":
        item = _encode_tool(msg, path, policy)
        if item is not None:
            items.append(item)
        return
    if msg.role == "assistant":
        _encode_assistant(msg, path, policy, items)
        return
    role: str = msg.role
    if role == "system" and msg.extra is not UNSET and msg.extra.get("developer") is True:
        role = "developer"
    rest = kit.message_keys(msg, NAME, _MESSAGE_KEYS, policy, path)
    out: dict[str, Any] = {"role": role}
    content = msg.content
    own = kit.is_own(msg.extra, NAME)
    out["content"] = (
        content if type(content) is str else _input_parts(content, path + ".content", policy, own)  # type: ignore[arg-type]
    )
    out.update(rest)
    items.append(out)


def _input_parts(
    blocks: list[wb.ContentBlock], path: str, policy: Unsupported, own: bool
) -> list[Any]:
    parts = []
    for j, block in enumerate(blocks):
        part = _input_part(block, f"{path}[{j}]", policy, own)
        if part is not None:
            parts.append(part)
    return parts


def _source_ok(source: Any, path: str, policy: Unsupported) -> bool:
    if type(source) not in (wb.Base64Source, wb.UrlSource):
        policy.report(path + ".source", f"a {source.type!r} source")
        return False
    if source.extra is not UNSET:
        for key, value in source.extra.items():
            what = f"the key {key!r} on a source"
            kit.foreign_key(policy, f"{path}.source.{key}", what, key, value)
    return True


_IMAGE_KEYS = frozenset({"detail", "file_id"})
_FILE_KEYS = frozenset({"filename", "file_id"})


def _input_part(block: Any, path: str, policy: Unsupported, own: bool) -> Any:
    kind = type(block)
    if kind is wb.TextBlock:
        rest = kit.block_extra(block, frozenset(), own, policy, path)
        return {"type": "input_text", "text": block.text, **rest}
    if kind is wb.ImageBlock:
        if not _source_ok(block.source, path, policy):
            return None
        source = block.source
        url = kit.data_url(source) if type(source) is wb.Base64Source else source.url
        rest = kit.block_extra(block, _IMAGE_KEYS, own, policy, path)
        rest.setdefault("detail", "auto")
        return {"type": "input_image", "image_url": url, **rest}
    if kind is wb.DocumentBlock:
        if not _source_ok(block.source, path, policy):
            return None
        source = block.source
        rest = kit.block_extra(block, _FILE_KEYS, own, policy, path)
        if type(source) is wb.Base64Source:
            return {"type": "input_file", "file_data": kit.data_url(source), **rest}
        return {"type": "input_file", "file_url": source.url, **rest}
    if kind is wb.UnknownBlock and own:
        return block.data.to_dict()
    if kind is wb.UnknownBlock:
        kit.foreign_block(policy, path, block.type, "another provider")
        return None
    policy.report(path, f"{kit.a(kit.block_kind(block))} block in a Responses message")
    return None


def _encode_tool(msg: Message, path: str, policy: Unsupported) -> Any:
    if msg.tool_call_id is UNSET:
        policy.report(path, "a tool message without tool_call_id")
        return None
    if msg.is_error is True:
        policy.report(
            path + ".is_error", "is_error on a tool result (function_call_output has none)"
        )
    rest = kit.message_keys(msg, NAME, _TOOL_OUTPUT_KEYS, policy, path)
    output: Any = msg.content
    if type(output) is not str:
        output = _input_parts(output, path + ".content", policy, kit.is_own(msg.extra, NAME))
    return {"type": "function_call_output", "call_id": msg.tool_call_id, "output": output, **rest}


def _is_item_type(kind: str) -> bool:
    return kind in RESPONSES_ITEM_TYPES or kind.endswith("_call") or kind == "message"


def _encode_assistant(
    msg: Message, path: str, policy: Unsupported, items: list[Any], response: bool = False
) -> None:
    if type(msg.content) is str:
        rest = kit.message_keys(msg, NAME, _MESSAGE_KEYS, policy, path)
        items.append({"role": "assistant", "content": msg.content, **rest})
        return
    own = kit.is_own(msg.extra, NAME)
    if kit.message_keys(msg, NAME, frozenset(), policy, path):
        policy.metadata(path, "message keys on an assistant turn of several items")
    current: dict[str, Any] | None = None  # the message item text parts are appended to
    blocks: list[Any] = msg.content  # type: ignore[assignment]  # a list here
    for j, block in enumerate(blocks):
        kind = type(block)
        if kind is wb.ToolUseBlock and kit.bare(block):  # fast path: a call built neutrally
            current = None
            items.append(
                {
                    "type": "function_call",
                    "call_id": block.id,
                    "name": block.name if response else _name(block.name, policy),
                    "arguments": kit.tool_arguments(block, f"{path}.content[{j}]"),
                }
            )
            continue
        where = f"{path}.content[{j}]"
        if kind is wb.UnknownBlock:
            data = block.data.to_dict()
            keys = data.pop(ITEM_KEY, kit.MISSING) if own else kit.MISSING
            extra: dict[str, Any] = {}
        else:
            data = {}
            extra = kit.block_keys(block)  # typed optional fields (cache_control, ...), extra keys
            keys = (
                extra.pop(ITEM_KEY, kit.MISSING) if own or kind is wb.ThinkingBlock else kit.MISSING
            )
        if kind is wb.TextBlock or (kind is wb.UnknownBlock and own and block.type in _PART_TYPES):
            if keys is not kit.MISSING and type(keys) is dict and keys.get("content") == "":
                # an assistant message item whose content was a string
                item_keys = {k: v for k, v in keys.items() if k != "content"}
                kit.block_extra(block, frozenset(), own, policy, where, extra)
                items.append({"role": "assistant", "content": block.text, **item_keys})
                current = None
                continue
            if kind is wb.TextBlock:
                part = {"type": "output_text", "text": block.text}
                part.update(kit.block_extra(block, _TEXT_PART_KEYS, own, policy, where, extra))
            else:
                part = data
            if keys is not kit.MISSING:
                current = {**kit.want_dict(keys, where + "." + ITEM_KEY), "role": "assistant"}
                current["content"] = [part]
                items.append(current)
            elif current is not None:
                current["content"].append(part)
            elif kind is wb.TextBlock and len(part) == 2 and not response:
                items.append({"role": "assistant", "content": part["text"]})
            else:
                current = {"role": "assistant", "content": [part]}
                items.append(current)
            continue
        current = None
        if kind is wb.ToolUseBlock:
            items.append(_encode_call(block, keys, extra, where, policy, own, not response))
        elif kind is wb.ThinkingBlock and keys is kit.MISSING and response:
            items.append(_reasoning_item(block, extra, where, policy, len(items)))
        elif kind is wb.ThinkingBlock:
            item = _encode_reasoning(block, keys, extra, where, policy, own)
            if item is not None:
                items.append(item)
        elif kind is wb.RedactedThinkingBlock:
            policy.metadata(where, "a redacted thinking block (encrypted for Anthropic alone)")
        elif kind is wb.UnknownBlock and own:
            items.append(data)
        elif kind is wb.UnknownBlock:
            kit.foreign_block(policy, where, block.type, "another provider")
        else:
            policy.report(where, f"a {kit.block_kind(block)} block in an assistant turn")


def _encode_call(
    block: wb.ToolUseBlock,
    keys: Any,
    extra: dict[str, Any],
    path: str,
    policy: Unsupported,
    own: bool,
    fit: bool = True,
) -> dict[str, Any]:
    """A ``function_call`` item; another format's name is fitted to the API's pattern in a
    request (``fit``), never in a response, which goes back to the client that named it."""
    arguments = kit.tool_arguments(block, path)
    extra.pop("arguments", None)
    rest = kit.block_extra(block, frozenset(), own, policy, path, extra)
    item: dict[str, Any] = {
        "type": "function_call",
        "call_id": block.id,
        "name": _name(block.name, policy) if fit and not own else block.name,
        "arguments": arguments,
    }
    if keys is not kit.MISSING:
        item.update(kit.want_dict(keys, path + "." + ITEM_KEY))
    item.update(rest)
    return item


def _reasoning_item(
    block: wb.ThinkingBlock, extra: dict[str, Any], path: str, policy: Unsupported, index: int
) -> dict[str, Any]:
    """Another provider's thinking in a response for a client: a reasoning item holding its text
    as ``reasoning_text`` content (its signature, readable by its issuer alone, is listed)."""
    if block.signature is not UNSET:
        policy.metadata(path + ".signature", "a thinking signature (readable by its issuer alone)")
    kit.block_extra(block, frozenset(), False, policy, path, extra)
    return {
        "type": "reasoning",
        "id": f"rs_minagent_{index}",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": block.thinking}],
    }


def _encode_reasoning(
    block: wb.ThinkingBlock,
    keys: Any,
    extra: dict[str, Any],
    path: str,
    policy: Unsupported,
    own: bool,
) -> dict[str, Any] | None:
    if keys is kit.MISSING:
        what = "thinking with a signature" if block.signature is not UNSET else "thinking"
        policy.report(path, f"{what} not issued by OpenAI (a reasoning item needs its id)")
        return None
    item = {"type": "reasoning", **kit.want_dict(keys, path + "." + ITEM_KEY)}
    if block.signature is not UNSET:
        policy.report(path + ".signature", "a thinking signature (Anthropic) on a reasoning item")
    kit.block_extra(block, frozenset(), own, policy, path, extra)
    if reasoning_text(item) != block.thinking:
        policy.report(path + ".thinking", "reasoning text changed from its reasoning item")
        return None
    return item


def _encode_response(response: ModelResponse, policy: Unsupported, fields: dict[str, Any]) -> bytes:
    """Encode a `ModelResponse` as a Responses ``response`` object.

    A response this adapter decoded comes back unchanged. One from another provider gets the
    keys a Response requires (``id``, ``object``, ``created_at``, ``status``, ``model``, ...)
    from its typed fields or defaults, so the caller keeps no bookkeeping: ``created_at`` is the
    response's own ``created`` time, else now (``created=`` sets it). Its other keys are never
    copied: content raises `UnsupportedError` (or is dropped and listed with
    ``unsupported="drop"``), metadata is listed in ``dropped``. ``status`` and
    ``incomplete_details`` follow ``stop_reason`` when it changed.
    """
    response = kit.with_fields(response, fields)
    extra = dict(response.extra.items()) if response.extra is not UNSET else {}
    own = extra.pop(kit.SOURCE, None) == NAME
    usage_other = extra.pop(kit.USAGE_EXTRA, kit.MISSING)
    body: dict[str, Any] = {
        "id": "resp_minagent" if response.id is UNSET else response.id,
        "object": "response",
        "created_at": int(time.time()) if response.created is UNSET else response.created,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "model": "" if response.model is UNSET else response.model,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    if own:  # exactly the keys it came with
        body = {}
        for key, value in (("id", response.id), ("created_at", response.created)):
            if value is not UNSET:
                body[key] = value
        body.update((k, v) for k, v in extra.items() if k not in kit.HINTS)
        if response.model is not UNSET:
            body["model"] = response.model
    else:
        for key, value in extra.items():
            if key not in kit.HINTS:
                kit.foreign_key(policy, f"$.{key}", f"the response key {key!r}", key, value)
    items: list[Any] = []
    msg = response.message
    if type(msg.content) is str:
        msg = Message(
            role="assistant",
            content=[wb.TextBlock(msg.content)] if msg.content else [],
            extra=msg.extra,
        )
    _encode_assistant(msg, "$.message", policy, items, response=True)
    for item in items:  # output messages need the long form
        if item.get("type", "message") == "message" and type(item.get("content")) is str:
            text = item.pop("content")
            item.update(
                {
                    "type": "message",
                    "id": item.get("id", "msg_minagent"),
                    "status": item.get("status", "completed"),
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            )
        elif item.get("type", "message") == "message":
            item.setdefault("type", "message")
            item.setdefault("id", "msg_minagent")
            item.setdefault("status", "completed")
            for part in item.get("content", []):
                if type(part) is dict and part.get("type") == "output_text":
                    part.setdefault("annotations", [])
    body["output"] = items
    blocks = msg.content if type(msg.content) is list else []
    if stop_reason(body, blocks) != response.stop_reason:
        body.update(_status_for(response.stop_reason, policy))
    if own and usage_other is None and not response.usage:
        body["usage"] = None
    elif response.usage or usage_other is not kit.MISSING:
        other = usage_other if type(usage_other) is dict else {}
        counters = dict(response.usage)
        if not own:
            raw = None if usage_other is kit.MISSING else usage_other
            counters = kit.foreign_usage(counters, raw, _USAGE_NEUTRAL, policy)
            other = {}
        kit.uncached(counters, 1)
        usage = kit.usage_object(counters, other, _USAGE_BACK)
        if not own:  # from another provider: the keys a Response requires
            _usage_defaults(usage)
        body["usage"] = usage
    return kit.encode_json(body)


_USAGE_NEUTRAL = frozenset(USAGE_NAMES.values()) | {"total_tokens"}


def _usage_defaults(usage: dict[str, Any]) -> None:
    usage.setdefault("input_tokens", 0)
    usage.setdefault("output_tokens", 0)
    inp = usage.setdefault("input_tokens_details", {})
    if type(inp) is dict:
        inp.setdefault("cached_tokens", 0)
        inp.setdefault("cache_write_tokens", 0)
    out = usage.setdefault("output_tokens_details", {})
    if type(out) is dict:
        out.setdefault("reasoning_tokens", 0)
    if type(usage["input_tokens"]) is int and type(usage["output_tokens"]) is int:
        usage.setdefault("total_tokens", usage["input_tokens"] + usage["output_tokens"])


STATUSES = frozenset({"completed", "failed", "in_progress", "cancelled", "queued", "incomplete"})
"""A Response's ``status`` values (``openai.types.responses.Response.status``)."""
_INCOMPLETE = {
    "max_tokens": "max_output_tokens",
    "model_context_window_exceeded": "max_output_tokens",
}
_INCOMPLETE_REASONS = frozenset({"max_output_tokens", "content_filter"})


def _status_for(reason: str, policy: Unsupported) -> dict[str, Any]:
    """``status`` and ``incomplete_details`` for a neutral stop reason: Anthropic's finished
    reasons are ``completed``; running out of tokens (or context) and refusals are
    ``incomplete`` with the API's reasons; a Responses status is kept; anything else (Gemini's
    ``MALFORMED_FUNCTION_CALL``, an empty string from a Chat dialect) is ``completed``, the
    original listed (`kit.enum_stop_reason`)."""
    if reason in ("end_turn", "tool_use", "stop_sequence", "pause_turn"):
        return {"status": "completed", "incomplete_details": None}
    if reason in _INCOMPLETE:
        return {"status": "incomplete", "incomplete_details": {"reason": _INCOMPLETE[reason]}}
    if reason == "refusal":
        return {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}}
    if reason.startswith("incomplete:") and reason[11:] in _INCOMPLETE_REASONS:
        return {"status": "incomplete", "incomplete_details": {"reason": reason[11:]}}
    status = kit.enum_stop_reason(reason, STATUSES, {}, "completed", policy)
    return {"status": status}


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
