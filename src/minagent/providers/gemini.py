"""Google Gemini ``generateContent`` (REST, camelCase JSON) <-> the neutral protocol.

Mapping (the full table is in ``docs/providers-responses-gemini.md``):

- ``systemInstruction`` is the first message, ``role: "system"`` (its text parts; any other key of
  it, such as ``role``, stays in ``options["systemInstruction"]``).
- ``contents`` map in order; ``role: "model"`` is the assistant, ``role: "user"`` the user.
  A content that holds only one plain ``text`` part is a string message.
- Parts: ``text`` -> text block; ``text`` with ``thought: true`` -> thinking block;
  ``inlineData`` -> image block (``image/*``) or document block (``application/pdf``,
  ``text/*``) with the raw bytes; ``fileData`` -> the same with a URL source (``mimeType`` kept in
  the source's ``extra`` unless it is the one the URL's extension gives);
  ``functionCall`` -> ``tool_use``; ``functionResponse`` -> a ``role: "tool"`` message; any
  other part -> an `UnknownBlock` of type ``gemini_part`` holding the part's keys.
- ``thoughtSignature`` (and any other part-level key) stays in the ``extra`` of the very block
  its part became, and is written back on that part. Nothing moves it: with parallel calls only
  the first call carries one, and only that one gets it back.
- A ``functionCall`` without ``id`` is given ``minagent-gemini-<content>-<part>`` (documented;
  such ids are never written to Gemini), and a ``functionResponse`` without ``id`` answers the
  next unanswered call of the same name. The encoder finds each response's function ``name``
  from the call it answers.
- ``functionResponse.response``: ``{"output": text}`` is the tool message's text,
  ``{"error": text}`` the same with ``is_error: true``; any other object is its compact JSON text
  with ``extra["gemini_response"] = "object"``, parsed back on the way out.

Responses: the first candidate is the message; ``finishReason`` gives the stop reason
(`FINISH_REASONS`); ``usageMetadata`` counters get neutral names (`USAGE_NAMES`); every other key
(other candidates included) is kept in ``ModelResponse.extra``.
"""

from __future__ import annotations

import mimetypes
from typing import Any

import msgspec
from msgspec import UNSET

from ..wire import blocks as wb
from ..wire.errors import ValidationError
from ..wire.extra import Extra
from ..wire.limits import Limits
from ..wire.messages import Message, ModelResponse
from . import _toolkit as kit
from ._base import Reasoning, Request, ResponseFormat, Tool, ToolChoice, Unsupported
from ._toolkit import SettingsReader

__all__ = [
    "FINISH_ENUM",
    "FINISH_REASONS",
    "ID_PREFIX",
    "NAME",
    "NAME_LIMIT",
    "PART_TYPE",
    "USAGE_NAMES",
    "decode_request",
    "decode_response",
    "encode_request",
    "encode_response",
]

NAME = "gemini"
"""The registry name (`providers.get`) and `SOURCE` hint of this adapter."""

NAME_LIMIT = 64
"""The longest function name Gemini takes (a letter or ``_`` first, then letters, digits and
``_ . : -``); another provider's names are fitted to it (`providers.Renames`)."""

ID_PREFIX = "minagent-gemini-"
"""Prefix of the ids given to ``functionCall`` parts that came without one; never written back."""

PART_TYPE = "gemini_part"
"""``type`` of the `UnknownBlock` that holds a part this protocol does not map, whole."""

FINISH_REASONS = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "RECITATION": "refusal",
    "BLOCKLIST": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "SPII": "refusal",
    "IMAGE_SAFETY": "refusal",
}
"""Gemini ``finishReason`` -> neutral stop reason (``STOP`` with a function call: ``tool_use``).
Other values (``MALFORMED_FUNCTION_CALL``, ``OTHER``, ...) are kept as they are."""

