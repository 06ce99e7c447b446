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
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET

from ..wire._stack import runs_roomy
from ..wire.blocks import (
    Base64Source,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    ToolUseBlock,
    UnknownBlock,
    UrlSource,
)
from ..wire.errors import EncodeError, ValidationError
from ..wire.extra import Extra
from ..wire.messages import Message, ModelResponse
from ._base import (
    HINTS,
    RAW_ARGUMENTS,
    USAGE_EXTRA,
    Dropped,
    Request,
    Unsupported,
    UnsupportedPolicy,
    as_request,
    bare,
    block_hint,
    block_keys,
    decode_json,
    encode_json,
    flatten_usage,
    unflatten_usage,
)
from ._convert import options_for_openai
from ._helpers import data_url
from .openai_chat_stream import StreamAccumulator, StreamParser, accumulate

__all__ = [
    "FINISH_REASONS",
    "STOP_REASONS",
    "StreamAccumulator",
    "StreamParser",
    "accumulate",
    "decode_choices",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
]

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


@runs_roomy
def decode_request(data: bytes | bytearray | memoryview) -> Request:
    """Decode a Chat Completions request body into a `Request` (see the module docstring).

    Raises `DecodeError` / `ValidationError` with the JSON path.
    """
    top = decode_json(data, "$", _TOP)
    raw = top.pop("messages", None)
    if raw is None:
        raise ValidationError("a request needs 'messages'", path="$")
    options = {key: decode_json(value, f"$.{key}") for key, value in top.items()}
    try:  # the common shapes: one msgspec call into Structs of the provider's shape
        fast = _REQUEST_FAST.decode(raw)
        return Request(messages=[_fast_message(m) for m in fast], options=options)
    except (msgspec.ValidationError, _NotFast):
        pass
    except msgspec.DecodeError:
        decode_json(raw, "$.messages")  # raises the located DecodeError
        raise
    return Request(messages=_messages_from_dicts(raw), options=options)


def _messages_from_dicts(raw: Any) -> list[Message]:
    """The general path: any message shape, through plain objects."""
    return [
        _message(m, f"$.messages[{i}]")
        for i, m in enumerate(decode_json(raw, "$.messages", _MESSAGES))
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
        blocks = content if calls is UNSET else [TextBlock(content)]
    elif content is None or content is UNSET:
        blocks = "" if content is UNSET and calls is UNSET else []
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
        extra=Extra._own(extra) if extra else UNSET,
    )


def _fast_part(part: _TextPart | _ImagePart) -> ContentBlock:
    if type(part) is _TextPart:
        return TextBlock(part.text)
    image = part.image_url  # type: ignore[union-attr]
    rest = {} if image.detail is UNSET else {"detail": image.detail}
    return ImageBlock(source=_source(image.url), extra=Extra._own(rest) if rest else UNSET)


def _message(obj: dict[str, Any], path: str) -> Message:
    obj = dict(obj)
    role = obj.pop("role", None)
    extra: dict[str, Any] = {}
    if role == "developer":
        role = "system"
        extra["developer"] = True
    if role not in MESSAGE_KEYS:
        raise ValidationError(f"unsupported role {role!r}", path=path + ".role")
    tool_call_id: Any = UNSET
    if role == "tool":
        tool_call_id = obj.pop("tool_call_id", None)
        if type(tool_call_id) is not str:
            raise ValidationError("a tool message needs a string 'tool_call_id'", path=path)
    absent = "content" not in obj
    content = obj.pop("content", None)
    tool_calls = obj.pop("tool_calls", None) if role == "assistant" else None
    blocks: Any
    if isinstance(content, str):
        blocks = content if tool_calls is None else [TextBlock(content)]
    elif content is None:
        blocks = "" if absent and tool_calls is None else []
    elif type(content) is list:
        blocks = [_part(p, f"{path}.content[{j}]") for j, p in enumerate(content)]
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
    extra.update(obj)
    return Message(
        role=role,
        content=blocks,
        tool_call_id=tool_call_id,
        extra=Extra._own(extra) if extra else UNSET,
    )


