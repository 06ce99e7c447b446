"""OpenAI Chat Completions <-> the neutral protocol, both directions (mapping: docs/providers.md).

- ``system`` and ``developer`` messages are ``role: "system"`` messages (a developer message
  carries the hint ``extra["developer"] = True``); ``name`` and other message keys go to
  ``extra``.
- User content parts: ``text`` -> `TextBlock`; ``image_url`` -> `ImageBlock` (a base64 data URL
  becomes a `Base64Source` with the bytes, any other URL a `UrlSource`; ``detail`` in the block's
  ``extra``); ``file`` with ``file_data`` -> `DocumentBlock` (``filename`` in ``extra``);
  ``input_audio``, ``file`` by ``file_id`` and any other part -> `UnknownBlock`, kept whole.
- Assistant ``tool_calls`` -> `ToolUseBlock` after the text. ``function.arguments`` (a JSON
  string) is parsed into ``input``; text that is not a JSON object, or that is spelled otherwise
  than ``input``'s compact encoding, is also kept raw in ``extra["arguments"]`` and written back
  byte-exact (`RAW_ARGUMENTS`). ``refusal``, ``annotations``, ``audio`` go to ``extra``.
- ``content: null`` and an absent ``content`` differ: null is the default for an assistant
  message without text (content ``[]``, or only tool calls); absent is the hint
  ``extra["content_absent"] = True``.
- ``tool`` messages keep ``tool_call_id``.
- Responses: the first choice is the message; further choices (``n > 1``) stay, in the
  provider's shape, in ``extra["choices"]`` (`decode_choices` gives each as a `ModelResponse`).
  ``finish_reason`` maps to neutral stop reasons (``stop`` -> ``end_turn``, ``tool_calls`` ->
  ``tool_use``, ``length`` -> ``max_tokens``, ``content_filter`` -> ``refusal``; others kept).
  Usage counters get neutral names; ``input_tokens`` counts uncached input as on Anthropic
  (``prompt_tokens`` minus ``cached_tokens``), and ``prompt_tokens`` is rebuilt on the way back.
- For gateways (docs/gateway.md): ``max_completion_tokens`` wins over ``max_tokens``; ``""``
  beside tool calls is no empty text block; another provider's stop reason is written inside
  the OpenAI enum (`finish_reason`), its thinking tokens as ``reasoning_tokens``; ``created``
  defaults to the response's time, else now. ``extensions=True`` (``encode_response``,
  ``encode_request``) writes thinking, citations and server-tool blocks the way LiteLLM does
  (``reasoning_content``, ``thinking_blocks``, ``provider_specific_fields``); the decoders
  read them back into the same blocks (`minagent.providers._chat_ext`).
"""

from __future__ import annotations

import time
from typing import Any, Literal

import msgspec
from msgspec import UNSET

from ..wire import _values
from ..wire import blocks as wb
from ..wire.errors import EncodeError, ValidationError, WireError
from ..wire.extra import Extra
from ..wire.limits import Limits
from ..wire.messages import Message, ModelResponse
from . import _chat_ext
from . import _toolkit as kit
from ._base import Dropped, Reasoning, Request, ResponseFormat, Tool, Unsupported
from ._toolkit import SettingsReader

__all__ = [
    "FINISH_ENUM",
    "FINISH_REASONS",
    "FOREIGN_FINISH",
    "NAME",
    "PART",
    "REASONING_KEYS",
    "STOP_REASONS",
    "TOOL_CALL",
    "decode_choices",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
    "finish_reason",
]

NAME = "openai_chat"
"""This adapter's name (`providers.get`), and the `SOURCE` hint of the messages and responses its
decoders produce: their unnamed data (message, part, call, choice and response keys, unknown
parts) is written back unchanged here and never copied by another encoder."""

REASONING_KEYS = ("reasoning_content", "reasoning")
"""Assistant message keys holding the model's reasoning as text (DeepSeek, xAI, vLLM, Qwen:
``reasoning_content``; OpenRouter: ``reasoning``). Decoded as an unsigned `ThinkingBlock` first in
the content, whose ``extra`` holds the hint ``openai_reasoning`` (the key's name)."""

_REASONING = "openai_reasoning"
_CONTENT_LIST = "content_list"
"""Hint on the reasoning block: the message's content was a list of parts, not a string."""

PART = "openai_chat_part"
"""``type`` of the `UnknownBlock` holding, whole under ``part``, a content part whose ``type`` is
one the neutral protocol names for another shape (Mistral's ``thinking`` part)."""

TOOL_CALL = "openai_chat_tool_call"
"""``type`` of the `UnknownBlock` holding a tool call this adapter does not map (no string
``type`` of its own, or an odd shape), whole under ``call``; written back into ``tool_calls``."""

_TYPE_ABSENT = "type_absent"
"""Hint on a `ToolUseBlock`: its tool call had no ``type`` (Mistral)."""
_FUNCTION_KEYS = "function_keys"
"""`ToolUseBlock` extra key: keys of the call's ``function`` besides ``name`` and ``arguments``."""

FINISH_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
"""``finish_reason`` -> neutral ``stop_reason``; values not listed are kept as they are."""

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}
"""Neutral ``stop_reason`` -> ``finish_reason`` (``stop_sequence`` has no own value here)."""

FINISH_ENUM = frozenset({"stop", "length", "tool_calls", "content_filter", "function_call"})
"""The ``finish_reason`` values the OpenAI SDK's ``ChatCompletion`` accepts."""

FOREIGN_FINISH = {
    "stop_sequence": "stop",
    "pause_turn": "length",
    "model_context_window_exceeded": "length",
    "compaction": "length",
    "MALFORMED_FUNCTION_CALL": "stop",
    "UNEXPECTED_TOOL_CALL": "stop",
    "TOO_MANY_TOOL_CALLS": "stop",
    "FINISH_REASON_UNSPECIFIED": "stop",
    "OTHER": "content_filter",
    "LANGUAGE": "content_filter",
    "NO_IMAGE": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "IMAGE_OTHER": "content_filter",
    "incomplete": "length",
    "failed": "stop",
    "cancelled": "stop",
}
"""Another provider's stop reasons (neutral: Anthropic's names, Gemini's ``finishReason`` and
OpenAI Responses' statuses as their adapters keep them) -> the ``finish_reason`` inside
`FINISH_ENUM` that means the same to a client, as LiteLLM maps them (`finish_reason`); the
original is listed as metadata, or kept in ``provider_specific_fields.stop_reason`` with
``extensions=True``."""


def finish_reason(stop_reason: Any, tool_calls: bool) -> str:
    """The ``finish_reason`` inside `FINISH_ENUM` for another provider's neutral ``stop_reason``
    (``tool_calls``: the message calls tools): `STOP_REASONS`, `FOREIGN_FINISH`, a Responses
    ``incomplete:<reason>`` as ``length``, anything else ``stop`` (``tool_calls`` with calls)."""
    mapped = STOP_REASONS.get(stop_reason)
    if mapped is None:
        mapped = FOREIGN_FINISH.get(stop_reason)
    if mapped is None and type(stop_reason) is str and stop_reason.startswith("incomplete:"):
        mapped = "length"
    if mapped is None:
        mapped = "tool_calls" if tool_calls else "stop"
    return mapped


USAGE_NAMES = {
    "prompt_tokens": "input_tokens",
    "completion_tokens": "output_tokens",
    "prompt_tokens_details.cached_tokens": "cache_read_input_tokens",
    "completion_tokens_details.reasoning_tokens": "reasoning_tokens",
}
"""Provider usage names -> neutral counter names (the rest keep their dotted provider names)."""
_USAGE_BACK = {v: k for k, v in USAGE_NAMES.items()}

MESSAGE_KEYS = {
    "system": frozenset({"name"}),
    "user": frozenset({"name"}),
    "assistant": frozenset({"name", "refusal", "audio", "function_call", "annotations"}),
    "tool": frozenset(),
}
"""Message keys besides ``role``, ``content``, ``tool_calls`` and ``tool_call_id``, by role."""

RESPONSE_KEYS = frozenset(
    {"id", "object", "created", "model", "service_tier", "system_fingerprint", "metadata"}
)
"""Top-level response keys kept in `ModelResponse.extra` that this API knows (and ``choices``,
``logprobs`` for the choice)."""

OTHER_PARTS = frozenset({"input_audio", "file", "refusal"})
"""Content part types carried whole as unknown blocks."""