_FINISH_BACK = {
    "end_turn": "STOP",
    "tool_use": "STOP",
    "stop_sequence": "STOP",
    "pause_turn": "STOP",
    "max_tokens": "MAX_TOKENS",
    "model_context_window_exceeded": "MAX_TOKENS",
    "incomplete": "MAX_TOKENS",
    "incomplete:max_output_tokens": "MAX_TOKENS",
    "incomplete:content_filter": "SAFETY",
    "refusal": "SAFETY",
}
"""Neutral stop reason -> ``finishReason`` (another provider's other reasons: ``OTHER``)."""
FINISH_ENUM = frozenset(
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
"""The documented ``finishReason`` values (https://ai.google.dev/api/generate-content#FinishReason)."""


def _finish_back(reason: str, policy: Unsupported) -> str:
    """The ``finishReason`` for a neutral stop reason (`_FINISH_BACK`, a Gemini value as it
    is, anything else ``OTHER``, listed)."""
    mapped = _FINISH_BACK.get(reason)
    if mapped is not None:
        return mapped
    return kit.enum_stop_reason(reason, FINISH_ENUM, {}, "OTHER", policy)


USAGE_NAMES = {
    "promptTokenCount": "input_tokens",
    "candidatesTokenCount": "output_tokens",
    "cachedContentTokenCount": "cache_read_input_tokens",
    "thoughtsTokenCount": "reasoning_tokens",
    "totalTokenCount": "total_tokens",
}
"""``usageMetadata`` counters -> neutral names; the rest keep their (dotted) Gemini names.
``input_tokens`` is ``promptTokenCount`` minus ``cachedContentTokenCount`` (uncached input, as on
Anthropic); the encoder adds it back."""

_USAGE_BACK = {v: k for k, v in USAGE_NAMES.items()}
_RESPONSE_MARK = "gemini_response"
_RESPONSE_KEYS = frozenset({"willContinue", "scheduling", "parts"})
"""``functionResponse`` keys besides ``id``, ``name`` and ``response`` kept flat in a tool
message's ``extra``; any other key of it is kept under `_FR_KEYS`."""
_FR_KEYS = "functionResponse"
_DATA_KEYS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")


def _is_document(mime: str) -> bool:
    return mime == "application/pdf" or mime.startswith("text/")


# --- decoding -----------------------------------------------------------------------------------


class _Calls:
    """Ids of the function calls met so far, for responses that name no id."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending: list[tuple[str, str]] = []  # (name, id), unanswered, in order

    def answer(self, name: str) -> str | None:
        for k, (pending_name, ident) in enumerate(self.pending):
            if pending_name == name:
                del self.pending[k]
                return ident
        return None


def _decode_request(data: Any, limits: Limits) -> Request:
    """Decode a Gemini ``generateContent`` request body into a `Request`."""
    body = kit.want_dict(kit.decode_json(data, "$"), "$")
    options = dict(body)
    messages: list[Message] = []
    system = options.pop("systemInstruction", kit.MISSING)
    if system is not kit.MISSING:
        system = kit.want_dict(system, "$.systemInstruction")
        rest = {k: v for k, v in system.items() if k != "parts"}
        parts = kit.want_list(system.get("parts", []), "$.systemInstruction.parts")
        blocks = [_block(p, f"$.systemInstruction.parts[{j}]", None) for j, p in enumerate(parts)]
        content = _simplify(blocks)
        messages.append(
            Message(role="system", content=content, extra=kit.tagged({}, content, NAME))
        )
        if rest:
            options["systemInstruction"] = rest
    contents = options.pop("contents", kit.MISSING)
    if contents is not kit.MISSING:
        calls = _Calls()
        for i, raw in enumerate(kit.want_list(contents, "$.contents")):
            start = len(messages)
            _content(kit.want_dict(raw, f"$.contents[{i}]"), i, f"$.contents[{i}]", calls, messages)
            if (
                0 < start < len(messages)
                and messages[start - 1].role == messages[start].role == "tool"
            ):
                messages[start] = _new_turn(messages[start])
    return kit.decoded_request(messages, options, NAME, read_settings)


_MODES = {"AUTO": "auto", "ANY": "any", "NONE": "none"}
_MODES_BACK = {v: k for k, v in _MODES.items()}


def _declaration_ok(decl: Any) -> bool:
    return (
        kit.has_keys(decl, {"name"}, {"description", "parameters"})
        and kit.is_str(decl["name"])
        and kit.is_str(decl.get("description", ""))
        and type(decl.get("parameters", {})) is dict
    )


def _tools_ok(tools: Any) -> bool:
    return (
        type(tools) is list
        and len(tools) == 1
        and kit.has_keys(tools[0], {"functionDeclarations"})
        and type(tools[0]["functionDeclarations"]) is list
        and all(map(_declaration_ok, tools[0]["functionDeclarations"]))
    )


def _tools_in(tools: list[Any]) -> list[Tool]:
    return [
        Tool(name=d["name"], description=d.get("description"), parameters=d.get("parameters"))
        for d in tools[0]["functionDeclarations"]
    ]


def _config_ok(config: Any) -> bool:
    if not kit.has_keys(config, {"functionCallingConfig"}):
        return False
    fcc = config["functionCallingConfig"]
    if kit.has_keys(fcc, {"mode"}):
        return fcc["mode"] in _MODES
    return (
        kit.has_keys(fcc, {"mode", "allowedFunctionNames"})
        and fcc["mode"] == "ANY"
        and kit.is_strings(fcc["allowedFunctionNames"])
        and len(fcc["allowedFunctionNames"]) == 1
    )


def _config_in(config: dict[str, Any]) -> ToolChoice:
    fcc = config["functionCallingConfig"]
    if "allowedFunctionNames" in fcc:
        return ToolChoice(mode="tool", name=fcc["allowedFunctionNames"][0])
    return ToolChoice(mode=_MODES[fcc["mode"]])


_GENERATION = (
    ("maxOutputTokens", "max_tokens", kit.is_int),
    ("temperature", "temperature", kit.is_number),
    ("topP", "top_p", kit.is_number),
    ("stopSequences", "stop", kit.is_strings),
)


def _take_format(inner: SettingsReader) -> None:
    """``responseMimeType: "application/json"`` (with a ``responseJsonSchema``, or neither
    schema key) as a `ResponseFormat` (``json_schema`` / ``json``)."""
    config = inner.options
    if config.get("responseMimeType") != "application/json" or "responseSchema" in config:
        return
    schema = config.get("responseJsonSchema", kit.MISSING)
    if schema is kit.MISSING:
        form = ResponseFormat(type="json")
    elif type(schema) is dict:
        form = ResponseFormat(type="json_schema", schema=schema)
        inner.spelling["responseJsonSchema"] = config.pop("responseJsonSchema")
    else:
        return
    inner.fields["response_format"] = form
    inner.spelling["responseMimeType"] = config.pop("responseMimeType")


def read_settings(options: dict[str, Any]) -> SettingsReader:
    """Move the options Gemini spells exactly like the neutral settings out of ``options``
    (some of them inside ``generationConfig``, whose other keys stay options)."""
    reader = SettingsReader(options)
    take = reader.take
    kit.take_same(reader, ("model",))
    config = options.get("generationConfig")
    if type(config) is dict:
        inner = SettingsReader(dict(config))
        for key, field, ok in _GENERATION:
            inner.take(key, field, ok)
        inner.take(
            "thinkingConfig",
            "reasoning",
            lambda v: kit.has_keys(v, {"thinkingBudget"}) and kit.is_int(v["thinkingBudget"]),
            lambda v: Reasoning(budget_tokens=v["thinkingBudget"]),
        )
        _take_format(inner)
        if inner.spelling:
            reader.fields.update(inner.fields)
            reader.spelling["generationConfig"] = inner.spelling
            if inner.options:
                options["generationConfig"] = inner.options
            else:
                del options["generationConfig"]
    take("tools", "tools", _tools_ok, _tools_in)
    take("toolConfig", "tool_choice", _config_ok, _config_in)
    take("labels", "metadata", lambda v: type(v) is dict)
    return reader


def write_settings(fields: dict[str, Any], policy: Unsupported) -> dict[str, Any]:
    """The neutral settings spelled for Gemini; what it has no spelling for is reported.

    Only keys of the ``generateContent`` body are written (the API refuses any other): the
    model goes in the URL (``models/{model}:generateContent``), so ``model`` is listed, not
    written; ``metadata`` (``labels`` is Vertex AI's, the Gemini API refuses it), ``user`` and
    ``stream`` are listed too.
    """
    out: dict[str, Any] = {}
    config: dict[str, Any] = {}
    for name, value in fields.items():
        if name == "model":
            policy.metadata("$.model", "the model (Gemini takes it in the URL)")
        elif name == "max_tokens":
            config["maxOutputTokens"] = value
        elif name == "temperature":
            config["temperature"] = value
        elif name == "top_p":
            config["topP"] = value
        elif name == "stop":
            config["stopSequences"] = list(value)
        elif name == "reasoning":
            tokens = kit.budget(value, policy)  # an effort alone: the budget it names
            if tokens is not None:
                config["thinkingConfig"] = {"thinkingBudget": tokens}
        elif name == "response_format":
            _format_out(value, config, policy)
        elif name == "tools":
            out["tools"] = [{"functionDeclarations": [_declaration(t, policy) for t in value]}]
        elif name == "tool_choice":
            fcc: dict[str, Any] = {}
            if value.mode == "tool":
                named = policy.renaming().name(value.name or "", NAME_LIMIT, NAME)
                fcc = {"mode": "ANY", "allowedFunctionNames": [named]}
            elif value.mode is not None:
                fcc = {"mode": _MODES_BACK[value.mode]}
            if value.parallel is not None:
                policy.metadata("$.tool_choice.parallel", "parallel tool calls (no switch here)")
            if fcc:
                out["toolConfig"] = {"functionCallingConfig": fcc}
        elif name == "metadata":
            policy.metadata("$.metadata", "metadata (labels are Vertex AI's, not the Gemini API's)")
        elif name == "user":
            policy.metadata("$.user", "the end-user id (no Gemini field)")
        elif name == "stream":
            policy.metadata("$.stream", "stream (Gemini streams by endpoint, not by a key)")
        else:
            policy.report(f"$.{name}", f"the setting {name!r} (no Gemini spelling)")
    if config:
        out["generationConfig"] = config
    return out


def _format_out(form: ResponseFormat, config: dict[str, Any], policy: Unsupported) -> None:
    """A `ResponseFormat` as ``responseMimeType`` (+ ``responseJsonSchema``)."""
    if form.type == "text":
        return  # Gemini's default
    config["responseMimeType"] = "application/json"
    if form.type == "json_schema" and form.schema is not None:
        config["responseJsonSchema"] = form.schema
    if form.name is not None:
        policy.metadata("$.response_format.name", "the schema's name (no Gemini field)")
    if form.strict is not None:
        policy.metadata("$.response_format.strict", "strict (no Gemini field)")


def _declaration(tool: Tool, policy: Unsupported) -> dict[str, Any]:
    """A `Tool` as a function declaration, its name fitted to Gemini's (`NAME_LIMIT`)."""
    if tool.strict is not None:
        policy.metadata("$.tools.strict", f"strict on the tool {tool.name!r} (no Gemini field)")
    out = kit.tool_fields(tool, "parameters", strict=False)
    out["name"] = policy.renaming().name(tool.name, NAME_LIMIT, NAME)
    return out


def _new_turn(msg: Message) -> Message:
    extra = kit.extra_dict(msg)
    extra[kit.NEW_TURN] = True
    return msgspec.structs.replace(msg, extra=Extra._own(extra))


def _simplify(blocks: list[wb.ContentBlock]) -> str | list[wb.ContentBlock]:
    if len(blocks) == 1 and type(blocks[0]) is wb.TextBlock and blocks[0].extra is UNSET:
        return blocks[0].text
    return blocks


def _content(content: dict[str, Any], i: int, path: str, calls: _Calls, out: list[Message]) -> None:
    role = content.get("role", "user")
    if type(role) is not str or role not in ("user", "model"):
        raise ValidationError(f"unknown role {role!r}", path=path + ".role")
    rest = {k: v for k, v in content.items() if k not in ("role", "parts")}
    parts = kit.want_list(content.get("parts", []), path + ".parts")
    if role == "model":
        blocks = [_block(p, f"{path}.parts[{j}]", (i, j, calls)) for j, p in enumerate(parts)]
        simple = _simplify(blocks)
        out.append(Message(role="assistant", content=simple, extra=kit.tagged(rest, simple, NAME)))
        return
    run: list[wb.ContentBlock] = []
    for j, raw in enumerate(parts):
        part = kit.want_dict(raw, f"{path}.parts[{j}]")
        if "functionResponse" in part:
            if run:
                simple = _simplify(run)
                out.append(Message(role="user", content=simple, extra=kit.tagged({}, simple, NAME)))
                run = []
            out.append(_tool_message(part, f"{path}.parts[{j}]", calls))
        else:
            run.append(_block(part, f"{path}.parts[{j}]", None))
    if run or not parts:
        simple = _simplify(run)
        out.append(Message(role="user", content=simple, extra=kit.tagged(rest, simple, NAME)))


def _tool_message(part: dict[str, Any], path: str, calls: _Calls) -> Message:
    fr = kit.want_dict(part["functionResponse"], path + ".functionResponse")
    name = kit.want_str(fr.get("name"), path + ".functionResponse.name")
    response = kit.want_dict(fr.get("response", {}), path + ".functionResponse.response")
    extra: dict[str, Any] = {k: v for k, v in part.items() if k != "functionResponse"}
    for key, value in fr.items():
        if key in _RESPONSE_KEYS:
            extra[key] = value
        elif key not in ("name", "response", "id"):
            extra.setdefault(_FR_KEYS, {})[key] = value
    ident = fr.get("id")
    if type(ident) is str:
        if calls.answer(name) is None:  # no call before it to take the name from: keep it
            extra["name"] = name
    else:
        ident = calls.answer(name)
        if ident is None:
            raise ValidationError(
                f"a functionResponse for {name!r} answers no earlier functionCall and has no id",
                path=path + ".functionResponse",
            )
    is_error: Any = UNSET
    keys = list(response)
    if keys == ["output"] and type(response["output"]) is str:
        content = response["output"]
    elif keys == ["error"] and type(response["error"]) is str:
        content, is_error = response["error"], True
    else:
        content = kit.json_text(response)
        extra[_RESPONSE_MARK] = "object"
    return Message(
        role="tool",
        content=content,
        tool_call_id=ident,
        is_error=is_error,
        extra=kit.tagged(extra, content, NAME),
    )


def _block(raw: Any, path: str, call: tuple[int, int, _Calls] | None) -> wb.ContentBlock:
    part = kit.want_dict(raw, path)
    data_keys = [k for k in _DATA_KEYS if k in part]
    if len(data_keys) != 1:
        return _unknown(part)
    key = data_keys[0]
    rest = {k: v for k, v in part.items() if k != key}
    value = part[key]
    if key == "text" and type(value) is str:
        if rest.get("thought") is True:
            del rest["thought"]
            return wb.ThinkingBlock(thinking=value, extra=kit.extra_or_unset(rest))
        return wb.TextBlock(text=value, extra=kit.extra_or_unset(rest))
    if key == "inlineData" and type(value) is dict:
        block = _inline(value, rest)
        if block is not None:
            return block
    elif key == "fileData" and type(value) is dict:
        block = _file(value, rest)
        if block is not None:
            return block
    elif (
        key == "functionCall"
        and call is not None
        and type(value) is dict
        and type(value.get("name")) is str
        and type(value.get("args", {})) is dict
    ):  # (a call streamed in pieces, partialArgs and no name, is kept whole below)
        return _call(value, rest, path, call)
    return _unknown(part)


def _unknown(part: dict[str, Any]) -> wb.UnknownBlock:
    return wb.UnknownBlock(Extra._own({"type": PART_TYPE, **part}))


def _inline(value: dict[str, Any], rest: dict[str, Any]) -> wb.ContentBlock | None:
    mime, data = value.get("mimeType"), value.get("data")
    if type(mime) is not str or type(data) is not str:
        return None
    more = {k: v for k, v in value.items() if k not in ("mimeType", "data")}
    source = kit.base64_source(mime, data, kit.extra_or_unset(more))
    if source is None:
        return None
    if mime.startswith("image/"):
        return wb.ImageBlock(source=source, extra=kit.extra_or_unset(rest))
    if _is_document(mime):
        return wb.DocumentBlock(source=source, extra=kit.extra_or_unset(rest))
    return None


def _guess(url: str) -> str | None:
    """The media type the file name ending ``url`` (before any query) implies, or None. The
    name alone goes to `mimetypes`: from CPython 3.13 ``guess_type`` of a whole URL knows only
    the schemes `urllib` knows, so ``gs://b.pdf`` gave ``application/pdf`` up to 3.12 and None
    after, and whether ``mimeType`` is kept would depend on the interpreter."""
    name = url.split("?", 1)[0].rsplit("/", 1)[-1]
    return mimetypes.guess_type(name)[0] if name else None


def _file(value: dict[str, Any], rest: dict[str, Any]) -> wb.ContentBlock | None:
    mime, uri = value.get("mimeType"), value.get("fileUri")
    if type(mime) is not str or type(uri) is not str:
        return None
    more = {k: v for k, v in value.items() if k != "fileUri"}
    if _guess(uri) == mime:
        del more["mimeType"]
    source = wb.UrlSource(url=uri, extra=kit.extra_or_unset(more))
    if mime.startswith("image/"):
        return wb.ImageBlock(source=source, extra=kit.extra_or_unset(rest))
    if _is_document(mime):
        return wb.DocumentBlock(source=source, extra=kit.extra_or_unset(rest))
    return None


def _call(value: dict[str, Any], rest: dict[str, Any], path: str, call: Any) -> wb.ToolUseBlock:
    i, j, calls = call
    name = kit.want_str(value.get("name"), path + ".functionCall.name")
    args = kit.want_dict(value.get("args", {}), path + ".functionCall.args")
    more = {k: v for k, v in value.items() if k not in ("name", "args", "id")}
    if "args" not in value:
        more["args_absent"] = True
    ident = value.get("id")
    if type(ident) is not str:
        ident = f"{ID_PREFIX}{i}-{j}"
    calls.pending.append((name, ident))
    rest.update(more)
    return wb.ToolUseBlock(id=ident, name=name, input=args, extra=kit.extra_or_unset(rest))


def _decode_response(data: Any, limits: Limits) -> ModelResponse:
    """Decode a Gemini ``GenerateContentResponse`` into a `ModelResponse`."""
    return response_from_dict(kit.want_dict(kit.decode_json(data, "$"), "$"))


def response_from_dict(body: dict[str, Any]) -> ModelResponse:
    """The `ModelResponse` of an already decoded response object (used by the stream)."""
    extra = dict(body)
    blocks: list[wb.ContentBlock] = []
    reason = "end_turn"
    candidates = extra.get("candidates", kit.MISSING)
    if candidates is not kit.MISSING and kit.want_list(candidates, "$.candidates"):
        first = dict(kit.want_dict(candidates[0], "$.candidates[0]"))
        content = first.get("content", kit.MISSING)
        if content is not kit.MISSING:
            content = dict(kit.want_dict(content, "$.candidates[0].content"))
            parts = kit.want_list(content.pop("parts", []), "$.candidates[0].content.parts")
            calls = _Calls()
            blocks = [
                _block(p, f"$.candidates[0].content.parts[{j}]", (0, j, calls))
                for j, p in enumerate(parts)
            ]
            first["content"] = content
        finish = first.get("finishReason")
        if type(finish) is str:
            reason = _stop(finish, blocks)
        extra["candidates"] = [first, *candidates[1:]]
    elif type(extra.get("promptFeedback")) is dict and "blockReason" in extra["promptFeedback"]:
        reason = "refusal"
    counters = kit.usage_in(extra, "usageMetadata", USAGE_NAMES)
    typed = kit.typed_fields(extra, (("responseId", "id", str), ("modelVersion", "model", str)))
    extra[kit.SOURCE] = NAME
    return ModelResponse(
        message=Message(role="assistant", content=blocks, extra=kit.tagged({}, blocks, NAME)),
        stop_reason=reason,
        usage=counters,
        extra=Extra._own(extra),
        **typed,
    )


def _stop(finish: str, blocks: list[wb.ContentBlock]) -> str:
    reason = FINISH_REASONS.get(finish, finish)
    if reason == "end_turn" and any(type(b) is wb.ToolUseBlock for b in blocks):
        return "tool_use"
    return reason


# --- encoding -----------------------------------------------------------------------------------


def _encode_request(req: Request, policy: Unsupported, direct: bool = True) -> bytes:
    """Encode a `Request` (or messages plus keyword options) as a Gemini request body.

    System messages go to ``systemInstruction`` (text only); tool messages become
    ``functionResponse`` parts of a user content (consecutive ones share one content).
    Content Gemini cannot hold raises `UnsupportedError` naming its path, or under
    ``unsupported="drop"`` is left out and recorded in ``dropped``.

    The commonest messages are written by `_direct_parts` and `_direct_response`;
    ``direct=False`` writes every one through the general path instead (the same bytes: the
    tests compare the two).
    """
    body: dict[str, Any] = kit.encode_settings(req, NAME, read_settings, write_settings, policy)
    contents: list[Any] = []
    names: dict[str, str] = {}
    system_parts: list[Any] = []
    tool_content: dict[str, Any] | None = None
    for i, msg in enumerate(req.messages):
        role = msg.role
        content = msg.content
        plain = msg.extra is UNSET
        if plain and type(content) is str and role != "tool":  # the common case, fast
            if role == "system":
                system_parts.append({"text": content})
            else:
                tool_content = None
                parts = [{"text": content}]
                contents.append(
                    {"role": "model" if role == "assistant" else "user", "parts": parts}
                )
            continue
        if not direct:
            pass
        elif role == "tool":
            part = _direct_response(msg, names)
            if part is not None:
                if tool_content is None or (not plain and msg.extra.get(kit.NEW_TURN) is True):
                    tool_content = {"role": "user", "parts": []}
                    contents.append(tool_content)
                tool_content["parts"].append(part)
                continue
        elif plain or (len(msg.extra) == 1 and msg.extra.get(kit.SOURCE) == NAME):
            own = not plain
            parts = _direct_parts(content, own, role == "system", names, policy)
            if parts is not None:
                if role == "system":
                    system_parts += parts
                    continue
                if parts or own:
                    tool_content = None
                    contents.append(
                        {"role": "model" if role == "assistant" else "user", "parts": parts}
                    )
                    continue
        path = f"$.messages[{i}]"
        own = kit.is_own(msg.extra, NAME)
        if role == "system":
            kit.message_keys(msg, NAME, _NO_KEYS, policy, path)
            system_parts.extend(_parts(content, path, policy, names, True, own))
            continue
        if role == "tool":
            part = _response_part(msg, path, policy, names)
            if part is None:
                continue
            if tool_content is None or (
                msg.extra is not UNSET and msg.extra.get(kit.NEW_TURN) is True
            ):
                tool_content = {"role": "user", "parts": []}
                contents.append(tool_content)
            tool_content["parts"].append(part)
            continue
        tool_content = None
        parts = _parts(content, path, policy, names, False, own)
        if not parts and not own:  # the API refuses a content without parts
            policy.metadata(path, "a turn left without parts (Gemini refuses an empty one)")
            continue
        item = {"role": "model" if role == "assistant" else "user", "parts": parts}
        if not plain:
            item.update(kit.message_keys(msg, NAME, _CONTENT_KEYS, policy, path))
        contents.append(item)
    if system_parts:
        base = body.get("systemInstruction")
        body["systemInstruction"] = {**(base if type(base) is dict else {}), "parts": system_parts}
    body["contents"] = contents
    return kit.encode_json(body)


def _parts(
    content: str | list[wb.ContentBlock],
    path: str,
    policy: Unsupported,
    names: dict[str, str],
    system: bool,
    own: bool,
) -> list[Any]:
    if type(content) is str:
        return [{"text": content}]
    parts = []
    for j, block in enumerate(content):
        kind = type(block)
        if kind is not wb.UnknownBlock and kit.bare(block):
            if kind is wb.TextBlock:  # fast paths: blocks without extra keys
                parts.append({"text": block.text})  # type: ignore[union-attr]
                continue
            if kind is wb.ToolUseBlock and not system:
                ident = block.id  # type: ignore[union-attr]
                name: str = block.name  # type: ignore[union-attr]
                if not own:
                    name = policy.renaming().name(name, NAME_LIMIT, NAME)
                call: dict[str, Any] = {"name": name, "args": block.input}  # type: ignore[union-attr]
                if not ident.startswith(ID_PREFIX):
                    call["id"] = ident
                names[ident] = name
                parts.append({"functionCall": call})
                continue
        where = f"{path}.content[{j}]"
        if system and kind is not wb.TextBlock:
            policy.report(where, f"a {kit.block_kind(block)} block in the system instruction")
            continue
        part = _part(block, where, policy, names, own)
        if part is not None:
            parts.append(part)
    return parts


def _direct_parts(
    content: str | list[wb.ContentBlock],
    own: bool,
    system: bool,
    names: dict[str, str],
    policy: Unsupported,
) -> list[Any] | None:
    """What `_parts` writes for the commonest blocks, written directly (None when a block is
    another kind, carries a typed optional field or a key the general path would report, or
    otherwise needs it): texts, thoughts, function calls, inline and file data of documented
    media types, and (own) Gemini parts kept whole. Never reports."""
    if type(content) is str:
        return [{"text": content}]
    parts: list[Any] = []
    for block in content:
        kind = type(block)
        if kind is wb.TextBlock:
            if block.citations is not UNSET or block.cache_control is not UNSET:  # type: ignore[union-attr]
                return None
            part: dict[str, Any] = {"text": block.text}  # type: ignore[union-attr]
        elif system:
            return None
        elif kind is wb.ToolUseBlock:
            part = _direct_call(block, own, names, policy)  # type: ignore[arg-type]
            if part is None:
                return None
            parts.append(part)
            continue
        elif kind is wb.ThinkingBlock:
            if block.signature is not UNSET:  # type: ignore[union-attr]
                return None
            part = {"text": block.thinking, "thought": True}  # type: ignore[union-attr]
        elif kind is wb.UnknownBlock:
            data = block.data  # type: ignore[union-attr]
            if not own or data.get("type") != PART_TYPE:
                return None
            parts.append({k: v for k, v in data.items() if k != "type"})
            continue
        elif kind is wb.DocumentBlock or kind is wb.ImageBlock:
            part = _direct_media(block)  # type: ignore[assignment]
            if part is None:
                return None
        else:
            return None
        extra = block.extra  # type: ignore[union-attr]
        if extra is not UNSET:
            if not own and not _PART_KEYS.issuperset(extra):
                return None
            part.update(extra.items())
        parts.append(part)
    return parts


def _direct_call(
    block: wb.ToolUseBlock, own: bool, names: dict[str, str], policy: Unsupported
) -> dict[str, Any] | None:
    """A ``functionCall`` part as `_parts` / `_part` write it, for a call without typed
    optional fields (records its name in ``names``, as they do)."""
    if (
        block.caller is not UNSET
        or block.toolset_name is not UNSET
        or block.cache_control is not UNSET
    ):
        return None
    extra = block.extra
    keys: dict[str, Any] = {}
    if extra is not UNSET:
        if not own and not _CALL_KEYS.issuperset(extra):
            return None
        keys = extra.to_dict()
    name = block.name if own else policy.renaming().name(block.name, NAME_LIMIT, NAME)
    call: dict[str, Any] = {"name": name}
    if not keys.pop("args_absent", False) or block.input:
        call["args"] = block.input
    ident = block.id
    if not ident.startswith(ID_PREFIX):
        call["id"] = ident
    names[ident] = name
    if keys:
        return {"functionCall": call, **keys}
    return {"functionCall": call}


def _direct_media(block: wb.ImageBlock | wb.DocumentBlock) -> dict[str, Any] | None:
    """`_media` for a block without typed optional fields whose base64 or URL source carries no
    extra key (a URL of a media type `_guess` knows); its own extra keys are the caller's."""
    if block.cache_control is not UNSET:
        return None
    if type(block) is wb.ImageBlock:
        if block.transformations is not UNSET:
            return None
    elif (
        block.title is not UNSET  # type: ignore[union-attr]
        or block.context is not UNSET  # type: ignore[union-attr]
        or block.citations is not UNSET  # type: ignore[union-attr]
    ):
        return None
    source = block.source
    kind = type(source)
    if kind is wb.Base64Source and source.extra is UNSET:  # type: ignore[union-attr]
        data = kit.base64_json(source)  # type: ignore[arg-type]
        return {"inlineData": {"mimeType": source.media_type, "data": data}}  # type: ignore[union-attr]
    if kind is wb.UrlSource and source.extra is UNSET:  # type: ignore[union-attr]
        mime = _guess(source.url)  # type: ignore[union-attr]
        if mime is not None:
            return {"fileData": {"mimeType": mime, "fileUri": source.url}}  # type: ignore[union-attr]
    return None


_DIRECT_RESPONSE_KEYS = kit.HINTS | {_RESPONSE_MARK}


def _direct_response(msg: Message, names: dict[str, str]) -> dict[str, Any] | None:
    """The ``functionResponse`` part `_response_part` writes for a tool result with string
    content answering a call earlier in the request, whose extra keys are hints and the mark of
    an object response (None for any other, and for a mark whose content is not a JSON
    object: the general path decides those)."""
    call_id = msg.tool_call_id
    content = msg.content
    if call_id is UNSET or type(content) is not str:
        return None
    name = names.get(call_id)  # type: ignore[arg-type]
    if name is None:
        return None
    extra = msg.extra
    mark = None
    if extra is not UNSET:
        if not _DIRECT_RESPONSE_KEYS.issuperset(extra):
            return None
        mark = extra.get(_RESPONSE_MARK)
    if mark == "object":
        try:
            response = _ANY_JSON.decode(content)
        except Exception:  # (invalid, too deep, ...: the general path decides)
            return None
        if type(response) is not dict:
            return None
    elif msg.is_error is True:
        response = {"error": content}
    else:
        response = {"output": content}
    if call_id.startswith(ID_PREFIX):  # type: ignore[union-attr]
        return {"functionResponse": {"name": name, "response": response}}
    return {"functionResponse": {"id": call_id, "name": name, "response": response}}


_ANY_JSON = msgspec.json.Decoder()


_NO_KEYS: frozenset[str] = frozenset()
_CONTENT_KEYS = frozenset({"parts"})


_PART_KEYS = frozenset(
    {"thoughtSignature", "thought", "videoMetadata", "partMetadata", "mediaResolution"}
)
_CALL_KEYS = _PART_KEYS | {"args_absent"}


def _part(block: Any, path: str, policy: Unsupported, names: dict[str, str], own: bool) -> Any:
    kind = type(block)
    if kind is wb.TextBlock:
        return {"text": block.text, **kit.block_extra(block, _PART_KEYS, own, policy, path)}
    if kind is wb.ThinkingBlock:
        if block.signature is not UNSET:
            policy.metadata(
                path + ".signature", "a thinking signature (Anthropic's; Gemini signs its own)"
            )
        keys = kit.block_extra(block, _PART_KEYS, own, policy, path)
        return {"text": block.thinking, "thought": True, **keys}
    if kind is wb.ToolUseBlock:
        keys = kit.block_extra(block, _CALL_KEYS, own, policy, path)
        name = block.name if own else policy.renaming().name(block.name, NAME_LIMIT, NAME)
        call: dict[str, Any] = {"name": name}
        if not keys.pop("args_absent", False) or block.input:
            call["args"] = block.input
        if not block.id.startswith(ID_PREFIX):
            call["id"] = block.id
        names[block.id] = name
        return {"functionCall": call, **keys}
    if kind is wb.ImageBlock or kind is wb.DocumentBlock:
        return _media(block, path, policy, own)
    if kind is wb.RedactedThinkingBlock:
        policy.metadata(path, "a redacted thinking block (encrypted for Anthropic alone)")
        return None
    if kind is wb.UnknownBlock and own and block.type == PART_TYPE:
        return {k: v for k, v in block.data.items() if k != "type"}
    if kind is wb.UnknownBlock:
        kit.foreign_block(policy, path, block.type, None if own else "another provider")
        return None
    policy.report(path, f"a {kit.block_kind(block)} block (not a Gemini part)")
    return None


def _media(block: Any, path: str, policy: Unsupported, own: bool) -> Any:
    keys = kit.block_extra(block, _PART_KEYS, own, policy, path)
    source = block.source
    more = kit.extra_dict(source) if type(source) in (wb.Base64Source, wb.UrlSource) else {}
    if not own:
        for key, value in more.items():
            if key != "mimeType":
                what = f"the key {key!r} on a source"
                kit.foreign_key(policy, f"{path}.source.{key}", what, key, value)
        more = {k: v for k, v in more.items() if k == "mimeType"}
    if type(source) is wb.Base64Source:
        data = kit.base64_json(source)  # the text it came as, or its bytes encoded once
        return {"inlineData": {"mimeType": source.media_type, "data": data, **more}, **keys}
    if type(source) is wb.UrlSource:
        mime = more.pop("mimeType", None) or _guess(source.url)
        if mime is None:
            policy.report(
                path + ".source", "a URL source whose media type is unknown (fileData needs one)"
            )
            return None
        return {"fileData": {"mimeType": mime, "fileUri": source.url, **more}, **keys}
    policy.report(path + ".source", f"a {source.type!r} source")
    return None


def _response_part(
    msg: Message, path: str, policy: Unsupported, names: dict[str, str]
) -> dict[str, Any] | None:
    if msg.tool_call_id is UNSET:
        policy.report(path, "a tool message without tool_call_id")
        return None
    extra = dict(msg.extra.items()) if msg.extra is not UNSET else {}
    mark = extra.pop(_RESPONSE_MARK, None)
    name = extra.pop("name", None) or names.get(msg.tool_call_id)
    if name is None:
        policy.report(
            path + ".tool_call_id",
            "a tool result answering no earlier tool call (Gemini needs the function name)",
        )
        return None
    content = msg.content
    if type(content) is not str:
        texts = []
        for j, block in enumerate(content):
            if type(block) is wb.TextBlock:
                texts.append(block.text)
            else:
                policy.report(
                    f"{path}.content[{j}]", f"{kit.a(kit.block_kind(block))} block in a tool result"
                )
        content = "".join(texts)
    if mark == "object":
        try:
            response = kit.want_dict(kit.decode_json(content, path + ".content"), path + ".content")
        except ValueError:
            response = {"output": content}
    elif msg.is_error is True:
        response = {"error": content}
    else:
        response = {"output": content}
    fr: dict[str, Any] = {}
    if not msg.tool_call_id.startswith(ID_PREFIX):
        fr["id"] = msg.tool_call_id
    fr["name"] = name
    fr["response"] = response
    part: dict[str, Any] = {"functionResponse": fr}
    own = kit.is_own(msg.extra, NAME)
    for key, value in extra.items():
        if key in kit.HINTS:
            continue
        if key in _RESPONSE_KEYS:
            fr[key] = value
        elif own and key == _FR_KEYS and type(value) is dict:
            fr.update(value)
        elif key in _PART_KEYS or own:
            part[key] = value
        else:
            kit.foreign_key(
                policy, f"{path}.{key}", f"the key {key!r} on a tool result", key, value
            )
    return part


def _encode_response(response: ModelResponse, policy: Unsupported, fields: dict[str, Any]) -> bytes:
    """Encode a `ModelResponse` as a Gemini ``GenerateContentResponse``.

    A response this adapter decoded comes back unchanged. Another provider's keys are never
    copied: content raises `UnsupportedError` (or is dropped and listed with
    ``unsupported="drop"``), metadata is listed in ``dropped``. ``finishReason`` follows
    ``stop_reason`` when it changed (``refusal`` is written as ``SAFETY``).
    """
    response = kit.with_fields(response, fields)
    extra = dict(response.extra.items()) if response.extra is not UNSET else {}
    own = extra.pop(kit.SOURCE, None) == NAME
    usage_other = extra.pop(kit.USAGE_EXTRA, kit.MISSING)
    body: dict[str, Any] = {}
    if own:
        body.update((k, v) for k, v in extra.items() if k not in kit.HINTS)
    else:
        for key, value in extra.items():
            if key not in kit.HINTS:
                kit.foreign_key(policy, f"$.{key}", f"the response key {key!r}", key, value)
        if response.created is not UNSET:
            policy.metadata("$.created", "the creation time (Gemini writes createTime text)")
    candidates = body.get("candidates")
    first: dict[str, Any]
    if type(candidates) is list and candidates and type(candidates[0]) is dict:
        first = dict(candidates[0])
        rest = candidates[1:]
    else:
        first, rest = {"content": {"role": "model"}, "index": 0}, []
    names: dict[str, str] = {}
    msg = response.message
    parts = _parts(msg.content, "$.message", policy, names, False, kit.is_own(msg.extra, NAME))
    content = first.get("content", kit.MISSING)
    if parts or content is not kit.MISSING:
        content = dict(content) if type(content) is dict else {"role": "model"}
        if parts:
            content["parts"] = parts
        first["content"] = content
    finish = first.get("finishReason")
    blocks = msg.content if type(msg.content) is list else []
    if type(finish) is not str:
        if response.stop_reason not in ("end_turn", "tool_use"):
            first["finishReason"] = _finish_back(response.stop_reason, policy)
    elif _stop(finish, blocks) != response.stop_reason:
        first["finishReason"] = _finish_back(response.stop_reason, policy)
    body["candidates"] = [first, *rest]
    given = usage_other is not kit.MISSING and usage_other is not None
    if own and given and not response.usage and type(usage_other) is not dict:
        body["usageMetadata"] = usage_other  # its own, not an object: back as it came
    elif response.usage or (usage_other is not kit.MISSING and usage_other is not None):
        other = usage_other if type(usage_other) is dict else {}
        counters = dict(response.usage)
        if not own:
            given = None if usage_other is kit.MISSING else usage_other  # (absent: nothing)
            counters = kit.foreign_usage(counters, given, _USAGE_NEUTRAL, policy)
            other = {}
        kit.uncached(counters, 1)
        body["usageMetadata"] = kit.usage_object(counters, other, _USAGE_BACK)
    elif usage_other is None and own:
        body["usageMetadata"] = None
    if response.model is not UNSET:
        body["modelVersion"] = response.model
    if response.id is not UNSET:
        body["responseId"] = response.id
    return kit.encode_json(body)


_USAGE_NEUTRAL = frozenset(USAGE_NAMES.values())


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