def _part(part: Any, path: str) -> ContentBlock:
    if type(part) is not dict or type(part.get("type")) is not str:
        raise ValidationError("a content part must be an object with a string 'type'", path=path)
    kind = part["type"]
    if kind == "text" and type(part.get("text")) is str and len(part) == 2:
        return TextBlock(part["text"])
    if kind == "image_url":
        image = part.get("image_url")
        if type(image) is dict and type(image.get("url")) is str and len(part) == 2:
            rest = {k: v for k, v in image.items() if k != "url"}
            return ImageBlock(
                source=_source(image["url"]), extra=Extra._own(rest) if rest else UNSET
            )
    if kind == "file" and len(part) == 2:
        file = part.get("file")
        if type(file) is dict and type(file.get("file_data")) is str:
            source = _source(file["file_data"])
            rest = {k: v for k, v in file.items() if k != "file_data"}
            if type(source) is Base64Source:
                return DocumentBlock(source=source, extra=Extra._own(rest) if rest else UNSET)
    return UnknownBlock(Extra(part))


def _source(url: str) -> Base64Source | UrlSource:
    """A data URL with canonical base64 as bytes; any other URL as it is."""
    if url.startswith("data:"):
        head, sep, b64 = url.partition(",")
        if sep and head.endswith(";base64"):
            media_type = head[5:-7]
            text = b64.encode("ascii", "replace")
            try:  # msgspec's base64 is several times faster than binascii's here
                data = _BYTES.decode(b'"' + text + b'"')
            except msgspec.DecodeError:
                data = None
            if (
                data is not None
                and media_type
                and ";" not in media_type
                and _ENC.encode(data)[1:-1] == text
            ):
                return Base64Source(media_type=media_type, data=data)
    return UrlSource(url=url)


_BYTES = msgspec.json.Decoder(bytes)


def _tool_call(call: Any, path: str) -> ContentBlock:
    if type(call) is not dict:
        raise ValidationError("a tool call must be an object", path=path)
    function = call.get("function")
    if (
        call.get("type") != "function"
        or type(call.get("id")) is not str
        or type(function) is not dict
        or type(function.get("name")) is not str
        or type(function.get("arguments")) is not str
        or len(call) != 3
        or len(function) != 2
    ):
        return UnknownBlock(Extra(call))  # a custom tool call, or keys we do not name: whole
    return _tool_use(call["id"], function["name"], function["arguments"])


_ARGS = msgspec.json.Decoder(dict[str, Any])
_ENC = msgspec.json.Encoder()


def _tool_use(ident: str, name: str, arguments: str) -> ToolUseBlock:
    try:
        value = _ARGS.decode(arguments)
    except msgspec.DecodeError:  # truncated or not an object: keep the text only
        raw = Extra._own({RAW_ARGUMENTS: arguments})
        return ToolUseBlock(id=ident, name=name, input={}, extra=raw)
    if _ENC.encode(value) == arguments.encode():
        return ToolUseBlock(id=ident, name=name, input=value)
    raw = Extra._own({RAW_ARGUMENTS: arguments})
    return ToolUseBlock(id=ident, name=name, input=value, extra=raw)


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