_TEXT_KEYS: frozenset[str] = frozenset()
_IMAGE_KEYS = frozenset({"detail"})
_DOCUMENT_KEYS = frozenset({"filename"})


# --- decoding ----------------------------------------------------------------------------------

_TOP = msgspec.json.Decoder(dict[str, msgspec.Raw])
_MESSAGES = msgspec.json.Decoder(list[dict[str, Any]])


def _decode_request(data: Any, limits: Limits) -> Request:
    """Decode a Chat Completions request body into a `Request` (see the module docstring).

    Raises `DecodeError` / `ValidationError` with the JSON path.
    """
    top = kit.decode_json(data, "$", _TOP)
    raw = top.pop("messages", None)
    if raw is None:
        raise ValidationError("a request needs 'messages'", path="$")
    options = {key: kit.decode_json(value, f"$.{key}") for key, value in top.items()}
    messages: list[Message]
    try:  # the common shapes: one msgspec call into Structs of the provider's shape
        messages = [_fast_message(m) for m in _REQUEST_FAST.decode(raw)]
    except (msgspec.ValidationError, _NotFast, RecursionError):
        messages = _messages_from_dicts(raw)
    except (msgspec.DecodeError, UnicodeError):  # UnicodeError: invalid UTF-8, msgspec < 0.23
        kit.decode_json(raw, "$.messages")  # raises the located DecodeError
        raise
    return kit.decoded_request(messages, options, NAME, read_settings)


def _tool_ok(tool: Any) -> bool:
    """A function tool (``type`` absent, as Mistral's clients send it, is one too: the request
    keeps how it was spelled while its tools are unchanged)."""
    return (
        kit.has_keys(tool, {"function"}, {"type"})
        and tool.get("type", "function") == "function"
        and kit.tool_ok(tool["function"], {"name"}, "parameters")
    )


def _named_ok(choice: Any) -> bool:
    return (
        kit.has_keys(choice, {"type", "function"})
        and choice["type"] == "function"
        and kit.has_keys(choice["function"], {"name"})
        and kit.is_str(choice["function"]["name"])
    )


def _format_ok(value: Any) -> bool:
    if kit.has_keys(value, {"type"}):
        return value["type"] in ("text", "json_object")
    if not kit.has_keys(value, {"type", "json_schema"}) or value["type"] != "json_schema":
        return False
    schema = value["json_schema"]
    return (
        kit.has_keys(schema, {"name"}, {"schema", "strict"})
        and kit.is_str(schema["name"])
        and type(schema.get("schema", {})) is dict
        and type(schema.get("strict", True)) is bool
    )


def _format_in(value: dict[str, Any]) -> ResponseFormat:
    if value["type"] == "text":
        return ResponseFormat(type="text")
    if value["type"] == "json_object":
        return ResponseFormat(type="json")
    schema = value["json_schema"]
    return ResponseFormat(
        type="json_schema",
        name=schema["name"],
        schema=schema.get("schema"),
        strict=schema.get("strict"),
    )


def read_settings(options: dict[str, Any]) -> SettingsReader:
    """Move the options Chat Completions spells exactly like the neutral settings out of
    ``options``."""
    reader = SettingsReader(options)
    take = reader.take
    kit.take_same(reader, ("model", "temperature", "top_p", "user", "metadata", "stream"))
    if take("max_completion_tokens", "max_tokens", kit.is_int):
        if kit.is_int(options.get("max_tokens")):  # the deprecated spelling beside it: kept
            reader.spelling["max_tokens"] = options.pop("max_tokens")
    else:
        take("max_tokens", "max_tokens", kit.is_int)
    take(
        "stop",
        "stop",
        lambda v: kit.is_str(v) or kit.is_strings(v),
        lambda v: [v] if kit.is_str(v) else v,
    )
    kit.take_tools(reader, _tool_ok, lambda tool: kit.tool_from(tool["function"], "parameters"))
    kit.take_openai_choice(reader, _named_ok, lambda choice: choice["function"]["name"])
    take("response_format", "response_format", _format_ok, _format_in)
    take("reasoning_effort", "reasoning", kit.is_str, lambda v: Reasoning(effort=v))
    return reader


def write_settings(fields: dict[str, Any], policy: Unsupported) -> dict[str, Any]:
    """The neutral settings spelled for Chat Completions; what it has no spelling for is
    reported."""
    out, rest = kit.spelled_alike(
        fields, ("model", "max_tokens", "temperature", "top_p", "user", "metadata", "stream")
    )
    for name, value in rest.items():
        if name == "stop":
            out["stop"] = list(value)
        elif name == "tools":
            out["tools"] = [_tool_out(t, policy) for t in value]
        elif name == "tool_choice":
            kit.put_openai_choice(
                value,
                lambda tool: {"type": "function", "function": {"name": _name(tool, policy)}},
                out,
            )
        elif name == "response_format":
            out["response_format"] = _format_out(value)
        elif name == "reasoning" and value.effort is not None:
            out["reasoning_effort"] = kit.effort(value, policy)
        else:
            policy.report(f"$.{name}", f"the setting {name!r} (no Chat Completions spelling)")
    return out


NAME_LIMIT = 64
"""The most characters of a function name: the API takes ``^[a-zA-Z0-9_-]{1,64}$``."""


def _name(name: str, policy: Unsupported) -> str:
    """A function name fitted to the API's pattern (`NAME_LIMIT`; ``weather.get`` ->
    ``weather_get``, as another format may name a tool), recorded in the call's `Renames` when
    changed, so the response's tool calls get the client's names back. A request this adapter
    decoded keeps its names (`Unsupported.keep_names`): its tools are written as they came."""
    return name if policy.keep_names else policy.renaming().name(name, NAME_LIMIT)


def _tool_out(tool: Tool, policy: Unsupported) -> dict[str, Any]:
    fields = kit.tool_fields(tool, "parameters")
    fields["name"] = _name(tool.name, policy)
    return {"type": "function", "function": fields}


def _format_out(value: ResponseFormat) -> dict[str, Any]:
    if value.type == "text":
        return {"type": "text"}
    if value.type == "json":
        return {"type": "json_object"}
    schema: dict[str, Any] = {"name": value.name or "response"}
    if value.schema is not None:
        schema["schema"] = value.schema
    if value.strict is not None:
        schema["strict"] = value.strict
    return {"type": "json_schema", "json_schema": schema}


def _messages_from_dicts(raw: Any) -> list[Message]:
    """The general path: any message shape, through plain objects."""
    return [
        _message(m, f"$.messages[{i}]")
        for i, m in enumerate(kit.decode_json(raw, "$.messages", _MESSAGES))
    ]