@runs_roomy
def decode_response(data: bytes | bytearray | memoryview) -> ModelResponse:
    """Decode a Chat Completions response body into a `ModelResponse` (module docstring).

    Raises `DecodeError` / `ValidationError` with the JSON path.
    """
    try:
        fast = _FAST.decode(data)
    except msgspec.ValidationError:
        fast = None
    except msgspec.DecodeError:
        decode_json(data, "$")  # raises the located DecodeError
        raise
    if fast is not None and len(fast.choices) == 1 and fast.object == "chat.completion":
        try:
            return _fast_response(fast)
        except _NotFast:
            pass
    return _response(decode_json(data, "$", _ANY), "$")


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
        content = [] if msg.content is None else [TextBlock(msg.content)]
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
    top: dict[str, Any] = {
        "id": fast.id,
        "object": fast.object,
        "created": fast.created,
        "model": fast.model,
        "logprobs": choice.logprobs,
    }
    if fast.service_tier is not UNSET:
        top["service_tier"] = fast.service_tier
    if fast.system_fingerprint is not UNSET:
        top["system_fingerprint"] = fast.system_fingerprint
    counters: dict[str, int] = {}
    if fast.usage is not UNSET:
        counters, other = _usage_in(fast.usage)
        if other:
            top[USAGE_EXTRA] = other
    else:
        top["usage_absent"] = True
    return ModelResponse(
        message=Message(
            role="assistant", content=content, extra=Extra._own(extra) if extra else UNSET
        ),
        stop_reason=FINISH_REASONS.get(choice.finish_reason, choice.finish_reason),
        usage=counters,
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
                    deeper, rest = flatten_usage({name: leaf}, names)
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
    message = _message(first.pop("message"), f"{path}.choices[0].message")
    if message.role != "assistant":
        raise ValidationError("a choice's message must be an assistant message", path=path)
    finish = first.pop("finish_reason", None)
    if type(finish) is not str:
        raise ValidationError(
            "'finish_reason' must be a string", path=f"{path}.choices[0].finish_reason"
        )
    top = obj
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
            top[USAGE_EXTRA] = other
    else:
        top[USAGE_EXTRA] = {"": usage}
    return ModelResponse(
        message=message,
        stop_reason=FINISH_REASONS.get(finish, finish),
        usage=counters,
        extra=Extra._own(top) if top else UNSET,
    )


def decode_choices(data: bytes | bytearray | memoryview) -> list[ModelResponse]:
    """Every choice of a response (``n > 1``) as its own `ModelResponse`, in ``index`` order.

    Each carries the response's top-level keys in ``extra`` (usage only on the first).
    """
    obj = decode_json(data, "$", _ANY)
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


@runs_roomy
def encode_request(
    request: Request | list[Message],
    /,
    *,
    unsupported: UnsupportedPolicy = "error",
    dropped: list[Dropped] | None = None,
    **options: Any,
) -> bytes:
    """Write a Chat Completions request body: ``encode_request(req)`` or
    ``encode_request(messages, model=..., tools=..., **options)``.

    Keyword options add to and override ``request.options``; Anthropic-shaped options (``tools``
    with ``input_schema``, ``tool_choice`` objects, ``stop_sequences``) are converted. What this
    API cannot hold (thinking, ``cache_control``, an unknown block, ...) raises `UnsupportedError`
    naming it and its path, or with ``unsupported="drop"`` is left out and recorded in
    ``dropped``.
    """
    req = as_request(request, options)
    policy = Unsupported(unsupported, dropped)
    body = options_for_openai(req.options, policy)
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
        out = _encode_message(msg, f"$.messages[{i}]", policy)
        if out is not None:
            messages.append(out)
    body["messages"] = messages
    return encode_json(body)


def _encode_message(
    msg: Message, path: str, policy: Unsupported, response: bool = False
) -> dict[str, Any] | None:
    role = msg.role
    extra = msg.extra if msg.extra is not UNSET else {}
    out: dict[str, Any] = {"role": "developer" if extra.get("developer") is True else role}
    absent = extra.get("content_absent") is True
    if role == "tool":
        if msg.tool_call_id is UNSET:
            policy.report(path, "a tool message without tool_call_id")
            return None
        if msg.is_error is True:
            policy.report(path + ".is_error", "is_error: true (tool messages have no error flag)")
        out["content"] = _parts(msg.content, path, policy, "tool")
        out["tool_call_id"] = msg.tool_call_id
    elif role == "assistant":
        _assistant(msg, path, policy, out, absent, response)
    else:
        content = _parts(msg.content, path, policy, role)
        if not absent:
            out["content"] = content
    allowed = MESSAGE_KEYS[role]
    for key, value in extra.items():
        if key in allowed:
            out[key] = value
        elif key not in HINTS and key != "tool_calls":
            policy.report_key(f"{path}.{key}", f"the message key {key!r}", value)
    return out


def _assistant(
    msg: Message,
    path: str,
    policy: Unsupported,
    out: dict[str, Any],
    absent: bool,
    response: bool = False,
) -> None:
    """Fill ``out`` for an assistant message: ``content`` (a string, parts or null) and
    ``tool_calls``. In a response (``response=True``) content is always a string or null."""
    content = msg.content
    if isinstance(content, str):
        if not absent:
            out["content"] = content
        return
    calls: list[Any] = []
    parts: list[Any] = []
    for j, block in enumerate(content):
        where = f"{path}.content[{j}]"
        cls = type(block)
        if cls is ToolUseBlock:
            calls.append(_encode_call(block, where, policy))  # type: ignore[arg-type]
        elif cls is UnknownBlock and block.data.get("type") == "custom" and "custom" in block.data:  # type: ignore[union-attr]
            calls.append(block.data.to_dict())  # type: ignore[union-attr]
        else:
            part = _encode_part(block, where, policy, "assistant")
            if part is not None:
                parts.append(part)
    has_calls = bool(calls) or (msg.extra is not UNSET and msg.extra.get("tool_calls") == [])
    value: Any = parts or None
    if response:
        texts = []
        for part in parts:
            if part["type"] == "text":
                texts.append(part["text"])
            else:
                policy.report(path, f"a {part['type']!r} part in a response message")
        value = "".join(texts) if texts else None
    elif has_calls and len(parts) == 1 and parts[0]["type"] == "text":
        value = parts[0]["text"]
    if not absent:
        out["content"] = value
    if has_calls:
        out["tool_calls"] = calls


def _encode_call(block: ToolUseBlock, path: str, policy: Unsupported) -> dict[str, Any]:
    raw = block.extra.get(RAW_ARGUMENTS) if block.extra is not UNSET else None
    arguments: str | None = None
    if type(raw) is str:
        try:
            parsed = _ARGS.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            parsed = {}
        if parsed == block.input:
            arguments = raw
    if arguments is None:
        try:
            arguments = _ENC.encode(block.input).decode()
        except (TypeError, ValueError, OverflowError, RecursionError) as err:
            raise EncodeError(f"cannot write tool input: {err}", path=path + ".input") from None
    for key, value in block_keys(block).items():
        if key != RAW_ARGUMENTS and not block_hint(key, block):
            policy.report_key(f"{path}.{key}", f"the key {key!r} on a tool_use block", value)
    return {
        "id": block.id,
        "type": "function",
        "function": {"name": block.name, "arguments": arguments},
    }


def _parts(content: str | list[ContentBlock], path: str, policy: Unsupported, role: str) -> Any:
    """Content as a string or a list of content parts."""
    if isinstance(content, str):
        return content
    out: list[Any] = []
    for j, block in enumerate(content):
        if type(block) is TextBlock and bare(block):
            out.append(block)  # {"type": "text", "text": ...} as msgspec writes the struct
            continue
        part = _encode_part(block, f"{path}.content[{j}]", policy, role)
        if part is not None:
            out.append(part)
    return out


def _encode_part(block: ContentBlock, path: str, policy: Unsupported, role: str) -> Any:
    cls = type(block)
    if cls is UnknownBlock:
        kind = block.data.get("type")  # type: ignore[union-attr]
        if kind in OTHER_PARTS:
            return _checked_data(block.data.to_dict(), path, policy)  # type: ignore[union-attr]
        policy.report(path, f"a {kind!r} block (not a Chat Completions content part)")
        return None
    if cls is TextBlock:
        _keys_ok(block, _TEXT_KEYS, path, policy)
        return {"type": "text", "text": block.text}  # type: ignore[union-attr]
    if cls is ImageBlock and role == "user":
        source = block.source  # type: ignore[union-attr]
        url = _url(source, path + ".source", policy)
        if url is None:
            return None
        image: dict[str, Any] = {"url": url}
        _keys_ok(block, _IMAGE_KEYS, path, policy, image)
        return {"type": "image_url", "image_url": image}
    if cls is DocumentBlock and role == "user":
        source = block.source  # type: ignore[union-attr]
        if type(source) is Base64Source:
            file: dict[str, Any] = {"file_data": data_url(source)}
            _keys_ok(block, _DOCUMENT_KEYS, path, policy, file)
            return {"type": "file", "file": file}
    policy.report(path, f"{_a(_kind(block))} block in {_a(str(role))} message")
    return None


def _a(word: str) -> str:
    """``word`` with its indefinite article: "an assistant", "a user"."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def _kind(block: Any) -> str:
    return str(block.type)


def _keys_ok(
    block: Any,
    allowed: frozenset[str],
    path: str,
    policy: Unsupported,
    into: dict[str, Any] | None = None,
) -> bool:
    ok = True
    for key, value in block_keys(block).items():
        if key in allowed and into is not None:
            into[key] = value
        elif not block_hint(key, block):
            ok = False
            policy.report_key(f"{path}.{key}", f"the key {key!r} on a {block.type} block", value)
    return ok


def _url(source: Any, path: str, policy: Unsupported) -> Any:
    """The image URL (a ``str``, or `msgspec.Raw` JSON text for a data URL), or None."""
    cls = type(source)
    if cls is UrlSource:
        for key, value in block_keys(source).items():
            policy.report_key(f"{path}.{key}", f"the key {key!r} on a url source", value)
        return str(source.url)
    if cls is Base64Source:
        return data_url(source)
    policy.report(path, f"a {getattr(source, 'type', '?')!r} source")
    return None


def _checked_data(data: dict[str, Any], path: str, policy: Unsupported) -> dict[str, Any]:
    from ..wire import _values

    found = _values.find(data, _values.json_problem, path)
    if found is not None:
        raise EncodeError(found[1], path=found[0])
    return data


@runs_roomy
def encode_response(
    response: ModelResponse,
    /,
    *,
    unsupported: UnsupportedPolicy = "error",
    dropped: list[Dropped] | None = None,
    **fields: Any,
) -> bytes:
    """Write a Chat Completions response body for ``response`` (what a gateway returns).

    ``fields`` supply top-level keys the response lacks (``id=``, ``model=``, ``created=``). A
    response decoded by `decode_response` is written back as it came. What this API cannot hold
    raises `UnsupportedError`, or is dropped and recorded with ``unsupported="drop"``.
    """
    policy = Unsupported(unsupported, dropped)
    extra = dict(response.extra.items()) if response.extra is not UNSET else {}
    usage_other = extra.pop(USAGE_EXTRA, None) or {}
    usage_absent = extra.pop("usage_absent", False) is True
    more = extra.pop("choices", None)
    logprobs = extra.pop("logprobs", None)
    choice_extra = extra.pop("choice_extra", None) or {}
    top: dict[str, Any] = {}
    for key, value in extra.items():
        if key in RESPONSE_KEYS:
            top[key] = value
        else:
            policy.report_key(f"$.{key}", f"the response key {key!r}", value)
    for key, value in fields.items():
        top.setdefault(key, value)
    for key in ("id", "created", "model"):
        if key not in top:
            raise EncodeError(f"a Chat Completions response needs {key!r}; pass {key}=...")
    top.setdefault("object", "chat.completion")
    message = _encode_message(response.message, "$.message", policy, response=True)
    choice = {
        "index": 0,
        "message": message,
        "logprobs": logprobs,
        "finish_reason": STOP_REASONS.get(response.stop_reason, response.stop_reason),
    }
    choice.update(choice_extra)
    body: dict[str, Any] = {
        "id": top.pop("id"),
        "object": top.pop("object"),
        "created": top.pop("created"),
        "model": top.pop("model"),
        "choices": [choice, *(more or [])],
    }
    if not usage_absent:
        body["usage"] = _usage_out(response.usage, usage_other, policy)
    body.update(top)
    return encode_json(body)


_USAGE_GROUPS = ("prompt_tokens_details.", "completion_tokens_details.")
_USAGE_OTHER_GROUPS = frozenset({"prompt_tokens_details", "completion_tokens_details"})


def _usage_out(counters: dict[str, int], other: dict[str, Any], policy: Unsupported) -> Any:
    if "" in other:
        return other[""]
    kept: dict[str, int] = {}
    for name, value in counters.items():
        back = _USAGE_BACK.get(name, name)
        if back in ("prompt_tokens", "completion_tokens", "total_tokens") or back.startswith(
            _USAGE_GROUPS
        ):
            kept[back] = value
        elif name == "cache_creation_input_tokens":
            kept["prompt_tokens"] = kept.get("prompt_tokens", 0)  # folded in below
        else:
            policy.report(f"$.usage.{name}", f"the usage counter {name!r}")
    prompt = counters.get("input_tokens", 0) + counters.get("cache_read_input_tokens", 0)
    prompt += counters.get("cache_creation_input_tokens", 0)
    kept["prompt_tokens"] = prompt
    kept.setdefault("completion_tokens", 0)
    kept.setdefault("total_tokens", prompt + kept["completion_tokens"])
    rest = {}
    for name, value in other.items():
        if name.startswith(_USAGE_GROUPS) or name in _USAGE_OTHER_GROUPS:
            rest[name] = value
        else:
            policy.report_key(f"$.usage_extra.{name}", f"the usage entry {name!r}", value)
    return unflatten_usage(kept, rest)


_REQUEST_FAST = msgspec.json.Decoder(list[_MessageIn])
"""Request messages of the common shapes (built last: its types refer to `_Function`)."""