class _ImageURL(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    url: str
    detail: str | msgspec.UnsetType = UNSET


class _TextPart(msgspec.Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False):
    text: str


class _ImagePart(
    msgspec.Struct, tag_field="type", tag="image_url", forbid_unknown_fields=True, gc=False
):
    image_url: _ImageURL


class _CallIn(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    type: Literal["function"]
    function: _Function


class _MessageIn(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A request message of the common shapes (other parts or keys take the general path)."""

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[_TextPart | _ImagePart] | msgspec.UnsetType | None = UNSET
    name: str | msgspec.UnsetType = UNSET
    tool_calls: list[_CallIn] | msgspec.UnsetType = UNSET
    tool_call_id: str | msgspec.UnsetType = UNSET
    refusal: str | msgspec.UnsetType | None = UNSET


def _fast_message(m: _MessageIn) -> Message:
    """`_message` for the Struct shapes; raises `_NotFast` where the general path decides."""
    role: Any = m.role
    extra: dict[str, Any] = {}
    if role == "developer":
        role = "system"
        extra["developer"] = True
    calls = m.tool_calls
    if (role == "tool") != (m.tool_call_id is not UNSET) or (
        calls is not UNSET and role != "assistant"
    ):
        raise _NotFast
    content = m.content
    blocks: Any
    if isinstance(content, str):
        blocks = content if calls is UNSET else _text_beside_calls(content, extra)
    elif content is None or content is UNSET:
        blocks = "" if content is UNSET and calls is UNSET else []
    elif role == "assistant" and not content:
        raise _NotFast  # [] needs the content_list hint (`_needs_list_hint`)
    else:
        blocks = [_fast_part(p) for p in content]
    if content is UNSET:
        extra["content_absent"] = True
    if calls is not UNSET:
        if not calls:
            extra["tool_calls"] = []
        blocks = list(blocks) + [
            _tool_use(c.id, c.function.name, c.function.arguments) for c in calls
        ]
    if m.name is not UNSET:
        extra["name"] = m.name
    if m.refusal is not UNSET:
        extra["refusal"] = m.refusal
    return Message(
        role=role,
        content=blocks,
        tool_call_id=m.tool_call_id,
        extra=kit.tagged(extra, blocks, NAME),
    )


def _fast_part(part: _TextPart | _ImagePart) -> wb.ContentBlock:
    if type(part) is _TextPart:
        return wb.TextBlock(part.text)
    image = part.image_url  # type: ignore[union-attr]
    rest = {} if image.detail is UNSET else {"detail": image.detail}
    return wb.ImageBlock(source=_source(image.url), extra=Extra._own(rest) if rest else UNSET)


def _message(obj: dict[str, Any], path: str) -> Message:
    """A message object of any shape; an assistant message carrying the LiteLLM extension
    (`_chat_ext`) gets its thinking, citations and server blocks as neutral blocks."""
    if (
        obj.get("role") == "assistant"
        and (_chat_ext.THINKING in obj or _chat_ext.PSF in obj or _call_fields_in(obj))
        and (obj.get("content") is None or type(obj.get("content")) is str)
    ):
        msg = _extension_message(obj, path)
        if msg is not None:
            return msg
    return _plain_message(obj, path)


def _extension_message(obj: dict[str, Any], path: str) -> Message | None:
    """An assistant message with the extension read into blocks, or None when it would not be
    written back exactly (then its keys stay the message's own)."""
    rest = dict(obj)
    reasoning = rest.pop(_chat_ext.REASONING, UNSET) if _chat_ext.THINKING in rest else UNSET
    thinking = rest.pop(_chat_ext.THINKING, UNSET)
    psf = rest.pop(_chat_ext.PSF, UNSET)
    base = _plain_message(rest, path)
    content = base.content if type(base.content) is list else []
    calls = [
        _chat_ext.lift_call(b) for b in content if type(b) in (wb.ToolUseBlock, wb.UnknownBlock)
    ]
    lead = [b for b in content if type(b) is wb.ThinkingBlock]  # from reasoning_content alone
    got = _chat_ext.blocks_of(reasoning, thinking, psf, obj.get("content"), calls, path)
    if got is None:
        return None
    blocks, left = got
    blocks = [*lead, *blocks]
    extra = kit.extra_dict(base)
    extra.pop(kit.SOURCE, None)
    if extra.get("content_absent") == _EMPTY and any(type(b) is wb.TextBlock for b in blocks):
        del extra["content_absent"]  # the "" is the text block the extension's order placed
    if psf is not UNSET and left:
        extra[_chat_ext.PSF] = left  # what the extension does not read (LiteLLM's other keys)
    if not _neutral(extra, blocks):
        extra[kit.SOURCE] = NAME  # (untagged, its blocks are Anthropic's as they are)
        if psf is not UNSET:
            extra.setdefault(_chat_ext.PSF, {})  # marks where the blocks came from
    msg = Message(role="assistant", content=blocks, extra=Extra._own(extra) if extra else UNSET)
    try:
        back = _encode_message(msg, path, Unsupported(), ext=True)
        same = back is not None and _JSON.decode(kit.encode_json(back)) == obj
    except WireError:
        return None
    return msg if same else None


_JSON = msgspec.json.Decoder()


def _call_fields_in(obj: dict[str, Any]) -> bool:
    calls = obj.get("tool_calls")
    return type(calls) is list and any(type(c) is dict and _chat_ext.PSF in c for c in calls)


def _neutral(extra: dict[str, Any], blocks: list[Any]) -> bool:
    """Whether a message read with the extension can be neutral (untagged): only hints other
    encoders ignore, no block with keys of this API (its blocks are then the neutral, which is
    the Anthropic, shape: every encoder writes them as the blocks they are)."""
    return (
        all(k in kit.HINTS for k in extra)
        and extra.get("content_absent", True) is True  # ("" and null: this adapter's hints)
        and all(getattr(b, "extra", UNSET) is UNSET for b in blocks)
    )


def _plain_message(obj: dict[str, Any], path: str) -> Message:
    obj = dict(obj)
    role = obj.pop("role", None)
    extra: dict[str, Any] = {}
    if role == "developer":
        role = "system"
        extra["developer"] = True
    if type(role) is not str or role not in MESSAGE_KEYS:
        raise ValidationError(f"unsupported role {role!r}", path=path + ".role")
    tool_call_id: Any = UNSET
    if role == "tool":
        tool_call_id = obj.pop("tool_call_id", None)
        if type(tool_call_id) is not str:
            raise ValidationError("a tool message needs a string 'tool_call_id'", path=path)
    absent = "content" not in obj
    content = obj.pop("content", None)
    if role == "assistant" and "tool_calls" in obj and obj["tool_calls"] is None:
        extra["tool_calls"] = obj.pop("tool_calls")  # null, written back as it came
    tool_calls = obj.pop("tool_calls", None) if role == "assistant" else None
    blocks: Any
    if isinstance(content, str):
        blocks = content if tool_calls is None else _text_beside_calls(content, extra)
    elif content is None:
        blocks = "" if absent and tool_calls is None else []
    elif type(content) is list:
        blocks = [_part(p, f"{path}.content[{j}]") for j, p in enumerate(content)]
        if any(type(b) is wb.ImageBlock and b.cache_control is not UNSET for b in blocks):
            extra[kit.SOURCE] = NAME  # a part-level cache_control: this API's spelling
    else:
        raise ValidationError("'content' must be a string, an array or null", path=path)
    if absent:
        extra["content_absent"] = True
    if tool_calls is not None:
        if type(tool_calls) is not list:
            raise ValidationError("'tool_calls' must be an array", path=path + ".tool_calls")
        if not tool_calls:
            extra["tool_calls"] = []
        blocks = list(blocks) + [
            _tool_call(c, f"{path}.tool_calls[{j}]") for j, c in enumerate(tool_calls)
        ]
    if role == "assistant":
        blocks = _reasoning(obj, blocks, type(content) is list)
        if content is None and not absent and tool_calls is None and blocks:
            extra["content_absent"] = None  # null beside reasoning, where "" is the default
        if type(content) is list and _needs_list_hint(content, tool_calls):
            extra[_CONTENT_LIST] = True
    extra.update(obj)
    return Message(
        role=role,
        content=blocks,
        tool_call_id=tool_call_id,
        extra=kit.tagged(extra, blocks, NAME),
    )


_EMPTY = ""
"""The value of the ``content_absent`` hint on an assistant message whose ``content`` was the
empty string beside tool calls: the neutral message holds only the tool calls (an empty text
block is one other APIs refuse, Anthropic's among them), and this adapter writes ``""`` back.
The hint records how ``content`` was spelled where the blocks cannot say: ``True`` absent,
``""`` the empty string beside tool calls, ``None`` null beside a reasoning text (whose
default is ``""``)."""


def _text_beside_calls(text: str, extra: dict[str, Any]) -> list[wb.ContentBlock]:
    """The blocks of an assistant message's string content beside tool calls: one text block, or
    none for ``""`` (remembered in ``extra`` as the hint ``content_absent: ""``)."""
    if text:
        return [wb.TextBlock(text)]
    extra["content_absent"] = _EMPTY
    return []


def _needs_list_hint(content: list[Any], tool_calls: Any) -> bool:
    """Whether an assistant message's list ``content`` would not come back a list without the
    ``content_list`` hint: it is empty, or one text part beside tool calls."""
    if not content:
        return True
    return bool(tool_calls) and len(content) == 1 and content[0].get("type") == "text"


def _reasoning(obj: dict[str, Any], blocks: Any, as_list: bool) -> Any:
    """``blocks`` with the message's reasoning text (`REASONING_KEYS`, popped from ``obj``) as a
    thinking block in front (``as_list``: the message's content was a list of parts)."""
    for key in REASONING_KEYS:
        text = obj.get(key)
        if type(text) is str:
            del obj[key]
            hints: dict[str, Any] = {_REASONING: key}
            if type(blocks) is str:
                blocks = [wb.TextBlock(blocks)] if blocks else []
            if as_list:
                hints[_CONTENT_LIST] = True
            return [wb.ThinkingBlock(thinking=text, extra=Extra._own(hints)), *blocks]
    return blocks


_TEXT_PART = frozenset({"type", "text"})


def _part(part: Any, path: str) -> wb.ContentBlock:
    if type(part) is not dict or type(part.get("type")) is not str:
        raise ValidationError("a content part must be an object with a string 'type'", path=path)
    kind = part["type"]
    if kind == "text":
        text = part.get("text")
        if type(text) is not str:
            raise ValidationError("a text part needs a string 'text'", path=path + ".text")
        if len(part) == 2:
            return wb.TextBlock(text)
        rest = {k: v for k, v in part.items() if k not in _TEXT_PART}  # cache_control, ...
        return wb.TextBlock(text, extra=Extra._own(rest))
    if kind == "image_url":
        image = part.get("image_url")
        cache = part.get("cache_control", UNSET)
        if (
            type(image) is dict
            and type(image.get("url")) is str
            and len(part) == (2 if cache is UNSET else 3)
            and (cache is UNSET or (type(cache) is dict and "cache_control" not in image))
        ):  # a part-level cache_control (OpenRouter, LiteLLM) is the block's typed one
            rest = {k: v for k, v in image.items() if k != "url"}
            return wb.ImageBlock(
                source=_source(image["url"]),
                cache_control=cache,
                extra=Extra._own(rest) if rest else UNSET,
            )
    if kind == "file" and len(part) == 2:
        file = part.get("file")
        if type(file) is dict and type(file.get("file_data")) is str:
            source = _source(file["file_data"])
            rest = {k: v for k, v in file.items() if k != "file_data"}
            if type(source) is wb.Base64Source:
                return wb.DocumentBlock(source=source, extra=Extra._own(rest) if rest else UNSET)
    if kind in wb.KNOWN_BLOCK_TYPES:  # a part spelled like a neutral block (Mistral "thinking")
        return wb.UnknownBlock(Extra._own({"type": PART, "part": part}))
    return kit.unknown_block(part, path)


def _source(url: str) -> wb.Base64Source | wb.UrlSource:
    """A data URL with canonical base64 as bytes (keeping its text, written back as it came);
    any other URL as it is."""
    source = kit.parse_data_url(url) if url.startswith("data:") else None
    return source if source is not None else wb.UrlSource(url=url)


_CALL_KEYS = frozenset({"id", "type", "function"})


def _tool_call(call: Any, path: str) -> wb.ContentBlock:
    """A tool call as a `ToolUseBlock` (its other keys, such as ``index``, in ``extra``), or,
    when it is not a function call with a string id, name and arguments, whole (`TOOL_CALL`, or
    its own ``type`` for custom calls)."""
    if type(call) is not dict:
        raise ValidationError("a tool call must be an object", path=path)
    function = call.get("function")
    kind = call.get("type", MISSING_TYPE)
    if (
        (kind == "function" or kind is MISSING_TYPE)
        and type(call.get("id")) is str
        and type(function) is dict
        and type(function.get("name")) is str
        and type(function.get("arguments")) is str
    ):
        block = _tool_use(call["id"], function["name"], function["arguments"])
        if len(call) == 3 and len(function) == 2:
            return block
        extra = dict(block.extra.items()) if block.extra is not UNSET else {}
        if kind is MISSING_TYPE:
            extra[_TYPE_ABSENT] = True
        extra.update((k, v) for k, v in call.items() if k not in _CALL_KEYS)
        more = {k: v for k, v in function.items() if k not in ("name", "arguments")}
        if more:
            extra[_FUNCTION_KEYS] = more
        return msgspec.structs.replace(block, extra=Extra._own(extra))
    if type(kind) is str and kind not in ("function", TOOL_CALL) and "id" in call:
        return kit.unknown_block(call, path)  # a custom tool call: whole, by its own type
    return wb.UnknownBlock(Extra._own({"type": TOOL_CALL, "call": call}))


MISSING_TYPE: Any = object()


_ARGS = msgspec.json.Decoder(dict[str, Any])
_ENC = msgspec.json.Encoder()


def _tool_use(ident: str, name: str, arguments: str) -> wb.ToolUseBlock:
    try:
        value = _ARGS.decode(arguments)
        exact = _ENC.encode(value) == arguments.encode()
    except (
        msgspec.DecodeError,
        RecursionError,
        UnicodeError,
    ):  # truncated, not an object, too deep: text only
        raw = Extra._own({kit.RAW_ARGUMENTS: arguments})
        return wb.ToolUseBlock(id=ident, name=name, input={}, extra=raw)
    if exact:
        return wb.ToolUseBlock(id=ident, name=name, input=value)
    raw = Extra._own({kit.RAW_ARGUMENTS: arguments})
    return wb.ToolUseBlock(id=ident, name=name, input=value, extra=raw)


# responses: a fast path through Structs of the common shape -----------------------------------


class _Function(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str
    arguments: str


class _ToolCall(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    type: str
    function: _Function


class _Msg(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    role: str
    content: str | None
    refusal: Any = UNSET
    annotations: Any = UNSET
    tool_calls: list[_ToolCall] | msgspec.UnsetType = UNSET


class _Choice(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    index: int
    message: _Msg
    logprobs: Any
    finish_reason: str


class _Response(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    object: str
    created: int
    model: str
    choices: list[_Choice]
    usage: dict[str, Any] | msgspec.UnsetType = UNSET
    service_tier: Any = UNSET
    system_fingerprint: Any = UNSET


_FAST = msgspec.json.Decoder(_Response)
_ANY = msgspec.json.Decoder(dict[str, Any])


def _decode_response(data: Any, limits: Limits) -> ModelResponse:
    """Decode a Chat Completions response body into a `ModelResponse` (module docstring).

    Raises `DecodeError` / `ValidationError` with the JSON path.
    """
    try:
        fast = _FAST.decode(data)
    except (msgspec.ValidationError, RecursionError, UnicodeError):
        fast = None  # another shape, too deep for the fast path, or bad text: the general path
    except msgspec.DecodeError:
        kit.decode_json(data, "$")  # raises the located DecodeError
        raise
    if fast is not None and len(fast.choices) == 1 and fast.object == "chat.completion":
        try:
            return _fast_response(fast)
        except _NotFast:
            pass
    return _response(kit.decode_json(data, "$", _ANY), "$")


def _fast_response(fast: _Response) -> ModelResponse:
    choice = fast.choices[0]
    msg = choice.message
    extra: dict[str, Any] = {}
    calls = msg.tool_calls
    if msg.role != "assistant" or choice.index != 0:
        raise ValidationError("the first choice must be an assistant message", path="$.choices[0]")
    content: Any
    if calls is UNSET:
        content = [] if msg.content is None else msg.content
    else:
        content = [] if msg.content is None else _text_beside_calls(msg.content, extra)
        if not calls:
            extra["tool_calls"] = []
        for call in calls:
            if call.type != "function":
                raise _NotFast
            content.append(_tool_use(call.id, call.function.name, call.function.arguments))
    if msg.refusal is not UNSET:
        extra["refusal"] = msg.refusal
    if msg.annotations is not UNSET:
        extra["annotations"] = msg.annotations
    top: dict[str, Any] = {kit.SOURCE: NAME, "object": fast.object, "logprobs": choice.logprobs}
    if fast.service_tier is not UNSET:
        top["service_tier"] = fast.service_tier
    if fast.system_fingerprint is not UNSET:
        top["system_fingerprint"] = fast.system_fingerprint
    counters: dict[str, int] = {}
    if fast.usage is not UNSET:
        counters, other = _usage_in(fast.usage)
        if other:
            top[kit.USAGE_EXTRA] = other
    else:
        top["usage_absent"] = True
    return ModelResponse(
        message=Message(role="assistant", content=content, extra=kit.tagged(extra, content, NAME)),
        stop_reason=FINISH_REASONS.get(choice.finish_reason, choice.finish_reason),
        usage=counters,
        id=fast.id,
        model=fast.model,
        created=fast.created,
        extra=Extra._own(top),
    )


class _NotFast(Exception):
    pass


def _usage_in(usage: dict[str, Any]) -> tuple[dict[str, int], dict[str, Any]]:
    counters: dict[str, int] = {}
    other: dict[str, Any] = {}
    names = USAGE_NAMES
    for key, value in usage.items():  # flatten_usage, inlined for the two levels OpenAI uses
        if type(value) is int:
            counters[names.get(key, key)] = value
        elif type(value) is dict and value:
            for inner, leaf in value.items():
                name = key + "." + inner
                if type(leaf) is int:
                    counters[names.get(name, name)] = leaf
                elif type(leaf) is dict and leaf:
                    deeper, rest = kit.flatten_usage({name: leaf}, names)
                    counters.update(deeper)
                    other.update(rest)
                else:
                    other[name] = leaf
        else:
            other[key] = value
    cached = counters.get("cache_read_input_tokens")
    if cached is not None and "input_tokens" in counters:
        counters["input_tokens"] -= cached
    return counters, other


def _response(obj: dict[str, Any], path: str) -> ModelResponse:
    obj = dict(obj)
    choices = obj.pop("choices", None)
    if type(choices) is not list or not choices:
        raise ValidationError("a response needs a non-empty 'choices' array", path=path)
    first = choices[0]
    if type(first) is not dict or type(first.get("message")) is not dict:
        raise ValidationError("a choice needs a 'message' object", path=f"{path}.choices[0]")
    first = dict(first)
    if first.pop("index", 0) != 0:
        raise ValidationError("the first choice must have index 0", path=f"{path}.choices[0]")
    raw_message = first.pop("message")
    message = _message(raw_message, f"{path}.choices[0].message")
    if type(raw_message.get("content")) is list:  # Mistral: a list of parts, kept a list
        message = msgspec.structs.replace(
            message,
            extra=Extra._own({**kit.extra_dict(message), _CONTENT_LIST: True, kit.SOURCE: NAME}),
        )
    if message.role != "assistant":
        raise ValidationError("a choice's message must be an assistant message", path=path)
    finish = first.pop("finish_reason", None)
    if type(finish) is not str:
        raise ValidationError(
            "'finish_reason' must be a string", path=f"{path}.choices[0].finish_reason"
        )
    top: dict[str, Any] = {kit.SOURCE: NAME}
    typed: dict[str, Any] = {}
    for key, kind in (("id", str), ("model", str), ("created", int)):
        if type(obj.get(key)) is kind:
            typed[key] = obj.pop(key)
    top.update(obj)
    if "logprobs" in first:
        top["logprobs"] = first.pop("logprobs")
    if first:
        top["choice_extra"] = first
    if len(choices) > 1:
        top["choices"] = choices[1:]
    usage = top.pop("usage", UNSET)
    counters: dict[str, int] = {}
    if usage is UNSET:
        top["usage_absent"] = True
    elif type(usage) is dict:
        counters, other = _usage_in(usage)
        if other:
            top[kit.USAGE_EXTRA] = other
    else:
        top[kit.USAGE_EXTRA] = {"": usage}
    return ModelResponse(
        message=message,
        stop_reason=FINISH_REASONS.get(finish, finish),
        usage=counters,
        extra=Extra._own(top),
        **typed,
    )


def _decode_choices(data: Any, limits: Limits) -> list[ModelResponse]:
    """Every choice of a response (``n > 1``) as its own `ModelResponse`, in ``index`` order.

    Each carries the response's top-level keys in ``extra`` (usage only on the first).
    """
    obj = kit.decode_json(data, "$", _ANY)
    choices = obj.get("choices")
    if type(choices) is not list:
        raise ValidationError("a response needs a 'choices' array", path="$")
    out = []
    for i, choice in enumerate(choices):
        one = dict(obj)
        one["choices"] = [dict(choice, index=0) if type(choice) is dict else choice]
        if i:
            one.pop("usage", None)
        try:
            out.append(_response(one, "$"))
        except ValidationError as err:
            raise ValidationError(err.message, path=f"$.choices[{i}]") from None
    return out


# --- encoding ----------------------------------------------------------------------------------


def _encode_request(req: Request, policy: Unsupported) -> bytes:
    """Write a Chat Completions request body: ``encode_request(req)`` or
    ``encode_request(messages, model=..., tools=..., **options)``.

    Keyword options add to and override ``request.options``. Messages this adapter decoded are
    written back as they came; another provider's data is mapped where Chat Completions has an
    exact equivalent, and what it cannot hold (thinking, an unknown block, ...) raises
    `UnsupportedError` naming it and its path when it is content, or is left out and listed in
    ``dropped`` (metadata always; content with ``unsupported="drop"``). The input is never
    changed.
    """
    ext = False
    if "extensions" in req.options:
        ext = _extensions(req.options["extensions"])
        options = {k: v for k, v in req.options.items() if k != "extensions"}
        req = msgspec.structs.replace(req, options=options)
    ext = ext or req.provider == NAME  # a request of this adapter: in the dialect it came in
    policy.keep_names = req.provider == NAME  # the client's own names, as its tools spell them
    body = kit.encode_settings(req, NAME, read_settings, write_settings, policy)
    messages: list[Any] = []
    for i, msg in enumerate(req.messages):
        role = msg.role
        if (
            msg.extra is UNSET
            and type(msg.content) is str
            and msg.is_error is UNSET
            and (role == "tool") is (msg.tool_call_id is not UNSET)
        ):
            messages.append(msg)  # the neutral struct is this API's shape: msgspec writes it
            continue
        out = _direct_message(msg, i)
        if out is None:
            out = _encode_message(msg, f"$.messages[{i}]", policy, ext=ext)
        if out is not None:
            messages.append(out)
    body["messages"] = messages
    return kit.encode_json(body)


def _direct_message(msg: Message, i: int) -> dict[str, Any] | None:
    """What `_encode_message` writes for the commonest messages msgspec cannot write as they
    are, written directly (None for any other): a user message of plain text and image parts;
    and the two this adapter's decoder tags with hints only, a developer message with string
    content and an assistant turn of plain tool calls (content absent, or null)."""
    extra = msg.extra
    if extra is UNSET:
        return _user_parts(msg)
    if extra.get(kit.SOURCE) != NAME:
        return None
    size = len(extra)
    content = msg.content
    if msg.role == "system":
        if size == 2 and extra.get("developer") is True and type(content) is str:
            return {"role": "developer", "content": content}
        return None
    if msg.role != "assistant" or type(content) is not list or not content:
        return None
    absent = extra.get("content_absent") is True
    if size != 1 + absent:
        return None
    for block in content:
        if type(block) is not wb.ToolUseBlock or not kit.bare(block):
            return None
    calls = []
    for j, block in enumerate(content):
        arguments = kit.tool_arguments(block, f"$.messages[{i}].content[{j}]")
        function = {"name": block.name, "arguments": arguments}  # type: ignore[union-attr]
        calls.append({"id": block.id, "type": "function", "function": function})  # type: ignore[union-attr]
    if absent:
        return {"role": "assistant", "tool_calls": calls}
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _user_parts(msg: Message) -> dict[str, Any] | None:
    """A user message without extra keys whose parts are plain texts and plain images (no
    optional field or extra key on the block or its URL or base64 source), as `_parts` writes
    it; None for any other."""
    content = msg.content
    if (
        msg.role != "user"
        or type(content) is not list
        or msg.is_error is not UNSET
        or msg.tool_call_id is not UNSET
    ):
        return None
    parts: list[Any] = []
    for block in content:
        cls = type(block)
        if cls is wb.TextBlock and kit.bare(block):
            parts.append(block)  # {"type": "text", "text": ...} as msgspec writes the struct
            continue
        if cls is not wb.ImageBlock or not kit.bare(block):
            return None
        source = block.source  # type: ignore[union-attr]
        kind = type(source)
        if kind is wb.UrlSource and source.extra is UNSET:
            url: Any = source.url
        elif kind is wb.Base64Source and source.extra is UNSET:
            url = kit.data_url(source)
        else:
            return None
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return {"role": "user", "content": parts}


def _extensions(value: Any) -> bool:
    """The ``extensions=`` keyword: True writes what Chat has no place for (thinking,
    citations, server blocks) the way LiteLLM does (`_chat_ext`); False (the default) keeps to
    the API's schema."""
    if type(value) is not bool:
        raise TypeError(f"extensions= must be True or False, not {value!r}")
    return value


def _encode_message(
    msg: Message, path: str, policy: Unsupported, response: bool = False, ext: bool = False
) -> dict[str, Any] | None:
    role = msg.role
    extra = msg.extra if msg.extra is not UNSET else {}
    own = kit.is_own(msg.extra, NAME)
    out: dict[str, Any] = {"role": "developer" if extra.get("developer") is True else role}
    absent = extra.get("content_absent") is True
    if role == "tool":
        if msg.tool_call_id is UNSET:
            policy.report(path, "a tool message without tool_call_id")
            return None
        if msg.is_error is True:
            policy.report(path + ".is_error", "is_error: true (tool messages have no error flag)")
        out["content"] = _parts(msg.content, path, policy, "tool", own)
        out["tool_call_id"] = msg.tool_call_id
    elif role == "assistant":
        _assistant(msg, path, policy, out, absent, own, response, ext)
    else:
        content = _parts(msg.content, path, policy, role, own)
        if not absent:
            out["content"] = content
    if role != "tool" and msg.tool_call_id is not UNSET:
        what = f"a tool_call_id on a {role} message (only tool messages carry one)"
        policy.metadata(path + ".tool_call_id", what)
    psf = out.pop(_chat_ext.PSF, None)  # the extension's, merged with the message's own
    if extra:
        keys = {k: v for k, v in extra.items() if k != "tool_calls"}
        out.update(kit.kept_keys(keys, MESSAGE_KEYS[role], own, policy, path))
    if psf is not None:
        mine = out.get(_chat_ext.PSF)
        out[_chat_ext.PSF] = {**mine, **psf} if type(mine) is dict else psf
    return out


def _assistant(
    msg: Message,
    path: str,
    policy: Unsupported,
    out: dict[str, Any],
    absent: bool,
    own: bool,
    response: bool = False,
    ext: bool = False,
) -> None:
    """Fill ``out`` for an assistant message: ``content`` (a string, parts or null),
    ``tool_calls`` and a reasoning key. In a response (``response=True``) content is always a
    string or null. With the extension (``ext``, or a message of this adapter that carried it),
    thinking, citations and server blocks go to its keys (`_chat_ext`) and the text is one
    string."""
    content = msg.content
    extra = msg.extra if msg.extra is not UNSET else {}
    fields: dict[str, Any] = {}
    ext = type(content) is list and (ext or own) and _carried(content, extra, own)
    if ext:
        source = kit.source_of(msg.extra)
        blocks_ok = source in (None, "anthropic") or (own and _chat_ext.PSF in extra)
        content, fields = _chat_ext.split(
            content, path, policy, blocks_ok, lambda b: own and _own_block(b), own
        )
    if own and "tool_calls" in extra and extra["tool_calls"] is None:
        out["tool_calls"] = None  # null, as it came (Mistral)
    if isinstance(content, str):
        if not absent:
            out["content"] = content
        return
    calls: list[Any] = []
    parts: list[Any] = []
    as_list = False
    for j, block in enumerate(content):
        cls = type(block)
        if cls is wb.TextBlock and kit.bare(block):  # a plain text: what `_encode_part` writes
            parts.append({"type": "text", "text": block.text})  # type: ignore[union-attr]
            continue
        where = f"{path}.content[{j}]"
        if cls is wb.ToolUseBlock:
            calls.append(_encode_call(block, where, policy, own, ext, not response))  # type: ignore[arg-type]
        elif cls is wb.UnknownBlock and own and block.type == TOOL_CALL:  # type: ignore[union-attr]
            calls.append(block.data["call"])  # type: ignore[union-attr]
        elif cls is wb.UnknownBlock and own and "custom" in block.data:  # type: ignore[union-attr]
            calls.append(block.data.to_dict())  # type: ignore[union-attr]
        elif cls is wb.RedactedThinkingBlock:
            policy.metadata(where, "a redacted thinking block (encrypted for Anthropic alone)")
        elif cls is wb.ThinkingBlock and own and _reasoning_key(block) is not None:
            out[_reasoning_key(block)] = block.thinking  # type: ignore[union-attr,index]
            as_list = block.extra.get(_CONTENT_LIST) is True  # type: ignore[union-attr]
        else:
            part = _encode_part(block, where, policy, "assistant", own)
            if part is not None:
                parts.append(part)
    has_calls = bool(calls) or extra.get("tool_calls") == []
    value: Any = parts or None
    if own and extra.get(_CONTENT_LIST) is True:
        value = parts  # content that was a list of parts (even empty, or one text part)
    elif response:
        texts = []
        for j, part in enumerate(parts):
            if part["type"] == "text" and len(part) == 2:
                texts.append(part["text"])
            else:
                policy.report(f"{path}.content[{j}]", f"a {part['type']!r} part in a response")
        value = "".join(texts) if texts else None
        if value is None and own and _reasoning_key_in(content) and not has_calls:
            value = None if extra.get("content_absent", "") is None else ""  # (see below)
    elif (has_calls or _reasoning_key_in(content)) and not as_list and len(parts) == 1:
        if parts[0]["type"] == "text" and len(parts[0]) == 2:
            value = parts[0]["text"]
    elif _reasoning_key_in(content) and not as_list and not parts and not has_calls:
        value = None if own and extra.get("content_absent", "") is None else ""
    if fields:  # the extension's: the text as one string (the order is in its keys)
        texts = [b.text for b in content if type(b) is wb.TextBlock]
        value = "".join(texts) if texts else None
    if value is None and own and extra.get("content_absent") == _EMPTY:
        value = ""  # the empty string it was beside the tool calls
    if not absent:
        out["content"] = value
    if has_calls:
        out["tool_calls"] = calls
    out.update(fields)


def _own_block(block: Any) -> bool:
    """A block of this adapter's message that the extension leaves to the plain rules: a
    reasoning text's thinking block, a whole tool call."""
    cls = type(block)
    if cls is wb.ThinkingBlock:
        return _reasoning_key(block) is not None
    return cls is wb.UnknownBlock and (block.type == TOOL_CALL or "custom" in block.data)


def _carried(content: list[Any], extra: Any, own: bool) -> bool:
    """Whether a message needs the extension: it holds a block only the extension writes, or
    (``own``: a message of this adapter) its decoder read the extension."""
    if own and _chat_ext.PSF in extra:
        return True
    for block in content:
        cls = type(block)
        if cls is wb.ToolUseBlock:
            found = bool(_chat_ext.call_fields(block))
        elif cls is wb.TextBlock:
            found = type(block.citations) is list
        elif cls is wb.ThinkingBlock:
            found = not own or _reasoning_key(block) is None
        elif cls is wb.UnknownBlock:
            found = not own  # (own: a Chat part, unless the extension was read: above)
        else:  # redacted thinking, server-tool and other catalog blocks: only the extension's
            found = cls not in _CHAT_BLOCKS
        if found:
            return True
    return False


_CHAT_BLOCKS = frozenset(
    {wb.TextBlock, wb.UnknownBlock, wb.ImageBlock, wb.DocumentBlock, wb.ThinkingBlock}
)


def _reasoning_key(block: Any) -> str | None:
    extra = block.extra
    key = extra.get(_REASONING) if extra is not UNSET else None
    return key if key in REASONING_KEYS else None


def _reasoning_key_in(content: list[Any]) -> bool:
    return (
        bool(content)
        and type(content[0]) is wb.ThinkingBlock
        and _reasoning_key(content[0]) is not None
    )


_OWN_CALL_HINTS = frozenset({kit.RAW_ARGUMENTS, _TYPE_ABSENT, _FUNCTION_KEYS})


def _encode_call(
    block: wb.ToolUseBlock,
    path: str,
    policy: Unsupported,
    own: bool,
    ext: bool = False,
    fit: bool = True,
) -> dict[str, Any]:
    """A ``tool_calls`` entry; another format's name is fitted to the API's pattern in a request
    (``fit``), never in a response, which goes back to the client that named it."""
    extra = block.extra if block.extra is not UNSET else {}
    arguments = kit.tool_arguments(block, path)
    call: dict[str, Any] = {"id": block.id}
    if not (own and extra.get(_TYPE_ABSENT) is True):
        call["type"] = "function"
    name = _name(block.name, policy) if fit and not own else block.name
    function: dict[str, Any] = {"name": name, "arguments": arguments}
    typed = _chat_ext.call_fields(block) if ext else {}
    for key, value in kit.block_keys(block).items():
        if key in (kit.RAW_ARGUMENTS, _TYPE_ABSENT) or key in typed:
            continue
        if own and key == _FUNCTION_KEYS and type(value) is dict:
            function.update(value)
        elif own:
            call[key] = value
        elif not kit.block_hint(key, block):
            what = f"the key {key!r} on a tool_use block"
            kit.foreign_key(policy, f"{path}.{key}", what, key, value)
    call["function"] = function
    if typed:  # the extension: typed keys in the call's provider_specific_fields
        call[_chat_ext.PSF] = typed
    return call


def _parts(
    content: str | list[wb.ContentBlock], path: str, policy: Unsupported, role: str, own: bool
) -> Any:
    """Content as a string or a list of content parts."""
    if isinstance(content, str):
        return content
    out: list[Any] = []
    for j, block in enumerate(content):
        if type(block) is wb.TextBlock and kit.bare(block):
            out.append(block)  # {"type": "text", "text": ...} as msgspec writes the struct
            continue
        part = _encode_part(block, f"{path}.content[{j}]", policy, role, own)
        if part is not None:
            out.append(part)
    return out


def _encode_part(
    block: wb.ContentBlock, path: str, policy: Unsupported, role: str, own: bool
) -> Any:
    cls = type(block)
    if cls is wb.UnknownBlock:
        kind = block.type  # type: ignore[union-attr]
        if own and kind == PART:
            return _checked_data(block.data["part"], path)  # type: ignore[union-attr]
        if own and kind != TOOL_CALL:
            return _checked_data(block.data.to_dict(), path)  # type: ignore[union-attr]
        kit.foreign_block(policy, path, kind, None if own else "another provider")
        return None
    if cls is wb.TextBlock:
        part = {"type": "text", "text": block.text}  # type: ignore[union-attr]
        part.update(kit.block_extra(block, _TEXT_KEYS, own, policy, path))
        return part
    if cls is wb.ImageBlock and role == "user":
        source = block.source  # type: ignore[union-attr]
        url = _url(source, path + ".source", policy, own)
        if url is None:
            return None
        image: dict[str, Any] = {"url": url}
        image.update(kit.block_extra(block, _IMAGE_KEYS, own, policy, path))
        if own and block.cache_control is not UNSET:  # type: ignore[union-attr]
            cache = image.pop("cache_control")  # the part's, not the image_url's (see `_part`)
            return {"type": "image_url", "image_url": image, "cache_control": cache}
        return {"type": "image_url", "image_url": image}
    if cls is wb.DocumentBlock and role == "user":
        source = block.source  # type: ignore[union-attr]
        if type(source) is wb.Base64Source:
            file: dict[str, Any] = {"file_data": kit.data_url(source)}
            file.update(kit.block_extra(block, _DOCUMENT_KEYS, own, policy, path))
            return {"type": "file", "file": file}
    policy.report(path, f"{kit.a(_kind(block))} block in {kit.a(role)} message")
    return None


def _kind(block: Any) -> str:
    return str(block.type)


def _url(source: Any, path: str, policy: Unsupported, own: bool) -> Any:
    """The image URL (a ``str``, or `msgspec.Raw` JSON text for a data URL), or None."""
    cls = type(source)
    if cls is wb.UrlSource:
        for key, value in kit.block_keys(source).items():
            kit.foreign_key(policy, f"{path}.{key}", f"the key {key!r} on a url source", key, value)
        return str(source.url)
    if cls is wb.Base64Source:
        for key, value in kit.block_keys(source).items():
            kit.foreign_key(policy, f"{path}.{key}", f"the key {key!r} on a source", key, value)
        return kit.data_url(source)
    policy.report(path, f"a {getattr(source, 'type', '?')!r} source")
    return None


def _checked_data(data: dict[str, Any], path: str) -> dict[str, Any]:
    found = _values.find(data, _values.json_problem, path)
    if found is not None:
        raise EncodeError(found[1], path=found[0])
    return data


def _encode_response(response: ModelResponse, policy: Unsupported, fields: dict[str, Any]) -> bytes:
    """Write a Chat Completions response body for ``response`` (what a gateway returns).

    ``fields`` supply top-level keys the response lacks (``id=``, ``model=``, ``created=``).
    ``created`` is the response's own time (`ModelResponse.created`: Chat's ``created``,
    Responses' ``created_at``), else ``created=``, else the time of this call (Anthropic and
    Gemini responses carry none). Another provider's ``stop_reason`` is written inside the
    OpenAI enum (`finish_reason`), the original listed as metadata. With ``extensions=True``,
    thinking, citations and server-tool blocks are written the way LiteLLM writes them
    (`minagent.providers._chat_ext`) instead of refused. A
    response decoded by `decode_response` is written back as it came. Another provider's keys
    are never copied: content this API cannot hold raises `UnsupportedError`, or is dropped and
    listed with ``unsupported="drop"``; metadata is always listed in ``dropped``.
    """
    ext = _extensions(fields.pop("extensions", False))
    extra = dict(response.extra.items()) if response.extra is not UNSET else {}
    source = extra.pop(kit.SOURCE, None)
    own = source == NAME
    ext = ext or own  # a response of this adapter: written in the dialect it came in
    usage_other = extra.pop(kit.USAGE_EXTRA, None) or {}
    if type(usage_other) is not dict:
        policy.metadata("$.usage_extra", "a usage that is not an object")
        usage_other = {}
    usage_absent = False
    logprobs = None
    choice_extra: Any = {}
    more: Any = None
    if own:
        usage_absent = extra.pop("usage_absent", False) is True
        more = extra.pop("choices", None)
        logprobs = extra.pop("logprobs", _ABSENT)
        choice_extra = extra.pop("choice_extra", None) or {}
    top = _top(response, extra, source, policy, fields)
    message = _plain_text(response.message) if not own else None
    if message is None:
        message = _encode_message(response.message, "$.message", policy, response=True, ext=ext)
    reason = response.stop_reason
    if own:  # as it came, a vendor's own value included
        finish = STOP_REASONS.get(reason, reason)
    else:
        finish = finish_reason(reason, bool(message and message.get("tool_calls")))
        if FINISH_REASONS.get(finish) != reason:
            what = f"the stop reason {reason!r} (written as finish_reason {finish!r})"
            if ext and message is not None:
                _chat_ext.put_stop_reason(message, reason)
            else:
                policy.metadata("$.stop_reason", what)
    choice = {
        "index": 0,
        "message": message,
        "logprobs": logprobs,
        "finish_reason": finish,
    }
    if logprobs is _ABSENT:  # the response had none (Mistral, Perplexity, ...)
        del choice["logprobs"]
    if type(choice_extra) is dict:
        choice.update(choice_extra)
    body: dict[str, Any] = {
        "id": top.pop("id"),
        "object": top.pop("object"),
        "created": top.pop("created"),
        "model": top.pop("model"),
        "choices": [choice, *(more if type(more) is list else [])],
    }
    if not usage_absent:
        body["usage"] = _usage_out(response.usage, usage_other, policy, own, source)
    body.update(top)
    return kit.encode_json(body)


def _plain_text(msg: Message) -> dict[str, Any] | None:
    """The message `_encode_message` writes in a response for an assistant message of plain
    text blocks only (no keys beyond their text, none on the message), the commonest answer,
    without its general walk; None for any other message."""
    content = msg.content
    if msg.role != "assistant" or msg.extra is not UNSET or type(content) is not list:
        return None
    if content and type(content[-1]) is not wb.TextBlock:  # (tool calls come last: no walk)
        return None
    texts = []
    for block in content:
        if (
            type(block) is not wb.TextBlock
            or block.citations is not UNSET
            or block.cache_control is not UNSET
            or block.extra is not UNSET
        ):
            return None
        texts.append(block.text)
    return {"role": "assistant", "content": "".join(texts) if texts else None}


def _top(
    response: ModelResponse,
    extra: dict[str, Any],
    source: Any,
    policy: Unsupported,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """The top-level keys of the body for ``response`` but ``choices`` and ``usage``: ``id``,
    ``created``, ``model``, ``object`` and the response's other keys this API names
    (``extra``: the response's, its hints and this adapter's own entries taken out)."""
    top: dict[str, Any] = {}
    if source == NAME:
        top = {k: v for k, v in extra.items() if k not in kit.HINTS}
    else:
        for key, value in extra.items():
            if key in kit.HINTS:
                continue
            if key in _NEUTRAL_TOP and source is None:
                top[key] = value  # the neutral shape's own keys (system_fingerprint, ...)
            else:
                kit.foreign_key(policy, f"$.{key}", f"the response key {key!r}", key, value)
    if response.id is not UNSET:
        top["id"] = response.id
    if response.created is not UNSET:
        top["created"] = response.created
    if response.model is not UNSET:
        top["model"] = response.model
    if fields:
        for key, value in fields.items():
            top.setdefault(key, value)
    if "created" not in top:  # required here; Anthropic and Gemini responses have none
        top["created"] = int(time.time())
    if "id" not in top or "model" not in top:
        key = "model" if "id" in top else "id"
        raise EncodeError(f"a Chat Completions response needs {key!r}; pass {key}=...")
    if "object" not in top:
        top["object"] = "chat.completion"
    return top


def stream_header(response: ModelResponse, fields: dict[str, Any]) -> dict[str, Any]:
    """The top-level keys `encode_response` writes for ``response`` (``fields`` as its
    keywords), without its message and usage: what a stream's chunks repeat (`_emit_chat`).
    Raises what `encode_response` raises for them (no ``id`` or ``model``)."""
    extra = response.extra
    source = extra[kit.SOURCE] if extra is not UNSET and kit.SOURCE in extra else None
    if source is not None and source != NAME:
        keys: dict[str, Any] = {}  # another provider's keys are listed, never written (`_top`)
    else:
        keys = dict(extra.items()) if extra is not UNSET else {}
        keys.pop(kit.SOURCE, None)
        if source == NAME:
            for key in _OWN_ENTRIES:
                keys.pop(key, None)
        keys.pop(kit.USAGE_EXTRA, None)
    _extensions(fields.get("extensions", False))
    if "extensions" in fields:
        fields = {k: v for k, v in fields.items() if k != "extensions"}
    return _top(response, keys, source, Unsupported("drop", []), fields)


def _stream_blocks(response: ModelResponse, policy: Unsupported, fields: dict[str, Any]) -> bytes:
    """``{"choices": [{"message": ...}]}``: the message `encode_response` writes for
    ``response`` (``fields`` as its keywords) and nothing else, what a stream sends for complete
    blocks (`_emit_chat.ChatWriter.blocks`) without the top-level keys, the usage and the finish
    reason it does not read. Raises what `encode_response` raises for the content."""
    ext = _extensions(fields.get("extensions", False))
    own = kit.source_of(response.extra) == NAME
    message = _plain_text(response.message) if not own else None
    if message is None:
        message = _encode_message(
            response.message, "$.message", policy, response=True, ext=ext or own
        )
    return kit.encode_json({"choices": [{"message": message}]})


_OWN_ENTRIES = ("usage_absent", "choices", "logprobs", "choice_extra")
"""This adapter's own entries of a response's ``extra`` (not top-level keys)."""

_ABSENT: Any = object()

_NEUTRAL_TOP = frozenset({"service_tier", "system_fingerprint"})
"""Keys a response in the neutral shape (no `SOURCE` hint) may carry that this API names.
(Another provider's ``service_tier`` means its own tiers: not copied.)"""
_USAGE_GROUPS = ("prompt_tokens_details.", "completion_tokens_details.")
_USAGE_OTHER_GROUPS = frozenset({"prompt_tokens_details", "completion_tokens_details"})


_FOREIGN_USAGE = {
    "output_tokens_details.thinking_tokens": "completion_tokens_details.reasoning_tokens",
}
"""Another provider's counters (neutral names) that have a Chat name: Anthropic's thinking
tokens are Chat's reasoning tokens."""


def _usage_plan(name: str, own: bool) -> str | Dropped | None:
    """What `_usage_out` does with the counter ``name``: the Chat name to keep it under, or the
    metadata entry to list it with (a frozen `Dropped`, shared), or ``None``: folded into
    ``prompt_tokens``."""
    back = _USAGE_BACK.get(name) or (name if own else _FOREIGN_USAGE.get(name, name))
    if (
        own
        or back in ("prompt_tokens", "completion_tokens", "total_tokens")
        or back.startswith(_USAGE_GROUPS)
    ):
        return back
    if name == "cache_creation_input_tokens":  # folded into prompt_tokens
        return None
    return Dropped(f"$.usage.{name}", f"the usage counter {name!r}", "metadata")


_TOTALS = ("prompt_tokens", "completion_tokens", "total_tokens")


class _UsagePlan(msgspec.Struct, frozen=True, gc=False):
    """What `_usage_out` does with a usage of given counter and entry names (`_usage_plan_for`:
    computed once per shape, as the names repeat from response to response)."""

    kept: tuple[tuple[str, str], ...]
    """(neutral counter name, Chat name) of the counters written, in order."""
    dropped: tuple[Dropped, ...]
    """What is listed as metadata (the counters', then the other entries'), shared."""
    other: tuple[str, ...]
    """The other entries (non-counters) written."""
    layout: tuple[tuple[str, tuple[tuple[str, str], ...] | None], ...] | None
    """The usage object's keys in order: (key, None) for a counter, (group, ((Chat name, key
    in the group), ...)) for a group, when no name nests deeper than one level or collides
    (else None: `kit.usage_object` decides)."""


def _usage_plan_for(names: tuple[str, ...], others: tuple[str, ...], own: bool) -> _UsagePlan:
    kept: list[tuple[str, str]] = []
    dropped: list[Dropped] = []
    for name in names:
        plan = _usage_plan(name, own)
        if type(plan) is str:
            kept.append((name, plan))
        elif plan is not None:
            dropped.append(plan)
    other = []
    for name in others:
        if own or name.startswith(_USAGE_GROUPS) or name in _USAGE_OTHER_GROUPS:
            other.append(name)
        else:
            dropped.append(
                Dropped(f"$.usage_extra.{name}", f"the usage entry {name!r}", "metadata")
            )
    written = dict.fromkeys(target for _, target in kept)
    if not own:
        written.pop("cache_creation_input_tokens", None)
    written.update(dict.fromkeys(_TOTALS))
    shape = _one_level(dict.fromkeys(written, 0))  # the object's keys and groups
    layout = None
    if shape is not None:
        layout = tuple(
            (key, tuple((f"{key}.{leaf}", leaf) for leaf in value) if type(value) is dict else None)
            for key, value in shape.items()
        )
    return _UsagePlan(tuple(kept), tuple(dropped), tuple(other), layout)


_USAGE_PLANS: dict[tuple[bool, tuple[str, ...], tuple[str, ...]], _UsagePlan] = {}
"""`_usage_plan_for` per (own, counter names, other entry names), computed once (bounded)."""


def _usage_out(
    counters: dict[str, int],
    other: dict[str, Any],
    policy: Unsupported,
    own: bool,
    source: Any = None,
) -> Any:
    if "" in other:
        return other[""]
    key = (own, tuple(counters), tuple(other))
    plan = _USAGE_PLANS.get(key)
    if plan is None:
        plan = _usage_plan_for(key[1], key[2], own)
        if len(_USAGE_PLANS) < 256:
            _USAGE_PLANS[key] = plan
    kept = {target: counters[name] for name, target in plan.kept}
    if plan.dropped:
        policy.dropped.extend(plan.dropped)
    prompt = counters.get("input_tokens", 0) + counters.get("cache_read_input_tokens", 0)
    prompt += counters.get("cache_creation_input_tokens", 0)
    if not own:
        kept.pop("cache_creation_input_tokens", None)
    kept["prompt_tokens"] = prompt
    kept.setdefault("completion_tokens", 0)
    if source == "gemini" and "reasoning_tokens" in counters:  # Gemini counts thoughts apart
        kept["completion_tokens"] += counters["reasoning_tokens"]
    kept.setdefault("total_tokens", prompt + kept["completion_tokens"])
    if plan.other:
        return kit.usage_object(kept, {name: other[name] for name in plan.other})
    if plan.layout is None:
        return kit.usage_object(kept, {})
    out: dict[str, Any] = {}
    for key, members in plan.layout:
        if members is None:
            out[key] = kept[key]
        else:
            out[key] = {leaf: kept[name] for name, leaf in members}
    return out


def _one_level(kept: dict[str, int]) -> dict[str, Any] | None:
    """The usage object of ``kept`` when its names nest one level at most (``prompt_tokens``,
    ``prompt_tokens_details.cached_tokens``: Chat's own) and never collide: what
    `kit.usage_object` builds, without splitting every name. None otherwise (let it decide).
    (`_usage_plan_for` takes its layout from the shape this gives.)"""
    out: dict[str, Any] = {}
    for name, value in kept.items():
        head, dot, leaf = name.partition(".")
        if not dot:
            out[name] = value
            continue
        group = out.get(head)
        if group is None:
            if head in out:
                return None
            group = out[head] = {}
        if type(group) is not dict or "." in leaf:
            return None
        group[leaf] = value
    return out


_REQUEST_FAST = msgspec.json.Decoder(list[_MessageIn])
"""Request messages of the common shapes (built last: its types refer to `_Function`)."""


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
stream_blocks = kit.response_encoder(_stream_blocks)
"""`_stream_blocks` behind the contract of `encode_response`: the message alone (streams)."""
decode_choices = kit.decoder(_decode_choices, "decode_choices")
